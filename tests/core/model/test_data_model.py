"""The tkl-Data Model: Table 4.2 derivation, AHP groups, labels, propagation, Turtle round
trip, scoring straight from the model, changes to the source (data-model.md §1-3, §6)."""

import json

import numpy as np
import pytest
from rdflib import RDF, RDFS, Graph

from helpers import run_cli
from tklscore.core import Roles, Scorer, Table, load_weights
from tklscore.core.model.data_model import DSO, Kind, TklDataModel
from tklscore.core.errors import InputError
from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.model.labels import HL7_CONFIDENTIALITY, LabelScale
from tklscore.core.files.resources import resource_path

TABLED_WEIGHTS = {  # data-model.md §3, from the priorities as tabled (0.540, 0.297, 0.163)
    ("Disease", "Flu"): 0.0864, ("Disease", "H1N1"): 0.3456, ("Disease", "Hypertension"): 0.3456,
    ("Disease", "HIV"): 0.432,
    **{("Medication", m): 0.10432 for m in ("Antibiotics", "Paracetamol", "ARV", "Tamiflu", "Statin")},
    ("Age", "[0,30)"): 0.08, ("Age", "[30,inf)"): 0.08,
    ("Initial Diagnosis", "HIV"): 0.19008, ("Initial Diagnosis", "Hypertension"): 0.09504,
    ("Initial Diagnosis", "Flu"): 0.04752, ("Initial Diagnosis", "Migraine"): 0.04752,
}


def weights_of(model):
    return {(a, v): w for a, v, w in model.weight_triples()}


def test_table_4_2_from_the_tabled_priorities():
    weights = weights_of(thesis_model(judgements=False))
    assert weights.keys() == TABLED_WEIGHTS.keys()
    for key, expected in TABLED_WEIGHTS.items():
        assert weights[key] == pytest.approx(expected, abs=1e-9), key


def test_table_4_2_from_the_ahp_judgements():
    model = thesis_model()
    derivation = model.derive()
    groups = {model.nodes[p].label: (r, model.criteria_group(p)) for p, r in derivation.groups.items()}
    assert set(groups) == {"External", "MedicalHealth"}
    result, members = groups["MedicalHealth"]
    priorities = {model.nodes[m].label: p for m, p in zip(members, result.priorities)}
    assert [round(priorities[k], 5) for k in ("Health", "HealthRecord", "Prescription")] == \
        [0.53961, 0.29696, 0.16342]
    assert round(result.cr, 4) == 0.0088
    result, members = groups["External"]
    priorities = {model.nodes[m].label: p for m, p in zip(members, result.priorities)}
    assert priorities["MedicalHealth"] == pytest.approx(0.8) and priorities["PhysicalCharacteristic"] == pytest.approx(0.2)
    assert result.cr == pytest.approx(0.0, abs=1e-12)
    weights = weights_of(model)
    for key, expected in TABLED_WEIGHTS.items():
        assert abs(weights[key] / expected - 1) < 0.003, key
    assert weights[("Medication", "ARV")] == pytest.approx(0.8 * 0.8 * priorities_of(model, "Prescription"))


def priorities_of(model, label):
    return model.derive().priorities[model.find(label).iri]


def test_every_node_priority_as_in_figure_4_8():
    model = thesis_model(judgements=False)
    expected = {"PersonalDataCategory": 1, "External": 1, "PhysicalCharacteristic": 0.2, "MedicalHealth": 0.8,
                "Age": 1, "Health": 0.54, "HealthRecord": 0.297, "Prescription": 0.163,
                "A.Age": 1, "A.Disease": 1, "A.Initial-Diagnosis": 1, "A.Medication": 1,
                "V.LT-30": 0.4, "V.GEQ-30": 0.4, "E.Viral": 0.8, "V-0.H1N1": 0.8, "V-0.HIV": 1.0,
                "V-0.Flu": 0.2, "V-0.Hypertension": 0.8, "V.ARV": 0.8, "V-1.HIV": 0.8,
                "V-1.Hypertension": 0.4, "V-1.Flu": 0.2, "V-1.Migraine": 0.2}
    for label, priority in expected.items():
        assert priorities_of(model, label) == pytest.approx(priority), label


