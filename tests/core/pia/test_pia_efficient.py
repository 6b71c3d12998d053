"""PIA efficient disruption (Ch. 5/6; pia.md §2.5, §2.6, §4.6–§4.8, §8)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pia_support import EX, RES, bob_assessment, ex
from tklscore.core.errors import InputError
from tklscore.core.pia import (
    ISA,
    IsaHierarchy,
    PrivacyMapping,
    PrivacyPattern,
    Reasoner,
    TermResolver,
    Triple,
    assess,
    detect_violations,
    load_patterns,
    load_rules,
    load_triples,
    parse_jena_rules,
    quaternary_powerset,
)
from tklscore.core.pia.efficient import efficient_disruption, generalisation_levels
from tklscore.core.pia.logic_graph import build_logic_graph, evaluate_logic_string, traverse_for_cover
from tklscore.core.pia.metadata import (
    AlterationVector,
    Candidate,
    CombinationVector,
    EntropyTable,
    ItemVector,
    combination,
    concept_degree,
    concept_entropy,
    impact,
    ontology_size,
    participation,
)
from tklscore.core.pia.solutions import PARENT, REMOVE


def fact(letter: str) -> Triple:
    """A letter of the Ch. 5 examples as a ground fact."""
    return Triple(ex(letter), ex("holds"), ex("yes"))


def letters(rules: list[tuple[str, str, str]], violations: str, extra: str = ""):
    """Ground rules ``name: body letters -> head letter``; ``violations`` letters are High."""
    text = [f"@prefix ex: <{EX}>."]
    for name, body, head in rules:
        atoms = " ".join(f"(ex:{b} ex:holds ex:yes)" for b in body)
        text.append(f"[{name}: {atoms} -> (ex:{head} ex:holds ex:yes)]")
    heads = {h for _, _, h in rules}
    ground = sorted({b for _, body, _ in rules for b in body} - heads) + list(extra)
    data = [fact(x) for x in ground]
    mapping = PrivacyMapping([PrivacyPattern(ex(v), None, None, "High") for v in violations])
    reasoner = Reasoner(parse_jena_rules("\n".join(text)))
    return data, reasoner, mapping


def name_of(t: Triple) -> str:
    return str(t.s).rsplit("#", 1)[1]


def still_violating(data, ontology, reasoner, mapping, threshold) -> list:
    return detect_violations(reasoner.materialize(list(data) + list(ontology)), mapping, threshold)


# --------------------------------------------------------------------------------------
# Ex. 5.1.1: three rules, six minimal covers (§8 item 4)
# --------------------------------------------------------------------------------------


def test_example_5_1_1_six_minimal_covers():
    data, reasoner, mapping = letters([("r1", "abc", "x"), ("r2", "bde", "y"), ("r3", "cef", "z")], "xyz")
    result = assess(data, reasoner, mapping, "Medium")
    assert [name_of(v.triple) for v in result.violations] == ["x", "y", "z"]
    graph = build_logic_graph(result.closure, result.violations)
    assert sorted(map(name_of, graph.candidates)) == list("abcdef")
    covers = [frozenset(name_of(graph.candidates[k]) for k in c) for c in graph.covers()]
    smallest = min(map(len, covers))
    assert smallest == 2      # unit costs: minimal cost 2
    assert {"".join(sorted(c)) for c in covers if len(c) == 2} == {"ae", "bc", "be", "bf", "cd", "ce"}
    # every cover really disrupts: the reasoner agrees on all 2^6 subsets
    for r in range(7):
        for subset in itertools.combinations("abcdef", r):
            removed = {fact(x) for x in subset}
            ok = not still_violating([t for t in data if t not in removed], [], reasoner, mapping, "Medium")
            assert graph.is_cover(removed) == ok == (frozenset(subset) in set(covers))


# --------------------------------------------------------------------------------------
# §5.2 hypergraph example, Ex. 5.2.4 and disruption containers
# --------------------------------------------------------------------------------------

HYPER = [("r1", "abc", "d"), ("r2", "def", "g"), ("r3_1", "aeh", "i"), ("r3_2", "uv", "i"),
         ("r4", "jkl", "m"), ("r5", "inmo", "p"), ("r6_1", "efq", "r"), ("r6_2", "sft", "r")]
PAPER_DS = ("((a ∨ b ∨ c ∨ e ∨ f) ∧ (((u ∨ v) ∧ (a ∨ e ∨ h)) ∨ n ∨ j ∨ k ∨ l ∨ o) ∧ "
            "((e ∨ f ∨ q) ∧ (f ∨ s ∨ t)))")


def hyper():
    data, reasoner, mapping = letters(HYPER, "gpr")
    result = assess(data, reasoner, mapping, "Medium")
    return data, reasoner, mapping, result, build_logic_graph(result.closure, result.violations)


def test_hypergraph_sentences_and_example_5_2_4():
    _data, _reasoner, _mapping, result, graph = hyper()
    assert [name_of(v.triple) for v in result.violations] == ["g", "p", "r"]
    nodes = {name_of(t): n for t, n in graph.violation_nodes().items()}
    assert graph.sentence(name_of, nodes["g"]) == "(a ∨ b ∨ c ∨ e ∨ f)"
    # r6.2 is s ∧ f ∧ t; the paper prints its sentence as (f ∨ s ∨ t) — the same disjunction
    assert graph.sentence(name_of, nodes["r"]) == "((e ∨ f ∨ q) ∧ (s ∨ f ∨ t))"
    # p: the container of i lists r3.1 before r3.2 (rule-name order); the paper prints r3.2 first
    assert graph.sentence(name_of, nodes["p"]) == "(((a ∨ e ∨ h) ∧ (u ∨ v)) ∨ n ∨ j ∨ k ∨ l ∨ o)"
    assert nodes["g"].kind == "OR" and nodes["r"].kind == "AND" and len(nodes["r"].children) == 2
    alg15 = graph.logic_string(name_of)
    assert alg15.startswith("(((") and alg15.endswith(" 1 )") and " | 0 )" in alg15
    for combo, expected in [("aef", False), ("fk", True)]:
        assert graph.is_cover({fact(x) for x in combo}) is expected
        assert evaluate_logic_string(alg15, combo) is expected          # Alg 16 on Alg 15's string
        assert evaluate_logic_string(graph.sentence(name_of), combo) is expected
        assert evaluate_logic_string(PAPER_DS, combo) is expected       # the printed sentence
    # the minimum cover size is 2: f with any of j, k, l, n, o (§4.6)
    covers = [frozenset(name_of(graph.candidates[k]) for k in c) for c in graph.covers()]
    assert {"".join(sorted(c)) for c in covers if len(c) == 2} == {"fj", "fk", "fl", "fn", "fo"}
    assert min(map(len, covers)) == 2


def test_hypergraph_covers_agree_with_sentence_and_reasoner():
    data, reasoner, mapping, _result, graph = hyper()
    names = [name_of(t) for t in graph.candidates]
    assert sorted(names) == sorted("abcefhjklnoqstuv")
    mask = graph.cover_mask()
    for i in range(0, 1 << len(names), 37):        # every 37th of the 65,536 subsets
        combo = {names[k] for k in range(len(names)) if i >> k & 1}
        paper = evaluate_logic_string(PAPER_DS, combo)
        assert bool(mask >> i & 1) == paper
        if i % (37 * 16) == 0:
            kept = [t for t in data if name_of(t) not in combo]
            assert paper == (not still_violating(kept, [], reasoner, mapping, "Medium"))


def test_participation_recomputed_from_the_rules():
    """Table 5.1 recomputed (§8 item 7): f takes part in g and r; e in g, p, r."""
    _data, _reasoner, _mapping, result, _graph = hyper()
    part = participation(result.closure, result.violations)
    v = {name_of(f): "".join(sorted(name_of(c) for c in cs)) for f, cs in part.violations.items()}
    s = {name_of(f): "".join(sorted(name_of(c) for c in cs)) for f, cs in part.safe.items()}
    assert v["f"] == "gr" and v["e"] == "gpr" and v["a"] == "gp" and v["b"] == "g" and v["q"] == "r"
    assert v["n"] == "p" and v["j"] == "p" and v["u"] == "p"
    assert s["a"] == "di" and s["b"] == "d" and s["h"] == "i" and s["j"] == "m" and "n" not in s


def test_safe_inference_dependent_on_a_violation_is_not_counted():
    """Ex. 5.3.1: y depends on violation p, so it is nobody's safe inference."""
    data, reasoner, mapping = letters([("r1", "ab", "p"), ("r2", "px", "y"), ("r3", "ax", "w")], "p")
    result = assess(data, reasoner, mapping, "Medium")
    part = participation(result.closure, result.violations)
    assert {name_of(f): {name_of(c) for c in cs} for f, cs in part.safe.items()} == {"a": {"w"}, "x": {"w"}}
    r = efficient_disruption(result, mapping=mapping)
    assert r.valid and [name_of(a.source) for a in r.solution.alterations] == ["b"]   # b has U = 0
    assert r.impact == 1.0


