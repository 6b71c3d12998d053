"""PIA MinimizeDB, violation detection, participants and solutions (pia.md §2.4, §4.4, §4.5)."""

from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pia_support import EX, T, bob_setup, ex
from tklscore.core.pia import (
    ISA,
    ROOT,
    Atom,
    IsaHierarchy,
    PrivacyMapping,
    PrivacyPattern,
    Reasoner,
    Rule,
    Triple,
    Var,
    ViolationMonitor,
    alter_data,
    alteration_cost,
    assess,
    detect_violations,
    minimize_db,
    parse_jena_rules,
    quaternary_digits,
    quaternary_powerset,
    solution_count,
)
from tklscore.core.pia.solutions import (
    CREDIT,
    GRANDPARENT,
    PARENT,
    REMOVE,
    code,
    describe,
    make_alteration,
)


# --------------------------------------------------------------------------------------
# the running example (Ch. 1)
# --------------------------------------------------------------------------------------


def test_running_example_minimize_detect_participants():
    data, onto, reasoner, mapping = bob_setup()
    result = assess(data, reasoner, mapping, "Medium", ontology=onto)
    # MinimizeDB removes exactly the facts the reasoner re-derives (Alg 2)
    assert set(result.minimized.removed) == {T("Bob", "treatedBy", "Hepatologist"),
                                             T("Leonard", "ISA", "Physician")}
    assert len(result.minimized.kept) == len(data) - 2
    # one violation: (Bob, likelyHas, Hepatitis-C) labelled High > Medium
    assert [(v.triple, v.label) for v in result.violations] == [(T("Bob", "likelyHas", "Hepatitis-C"), "High")]
    # its ground participants, found through the inferred (Bob, treatedBy, Hepatologist)
    expected = {T("Bob", "given", "Interferon"), T("Bob", "treatedBy", "Leonard"),
                T("Leonard", "ISA", "Hepatologist")}
    assert set(result.participants.facts) == expected and len(result.participants.facts) == 3
    assert set(result.participants.by_violation[T("Bob", "likelyHas", "Hepatitis-C")]) == expected
    followed = {(str(h), j.rule.name) for h, j in result.participants.rules}
    assert followed == {("(Bob, likelyHas, Hepatitis-C)", "likelyHasHepatitisC"),
                        ("(Bob, treatedBy, Hepatologist)", "treatedByKind")}
    # no ontology fact is a candidate
    assert not set(result.participants.facts) & set(onto)


@pytest.mark.parametrize("threshold, count", [("Public", 1), ("Low", 1), ("Medium", 1), ("High", 0)])
def test_running_example_thresholds(threshold, count):
    data, onto, reasoner, mapping = bob_setup()
    assert len(assess(data, reasoner, mapping, threshold, ontology=onto).violations) == count


def test_running_example_disruption_narrative():
    """Removing (Bob, treatedBy, Hepatologist) fails (re-derived); removing (Bob, given, Interferon) works."""
    data, onto, reasoner, mapping = bob_setup()
    for removed, violations in [(T("Bob", "treatedBy", "Hepatologist"), 1), (T("Bob", "given", "Interferon"), 0)]:
        altered = [t for t in data if t != removed]
        assert len(assess(altered, reasoner, mapping, "Medium", ontology=onto).violations) == violations
    # the same, incrementally, on the maintained closure of the full DB
    closure = reasoner.materialize(data + onto)
    monitor = ViolationMonitor(closure, mapping, "Medium")
    assert len(monitor.violations) == 1
    with closure.altered([T("Bob", "treatedBy", "Hepatologist")]) as change:
        monitor.update(change)
        assert len(monitor.violations) == 1
    monitor.refresh()
    with closure.altered([T("Bob", "given", "Interferon")]) as change:
        monitor.update(change)
        assert monitor.violations == []
    monitor.refresh()
    assert len(monitor.violations) == 1


def test_participants_follow_every_justification():
    """A violation with two derivations has the participants of both (the original kept one)."""
    rules = parse_jena_rules(f"@prefix ex: <{EX}>.\n"
                             "[inh: (?p ex:takes ?m) (?m pia:ISA ?c) -> (?p ex:takes ?c)]"
                             "[hiv: (?p ex:takes ex:Antiretroviral) (?p ex:seenAt ex:HivClinic) "
                             "-> (?p ex:likelyHas ex:HIV)]")
    onto = [T("Zidovudine", "ISA", "Antiretroviral"), T("Tenofovir", "ISA", "Antiretroviral")]
    data = [T("Pat", "takes", "Zidovudine"), T("Pat", "takes", "Tenofovir"), T("Pat", "seenAt", "HivClinic")]
    mapping = PrivacyMapping([PrivacyPattern(None, ex("likelyHas"), None, "High")])
    result = assess(data, Reasoner(rules), mapping, "Medium", ontology=onto)
    assert [v.triple for v in result.violations] == [T("Pat", "likelyHas", "HIV")]
    assert set(result.participants.facts) == set(data)
    # removing the participants of only one derivation leaves the violation standing
    closure = result.closure
    with closure.altered([T("Pat", "takes", "Zidovudine")]):
        assert detect_violations(closure, mapping, "Medium")
    with closure.altered([T("Pat", "takes", "Zidovudine"), T("Pat", "takes", "Tenofovir")]):
        assert not detect_violations(closure, mapping, "Medium")