def test_sum_of_each_attributes_largest_weight_is_at_most_one():
    for judgements in (True, False):
        weights = weights_of(thesis_model(judgements))
        largest = {}
        for (attribute, _), w in weights.items():
            largest[attribute] = max(largest.get(attribute, 0), w)
        assert sum(largest.values()) <= 1 + 1e-12


def test_structure_names_and_duplicate_values():
    model = thesis_model()
    kinds = {n.label: n.kind for n in model.nodes.values()}
    assert kinds["PersonalDataCategory"] == Kind.ROOT and kinds["A.Age"] == Kind.ATTRIBUTE
    assert kinds["E.Viral"] == Kind.ELEMENT and kinds["V-1.Migraine"] == Kind.VALUE
    assert model.find("A.Age").continuous and not model.find("A.Disease").continuous
    # Disease and Initial Diagnosis share Flu/HIV/Hypertension: their values are V-0./V-1.
    assert {n.label for n in model.nodes.values() if n.kind == Kind.VALUE and n.column == "Disease"} == \
        {"V-0.H1N1", "V-0.Flu", "V-0.HIV", "V-0.Hypertension"}
    assert model.find("V-0.H1N1").parent == model.find("E.Viral").iri
    assert model.nodes[model.find("A.Disease").parent].label == "Health"
    path = [model.nodes[i].label for i in model.path_to_root(model.find("V-0.HIV").iri)]
    assert path == ["V-0.HIV", "E.Viral", "A.Disease", "Health", "MedicalHealth", "External",
                    "PersonalDataCategory"]


def test_propagation_and_a_first_level_value_without_label():
    model = thesis_model()
    assert priorities_of(model, "V-0.H1N1") == pytest.approx(0.8)  # from E.Viral
    model.set_label(model.find("V-0.Hypertension").iri, None)
    problems = model.problems()
    assert problems == ["first-level value V-0.Hypertension of A.Disease has no label"]
    with pytest.raises(InputError, match="V-0.Hypertension of A.Disease has no label"):
        model.weight_triples()
    model.set_label(model.find("E.Viral").iri, None)
    assert "first-level element E.Viral of A.Disease has no label" in model.problems()


def test_group_without_judgements_and_incomplete_judgements():
    model = thesis_model()
    medical = model.find("MedicalHealth").iri
    health, record, prescription = (model.find(x).iri for x in ("Health", "HealthRecord", "Prescription"))
    model.set_judgement(medical, record, prescription, None)
    result = model.derive().groups[medical]  # two of three judgements: Harker completes the matrix
    assert np.isfinite(result.completed_matrix).all()
    assert result.priorities.sum() == pytest.approx(1.0)
    for pair in ((health, record), (health, prescription)):
        model.set_judgement(medical, *pair, None)
    assert any("MedicalHealth" in p and "needs pairwise judgements" in p for p in model.problems())


def test_several_experts_are_combined_by_geometric_mean():
    model = thesis_model()
    medical = model.find("MedicalHealth").iri
    health, record, prescription = (model.find(x).iri for x in ("Health", "HealthRecord", "Prescription"))
    model.set_judgement(medical, health, record, 8, expert="expert 2")
    model.set_judgement(medical, health, prescription, 3, expert="expert 2")
    model.set_judgement(medical, record, prescription, 2, expert="expert 2")
    derivation = model.derive()
    result = derivation.groups[medical]
    assert result.completed_matrix[0, 1] == pytest.approx(4.0)  # sqrt(2 * 8)
    assert model.experts(medical) == ["expert 1", "expert 2"]
    own = derivation.experts[medical]
    assert round(own["expert 1"].cr, 4) == 0.0088 and own["expert 2"].cr > own["expert 1"].cr
    assert own["expert 2"].priorities[0] > result.priorities[0] > own["expert 1"].priorities[0]


