"""TklDataModel.realign: re-extract the taxonomy after a column is aligned with another
class, keeping every judgement, label and element that still applies (data-model.md §1)."""

import pytest

from tklscore.core.model.data_model import Kind
from tklscore.core.errors import InputError
from tklscore.core.examples import thesis_model
from tklscore.core.model.vocabulary import Vocabulary

DPV = "http://www.w3.org/ns/dpv#"


@pytest.fixture(scope="module")
def vocabulary():
    return Vocabulary.builtin_thesis()


def upper(model):
    return {model.nodes[i].label: (model.nodes[model.nodes[i].parent].label if model.nodes[i].parent else None)
            for i in model.nodes if model.nodes[i].kind in (Kind.ROOT, Kind.TAXONOMY, Kind.ATTRIBUTE)}


def test_realign_without_change_keeps_the_model_exactly(vocabulary):
    model = thesis_model()
    before = model.state()
    result = model.realign(vocabulary)
    assert model.state() == before
    assert [c.node for c in result.conflicts] == [DPV + "MedicalHealth"]
    assert result.taxonomy.removed_nodes == [DPV + "SpecialCategoryPersonalData"]
    assert result.added == result.dropped == result.forgotten == []


def test_alignment_lists_each_aligned_column(vocabulary):
    assert thesis_model().alignment() == {"Disease": DPV + "Health", "Medication": DPV + "Prescription",
                                          "Age": DPV + "Age", "Initial Diagnosis": DPV + "HealthRecord"}


def test_realign_prunes_the_class_left_without_columns_and_keeps_what_applies(vocabulary):
    model = thesis_model()
    weights_before = model.derive().weights
    labels_before = {n.label: n.qualitative for n in model.nodes.values() if n.kind in (Kind.ELEMENT, Kind.VALUE)}
    result = model.realign(vocabulary, "Initial Diagnosis", "Health")
    tree = upper(model)
    assert "HealthRecord" not in tree
    assert result.dropped == [DPV + "HealthRecord"] and result.added == []
    assert sorted(result.forgotten) == sorted([
        (DPV + "MedicalHealth", DPV + "Health", DPV + "HealthRecord"),
        (DPV + "MedicalHealth", DPV + "HealthRecord", DPV + "Prescription")])
    assert tree["A.Initial-Diagnosis"] == "Health" and tree["A.Disease"] == "Health"
    # External's group is untouched: its judgement stays; MedicalHealth keeps Health vs Prescription
    assert model.judgements[DPV + "External"]["expert 1"] == {(DPV + "PhysicalCharacteristic", DPV + "MedicalHealth"): 0.25}
    assert model.judgements[DPV + "MedicalHealth"]["expert 1"] == {(DPV + "Health", DPV + "Prescription"): 3.0}
    assert {n.label: n.qualitative for n in model.nodes.values()
            if n.kind in (Kind.ELEMENT, Kind.VALUE)} == labels_before
    assert model.find("V-0.HIV").parent == model.find("E.Viral").iri
    derivation = model.derive()
    assert derivation.problems == [("the criteria group under Health (A.Disease, A.Initial-Diagnosis) "
                                    "needs pairwise judgements")]
    # untouched groups give the same priorities as before: Age's weights are unchanged
    assert derivation.priorities[DPV + "PhysicalCharacteristic"] == pytest.approx(0.2)
    assert derivation.priorities[DPV + "Health"] == pytest.approx(0.75)
    age = model.find("V.LT-30").iri
    model.set_judgement(DPV + "Health", model.find("A.Disease").iri, model.find("A.Initial-Diagnosis").iri, 1)
    assert model.derive().weights[age] == pytest.approx(weights_before[age])