# --------------------------------------------------------------------------------------
# Table 5.2 entropy, Tables 5.3–5.5 and 6.3/6.4 information vectors
# --------------------------------------------------------------------------------------

# Fig. 5.10 as implied by Table 5.2 (§4.6): 18 concepts; deg c1 = 10, c2 = 6, c3 = 5, c6 = 2, c4 = 3
FIG_5_10 = {"c1": None, "c2": None, "c3": "c1", "c4": "c1", "c5": "c2", "c6": "c2",
            **{f"c{i}": "c3" for i in (7, 8, 9, 10, 11)}, **{f"c{i}": "c4" for i in (12, 13, 14)},
            "c15": "c5", "c16": "c5", "c17": "c6", "c18": "c6"}


def fig_5_10() -> IsaHierarchy:
    return IsaHierarchy([Triple(ex(c), ISA, ex(p)) for c, p in FIG_5_10.items() if p]
                        + [Triple(ex(c), ISA, ex("root")) for c, p in FIG_5_10.items() if not p],
                        root=ex("root"))


def test_table_5_2_entropy():
    isa = fig_5_10()
    assert ontology_size(isa) == 18
    table = EntropyTable(isa)
    rows = [("c7", 0, 0.0, 0.0), ("c3", 5, 0.2778, 0.5814), ("c1", 10, 0.5556, 0.8524), ("root", 18, 1.0, 1.0),
            ("c18", 0, 0.0, 0.0), ("c6", 2, 0.1111, 0.3095), ("c2", 6, 0.3333, 0.6500)]
    for name, degree, normalized, entropy in rows:
        c = ex(name)
        assert concept_degree(isa, c) == degree
        assert degree / 18 == pytest.approx(normalized, abs=1e-4)
        assert table.entropy(c) == pytest.approx(entropy, abs=1e-3)   # 0.5814 printed, 0.58132 exact
    assert concept_entropy(5, 18) == pytest.approx(0.58132, abs=1e-5)
    assert concept_entropy(3, 18) == pytest.approx(0.4138, abs=1e-4)  # C4 of Table 6.3
    assert [table.depth(ex(c)) for c in ("c7", "c3", "c1", "c18", "c6", "c2", "root")] == [4, 3, 2, 4, 3, 2, 1]
    assert isa.parent(ex("c7")) == ex("c3") and isa.grandparent(ex("c7")) == ex("c1")
    with pytest.raises(InputError):
        concept_entropy(1, 0)


