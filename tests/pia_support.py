"""What the PIA tests share: the bundled running example (Bob) and short names for terms."""

from pathlib import Path

from hypothesis import strategies as st
from rdflib import URIRef

from paths import RESOURCES

from tklscore.core.pia import (ISA, Atom, Reasoner, Rule, TermResolver, Triple, Var, assess, load_patterns,
                               load_rules, load_triples)

RES = RESOURCES / "pia"
EX = "http://example.org/pia#"


def ex(name: str) -> URIRef:
    return URIRef(EX + name)


def T(s: str, p: str, o) -> Triple:
    """A triple of the running example's namespace; ``"ISA"`` is PIA's ISA predicate."""
    return Triple(ex(s), ISA if p == "ISA" else ex(p), ex(o) if isinstance(o, str) else o)


def bob_setup():
    """The running example: data, ontology, reasoner and privacy mapping."""
    data = load_triples(RES / "bob_data.ttl")
    onto = load_triples(RES / "bob_ontology.ttl")
    reasoner = Reasoner(load_rules(RES / "bob.rules"))
    mapping = load_patterns(RES / "bob_patterns.csv",
                            resolver=TermResolver(known=[t for f in data + onto for t in f]))
    return data, onto, reasoner, mapping


def bob_assessment():
    """The running example assessed at the threshold Medium: (data, onto, reasoner, mapping, assessment)."""
    data, onto, reasoner, mapping = bob_setup()
    return data, onto, reasoner, mapping, assess(data, reasoner, mapping, "Medium", ontology=onto)


# random rule sets and data for property tests: 4 constants, 3 predicates, 3 variables
CONSTS = [ex(f"c{i}") for i in range(4)]
PREDS = [ex(f"p{i}") for i in range(3)]
VARS = [Var("x"), Var("y"), Var("z")]
triple_st = st.builds(Triple, st.sampled_from(CONSTS), st.sampled_from(PREDS), st.sampled_from(CONSTS))
facts_st = st.sets(triple_st, max_size=12)


@st.composite
def rule_st(draw, name, axioms: bool = True):
    """A positive Horn rule of 0-3 body atoms (0: an axiom with a ground head), whose head
    uses only variables bound by the body."""
    n = draw(st.integers(0 if axioms else 1, 3))
    body = []
    for _ in range(n):
        s = draw(st.sampled_from(VARS + CONSTS[:2]))
        p = draw(st.sampled_from(PREDS + [Var("q")])) if n > 1 else draw(st.sampled_from(PREDS))
        o = draw(st.sampled_from(VARS + CONSTS[:2]))
        body.append(Atom(s, p, o))
    bound = sorted(set().union(*(a.variables() for a in body)), key=lambda v: v.name)
    pool = bound + CONSTS
    head = Atom(draw(st.sampled_from(pool)), draw(st.sampled_from(PREDS)), draw(st.sampled_from(pool)))
    return Rule(name, tuple(body), head)


@st.composite
def rules_st(draw, axioms: bool = True):
    return [draw(rule_st(f"r{i}", axioms)) for i in range(draw(st.integers(1, 4)))]
