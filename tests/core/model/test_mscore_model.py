"""M-Score's own weights: the three-level AHP tree (spec data-model.md §5, thesis 3.3.1)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tklscore.core.model.ahp import reciprocal_matrix
from tklscore.core.errors import InputError
from tklscore.core.model.mscore_model import MScoreModel, thesis_example_model
from tklscore.core.scoring.weights import Weights

MEDICATIONS = ["ARV", "Tamiflu", "Statin", "Paracetamol", "Antibiotics"]


def test_thesis_statin_oracle():
    """priority(Statin) 0.2 × priority(Medication) 0.5 × priority(Goal) 1 = 0.1."""
    model = thesis_example_model()
    assert model.attribute_priorities() == pytest.approx({"Medication": 0.5, "Age": 0.5})
    assert model.value_priorities("Medication")["Statin"] == pytest.approx(0.2)
    weights = {(a, v): w for a, v, w in model.weights()}
    assert weights[("Medication", "Statin")] == pytest.approx(0.1, abs=1e-12)
    assert all(weights[("Medication", m)] == pytest.approx(0.1) for m in MEDICATIONS)
    assert weights[("Age", "[0,30)")] == pytest.approx(0.25)
    assert sum(weights.values()) == pytest.approx(1.0)


def test_statin_oracle_by_direct_priorities():
    model = MScoreModel({"Medication": MEDICATIONS, "Age": ["[0,30)", "[30,inf)"]})
    model.set_priorities({"Medication": 0.5, "Age": 0.5})
    model.set_priorities([0.3, 0.1, 0.2, 0.2, 0.2], attribute="Medication")
    model.set_priorities([1, 3], attribute="Age", normalize=True)
    weights = {(a, v): w for a, v, w in model.weights()}
    assert weights[("Medication", "Statin")] == pytest.approx(0.1)
    assert weights[("Medication", "ARV")] == pytest.approx(0.15)
    assert weights[("Age", "[30,inf)")] == pytest.approx(0.375)


def test_ahp_levels_and_to_weights():
    """Attributes judged with thesis Table 4.1, Disease's values with named judgements."""
    model = MScoreModel({"Disease": ["Flu", "H1N1", "HIV"], "Medication": ["ARV", "Statin"], "Age": ["[0,120)"]})
    r = model.set_attribute_judgements([[1, 2, 3], [1 / 2, 1, 2], [1 / 3, 1 / 2, 1]])
    assert round(r.cr, 4) == 0.0088 and model.results[None] is r
    model.set_value_judgements("Disease", {("HIV", "Flu"): 6, ("HIV", "H1N1"): 3, ("H1N1", "Flu"): 2})
    model.set_value_judgements("Medication", [[1, 4], [1 / 4, 1]])
    assert model.value_priorities("Disease") == pytest.approx({"Flu": 1 / 9, "H1N1": 2 / 9, "HIV": 6 / 9})
    assert model.value_priorities("Age") == {"[0,120)": 1.0}  # a single value: priority 1
    weights = model.to_weights()
    assert isinstance(weights, Weights) and len(weights.entries) == 6
    by_pair = {(e.attribute, e.value): e.weight for e in weights.entries}
    assert by_pair[("Disease", "HIV")] == pytest.approx(6 / 9 * 0.53961455, rel=1e-7)
    assert by_pair[("Medication", "ARV")] == pytest.approx(0.8 * 0.29696133, rel=1e-7)
    assert by_pair[("Age", "[0,120)")] == pytest.approx(0.16342412, rel=1e-7)
    assert weights.weights_of("Age", np.array([10.0, 50.0]), continuous=True) == pytest.approx([0.16342412] * 2)
    assert model.inconsistent() == {}


def test_incomplete_judgements_and_inconsistency_report():
    model = MScoreModel({"A": ["x"], "B": ["y"], "C": ["z"], "D": ["w"]})
    r = model.set_attribute_judgements(reciprocal_matrix(4, {(0, 1): 2, (1, 2): 3, (2, 3): 2}))
    assert model.attribute_priorities() == pytest.approx({"A": 12 / 21, "B": 6 / 21, "C": 2 / 21, "D": 1 / 21})
    assert r.cr == pytest.approx(0, abs=1e-12)
    model.set_attribute_judgements([[1, 2, 1 / 4, 1 / 8], [1 / 2, 1, 2, 4], [4, 1 / 2, 1, 2], [8, 1 / 4, 1 / 2, 1]])
    assert list(model.inconsistent()) == [None]


def test_bad_input():
    with pytest.raises(InputError, match="at least one"):
        MScoreModel({})
    with pytest.raises(InputError, match="no values"):
        MScoreModel({"A": []})
    with pytest.raises(InputError, match="'x' twice"):
        MScoreModel({"A": ["x", "x"]})
    model = MScoreModel({"Medication": MEDICATIONS, "Age": ["young", "old"]})
    with pytest.raises(InputError, match=r"no priorities yet for the attributes, the values of 'Medication'"):
        model.weights()
    with pytest.raises(InputError, match="unknown attribute 'Disease'"):
        model.set_value_judgements("Disease", [[1]])
    with pytest.raises(InputError, match="sum to 0.9, not 1"):
        model.set_priorities({"Medication": 0.5, "Age": 0.4})
    with pytest.raises(InputError, match="missing: 'Age'"):
        model.set_priorities({"Medication": 1.0})
    with pytest.raises(InputError, match="priority of 'Age' is -0.5"):
        model.set_priorities([1.5, -0.5])
    with pytest.raises(InputError, match="3 priorities for 2"):
        model.set_priorities([0.2, 0.3, 0.5])
    with pytest.raises(InputError, match=r"judgements of the values of 'Age'.*reciprocal"):
        model.set_value_judgements("Age", [[1, 3], [1 / 2, 1]])
    with pytest.raises(InputError, match="'Aspirin'.*not one of the values of 'Medication'"):
        model.set_value_judgements("Medication", {("Aspirin", "ARV"): 3})
    with pytest.raises(InputError, match="do not connect"):
        model.set_value_judgements("Medication", {("ARV", "Statin"): 3})


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=5), st.data())
def test_weights_are_path_products_and_sum_to_one(sizes, data):
    attributes = {f"A{k}": [f"v{j}" for j in range(size)] for k, size in enumerate(sizes)}
    model = MScoreModel(attributes)
    saaty = st.sampled_from([1 / 9, 1 / 5, 1 / 3, 1, 2, 3, 7])

    def matrix(n):
        return reciprocal_matrix(n, {(i, j): data.draw(saaty) for i in range(n) for j in range(i + 1, n)})

    model.set_attribute_judgements(matrix(len(sizes)))
    for attribute, values in attributes.items():
        model.set_value_judgements(attribute, matrix(len(values)))
    top = model.attribute_priorities()
    triples = model.weights()
    assert sum(w for _, _, w in triples) == pytest.approx(1.0)
    for attribute, value, weight in triples:
        assert 0 < weight <= 1
        assert weight == pytest.approx(top[attribute] * model.value_priorities(attribute)[value])
    model.to_weights()  # valid for Weights