def vec(isa, table, name, alteration, safe, pref=0, safety=0):
    c = ex(name)
    return ItemVector(alteration, frozenset(safe), table.depth(c), table.entropy(c), pref, safety)


def test_table_5_3_and_6_4_information_vectors_and_impact():
    isa = fig_5_10()
    t = EntropyTable(isa)
    c7 = vec(isa, t, "c7", 1.0, "abc", pref=0, safety=1)      # Table 6.3/6.4 preferences
    c1 = vec(isa, t, "c1", -0.25, "bde")
    c6 = vec(isa, t, "c6", 1.0, "ab", pref=2, safety=0)
    c2 = vec(isa, t, "c2", -0.5, "bcd")
    a1, a2 = AlterationVector.of(c7, c1), AlterationVector.of(c6, c2)
    assert (a1.alteration, a1.safe, a1.depth) == (0.75, (frozenset("abc"), frozenset("bde")), 3.0)
    assert a1.entropy == pytest.approx(0.8524, abs=1e-4)
    assert (a2.alteration, a2.safe, a2.depth) == (0.5, (frozenset("ab"), frozenset("bcd")), 2.5)
    assert a2.entropy == pytest.approx(0.3405, abs=1e-4)
    combo = CombinationVector.of([a1, a2])
    assert combo.alteration == 1.25 and combo.depth == 2.75
    assert combo.safe == (frozenset("abc"), frozenset("bcde"))
    assert combo.entropy == pytest.approx(1.1929, abs=1e-4)
    assert combo.disrupted_safe == 5                            # U = |{a,b,c} ∪ {b,c,d,e}|
    assert (combo.preference, combo.safety) == (2, 1)           # P = 0 + 2, V = 1 + 0
    assert combo.impact == pytest.approx(6.5)                   # Ex. 6.3.1: 1.25 + 1.25·5 − 2 + 1
    assert impact(1.25, 5) == pytest.approx(7.5)                # Def 5.3.4 without P and V


def test_tables_5_4_5_5_heuristic_switch_12_to_9():
    """Ex. 5.4.1: B removes C7 and C18 (Impact 12.0); C7 → C3 passes the 0.5 gain, C18 → C6 does not."""
    isa = fig_5_10()
    t = EntropyTable(isa)
    cands = []
    for name, safe in (("c7", "abc"), ("c18", "bde")):
        c = ex(name)
        p = isa.parent(c)
        cands.append(Candidate(Triple(ex("x"), ex("is"), c), t.entropy(c), t.depth(c), frozenset(safe),
                               parent=p, parent_entropy=t.entropy(p), parent_depth=t.depth(p)))
    b = combination(cands, (0, 1))
    assert b.vector.alteration == 2.0 and b.vector.depth == 2.5 and b.vector.entropy == 2.0
    assert b.vector.safe == (frozenset("abcde"), frozenset()) and b.impact == 12.0
    assert [cands[0].vector(REMOVE).depth, cands[0].vector(REMOVE).entropy] == [2.5, 1.0]
    levels = generalisation_levels(cands, (0, 1))
    assert levels == (PARENT, REMOVE)
    assert cands[0].gain == pytest.approx(0.5814, abs=1e-3) and cands[1].gain == pytest.approx(0.3095, abs=1e-4)
    b2 = combination(cands, (0, 1), levels)
    a1 = cands[0].vector(PARENT)
    assert (a1.alteration, a1.depth) == (0.5, 3.5) and a1.entropy == pytest.approx(0.5814, abs=1e-3)
    assert b2.vector.alteration == 1.5 and b2.vector.depth == 3.0
    assert b2.vector.entropy == pytest.approx(1.5814, abs=1e-3)
    assert b2.impact == 9.0


