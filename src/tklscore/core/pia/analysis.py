"""One PIA analysis from files: load → assess (Alg 1–3, 5, 6) → disruption (Alg 4 or Ch. 5).

Shared by ``tklscore pia analyze`` and the patient view. Pure: no Qt, no printing.

    from tklscore.core.pia.analysis import analyze_files
    run = analyze_files(ontology="bob_ontology.ttl", data="bob_data.ttl", rules="bob.rules",
                        labels="bob_patterns.csv", threshold="Medium", method="efficient",
                        preferences={...} or "prefs.csv")
    run.assessment.violations, run.result.solution, run.timings_ms, run.to_json_dict()
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tklscore.core.errors import InputError, existing_file
from tklscore.core.pia.disruption import DisruptionResult, exhaustive_disruption
from tklscore.core.pia.efficient import efficient_disruption
from tklscore.core.pia.facts import IsaHierarchy, Triple, graph_prefixes, load_triples
from tklscore.core.pia.preferences import load_preferences
from tklscore.core.pia.privacy_labels import MacLabel, PrivacyMapping, TermResolver, load_patterns
from tklscore.core.pia.reasoner import Reasoner
from tklscore.core.pia.rules import Rule, Var, load_rules
from tklscore.core.pia.violations import Assessment, assess

DEFAULT_MAX_SOLUTIONS = 4 ** 8 - 1
"""The default limit on exhaustive solutions: 65,535 (8 candidate facts)."""


@dataclass
class Analysis:
    """Everything one run loaded and computed."""

    ontology: list[Triple]
    data: list[Triple]
    rules: list[Rule]
    mapping: PrivacyMapping
    threshold: str | MacLabel               # a label of ``mapping.order``
    prefixes: dict[str, str]
    preferences: dict[Triple, int] | None
    safety: dict[Triple, int] | None
    assessment: Assessment
    result: DisruptionResult
    timings_ms: dict[str, float] = field(default_factory=dict)

    def worked_out(self) -> list[Triple]:
        """The facts worked out from the patient's record: in the closure, but neither in the
        record nor derivable from the medical knowledge alone (in a stable order)."""
        known = Reasoner(self.rules).materialize(self.ontology).triples()
        data = set(self.data)
        return sorted((t for t in self.assessment.closure.triples() if t not in known and t not in data), key=str)

    def to_json_dict(self) -> dict:
        """The document ``tklscore pia analyze --format json`` prints (see ``cli/pia.py``)."""
        def row(t) -> list[str]:
            return [str(t[0]), str(t[1]), str(t[2])]

        result, assessment = self.result, self.assessment
        solution = result.solution
        alterations = [] if solution is None else [
            {"triple": row(a.source), "new_object": None if a.new_object is None else str(a.new_object),
             "cost": a.cost} for a in solution.alterations]
        return {
            "asserted": len(dict.fromkeys(self.data)),
            "inferred": assessment.closure.stats()["inferred"],
            "violations": [row(v.triple) for v in assessment.violations],
            "participants": [row(f) for f in assessment.participants.facts],
            "solutions_evaluated": result.evaluated,
            "solution": {"alterations": alterations, "cost": float(result.cost),
                         "impact": None if result.impact is None else float(result.impact),
                         "valid": bool(result.valid)},
            "timings_ms": self.timings_ms,
        }


def load_inputs(ontology, data, rules, labels):
    """(ontology triples, data triples, rules, mapping, prefixes) — the files checked first."""
    for path, what in ((ontology, "ontology file"), (data, "data file"),
                       (rules, "rule file"), (labels, "label file")):
        existing_file(path, what)
    onto = load_triples(ontology)
    facts = load_triples(data)
    rule_list = load_rules(rules)
    prefixes = {**graph_prefixes(ontology), **graph_prefixes(data)}
    rule_terms = [t for r in rule_list for atom in (*r.body, r.head) for t in atom if not isinstance(t, Var)]
    known = [*(t for triple in (*facts, *onto) for t in triple), *rule_terms]
    mapping = load_patterns(labels, resolver=TermResolver(prefixes=prefixes, known=known))
    mapping.check_monotone(IsaHierarchy([*onto, *facts]), file=str(labels))  # pia.md §2.2, Def 3.3.10
    return onto, facts, rule_list, mapping, prefixes


def _levels(value, facts, prefixes, kind):
    if value is None:
        return None
    if isinstance(value, Mapping):
        return {Triple(*t): v for t, v in value.items()}
    return load_preferences(value, facts, kind=kind, prefixes=prefixes)


def analyze_files(ontology: str | Path, data: str | Path, rules: str | Path, labels: str | Path,
                  threshold: str, *, method: str = "exhaustive",
                  preferences: str | Path | Mapping[Triple, int] | None = None,
                  safety: str | Path | Mapping[Triple, int] | None = None,
                  max_solutions: int | None = DEFAULT_MAX_SOLUTIONS) -> Analysis:
    """Run the whole analysis. ``preferences``/``safety``: a file (CSV or RDF) or a mapping.

    Bad input raises :class:`~tklscore.core.errors.InputError` naming the file and place.
    """
    if method not in ("exhaustive", "efficient"):
        raise ValueError(f"method must be 'exhaustive' or 'efficient', not {method!r}")
    start = time.perf_counter()
    onto, facts, rule_list, mapping, prefixes = load_inputs(ontology, data, rules, labels)
    try:
        level = mapping.order.parse(threshold)
    except InputError as error:
        raise InputError(f"the threshold {error.message}", hint=error.hint) from None
    prefs = _levels(preferences, facts, prefixes, "preference")
    safe = _levels(safety, facts, prefixes, "safety")
    loaded = time.perf_counter()
    assessment = assess(facts, Reasoner(rule_list), mapping, level, ontology=onto)
    assessed = time.perf_counter()
    if method == "efficient":
        result = efficient_disruption(assessment, preferences=prefs, safety=safe, mapping=mapping)
    else:
        result = exhaustive_disruption(assessment, max_solutions=max_solutions, safety=safe,
                                       mapping=mapping, data=facts)
    done = time.perf_counter()
    timings = {"load": (loaded - start) * 1000, "assess": (assessed - loaded) * 1000,
               "disruption": (done - assessed) * 1000, "total": (done - start) * 1000}
    return Analysis(onto, facts, rule_list, mapping, level, prefixes, prefs, safe, assessment, result, timings)


__all__ = ["DEFAULT_MAX_SOLUTIONS", "Analysis", "analyze_files", "load_inputs"]