# --------------------------------------------------------------------------------------
# Fig. 4.1: the exhaustive prototype's console log (two violations, six participants)
# --------------------------------------------------------------------------------------

FIG_4_1_RULES = f"""@prefix ex: <{EX}>.
[isa: (?a pia:ISA ?b) (?b pia:ISA ?c) -> (?a pia:ISA ?c)]
[medication: (?p ex:TakesMedication ?m) (?m pia:ISA ?c) -> (?p ex:TakesMedication ?c)]
[cancer: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Oncologist) (?p ex:TakesMedication ex:M-1.1.1)
         -> (?p ex:DiagnosedWith ex:D-2.1.1)]
[hepatitis: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Hepatologist) (?p ex:TakesMedication ex:M-1.2.1.1)
         -> (?p ex:DiagnosedWith ex:D-1.1.1.1)]
"""

FIG_4_1_PARTICIPANTS = [  # in the printed order
    T("MD-21", "IsDoctorType", "Oncologist"),
    T("Pat_5.v", "TakesMedication", "M-1.2.1.1"),
    T("Pat_4.v", "HasDoctor", "MD-21"),
    T("MD-32", "IsDoctorType", "Hepatologist"),
    T("Pat_5.v", "HasDoctor", "MD-32"),
    T("Pat_4.v", "TakesMedication", "M-1.1.1"),
]


def fig_4_1():
    isa = [("M-1.2.1.1", "M-1.2.1"), ("M-1.2.1", "M-1.2"), ("M-1.2", "M-1"), ("M-1.1.1", "M-1.1"),
           ("M-1.1", "M-1"), ("M-1", "Medication"), ("Oncologist", "Physician"), ("Hepatologist", "Physician"),
           ("MD-21", "Physician"), ("MD-32", "Physician"), ("MD-7", "Physician")]
    onto = [T(a, "ISA", b) for a, b in isa]
    data = FIG_4_1_PARTICIPANTS + [
        T("MD-7", "IsDoctorType", "Oncologist"),
        T("Pat_1", "HasDoctor", "MD-32"), T("Pat_1", "TakesMedication", "M-1.1.1"),   # wrong drug
        T("Pat_2", "HasDoctor", "MD-7"), T("Pat_2", "TakesMedication", "M-1.2.1.1"),  # wrong specialty
        T("Pat_3", "HasDoctor", "MD-21"),
    ]
    mapping = PrivacyMapping([PrivacyPattern(None, ex("DiagnosedWith"), None, "High"),
                              PrivacyPattern(None, ex("TakesMedication"), None, "Medium")])
    return data, onto, Reasoner(parse_jena_rules(FIG_4_1_RULES)), mapping


def test_fig_4_1_violations_participants_and_optimal_solution():
    data, onto, reasoner, mapping = fig_4_1()
    result = assess(data, reasoner, mapping, "Medium", ontology=onto)
    assert [str(v.triple) for v in result.violations] == ["(Pat_4.v, DiagnosedWith, D-2.1.1)",
                                                          "(Pat_5.v, DiagnosedWith, D-1.1.1.1)"]
    assert set(result.participants.facts) == set(FIG_4_1_PARTICIPANTS)   # "Grounded Facts: 6"
    # "Replacement Solution Sets: 4095" and, with the printed participant order,
    # "Optimal solution cost is solution 4 with cost 100.0" (cost × 100): a′ b′ = 1.0
    isa = IsaHierarchy(onto)
    solutions = list(quaternary_powerset(FIG_4_1_PARTICIPANTS, isa))
    assert len(solutions) == solution_count(6) == 4095
    closure, best = result.closure, None
    for s in solutions:  # Alg 4 on the maintained closure: apply, re-check, revert
        with closure.altered(*s.as_update()):
            s.state = "invalid" if detect_violations(closure, mapping, "Medium", isa) else "valid"
        if s.state == "valid" and (best is None or s.cost < best.cost):
            best = s
    assert best.index == 4 and best.code == "110000" and best.cost == 1.0
    assert [(str(a.source), str(a.replacement), a.cost) for a in best.alterations] == [
        ("(MD-21, IsDoctorType, Oncologist)", "(MD-21, IsDoctorType, Physician)", 0.5),
        ("(Pat_5.v, TakesMedication, M-1.2.1.1)", "(Pat_5.v, TakesMedication, M-1.2.1)", 0.5)]
    valid = [s.cost for s in solutions if s.state == "valid"]
    assert min(valid) == 1.0 and max(valid) == 6.0   # §4.1: 2-violation range 0.5–6.0, optimum 1.0
    assert all(s.state == "invalid" for s in solutions if s.cost < 1.0)


