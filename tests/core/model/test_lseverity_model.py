"""L-Severity's own weight model (Vavilis et al., thesis 3.3.4-3.3.5, data-model.md §5):
Table 3.7 from the model, Algorithm 1, propagation, cycles, Turtle round trip, scoring."""

import csv
import math

import numpy as np
import pytest

from tklscore.core import InputError, Scorer, Weights, locate_by_ids
from tklscore.core.examples import thesis_example
from tklscore.core.model.lseverity_model import (
    LSeverityModel,
    load_lseverity_model,
    thesis_lseverity_model,
    write_thesis_lseverity_model,
)


@pytest.fixture(scope="module")
def table_3_7(data_dir):
    with open(data_dir / "thesis_table_3_7_lseverity_weights.csv", newline="", encoding="utf-8") as handle:
        return [(r["attribute"], r["value"], float(r["weight"])) for r in csv.DictReader(handle)]


@pytest.fixture
def thesis():
    return thesis_lseverity_model()


def small_model() -> LSeverityModel:
    model = LSeverityModel("small")
    model.add_type("Disease")
    model.add_type("Medication")
    model.add_instance("Disease", "Flu")
    model.add_instance("Disease", "HIV")
    model.add_instance("Medication", "Paracetamol")
    model.set_sensitivity("Disease", 0.2)
    model.set_sensitivity("Medication", 0.1)
    return model


# ---------------------------------------------------------------- Table 3.7
def test_table_3_7_row_by_row(thesis, table_3_7):
    assert len(table_3_7) == 15
    computed = thesis.weights()
    assert [(a, v) for a, v, _ in computed] == [(a, v) for a, v, _ in table_3_7]
    for (attribute, value, weight), (_, _, expected) in zip(computed, table_3_7):
        assert weight == pytest.approx(expected, abs=1e-12), f"{attribute}={value}"


def test_to_weights_is_table_3_7(thesis, table_3_7):
    weights = thesis.to_weights()
    assert isinstance(weights, Weights)
    by_pair = {(e.attribute, e.value): e.weight for e in weights.entries}
    assert len(by_pair) == len(table_3_7)
    for attribute, value, expected in table_3_7:
        assert by_pair[(attribute, value)] == pytest.approx(expected, abs=1e-12)
    # the Age bins are intervals the scoring core understands (27 → [0,30), 49 → [30,inf))
    assert weights.weights_of("Age", np.array([19.0, 27.0, 49.0, 70.0]), True).tolist() == \
        pytest.approx([0.1] * 4, abs=1e-12)


def test_paracetamol_oracle(thesis):
    # max(0.4·w(Flu) + 0.1·w(HIV), 0.1) = max(0.04 + 0.1, 0.1)
    assert thesis.weight("Medication", "Paracetamol") == pytest.approx(0.14, abs=1e-12)
    assert thesis.sensitivity(("Medication", "Paracetamol")) == (0.1, "Medication=Paracetamol")
    text = thesis.explain("Medication", "Paracetamol")
    assert "max(inference sum 0.14, sensitivity 0.1)" in text
    assert "the inference sum wins" in text
    assert "0.4 × weight(Disease=Flu) 0.1 + 0.1 × weight(Disease=HIV) 1 = 0.04 + 0.1 = 0.14" in text


def test_tamiflu_oracle(thesis):
    # max(0.9·w(H1N1), 0.5) = max(0.36, 0.5)
    assert thesis.weight("Medication", "Tamiflu") == 0.5
    assert ((("Medication", "Tamiflu"), ("Disease", "H1N1"), 0.9)) in thesis.inferences()
    text = thesis.explain("Medication", "Tamiflu")
    assert "max(inference sum 0.36, sensitivity 0.5)" in text and "the sensitivity value wins" in text


def test_hiv_oracle_by_propagation(thesis):
    assert ("Disease", "HIV") not in thesis.sensitivities()  # no value of its own
    assert thesis.sensitivity(("Disease", "HIV")) == (1.0, "Disease")
    assert thesis.weight("Disease", "HIV") == 1.0
    assert "propagated from data type 'Disease': Disease → Viral → HIV" in thesis.explain("Disease", "HIV")
    # the same label under another column is another instance
    assert thesis.weight("Initial Diagnosis", "HIV") == 0.4


