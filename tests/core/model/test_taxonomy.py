"""The domain taxonomy from DPV (thesis 4.1.1, data-model.md §1, dpv.md).

The DPV releases are read from ``tests/data/dpv`` (copied unchanged, with the W3C licence
notice). Counts are those dpv.md states for the columns Disease, Medication, Age and
Initial Diagnosis mapped to Health, Prescription, Age and HealthRecord.
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from helpers import run_cli
from paths import RESOURCES

from tklscore.core.errors import InputError
from tklscore.core.model.taxonomy import TAXONOMY_ROOT, Taxonomy, extract_taxonomy
from tklscore.core.model.vocabulary import Vocabulary

MAPPED = ["Health", "Prescription", "Age", "HealthRecord"]
V01 = "http://www.w3.org/ns/dpv#"
DPV = "https://w3id.org/dpv#"
PD10 = "https://w3id.org/dpv/dpv-pd#"
PD23 = "https://w3id.org/dpv/pd#"

# Figure 4.2b as (parent, child) local names
THESIS_TREE = {
    ("PersonalDataCategory", "External"), ("External", "PhysicalCharacteristic"),
    ("External", "MedicalHealth"), ("PhysicalCharacteristic", "Age"),
    ("MedicalHealth", "Health"), ("MedicalHealth", "HealthRecord"),
    ("MedicalHealth", "Prescription"),
}
THESIS_TREE_TEXT = """\
PersonalDataCategory
└── External
    ├── MedicalHealth
    │   ├── Health
    │   ├── HealthRecord
    │   └── Prescription
    └── PhysicalCharacteristic
        └── Age"""


def local(iri: str) -> str:
    return iri.replace("#", "/").rsplit("/", 1)[-1]


def local_edges(edges) -> set[tuple[str, str]]:
    return {(local(p), local(c)) for p, c in edges}


def with_root(tree: set[tuple[str, str]], root: str, old: str = "PersonalDataCategory"):
    return {(root if p == old else p, c) for p, c in tree}


def extract(vocab: Vocabulary, **kwargs) -> Taxonomy:
    return extract_taxonomy(vocab, [vocab.resolve(m) for m in MAPPED], **kwargs)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


TTL_HEADER = """@prefix ex: <http://example.org/v#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
"""


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def dpv(data_dir) -> Path:
    return data_dir / "dpv"


@pytest.fixture(scope="module")
def v01(dpv) -> Vocabulary:
    return Vocabulary.load([dpv / "0.1" / "rdf" / "personal_data_categories.ttl"],
                           predicates=("subClassOf",))


@pytest.fixture(scope="module")
def v01_full(dpv) -> Vocabulary:
    return Vocabulary.load([dpv / "0.1" / "dpv.ttl"])


@pytest.fixture(scope="module")
def v10(dpv) -> Vocabulary:
    return Vocabulary.load([dpv / "1.0" / "dpv-pd" / "dpv-pd.ttl"], predicates=("broader",))


@pytest.fixture(scope="module")
def v10_core(dpv) -> Vocabulary:
    return Vocabulary.load([dpv / "1.0" / "dpv-pd" / "dpv-pd.ttl",
                            dpv / "1.0" / "dpv" / "modules" / "personal_data.ttl"])


@pytest.fixture(scope="module")
def v23(dpv) -> Vocabulary:
    return Vocabulary.load([dpv / "2.3" / "pd" / "pd.ttl"], predicates=("broader",))


@pytest.fixture(scope="module")
def v23_core(dpv) -> Vocabulary:
    return Vocabulary.load([dpv / "2.3" / "pd" / "pd.ttl",
                            dpv / "2.3" / "dpv" / "modules" / "personal_data.ttl"])


@pytest.fixture(scope="module")
def thesis() -> Vocabulary:
    return Vocabulary.builtin_thesis()


# --------------------------------------------------------------------------- DPV v0.1

@pytest.mark.parametrize("which", ["v01", "v01_full"])
def test_v01_extraction_is_figure_4_1(request, which):
    vocab = request.getfixturevalue(which)
    taxonomy = extract(vocab)
    dag = taxonomy.extracted
    assert (dag.number_of_nodes(), dag.number_of_edges()) == (9, 9)
    assert nx.number_weakly_connected_components(dag) == 1
    assert [local(n) for n in dag if dag.in_degree(n) == 0] == ["PersonalDataCategory"]
    assert local_edges(dag.edges) == THESIS_TREE | {
        ("PersonalDataCategory", "SpecialCategoryPersonalData"),
        ("SpecialCategoryPersonalData", "MedicalHealth")}
    # after mono-hierarchy and pruning: Figure 4.2b
    assert taxonomy.root == V01 + "PersonalDataCategory"
    assert local_edges(taxonomy.edges) == THESIS_TREE
    assert local_edges(taxonomy.removed_edges) == {("SpecialCategoryPersonalData", "MedicalHealth")}
    assert taxonomy.removed_nodes == [V01 + "SpecialCategoryPersonalData"]
    assert not taxonomy.added_root
    assert taxonomy.validate() == []
    [conflict] = taxonomy.conflicts
    assert conflict.node == V01 + "MedicalHealth"
    assert conflict.parents == [V01 + "External", V01 + "SpecialCategoryPersonalData"]
    assert conflict.kept == V01 + "External"
    assert conflict.rule == "mapped"
    assert "'External' 4" in conflict.reason and "3" in conflict.reason


def test_v01_labels(v01, v01_full):
    assert v01.label(V01 + "HealthRecord") == "Health Record"
    assert v01.label(V01 + "MedicalHealth") == "MedicalHealth"
    # PersonalDataCategory is only referenced in the category file: local name
    assert v01.label(V01 + "PersonalDataCategory") == "PersonalDataCategory"
    assert v01_full.label(V01 + "PersonalDataCategory") == "Personal Data Category"


# --------------------------------------------------------------------------- DPV 1.0 / 2.3

@pytest.mark.parametrize("which, pd", [("v10", PD10), ("v23", PD23)])
def test_category_file_alone_via_broader(request, which, pd):
    vocab = request.getfixturevalue(which)
    taxonomy = extract(vocab)
    dag = taxonomy.extracted
    assert (dag.number_of_nodes(), dag.number_of_edges()) == (9, 8)
    roots = sorted(n for n in dag if dag.in_degree(n) == 0)
    assert roots == [DPV + "PersonalData", DPV + "SpecialCategoryPersonalData"]
    assert nx.number_weakly_connected_components(dag) == 1
    assert taxonomy.root == DPV + "PersonalData"
    assert local_edges(taxonomy.edges) == with_root(THESIS_TREE, "PersonalData")
    assert taxonomy.removed_edges == [(DPV + "SpecialCategoryPersonalData", pd + "MedicalHealth")]
    assert taxonomy.removed_nodes == [DPV + "SpecialCategoryPersonalData"]
    assert taxonomy.mapped == [pd + m for m in MAPPED]
    assert taxonomy.label(pd + "MedicalHealth") == "Medical Health"  # skos:prefLabel


def test_23_with_core_module(v23_core):
    taxonomy = extract(v23_core)
    dag = taxonomy.extracted
    assert (dag.number_of_nodes(), dag.number_of_edges()) == (12, 13)
    assert {local(n) for n in dag} == {
        "Health", "HealthRecord", "Prescription", "Age", "MedicalHealth",
        "PhysicalCharacteristic", "External", "SpecialCategoryPersonalData",
        "SensitivePersonalData", "SensitiveData", "PersonalData", "Data"}
    assert sorted(dag.predecessors(DPV + "SensitivePersonalData")) == [
        DPV + "PersonalData", DPV + "SensitiveData"]
    assert taxonomy.root == DPV + "Data"
    assert local_edges(taxonomy.edges) == (with_root(THESIS_TREE, "PersonalData")
                                           | {("Data", "PersonalData")})
    assert taxonomy.path_to_root(PD23 + "Health") == [
        PD23 + "Health", PD23 + "MedicalHealth", PD23 + "External", DPV + "PersonalData",
        DPV + "Data"]
    assert set(taxonomy.removed_nodes) == {
        DPV + "SpecialCategoryPersonalData", DPV + "SensitivePersonalData", DPV + "SensitiveData"}
    assert set(taxonomy.removed_edges) == {
        (DPV + "SpecialCategoryPersonalData", PD23 + "MedicalHealth"),
        (DPV + "SensitiveData", DPV + "SensitivePersonalData")}
    assert {local(c.node): local(c.kept) for c in taxonomy.conflicts} == {
        "MedicalHealth": "External", "SensitivePersonalData": "PersonalData"}
    assert taxonomy.validate() == []


def test_23_core_with_personal_data_as_root(v23_core):
    taxonomy = extract(v23_core, root="PersonalData")
    assert taxonomy.root == DPV + "PersonalData"
    assert local_edges(taxonomy.edges) == with_root(THESIS_TREE, "PersonalData")
    assert DPV + "Data" in taxonomy.removed_nodes
    assert DPV + "SensitiveData" in taxonomy.removed_nodes
    assert taxonomy.nodes[0] == DPV + "PersonalData"
    assert taxonomy.validate() == []


def test_10_with_core_module(v10_core):
    taxonomy = extract(v10_core)
    dag = taxonomy.extracted
    # 1.0's core has no SensitiveData: 11 nodes, 11 edges
    assert (dag.number_of_nodes(), dag.number_of_edges()) == (11, 11)
    assert local_edges(taxonomy.edges) == (with_root(THESIS_TREE, "PersonalData")
                                           | {("Data", "PersonalData")})


@pytest.mark.parametrize("files", [
    ["1.0/dpv-pd/dpv-pd.ttl"], ["1.0/dpv-pd/dpv-pd.ttl", "1.0/dpv/modules/personal_data.ttl"],
    ["2.3/pd/pd.ttl"], ["2.3/pd/pd.ttl", "2.3/dpv/modules/personal_data.ttl"]])
def test_subclassof_alone_finds_no_edges_after_1_0(dpv, files):
    vocab = Vocabulary.load([dpv / f for f in files], predicates=("subClassOf",))
    taxonomy = extract(vocab)
    assert taxonomy.extracted.number_of_nodes() == 4
    assert taxonomy.extracted.number_of_edges() == 0
    # four separate trees: joined under a new root
    assert taxonomy.root == TAXONOMY_ROOT and taxonomy.added_root
    assert taxonomy.label(TAXONOMY_ROOT) == "Root"
    assert {c for p, c in taxonomy.edges} == set(taxonomy.mapped)


def test_rdf_type_is_not_a_parent(v23):
    # in 2.3 every category is typed dpv:PersonalData, health ones also SpecialCategory...
    assert v23.parents(PD23 + "Health") == [PD23 + "MedicalHealth"]
    assert v23.parents(PD23 + "Age") == [PD23 + "PhysicalCharacteristic"]
    assert v23.parents(PD23 + "External") == [DPV + "PersonalData"]
    assert v23.parents(DPV + "PersonalData") == []


def test_rdf_type_is_not_a_parent_tiny(tmp_path):
    path = write(tmp_path, "typed.ttl", TTL_HEADER + """
