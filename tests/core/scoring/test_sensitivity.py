"""The priority sweep behind the AHP view's sensitivity chart (issue 9 §4)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
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


def _reference_sweep(model, parent, criterion, scorer, release, x, points):
    """The sweep by its definition: each point re-derives the model's weights with the
    priority vector assigned to the group and re-scores the release."""
    group = model.criteria_group(parent)
    derivation = model.derive()
    current = np.array([derivation.priorities[c] for c in group])
    out = {name: [] for name in ("tkl", "m_score", "l_severity")}
    for p in np.linspace(0.0, 1.0, points):
        swept = model.copy()
        for iri, value in zip(group, rescaled_priorities(current, group.index(criterion), float(p))):
            swept.set_assigned_priority(iri, float(min(1.0, max(0.0, value))))
        normalised = scorer.score(release, swept.to_weights(), x).normalized_source
        for name in out:
            value = getattr(normalised, name)
            out[name].append(np.nan if value is None else value)
    today = scorer.score(release, model.to_weights(), x).normalized_source
    return out, {name: getattr(today, name) for name in out}


@pytest.mark.parametrize("x", [1.0, 2.5, float("inf")])
def test_sweep_equals_rescoring_every_point(thesis, x):
    """The affine shortcut (W(r) from the criteria's weights alone) gives what re-deriving
    the weights and re-scoring at every point gives, for every criterion of every group."""
    model, scorer, release, _ = thesis
    swept_any = False
    for parent in model.groups():
        for criterion in model.criteria_group(parent):
            sweep = priority_sweep(model, parent, criterion, scorer, release, x, points=7)
            expected, today = _reference_sweep(model, parent, criterion, scorer, release, x, 7)
            for name in expected:
                assert np.allclose(sweep.scores[name], expected[name], rtol=1e-12, atol=1e-14, equal_nan=True)
                assert sweep.current_scores[name] == pytest.approx(today[name], rel=1e-12)
            swept_any = True
    assert swept_any


def test_sweep_of_an_empty_release_and_of_the_whole_source(thesis):
    from tklscore.core.tables.published import Release

    model, scorer, _, parent = thesis
    health = model.find("Health").iri
    empty = priority_sweep(model, parent, health, scorer, Release(np.array([], dtype=np.int64), np.array([])),
                           points=3)
    assert all((empty.scores[name] == 0).all() for name in empty.scores)
    whole = Release(np.arange(len(scorer.source)), np.arange(len(scorer.source)).astype(str))
    sweep = priority_sweep(model, parent, health, scorer, whole, points=3)
    expected, _ = _reference_sweep(model, parent, health, scorer, whole, 1.0, 3)
    for name in expected:  # the source against itself: 1 wherever it scores above 0
        assert np.allclose(sweep.scores[name], expected[name], equal_nan=True)
        assert np.allclose(sweep.scores[name][np.isfinite(sweep.scores[name])], 1.0)


def test_sweep_reports_progress_and_stops_when_asked(thesis):
    model, scorer, release, parent = thesis
    health = model.find("Health").iri
    seen = []
    priority_sweep(model, parent, health, scorer, release, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0) and len(seen) >= 4

    class Stop(Exception):
        pass

    def stop(fraction):
        raise Stop()

    weights_before = dict(scorer._weights_cache)
    with pytest.raises(Stop):
        priority_sweep(model, parent, health, scorer, release, progress=stop)
    assert scorer._weights_cache.keys() == weights_before.keys()  # the sweep keeps nothing in the Scorer


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_sweep_of_any_release_equals_rescoring(thesis, data):
    from tklscore.core.tables.published import Release

    model, scorer, _, parent = thesis
    n = len(scorer.source)
    rows = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1))), dtype=np.int64)
    criterion = data.draw(st.sampled_from(model.criteria_group(parent)))
    release = Release(rows, rows.astype(str))
    sweep = priority_sweep(model, parent, criterion, scorer, release, 2.0, points=5)
    expected, _ = _reference_sweep(model, parent, criterion, scorer, release, 2.0, 5)
    for name in expected:
        assert np.allclose(sweep.scores[name], expected[name], rtol=1e-12, atol=1e-14, equal_nan=True)