# ---------------------------------------------------------------- propagation and Algorithm 1
def test_propagation_from_types_nearest_ancestor_wins():
    model = LSeverityModel()
    model.add_type("Health")
    model.add_type("Disease", parent="Health")
    model.add_type("Viral", parent="Disease")
    model.add_instance("Disease", "HIV", parent_type="Viral")
    model.add_instance("Disease", "Hypertension")
    model.set_sensitivity("Health", 0.3)
    assert {(a, v): w for a, v, w in model.weights()} == {("Disease", "HIV"): 0.3,
                                                          ("Disease", "Hypertension"): 0.3}
    model.set_sensitivity("Viral", 0.9)
    assert model.weight("Disease", "HIV") == 0.9 and model.weight("Disease", "Hypertension") == 0.3
    model.set_sensitivity(("Disease", "HIV"), 0.5)  # its own value beats every ancestor's
    assert model.weight("Disease", "HIV") == 0.5
    model.set_sensitivity(("Disease", "HIV"), None)  # removed: inherits again
    assert model.sensitivity(("Disease", "HIV")) == (0.9, "Viral")


def test_algorithm_1_chains_in_dependency_order():
    # a → b → c: w(c) = 0.8, w(b) = max(0.5·0.8, 0.1) = 0.4, w(a) = max(0.5·0.4 + 1·0.8, 0) = 1.0
    model = LSeverityModel()
    model.add_type("X")
    for value in ("a", "b", "c"):
        model.add_instance("X", value)
    model.set_sensitivity("X", 0.0)
    model.set_sensitivity(("X", "b"), 0.1)
    model.set_sensitivity(("X", "c"), 0.8)
    model.add_inference(("X", "a"), ("X", "b"), 0.5)  # added before b's own edge exists
    model.add_inference(("X", "b"), ("X", "c"), 0.5)
    model.add_inference(("X", "a"), ("X", "c"), 1.0)
    assert model.weights() == [("X", "a", pytest.approx(1.0, abs=1e-12)), ("X", "b", pytest.approx(0.4)),
                               ("X", "c", 0.8)]


def test_weight_above_one_is_kept_but_refused_for_scoring():
    model = small_model()
    model.set_sensitivity(("Disease", "HIV"), 1.0)
    model.set_sensitivity(("Disease", "Flu"), 1.0)
    model.add_inference(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.7)
    model.add_inference(("Medication", "Paracetamol"), ("Disease", "HIV"), 0.6)
    assert model.weight("Medication", "Paracetamol") == pytest.approx(1.3)
    with pytest.raises(InputError, match=r"Medication=Paracetamol is 1\.3, above 1"):
        model.to_weights()


# ---------------------------------------------------------------- cycles
def test_two_cycle_is_refused_and_named():
    model = small_model()
    model.add_inference(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.4)
    with pytest.raises(InputError) as caught:
        model.add_inference(("Disease", "Flu"), ("Medication", "Paracetamol"), 0.2)
    assert "inference cycle: Disease=Flu → Medication=Paracetamol → Disease=Flu" in str(caught.value)
    # the refused edge was not added: Paracetamol = max(0.4 · 0.2, 0.1), Flu = 0.2
    assert model.inferences() == [(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.4)]
    assert model.weights() == [("Disease", "Flu", 0.2), ("Disease", "HIV", 0.2),
                               ("Medication", "Paracetamol", 0.1)]


def test_three_cycle_is_refused_and_named():
    model = small_model()
    model.add_inference(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.4)
    model.add_inference(("Disease", "Flu"), ("Disease", "HIV"), 0.3)
    with pytest.raises(InputError) as caught:
        model.add_inference(("Disease", "HIV"), ("Medication", "Paracetamol"), 0.1)
    assert str(caught.value).startswith(
        "inference cycle: Disease=HIV → Medication=Paracetamol → Disease=Flu → Disease=HIV")


def test_self_inference_is_a_cycle():
    model = small_model()
    with pytest.raises(InputError, match="inference cycle: Disease=Flu → Disease=Flu"):
        model.add_inference(("Disease", "Flu"), ("Disease", "Flu"), 0.5)