def test_realign_onto_an_inner_class_and_back(vocabulary):
    model = thesis_model()
    before = model.state()
    model.realign(vocabulary, "Disease", "MedicalHealth")
    assert upper(model)["A.Disease"] == "MedicalHealth"
    assert "Health" not in upper(model)
    result = model.realign(vocabulary, "Disease", DPV + "Health")
    assert result.added == [DPV + "Health"]
    assert upper(model) == upper(thesis_model())
    # the judgements that named Health are gone and must be given again
    assert model.state() != before
    assert model.judgements[DPV + "MedicalHealth"]["expert 1"] == {(DPV + "HealthRecord", DPV + "Prescription"): 2.0}
    assert any(p.startswith("the criteria group under MedicalHealth") for p in model.derive().problems)


def test_keep_parent_chooses_the_other_parent_and_the_choice_is_kept(vocabulary):
    model = thesis_model()
    taxonomy = model.realign(vocabulary, keep_parent={"MedicalHealth": "SpecialCategoryPersonalData"}).taxonomy
    assert taxonomy.conflicts[0].kept == DPV + "SpecialCategoryPersonalData"
    assert taxonomy.conflicts[0].rule == "user"
    tree = upper(model)
    assert tree["MedicalHealth"] == "SpecialCategoryPersonalData"
    assert tree["SpecialCategoryPersonalData"] == "PersonalDataCategory"
    assert tree["External"] == "PersonalDataCategory"
    # External now has one criterion; the judgement between PhysicalCharacteristic and
    # MedicalHealth no longer applies
    assert (DPV + "PhysicalCharacteristic", DPV + "MedicalHealth") not in \
        model.judgements.get(DPV + "External", {}).get("expert 1", {})
    # a later re-alignment keeps the model's own choice instead of the automatic one
    model.realign(vocabulary, "Age", "Age")
    assert upper(model)["MedicalHealth"] == "SpecialCategoryPersonalData"
    # ...unless asked not to
    model.realign(vocabulary, keep_current=False)
    assert upper(model)["MedicalHealth"] == "External"


def test_realign_errors_change_nothing_in_a_copy(vocabulary):
    model = thesis_model()
    with pytest.raises(InputError, match="no attribute for column"):
        model.copy().realign(vocabulary, "Job", "Health")
    with pytest.raises(InputError, match="no class"):
        model.copy().realign(vocabulary, "Disease", "NoSuchClass")
    other = Vocabulary.from_rdf(__import__("rdflib").Graph())
    with pytest.raises(InputError, match="aligned under 'Health'"):
        model.copy().realign(other)


def test_realign_with_another_release_of_the_vocabulary_renames_classes_and_keeps_judgements():
    import rdflib

    text = """@prefix pd: <https://w3id.org/dpv/dpv-pd#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
pd:PersonalDataCategory a rdfs:Class .
pd:External rdfs:subClassOf pd:PersonalDataCategory .
pd:MedicalHealth rdfs:subClassOf pd:External .
pd:Health rdfs:subClassOf pd:MedicalHealth .
pd:HealthRecord rdfs:subClassOf pd:MedicalHealth .
pd:Prescription rdfs:subClassOf pd:MedicalHealth .
pd:PhysicalCharacteristic rdfs:subClassOf pd:External .
pd:Age rdfs:subClassOf pd:PhysicalCharacteristic .
"""
    other = Vocabulary.from_rdf(rdflib.Graph().parse(data=text, format="turtle"))
    model = thesis_model()
    weights = {(c, v): round(w, 12) for c, v, w in model.weight_triples()}
    result = model.realign(other)
    pd = "https://w3id.org/dpv/dpv-pd#"
    assert result.renamed[DPV + "Health"] == pd + "Health" and len(result.renamed) == 8
    assert model.root == pd + "PersonalDataCategory"
    assert model.find("A.Disease").parent == pd + "Health"
    assert model.judgements[pd + "MedicalHealth"]["expert 1"][(pd + "Health", pd + "HealthRecord")] == 2
    assert {(c, v): round(w, 12) for c, v, w in model.weight_triples()} == weights