def test_turtle_round_trip_is_lossless(tmp_path):
    model = thesis_model()
    model.set_judgement(model.find("MedicalHealth").iri, model.find("Health").iri, model.find("Prescription").iri,
                        1 / 3, expert="Dr. Ø")
    model.set_scale(LabelScale("custom", HL7_CONFIDENTIALITY.labels[:-1] + (("very restricted", 0.95),)))
    model.set_assigned_priority(model.find("A.Age").iri, 1.0)
    path = tmp_path / "model.ttl"
    model.save(path)
    again = TklDataModel.load(path)
    assert again.state() == model.state()
    assert again.weight_triples() == model.weight_triples()
    again.save(tmp_path / "again.ttl")
    assert TklDataModel.load(tmp_path / "again.ttl").state() == model.state()
    # derived priorities and weights are in the file as dso:hasPriority / dso:hasWeight
    graph = Graph().parse(path)
    weights = {str(graph.value(s, RDFS.label)): float(o) for s, o in graph.subject_objects(DSO.hasWeight)}
    assert weights["V-0.HIV"] == pytest.approx(dict(((a, v), w) for a, v, w in model.weight_triples())[("Disease", "HIV")])


def test_dso_vocabulary_resource():
    graph = Graph().parse(resource_path("dso.ttl"))
    classes = {str(s).split("#")[1] for s in graph.subjects(RDF.type, RDFS.Class)}
    assert classes == {"ContinuousAttribute", "DiscreteAttribute", "Element", "Value"}
    assert (DSO.hasPriority, RDF.type, RDF.Property) in graph and (DSO.hasWeight, RDF.type, RDF.Property) in graph
    assert all(graph.value(s, RDFS.comment) for s in graph.subjects(RDF.type, RDFS.Class))


# ---------------------------------------------------------------- scoring from the model

def test_scenarios_scored_straight_from_the_model():
    """With the tabled priorities only Initial Diagnosis differs from Table 4.2 (erratum 5):
    W(r) of records 3, 4, 5/6 drops by 0.0288, 0.0144, 0.0072."""
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)
    weights = thesis_model(judgements=False).to_weights()
    s1 = scorer.score([3, 4, 5, 6], weights)
    w = np.array([0.83520 - 0.0288, 0.63936 - 0.0144, 0.32544 - 0.0072, 0.32544 - 0.0072])
    np.testing.assert_allclose(s1.records["weight_sum"], w, atol=1e-12)
    assert s1.scores.tkl == pytest.approx(4 * 5 / 7 + w.sum(), abs=1e-12)
    assert s1.scores.l_severity == pytest.approx(w.sum() / 2, abs=1e-12)
    assert s1.scores.m_score == pytest.approx(4 * w.max() / 2, abs=1e-12)
    assert s1.scores.tkl_max == pytest.approx(5 / 7 + w.max(), abs=1e-12)
    s2 = scorer.score(range(7), weights)
    assert s2.scores.tkl == pytest.approx(8.76302 - (5 * 0.0072 + 0.0288 + 0.0144), abs=6e-6)
    assert s2.normalized_source.tkl == pytest.approx(1.0)


