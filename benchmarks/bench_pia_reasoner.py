"""Time PIA's reasoner on a seeded synthetic patient database (pia.md §4.5, §6, §9).

The database is shaped like the dissertation's evaluation data and the §9 measurement:
patients ``Pat_i`` with a doctor (``HasDoctor MD-k``), medications (``TakesMedication``)
from a dotted-code medication hierarchy (``M-1.2`` ISA ``M-1`` ISA Medication), doctors typed by specialty (``IsDoctorType``), a disease hierarchy, ~65
concepts with ~58 ISA edges, ISA transitivity + object inheritance + 4 domain rules, one
of which chains on an inferred fact. At 5,000 patients (seed 1): 19,074 asserted,
23,775 inferred triples, 36,729 justifications (§9 measured 19,033 / 19,582 / 43,430).

    .venv/bin/python benchmarks/bench_pia_reasoner.py                 # 5,000 patients, seed 1
    .venv/bin/python benchmarks/bench_pia_reasoner.py --patients 10000 --seed 3

Prints sizes, the fixpoint-with-provenance time (target ≤ 0.5 s at 5,000 patients, §9),
the time to alter two facts and re-reason incrementally (Delete/Rederive) and to revert,
and the time of MinimizeDB over the whole database. Exit status 1 if the fixpoint
target fails.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

from rdflib import URIRef

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Stopwatch, machine, timed, verdict  # noqa: E402

from tklscore.core.pia import (  # noqa: E402
    ISA,
    PrivacyMapping,
    PrivacyPattern,
    Reasoner,
    Triple,
    detect_violations,
    minimize_db,
    parse_jena_rules,
)

EX = "http://example.org/pia-bench#"
RULES = """
@prefix ex: <http://example.org/pia-bench#>.
[isaTransitive: (?a pia:ISA ?b) (?b pia:ISA ?c) -> (?a pia:ISA ?c)]
[medInheritance: (?p ex:TakesMedication ?m) (?m pia:ISA ?c) -> (?p ex:TakesMedication ?c)]
[seenBy: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ?t) -> (?p ex:SeenBy ?t)]
[hepC: (?p ex:SeenBy ex:Hepatologist) (?p ex:TakesMedication ex:M-1.1) -> (?p ex:DiagnosedWith ex:D-1.1.1)]
[cancer: (?p ex:SeenBy ex:Oncologist) (?p ex:TakesMedication ex:M-2) -> (?p ex:DiagnosedWith ex:D-2.1.1)]
[hiv: (?p ex:SeenBy ex:GeneralPractitioner) (?p ex:TakesMedication ex:M-3.1) -> (?p ex:DiagnosedWith ex:D-3.1.1)]
[chronic: (?p ex:DiagnosedWith ?d) (?d pia:ISA ex:D-1) -> (?p ex:HasChronicCondition ex:D-1)]
"""


def term(name: str) -> URIRef:
    return URIRef(EX + name)


def hierarchy(prefix: str, root: str, fan: tuple[int, ...]) -> tuple[list[Triple], list[URIRef]]:
    """A dotted-code tree below ``root``; returns its ISA triples and its leaves."""
    triples, leaves = [], []

    def grow(code: str, node: URIRef, depth: int):
        if depth == len(fan):
            leaves.append(node)
            return
        for i in range(1, fan[depth] + 1):
            child_code = f"{code}.{i}" if code else str(i)
            child = term(f"{prefix}-{child_code}")
            triples.append(Triple(child, ISA, node))
            grow(child_code, child, depth + 1)

    grow("", term(root), 0)
    return triples, leaves


def generate(patients: int, seed: int = 1) -> tuple[list[Triple], list[Triple]]:
    """``(ontology, data)`` for ``patients`` patients, reproducible from ``seed``."""
    rng = random.Random(seed)
    meds_isa, meds = hierarchy("M", "Medication", (4, 6))           # 4+24 = 28 concepts
    dis_isa, _ = hierarchy("D", "Disease", (3, 2, 2))               # 3+6+12 = 21 concepts
    # 28 + 21 + 6 specialties + Patient/Physician/Person/Medication/Disease... = 62 ISA edges
    types = ["Hepatologist", "Oncologist", "Cardiologist", "GeneralPractitioner",
             "Neurologist", "Nephrologist"]
    ontology = meds_isa + dis_isa
    ontology += [Triple(term(t), ISA, term("Physician")) for t in types]
    ontology += [Triple(term("Patient"), ISA, term("Person")), Triple(term("Physician"), ISA, term("Person")),
                 Triple(term("Disease"), ISA, term("Condition"))]
    doctors = [term(f"MD-{k}") for k in range(1, 61)]
    data = []
    for d in doctors:
        data.append(Triple(d, term("IsDoctorType"), term(rng.choice(types))))
    for i in range(1, patients + 1):
        p = term(f"Pat_{i}")
        data.append(Triple(p, ISA, term("Patient")))
        data.append(Triple(p, term("HasDoctor"), rng.choice(doctors)))
        for m in rng.sample(meds, 1 if rng.random() < 0.2 else 2):
            data.append(Triple(p, term("TakesMedication"), m))
    return ontology, data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patients", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5, help="fixpoint runs (median is reported)")
    parser.add_argument("--no-minimize", action="store_true", help="skip timing MinimizeDB")
    args = parser.parse_args(argv)

    ontology, data = generate(args.patients, args.seed)
    reasoner = Reasoner(parse_jena_rules(RULES))
    fixpoint = timed(lambda: reasoner.materialize(ontology + data), args.repeat)
    closure, fix, times = fixpoint.result, fixpoint.wall, fixpoint.walls
    stats = closure.stats()
    multi = sum(1 for t in closure.inferred() if len(closure.justifications(t)) > 1)
    print(f"patients {args.patients}  seed {args.seed}  rules {len(reasoner.rules)}; {machine()}")
    print(f"ontology {len(ontology)} ISA triples; data {len(data)} triples; "
          f"asserted {stats['asserted']}  inferred {stats['inferred']}  "
          f"justifications {stats['justifications']}  (inferred with >1 justification: {multi})")
    print(f"fixpoint with provenance: median {fix * 1000:.0f} ms of {args.repeat} "
          f"(min {min(times) * 1000:.0f} ms, CPU {fixpoint.cpu * 1000:.0f} ms)  target <= 500 ms  {verdict(fix <= 0.5)}")

    rng = random.Random(args.seed + 1)
    takes = [t for t in data if str(t.p).endswith("TakesMedication")]
    alter_times, revert_times = [], []
    for _ in range(20):
        a, b = rng.sample(takes, 2)
        removals = [a, b]
        additions = [Triple(a.s, a.p, next(iter(closure.isa_hierarchy().immediate_parents(a.o)))),
                     Triple(b.s, b.p, term("Medication"))]
        watch = Stopwatch()
        closure.remove(removals)
        closure.add(additions)
        alter_times.append(watch.wall)
        watch.restart()
        closure.remove(additions)
        closure.add(removals)
        revert_times.append(watch.wall)
    print(f"alter 2 facts (DRed remove + add): median {statistics.median(alter_times) * 1000:.2f} ms; "
          f"revert: median {statistics.median(revert_times) * 1000:.2f} ms")
    mapping = PrivacyMapping([PrivacyPattern(None, term("DiagnosedWith"), None, "High"),
                              PrivacyPattern(None, term("HasChronicCondition"), None, "High")])
    detecting = timed(lambda: detect_violations(closure, mapping, "Medium"))
    print(f"violation detection over all inferred triples: {len(detecting.result)} violations in "
          f"{detecting.wall * 1000:.0f} ms")
    if not args.no_minimize:
        minimizing = timed(lambda: minimize_db(reasoner, data, ontology))
        print(f"MinimizeDB (Alg 2) over {len(data)} data triples: removed {len(minimizing.result.removed)} "
              f"in {minimizing.wall:.2f} s")
    return 0 if fix <= 0.5 else 1


if __name__ == "__main__":
    sys.exit(main())
