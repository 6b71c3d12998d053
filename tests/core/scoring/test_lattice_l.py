"""The l-DF of a lattice's nodes from their generalisations' masks (distinguishing_factors.LatticeL,
issue 23 §4): every node's l-DF equals the plain computation over the rows, whichever order the
nodes come in (top down as the search walks them, or shuffled) and with the masks of some or
all of their generalisations at hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tklscore.core.scoring.distinguishing_factors import (LatticeL, _distinct_by_sort, _l_by_runs, _l_over_pairs,
                                                          _l_per_attribute, bits_at, l_distinguishing_factor,
                                                          l_of_classes, sa_groups)
from tklscore.core.tables.codes import Codes, group_ids


def _levels_of(codes: np.ndarray, height: int) -> list[np.ndarray]:
    """A hierarchy as integer division: level h groups 2**h consecutive codes."""
    return [codes // (2 ** h) for h in range(height + 1)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 16), n=st.integers(1, 300), sas=st.integers(1, 4),
       order=st.sampled_from(["top-down", "shuffled", "bottom-up"]), removed=st.booleans(), packed=st.booleans())
def test_every_node_equals_the_plain_l(seed, n, sas, order, removed, packed):
    rng = np.random.default_rng(seed)
    heights = [3, 2]
    qi = [rng.integers(0, 8, n), rng.integers(0, 4, n), rng.integers(0, 3, n)]   # the third never generalised
    # four SAs: a group key without an SA's digit too large for a table, its prefix numbered by runs
    sa = [Codes(rng.integers(0, m, n), np.arange(m)) for m in (3, 6, 40, 400)[:sas]]
    groups = sa_groups(sa, n)
    lattice = LatticeL(packed=packed)     # packed: the masks kept a bit a row (the out-of-core search's)
    nodes = list(itertools.product(*[range(h + 1) for h in heights]))
    if order == "top-down":
        nodes.sort(key=lambda node: (-sum(node), node))
    elif order == "bottom-up":
        nodes.sort(key=sum)
    else:
        rng.shuffle(nodes)
    for node in nodes:
        columns = [(_levels_of(codes, h)[level], int(codes.max()) + 1)
                   for codes, h, level in zip(qi[:2], heights, node)]
        if not removed:
            columns.append((qi[2], 3))
        classes = group_ids(columns, n)
        key = node + ((-1,) if removed else (0,))
        got = lattice.l(classes, groups, key, "sa")
        plain = l_distinguishing_factor([], sa, n, classes=classes)
        assert got.tolist() == plain.tolist(), (node, order)
        assert l_of_classes(classes, groups)[0].tolist() == plain.tolist()
        runs = _l_by_runs(classes, groups)     # every row counted by one sort: each mask its live groups' rows
        if runs is not None:
            assert runs[0].tolist() == plain.tolist()
            for i, mask in enumerate(runs[1]):
                live = _in_live_groups(classes, sa, i, plain)
                assert (mask is None and live.all()) or (mask is not None and mask.tolist() == live.tolist())
        else:
            assert len(sa) == 1
        known = lattice.known(key, "sa", len(sa))
        if known is not None:   # every way of counting, whichever the rows left open choose
            assert _l_per_attribute(classes, groups, known)[0].tolist() == plain.tolist()
            assert _l_over_pairs(classes, groups, known)[0].tolist() == plain.tolist()
            if runs is not None:   # the rows the masks hold only, the widest mask's SA perhaps bounded
                assert _l_by_runs(classes, groups, known)[0].tolist() == plain.tolist()


def test_the_masks_kept_are_counted_in_bytes_and_packed_a_bit_a_row():
    """A node's masks are kept while the kept masks' bytes fit the budget (a None mask takes
    none; packed, a bit a row), always the last two nodes'; a kept mask reads back as it was given."""
    n = 1000
    rng = np.random.default_rng(7)
    masks = [rng.random(n) < 0.5 for _ in range(3)]
    for packed, size in ((False, n), (True, n // 8)):
        lattice = LatticeL(budget=4 * size, packed=packed)
        lattice.keep((1, 0), None, [masks[0], None], n)            # one mask: size bytes
        lattice.keep((0, 1), None, [masks[1], masks[2]], n)        # two: 3·size kept in all
        assert [m.tolist() for m in lattice.known((0, 0), None, 2)] == [
            (masks[0] & masks[1]).tolist(), masks[2].tolist()]
        lattice.keep((2, 0), None, [masks[2], masks[0]], n)        # 5·size: the oldest dropped
        assert lattice.known((1, 0), None, 2) is not None and lattice.known((0, 0), None, 2)[0].tolist() == \
            masks[1].tolist()
        assert lattice.node_bytes(n, 2) == 2 * size


def test_packed_masks_are_read_at_some_rows_without_unpacking():
    """known(unpack=False) hands the packed intersection (a bit a row); bits_at reads any rows'
    bits of it, in any order and repeated, as the unpacked mask holds them."""
    n = 1003
    rng = np.random.default_rng(11)
    masks = [rng.random(n) < 0.5 for _ in range(3)]
    lattice = LatticeL(budget=1 << 20, packed=True)
    lattice.keep((1, 0), None, [masks[0], None], n)
    lattice.keep((0, 1), None, [masks[1], masks[2]], n)
    packed = lattice.known((0, 0), None, 2, unpack=False)
    assert all(m.dtype == np.uint8 and len(m) == -(-n // 8) for m in packed)
    rows = np.concatenate([rng.integers(0, n, 300), [0, 7, 8, n - 1, n - 1]]).astype(np.int64)
    first, second, none = bits_at(packed + [None], rows)
    assert first.tolist() == (masks[0] & masks[1])[rows].tolist()
    assert second.tolist() == masks[2][rows].tolist() and none is None
    assert bits_at([None], rows) == [None] and len(bits_at(packed, rows[:0])[0]) == 0


def _in_live_groups(classes, sa, i, l):
    """Whether each row's group of QI ∪ (SA \\ {A_i}) holds a row whose l is above 1 (brute force)."""
    ids = classes[0]
    keys = [(int(ids[r]),) + tuple(int(c.codes[r]) for j, c in enumerate(sa) if j != i) for r in range(len(ids))]
    live = {key for key, value in zip(keys, l.tolist()) if value > 1}
    return np.array([key in live for key in keys], dtype=bool)


def test_masks_say_which_groups_may_hold_more_than_one_value():
    # one class; A_0 takes two values among the rows with A_1 = 1, A_1 one value given A_0
    classes = (np.zeros(4, dtype=np.int64), 1)
    sa = [Codes(np.array([0, 0, 1, 2]), np.arange(3)), Codes(np.array([0, 0, 1, 1]), np.arange(2))]
    l, masks = l_of_classes(classes, sa_groups(sa, 4))
    assert l.tolist() == [1, 1, 1, 1]
    assert masks[1].tolist() == [False, False, False, False]    # A_1 is one value given A_0 = 0, 1 or 2
    # A_0's groups hold two values where A_1 = 1, but no row of l above 1: a finer node need not count them
    assert masks[0].tolist() == [False, False, False, False]
    assert _l_over_pairs(classes, sa_groups(sa, 4))[1][0] is None   # SA by SA: not counted, every row may
    # two SAs where neither settles a row alone: both masks exact
    sa = [Codes(np.array([0, 1, 0, 1]), np.arange(2)), Codes(np.array([0, 0, 1, 1]), np.arange(2))]
    l, masks = l_of_classes(classes, sa_groups(sa, 4))
    assert l.tolist() == [2, 2, 2, 2] and masks == [None, None]
    # a finer set of classes given those masks: the rows it may skip are skipped, the l is exact
    finer = (np.array([0, 0, 1, 1]), 2)
    l, finer_masks = l_of_classes(finer, sa_groups(sa, 4), masks)
    assert l.tolist() == [1, 1, 1, 1]          # A_1 is one value in (class, A_0): 0 → {0}, 1 → {0} …
    assert finer_masks[1].tolist() == [False] * 4
    # the rows of a group a coarser node settled (its mask clear) are 1 without being counted, by
    # every way of counting
    settled = [np.array([True, True, False, False]), masks[1]]
    assert _l_per_attribute(classes, sa_groups(sa, 4), settled)[0].tolist() == [2, 2, 1, 1]
    assert _l_over_pairs(classes, sa_groups(sa, 4), settled)[0].tolist() == [2, 2, 1, 1]
    assert _l_by_runs(classes, sa_groups(sa, 4), settled)[0].tolist() == [2, 2, 1, 1]


def test_one_sort_writes_back_l_and_masks_wider_than_a_byte():
    """The rows' l and bits are written back in the narrowest integers that hold them: an l of
    256 (every pair of 256 × 256 values once in one class, beside a class of 3 rows) needs two
    bytes, and nine SAs' bits do too; each row's l and masks are still the exact ones."""
    grid = np.arange(256 * 256 + 3)
    classes = (np.where(grid < 256 * 256, 0, 1), 2)
    sa = [Codes(grid % 256, np.arange(256)), Codes(np.minimum(grid // 256, 255), np.arange(256))]
    l, masks = _l_by_runs(classes, sa_groups(sa, len(grid)))
    assert l.dtype == np.int64 and l[:-3].tolist() == [256] * (256 * 256) and l[-3:].tolist() == [1, 1, 1]
    # the small class's rows are 1: no mask holds them, each holds the big class's
    assert all(mask[:-3].all() and not mask[-3:].any() for mask in masks)
    rng = np.random.default_rng(9)
    n = 120
    classes = group_ids([(rng.integers(0, 3, n), 3)], n)
    sa = [Codes(rng.integers(0, 2, n), np.arange(2)) for _ in range(9)]
    l, masks = _l_by_runs(classes, sa_groups(sa, n))
    assert l.tolist() == l_distinguishing_factor([], sa, n, classes=classes).tolist()
    for i, mask in enumerate(masks):
        live = _in_live_groups(classes, sa, i, l)
        assert (mask is None and live.all()) or (mask is not None and mask.tolist() == live.tolist())


@pytest.mark.parametrize("by_sort", [True, False])
def test_every_node_equals_the_plain_l_when_no_group_fits_a_table(monkeypatch, by_sort):
    """The counts taken without tables (every key space too large for one: only the classes
    holding a row whose l is still above 1 are counted) give the same l-DF at every node, with
    each group's distinct values counted by one sort or (``by_sort`` False: the keys do not fit
    beside the positions) by the group-bys."""
    import tklscore.core.scoring.distinguishing_factors as factors_module

    if not by_sort:
        monkeypatch.setattr(factors_module, "_distinct_by_sort", lambda *args, **kwargs: None)
    for seed in range(25):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 400))
        qi = [rng.integers(0, 8, n), rng.integers(0, 4, n)]
        sa = [Codes(rng.integers(0, m, n), np.arange(m)) for m in (2, 3, 40)[:int(rng.integers(1, 4))]]
        groups = sa_groups(sa, n)
        lattice = LatticeL()
        for node in sorted(itertools.product(range(4), range(3)), key=lambda node: (-sum(node), node)):
            classes = group_ids([(codes // (2 ** level), int(codes.max()) + 1) for codes, level in zip(qi, node)], n)
            plain = l_distinguishing_factor([], sa, n, classes=classes)
            known = lattice.known(node, None, len(sa))
            with monkeypatch.context() as patched:
                patched.setattr(factors_module, "dense_limit", lambda _n: 0)
                assert lattice.l(classes, groups, node).tolist() == plain.tolist(), (seed, node)
                if known is not None:
                    assert _l_per_attribute(classes, groups, known)[0].tolist() == plain.tolist(), (seed, node)
                    assert _l_over_pairs(classes, groups, known)[0].tolist() == plain.tolist(), (seed, node)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 16), m=st.integers(0, 300), size=st.integers(1, 50), cardinality=st.integers(1, 9),
       positions=st.booleans())
def test_distinct_values_by_sort_are_the_brute_force_counts(seed, m, size, cardinality, positions):
    rng = np.random.default_rng(seed)
    key, values = rng.integers(0, size, m), rng.integers(0, cardinality, m)
    d = _distinct_by_sort(key, size, values, cardinality, np.arange(m + 5) if positions else None)
    seen: dict = {}
    for k, v in zip(key.tolist(), values.tolist()):
        seen.setdefault(k, set()).add(v)
    assert d.tolist() == [len(seen[k]) for k in key.tolist()]
    assert _distinct_by_sort(key, 1 << 62, values, 2, None) is None or m == 0   # keys past 63 bits: not sorted


def _top_down(seed: int, low: int, high: int, cards: tuple):
    """A seeded table of ``low`` to ``high`` rows — two QIs, each level halving their codes, SAs
    of ``cards`` values — and its 12 level combinations top down: (n, sa, groups, [(node, classes)])."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(low, high))
    qi = [rng.integers(0, 8, n), rng.integers(0, 4, n)]
    sa = [Codes(rng.integers(0, m, n), np.arange(m)) for m in cards]
    nodes = sorted(itertools.product(range(4), range(3)), key=lambda node: (-sum(node), node))
    return n, sa, sa_groups(sa, n), [
        (node, group_ids([(codes // (2 ** level), int(codes.max()) + 1) for codes, level in zip(qi, node)], n))
        for node in nodes]


def test_open_rows_decide_how_a_node_is_counted(monkeypatch):
    """One sort of the rows the masks hold whenever the keys fit (one integer beside the
    positions); else one cost rule: SA by SA over the open rows while they are fewer than APART
    of the rows, summed over the SAs, or over every row's pairs. The l-DF is the plain one at
    every node, whichever way."""
    import tklscore.core.scoring.distinguishing_factors as factors_module

    assert not factors_module._apart([None, None], 10)         # no mask: every row may be above 1
    wide = np.ones(100, dtype=bool)
    narrow = np.zeros(100, dtype=bool)
    narrow[:3] = True
    assert factors_module._apart([narrow, narrow, wide], 100)   # 106 of 300 open
    assert not factors_module._apart([wide, narrow, None], 100)  # 203 of 300
    assert factors_module._apart([narrow], 100) and not factors_module._apart([wide], 100)
    for fits, apart in ((True, 1.01), (False, 0.0), (False, 1.01)):
        counted = []
        original = factors_module._l_per_attribute
        with monkeypatch.context() as patched:
            patched.setattr(factors_module, "_l_per_attribute",
                            lambda *args, **kwargs: counted.append(1) or original(*args, **kwargs))
            patched.setattr(factors_module, "APART", apart)
            if not fits:
                patched.setattr(factors_module, "_l_by_runs", lambda *args, **kwargs: None)
            for seed in range(10):
                n, sa, groups, nodes = _top_down(seed, 50, 400, (2, 3, 40))
                lattice = LatticeL()
                for node, classes in nodes:
                    assert lattice.l(classes, groups, node).tolist() == \
                        l_distinguishing_factor([], sa, n, classes=classes).tolist(), (seed, node)
        # every node but the top one had masks
        assert len(counted) == (10 * (12 - 1) if not fits and apart > 1 else 0)


@pytest.mark.parametrize("wide, share", [(0.0, 1.0), (1e9, 0.0)])
def test_the_widest_mask_counted_apart_gives_the_plain_l(monkeypatch, wide, share):
    """The widest mask's SA counted apart (``WIDE`` 0: at every node with masks) — its count
    among the other masks' rows a lower bound, its groups counted whole where the bound is
    below the other SAs' l — or not at all (``WIDE`` huge), over the masks' rows only or every
    row (``OPEN_SHARE``): the l-DF is the plain one at every node, and each mask holds every
    group holding a row of l above 1."""
    import tklscore.core.scoring.distinguishing_factors as factors_module

    monkeypatch.setattr(factors_module, "WIDE", wide)
    monkeypatch.setattr(factors_module, "OPEN_SHARE", share)
    for seed in range(4):
        n, sa, groups, nodes = _top_down(seed, 50, 200, (3, 4, 40))
        lattice = LatticeL()
        for node, classes in nodes:
            plain = l_distinguishing_factor([], sa, n, classes=classes)
            known = lattice.known(node, None, len(sa))
            assert lattice.l(classes, groups, node).tolist() == plain.tolist(), (seed, node)
            if known is not None:
                l, masks = _l_by_runs(classes, groups, known)
                assert l.tolist() == plain.tolist(), (seed, node)
                for i, mask in enumerate(masks):
                    got = np.ones(n, dtype=bool) if mask is None else mask
                    assert not (_in_live_groups(classes, sa, i, plain) & ~got).any(), (seed, node, i)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 16), n=st.integers(1, 300), sas=st.integers(1, 3), slots=st.integers(1, 7))
def test_groups_selected_through_a_hashed_table_count_exactly(seed, n, sas, slots):
    """Counting SA by SA with the groups' keys hashed into a table (their key space too large
    for one): groups that share a slot with a group still above 1 are counted too, each
    whole, so the l-DF stays the plain one and each SA's mask lies between the rows of the
    groups holding a row of l above 1 and the generalisations' mask. Here every key space is
    hashed, into a few slots (many collisions)."""
    import tklscore.core.scoring.distinguishing_factors as factors_module

    rng = np.random.default_rng(seed)
    qi = [rng.integers(0, 8, n), rng.integers(0, 4, n)]
    sa = [Codes(rng.integers(0, m, n), np.arange(m)) for m in (3, 6, 40)[:sas]]
    groups = sa_groups(sa, n)
    lattice = LatticeL()
    original = (factors_module.dense_limit, factors_module._slots)
    try:
        factors_module.dense_limit = lambda _n: 0
        factors_module._slots = lambda key, bits: key.astype(np.uint64) % np.uint64(slots)
        for node in sorted(itertools.product(range(4), range(3)), key=lambda node: (-sum(node), node)):
            classes = group_ids([(codes // (2 ** level), int(codes.max()) + 1) for codes, level in zip(qi, node)], n)
            plain = l_distinguishing_factor([], sa, n, classes=classes)
            known = lattice.known(node, None, len(sa))
            assert lattice.l(classes, groups, node).tolist() == plain.tolist(), node
            if known is None:
                continue
            l, masks = _l_per_attribute(classes, groups, known)
            assert l.tolist() == plain.tolist(), node
            for i, mask in enumerate(masks):
                got = np.ones(n, dtype=bool) if mask is None else mask
                assert not (~got & _in_live_groups(classes, sa, i, plain)).any(), node   # every live group kept
                if known[i] is not None:
                    assert not (got & ~known[i]).any(), node             # never wider than the known
    finally:
        factors_module.dense_limit, factors_module._slots = original
