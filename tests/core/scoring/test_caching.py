"""Distinguishing factors are computed once per (source, roles); W(r) once per weights."""

import numpy as np
import pandas as pd
import pytest

import tklscore.core.scoring.scores as scores_module
from tklscore.core import Scorer, Weights
from tklscore.core.examples import TABLE_4_2_WEIGHTS, thesis_example


def test_weights_and_selection_changes_do_not_recompute_factors(monkeypatch):
    calls = []
    real = scores_module.compute_distinguishing_factors

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(scores_module, "compute_distinguishing_factors", counting)
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)
    first = scorer.score([3, 4, 5, 6], example.weights)
    doubled = Weights([(a, v, w / 2) for a, v, w in TABLE_4_2_WEIGHTS])
    second = scorer.score([3, 4, 5, 6], doubled)
    third = scorer.score([0, 1], doubled, x=float("inf"))
    assert len(calls) == 1
    # the re-scores are real: halving every weight halves W(r) and L
    assert second.records["weight_sum"].to_numpy() == pytest.approx(first.records["weight_sum"].to_numpy() / 2)
    assert second.scores.l_severity == pytest.approx(first.scores.l_severity / 2)
    assert third.published_rows == 2 and third.records["id"].tolist() == ["0", "1"]


def test_record_weights_cached_per_weights_and_recomputed_on_change():
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)
    a, _ = scorer.record_weights(example.weights)
    again, _ = scorer.record_weights(example.weights)
    assert again is a
    changed = Weights([(attr, v, 1.0 if v == "HIV" and attr == "Disease" else w)
                       for attr, v, w in TABLE_4_2_WEIGHTS])
    b, _ = scorer.record_weights(changed)
    assert b is not a
    assert b[3] - a[3] == pytest.approx(1.0 - 0.432)
    np.testing.assert_allclose(np.delete(b, 3), np.delete(a, 3))


def test_factor_computation_reports_progress_and_can_be_stopped():
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)

    class Stop(Exception):
        pass

    def stop(fraction):
        if fraction > 0.3:
            raise Stop()

    with pytest.raises(Stop):
        scorer.compute_factors(stop)
    assert not scorer.factors_computed  # nothing half-computed is kept
    seen = []
    factors = scorer.compute_factors(seen.append)
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0) and len(seen) == 2 * 4 + 1
    assert scorer.factors is factors and factors.k.tolist() == [1, 2, 2, 2, 2, 2, 2]


def test_invalidate_drops_the_cached_factors_and_weights(monkeypatch):
    calls = []
    real = scores_module.compute_distinguishing_factors
    monkeypatch.setattr(scores_module, "compute_distinguishing_factors",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)
    first = scorer.score([3, 4, 5, 6], example.weights)
    weights_before, _ = scorer.record_weights(example.weights)
    assert scorer.factors_computed and len(calls) == 1
    scorer.invalidate()
    assert not scorer.factors_computed
    again = scorer.score([3, 4, 5, 6], example.weights)
    assert len(calls) == 2
    assert scorer.record_weights(example.weights)[0] is not weights_before
    assert again.scores == first.scores and round(again.scores.tkl, 5) == 4.98258


def test_rescoring_kept_rows_equals_a_fresh_scorer():
    """What a re-score keeps of the last release (ids, factors at its rows, float k and l)
    gives exactly what a fresh Scorer gives, and a different selection is not mistaken for it."""
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)
    rows = np.array([3, 4, 5, 6])
    scorer.score(rows, example.weights)
    doubled = Weights([(a, v, w / 2) for a, v, w in TABLE_4_2_WEIGHTS])
    for selection, weights in ((rows, doubled), (rows.copy(), example.weights), (np.array([6, 0, 2]), doubled)):
        kept = scorer.score(selection, weights, x=2.0)
        fresh = Scorer(example.source, example.roles).score(selection, weights, x=2.0)
        assert kept.records.equals(fresh.records)
        assert kept.scores == fresh.scores and kept.normalized_source == fresh.normalized_source
    assert kept.records["id"].tolist() == ["6", "0", "2"]
    rows[:] = [0, 1, 2, 5]  # the caller's array changed in place: its ids are written again
    assert scorer.score(rows, doubled).records["id"].tolist() == ["0", "1", "2", "5"]


def test_identifier_index_is_validated_once_per_table(data_dir):
    from tklscore.core import load_table
    from tklscore.core.tables.published import locate_table, source_ids

    source = load_table(data_dir / "thesis_table_3_1.csv")
    scorer = Scorer(source, thesis_example().roles)  # validates the ids
    index = source.id_index["id"]
    assert source_ids(source, "id") is index and list(index.to_numpy()) == [str(i) for i in range(len(source))]
    release = locate_table(source, load_table(data_dir / "thesis_table_3_1.csv"), "id")
    assert release.positions.tolist() == list(range(len(source))) and scorer.source is source


