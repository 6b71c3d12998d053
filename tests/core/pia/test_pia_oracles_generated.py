"""Tables 4.1 / 5.6 oracles on GENERATED databases (pia.md §4.5, §4.8, §6).

For 0/1/2/4 violations the generator (:mod:`tklscore.core.pia.generator`) must give

* 0/3/6/10 participants, hence 4^p − 1 = 0/63/4,095/1,048,575 exhaustive solutions
  (enumerated in full only for 63 and 4,095; 1,048,575 by the formula and the refusal
  message of the solution limit);
* 0/7/49/637 removal covers, counted by the efficient module (the logic graph's cover
  powerset, Algs 17/18) and recounted by brute force over all 2^p subsets and by
  inclusion–exclusion over the violations' fact sets;
* optimal costs 0.5 (one violation) and 1.0 (two), from the exhaustive search, with the
  efficient method reaching the same cost.
"""

from __future__ import annotations

import itertools

import pytest

from tklscore.core.errors import InputError
from tklscore.core.pia import (
    PrivacyMapping,
    PrivacyPattern,
    Reasoner,
    assess,
    detect_violations,
    parse_jena_rules,
    quaternary_powerset,
    solution_count,
)
from tklscore.core.pia.disruption import exhaustive_disruption
from tklscore.core.pia.efficient import efficient_disruption
from tklscore.core.pia.logic_graph import build_logic_graph
from tklscore.core.pia.generator import RULES, THRESHOLD, cover_count, generate, participant_count, term

REASONER = Reasoner(parse_jena_rules(RULES))
MAPPING = PrivacyMapping([PrivacyPattern(None, term("DiagnosedWith"), None, "High"),
                          PrivacyPattern(None, term("TakesMedication"), None, "Medium"),
                          PrivacyPattern(None, term("SeenBy"), None, "Low")])

# violations → (participants, exhaustive solutions, inference covers, optimal cost or None)
TABLE = {0: (0, 0, 0, 0.0), 1: (3, 63, 7, 0.5), 2: (6, 4095, 49, 1.0), 4: (10, 1_048_575, 637, None)}


def assessed(patients: int, violations: int, seed: int):
    g = generate(patients, violations, seed)
    return g, assess(g.data, REASONER, MAPPING, THRESHOLD, ontology=g.ontology)


def inclusion_exclusion(sets: list[set], q: int) -> int:
    """Non-empty subsets of q facts that hit every violation's fact set."""
    total = 0
    for r in range(len(sets) + 1):
        for chosen in itertools.combinations(sets, r):
            total += (-1) ** r * 2 ** (q - len(set().union(*chosen)))
    return total


@pytest.mark.parametrize("patients, seed", [(100, 1), (500, 7)])
@pytest.mark.parametrize("violations", [0, 1, 2, 4])
def test_generated_solution_and_cover_counts(violations, patients, seed):
    participants, solutions, covers, _ = TABLE[violations]
    g, a = assessed(patients, violations, seed)
    assert len(a.violations) == violations
    p = len(a.participants.facts)
    assert p == participant_count(violations) == participants
    assert set(a.participants.facts) == set(g.participants)
    # exhaustive search space: 4^p − 1 (§6)
    assert solution_count(p) == (4 ** p - 1 if violations else 0) == solutions
    # removal covers counted by the efficient module
    result = efficient_disruption(a, mapping=MAPPING)
    assert result.valid and result.evaluated == covers == cover_count(violations)
    assert not assess(result.authorised, REASONER, MAPPING, THRESHOLD, ontology=g.ontology).violations
    if not violations:
        assert result.solution is None
        return
    graph = build_logic_graph(a.closure, a.violations, ontology=a.minimized.ontology)
    assert len(graph.candidates) == p and graph.cover_count() == covers
    assert result.solution.extra["covers"] == covers
    # recounted independently: brute force over all 2^p subsets, and inclusion–exclusion
    assert sum(graph.is_cover([graph.candidates[k] for k in range(p) if i >> k & 1])
               for i in range(1 << p)) == covers
    sets = [set(a.participants.by_violation[v.triple]) for v in a.violations]
    assert inclusion_exclusion(sets, p) == covers


@pytest.mark.parametrize("violations", [1, 2])
def test_generated_exhaustive_enumeration_and_optimal_cost(violations):
    """63 and 4,095 solutions enumerated in full; optima 0.5 and 1.0 (§4.1 text)."""
    _participants, solutions, _covers, optimum = TABLE[violations]
    g, a = assessed(100, violations, seed=3)
    result = exhaustive_disruption(a, mapping=MAPPING, data=g.data)
    assert result.evaluated == solutions
    assert result.valid and result.cost == optimum
    assert sorted(x.cost for x in result.solution.alterations) == [0.5] * violations
    assert not assess(result.authorised, REASONER, MAPPING, THRESHOLD, ontology=g.ontology).violations
    # the enumeration itself has 4^p − 1 distinct solutions and nothing cheaper is valid
    isa = a.closure.isa_hierarchy()
    space = list(quaternary_powerset(a.participants.facts, isa))
    assert len(space) == solutions and len({s.code for s in space}) == solutions
    closure = a.closure
    for s in space:
        if s.cost < optimum:
            with closure.altered(*s.as_update()):
                assert detect_violations(closure, MAPPING, a.threshold)
    # the efficient method finds a solution of the same optimal cost
    efficient = efficient_disruption(a, mapping=MAPPING)
    assert efficient.valid and efficient.cost == optimum


def test_generated_four_violations_million_solutions_by_formula():
    """1,048,575 = 4^10 − 1 is not enumerated: the limit refuses it, naming the count."""
    _g, a = assessed(200, 4, seed=5)
    assert len(a.participants.facts) == 10
    with pytest.raises(InputError, match=r"1,048,575 solutions \(4\^10 − 1 for 10 candidate facts\)"):
        exhaustive_disruption(a, mapping=MAPPING, max_solutions=4095)


def test_generated_four_violation_shape_is_two_independent_plus_a_pair_sharing_two_facts():
    _g, a = assessed(100, 4, seed=1)
    sets = [frozenset(a.participants.by_violation[v.triple]) for v in a.violations]
    assert sorted(map(len, sets)) == [3, 3, 3, 3]
    overlaps = sorted(len(x & y) for x, y in itertools.combinations(sets, 2))
    assert overlaps == [0, 0, 0, 0, 0, 2]
    # the pair: one patient, one oncologist, two trigger medications → HasDoctor + IsDoctorType shared
    x, y = next((x, y) for x, y in itertools.combinations(sets, 2) if x & y)
    assert sorted(str(t.p).rsplit("#", 1)[1] for t in x & y) == ["HasDoctor", "IsDoctorType"]
    assert cover_count(4) == 7 * 7 * 13 == 637


def test_cover_count_formula_beyond_four():
    for violations in range(0, 9):
        g, a = assessed(60, violations, seed=violations)
        assert len(a.violations) == violations
        assert len(a.participants.facts) == participant_count(violations)
        if violations:
            graph = build_logic_graph(a.closure, a.violations, ontology=a.minimized.ontology)
            if len(graph.candidates) <= 18:
                assert graph.cover_count() == cover_count(violations)