# --------------------------------------------------------------------------------------
# Ch. 6: preferences and safety on a real assessment
# --------------------------------------------------------------------------------------


def fig_6_1():
    """A rule satisfied by facts on C4, C6, C7 (Ex. 6.3.1) over the Fig. 5.10 tree."""
    onto = [Triple(ex(c), ISA, ex(p)) for c, p in FIG_5_10.items() if p]
    rules = parse_jena_rules(f"@prefix ex: <{EX}>.\n"
                             "[v1: (?x ex:r4 ex:c4) (?x ex:r6 ex:c6) (?x ex:r7 ex:c7) -> (?x ex:v ex:V1)]")
    data = [Triple(ex("X"), ex("r4"), ex("c4")), Triple(ex("X"), ex("r6"), ex("c6")),
            Triple(ex("X"), ex("r7"), ex("c7"))]
    mapping = PrivacyMapping([PrivacyPattern(None, ex("v"), None, "High")])
    return data, onto, Reasoner(rules), mapping


def test_safety_3_is_never_a_candidate_and_preferences_steer():
    data, onto, reasoner, mapping = fig_6_1()
    result = assess(data, reasoner, mapping, "Medium", ontology=onto)
    c4, c6, c7 = data
    graph = build_logic_graph(result.closure, result.violations, ontology=onto, excluded=[c4])
    assert graph.candidates == [c6, c7]          # Table 6.3: C4 has safety 3 (§8 item 14)
    plain = efficient_disruption(result, mapping=mapping)
    assert plain.valid and plain.solution.extra["covers"] == 7
    r = efficient_disruption(result, mapping=mapping, safety={c4: 3, c7: 1}, preferences={c6: 2})
    assert r.valid and r.solution.extra["covers"] == 3 and r.evaluated == 3
    assert [a.source for a in r.solution.alterations] == [c6]    # preference 2 lowers C6's Impact
    assert c4 in r.authorised and c7 in r.authorised and c6 not in r.authorised
    assert r.impact == pytest.approx(r.cost - 2)                 # no safe inferences; P = 2
    # every participant "must be released": no solution, nothing authorised
    none = efficient_disruption(result, mapping=mapping, safety={c4: 3, c6: 3, c7: 3})
    assert none.solution is None and not none.valid and none.authorised == []


# --------------------------------------------------------------------------------------
# the running example (Ch. 1) and Fig. 4.1
# --------------------------------------------------------------------------------------


def test_bob_example_valid_solution():
    data = load_triples(RES / "bob_data.ttl")
    onto = load_triples(RES / "bob_ontology.ttl")
    reasoner = Reasoner(load_rules(RES / "bob.rules"))
    mapping = load_patterns(RES / "bob_patterns.csv",
                            resolver=TermResolver(known=[t for f in data + onto for t in f]))
    result = assess(data, reasoner, mapping, "Medium", ontology=onto)
    r = efficient_disruption(result, mapping=mapping)
    assert r.method == "efficient" and r.valid and r.solution.state == "valid"
    assert r.evaluated == 7 and r.cost == 0.5 and r.impact == 0.5     # no safe inference uses it
    # Ch. 1: withholding (Bob, given, Interferon) works; here it is generalised one level
    assert [(str(a.source), str(a.replacement)) for a in r.solution.alterations] == [
        ("(Bob, given, Interferon)", "(Bob, given, Medication)")]
    assert not still_violating(r.authorised, onto, reasoner, mapping, "Medium")
    assert len(r.authorised) == len(data) - 1 + 1   # one fact replaced by its generalisation
    # Alg 4 semantics (re-check on DB0): withholding (Bob, treatedBy, Leonard) alone does not
    # help while the redundant (Bob, treatedBy, Hepatologist) is released — even when a
    # preference makes that cover the cheapest by Impact
    leonard = next(t for t in data if str(t) == "(Bob, treatedBy, Leonard)")
    r2 = efficient_disruption(result, mapping=mapping, preferences={leonard: 3})
    assert r2.valid and [a.source for a in r2.solution.alterations] != [leonard]
    assert not still_violating(r2.authorised, onto, reasoner, mapping, "Medium")
    assert r2.solution.extra["reasoner_checks"] >= 2
    # the unaltered data still violates (sanity)
    assert still_violating(data, onto, reasoner, mapping, "Medium")


