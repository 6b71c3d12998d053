"""The group-by engine's paths agree: the sorted full groups (one integer key), the hash
group-bys used when the key space is too large for one integer, and a plain pandas
group-by written from the definitions (l-DF, (class, value) pairs, k-DF, t-DF)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

from tklscore.core.scoring.distinguishing_factors import (class_value_counts, compute_distinguishing_factors,
                                                          l_distinguishing_factor)
from tklscore.core.tables.codes import (Codes, compact, group_ids, group_sizes, mixed_radix, ordered_ids, run_sizes,
                                        sorted_groups, table_counts)


def _codes(values: list[int], declared: int) -> Codes:
    """Codes whose declared cardinality may exceed the values that occur (as a filtered table's)."""
    return Codes(np.asarray(values, dtype=np.int64), np.arange(max(declared, max(values) + 1)))


def _l_by_pandas(qi: list[Codes], sa: list[Codes]) -> np.ndarray:
    frame = pd.DataFrame({f"q{i}": c.codes for i, c in enumerate(qi)} | {f"a{i}": c.codes for i, c in enumerate(sa)})
    qi_names = [f"q{i}" for i in range(len(qi))]
    best = np.full(len(frame), np.iinfo(np.int64).max)
    for i in range(len(sa)):
        others = qi_names + [f"a{j}" for j in range(len(sa)) if j != i]
        distinct = (frame.groupby(others)[f"a{i}"].transform("nunique") if others
                    else pd.Series(frame[f"a{i}"].nunique(), index=frame.index))
        best = np.minimum(best, distinct.to_numpy())
    return best


tables = st.integers(1, 60).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(0, 3), min_size=n, max_size=n), min_size=1, max_size=3),
    st.lists(st.lists(st.integers(0, 4), min_size=n, max_size=n), min_size=1, max_size=4)))


@settings(max_examples=100, deadline=None)
@given(table=tables, huge=st.booleans())
def test_l_distinguishing_factor_matches_a_plain_group_by(table, huge):
    qi_values, sa_values = table
    # huge: cardinalities declared so large that no one integer holds the key (the hash path)
    declared = 10**6 if huge else 5
    qi = [_codes(v, 4) for v in qi_values]
    sa = [_codes(v, declared) for v in sa_values]
    n = len(qi_values[0])
    if huge and len(sa) >= 4:
        assert mixed_radix([group_ids(qi, n)] + [(c.codes, c.cardinality) for c in sa]) is None
    assert np.array_equal(l_distinguishing_factor(qi, sa, n), _l_by_pandas(qi, sa))
    assert np.array_equal(l_distinguishing_factor([], sa, n), _l_by_pandas([], sa))


@settings(max_examples=100, deadline=None)
@given(table=tables, huge=st.booleans())
def test_factors_do_not_depend_on_the_path_or_the_attribute_order(table, huge):
    qi_values, sa_values = table
    declared = 10**6 if huge else 5
    qi = [_codes(v, 4) for v in qi_values]
    sa = {f"a{i}": _codes(v, declared) for i, v in enumerate(sa_values)}
    continuous = {"a1"} if len(sa) > 1 else set()
    factors = compute_distinguishing_factors(qi, sa, continuous)
    reversed_sa = dict(reversed(list(sa.items())))
    again = compute_distinguishing_factors(qi, reversed_sa, continuous)
    assert np.array_equal(factors.k, again.k) and np.array_equal(factors.l, again.l)
    assert np.array_equal(factors.t, again.t)
    assert np.array_equal(factors.l, _l_by_pandas(qi, list(sa.values())))
    sizes = pd.Series(factors.equivalence_class).map(pd.Series(factors.equivalence_class).value_counts())
    # k is gathered from the class sizes when first read: a part taken before that reads its own
    positions = np.arange(len(sizes))[::-2]
    assert np.array_equal(again.take(positions).k, sizes.to_numpy()[positions])
    assert np.array_equal(factors.k, sizes.to_numpy())
    assert np.array_equal(factors.take(positions).k, sizes.to_numpy()[positions])


