"""The ordered EMD (t-DF of a continuous SA) by its two exact ways: from each class's count of
every value (a table, when it has a few cells a row) and by steps over the distinct (class,
value) pairs: the same integers, so the same t to the last bit."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from tklscore.core.scoring.distinguishing_factors import (_ordered_emd_of_table, ordered_emd_by_class,
                                                          ordered_emd_from_pairs, ordered_emd_of_weighted)
from tklscore.core.tables.codes import Codes


def _by_steps(ids, n_classes, sizes, codes, m):
    key = ids * np.int64(m) + codes
    ordered = np.unique(key)
    counts = np.array([np.count_nonzero(key == k) for k in ordered], dtype=np.int64)
    cls, val = np.divmod(ordered, np.int64(m))
    return ordered_emd_from_pairs(cls, val, counts, n_classes, sizes, np.bincount(codes, minlength=m), len(ids),
                                  exact=True)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 16), n=st.integers(1, 400), n_classes=st.integers(1, 40), m=st.integers(2, 30),
       empty=st.booleans())
def test_the_table_of_counts_gives_the_steps_t_exactly(seed, n, n_classes, m, empty):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, n_classes, n)
    if empty:                          # a class id without rows: t is NaN either way
        ids[ids == 0] = min(1, n_classes - 1)
    sizes = np.bincount(ids, minlength=n_classes)
    codes = rng.integers(0, m, n)
    steps = _by_steps(ids, n_classes, sizes, codes, m)
    table = np.bincount(ids * m + codes, minlength=n_classes * m).reshape(n_classes, m)
    got = _ordered_emd_of_table(table, sizes, np.bincount(codes, minlength=m), n)
    assert np.array_equal(got, steps, equal_nan=True)
    import tklscore.core.scoring.distinguishing_factors as factors_module
    kept, factors_module.TABLE_BLOCK = factors_module.TABLE_BLOCK, int(rng.integers(1, 3 * m))   # a few classes a block
    try:
        assert np.array_equal(_ordered_emd_of_table(table, sizes, np.bincount(codes, minlength=m), n), steps,
                              equal_nan=True)
    finally:
        factors_module.TABLE_BLOCK = kept
    # the public function, whichever way its sizes choose (a table, a sort, or floats)
    values = Codes(codes, np.arange(m, dtype=float))
    assert np.array_equal(ordered_emd_by_class(ids, n_classes, sizes, values), steps, equal_nan=True)
    np.testing.assert_allclose(ordered_emd_by_class(ids, n_classes, sizes, values, exact=False), steps,
                               rtol=1e-12, atol=1e-15)
    # an aggregate's rows (each distinct pair once, with its records) and the rows themselves:
    # a table or the pairs, whichever the cells a row choose (one rule for both), the same t
    pairs, records = np.unique(ids * np.int64(m) + codes, return_counts=True)
    cls, val = np.divmod(pairs, np.int64(m))
    for rows in ((cls, val, records.astype(np.int8 if records.max() < 128 else np.int64)),
                 (cls, val, records.astype(np.float64)),     # records as floats: added by bincount's weights
                 (ids, codes, np.ones(n, dtype=np.int8))):
        assert np.array_equal(ordered_emd_of_weighted(rows[0], n_classes, sizes, rows[1], m, rows[2],
                                                      np.bincount(codes, minlength=m), n), steps, equal_nan=True)
    # the pairs counted once each, those of more records added again (the caller keeps which)
    beyond = np.flatnonzero(records > 1)
    assert np.array_equal(ordered_emd_of_weighted(cls, n_classes, sizes, val, m, records, np.bincount(codes, minlength=m),
                                                  n, (beyond, records[beyond] - 1)), steps, equal_nan=True)


def test_the_table_of_counts_on_a_small_example():
    # class 0: values 0, 2; class 1: values 1, 1; the table 0, 1, 1, 2 (C = 1, 3, 4)
    ids = np.array([0, 0, 1, 1])
    table = np.array([[1, 0, 1], [0, 2, 0]])
    t = _ordered_emd_of_table(table, np.array([2, 2]), np.array([1, 2, 1]), 4)
    # class 0: |1·4 − 1·2| + |1·4 − 3·2| + 0 = 4 → 4 / (2·4·2) = 0.25; class 1: |0 − 2| + |2·4 − 6| = 4 → 0.25
    assert t.tolist() == [0.25, 0.25]
    assert ordered_emd_by_class(ids, 2, np.array([2, 2]), Codes(np.array([0, 2, 1, 1]), np.arange(3.0))).tolist() \
        == [0.25, 0.25]