def test_role_columns_factorised_beside_are_the_tables_and_errors_keep_role_order():
    from tklscore.core import InputError, Roles, Table

    frame = pd.DataFrame({"q": ["a", "b", "a", "c"] * 50, "s": ["x", "y", "y", "x"] * 50,
                          "u": ["1", "2", "oops", "4"] * 50, "v": ["5", "no", "7", "8"] * 50})
    table = Table(frame, name="t.csv")
    scorer = Scorer(table, Roles(qi=["q"], sa=["s"]))
    assert scorer.qi_codes[0] is table.codes("q") and scorer.sa_codes["s"] is table.codes("s")
    for sa in (["v", "u"], ["u", "v"]):   # the first bad continuous column in role order is named
        with pytest.raises(InputError, match=f"column '{sa[0]}'"):
            Scorer(Table(frame, name="t.csv"), Roles(qi=["q"], sa=sa, continuous=sa))


def test_reweighing_gives_the_plain_computation_bit_for_bit():
    """W(r) with the first attributes weighed per combination of values, and the whole
    source's scores block by block in two halves, equal the record-by-record computation."""
    from tklscore.core import Table
    from tklscore.core.scoring.scores import record_scores, source_table_scores, table_scores
    from tklscore.core.scoring.sums import BLOCK
    from tklscore.core.tables.roles import Roles

    rng = np.random.default_rng(7)
    n = BLOCK + 1001   # two blocks, the halves unequal
    frame = pd.DataFrame({"q": rng.integers(0, 40, n).astype(str), "a": rng.integers(0, 5, n).astype(str),
                          "b": rng.integers(0, 7, n).astype(str), "c": rng.integers(0, 300, n).astype(str)})
    scorer = Scorer(Table(frame), Roles(qi=("q",), sa=("a", "b", "c")))
    weights = Weights([(col, str(v), float(w)) for col, top in (("a", 5), ("b", 7), ("c", 300))
                       for v, w in zip(range(top), rng.random(top) / 2.5)])
    total, _ = scorer.record_weights(weights)
    plain = np.zeros(n)
    for name, codes in scorer.sa_codes.items():
        plain += weights.weights_of(name, codes.uniques, False)[codes.codes]
    assert scorer._combined_codes()[0] == 2   # a × b (35 combinations) together, c (300) alone
    assert np.array_equal(total, plain)
    k, l, t = scorer._whole_factors()
    for w in (total, total * 1.7):   # some W(r) above 1: RS_M computed, not RS_L
        for x in (1.0, 2.5, float("inf")):
            assert source_table_scores(k, l, t, w, x) == table_scores(record_scores(k, l, t, w), x)
    assert source_table_scores(k[:10], l[:10], t[:10], total[:10], 1.0) == \
        table_scores(record_scores(k[:10], l[:10], t[:10], total[:10]), 1.0)


def test_record_scores_of_a_slice_written_into_buffers_are_the_records_scores():
    """The one formula of the record scores (spec scoring.md) serves the whole-source blocks:
    a slice scored into buffers gives each record's scores bit for bit, RS_M left out on asking."""
    from tklscore.core.scoring.scores import record_scores

    rng = np.random.default_rng(11)
    n = 60
    k, l = rng.integers(1, 9, n), rng.integers(1, 4, n)
    t, w = rng.random(n), rng.random(n) * 1.6      # some W(r) above 1: RS_M differs from RS_L there
    whole = record_scores(k, l, t, w)
    assert np.array_equal(whole.tkl, (t + w) / l)
    assert np.array_equal(whole.m_score, np.minimum(1.0, w) / k)
    assert np.array_equal(whole.l_severity, w / k)
    assert not np.array_equal(whole.m_score, whole.l_severity)
    part = slice(17, 41)
    buffers = tuple(np.full(24, np.nan) for _ in range(3))
    sliced = record_scores(k[part], l[part], t[part], w[part], buffers)
    for name, buffer in zip(("tkl", "m_score", "l_severity"), buffers):
        assert getattr(sliced, name) is buffer
        assert np.array_equal(buffer, getattr(whole, name)[part])
    without_m = record_scores(k[part], l[part], t[part], w[part], m_score=False)
    assert without_m.m_score is None and np.array_equal(without_m.tkl, whole.tkl[part])