# --------------------------------------------------------------------------------------
# Tables 3.3, 3.4, 3.5 and Ex. 3.4.1
# --------------------------------------------------------------------------------------

TABLE_3_3 = [("10", "a′"), ("20", "a″"), ("30", "∅"), ("01", "b′"), ("11", "a′ b′"), ("21", "a″ b′"),
             ("31", "∅ b′"), ("02", "b″"), ("12", "a′ b″"), ("22", "a″ b″"), ("32", "∅ b″"), ("03", "∅"),
             ("13", "a′ ∅"), ("23", "a″ ∅"), ("33", "∅ ∅")]


def test_table_3_3_quaternary_order():
    digits = list(quaternary_digits(2))
    assert [(code(d), describe(d, "ab")) for d in digits] == TABLE_3_3
    assert len(digits) == solution_count(2) == 15


def test_solution_counts():
    # §6: 4^p − 1 for p participants: 0 / 63 / 4095 / 1,048,575
    assert [solution_count(p) for p in (0, 3, 6, 10)] == [0, 63, 4095, 1048575]
    assert sum(1 for _ in quaternary_digits(3)) == 63


TABLE_3_5 = {("∅", "∅"): 2.0, ("∅", "b′"): 1.5, ("∅", "b″"): 1.75, ("a′", "∅"): 1.5, ("a′", "b′"): 1.0,
             ("a′", "b″"): 1.25, ("a″", "∅"): 1.75, ("a″", "b′"): 1.25, ("a″", "b″"): 1.5}


def test_tables_3_4_and_3_5_costs():
    assert CREDIT == {PARENT: 0.5, GRANDPARENT: 0.25, REMOVE: 0.0}               # Table 3.4
    assert [alteration_cost(d) for d in (0, 1, 2, 3)] == [0.0, 0.5, 0.75, 1.0]   # Def 3.4.2
    isa = IsaHierarchy([T("a", "ISA", "a1"), T("a1", "ISA", "a2"), T("b", "ISA", "b1"), T("b1", "ISA", "b2")])
    candidates = [T("x", "p", "a"), T("y", "p", "b")]
    table = {}
    for s in quaternary_powerset(candidates, isa):
        digits = [int(c) for c in s.code]
        if all(digits):  # "both concepts must be generalized"
            a, b = describe(digits, "ab").split()
            table[(a, b)] = s.cost
    assert table == TABLE_3_5
    # §4.1 ranges: one violation over 3 facts → costs 0.5 … 3.0
    costs = [s.cost for s in quaternary_powerset(candidates + [T("z", "p", "b")], isa)]
    assert (min(costs), max(costs)) == (0.5, 3.0)


def test_example_3_4_1_solution_and_alter_data():
    isa = IsaHierarchy([Triple(ex("CHF"), ISA, ex("CV")), Triple(ex("Med-3.1-4"), ISA, ex("Med-3.1")),
                        Triple(ex("Med-3.1"), ISA, ex("Med-3"))])
    chf, med = T("Dave", "hasDisease", "CHF"), T("Dave", "takesMed", "Med-3.1-4")
    a1, a2 = make_alteration(chf, PARENT, isa), make_alteration(med, GRANDPARENT, isa)
    assert (a1.new_object, a1.cost) == (ex("CV"), 0.5)
    assert (a2.new_object, a2.cost) == (ex("Med-3"), 0.75)
    removal = make_alteration(med, REMOVE, isa)
    assert removal.new_object is None and removal.replacement is None and removal.cost == 1.0
    # θ of a concept without a parent is the root: generalizing to it is a removal
    assert isa.parent(ex("CV")) == ROOT and make_alteration(T("D", "p", "CV"), PARENT, isa).new_object is None
    from tklscore.core.pia.solutions import Solution
    s = Solution((a1, a2))
    assert s.cost == 1.25
    assert alter_data([chf, med, T("Dave", "ISA", "Patient")], s) == [
        T("Dave", "ISA", "Patient"), T("Dave", "hasDisease", "CV"), T("Dave", "takesMed", "Med-3")]


