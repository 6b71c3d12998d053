"""PIA reasoner: rule parsing, the fixpoint with all justifications, Delete/Rederive (pia.md §2.3, §9)."""

from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import Literal, URIRef

from pia_support import CONSTS, EX, PREDS, RES, ex, facts_st
from pia_support import rules_st as support_rules_st
from tklscore.core.errors import InputError
from tklscore.core.pia import (
    ISA,
    Atom,
    Reasoner,
    Rule,
    Triple,
    Var,
    load_rules,
    load_triples,
    parse_jena_rules,
    parse_n3_rules,
)


def T(s: str, p: str, o) -> Triple:
    return Triple(ex(s), ISA if p == "ISA" else ex(p), ex(o) if type(o) is str else o)


PREFIX = f"@prefix ex: <{EX}>.\n"


# --------------------------------------------------------------------------------------
# oracles
# --------------------------------------------------------------------------------------


def test_example_3_3_7_rule_satisfaction():
    """DB = {(Joe, hasGender, Male), (Male, Eats, Fruit)} gives DB_r = DB ∪ {(Joe, Eats, Fruit)}."""
    rules = parse_jena_rules(PREFIX + "[r: (?x ex:hasGender ex:Male) (ex:Male ex:Eats ex:Fruit) "
                                      "-> (?x ex:Eats ex:Fruit)]")
    db = [T("Joe", "hasGender", "Male"), T("Male", "Eats", "Fruit")]
    closure = Reasoner(rules).materialize(db)
    assert closure.triples() == set(db) | {T("Joe", "Eats", "Fruit")}
    assert closure.inferred() == {T("Joe", "Eats", "Fruit")}
    [just] = closure.justifications(T("Joe", "Eats", "Fruit"))
    assert just.rule.name == "r" and just.body == tuple(db)


def test_example_3_3_5_fires_for_john_not_mary():
    rules = parse_jena_rules(PREFIX + "[ceo: (?x pia:ISA ex:Male) (?x pia:ISA ex:CEO) -> (?x ex:earns '$500K')]")
    db = [T("John", "ISA", "Male"), T("Mary", "ISA", "Female"), T("John", "ISA", "CEO")]
    closure = Reasoner(rules).materialize(db)
    assert closure.inferred() == {T("John", "earns", Literal("$500K"))}


def test_example_3_3_4_table_3_1():
    """The Ex. 3.3.4 rule over Table 3.1 concludes (Bob, likelyHas, StomachUlcer), nothing for Mary."""
    facts = load_triples(RES / "table_3_1.ttl")
    assert len(facts) == 9
    closure = Reasoner(load_rules(RES / "table_3_1.rules")).materialize(facts)
    assert closure.inferred() == {T("Bob", "likelyHas", "StomachUlcer")}
    [just] = closure.justifications(T("Bob", "likelyHas", "StomachUlcer"))
    assert set(just.body) == {T("Bob", "ISA", "Patient"), T("Bob", "takesMedicine", "Aspirin"),
                              T("Bob", "complainsOf", "StomachPain")}


def bob():
    data = load_triples(RES / "bob_data.ttl")
    onto = load_triples(RES / "bob_ontology.ttl")
    return data, onto


def test_running_example_closure_and_provenance():
    data, onto = bob()
    closure = Reasoner(load_rules(RES / "bob.rules")).materialize(data + onto)
    assert T("Bob", "likelyHas", "Hepatitis-C") in closure
    assert closure.is_inferred(T("Bob", "likelyHas", "Hepatitis-C"))
    # the asserted (Bob, treatedBy, Hepatologist) is also derivable: it keeps its justification
    assert closure.is_asserted(T("Bob", "treatedBy", "Hepatologist"))
    assert [(j.rule.name, j.body) for j in closure.justifications(T("Bob", "treatedBy", "Hepatologist"))] == [
        ("treatedByKind", (T("Bob", "treatedBy", "Leonard"), T("Leonard", "ISA", "Hepatologist")))]
    [j] = closure.justifications(T("Bob", "likelyHas", "Hepatitis-C"))
    assert j.rule.name == "likelyHasHepatitisC"
    assert j.body == (T("Bob", "treatedBy", "Hepatologist"), T("Bob", "given", "Interferon"))
    # removing the asserted (Bob, treatedBy, Hepatologist) does not help: it is re-derived
    change = closure.remove([T("Bob", "treatedBy", "Hepatologist")])
    assert T("Bob", "likelyHas", "Hepatitis-C") in closure
    assert change.removed == frozenset() and change.now_inferred == {T("Bob", "treatedBy", "Hepatologist")}
    # removing (Bob, given, Interferon) breaks the inference
    change = closure.remove([T("Bob", "given", "Interferon")])
    assert T("Bob", "likelyHas", "Hepatitis-C") not in closure
    assert change.removed == {T("Bob", "given", "Interferon"), T("Bob", "likelyHas", "Hepatitis-C")}


