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
