"""Seeded synthetic patient databases shaped like the dissertation's (pia.md §3, §4.5, §6, §9).

The evaluation data of Table 4.1 is not published; this generator reproduces its shape:

* patients ``Pat_i`` (``Pat_i.v`` for a patient seeded with a violation, as in Fig. 4.1),
  each ``(Pat_i, ISA, Patient)``, one ``(Pat_i, HasDoctor, MD-k)`` and one or two
  ``(Pat_i, TakesMedication, M-…)`` — about 3.7 asserted triples per patient (§3:
  3.4–4.0);
* doctors ``MD-k`` (max(25, patients // 25) of them) with ``(MD-k, IsDoctorType, <specialty>)``
  and ``(MD-k, ISA, Physician)``;
* an ontology (``ontology.ttl``) of dotted-code hierarchies — medication classes ``M-1`` …
  ``M-6`` ISA Medication with two products each (``M-1.2`` ISA ``M-1``; patients without a
  violation take products), the trigger branch ``M-1.1.1``/``M-1.1.2`` ISA ``M-1.1`` and
  ``M-1.2.1.1`` ISA ``M-1.2.1`` ISA ``M-1.2``; a sparse disease tree (``D-2.1.1``,
  ``D-1.1.1.1``, …) ISA Disease; specialties ISA Physician. The ontology is small and a
  prescribed product inherits only to its class and Medication, so the inferred counts match
  Table 4.1 (inferred ≈ asserted: ≈18,200 inferred at 5,000 patients against 17,875–19,609,
  and ≈400 at 100 against 376–417; pia.md §4.5). An earlier shape (every patient on a leaf
  of a full 4-level medication tree, Medication ISA Substance, Patient/Physician ISA
  Person) inferred about twice Table 4.1's counts;
* the rules (``rules.txt``, Jena syntax): ISA transitivity, medication inheritance
  ``(p TakesMedication m) (m ISA c) → (p TakesMedication c)``, ``SeenBy`` (doctor type),
  the two violation rules of Fig. 4.1 and a second oncology rule::

      [cancer: (?p HasDoctor ?d) (?d IsDoctorType Oncologist) (?p TakesMedication M-1.1.1)
               -> (?p DiagnosedWith D-2.1.1)]
      [hepatitis: (?p HasDoctor ?d) (?d IsDoctorType Hepatologist) (?p TakesMedication M-1.2.1.1)
               -> (?p DiagnosedWith D-1.1.1.1)]
      [leukemia: (?p HasDoctor ?d) (?d IsDoctorType Oncologist) (?p TakesMedication M-1.1.2)
               -> (?p DiagnosedWith D-2.1.2)]

* ``labels.csv``: DiagnosedWith → High, TakesMedication → Medium, SeenBy → Low;
  ``threshold.txt``: ``Medium``.

Every violation is backed by exactly 3 ground facts (HasDoctor, IsDoctorType,
TakesMedication). The shape follows Table 5.6 (pia.md §4.8): violations 1 and 2 are
independent (cancer and hepatitis, each its own patient and doctor: 3 facts each, 7
covering subsets each); from the third on, violations come in **pairs on one patient**
(``cancer`` + ``leukemia``: one ``Pat_i.v`` with one oncologist and the two trigger
medications), so the two violations of a pair share the HasDoctor and IsDoctorType facts
— 4 facts, 13 covering subsets; an odd last violation is again independent (a cancer
patient with a fresh oncologist). Hence 0/1/2/4 violations have 0/3/6/10 participants,
0/63/4,095/1,048,575 exhaustive solutions (Table 4.1) and 0/7/49/637 = 7·7·13 removal
covers (Table 5.6); ``participant_count(v) = 3v − 2·⌊(v − 2)/2⌋`` for v ≥ 2 and
``cover_count(v)`` gives the covers. Patients without a violation never satisfy a
violation rule (their medications, with their ISA ancestors, never meet a trigger
medication of their doctor's specialty). Everything is drawn from
``random.Random(seed)``: the same arguments give byte-identical files.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from rdflib import URIRef

from tklscore.core.files.atomic import atomic_write, output_folder
from tklscore.core.errors import InputError, check_limit, check_seed
from tklscore.core.pia.facts import ISA, Triple

NAMESPACE = "http://example.org/pia-synthetic#"
FILES = ("ontology.ttl", "data.ttl", "rules.txt", "labels.csv", "threshold.txt")
SPECIALTIES = ("Oncologist", "Hepatologist", "Cardiologist", "GeneralPractitioner",
               "Neurologist", "Nephrologist")
TRIGGERS = {  # violation rule → (doctor type, medication, disease)
    "cancer": ("Oncologist", "M-1.1.1", "D-2.1.1"),
    "hepatitis": ("Hepatologist", "M-1.2.1.1", "D-1.1.1.1"),
    "leukemia": ("Oncologist", "M-1.1.2", "D-2.1.2"),
}

RULES = f"""# Synthetic PIA rules (tklscore.core.pia.generator), Jena rule syntax.
@prefix ex: <{NAMESPACE}>.
@prefix pia: <urn:tklscore:pia#>.