# --------------------------------------------------------------------------------------
# generated-shaped databases (§4.8): covers 0/7/49/637, optimal cost 0.5 / 1.0
# --------------------------------------------------------------------------------------


def cover_count_formula(violation_sets: list[set], q: int) -> int:
    """Inclusion–exclusion: non-empty subsets of q facts hitting every violation's set."""
    total = 0
    for r in range(len(violation_sets) + 1):
        for chosen in itertools.combinations(violation_sets, r):
            union = set().union(*chosen) if chosen else set()
            total += (-1) ** r * 2 ** (q - len(union))
    return total


def exhaustive_optimum(result, mapping, isa, candidates) -> float:
    closure, best = result.closure, None
    for s in quaternary_powerset(candidates, isa):
        if best is not None and s.cost >= best:
            continue
        with closure.altered(*s.as_update()):
            if not detect_violations(closure, mapping, result.threshold):
                best = s.cost
    return best


def generated(patients: int, violations: int):
    from tklscore.core.pia import generator as gen
    g = gen.generate(patients, violations, seed=1)
    reasoner = Reasoner(parse_jena_rules(gen.RULES))
    mapping = PrivacyMapping([PrivacyPattern(None, gen.term("DiagnosedWith"), None, "High"),
                              PrivacyPattern(None, gen.term("TakesMedication"), None, "Medium"),
                              PrivacyPattern(None, gen.term("SeenBy"), None, "Low")])
    return g, reasoner, mapping, assess(g.data, reasoner, mapping, gen.THRESHOLD, ontology=g.ontology)


@pytest.mark.parametrize("violations, covers, optimum", [(0, 0, 0.0), (1, 7, 0.5), (2, 49, 1.0)])
def test_generated_cover_counts_and_optimal_cost(violations, covers, optimum):
    g, reasoner, mapping, result = generated(100, violations)
    r = efficient_disruption(result, mapping=mapping)
    assert r.valid and r.evaluated == covers and r.cost == optimum
    assert not still_violating(r.authorised, g.ontology, reasoner, mapping, "Medium")
    if violations == 0:
        assert r.solution is None and sorted(r.authorised) == sorted(g.data)
        return
    graph = build_logic_graph(result.closure, result.violations, ontology=result.minimized.ontology)
    assert set(graph.candidates) == set(result.participants.facts) == set(g.participants)
    sets = [set(result.participants.by_violation[v.triple]) for v in result.violations]
    assert covers == cover_count_formula(sets, len(graph.candidates)) == 7 ** violations
    assert sum(graph.is_cover([graph.candidates[k] for k in range(len(graph.candidates)) if i >> k & 1])
               for i in range(1 << len(graph.candidates))) == covers
    isa = result.closure.isa_hierarchy()
    assert exhaustive_optimum(result, mapping, isa, graph.candidates) == optimum   # 63 / 4,095 solutions


def test_generator_four_violations_have_table_5_6_shape():
    """The generator's 4-violation shape (two independent violations, two sharing 2 facts) has
    7·7·13 = 637 covers (Table 5.6)."""
    g, reasoner, mapping, result = generated(100, 4)
    assert len(result.participants.facts) == 10
    sets = [set(result.participants.by_violation[v.triple]) for v in result.violations]
    assert sorted(map(len, sets)) == [3, 3, 3, 3]
    shared = sorted(len(a & b) for a, b in itertools.combinations(sets, 2))
    assert shared == [0, 0, 0, 0, 0, 2]
    r = efficient_disruption(result, mapping=mapping)
    assert r.valid and r.evaluated == cover_count_formula(sets, 10) == 637
    assert not still_violating(r.authorised, g.ontology, reasoner, mapping, "Medium")


SPEC_RULES = f"""@prefix ex: <{EX}>.
[isa: (?a pia:ISA ?b) (?b pia:ISA ?c) -> (?a pia:ISA ?c)]
[medication: (?p ex:TakesMedication ?m) (?m pia:ISA ?c) -> (?p ex:TakesMedication ?c)]
[cancer: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Oncologist) (?p ex:TakesMedication ex:M-1.1.1)
         -> (?p ex:DiagnosedWith ex:D-2.1.1)]
[leukemia: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Oncologist) (?p ex:TakesMedication ex:M-1.1.2)
         -> (?p ex:DiagnosedWith ex:D-2.1.2)]
[hepatitis: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Hepatologist) (?p ex:TakesMedication ex:M-1.2.1.1)
         -> (?p ex:DiagnosedWith ex:D-1.1.1.1)]
"""