@settings(max_examples=100, deadline=None)
@given(classes=st.lists(st.integers(0, 9), min_size=1, max_size=80), data=st.data(), huge=st.booleans())
def test_class_value_counts_dense_and_hashed_agree(classes, data, huge):
    ids, n_classes = compact(np.asarray(classes, dtype=np.int64), 10)
    values = data.draw(st.lists(st.integers(0, 6), min_size=len(classes), max_size=len(classes)))
    codes = _codes(values, 10**7 if huge else 7)  # huge: beyond the dense table, hashed
    cls, val, counts = class_value_counts(ids, n_classes, codes)
    got = sorted(zip(cls.tolist(), val.tolist(), counts.tolist()))
    expected = pd.DataFrame({"c": ids, "v": codes.codes}).value_counts().sort_index()
    assert got == [(c, v, n) for (c, v), n in expected.items()]


@settings(max_examples=15, deadline=None)
@given(table=st.integers(0, 30).flatmap(lambda n: st.lists(st.lists(st.integers(0, 5), min_size=n, max_size=n),
                                                            min_size=1, max_size=4)),
       cardinality=st.sampled_from([6, 1 << 20, 1 << 40]))
def test_ordered_ids_number_the_distinct_rows_in_the_order_of_their_codes(table, cardinality):
    """A presence table, one sort, and a key beyond 63 bits compacted on the way: the ids of
    SQL's ROW_NUMBER() OVER (ORDER BY the columns) over the distinct rows."""
    n = len(table[0])
    ids, count = ordered_ids([(np.asarray(c, dtype=np.int64), cardinality) for c in table], n)
    rows = list(zip(*table))
    distinct = sorted(set(rows))
    assert count == len(distinct) and list(ids) == [distinct.index(r) for r in rows]


@given(st.lists(st.integers(-5, 2**40), max_size=50))
def test_sorted_groups_and_compact(values):
    key = np.asarray(values, dtype=np.int64)
    groups = sorted_groups(key)
    distinct, counts = np.unique(key, return_counts=True)
    assert np.array_equal(groups.keys, distinct) and np.array_equal(groups.counts, counts)
    assert np.array_equal(groups.keys[groups.inverse], key)
    small = np.abs(key) % 97
    ids, count = compact(small, 97)
    assert count == len(np.unique(small))
    assert np.array_equal(ids, np.unique(small, return_inverse=True)[1])  # numbered in key order


@given(st.lists(st.integers(-5, 40), max_size=60), st.sampled_from([0, 1 << 20, (1 << 62) - 100]))
def test_group_sizes_count_each_keys_elements(values, offset):
    """Each element's group size is how many elements hold its key, whether the keys pack with
    their positions (small) or are sorted by ``argsort`` (near 2**62, or negative)."""
    key = np.asarray(values, dtype=np.int64) + np.int64(offset)
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    expected = counts[inverse.reshape(-1)]
    sizes = group_sizes(key)
    assert sizes.dtype == np.int64 and np.array_equal(sizes, expected)
    narrow = group_sizes(key, np.arange(len(key) + 3, dtype=np.int64), bound=max(counts, default=1))
    assert narrow.dtype.itemsize <= 1 and np.array_equal(narrow, expected)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=60), st.integers(0, 3), st.sampled_from([0, 1, 255, 256, 65535, 65536]))
def test_table_counts_count_each_keys_elements_in_the_narrowest_integers(values, spare, repeat):
    """Each element's count of its key, from a table of one, two or four bytes an entry: exact up
    to the bound (a key held 255 times in bytes, 256 times in two bytes, 65,536 times in four)."""
    key = np.asarray(values + [7] * repeat, dtype=np.int64)
    bound = max(repeat + values.count(7), max([values.count(v) for v in values], default=1), 1)
    counts = table_counts(key, 31 + spare, bound=bound)
    _, inverse, held = np.unique(key, return_inverse=True, return_counts=True)
    assert counts.tolist() == held[inverse.reshape(-1)].tolist()
    assert counts.dtype == np.min_scalar_type(bound) and counts.dtype.itemsize <= (1 if bound < 256 else 4)


@given(st.lists(st.integers(-3, 3), max_size=40))
def test_run_sizes_are_the_distances_between_run_starts(values):
    ordered = np.sort(np.asarray(values, dtype=np.int64))
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(ordered) else np.zeros(0, np.int64)
    assert run_sizes(starts, len(ordered)).tolist() == np.diff(starts, append=len(ordered)).tolist()
    assert run_sizes(starts, len(ordered)).tolist() == np.unique(ordered, return_counts=True)[1].tolist()