ex:Top a rdfs:Class .
ex:Leaf a rdfs:Class, ex:Top ; rdfs:subClassOf [ a owl:Restriction ], owl:Thing .
""")
    vocab = Vocabulary.load([path])
    assert vocab.parents("http://example.org/v#Leaf") == []
    assert set(vocab.classes) == {"http://example.org/v#Top", "http://example.org/v#Leaf"}


# --------------------------------------------------------------------------- built-in

def test_builtin_thesis_taxonomy(thesis):
    assert len(thesis.classes) == 9 and thesis.graph.number_of_edges() == 9
    taxonomy = extract(thesis)
    assert (taxonomy.extracted.number_of_nodes(), taxonomy.extracted.number_of_edges()) == (9, 9)
    assert local_edges(taxonomy.edges) == THESIS_TREE
    assert "\n".join(taxonomy.tree_lines()) == THESIS_TREE_TEXT
    assert taxonomy.nodes == [V01 + n for n in (
        "PersonalDataCategory", "External", "MedicalHealth", "PhysicalCharacteristic",
        "Health", "HealthRecord", "Prescription", "Age")]
    assert taxonomy.parent[V01 + "Age"] == V01 + "PhysicalCharacteristic"
    assert taxonomy.children(V01 + "MedicalHealth") == [
        V01 + "Health", V01 + "HealthRecord", V01 + "Prescription"]
    assert taxonomy.path_to_root(V01 + "Age") == [
        V01 + "Age", V01 + "PhysicalCharacteristic", V01 + "External",
        V01 + "PersonalDataCategory"]
    graph = taxonomy.to_networkx()
    assert nx.is_arborescence(graph)
    assert graph.nodes[V01 + "Health"] == {"label": "Health", "mapped": True}
    # the same structure as the real v0.1 file
    resource = RESOURCES / "thesis_taxonomy.ttl"
    assert "W3C" in resource.read_text(encoding="utf-8")


def test_keep_parent_override(thesis):
    taxonomy = extract(thesis, keep_parent={"MedicalHealth": "SpecialCategoryPersonalData"})
    assert local_edges(taxonomy.edges) == {
        ("PersonalDataCategory", "External"), ("External", "PhysicalCharacteristic"),
        ("PhysicalCharacteristic", "Age"), ("PersonalDataCategory", "SpecialCategoryPersonalData"),
        ("SpecialCategoryPersonalData", "MedicalHealth"), ("MedicalHealth", "Health"),
        ("MedicalHealth", "HealthRecord"), ("MedicalHealth", "Prescription")}
    assert local_edges(taxonomy.removed_edges) == {("External", "MedicalHealth")}
    assert taxonomy.removed_nodes == []
    [conflict] = taxonomy.conflicts
    assert conflict.rule == "user" and conflict.kept == V01 + "SpecialCategoryPersonalData"
    assert "user" in conflict.reason


def test_keep_parent_by_iri_in_real_dpv(v23):
    taxonomy = extract(v23, keep_parent={PD23 + "MedicalHealth": DPV + "SpecialCategoryPersonalData"})
    # two trees remain (PersonalData > External > PhysicalCharacteristic > Age and
    # SpecialCategoryPersonalData > MedicalHealth > ...): a new root joins them
    assert taxonomy.added_root and taxonomy.root == TAXONOMY_ROOT
    assert taxonomy.children(TAXONOMY_ROOT) == [DPV + "PersonalData",
                                                DPV + "SpecialCategoryPersonalData"]
    assert taxonomy.validate() == []


# --------------------------------------------------------------------------- tie-breaking

DIAMOND = TTL_HEADER + """
ex:R a rdfs:Class ; rdfs:label "R" .
ex:Zeta rdfs:subClassOf ex:R ; rdfs:label "Zeta" .
ex:Alpha rdfs:subClassOf ex:R ; rdfs:label "Alpha" .
ex:Mid rdfs:subClassOf ex:R ; rdfs:label "Mid" .
ex:Deep rdfs:subClassOf ex:Mid ; rdfs:label "Deep" .
ex:X rdfs:subClassOf ex:Zeta, ex:Alpha .
ex:Y rdfs:subClassOf ex:Deep, ex:Zeta .
ex:Z rdfs:subClassOf ex:Alpha .
"""
EX = "http://example.org/v#"


def test_tie_broken_by_label(tmp_path):
    vocab = Vocabulary.load([write(tmp_path, "d.ttl", DIAMOND)])
    taxonomy = extract_taxonomy(vocab, [EX + "X"])
    [conflict] = taxonomy.conflicts
    assert conflict.kept == EX + "Alpha" and conflict.rule == "name"
    assert local_edges(taxonomy.edges) == {("R", "Alpha"), ("Alpha", "X")}
    assert taxonomy.removed_nodes == [EX + "Zeta"]


def test_tie_broken_by_distance_to_root(tmp_path):
    vocab = Vocabulary.load([write(tmp_path, "d.ttl", DIAMOND)])
    # Y: Deep (2 links up to R) vs Zeta (1 link): both hold 1 mapped class
    taxonomy = extract_taxonomy(vocab, ["Y"])
    [conflict] = taxonomy.conflicts
    assert conflict.kept == EX + "Zeta" and conflict.rule == "depth"
    assert local_edges(taxonomy.edges) == {("R", "Zeta"), ("Zeta", "Y")}
    assert set(taxonomy.removed_nodes) == {EX + "Deep", EX + "Mid"}


def test_most_mapped_classes_wins(tmp_path):
    vocab = Vocabulary.load([write(tmp_path, "d.ttl", DIAMOND)])
    # X: Alpha holds X and Z, Zeta holds X only (Y is not mapped)
    taxonomy = extract_taxonomy(vocab, ["X", "Z"])
    [conflict] = taxonomy.conflicts
    assert conflict.kept == EX + "Alpha" and conflict.rule == "mapped"
    # with Y mapped too, Zeta holds X and Y (Y keeps Zeta: nearer to the root)
    taxonomy = extract_taxonomy(vocab, ["X", "Y"])
    assert {local(c.node): local(c.kept) for c in taxonomy.conflicts} == {"X": "Zeta", "Y": "Zeta"}
    assert local_edges(taxonomy.edges) == {("R", "Zeta"), ("Zeta", "X"), ("Zeta", "Y")}


def test_several_components_get_a_new_root(tmp_path):
    path = write(tmp_path, "two.ttl", TTL_HEADER + """