def spec_shaped(patients: int):
    """Table 5.6's 4-violation shape: two independent 3-fact violations and two sharing 2 facts."""
    isa = [("M-1.2.1.1", "M-1.2.1"), ("M-1.2.1", "M-1.2"), ("M-1.2", "M-1"), ("M-1.1.1", "M-1.1"),
           ("M-1.1.2", "M-1.1"), ("M-1.1", "M-1"), ("M-1", "Medication"), ("M-2", "Medication"),
           ("Oncologist", "Physician"), ("Hepatologist", "Physician"), ("Cardiologist", "Physician")]
    onto = [Triple(ex(a), ISA, ex(b)) for a, b in isa]
    doctors = {"MD-1": "Oncologist", "MD-2": "Hepatologist", "MD-3": "Oncologist", "MD-4": "Cardiologist"}
    data = []
    for d, kind in doctors.items():
        data += [Triple(ex(d), ex("IsDoctorType"), ex(kind)), Triple(ex(d), ISA, ex("Physician"))]
    for i in range(1, patients + 1):
        p = ex(f"Pat_{i}")
        data += [Triple(p, ISA, ex("Patient")), Triple(p, ex("HasDoctor"), ex(f"MD-{i % 4 + 1}")),
                 Triple(p, ex("TakesMedication"), ex("M-2"))]
    seeded = [("Pat_1.v", "MD-1", ["M-1.1.1"]), ("Pat_2.v", "MD-2", ["M-1.2.1.1"]),
              ("Pat_3.v", "MD-3", ["M-1.1.1", "M-1.1.2"])]     # Pat_3.v: cancer + leukemia
    for name, doctor, meds in seeded:
        data += [Triple(ex(name), ex("HasDoctor"), ex(doctor))]
        data += [Triple(ex(name), ex("TakesMedication"), ex(m)) for m in meds]
    mapping = PrivacyMapping([PrivacyPattern(None, ex("DiagnosedWith"), None, "High"),
                              PrivacyPattern(None, ex("TakesMedication"), None, "Medium")])
    reasoner = Reasoner(parse_jena_rules(SPEC_RULES))
    return data, onto, reasoner, mapping, assess(data, reasoner, mapping, "Medium", ontology=onto)


def test_spec_shaped_four_violations_637_covers():
    _data, onto, reasoner, mapping, result = spec_shaped(100)
    assert len(result.violations) == 4 and len(result.participants.facts) == 10
    graph = build_logic_graph(result.closure, result.violations, ontology=onto)
    sets = [set(result.participants.by_violation[v.triple]) for v in result.violations]
    assert sorted(map(len, sets)) == [3, 3, 3, 3]
    assert cover_count_formula(sets, 10) == 7 * 7 * 13 == 637
    assert graph.cover_count() == 637
    assert sum(graph.is_cover([graph.candidates[k] for k in range(10) if i >> k & 1])
               for i in range(1 << 10)) == 637
    r = efficient_disruption(result, mapping=mapping)
    assert r.valid and r.evaluated == 637
    assert not still_violating(r.authorised, onto, reasoner, mapping, "Medium")


def test_traversal_strategy_gives_a_valid_cover():
    _data, onto, reasoner, mapping, result = spec_shaped(50)
    graph = build_logic_graph(result.closure, result.violations, ontology=onto)
    members, total = traverse_for_cover(graph, lambda k: 1.0)
    assert graph.is_cover([graph.candidates[k] for k in members]) and total == len(members) == 3
    r = efficient_disruption(result, mapping=mapping, strategy="traversal")
    assert r.valid and r.evaluated == 1 and r.solution.extra["strategy"] == "traversal"
    assert not still_violating(r.authorised, onto, reasoner, mapping, "Medium")


# --------------------------------------------------------------------------------------
# property: always valid, never cheaper than the exhaustive optimum
# --------------------------------------------------------------------------------------

RULE_POOL = [
    ("[cancer: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Oncologist) (?p ex:TakesMedication ex:M-1.1.1)"
    " -> (?p ex:DiagnosedWith ex:D-2)]"),
    ("[broad: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ex:Oncologist) (?p ex:TakesMedication ex:M-1.1)"
    " -> (?p ex:DiagnosedWith ex:D-3)]"),
    "[seen: (?p ex:HasDoctor ?d) (?d ex:IsDoctorType ?t) -> (?p ex:SeenBy ?t)]",
    "[hep: (?p ex:SeenBy ex:Hepatologist) (?p ex:TakesMedication ex:M-1) -> (?p ex:DiagnosedWith ex:D-1)]",
    "[phys: (?p ex:SeenBy ex:Physician) (?p ex:TakesMedication ex:M-1.1.1) -> (?p ex:DiagnosedWith ex:D-4)]",
]
PROP_ONTO = [Triple(ex(a), ISA, ex(b)) for a, b in [
    ("M-1.1.1", "M-1.1"), ("M-1.1", "M-1"), ("M-1", "Medication"), ("M-2", "Medication"),
    ("Oncologist", "Physician"), ("Hepatologist", "Physician"), ("MD-1", "Physician"), ("MD-2", "Physician")]]