def test_cycle_in_a_file_names_file_and_cycle(tmp_path):
    path = tmp_path / "cycle.ttl"
    path.write_text(PREFIXES + """
m: a ls:Model .
m:t a ls:DataType ; ls:name "Medication" ; ls:sensitivity 0.1 .
m:d a ls:DataType ; ls:name "Disease" ; ls:sensitivity 0.1 .
m:p a ls:DataInstance ; ls:attribute "Medication" ; ls:value "Paracetamol" .
m:f a ls:DataInstance ; ls:attribute "Disease" ; ls:value "Flu" .
m:e1 a ls:Inference ; ls:source m:p ; ls:target m:f ; ls:inferenceValue 0.4 ; ls:position 0 .
m:e2 a ls:Inference ; ls:source m:f ; ls:target m:p ; ls:inferenceValue 0.4 ; ls:position 1 .
""", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        LSeverityModel.load(path)
    message = str(caught.value)
    assert str(path) in message and "m/e2" in message
    assert "inference cycle: Disease=Flu → Medication=Paracetamol → Disease=Flu" in message


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("value", [-0.1, 1.5, math.nan, math.inf, "0.5", True])
def test_sensitivity_outside_unit_interval(value):
    model = small_model()
    with pytest.raises(InputError, match="sensitivity value of Disease=Flu"):
        model.set_sensitivity(("Disease", "Flu"), value)


@pytest.mark.parametrize("value", [-0.01, 1.01, math.nan])
def test_inference_value_outside_unit_interval(value):
    model = small_model()
    with pytest.raises(InputError, match="inference value of Medication=Paracetamol → Disease=Flu"):
        model.add_inference(("Medication", "Paracetamol"), ("Disease", "Flu"), value)


def test_inference_to_unknown_instance():
    model = small_model()
    with pytest.raises(InputError, match="unknown data instance Disease=Malaria"):
        model.add_inference(("Medication", "Paracetamol"), ("Disease", "Malaria"), 0.5)
    with pytest.raises(InputError, match="unknown data instance Initial Diagnosis=Flu"):
        model.add_inference(("Initial Diagnosis", "Flu"), ("Disease", "Flu"), 0.5)


def test_instance_without_sensitivity_on_its_path():
    model = LSeverityModel()
    model.add_type("Disease")
    model.add_type("Viral", parent="Disease")
    model.add_type("Age")
    model.add_instance("Disease", "HIV", parent_type="Viral")
    model.add_instance("Age", "[0,30)")
    model.set_sensitivity("Age", 0.1)
    with pytest.raises(InputError) as caught:
        model.weights()
    assert str(caught.value).startswith("1 data instance(s) have no sensitivity value")
    assert "Disease=HIV (path Disease → Viral → HIV)" in str(caught.value)
    assert model.weight("Age", "[0,30)") == 0.1  # unaffected instances still compute
    with pytest.raises(InputError, match="Disease=HIV"):
        model.explain("Disease", "HIV")
    with pytest.raises(InputError, match="Disease=HIV"):
        model.to_weights()


def test_structural_mistakes():
    model = small_model()
    with pytest.raises(InputError, match="unknown data type 'Diseas'"):
        model.add_instance("Diseas", "Flu")
    with pytest.raises(InputError, match="data instance Disease=Flu already exists"):
        model.add_instance("Disease", "Flu")
    with pytest.raises(InputError, match="data type 'Disease' already exists"):
        model.add_type("Disease")
    with pytest.raises(InputError, match="unknown data type 'Nowhere'"):
        model.add_type("Viral", parent="Nowhere")
    with pytest.raises(InputError, match="not 'Disease' nor a generalisation below it"):
        model.add_instance("Disease", "Aspirin", parent_type="Medication")
    with pytest.raises(InputError, match="is not text"):
        model.add_instance("Disease", 27)
    model.add_inference(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.4)
    with pytest.raises(InputError, match="already exists"):
        model.add_inference(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.5)
    model.add_inference(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.5, replace=True)
    assert model.inferences() == [(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.5)]


# ---------------------------------------------------------------- Turtle
PREFIXES = """@prefix ls: <https://tklscore.org/ns/lseverity#> .
@prefix m: <https://example.org/m/> .
"""


def test_round_trip_is_lossless(tmp_path, thesis):
    path = write_thesis_lseverity_model(tmp_path / "model.ttl")
    assert path == tmp_path / "model.ttl" and not list(tmp_path.glob(".*.tmp"))
    loaded = LSeverityModel.load(path)
    assert loaded == thesis
    assert loaded.structure() == thesis.structure()
    assert loaded.types() == thesis.types()
    assert loaded.instances() == thesis.instances()
    assert loaded.sensitivities() == thesis.sensitivities()
    assert loaded.inferences() == thesis.inferences()
    assert loaded.weights() == thesis.weights()
    assert (loaded.name, loaded.namespace) == (thesis.name, thesis.namespace)
    assert "https://tklscore.org/ns/lseverity#" in path.read_text(encoding="utf-8")
    # saving the loaded model writes the same triples again
    loaded.save(tmp_path / "again.ttl")
    from rdflib import Graph
    from rdflib.compare import isomorphic
    assert isomorphic(Graph().parse(path), Graph().parse(tmp_path / "again.ttl"))


def test_round_trip_keeps_awkward_names_and_exact_floats(tmp_path):
    model = LSeverityModel("awkward")
    model.add_type("Initial Diagnosis / ICD-10")
    model.add_type("Über \"type\" #1", parent="Initial Diagnosis / ICD-10")
    model.add_instance("Initial Diagnosis / ICD-10", "[0,30)", parent_type="Über \"type\" #1")
    model.add_instance("Initial Diagnosis / ICD-10", "")
    model.add_instance("Initial Diagnosis / ICD-10", "a/b c%20")
    model.set_sensitivity("Initial Diagnosis / ICD-10", 0.1 + 0.2)
    model.set_sensitivity(("Initial Diagnosis / ICD-10", ""), 1 / 3)
    model.add_inference(("Initial Diagnosis / ICD-10", "a/b c%20"), ("Initial Diagnosis / ICD-10", ""), 1e-17)
    loaded = load_lseverity_model(model.save(tmp_path / "awkward.ttl"))
    assert loaded == model
    assert loaded.weights() == model.weights()
    assert loaded.sensitivities()["Initial Diagnosis / ICD-10"] == 0.1 + 0.2


def test_write_into_a_folder(tmp_path):
    path = write_thesis_lseverity_model(tmp_path)
    assert path.parent == tmp_path and path.suffix == ".ttl"
    assert LSeverityModel.load(path) == thesis_lseverity_model()


def test_hand_written_file_with_blank_nodes(tmp_path):
    path = tmp_path / "hand.ttl"
    path.write_text(PREFIXES + """
[] a ls:Model .
_:disease a ls:DataType ; ls:name "Disease" ; ls:sensitivity 1 .
_:hiv a ls:DataInstance ; ls:attribute "Disease" ; ls:value "HIV" .
_:flu a ls:DataInstance ; ls:attribute "Disease" ; ls:value "Flu" ; ls:sensitivity "0.1"^^<http://www.w3.org/2001/XMLSchema#double> .
[] a ls:Inference ; ls:source _:flu ; ls:target _:hiv ; ls:inferenceValue 0.25 .
""", encoding="utf-8")
    model = LSeverityModel.load(path)
    assert sorted(model.weights()) == [("Disease", "Flu", 0.25), ("Disease", "HIV", 1.0)]


def test_unparseable_file(tmp_path):
    path = tmp_path / "broken.ttl"
    path.write_text("this is not @@ turtle <<<", encoding="utf-8")
    with pytest.raises(InputError, match="cannot be read as turtle at line 1") as caught:
        LSeverityModel.load(path)
    assert str(path) in str(caught.value)
    with pytest.raises(InputError, match="not found"):
        LSeverityModel.load(tmp_path / "missing.ttl")
    with pytest.raises(InputError, match="is a folder"):
        LSeverityModel.load(tmp_path)


DISEASE = 'm: a ls:Model .\nm:t a ls:DataType ; ls:name "Disease" .\n'
HIERARCHY_CYCLE = ('m: a ls:Model .\nm:a a ls:DataType ; ls:name "A" ; ls:parent m:b .\n'
                   'm:b a ls:DataType ; ls:name "B" ; ls:parent m:a .')
FLU = DISEASE + 'm:i a ls:DataInstance ; ls:attribute "Disease" ; ls:value "Flu" .\n'


@pytest.mark.parametrize("body,expected", [
    ("", "holds 0 ls:Model nodes"),
    ("m: a ls:Model .\nm:t a ls:DataType .", "node <https://example.org/m/t>: lacks ls:name"),
    (DISEASE + 'm:i a ls:DataInstance ; ls:attribute "Disease" .', "node <https://example.org/m/i>: lacks ls:value"),
    (DISEASE + 'm:i a ls:DataInstance ; ls:attribute "Disease" ; ls:value "Flu" ; ls:sensitivity "high" .',
     'node <https://example.org/m/i>: ls:sensitivity "high" is not a number'),
    (DISEASE + 'm:i a ls:DataInstance ; ls:attribute "Disease" ; ls:value "Flu" ; ls:sensitivity 1.5 .',
     "node <https://example.org/m/i>: the sensitivity value of Disease=Flu 1.5 is outside"),
    (FLU + "m:e a ls:Inference ; ls:source m:i ; ls:target m:nowhere ; ls:inferenceValue 0.5 .",
     "node <https://example.org/m/e>: ls:target <https://example.org/m/nowhere> is not an ls:DataInstance"),
    (FLU + "m:e a ls:Inference ; ls:source m:i ; ls:target m:i .",
     "node <https://example.org/m/e>: lacks ls:inferenceValue"),
    (FLU + 'm:x a ls:DataType ; ls:name "A" ; ls:name "B" .',
     "node <https://example.org/m/x>: has 2 values for ls:name"),
    ('m: a ls:Model .\nm:i a ls:DataInstance ; ls:attribute "Disease" ; ls:value "Flu" .',
     "node <https://example.org/m/i>: unknown data type 'Disease'"),
    (HIERARCHY_CYCLE, "data type hierarchy cycle: "),
])
def test_file_missing_required_triples(tmp_path, body, expected):
    path = tmp_path / "bad.ttl"
    path.write_text(PREFIXES + body + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        LSeverityModel.load(path)
    assert str(path) in str(caught.value)
    assert expected in str(caught.value)


# ---------------------------------------------------------------- scoring with the model's weights
@pytest.fixture(scope="module")
def scored():
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)
    weights = thesis_lseverity_model().to_weights()
    scenario_1 = scorer.score(locate_by_ids(example.source, example.published_ids, "id"), weights)
    scenario_2 = scorer.score(np.arange(len(example.source)), weights)
    return scenario_1, scenario_2


def test_scenario_l_severity_with_table_3_7(scored):
    # scoring.md erratum 4: by the definition 2.84 and 4.89 (the thesis prints 4.43 and 7.43)
    scenario_1, scenario_2 = scored
    assert scenario_1.records["id"].tolist() == ["3", "4", "5", "6"]
    assert scenario_1.records["l_severity"].tolist() == pytest.approx([1.25, 0.95, 0.32, 0.32], abs=1e-12)
    assert scenario_1.scores.l_severity == pytest.approx(2.84, abs=1e-12)
    assert scenario_2.scores.l_severity == pytest.approx(4.89, abs=1e-12)


def test_scenario_m_score_with_table_3_7(scored):
    scenario_1, scenario_2 = scored
    assert scenario_1.scores.m_score == pytest.approx(2.0, abs=1e-12)
    assert scenario_1.scores.m_score_inf == pytest.approx(0.5, abs=1e-12)
    assert scenario_2.scores.m_score == pytest.approx(7.0, abs=1e-12)
    assert scenario_2.scores.m_score_inf == pytest.approx(1.0, abs=1e-12)


def test_cycle_guard_at_evaluation_time():
    """add_inference refuses cycles; should one reach the graph anyway, weights() names
    it instead of looping."""
    model = small_model()
    model.add_inference(("Medication", "Paracetamol"), ("Disease", "Flu"), 0.4)
    model._inference.add_edge(("instance", "Disease", "Flu"), ("instance", "Medication", "Paracetamol"), value=0.2)
    with pytest.raises(InputError, match=r"inference cycle: (Medication=Paracetamol → Disease=Flu → "
                                         r"Medication=Paracetamol|Disease=Flu → Medication=Paracetamol → "
                                         r"Disease=Flu)"):
        model.weights()


def test_long_inference_chain_needs_no_recursion():
    # 3000 instances v0 → v1 → … → v2999, each IV 1: every weight is the last one's 0.7
    model = LSeverityModel()
    model.add_type("X")
    model.set_sensitivity("X", 0.0)
    for i in range(3000):
        model.add_instance("X", f"v{i}")
    model.set_sensitivity(("X", "v2999"), 0.7)
    for i in range(2999):
        model.add_inference(("X", f"v{i}"), ("X", f"v{i + 1}"), 1.0)
    assert {w for _, _, w in model.weights()} == {0.7}
    assert model.weight("X", "v0") == 0.7