ex:A rdfs:subClassOf ex:P . ex:B rdfs:subClassOf ex:Q .
""")
    vocab = Vocabulary.load([path])
    taxonomy = extract_taxonomy(vocab, ["A", "B"])
    assert nx.number_weakly_connected_components(taxonomy.extracted) == 2
    assert taxonomy.root == TAXONOMY_ROOT
    assert taxonomy.edges == [(TAXONOMY_ROOT, EX + "P"), (TAXONOMY_ROOT, EX + "Q"),
                              (EX + "P", EX + "A"), (EX + "Q", EX + "B")]
    with pytest.raises(InputError, match="'B' is not below it"):
        extract_taxonomy(vocab, ["A", "B"], root="P")


def test_skos_labels_and_local_names(tmp_path):
    path = write(tmp_path, "labels.ttl", TTL_HEADER + """
ex:A skos:prefLabel "Anglais"@fr, "English A"@en ; skos:broader ex:B .
ex:B skos:prefLabel "Plain B" ; rdfs:label "Label B"@de, "Label B en"@en .
""")
    vocab = Vocabulary.load([path])
    assert vocab.label(EX + "A") == "English A"
    assert vocab.label(EX + "B") == "Label B en"
    assert vocab.parents(EX + "A") == [EX + "B"]
    assert Vocabulary.load([path], predicates=("subClassOf",)).parents(EX + "A") == []


def test_rdfxml_and_jsonld(tmp_path):
    xml = write(tmp_path, "v.rdf", """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">
  <rdfs:Class rdf:about="http://example.org/v#A">
    <rdfs:subClassOf rdf:resource="http://example.org/v#B"/>
  </rdfs:Class>
