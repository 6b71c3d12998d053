"""PIA privacy labels, patterns and the privacy mapping λ (pia.md §2.2, Tables 1.1, 1.2, 3.2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdflib import URIRef

from pia_support import EX, RES, T, ex
from tklscore.core.errors import InputError
from tklscore.core.pia import (
    DEFAULT_ORDER,
    ISA,
    CategoryLattice,
    IsaHierarchy,
    MacLabel,
    PrivacyMapping,
    PrivacyPattern,
    TermResolver,
    TotalOrder,
    Triple,
    load_patterns,
    load_patterns_csv,
    load_triples,
)


def bob_isa() -> tuple[IsaHierarchy, list]:
    facts = load_triples(RES / "bob_data.ttl") + load_triples(RES / "bob_ontology.ttl")
    return IsaHierarchy(facts), facts


def bob_mapping(kind: str) -> PrivacyMapping:
    _, facts = bob_isa()
    if kind == "csv":
        return load_patterns(RES / "bob_patterns.csv", resolver=TermResolver(known=[t for f in facts for t in f]))
    return load_patterns(RES / "bob_patterns.ttl")


TABLE_1_2 = [
    (T("Bob", "ISA", "Patient"), "Public"),
    (T("Leonard", "ISA", "Physician"), "Public"),
    (T("Leonard", "ISA", "Hepatologist"), "Low"),
    (T("Bob", "given", "Interferon"), "Medium"),
    (T("Bob", "diagnosedWith", "Hepatitis-C"), "High"),
]


@pytest.mark.parametrize("kind", ["csv", "ttl"])
def test_table_1_1_patterns_give_table_1_2_labels(kind):
    mapping = bob_mapping(kind)
    isa, _ = bob_isa()
    assert len(mapping.patterns) == 6
    for triple, label in TABLE_1_2:
        assert mapping.label(triple, isa) == label, triple
    # the inferred conclusion matches (*, diagnosedWith, Hepatitis-C) through (likelyHas, ISA, diagnosedWith)
    assert mapping.label(T("Bob", "likelyHas", "Hepatitis-C"), isa) == "High"
    # (Bob, treatedBy, Leonard) matches no pattern: the bottom label
    assert mapping.label(T("Bob", "treatedBy", "Leonard"), isa) == "Public"
    # (Leonard, ISA, Hepatologist) matches both (*, *, Physician) and (*, ISA, Hepatologist): LUB
    matched = {str(p) for p in mapping.matching(T("Leonard", "ISA", "Hepatologist"), isa)}
    assert matched == {"(*, *, Physician)", "(*, ISA, Hepatologist)"}


def test_csv_and_turtle_patterns_agree():
    a, b = bob_mapping("csv"), bob_mapping("ttl")
    assert {(p.terms, p.label) for p in a.patterns} == {(p.terms, p.label) for p in b.patterns}


def test_table_1_1_mapping_is_monotone():
    isa, _ = bob_isa()
    mapping = bob_mapping("csv")
    assert mapping.monotonicity_violations(isa) == []
    mapping.check_monotone(isa)
    # containment through the ontology: (*, ISA, Hepatologist) ⊆pc (*, *, Physician)
    narrow = next(p for p in mapping.patterns if str(p) == "(*, ISA, Hepatologist)")
    broad = next(p for p in mapping.patterns if str(p) == "(*, *, Physician)")
    assert narrow.contained_in(broad, isa) and not broad.contained_in(narrow, isa)
    assert not narrow.contained_in(broad)  # without the ISA hierarchy only syntax counts


TABLE_3_2 = [  # (shape, example)
    ("(*, *, *)", (None, None, None)),
    ("(c_i, *, *)", ("Ebola", None, None)),
    ("(*, r_j, *)", (None, "infectedWith", None)),
    ("(*, *, c_k)", (None, None, "Blood")),
    ("(c_i, r_j, *)", ("Blood", "infectedWith", None)),
    ("(*, r_j, c_k)", (None, "infectedWith", "Ebola")),
    ("(c_i, *, c_k)", ("Blood", None, "Ebola")),
    ("(c_i, r_j, c_k)", ("Blood", "infectedWith", "Ebola")),
]


def test_table_3_2_pattern_shapes():
    patterns = [PrivacyPattern(*(None if t is None else ex(t) for t in terms), label="High")
                for _, terms in TABLE_3_2]
    assert [p.shape for p in patterns] == [shape for shape, _ in TABLE_3_2]
    assert len({p.shape for p in patterns}) == 8
    for p, (_, terms) in zip(patterns, TABLE_3_2):
        # the triple that fills each wildcard with a fresh term matches; changing a constant does not
        filled = Triple(*(ex(t) if t else ex(f"any{i}") for i, t in enumerate(terms)))
        assert p.matches(filled)
        for i, t in enumerate(terms):
            if t:
                other = list(filled)
                other[i] = ex("Other")
                assert not p.matches(Triple(*other))
    # every pattern contains the fully ground one; (*, *, *) contains them all
    ground, star = patterns[-1], patterns[0]
    assert [ground.contained_in(p) for p in patterns] == [True, False, True, False, True, True, True, True]
    assert all(p.contained_in(star) for p in patterns)
    assert str(patterns[5]) == "(*, infectedWith, Ebola)"


def test_example_3_3_2_pattern_containment():
    isa = IsaHierarchy([T("Boy", "ISA", "Male"), T("Eats", "ISA", "Consumes"), T("Orange", "ISA", "Fruit")])
    p2 = PrivacyPattern(ex("Boy"), ex("Eats"), ex("Orange"), "Low")
    p1 = PrivacyPattern(ex("Male"), ex("Consumes"), ex("Fruit"), "Low")
    p1x = PrivacyPattern(ex("Male"), ex("Consumes"), None, "Low")
    assert p2.contained_in(p1, isa) and p2.contained_in(p1x, isa)
    assert not p1.contained_in(p2, isa) and not p1x.contained_in(p1, isa)
    assert p1.contained_in(p1x, isa)


def test_total_order_default_and_aliases():
    order = DEFAULT_ORDER
    assert order.levels == ("Public", "Low", "Medium", "High")
    assert [order.parse(x) for x in ("Not Private (public)", "low privacy", "Medium Privacy", "HIGH")] == [
        "Public", "Low", "Medium", "High"]
    assert order.lub(["Low", "High", "Medium"]) == "High"
    assert order.lub([]) == "Public" == order.bottom
    assert order.leq("Low", "Medium") and not order.leq("High", "Medium")
    assert order.exceeds("High", "Medium") and not order.exceeds("Medium", "Medium")


def test_example_3_3_6_category_lattice():
    lattice = CategoryLattice()
    l1, l2 = lattice.parse("(TopSecret, {A, B})"), lattice.parse("Secret{C}")
    assert l1 == MacLabel("TopSecret", frozenset({"A", "B"})) and l2 == MacLabel("Secret", frozenset({"C"}))
    assert lattice.lub([l1, l2]) == MacLabel("TopSecret", frozenset({"A", "B", "C"}))
    assert str(lattice.lub([l1, l2])) == "(TopSecret, {A, B, C})"
    # a partial order: (TopSecret,{A,B}) and (Secret,{C}) are incomparable
    assert not lattice.leq(l1, l2) and not lattice.leq(l2, l1)
    # so a label incomparable with the threshold is a violation (not λ(c) ≤ v)
    assert lattice.exceeds(l2, l1)
    assert lattice.parse("Unclassified") == lattice.bottom
    # Def 3.3.11 multiple inheritance: p ⊆pc p1 and p ⊆pc p2 gives λ(p) ≥ LUB(l1, l2)
    mapping = PrivacyMapping([PrivacyPattern(None, ex("diagnosedWith"), None, l1),
                              PrivacyPattern(None, None, ex("Hepatitis-C"), l2)], lattice)
    assert mapping.label(T("Bob", "diagnosedWith", "Hepatitis-C")) == MacLabel("TopSecret", frozenset("ABC"))
    assert mapping.label(T("Bob", "given", "Interferon")) == lattice.bottom


# --------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------

CONCEPTS = [f"k{i}" for i in range(7)]


@st.composite
def forest(draw):
    """A random ISA forest over CONCEPTS (each concept may have one parent earlier in the list)."""
    edges = []
    for i, c in enumerate(CONCEPTS[1:], start=1):
        parent = draw(st.one_of(st.none(), st.integers(0, i - 1)))
        if parent is not None:
            edges.append(Triple(ex(c), ISA, ex(CONCEPTS[parent])))
    return IsaHierarchy(edges)


term_st = st.one_of(st.none(), st.sampled_from(CONCEPTS).map(ex))
pattern_st = st.builds(lambda s, p, o, label: PrivacyPattern(s, p, o, label), term_st, term_st, term_st,
                       st.sampled_from(DEFAULT_ORDER.levels))
triple_st = st.builds(Triple, *(st.sampled_from(CONCEPTS).map(ex),) * 3)


@settings(max_examples=200, deadline=None)
@given(isa=forest(), patterns=st.lists(pattern_st, max_size=6), triple=triple_st)
def test_label_is_lub_of_matching_patterns_and_containment_is_sound(isa, patterns, triple):
    mapping = PrivacyMapping(patterns)
    label = mapping.label(triple, isa)
    matching = [p for p in patterns if p.matches(triple, isa)]
    assert label == DEFAULT_ORDER.lub(p.label for p in matching)
    for p in matching:
        assert DEFAULT_ORDER.leq(p.label, label)
        for q in patterns:
            if p.contained_in(q, isa):
                assert q.matches(triple, isa)  # containment is sound for instances
    # the labeling itself is monotone: a triple is at least as high as any pattern it falls in
    for p, q in ((p, q) for p in patterns for q in patterns if p.contained_in(q, isa)):
        assert all(DEFAULT_ORDER.leq(q.label, mapping.label(t, isa)) for t in [triple] if p.matches(t, isa))


lattice = CategoryLattice()
mac_st = st.builds(MacLabel, st.sampled_from(lattice.levels.levels), st.frozensets(st.sampled_from("ABCD")))


@settings(max_examples=200, deadline=None)
@given(a=mac_st, b=mac_st, c=mac_st)
def test_category_lattice_laws(a, b, c):
    j = lattice.join
    assert j(a, b) == j(b, a) and j(a, j(b, c)) == j(j(a, b), c) and j(a, a) == a
    assert lattice.leq(a, j(a, b)) and lattice.leq(b, j(a, b))
    if lattice.leq(a, c) and lattice.leq(b, c):
        assert lattice.leq(j(a, b), c)  # least upper bound
    if lattice.leq(a, b) and lattice.leq(b, a):
        assert a == b
    assert lattice.parse(str(a)) == a


# --------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------


def write(tmp_path, name, text) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_label_missing_from_the_order_csv(tmp_path):
    path = write(tmp_path, "p.csv", "subject,predicate,object,label\n*,ex:p,*,Low\n*,ex:q,*,Secret\n")
    with pytest.raises(InputError, match="'Secret' is not a label of the order Public < Low < Medium < High") as err:
        load_patterns_csv(path, resolver=TermResolver({"ex": EX}))
    assert (err.value.file, err.value.row, err.value.column) == (str(path), 3, "label")


def test_label_missing_from_the_order_turtle(tmp_path):
    path = write(tmp_path, "p.ttl", f"@prefix pia: <urn:tklscore:pia#> . @prefix ex: <{EX}> .\n"
                                    "ex:x a pia:PrivacyPattern ; pia:predicate ex:p ; pia:label \"Critical\" .\n")
    with pytest.raises(InputError, match="'Critical' is not a label") as err:
        load_patterns(path)
    assert err.value.file == str(path) and "pattern x" in str(err.value)


def test_label_missing_from_a_custom_order_and_lattice():
    order = TotalOrder(["Open", "Restricted"])
    with pytest.raises(InputError, match="'High' is not a label of the order Open < Restricted"):
        PrivacyMapping([PrivacyPattern(None, None, None, "High")], order)
    with pytest.raises(InputError, match="unknown categor"):
        CategoryLattice(categories={"A", "B"}).parse("Secret{Z}")
    with pytest.raises(InputError, match="names 'low' twice"):
        TotalOrder(["Low", "low"])


def test_non_monotone_mapping_is_reported_and_refused(tmp_path):
    path = write(tmp_path, "p.csv", "subject,predicate,object,label\n"
                                    "*,diagnosedWith,*,High\n"
                                    "*,diagnosedWith,Hepatitis-C,Low\n"
                                    "*,ISA,Hepatologist,Public\n"
                                    "*,*,Physician,Medium\n")
    isa, facts = bob_isa()
    mapping = load_patterns_csv(path, resolver=TermResolver(known=[t for f in facts for t in f]))
    found = mapping.monotonicity_violations(isa)
    assert {(str(v.narrow), str(v.broad)) for v in found} == {
        ("(*, diagnosedWith, Hepatitis-C)", "(*, diagnosedWith, *)"),
        ("(*, ISA, Hepatologist)", "(*, *, Physician)"),
    }
    with pytest.raises(InputError, match="not monotone") as err:
        mapping.check_monotone(isa, file=str(path))
    assert "(*, diagnosedWith, Hepatitis-C) → Low" in str(err.value)
    assert "row 3" in str(err.value) and "row 4" in str(err.value)


@pytest.mark.parametrize("text, message, row, column", [
    ("subject,predicate,label\n*,*,Low\n", "missing column\\(s\\) object", 1, None),
    ("subject,predicate,object,label\n*,zz:p,*,Low\n", "unknown prefix 'zz:'", 2, "predicate"),
    ("subject,predicate,object,label\n*,given,Interferonn,Low\n", "unknown term 'Interferonn'", 2, "object"),
    ("subject,predicate,object,label\n*,given\n", "2 field\\(s\\), expected 4", 2, None),
    ("", "pattern file is empty", None, None),
])
def test_bad_pattern_csv(tmp_path, text, message, row, column):
    _, facts = bob_isa()
    path = write(tmp_path, "p.csv", text)
    with pytest.raises(InputError, match=message) as err:
        load_patterns_csv(path, resolver=TermResolver(known=[t for f in facts for t in f]))
    assert (err.value.row, err.value.column) == (row, column)


def test_ambiguous_bare_term(tmp_path):
    path = write(tmp_path, "p.csv", "subject,predicate,object,label\n*,*,Flu,Low\n")
    resolver = TermResolver(known=[URIRef("http://a.org/Flu"), URIRef("http://b.org/Flu")])
    with pytest.raises(InputError, match="'Flu' is ambiguous"):
        load_patterns_csv(path, resolver=resolver)


def test_bad_pattern_turtle(tmp_path):
    head = f"@prefix pia: <urn:tklscore:pia#> . @prefix ex: <{EX}> .\n"
    with pytest.raises(InputError, match="has 2 pia:label values"):
        load_patterns(write(tmp_path, "a.ttl", head + "ex:x a pia:PrivacyPattern ; pia:label \"Low\", \"High\" ."))
    with pytest.raises(InputError, match="no pia:PrivacyPattern"):
        load_patterns(write(tmp_path, "b.ttl", head + "ex:x ex:p ex:y ."))
    with pytest.raises(InputError, match="not valid turtle RDF") as err:
        load_patterns(write(tmp_path, "c.ttl", head + "ex:x a pia:PrivacyPattern ;\n pia:label .\n"))
    assert err.value.row == 3