def test_jena_and_n3_rules_give_the_same_closure():
    data, onto = bob()
    a = Reasoner(load_rules(RES / "bob.rules")).materialize(data + onto)
    b = Reasoner(load_rules(RES / "bob.n3")).materialize(data + onto)
    assert a.triples() == b.triples()
    # 6 ISA-transitivity firings, 6 treatedByKind firings, 1 likelyHas firing (counted by hand)
    assert a.justification_count() == b.justification_count() == 13
    assert len(a.justifications(T("Leonard", "ISA", "Person"))) == 2


def test_every_justification_is_kept():
    """A patient on two antiretrovirals has two derivations of (p, takes, Antiretroviral) (§9)."""
    rules = parse_jena_rules(PREFIX + "[inh: (?p ex:takes ?m) (?m pia:ISA ?c) -> (?p ex:takes ?c)]"
                             "[hiv: (?p ex:takes ex:Antiretroviral) -> (?p ex:likelyHas ex:HIV)]")
    db = [T("Pat", "takes", "Zidovudine"), T("Pat", "takes", "Tenofovir"),
          T("Zidovudine", "ISA", "Antiretroviral"), T("Tenofovir", "ISA", "Antiretroviral")]
    closure = Reasoner(rules).materialize(db)
    justs = closure.justifications(T("Pat", "takes", "Antiretroviral"))
    assert {j.body[0].o for j in justs} == {ex("Zidovudine"), ex("Tenofovir")}
    # removing one derivation's fact leaves the conclusion standing; removing both does not
    closure.remove([T("Pat", "takes", "Zidovudine")])
    assert T("Pat", "likelyHas", "HIV") in closure
    assert len(closure.justifications(T("Pat", "takes", "Antiretroviral"))) == 1
    closure.remove([T("Pat", "takes", "Tenofovir")])
    assert T("Pat", "likelyHas", "HIV") not in closure
    assert closure.uses(T("Tenofovir", "ISA", "Antiretroviral")) == []


def test_uses_lists_participation():
    data, onto = bob()
    closure = Reasoner(load_rules(RES / "bob.rules")).materialize(data + onto)
    heads = {str(h) for h, _ in closure.uses(T("Bob", "given", "Interferon"))}
    assert heads == {"(Bob, likelyHas, Hepatitis-C)"}


def test_cyclic_rules_do_not_keep_unsupported_facts():
    rules = parse_jena_rules(PREFIX + "[a: (?x ex:p ?y) -> (?y ex:q ?x)] [b: (?y ex:q ?x) -> (?x ex:p ?y)]")
    closure = Reasoner(rules).materialize([T("A", "p", "B")])
    assert closure.triples() == {T("A", "p", "B"), T("B", "q", "A")}
    closure.remove([T("A", "p", "B")])
    assert closure.triples() == set()