</rdf:RDF>
""")
    jsonld = write(tmp_path, "v.jsonld", json.dumps({
        "@context": {"rdfs": "http://www.w3.org/2000/01/rdf-schema#"},
        "@id": "http://example.org/v#B",
        "rdfs:subClassOf": {"@id": "http://example.org/v#C"},
        "rdfs:label": "Bee"}))
    vocab = Vocabulary.load([xml, jsonld])
    taxonomy = extract_taxonomy(vocab, ["A"])
    assert taxonomy.nodes == [EX + "C", EX + "B", EX + "A"]
    assert taxonomy.label(EX + "B") == "Bee"


def test_from_edges_round_trip_and_validation(thesis):
    taxonomy = extract(thesis)
    again = Taxonomy.from_edges(taxonomy.root, taxonomy.edges, taxonomy.labels, taxonomy.mapped)
    assert again.nodes == taxonomy.nodes and again.edges == taxonomy.edges
    assert again.parent == taxonomy.parent
    root, a, b, c = "urn:r", "urn:a", "urn:b", "urn:c"
    bad = Taxonomy(root=root, parent={a: root, b: a}, labels={root: "R", a: "A", b: "B", c: "C"},
                   mapped=[b], nodes=[root, a, b, c],
                   edges=[(root, a), (a, b), (a, b), (c, a), (b, root)])
    problems = bad.validate()
    text = "\n".join(problems)
    assert "edge 'A' → 'B' is repeated 2 times" in text
    assert "'A' has 2 parents ('R', 'C')" in text
    assert "the root 'R' has a parent ('B')" in text
    assert "cycle" in text
    assert "the only node without a parent is 'C', not the root 'R'" in text
    assert "not below the root (edges must all lead down from 'R'): 'C'" in text
    with pytest.raises(InputError, match="leaf 'A'"):
        Taxonomy.from_edges(root, [(root, a), (root, b)], {root: "R", a: "A", b: "B"}, [b])
    with pytest.raises(InputError, match="exactly one root"):
        Taxonomy.from_edges(root, [(root, a), (c, b)], {}, [a, b])


# --------------------------------------------------------------------------- bad input

def test_file_that_does_not_parse(tmp_path):
    path = write(tmp_path, "broken.ttl", TTL_HEADER + "\nex:A rdfs:subClassOf ex:B .\n"
                 "ex:C rdfs:subClassOf ;; ex:D .\n")
    with pytest.raises(InputError) as error:
        Vocabulary.load([path])
    assert "broken.ttl" in str(error.value)
    assert "line 7" in str(error.value)
    xml = write(tmp_path, "broken.rdf", "<rdf:RDF>\n<unclosed>\n")
    with pytest.raises(InputError, match=r"broken\.rdf.*line"):
        Vocabulary.load([xml])
    jsonld = write(tmp_path, "broken.jsonld", '{"@id": \n')
    with pytest.raises(InputError, match=r"broken\.jsonld.*line 2"):
        Vocabulary.load([jsonld])
    with pytest.raises(InputError, match="not found"):
        Vocabulary.load([tmp_path / "missing.ttl"])


def test_remote_jsonld_context_is_not_fetched(tmp_path):
    path = write(tmp_path, "remote.jsonld", json.dumps({
        "@context": "https://example.org/context.jsonld", "@id": "http://example.org/v#A"}))
    with pytest.raises(InputError, match="remote @context"):
        Vocabulary.load([path])


def test_unknown_class_suggests_close_matches(v23):
    with pytest.raises(InputError, match=r"no class 'Helth'.*did you mean.*Health"):
        extract_taxonomy(v23, ["Helth", "Age"])
    assert v23.resolve("health") == PD23 + "Health"  # case-insensitive fallback
    assert v23.resolve(PD23 + "Age") == PD23 + "Age"
    with pytest.raises(InputError, match=r"no class <http://www\.w3\.org/ns/dpv#Age>.*"
                                         r"did you mean https://w3id\.org/dpv/pd#Age\?"):
        v23.resolve(V01 + "Age")


def test_ambiguous_local_name(dpv, tmp_path):
    vocab = Vocabulary.load([dpv / "1.0" / "dpv-pd" / "dpv-pd.ttl", dpv / "2.3" / "pd" / "pd.ttl"])
    with pytest.raises(InputError) as error:
        vocab.resolve("Health")
    message = str(error.value)
    assert "ambiguous" in message and PD10 + "Health" in message and PD23 + "Health" in message
    path = write(tmp_path, "two.ttl", TTL_HEADER + """
