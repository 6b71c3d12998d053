"""The variational distance counted over a (value, class) table of the narrowest counts
(distinguishing_factors.variational_distance_by_class): the same t as over the distinct
(class, value) pairs, whatever the counts' width — a class above 255 or 65,535 rows of one
value does not wrap round."""

from __future__ import annotations

import numpy as np
import pytest

from tklscore.core.scoring.distinguishing_factors import class_value_counts, variational_distance_by_class
from tklscore.core.tables.codes import Codes


@pytest.mark.parametrize("large", [20, 300, 70_000])
def test_the_narrow_table_gives_the_pairs_t_exactly(large):
    rng = np.random.default_rng(large)
    small = 400
    classes = np.concatenate((np.zeros(large, dtype=np.int64), np.arange(1, 60), rng.integers(1, 60, small - 59)))
    values = Codes(np.concatenate((np.full(large, 2), rng.integers(0, 5, small))), np.arange(5))
    sizes = np.bincount(classes, minlength=60)
    by_table = variational_distance_by_class(classes, 60, sizes, values)       # 60 × 5 cells: the table
    by_pairs = variational_distance_by_class(classes, 60, sizes, values, class_value_counts(classes, 60, values))
    assert np.array_equal(by_table, by_pairs)
    counts = np.bincount(values.codes, minlength=5)
    n = len(classes)
    assert not np.isnan(by_table).any()
    assert by_table[0] == pytest.approx(0.5 * (sum(counts) - counts[2] + abs(n - counts[2])) / n)


@pytest.mark.parametrize("continuous", [False, True])
def test_distinct_values_and_t_of_one_count_equal_the_pairs_and_each_t(continuous):
    """distinct_and_t_by_class (the search's published l and t): each class's distinct values
    and its t from one count of the pairs, as the distinct pairs and each t's own function give
    them — through the table (few classes) and the sort (many), bit for bit."""
    from tklscore.core.scoring.distinguishing_factors import distinct_and_t_by_class, ordered_emd_by_class

    rng = np.random.default_rng(7)
    for n, n_classes, m in [(900, 12, 40), (900, 400, 60), (500, 500, 3), (300, 30, 1)]:
        classes = np.concatenate((np.arange(n_classes), rng.integers(0, n_classes, n - n_classes)))
        values = Codes(rng.integers(0, m, n).astype(np.int64), np.arange(m))
        values = Codes(np.unique(values.codes, return_inverse=True)[1].reshape(-1), np.unique(values.codes))
        sizes = np.bincount(classes, minlength=n_classes)
        distinct, t = distinct_and_t_by_class(classes, n_classes, sizes, values, continuous)
        pairs = class_value_counts(classes, n_classes, values)
        want = (ordered_emd_by_class(classes, n_classes, sizes, values) if continuous
                else variational_distance_by_class(classes, n_classes, sizes, values, pairs))
        assert distinct.tolist() == np.bincount(pairs[0], minlength=n_classes).tolist()
        assert t.tolist() == want.tolist()
        assert distinct.min() >= 1 and distinct.max() <= values.cardinality