def test_axioms_and_altered_context():
    rules = parse_jena_rules(PREFIX + "[ax: -> (ex:Hepatologist pia:ISA ex:Physician)]"
                             "[t: (?a pia:ISA ?b) (?b pia:ISA ?c) -> (?a pia:ISA ?c)]")
    closure = Reasoner(rules).materialize([T("Leonard", "ISA", "Hepatologist")])
    assert T("Leonard", "ISA", "Physician") in closure
    before = closure.justification_map()
    with closure.altered([T("Leonard", "ISA", "Hepatologist")], [T("Leonard", "ISA", "Physician")]) as change:
        assert closure.is_asserted(T("Leonard", "ISA", "Physician"))
        assert T("Leonard", "ISA", "Hepatologist") in change.removed
    assert closure.justification_map() == before
    assert closure.is_inferred(T("Leonard", "ISA", "Physician"))


# --------------------------------------------------------------------------------------
# an independent naive engine, and hypothesis properties
# --------------------------------------------------------------------------------------


def naive_closure(rules: list[Rule], facts: set[Triple]):
    """Naive evaluation: match every rule body against all facts until nothing new appears;
    then every grounding of every body in the fixpoint is a justification."""

    def groundings(body, binding, db):
        if not body:
            yield binding, ()
            return
        atom, rest = body[0], body[1:]
        for fact in db:
            b = dict(binding)
            ok = True
            for term, value in zip(atom, fact):
                if isinstance(term, Var):
                    if b.setdefault(term, value) != value:
                        ok = False
                        break
                elif term != value:
                    ok = False
                    break
            if ok:
                for final, used in groundings(rest, b, db):
                    yield final, (fact,) + used

    db = set(facts)
    while True:
        new = set()
        for rule in rules:
            for binding, _ in groundings(rule.body, {}, db):
                head = Triple(*(binding[t] if isinstance(t, Var) else t for t in rule.head))
                if head not in db:
                    new.add(head)
        if not new:
            break
        db |= new
    justs: dict[Triple, set] = {}
    for rule in rules:
        for binding, used in groundings(rule.body, {}, db):
            head = Triple(*(binding[t] if isinstance(t, Var) else t for t in rule.head))
            justs.setdefault(head, set()).add((rule.name, used))
    return db, justs


def rules_st():
    return support_rules_st(axioms=False)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(rules=rules_st(), facts=facts_st)
def test_closure_and_justifications_equal_naive_engine(rules, facts):
    closure = Reasoner(rules).materialize(facts)
    db, justs = naive_closure(rules, facts)
    assert closure.triples() == db
    assert closure.asserted() == facts
    assert closure.justification_map() == justs


@SETTINGS
@given(rules=rules_st(), facts=facts_st, data=st.data())
def test_delete_rederive_equals_recomputation(rules, facts, data):
    reasoner = Reasoner(rules)
    closure = reasoner.materialize(facts)
    current = set(facts)
    for _ in range(data.draw(st.integers(1, 3))):
        removals = data.draw(st.sets(st.sampled_from(sorted(current, key=str)), max_size=4)) if current else set()
        additions = data.draw(st.sets(st.builds(Triple, st.sampled_from(CONSTS), st.sampled_from(PREDS),
                                                st.sampled_from(CONSTS)), max_size=2))
        before = closure.triples()
        change = closure.remove(removals)
        middle = closure.triples()
        current -= removals
        change2 = closure.add(additions)
        current |= additions
        scratch = reasoner.materialize(current)
        assert closure.triples() == scratch.triples()
        assert closure.asserted() == current
        assert closure.inferred() == scratch.inferred()
        assert closure.justification_map() == scratch.justification_map()
        assert change.removed == before - middle and not change.added
        assert change2.added == closure.triples() - middle and not change2.removed


@SETTINGS
@given(rules=rules_st(), facts=facts_st, data=st.data())
def test_altered_restores_the_closure_exactly(rules, facts, data):
    closure = Reasoner(rules).materialize(facts)
    before = (closure.asserted(), closure.triples(), closure.justification_map())
    removals = data.draw(st.sets(st.sampled_from(sorted(facts, key=str)), max_size=3)) if facts else set()
    additions = data.draw(st.sets(st.builds(Triple, st.sampled_from(CONSTS), st.sampled_from(PREDS),
                                            st.sampled_from(CONSTS)), max_size=2))
    with closure.altered(removals, additions):
        assert not (closure.asserted() & (removals - additions))
    assert (closure.asserted(), closure.triples(), closure.justification_map()) == before