<http://a.example/Thing> a rdfs:Class . <http://b.example/x#Thing> a rdfs:Class .
""")
    with pytest.raises(InputError, match=r"ambiguous.*http://a\.example/Thing.*http://b\.example/x#Thing"):
        Vocabulary.load([path]).resolve("Thing")


def test_cycle_is_reported_by_label(tmp_path):
    path = write(tmp_path, "cycle.ttl", TTL_HEADER + """
ex:A rdfs:subClassOf ex:B ; rdfs:label "Class A" .
ex:B rdfs:subClassOf ex:A ; rdfs:label "Class B" .
ex:L rdfs:subClassOf ex:A .
""")
    vocab = Vocabulary.load([path])
    with pytest.raises(InputError, match=r"cycle: '(Class A' ⊂ 'Class B' ⊂ 'Class A|"
                                         r"Class B' ⊂ 'Class A' ⊂ 'Class B)'"):
        extract_taxonomy(vocab, ["L"])


def test_keep_parent_that_is_not_a_parent(thesis):
    with pytest.raises(InputError, match="'Age' is not a parent of 'MedicalHealth'"):
        extract(thesis, keep_parent={"MedicalHealth": "Age"})
    with pytest.raises(InputError, match="not in the extracted taxonomy"):
        extract_taxonomy(thesis, ["Age"], keep_parent={"MedicalHealth": "External"})


def test_root_must_be_above_the_mapped_classes(v23, thesis):
    with pytest.raises(InputError, match="not below it"):
        extract(v23, root="SpecialCategoryPersonalData")
    with pytest.raises(InputError, match="'Age' is not below it"):
        extract(thesis, root="MedicalHealth")


def test_unknown_predicate(thesis, dpv):
    with pytest.raises(InputError, match="unknown hierarchy predicate 'type'"):
        Vocabulary.load([dpv / "2.3" / "pd" / "pd.ttl"], predicates="broader,type")


# --------------------------------------------------------------------------- CLI

THESIS_MAP = ["--map", "Disease=Health", "--map", "Medication=Prescription", "--map", "Age=Age",
              "--map", "Initial Diagnosis=HealthRecord"]


def assert_error(capsys, argv, *fragments):
    code, out, err = run_cli(capsys, argv)
    assert code == 2, (code, out, err)
    assert err.startswith("tklscore: error: ") and "Traceback" not in err + out
    for fragment in fragments:
        assert fragment in err, (fragment, err)
    return err


def test_cli_text_builtin(capsys):
    code, out, err = run_cli(capsys, ["taxonomy", *THESIS_MAP])
    assert (code, err) == (0, "")
    assert out.startswith(THESIS_TREE_TEXT + "\n")
    assert "Initial Diagnosis → HealthRecord <http://www.w3.org/ns/dpv#HealthRecord>" in out
    assert "SpecialCategoryPersonalData → MedicalHealth" in out
    assert "most mapped classes below" in out


def test_cli_json_23_core(capsys, dpv):
    code, out, err = run_cli(capsys, [
        "taxonomy", "--vocabulary", dpv / "2.3" / "pd" / "pd.ttl",
        "--vocabulary", dpv / "2.3" / "dpv" / "modules" / "personal_data.ttl",
        *THESIS_MAP, "--root", "PersonalData", "--format", "json"])
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert list(data) == ["root", "nodes", "edges", "removed_edges", "removed_nodes"]
    assert data["root"] == DPV + "PersonalData"
    assert data["nodes"][0] == {"iri": DPV + "PersonalData", "label": "Personal Data"}
    assert len(data["nodes"]) == 8 and len(data["edges"]) == 7
    assert [PD23 + "MedicalHealth", PD23 + "Health"] in data["edges"]
    assert [DPV + "SpecialCategoryPersonalData", PD23 + "MedicalHealth"] in data["removed_edges"]
    assert set(data["removed_nodes"]) == {DPV + n for n in (
        "Data", "SensitiveData", "SensitivePersonalData", "SpecialCategoryPersonalData")}


def test_cli_keep_parent_and_predicates(capsys, dpv):
    code, out, _ = run_cli(capsys, ["taxonomy", *THESIS_MAP, "--format", "json",
                                    "--keep-parent", "MedicalHealth=SpecialCategoryPersonalData"])
    assert code == 0
    assert [V01 + "SpecialCategoryPersonalData", V01 + "MedicalHealth"] in json.loads(out)["edges"]
    code, out, _ = run_cli(capsys, ["taxonomy", "--vocabulary", dpv / "2.3" / "pd" / "pd.ttl",
                                    "--predicates", "subClassOf", *THESIS_MAP, "--format", "json"])
    assert code == 0
    data = json.loads(out)
    assert data["root"] == TAXONOMY_ROOT and len(data["edges"]) == 4


def test_cli_errors(capsys, tmp_path):
    assert_error(capsys, ["taxonomy", "--map", "Disease=Helth"], "no class 'Helth'",
                 "did you mean Health?")
    assert_error(capsys, ["taxonomy", *THESIS_MAP, "--keep-parent", "MedicalHealth=Age"],
                 "'Age' is not a parent of 'MedicalHealth'")
    assert_error(capsys, ["taxonomy", "--map", "Disease"], "expected COLUMN=CLASS")
    assert_error(capsys, ["taxonomy"], "--map")
    assert_error(capsys, ["taxonomy", "--vocabulary", tmp_path / "nope.ttl", *THESIS_MAP],
                 "nope.ttl", "not found")
    broken = write(tmp_path, "broken.ttl", "@prefix ex: <http://e/> .\nex:a ex:b .\n")
    assert_error(capsys, ["taxonomy", "--vocabulary", broken, *THESIS_MAP],
                 "broken.ttl", "line 2")
    cycle = write(tmp_path, "cycle.ttl", TTL_HEADER + "ex:A rdfs:subClassOf ex:B .\n"
                  "ex:B rdfs:subClassOf ex:A .\n")
    assert_error(capsys, ["taxonomy", "--vocabulary", cycle, "--map", "x=A"], "cycle", "'A' ⊂ 'B'")
    assert_error(capsys, ["taxonomy", "--map", "a=Age", "--map", "a=Health"], "mapped twice")


def test_loading_opens_no_network_connection(monkeypatch, dpv, tmp_path):
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    jsonld = write(tmp_path, "v.jsonld", json.dumps({
        "@context": {"rdfs": "http://www.w3.org/2000/01/rdf-schema#",
                     "@base": "http://example.org/v"},
        "@id": "#A", "rdfs:subClassOf": {"@id": "#B"}}))
    vocab = Vocabulary.load([dpv / "2.3" / "pd" / "pd.ttl",
                             dpv / "2.3" / "dpv" / "modules" / "personal_data.ttl", jsonld])
    assert vocab.parents(EX + "A") == [EX + "B"]
    assert extract(vocab).extracted.number_of_edges() == 13


@pytest.mark.parametrize("iri, name", [
    ("https://w3id.org/dpv/pd#Health", "Health"),
    ("https://w3id.org/dpv/pd/Health", "Health"),
    ("https://w3id.org/dpv/pd/Health/", "Health"),
    ("https://w3id.org/dpv/pd#Health#", "Health"),
    ("urn:tklscore:pia#ISA", "ISA"),
    ("urn:example:Age", "Age"),
    ("urn:example:Age:", "Age"),
    ("http://example.org/a:b", "a:b"),
    ("Health", "Health"),
])
def test_one_local_name_for_slash_hash_and_colon_endings(iri, name):
    from rdflib import Literal, URIRef

    from tklscore.core.files.rdf import local_name
    from tklscore.core.model.vocabulary import local_name as vocabulary_local_name
    from tklscore.core.pia.facts import local_name as term_local_name

    assert local_name(iri) == vocabulary_local_name(iri) == term_local_name(URIRef(iri)) == name
    assert term_local_name(Literal("a/b#c")) == "a/b#c"