@given(st.lists(st.integers(0, 3), min_size=1, max_size=40), st.integers(50, 62))
def test_sorted_groups_packs_keys_with_positions_only_when_they_fit(offsets, bits):
    """Keys around the largest one that still packs with its position (63 bits in all) group
    as ``np.unique`` groups them, on the packed sort and on ``argsort`` alike."""
    from tklscore.core.tables.codes import sort_with_positions

    key = (np.int64(1) << np.int64(bits)) - 2 + np.asarray(offsets, dtype=np.int64)
    order, ordered = sort_with_positions(key)
    assert np.array_equal(ordered, np.sort(key)) and np.array_equal(key[order], ordered)
    assert np.array_equal(np.sort(order), np.arange(len(key)))
    groups = sorted_groups(key)
    distinct, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    assert np.array_equal(groups.keys, distinct) and np.array_equal(groups.counts, counts)
    assert np.array_equal(groups.inverse, inverse.reshape(-1))


def test_run_beside_runs_every_call_once_and_returns_their_errors_in_order():
    import threading

    from tklscore.core.tables.codes import BESIDE, run_beside

    threads, lock = {}, threading.Lock()

    def call(i):
        def run():
            with lock:
                threads[i] = threading.current_thread().name
            if i % 3 == 2:
                raise ValueError(f"bad {i}")
        return run

    errors = run_beside([call(i) for i in range(7)])
    assert sorted(threads) == list(range(7)) and threads[0] == threading.current_thread().name
    assert [str(e) if e else None for e in errors] == [None, None, "bad 2", None, None, "bad 5", None]
    assert any(name.startswith("tklscore-beside") for name in threads.values())
    threads.clear()   # from a helper thread itself: all on that thread (its tasks submit nothing)
    assert BESIDE.submit(run_beside, [call(0), call(1)]).result(10) == [None, None]
    assert len(set(threads.values())) == 1


def test_warm_columns_keeps_the_codes_and_numbers_and_leaves_a_non_number_column_to_the_scorer():
    import pytest

    from tklscore.core.errors import InputError
    from tklscore.core.tables.loading import Table, warm_columns

    table = Table.from_frame(pd.DataFrame({"a": ["x", "y", "x"], "b": ["1.5", "2", "1.5"], "c": ["1", "n/a", "2"]}))
    warm_columns(table, ["a", "missing"], ["b", "c"])
    assert table._codes["a"].codes.tolist() == [0, 1, 0]
    numbers, counts = table._numeric_counts["b"]
    assert numbers.tolist() == [1.5, 2.0] and counts.tolist() == [2, 1]
    assert "c" not in table._numeric_counts
    with pytest.raises(InputError):
        table.numeric("c")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 49999), st.integers(0, 2)), min_size=1, max_size=80),
       st.sampled_from([0, 15000]))
def test_group_ids_over_one_entry_per_group_number_the_groups_as_over_the_rows(groups, more):
    """Columns constant on groups of rows, given once per group (in the order of the groups'
    first rows) with ``represented`` rows, get the ids their rows get: the compactions are the
    rows' — key order from a presence table, first appearance from hashing (2·50,000 keys exceed
    the presence table of 80 rows, not that of 15,000)."""
    rng = np.random.default_rng(len(groups) + more)
    rows = np.concatenate([np.arange(len(groups)), rng.integers(0, len(groups), more)])
    rng.shuffle(rows)
    cards = (2, 50000, 3)
    columns = [np.asarray([g[i] for g in groups], dtype=np.int64) for i in range(3)]
    over_rows = group_ids([(c[rows], k) for c, k in zip(columns, cards)], len(rows))
    present, first = np.unique(rows, return_index=True)    # each group's first row
    order = present[np.argsort(first, kind="stable")]      # the groups in the order of their first rows
    ids, count = group_ids([(c[order], k) for c, k in zip(columns, cards)], len(order), represented=len(rows))
    by_group = np.empty(len(groups), dtype=np.int64)
    by_group[order] = ids
    assert count == over_rows[1] and np.array_equal(by_group[rows], over_rows[0])
