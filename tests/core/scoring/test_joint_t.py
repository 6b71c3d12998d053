"""The categorical SAs' t-DF of a node counted in one joint (class, values) table when the node
has few classes (distinguishing_factors._joint_categorical, issue 23 §4): the same t, bit for
bit, as one table per SA and as the factors computed without the kept SA groupings."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import tklscore.core.scoring.distinguishing_factors as factors_module
from tklscore.core.scoring.distinguishing_factors import compute_distinguishing_factors, sa_groups
from tklscore.core.tables.codes import Codes


def _factors(qi, sa, continuous, joint_cells, beside=None):
    original = factors_module.JOINT_CELLS
    factors_module.JOINT_CELLS = joint_cells
    try:
        return compute_distinguishing_factors(qi, sa, continuous, groups=sa_groups(list(sa.values()), len(qi[0].codes)),
                                              beside=beside)
    finally:
        factors_module.JOINT_CELLS = original


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 16), n=st.integers(1, 400), classes=st.integers(1, 6), sas=st.integers(2, 4),
       continuous=st.booleans())
def test_joint_table_gives_the_t_of_one_table_per_sa(seed, n, classes, sas, continuous):
    rng = np.random.default_rng(seed)
    qi = [Codes(rng.integers(0, classes, n), np.arange(classes))]
    sa = {f"s{i}": Codes(rng.integers(0, m, n), np.arange(m)) for i, m in enumerate((2, 5, 3, 7)[:sas])}
    kind = {"s0"} if continuous else set()
    joint = _factors(qi, sa, kind, 1e9)                  # every node's categorical SAs in one table
    apart = _factors(qi, sa, kind, 0.0)                   # one table per SA, as before
    plain = compute_distinguishing_factors(qi, sa, kind)  # without the kept groupings
    for name in sa:
        assert joint.class_t[name].tolist() == apart.class_t[name].tolist() == plain.class_t[name].tolist()
    assert joint.t.tolist() == apart.t.tolist() == plain.t.tolist()
    assert joint.l.tolist() == plain.l.tolist()


def test_joint_table_is_used_only_for_few_classes_and_runs_beside():
    rng = np.random.default_rng(3)
    n = 2000
    sa = {"a": Codes(rng.integers(0, 4, n), np.arange(4)), "b": Codes(rng.integers(0, 5, n), np.arange(5)),
          "c": Codes(rng.integers(0, 3, n), np.arange(3))}
    groups = sa_groups(list(sa.values()), n)
    few, many = 10, 1000                                 # 10 · 60 cells ≤ 2000 rows; 1000 · 60 > 2000
    assert factors_module._joint_categorical(groups, [0, 1, 2], few, n) is not None
    assert factors_module._joint_categorical(groups, [0, 1, 2], many, n) is None
    assert factors_module._joint_categorical(groups, [0], few, n) is None   # one SA: its own table
    indices, key, cards = factors_module._joint_categorical(groups, [0, 2], few, n)
    assert cards == (4, 3) and key.tolist() == (sa["a"].codes * 3 + sa["c"].codes).tolist()
    assert factors_module._joint_categorical(groups, [0, 2], few, n)[1] is key   # kept for the next node
    qi = [Codes(rng.integers(0, few, n), np.arange(few))]
    together = _factors(qi, sa, {"c"}, 1.0, beside=factors_module.BESIDE)
    alone = _factors(qi, sa, {"c"}, 0.0)
    assert together.t.tolist() == alone.t.tolist()
    assert all(together.class_t[name].tolist() == alone.class_t[name].tolist() for name in sa)
