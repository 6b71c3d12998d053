"""explain_record against the thesis example (spec scoring.md oracles)."""

import numpy as np
import pytest

from tklscore.core.examples import thesis_example
from tklscore.core.scoring.explain import ORDERED_EMD, VARIATIONAL, explain_record
from tklscore.core.tables.roles import Roles
from tklscore.core.scoring.scores import Scorer


@pytest.fixture(scope="module")
def thesis():
    example = thesis_example()
    return Scorer(example.source, example.roles), example.weights


def test_record_0_medication_distance(thesis):
    scorer, weights = thesis
    explanation = explain_record(scorer, weights, 0)
    assert explanation.class_ids == ["0"]
    assert explanation.k == 1 and explanation.l == 1
    by_name = {s.attribute: s for s in explanation.sensitive}
    assert by_name["Medication"].distance == pytest.approx(0.85714, abs=5e-6)
    assert by_name["Medication"].measure == VARIATIONAL
    assert by_name["Disease"].distance == pytest.approx(0.7143, abs=5e-5)
    assert by_name["Age"].measure == ORDERED_EMD
    assert by_name["Age"].distance == pytest.approx(2 / 7)  # erratum 3: 0.2857 for row 0's class
    assert explanation.t == pytest.approx(0.85714, abs=5e-6)
    assert explanation.t_attribute == "Medication"
    assert explanation.weight_sum == pytest.approx(0.58464, abs=5e-6)


def test_record_3_class_and_weights(thesis):
    scorer, weights = thesis
    explanation = explain_record(scorer, weights, 3)
    assert explanation.class_ids == ["3", "4"]
    assert list(explanation.class_positions) == [3, 4]
    assert explanation.weight_sum == pytest.approx(0.83520, abs=5e-6)
    assert sum(s.weight for s in explanation.sensitive) == pytest.approx(explanation.weight_sum)
    disease = next(s for s in explanation.sensitive if s.attribute == "Disease")
    assert disease.class_counts.sum() == 2 and disease.table_counts.sum() == 7
    assert disease.class_distribution.sum() == pytest.approx(1.0)
    assert len(disease.rows()) == int((disease.class_counts > 0).sum())
    assert explanation.quasi_identifiers.keys() == {"Job", "City", "Gender"}


def test_consistent_with_scorer(thesis):
    scorer, weights = thesis
    factors = scorer.factors
    w, _ = scorer.record_weights(weights)
    for position in range(len(scorer)):
        explanation = explain_record(scorer, weights, position)
        cls = factors.equivalence_class[position]
        for s in explanation.sensitive:
            assert s.distance == pytest.approx(factors.class_t[s.attribute][cls], abs=1e-12)
        assert explanation.t == pytest.approx(max(s.distance for s in explanation.sensitive))
        assert explanation.l == min(s.l_distinct for s in explanation.sensitive)
        assert explanation.k == len(explanation.class_positions)
        assert explanation.weight_sum == pytest.approx(w[position])


def test_without_quasi_identifiers():
    example = thesis_example()
    roles = Roles(qi=(), sa=("Disease",), identifier="id")
    scorer = Scorer(example.source, roles)
    explanation = explain_record(scorer, example.weights, 2, published=np.array([1, 2, 3]))
    assert explanation.k == 3 and explanation.t == 0.0
    assert explanation.class_ids == ["1", "2", "3"]
    assert explanation.notes


def test_bad_position(thesis):
    scorer, weights = thesis
    with pytest.raises(IndexError):
        explain_record(scorer, weights, 99)