PROP_FACTS = ([Triple(ex(f"P{i}"), ex("HasDoctor"), ex(d)) for i in range(2) for d in ("MD-1", "MD-2")]
              + [Triple(ex(d), ex("IsDoctorType"), ex(t)) for d in ("MD-1", "MD-2")
                 for t in ("Oncologist", "Hepatologist")]
              + [Triple(ex(f"P{i}"), ex("TakesMedication"), ex(m)) for i in range(2)
                 for m in ("M-1.1.1", "M-1.1", "M-2")])


PROP_BASE = [Triple(ex("P0"), ex("HasDoctor"), ex("MD-1")), Triple(ex("MD-1"), ex("IsDoctorType"), ex("Oncologist")),
             Triple(ex("P0"), ex("TakesMedication"), ex("M-1.1.1"))]


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rules=st.lists(st.sampled_from(RULE_POOL), min_size=1, max_size=3, unique=True),
       base=st.lists(st.sampled_from(PROP_BASE), min_size=2, max_size=3, unique=True),
       extra=st.lists(st.sampled_from(PROP_FACTS), min_size=0, max_size=3, unique=True),
       prefs=st.lists(st.integers(0, 3), min_size=6, max_size=6),
       safety=st.lists(st.integers(0, 2), min_size=6, max_size=6))
def test_property_efficient_is_valid_and_never_beats_exhaustive(rules, base, extra, prefs, safety):
    facts = list(dict.fromkeys(base + extra))
    text = f"@prefix ex: <{EX}>.\n[isa: (?a pia:ISA ?b) (?b pia:ISA ?c) -> (?a pia:ISA ?c)]\n" \
           "[med: (?p ex:TakesMedication ?m) (?m pia:ISA ?c) -> (?p ex:TakesMedication ?c)]\n" + "\n".join(rules)
    reasoner = Reasoner(parse_jena_rules(text))
    mapping = PrivacyMapping([PrivacyPattern(None, ex("DiagnosedWith"), None, "High")])
    result = assess(facts, reasoner, mapping, "Medium", ontology=PROP_ONTO)
    candidates = result.participants.facts
    assume(result.violations and len(candidates) <= 4)
    r = efficient_disruption(result, mapping=mapping, preferences=dict(zip(facts, prefs)),
                             safety=dict(zip(facts, safety)))
    assert r.valid and r.solution.state == "valid"
    assert not still_violating(r.authorised, PROP_ONTO, reasoner, mapping, "Medium")   # fresh reasoner
    optimum = exhaustive_optimum(result, mapping, result.closure.isa_hierarchy(), candidates)
    assert r.cost >= optimum
    assert {a.source for a in r.solution.alterations} <= set(candidates)
    # the maintained closure was restored
    assert {v.triple for v in detect_violations(result.closure, mapping, "Medium")} == \
        {v.triple for v in result.violations}


# --------------------------------------------------------------------------------------
# bad input, progress, cancellation
# --------------------------------------------------------------------------------------


def test_bad_input_progress_and_cancel():
    data, onto, reasoner, mapping = fig_6_1()
    result = assess(data, reasoner, mapping, "Medium", ontology=onto)
    with pytest.raises(InputError, match="mapping"):
        efficient_disruption(result)
    for bad in ({data[0]: 5}, {data[0]: "2"}, {data[0]: True}, [1, 2]):
        with pytest.raises(InputError):
            efficient_disruption(result, mapping=mapping, preferences=bad)
    with pytest.raises(InputError, match="safety"):
        efficient_disruption(result, mapping=mapping, safety={data[0]: -1})
    with pytest.raises(InputError, match="strategy"):
        efficient_disruption(result, mapping=mapping, strategy="greedy")
    seen = []
    r = efficient_disruption(result, mapping=mapping, progress=seen.append)
    assert r.valid and seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    with pytest.raises(InputError, match="cancelled"):
        efficient_disruption(result, mapping=mapping, cancelled=lambda: True)
    calls = iter(range(100))
    with pytest.raises(InputError, match="cancelled"):
        efficient_disruption(result, mapping=mapping, cancelled=lambda: next(calls) >= 2)
    with pytest.raises(InputError, match="logic string"):
        evaluate_logic_string("(a ∨ b", {"a"})


# --------------------------------------------------------------------------------------
# timing (printed; the benchmark is benchmarks/bench_pia.py)
# --------------------------------------------------------------------------------------


def test_four_violations_at_5000_patients():
    """Table 5.6's largest case (timed by benchmarks/bench_pia.py, not here)."""
    _g, _reasoner, mapping, result = generated(5000, 4)
    r = efficient_disruption(result, mapping=mapping)
    assert r.valid and r.evaluated == 637


