"""The priority sweep behind the AHP view's sensitivity chart (issue 9 §4)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.scoring.scores import Scorer
from tklscore.core.scoring.sensitivity import priority_sweep, rescaled_priorities
from tklscore.core.scoring.weights import Weights
from tklscore.core.tables.published import locate_by_ids


@given(st.lists(st.floats(0.01, 1.0), min_size=2, max_size=8), st.data(), st.floats(0.0, 1.0))
def test_rescaled_priorities_keep_the_others_proportions(raw, data, p):
    vector = np.array(raw) / sum(raw)
    index = data.draw(st.integers(0, len(vector) - 1))
    out = rescaled_priorities(vector, index, p)
    assert out.sum() == pytest.approx(1.0) and out[index] == p and (out >= 0).all()
    others = np.delete(out, index) / max(1e-300, 1 - p)
    expected = np.delete(vector, index) / np.delete(vector, index).sum()
    if p < 1:
        assert np.allclose(others, expected)
    assert np.allclose(rescaled_priorities(vector, index, vector[index]), vector)


@pytest.fixture(scope="module")
def thesis():
    example = thesis_example()
    model = thesis_model()
    scorer = Scorer(example.source, example.roles)
    release = locate_by_ids(example.source, example.published_ids, example.roles.identifier)
    parent = model.find("MedicalHealth").iri
    return model, scorer, release, parent


def _scaled(model, factor_of_column) -> Weights:
    return Weights([(a, v, w * factor_of_column(a)) for a, v, w in model.weight_triples()])


def test_sweep_ends_reweigh_the_other_criteria_proportionally(thesis):
    model, scorer, release, parent = thesis
    health = model.find("Health").iri
    factors_before = scorer.factors
    sweep = priority_sweep(model, parent, health, scorer, release, points=5)
    assert scorer.factors is factors_before  # only the weights changed
    assert list(sweep.priorities) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert sweep.current == pytest.approx(0.5396, abs=5e-5)  # Table 4.1
    # Health alone (p = 1): Disease's weights grow by 1 / 0.5396, Medication's and Initial Diagnosis' vanish
    current = sweep.current
    at_one = _scaled(model, lambda a: {"Disease": 1 / current, "Age": 1.0}.get(a, 0.0))
    expected = scorer.score(release, at_one).normalized_source
    assert sweep.scores["tkl"][-1] == pytest.approx(expected.tkl)
    assert sweep.scores["m_score"][-1] == pytest.approx(expected.m_score)
    assert sweep.scores["l_severity"][-1] == pytest.approx(expected.l_severity)
    # Health nothing (p = 0): Disease's weights vanish, the siblings grow by 1 / (1 - 0.5396)
    at_zero = _scaled(model, lambda a: {"Disease": 0.0, "Age": 1.0}.get(a, 1 / (1 - current)))
    assert sweep.scores["tkl"][0] == pytest.approx(scorer.score(release, at_zero).normalized_source.tkl)
    # today's scores: the release as the application shows it with the model (4.92534 raw)
    assert round(scorer.score(release, model.to_weights()).scores.tkl, 5) == 4.92534
    assert sweep.current_scores["tkl"] == pytest.approx(0.567147, abs=1e-6)


def test_sweep_refuses_a_criterion_of_another_group(thesis):
    from tklscore.core.errors import InputError

    model, scorer, release, parent = thesis
    with pytest.raises(InputError, match="is not a criterion of the group under 'MedicalHealth'"):
        priority_sweep(model, parent, model.find("PhysicalCharacteristic").iri, scorer, release)