[isaTransitive: (?a pia:ISA ?b) (?b pia:ISA ?c) -> (?a pia:ISA ?c)]
[medicationInheritance: (?p ex:TakesMedication ?m) (?m pia:ISA ?c) -> (?p ex:TakesMedication ?c)]
[seenBy: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ?t) -> (?p ex:SeenBy ?t)]
# the violation rules of Fig. 4.1
[cancer: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Oncologist) (?p ex:TakesMedication ex:M-1.1.1)
         -> (?p ex:DiagnosedWith ex:D-2.1.1)]
[hepatitis: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Hepatologist) (?p ex:TakesMedication ex:M-1.2.1.1)
         -> (?p ex:DiagnosedWith ex:D-1.1.1.1)]
# a second oncology rule: a patient on both oncology triggers has two violations sharing two facts
[leukemia: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Oncologist) (?p ex:TakesMedication ex:M-1.1.2)
         -> (?p ex:DiagnosedWith ex:D-2.1.2)]
"""

LABELS = """subject,predicate,object,label
*,DiagnosedWith,*,High
*,TakesMedication,*,Medium
*,SeenBy,*,Low
"""

THRESHOLD = "Medium"


def term(name: str) -> URIRef:
    return URIRef(NAMESPACE + name)


def _groups(violations: int) -> list[tuple[str, ...]]:
    """The violating patients' rule groups: two single violations, then pairs, an odd one last."""
    groups: list[tuple[str, ...]] = [("cancer",), ("hepatitis",)][:violations]
    rest = max(0, violations - 2)
    groups += [("cancer", "leukemia")] * (rest // 2)
    if rest % 2:
        groups.append(("cancer",))
    return groups


def participant_count(violations: int) -> int:
    """Ground facts behind ``violations`` generated violations (0/3/6/10 for 0/1/2/4)."""
    return sum(2 + len(group) for group in _groups(violations))


def cover_count(violations: int) -> int:
    """Non-empty covering subsets of the participants (0/7/49/637 for 0/1/2/4, Table 5.6).

    A single violation's 3 facts: 2³ − 1 = 7 covers; a pair sharing 2 of its 4 facts:
    2⁴ − 1 − 2 = 13 (the subsets missing one violation are ∅ plus its private fact).
    Independent groups multiply.
    """
    if violations == 0:
        return 0
    total = 1
    for group in _groups(violations):
        total *= 7 if len(group) == 1 else 13
    return total


@dataclass
class Generated:
    ontology: list[Triple]
    data: list[Triple]
    violating_patients: list[str] = field(default_factory=list)
    participants: list[Triple] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


# The medication hierarchy (pia.md §3, §4.5): drug classes ``M-1`` … ``M-6`` ISA Medication,
# each with ``PRODUCTS`` products ``M-a.b`` (what patients are prescribed), plus the trigger
# branch of the violation rules: ``M-1.1.1``/``M-1.1.2`` ISA ``M-1.1`` and ``M-1.2.1.1`` ISA
# ``M-1.2.1`` ISA ``M-1.2``. A product inherits to its class and Medication only, so a patient
# infers about 1.6 TakesMedication triples (Table 4.1: inferred ≈ asserted).
MEDICATION_CLASSES = 6
PRODUCTS = 2
TRIGGER_BRANCH = ("1.1.1", "1.1.2", "1.2.1", "1.2.1.1")
DISEASES = ("1", "2", "3", "1.1", "1.1.1", "1.1.1.1", "2.1", "2.1.1", "2.1.1.1", "2.1.2")


def _dotted(prefix: str, root: str, codes) -> list[Triple]:
    """``prefix-code`` ISA ``prefix-<code minus its last part>`` (or ``root`` for one part)."""
    return [Triple(term(f"{prefix}-{code}"), ISA,
                   term(f"{prefix}-{code.rsplit('.', 1)[0]}" if "." in code else root)) for code in codes]


def _ontology() -> tuple[list[Triple], list[str], dict[str, set[str]]]:
    products = [f"{a}.{b}" for a in range(1, MEDICATION_CLASSES + 1) for b in range(1, PRODUCTS + 1)]
    codes = [str(a) for a in range(1, MEDICATION_CLASSES + 1)] + products + list(TRIGGER_BRANCH)
    meds_isa = _dotted("M", "Medication", codes)
    onto = meds_isa + _dotted("D", "Disease", DISEASES)               # D-2.1.1, D-1.1.1.1, …
    onto += [Triple(term(s), ISA, term("Physician")) for s in SPECIALTIES]
    parent = {str(s)[len(NAMESPACE):]: str(o)[len(NAMESPACE):] for s, _, o in meds_isa}
    meds = [f"M-{code}" for code in products]
    ancestors: dict[str, set[str]] = {}
    for m in meds:
        chain, node = {m}, m
        while node in parent:
            node = parent[node]
            chain.add(node)
        ancestors[m] = chain
    return onto, meds, ancestors


MAX_PATIENTS = 1_000_000
"""The most patients :func:`generate` writes (their triples are held in memory)."""


def generate(patients: int, violations: int, seed: int = 1) -> Generated:
    """``(ontology, data)`` with ``patients`` patients of which ``violations`` violate."""
    if isinstance(patients, bool) or not isinstance(patients, int) or patients < 1:
        raise InputError(f"the number of patients must be a positive whole number, not {patients!r}")
    if isinstance(violations, bool) or not isinstance(violations, int) or violations < 0:
        raise InputError(f"the number of violations must be a whole number ≥ 0, not {violations!r}")
    check_limit(patients, MAX_PATIENTS, what="the generated database", verb="hold", unit="patients",
                hint="the data, held in memory and written as Turtle, grows with every patient; generate fewer")
    seed = check_seed(seed)
    needed = len(_groups(violations))
    if needed > patients:
        raise InputError(f"{violations} violations need at least {needed} patients, not {patients}",
                         hint="the first three violations each belong to their own patient; "
                              "from the fourth on they come in pairs on one patient")
    rng = random.Random(seed)
    onto, meds, ancestors = _ontology()
    n_doctors = max(25, patients // 25)   # 25 at 100 patients (MD-21 …), 40 at 1,000 (MD-32, Fig. 4.1)
    doctors = [f"MD-{k}" for k in range(1, n_doctors + 1)]
    dtype = {d: rng.choice(SPECIALTIES) for d in doctors}
    groups = _groups(violations)
    violating = sorted(rng.sample(range(1, patients + 1), len(groups)))
    # each violating patient (group) has its own doctor of the wanted specialty
    group_doctor: dict[int, str] = {}
    used: set[str] = set()
    for k, group in enumerate(groups):
        wanted = TRIGGERS[group[0]][0]
        choices = [d for d in doctors if dtype[d] == wanted and d not in used]
        if not choices:
            choices = [d for d in doctors if d not in used]
            doctor = rng.choice(choices)
            dtype[doctor] = wanted
        else:
            doctor = rng.choice(choices)
        used.add(doctor)
        group_doctor[k] = doctor
    triggers_of: dict[str, set[str]] = {}
    for spec, med, _ in TRIGGERS.values():
        triggers_of.setdefault(spec, set()).add(med)

    data: list[Triple] = []
    for d in doctors:
        data.append(Triple(term(d), term("IsDoctorType"), term(dtype[d])))
        data.append(Triple(term(d), ISA, term("Physician")))
    participants: list[Triple] = []
    names: list[str] = []
    slot = {p: k for k, p in enumerate(violating)}
    for i in range(1, patients + 1):
        if i in slot:
            k = slot[i]
            name = f"Pat_{i}.v"
            names.append(name)
            doctor = group_doctor[k]
            takes = [Triple(term(name), term("TakesMedication"), term(TRIGGERS[kind][1])) for kind in groups[k]]
            facts = [Triple(term(name), term("HasDoctor"), term(doctor)),
                     Triple(term(doctor), term("IsDoctorType"), term(dtype[doctor])), *takes]
            participants.extend(f for f in facts if f not in participants)
            data.append(Triple(term(name), ISA, term("Patient")))
            data.append(facts[0])
            data.extend(takes)
            continue
        name = f"Pat_{i}"
        doctor = rng.choice(doctors)
        triggers = triggers_of.get(dtype[doctor], set())
        allowed = [m for m in meds if not triggers & ancestors[m]]
        count = 1 if rng.random() < 0.3 else 2
        data.append(Triple(term(name), ISA, term("Patient")))
        data.append(Triple(term(name), term("HasDoctor"), term(doctor)))
        for m in rng.sample(allowed, count):
            data.append(Triple(term(name), term("TakesMedication"), term(m)))
    return Generated(onto, data, names, participants)


def _turtle(triples: list[Triple], comment: str) -> str:
    lines = [f"# {comment}", f"@prefix ex: <{NAMESPACE}> .", "@prefix pia: <urn:tklscore:pia#> .", ""]
    for s, p, o in triples:
        lines.append(f"{_qname(s)} {_qname(p)} {_qname(o)} .")
    return "\n".join(lines) + "\n"


_LOCAL = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def _qname(node) -> str:
    text = str(node)
    local = text[len(NAMESPACE):]
    if text.startswith(NAMESPACE) and local and not local.endswith(".") and _LOCAL.fullmatch(local):
        return "ex:" + local  # Turtle allows inner dots and dashes: ex:Pat_4.v, ex:M-1.2.1.1
    if text.startswith("urn:tklscore:pia#"):
        return "pia:" + text.split("#", 1)[1]
    return f"<{text}>"


def write_generated(directory: str | Path, patients: int, violations: int, seed: int = 1) -> Generated:
    """Generate and write ontology.ttl, data.ttl, rules.txt, labels.csv, threshold.txt."""
    result = generate(patients, violations, seed)
    directory = output_folder(directory)
    texts = {
        "ontology.ttl": _turtle(result.ontology, "Synthetic PIA ontology (ISA hierarchies)"),
        "data.ttl": _turtle(result.data, f"Synthetic PIA data: {patients} patients, {violations} "
                                         f"violation(s), seed {seed}"),
        "rules.txt": RULES,
        "labels.csv": LABELS,
        "threshold.txt": THRESHOLD + "\n",
    }
    for name in FILES:
        path = directory / name
        with atomic_write(path) as handle:
            handle.write(texts[name])
        result.files.append(path)
    return result