def test_cli_scores_with_a_model_and_exports_its_weights(tmp_path, capsys, data_dir):
    model_path = tmp_path / "model.ttl"
    thesis_model().save(model_path)
    code, out, err = run_cli(capsys, ["model", "weights", model_path])
    assert code == 0, err
    (tmp_path / "w.csv").write_text(out)
    exported = load_weights(tmp_path / "w.csv")
    assert sorted((e.attribute, e.value, e.weight) for e in exported.entries) == \
        sorted(thesis_model().weight_triples())
    common = [data_dir / "thesis_table_3_1.csv", "--rows", "3,4,5,6", "--id-column", "id", "--qi",
              "Job,City,Gender", "--sa", "Disease,Medication,Age,Initial Diagnosis", "--continuous", "Age",
              "--format", "json"]
    code, by_model, err = run_cli(capsys, ["score", *common, "--model", model_path])
    assert code == 0, err
    code, by_csv, _ = run_cli(capsys, ["score", *common, "--weights", tmp_path / "w.csv"])
    assert json.loads(by_model)["scores"] == json.loads(by_csv)["scores"]
    code, out, _ = run_cli(capsys, ["model", "weights", model_path, "--format", "json"])
    groups = {g["group"]: g for g in json.loads(out)["groups"]}
    assert round(groups["MedicalHealth"]["cr"], 4) == 0.0088
    assert round(groups["MedicalHealth"]["priorities"]["Health"], 4) == 0.5396


def test_cli_model_errors(tmp_path, capsys):
    bad = tmp_path / "bad.ttl"
    bad.write_text("this is not turtle .")
    code, _, err = run_cli(capsys, ["model", "weights", bad])
    assert code == 2 and str(bad) in err and "cannot be read as turtle at line 1" in err and "Traceback" not in err
    incomplete = thesis_model()
    incomplete.set_label(incomplete.find("V.ARV").iri, None)
    incomplete.save(tmp_path / "incomplete.ttl")
    code, _, err = run_cli(capsys, ["model", "weights", tmp_path / "incomplete.ttl"])
    assert code == 2 and "first-level value V.ARV of A.Medication has no label" in err
    code, _, err = run_cli(capsys, ["model", "weights", tmp_path / "missing.ttl"])
    assert code == 2 and "model file not found" in err


# ---------------------------------------------------------------- editing and bad input

def test_edits_are_checked():
    model = thesis_model()
    with pytest.raises(InputError, match="'urgent' is not a label of the scale 'HL7 confidentiality'"):
        model.set_label(model.find("V.ARV").iri, "urgent")
    with pytest.raises(InputError, match="only values and elements take a label"):
        model.set_label(model.find("A.Disease").iri, "low")
    with pytest.raises(InputError, match="judgement '-2' of 'Health' over 'Prescription' is not positive"):
        model.set_judgement(model.find("MedicalHealth").iri, model.find("Health").iri,
                            model.find("Prescription").iri, -2)
    with pytest.raises(InputError, match="is not a criterion of the group under 'MedicalHealth'"):
        model.set_judgement(model.find("MedicalHealth").iri, model.find("Health").iri, model.find("Age").iri, 2)
    with pytest.raises(InputError, match="can only be aligned under a taxonomy class"):
        model.align("Disease", model.find("V.ARV").iri)
    with pytest.raises(InputError, match="belongs under its attribute or one of its elements"):
        model.move(model.find("V.ARV").iri, model.find("E.Viral").iri)
    with pytest.raises(InputError, match="overlaps bin"):
        model.add_value("Age", "[20,40)")
    with pytest.raises(InputError, match="not a bin such as"):
        model.add_value("Age", "young")
    with pytest.raises(InputError, match="is not ordinal"):
        LabelScale("bad", (("low", 0.5), ("high", 0.2)))
    with pytest.raises(InputError, match="lacks the label"):
        model.set_scale(LabelScale("tiny", (("low", 0.2),)))


def test_unaligned_attribute_and_missing_bins_are_reported():
    model = thesis_model()
    model.add_attribute("Weight", continuous=True)
    problems = model.problems()
    assert "attribute A.Weight is not aligned under a taxonomy class" in problems
    model.align("Weight", model.find("PhysicalCharacteristic").iri)
    problems = model.problems()
    assert "attribute A.Weight has no values (a continuous attribute needs bins)" in problems
    assert any("criteria group under PhysicalCharacteristic (Age, A.Weight) needs pairwise judgements" in p
               for p in problems)


