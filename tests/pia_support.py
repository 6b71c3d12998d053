"""What the PIA tests share: the bundled running example (Bob) and short names for terms."""

from pathlib import Path

from rdflib import URIRef

from tklscore.core.pia import (ISA, Reasoner, TermResolver, Triple, assess, load_patterns, load_rules,
                               load_triples)

RES = Path(__file__).resolve().parents[1] / "resources" / "pia"
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