def test_change_reports_net_effect():
    rules = parse_jena_rules(PREFIX + "[t: (?a pia:ISA ?b) (?b pia:ISA ?c) -> (?a pia:ISA ?c)]")
    closure = Reasoner(rules).materialize([T("a", "ISA", "b"), T("b", "ISA", "c")])
    change = closure.add([T("c", "ISA", "d")])
    assert change.added == {T("c", "ISA", "d"), T("b", "ISA", "d"), T("a", "ISA", "d")}
    change = closure.remove([T("b", "ISA", "c")])
    assert change.removed == {T("b", "ISA", "c"), T("a", "ISA", "c"), T("b", "ISA", "d"), T("a", "ISA", "d")}
    change = closure.add([T("a", "ISA", "c")])
    assert change.added == {T("a", "ISA", "c"), T("a", "ISA", "d")}


# --------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------


def test_unparsable_rdf_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.ttl"
    bad.write_text(f"@prefix ex: <{EX}> .\nex:a ex:b ex:c .\nex:a ex:b .\n")
    with pytest.raises(InputError) as err:
        load_triples(bad)
    assert err.value.file == str(bad) and err.value.row == 3
    assert "bad.ttl" in str(err.value) and "row 3" in str(err.value)


def test_missing_and_unknown_rdf_files(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        load_triples(tmp_path / "nope.ttl")
    odd = tmp_path / "data.xyz"
    odd.write_text("x")
    with pytest.raises(InputError, match="unknown RDF file type"):
        load_triples(odd)


@pytest.mark.parametrize("text, message, row", [
    ("[r1: (?a ex:p ?b) (?b ex:p ?c)]", "not finished: no '->'", 2),
    ("[r1: (?a ex:p ?b) -> (?a ex:q ?c)]", r"head variable\(s\) \?c do not occur in the body", 2),
    ("[r1: (?a ex:p ?b)\n   notEqual(?a ?b) -> (?a ex:q ?b)]", "builtin or functor 'notEqual", 3),
    ("[r1: (?a ex:p ?b) noValue(?a ex:q) -> (?a ex:q ?b)]", "builtin or functor 'noValue", 2),
    ("[r1: (?a ex:q ?b) <- (?a ex:p ?b)]", "backward rule", 2),
    ("[r1: (?a zz:p ?b) -> (?a ex:q ?b)]", "unknown prefix 'zz:'", 2),
    ("[r1: (?a ex:p) -> (?a ex:q ?b)]", "needs 3 terms", 2),
    ("[r1: (?a p ?b) -> (?a ex:q ?b)]", "'p' has no prefix", 2),
    ("[r1: (?a ex:p ?b) -> (?a ex:q ?b) -> (?a ex:r ?b)]", "second arrow", 2),
    ("[r1: (?a ex:p ?b) -> [r2: (?a ex:q ?b) <- (?a ex:r ?b)]]", "nested rule", 2),
    ("@include <other.rules>.", "@include is not supported", 2),
    ("[r1: (?a ex:p ?b) -> (?a ex:q ?b)]\n[r1: (?a ex:p ?b) -> (?a ex:r ?b)]", None, None),
    ("[r1: (?a ex:p ?b) -> ]", "no conclusion", 2),
    ("[r1: (?a ex:p ?b) -> (?a ex:q ?b)", "missing its closing", 2),
    ("[r1: (?a ex:p ?b) -> (?a ex:q ?b)] $", "cannot read rule text", 2),
])
def test_bad_jena_rules(tmp_path, text, message, row):
    path = tmp_path / "bad.rules"
    path.write_text(PREFIX + text)
    if message is None:  # duplicate names are caught when the rule set is compiled
        with pytest.raises(InputError, match="two rules are named 'r1'"):
            Reasoner(load_rules(path))
        return
    with pytest.raises(InputError, match=message) as err:
        load_rules(path)
    assert err.value.file == str(path)
    assert err.value.row == row


@pytest.mark.parametrize("text, message", [
    ("{ ?a ex:p ?b } => { ?a ex:q ?c } .", r"head variable\(s\) \?c"),
    ("{ ?a ex:p ?b . ?a math:greaterThan 3 } => { ?a ex:q ?b } .", "builtin"),
    ("{ ?a ex:p ?b } => { ?a ex:q [ ex:r ?b ] } .", "blank node"),
    ("{ ?a ex:p ?b  => { ?a ex:q ?b } .", "not valid N3"),
    ("ex:a ex:p ex:b .", "plain fact"),
])
def test_bad_n3_rules(text, message):
    head = (f"@prefix ex: <{EX}> .\n@prefix math: <http://www.w3.org/2000/10/swap/math#> .\n")
    with pytest.raises(InputError, match=message) as err:
        parse_n3_rules(head + text, file="bad.n3")
    assert err.value.file == "bad.n3"


def test_rule_with_unbound_head_variable_is_refused_directly():
    with pytest.raises(InputError, match=r"\?z"):
        Rule("r", (Atom(Var("x"), ex("p"), Var("y")),), Atom(Var("x"), ex("q"), Var("z")))


def test_jena_syntax_variants():
    rules = parse_jena_rules(PREFIX + """
        # comment
        // another comment
        [ r1 : (?a ex:p ?b), (?b ex:p 'x'@en) -> (?a ex:q ?b) (?a ex:q2 "3"^^xsd:integer)]
        (?a ex:p ?b) -> (?a <http://example.org/other#r> 4.5) .
        [(?a ex:p ?a) -> (?a ex:self ex:D-2.1.1)]
    """)
    names = [r.name for r in rules]
    assert names == ["r1", "r1#2", "rule2", "rule3"]
    assert rules[0].body[1].o == Literal("x", lang="en")
    assert rules[1].head.o == Literal("3", datatype=URIRef("http://www.w3.org/2001/XMLSchema#integer"))
    assert rules[2].head == Atom(Var("a"), URIRef("http://example.org/other#r"), Literal(4.5))
    assert rules[3].head.o == ex("D-2.1.1")
    closure = Reasoner(rules[3:]).materialize([T("A", "p", "A"), T("A", "p", "B")])
    assert closure.inferred() == {T("A", "self", "D-2.1.1")}


@SETTINGS
@given(rules=rules_st(), facts=facts_st)
def test_the_interpreted_join_equals_the_chained_one(rules, facts):
    """Rules longer than the chained joins take (issue 19 §6) are joined by an interpreter:
    on random rules (variable predicates, repeated variables, constants) both give the same
    closure and justifications."""
    import tklscore.core.pia.reasoner as reasoner_module

    chained = Reasoner(rules).materialize(facts)
    limit = reasoner_module.MAX_CHAINED_ATOMS
    reasoner_module.MAX_CHAINED_ATOMS = 0
    try:
        interpreted = Reasoner(rules).materialize(facts)
    finally:
        reasoner_module.MAX_CHAINED_ATOMS = limit
    assert interpreted.triples() == chained.triples()
    assert interpreted.justification_map() == chained.justification_map()


def test_no_join_is_generated_code_and_a_rule_file_s_text_runs_nothing(tmp_path, monkeypatch):
    """The joins are closures, not generated Python (no ``exec``, no ``compile`` in the
    reasoner); a rule file whose names, IRIs and literals are Python code is only data."""
    import ast
    import inspect

    import tklscore.core.pia.reasoner as reasoner_module

    called = {node.func.id for node in ast.walk(ast.parse(inspect.getsource(reasoner_module)))
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert called and not called & {"exec", "eval", "compile"}
    payload = '__import__("os").system("touch PWNED")'
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "PWNED"
    rules = parse_jena_rules(PREFIX + f"""
        [x__import__os : (?a ex:p ?b), (?b ex:p '{payload}') -> (?a <http://e.org/import_os_system_PWNED> '{payload}')]
    """)
    reasoner = Reasoner(rules)
    closure = reasoner.materialize([T("A", "p", "B"), Triple(ex("B"), ex("p"), Literal(payload))])
    assert len(closure.inferred()) == 1
    assert not marker.exists()