def test_changes_to_the_source_keep_judgements_and_ask_only_for_what_is_new():
    model = thesis_model()
    before = {(a, b): r for experts in model.judgements.values() for t in experts.values() for (a, b), r in t.items()}
    labels_before = {n.label: n.qualitative for n in model.nodes.values() if n.qualitative}
    example = thesis_example()
    frame = example.source.frame.copy()
    frame["Allergy"] = ["None", "Nuts", "None", "Latex", "None", "Nuts", "None"]
    frame.loc[len(frame)] = ["7", "Nurse", "Calgary", "Male", "Measles", "Antibiotics", "41", "Flu", "Nuts"]
    table = Table.from_frame(frame)
    roles = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Medication", "Age", "Initial Diagnosis", "Allergy"],
                  continuous=["Age"], identifier="id")
    changes = model.update_from_table(table, roles)
    assert changes.added_attributes == ["Allergy"]
    assert ("Disease", "Measles") in changes.added_values and not changes.removed_attributes
    after = {(a, b): r for experts in model.judgements.values() for t in experts.values() for (a, b), r in t.items()}
    assert after == before
    assert {n.label: n.qualitative for n in model.nodes.values() if n.qualitative} == labels_before
    assert sorted(model.problems()) == sorted([
        "attribute A.Allergy is not aligned under a taxonomy class",
        "first-level value V-0.Measles of A.Disease has no label",
    ])
    # the expert answers: Measles goes under Viral (inherits restricted), Allergy is aligned and labelled
    model.move(model.find("V-0.Measles").iri, model.find("E.Viral").iri)
    model.align("Allergy", model.find("Health").iri)
    for node in [n for n in model.nodes.values() if n.column == "Allergy" and n.kind == Kind.VALUE]:
        model.set_label(node.iri, "low")
    assert model.problems() == [
        "the criteria group under Health (A.Disease, A.Allergy) needs pairwise judgements"]
    health = model.find("Health").iri
    model.set_judgement(health, model.find("A.Disease").iri, model.find("A.Allergy").iri, 3)
    weights = weights_of(model)
    assert weights[("Disease", "Measles")] == pytest.approx(weights[("Disease", "H1N1")])
    assert weights[("Allergy", "Nuts")] == pytest.approx(0.2 * 0.25 * priorities_of(model, "Health") * 0.8)
    # a sensitive column that is no longer sensitive disappears with its judgements
    roles = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Medication", "Age", "Initial Diagnosis"],
                  continuous=["Age"], identifier="id")
    changes = model.update_from_table(table, roles)
    assert changes.removed_attributes == ["Allergy"]
    assert model.judgements[health] == {"expert 1": {}}
    assert model.problems() == []


def test_example_writes_both_models(tmp_path, capsys, data_dir):
    code, out, err = run_cli(capsys, ["example", "thesis", "--dir", tmp_path])
    assert code == 0, err
    assert TklDataModel.load(tmp_path / "model.ttl").state() == thesis_model().state()
    code, out, err = run_cli(capsys, ["score", tmp_path / "table_3_1.csv", "--published", tmp_path / "table_3_6.csv",
                                      "--id-column", "id", "--qi", "Job,City,Gender", "--sa",
                                      "Disease,Medication,Age,Initial Diagnosis", "--continuous", "Age",
                                      "--model", tmp_path / "model.ttl", "--format", "json"])
    assert code == 0, err
    expected = Scorer(thesis_example().source, thesis_example().roles).score([3, 4, 5, 6], thesis_model().to_weights())
    assert json.loads(out)["scores"]["tkl"] == pytest.approx(expected.scores.tkl, abs=1e-12)
    from tklscore.core.model.lseverity_model import LSeverityModel

    table_3_7 = {(e.attribute, e.value): e.weight
                 for e in load_weights(data_dir / "thesis_table_3_7_lseverity_weights.csv").entries}
    model = LSeverityModel.load(tmp_path / "lseverity_model.ttl")
    assert {(a, v): w for a, v, w in model.weights()} == pytest.approx(table_3_7, abs=1e-12)
