"""The t-DFs shared by one helper thread and the caller (distinguishing_factors._SharedWork,
issue 23 §4: fewer temporaries alive at once on the first open): the same factors, bit for
bit, as computed on the caller alone — with the continuous SA's t-DF waiting for the full
groups' pairs — and a failing l-DF starts no further t-DF."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tklscore.core.scoring.distinguishing_factors as factors_module
from tklscore.core.scoring.distinguishing_factors import BESIDE, _SharedWork, compute_distinguishing_factors
from tklscore.core.tables.codes import Codes


def _table(seed: int, n: int = 3000):
    rng = np.random.default_rng(seed)
    qi = [Codes(rng.integers(0, 7, n), np.arange(7)), Codes(rng.integers(0, 5, n), np.arange(5))]
    sa = {"amount": Codes(rng.integers(0, 40, n), np.arange(40, dtype=np.float64)),
          "disease": Codes(rng.integers(0, 6, n), np.arange(6)),
          "drug": Codes(rng.integers(0, 9, n), np.arange(9)),
          "dose": Codes(rng.integers(0, 25, n), np.arange(25, dtype=np.float64))}
    return qi, sa


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_t_dfs_shared_with_a_helper_give_the_factors_computed_alone(seed):
    qi, sa = _table(seed)
    continuous = {"amount", "dose"}
    shared = compute_distinguishing_factors(qi, sa, continuous, beside=BESIDE)
    alone = compute_distinguishing_factors(qi, sa, continuous)
    for name in sa:
        assert shared.class_t[name].tolist() == alone.class_t[name].tolist()
    assert shared.t.tolist() == alone.t.tolist() and shared.l.tolist() == alone.l.tolist()
    assert shared.k.tolist() == alone.k.tolist()
    assert 0 < float(shared.t.max()) <= 1


def test_each_task_runs_once_whichever_thread_takes_it_and_none_starts_after_cancel():
    ran, lock = [], threading.Lock()

    def task(key):
        with lock:
            ran.append(key)
        return key * 2

    work = _SharedWork([(i, lambda i=i: task(i)) for i in range(50)])
    helper = BESIDE.submit(work.run)
    work.add([(50, lambda: task(50))])
    work.run()
    helper.result(10)
    assert sorted(ran) == list(range(51)) and work.results == {i: i * 2 for i in range(51)}
    idle = _SharedWork([(0, lambda: task(-1))])
    idle.cancel()
    idle.run()
    assert -1 not in ran and idle.results == {}


def test_a_failing_l_df_starts_no_further_t_df(monkeypatch):
    qi, sa = _table(4)
    started = []
    original = factors_module.variational_distance_by_class

    def counted(*args, **kwargs):
        started.append(1)
        return original(*args, **kwargs)

    def failing(self, step=None):
        raise KeyboardInterrupt   # as a cancelled task's progress raises

    monkeypatch.setattr(factors_module, "variational_distance_by_class", counted)
    monkeypatch.setattr(factors_module._FullGroups, "l_distinguishing_factor", failing)
    with pytest.raises(KeyboardInterrupt):
        compute_distinguishing_factors(qi, sa, {"amount", "dose"})   # no helper: the caller runs them after its l
    assert started == []


@pytest.mark.parametrize("seed", [4, 5])
def test_a_categorical_t_summed_over_every_cell_is_the_t_over_the_pairs(seed):
    """The (class, value) table summed whole (few cells a row) gives each class the very t the
    distinct pairs and the absent values give (the same exact integer numerator), equal to
    ½ Σ |p_v − q_v| in fractions."""
    from fractions import Fraction

    from tklscore.core.scoring.distinguishing_factors import (class_value_counts, variational_distance_by_class,
                                                              variational_distance_of_pairs)

    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(50, 400)), int(rng.integers(2, 9))
    classes = rng.integers(0, int(rng.integers(1, 12)), n)
    classes = np.unique(classes, return_inverse=True)[1].reshape(-1)
    n_classes = int(classes.max()) + 1
    values = Codes(rng.integers(0, m, n) * (rng.random(n) < 0.8), np.arange(m))   # value 0 common, some absent
    sizes = np.bincount(classes, minlength=n_classes)
    counts = np.bincount(values.codes, minlength=m)
    whole = variational_distance_by_class(classes, n_classes, sizes, values)   # n_classes·m ≤ 4n: the table
    assert n_classes * m <= 4 * n
    pairs = variational_distance_of_pairs(class_value_counts(classes, n_classes, values), n_classes, sizes, counts, n)
    assert whole.tolist() == pairs.tolist()
    for c in range(n_classes):
        inside = np.bincount(values.codes[classes == c], minlength=m)
        exact = sum(abs(Fraction(int(inside[v]), int(sizes[c])) - Fraction(int(counts[v]), n)) for v in range(m)) / 2
        assert whole[c] == float(exact)
