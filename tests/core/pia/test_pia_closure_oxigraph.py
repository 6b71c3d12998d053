"""The reasoner's closure checked against an independent engine: pyoxigraph SPARQL (pia.md §9).

Each Horn rule becomes a SPARQL ``INSERT { head } WHERE { body }`` update run on an
Oxigraph store until the store stops growing (the fixpoint), and a ``SELECT`` of the body
whose solutions are the rule's groundings (the justifications). The resulting set of
triples — and every (rule, grounded body) justification — must equal the reasoner's
closure: on random small rule sets and data (hypothesis), after Delete/Rederive updates,
on the Bob running example and on a generated database.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rdflib import BNode, Literal, URIRef

from paths import RESOURCES
from pia_support import facts_st, rules_st, triple_st
from tklscore.core.pia import Reasoner, Rule, Triple, Var, load_rules, load_triples, parse_jena_rules
from tklscore.core.pia.generator import RULES as GENERATED_RULES
from tklscore.core.pia.generator import generate

import pyoxigraph as ox  # noqa: E402  (in the [test] extra: missing, the tests fail)

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"

RES = RESOURCES / "pia"


# --------------------------------------------------------------------------------------
# rdflib ⇄ oxigraph terms and rules → SPARQL
# --------------------------------------------------------------------------------------


def to_ox(term):
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype or XSD_STRING)))
    raise TypeError(f"unsupported term {term!r}")


def from_ox(term):
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        datatype = term.datatype.value
        return Literal(term.value, datatype=None if datatype == XSD_STRING else URIRef(datatype))
    raise TypeError(f"unsupported term {term!r}")


def sparql_term(term) -> str:
    return f"?{term.name}" if isinstance(term, Var) else term.n3()


def sparql_pattern(atom) -> str:
    return " ".join(sparql_term(t) for t in atom) + " ."


def insert_query(rule: Rule) -> str:
    body = " ".join(sparql_pattern(a) for a in rule.body)
    return f"INSERT {{ {sparql_pattern(rule.head)} }} WHERE {{ {body} }}"


def select_query(rule: Rule) -> tuple[str, list[Var]]:
    variables = sorted(set().union(*(a.variables() for a in rule.body)), key=lambda v: v.name)
    projection = " ".join(f"?{v.name}" for v in variables) or "*"
    body = " ".join(sparql_pattern(a) for a in rule.body)
    return f"SELECT {projection} WHERE {{ {body} }}", variables


def ground(atom, binding) -> Triple:
    return Triple(*(binding[t] if isinstance(t, Var) else t for t in atom))


def oxigraph_closure(rules: list[Rule], facts) -> tuple[set[Triple], dict[Triple, set]]:
    """The fixpoint of ``rules`` over ``facts`` computed by Oxigraph, and its justifications."""
    store = ox.Store()
    store.extend([ox.Quad(to_ox(s), to_ox(p), to_ox(o), ox.DefaultGraph()) for s, p, o in facts])
    updates = [insert_query(r) for r in rules]
    rounds = 0
    while True:
        size = len(store)
        for update in updates:
            store.update(update)
        rounds += 1
        if len(store) == size:
            break
        assert rounds < 1000, "no fixpoint"
    triples = {Triple(from_ox(q.subject), from_ox(q.predicate), from_ox(q.object))
               for q in store.quads_for_pattern(None, None, None, None)}
    justifications: dict[Triple, set] = {}
    for rule in rules:
        query, variables = select_query(rule)
        for solution in store.query(query):
            binding = {v: from_ox(solution[v.name]) for v in variables}
            body = tuple(ground(a, binding) for a in rule.body)
            justifications.setdefault(ground(rule.head, binding), set()).add((rule.name, body))
    return triples, justifications


def assert_same_as_oxigraph(reasoner: Reasoner, closure, asserted) -> None:
    triples, justifications = oxigraph_closure(reasoner.rules, asserted)
    assert closure.triples() == triples
    assert closure.justification_map() == justifications


# --------------------------------------------------------------------------------------
# random rule sets and data
# --------------------------------------------------------------------------------------

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(rules=rules_st(), facts=facts_st)
def test_random_closure_equals_oxigraph_fixpoint(rules, facts):
    reasoner = Reasoner(rules)
    closure = reasoner.materialize(facts)
    assert closure.asserted() == facts
    assert_same_as_oxigraph(reasoner, closure, facts)


@SETTINGS
@given(rules=rules_st(), facts=facts_st, data=st.data())
def test_delete_rederive_equals_oxigraph_recomputation(rules, facts, data):
    reasoner = Reasoner(rules)
    closure = reasoner.materialize(facts)
    current = set(facts)
    for _ in range(data.draw(st.integers(1, 3))):
        removals = data.draw(st.sets(st.sampled_from(sorted(current, key=str)), max_size=4)) if current else set()
        additions = data.draw(st.sets(triple_st, max_size=2))
        closure.remove(removals)
        closure.add(additions)
        current = (current - removals) | additions
        assert closure.asserted() == current
        assert_same_as_oxigraph(reasoner, closure, current)


# --------------------------------------------------------------------------------------
# the running example and a generated database
# --------------------------------------------------------------------------------------


def test_bob_closure_equals_oxigraph_fixpoint():
    facts = load_triples(RES / "bob_data.ttl") + load_triples(RES / "bob_ontology.ttl")
    reasoner = Reasoner(load_rules(RES / "bob.rules"))
    closure = reasoner.materialize(facts)
    triples, _ = oxigraph_closure(reasoner.rules, facts)
    assert any(str(t.p).endswith("#likelyHas") for t in triples)        # the violation is derived
    assert_same_as_oxigraph(reasoner, closure, facts)
    # after the Bob narrative's alteration (remove the given fact) both engines agree again
    given_fact = next(t for t in facts if str(t.p).endswith("#given"))
    closure.remove([given_fact])
    rest = [t for t in facts if t != given_fact]
    assert_same_as_oxigraph(reasoner, closure, rest)
    assert not any(str(t.p).endswith("#likelyHas") for t in closure.triples())


@pytest.mark.parametrize("patients, violations", [(60, 4), (300, 2)])
def test_generated_closure_equals_oxigraph_fixpoint(patients, violations):
    g = generate(patients, violations, seed=3)
    reasoner = Reasoner(parse_jena_rules(GENERATED_RULES))
    facts = g.ontology + g.data
    closure = reasoner.materialize(facts)
    triples, justifications = oxigraph_closure(reasoner.rules, facts)
    diagnosed = {t for t in triples if str(t.p).endswith("#DiagnosedWith")}
    assert len(diagnosed) == violations
    assert closure.triples() == triples
    assert closure.justification_map() == justifications