# --------------------------------------------------------------------------------------
# cover semantics on arbitrary (also recursive) ground rules
# --------------------------------------------------------------------------------------


def test_recursive_rules_cover_is_least_fixpoint():
    """x and y derive each other; only a (for x) or c (for y) can start the cycle."""
    rules = [("s1", "a", "x"), ("s2", "x", "y"), ("s3", "yb", "x"), ("s4", "c", "y"), ("v", "xd", "z")]
    data, reasoner, mapping = letters(rules, "z")
    result = assess(data, reasoner, mapping, "Medium")
    graph = build_logic_graph(result.closure, result.violations)
    assert sorted(map(name_of, graph.candidates)) == list("abcd")
    covers = {"".join(sorted(name_of(graph.candidates[k]) for k in c)) for c in graph.covers()}
    for r in range(5):
        for subset in itertools.combinations("abcd", r):
            kept = [t for t in data if name_of(t) not in subset]
            assert ("".join(subset) in covers) == (not still_violating(kept, [], reasoner, mapping, "Medium"))
    minimal = {c for c in covers if not any(set(o) < set(c) for o in covers)}
    assert minimal == {"d", "ab", "ac"}
    text = graph.logic_string(name_of)
    assert all(evaluate_logic_string(text, c) is (c in covers)
               for r in range(5) for c in map("".join, itertools.combinations("abcd", r)))


HEADS = "pqrs"


@st.composite
def ground_rules(draw):
    rules = []
    for i in range(draw(st.integers(1, 5))):
        head = draw(st.sampled_from(HEADS))
        body = draw(st.lists(st.sampled_from("abcde" + HEADS), min_size=1, max_size=3, unique=True))
        rules.append((f"g{i}", "".join(body), head))
    return rules


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=ground_rules(), violations=st.lists(st.sampled_from(HEADS), min_size=1, max_size=3, unique=True))
def test_property_cover_test_agrees_with_the_reasoner(rules, violations):
    data, reasoner, mapping = letters(rules, "".join(violations))
    result = assess(data, reasoner, mapping, "Medium")
    if not result.violations:
        return
    graph = build_logic_graph(result.closure, result.violations)
    assert set(graph.candidates) == set(result.participants.facts)
    mask = graph.cover_mask()
    names = graph.candidates
    for i in range(1 << len(names)):
        removed = {names[k] for k in range(len(names)) if i >> k & 1}
        ok = not still_violating([t for t in data if t not in removed], [], reasoner, mapping, "Medium")
        assert bool(mask >> i & 1) == ok == graph.is_cover(removed)
        assert evaluate_logic_string(graph.logic_string(name_of), {name_of(t) for t in removed}) == ok
    r = efficient_disruption(result, mapping=mapping)
    assert r.valid == (mask != 0)
    if r.valid:
        assert not still_violating(r.authorised, [], reasoner, mapping, "Medium")


def test_many_candidates_use_the_traversal():
    body = "abcdefghijklmnopqrst"                       # 20 candidates > 18: no 2^20 powerset
    data, reasoner, mapping = letters([("r1", body[:10], "x"), ("r2", body[10:], "y")], "xy")
    result = assess(data, reasoner, mapping, "Medium")
    r = efficient_disruption(result, mapping=mapping)
    assert r.valid and r.solution.extra["strategy"] == "traversal" and r.cost == 2.0
    assert r.solution.extra["covers"] is None and r.evaluated == 1
    assert not still_violating(r.authorised, [], reasoner, mapping, "Medium")


def test_alg_9_alone_keeps_the_removal_on_generated_data():
    """Without the Alg 23 loop, Alg 9's 0.5-entropy switch never fires here (θ of a doctor or a
    medication leaf has a small degree), so the cheapest removal cover is returned."""
    _g, _reasoner, mapping, result = generated(100, 1)
    r = efficient_disruption(result, mapping=mapping, refine=False)
    assert r.valid and r.cost == 1.0 and not r.solution.extra["generalised"]
    assert r.solution.extra["reasoner_checks"] == 2          # baseline + final check
    refined = efficient_disruption(result, mapping=mapping)
    assert refined.cost == 0.5 and refined.solution.extra["refined"]


def test_preferences_for_facts_not_in_the_data_are_refused_in_code_too():
    _, _, _, mapping, assessment = bob_assessment()
    inferred = assessment.violations[0].triple  # inferred, so not a fact of the data
    with pytest.raises(InputError, match="is not a fact of the patient data"):
        efficient_disruption(assessment, mapping=mapping, preferences={inferred: 2})
    with pytest.raises(InputError, match="safety value is given for"):
        efficient_disruption(assessment, mapping=mapping, safety={inferred: 3})