def test_immediate_parent_ignores_transitive_edges():
    isa = IsaHierarchy([T("c7", "ISA", "c3"), T("c7", "ISA", "c1"), T("c3", "ISA", "c1")])
    assert isa.immediate_parents(ex("c7")) == [ex("c3")]
    assert isa.parent(ex("c7")) == ex("c3") and isa.grandparent(ex("c7")) == ex("c1")
    assert isa.depth(ex("c7")) == 4 and isa.depth(ROOT) == 1   # root = 1 (§8 item 8)
    assert isa.descendants(ex("c1")) == {ex("c3"), ex("c7")}


# --------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------

CONSTS = [ex(f"c{i}") for i in range(4)]
PREDS = [ex("p0"), ex("p1"), ISA]
VARS = [Var("x"), Var("y"), Var("z")]
triple_st = st.builds(Triple, st.sampled_from(CONSTS), st.sampled_from(PREDS), st.sampled_from(CONSTS))


@st.composite
def rules_st(draw):
    rules = []
    for i in range(draw(st.integers(1, 3))):
        body = [Atom(draw(st.sampled_from(VARS + CONSTS[:1])), draw(st.sampled_from(PREDS)),
                     draw(st.sampled_from(VARS + CONSTS[:1]))) for _ in range(draw(st.integers(1, 2)))]
        pool = sorted(set().union(*(a.variables() for a in body))) + CONSTS
        head = Atom(draw(st.sampled_from(pool)), draw(st.sampled_from(PREDS)), draw(st.sampled_from(pool)))
        rules.append(Rule(f"r{i}", tuple(body), head))
    return rules


mapping_st = st.lists(st.builds(lambda s, p, o, l: PrivacyPattern(s, p, o, l),
                                st.one_of(st.none(), st.sampled_from(CONSTS)),
                                st.one_of(st.none(), st.sampled_from(PREDS)),
                                st.one_of(st.none(), st.sampled_from(CONSTS)),
                                st.sampled_from(["Public", "Low", "Medium", "High"])), max_size=4).map(PrivacyMapping)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(rules=rules_st(), facts=st.lists(triple_st, max_size=10, unique=True))
def test_minimize_db_removes_all_and_only_redundant_facts(rules, facts):
    reasoner = Reasoner(rules)
    result = minimize_db(reasoner, facts)
    full = reasoner.materialize(facts)
    assert result.closure.triples() == full.triples()             # nothing lost (Claim 3.4.1)
    assert reasoner.materialize(result.kept).triples() == full.triples()
    for f in result.kept:                                          # nothing redundant left
        assert f not in reasoner.materialize([g for g in result.kept if g != f])
    assert set(result.kept) | set(result.removed) == set(facts)


@SETTINGS
@given(rules=rules_st(), facts=st.lists(triple_st, max_size=10, unique=True), mapping=mapping_st,
       threshold=st.sampled_from(["Public", "Low", "Medium"]))
def test_participants_are_sound_and_complete(rules, facts, mapping, threshold):
    reasoner = Reasoner(rules)
    result = assess(facts, reasoner, mapping, threshold)
    closure = result.closure
    for v in result.violations:
        assert closure.is_inferred(v.triple)
        assert mapping.order.exceeds(v.label, result.threshold)
        mine = result.participants.by_violation[v.triple]
        assert all(closure.is_asserted(f) for f in mine)
        # complete: on the minimized DB, removing every participant removes the violation (Claim 3.4.2)
        rest = [f for f in result.minimized.kept if f not in set(mine)]
        assert v.triple not in reasoner.materialize(rest)
        # sound: each participant is in the body of a justification followed from v
        bodies = {b for _, j in result.participants.rules for b in j.body}
        assert set(mine) <= bodies
    # inferred triples that are not reported are within the threshold
    reported = {v.triple for v in result.violations}
    isa = closure.isa_hierarchy()
    for t in closure.inferred() - reported:
        assert mapping.order.leq(mapping.label(t, isa), result.threshold)


@SETTINGS
@given(rules=rules_st(), facts=st.lists(triple_st, max_size=10, unique=True), mapping=mapping_st,
       data=st.data())
def test_violation_monitor_matches_detection_from_scratch(rules, facts, mapping, data):
    reasoner = Reasoner(rules)
    closure = reasoner.materialize(facts)
    monitor = ViolationMonitor(closure, mapping, "Low")
    current = set(facts)
    for _ in range(3):
        removals = data.draw(st.sets(st.sampled_from(sorted(current, key=str)), max_size=2)) if current else set()
        additions = data.draw(st.sets(triple_st, max_size=2))
        monitor.update(closure.replace([(r, None) for r in removals]))
        monitor.update(closure.add(additions))
        current = (current - removals) | additions
        scratch = reasoner.materialize(current)
        assert monitor.violations == detect_violations(scratch, mapping, "Low")
