"""Factorised codes: columns as dense integer codes, and group ids over several columns.

Everything the distinguishing factors need is a group-by, done here in O(n) with hash
factorisation of integer keys (never a comparison of rows with rows).
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pandas as pd

BESIDE_THREADS = 2
BESIDE = ThreadPoolExecutor(max_workers=BESIDE_THREADS, thread_name_prefix="tklscore-beside")
"""Core's helper threads: group-bys and hashing release the interpreter lock, so work run
here beside the caller's thread shares a second core — the t-DFs beside the l-DF, role
columns factorised beside each other (:func:`run_beside`); its tasks submit nothing."""


def run_beside(calls) -> list:
    """Each of ``calls`` (functions of no argument): the first on the caller's thread, the
    others on :data:`BESIDE`; returns once all are done, with the error each raised (None
    where it returned), in order. From a task of BESIDE itself all run on the caller."""
    calls = list(calls)
    if len(calls) < 2 or threading.current_thread().name.startswith("tklscore-beside"):
        pending = []
    else:
        pending = [BESIDE.submit(call) for call in calls[1:]]
        calls = calls[:1]
    errors = []
    for call in calls:
        try:
            call()
            errors.append(None)
        except Exception as error:   # returned to the caller, who says which matter
            errors.append(error)
    return errors + [future.exception() for future in pending]



@dataclass(frozen=True)
class Codes:
    """``codes[i]`` is the index of row i's value in ``uniques``; for a continuous column
    ``uniques`` are the distinct numbers in increasing order."""

    codes: np.ndarray
    uniques: np.ndarray

    @property
    def cardinality(self) -> int:
        return len(self.uniques)


def factorize(values, *, ordered: bool = False) -> Codes:
    """Codes of an array or Series; a Series of Arrow-backed strings is factorised by Arrow
    (no Python object per cell, and without holding the interpreter lock)."""
    if not ordered:
        arrow = _arrow_text(values)
        if arrow is not None:
            return _factorize_arrow(arrow)
    codes, uniques = pd.factorize(values, sort=ordered, use_na_sentinel=False)
    uniques = np.asarray(uniques, dtype=object if not pd.api.types.is_numeric_dtype(uniques) else None)
    return Codes(codes.astype(np.int64, copy=False), uniques)


def _arrow_text(values):
    """The Arrow text of a Series or array of Arrow-backed strings without a missing cell (a
    loaded table's text), else None."""
    array = getattr(values, "array", values)
    if not isinstance(getattr(array, "dtype", None), pd.StringDtype) or array.dtype.storage != "pyarrow":
        return None
    import pyarrow as pa

    arrow = array.__arrow_array__()
    if not (pa.types.is_string(arrow.type) or pa.types.is_large_string(arrow.type)) or arrow.null_count:
        return None
    return arrow


def _factorize_arrow(arrow) -> Codes:
    """:func:`factorize` of Arrow text without a missing cell: the same codes and uniques as
    ``pd.factorize``'s (first appearance), Arrow's indices widened once — pandas copies them
    twice (writable, then to int64)."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(arrow)
    if hasattr(encoded, "combine_chunks"):
        encoded = encoded.combine_chunks()   # one dictionary for every chunk
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    return Codes(codes, encoded.dictionary.to_numpy(zero_copy_only=False).astype(object, copy=False))


def group_ids(columns: list[Codes] | list[tuple[np.ndarray, int]], n: int,
              represented: int | None = None) -> tuple[np.ndarray, int]:
    """Dense ids 0..G-1 of the groups of rows sharing the values of all ``columns``
    (each a :class:`Codes` or a ``(codes, cardinality)`` pair); all rows in one group when
    there are no columns. Ids are in no particular order. ``represented``: the entries stand
    for groups of that many rows, one entry per group in the order of the groups' first rows,
    each column constant on a group: each entry gets the id its rows would get (the same
    compactions, decided by the rows' count)."""
    pairs = [(c.codes, c.cardinality) if isinstance(c, Codes) else c for c in columns]
    if not pairs:
        return np.zeros(n, dtype=np.int64), (1 if n else 0)
    rows = n if represented is None else represented
    if len(pairs) == 1 and n and int(pairs[0][0].min()) >= 0:
        key, size = pairs[0][0].astype(np.int64, copy=False), max(int(pairs[0][1]), 1)
        return compact(key, size, rows)
    key, size = pairs[0][0].astype(np.int64, copy=False), max(int(pairs[0][1]), 1)
    dense = dense_limit(rows)
    own = False   # whether ``key`` is an array made here (then changed in place), not a caller's codes
    for codes, cardinality in pairs[1:]:
        cardinality = max(int(cardinality), 1)
        if size * cardinality > dense and size > 1:
            key, size = compact(key, size, rows)  # keep the combined key small (and in int64)
            own = True
        if own:
            key *= np.int64(cardinality)
        else:
            key = np.multiply(key, np.int64(cardinality), dtype=np.int64)
            own = True
        key += codes
        size *= cardinality
    return compact(key, size, rows)


def ordered_ids(columns: list[tuple[np.ndarray, int]], n: int) -> tuple[np.ndarray, int]:
    """Dense ids 0..G-1 of the groups of ``n`` rows sharing the codes of all ``columns``
    (``(codes, cardinality)`` pairs, codes ≥ 0), numbered in the order of their codes, the
    first column's the most significant (SQL's ``ROW_NUMBER() OVER (ORDER BY c0, c1, ..)``
    over the distinct rows): a presence table over the mixed-radix key when its space is
    small, else one sort of it; a key space beyond 63 bits compacted on the way by a sort,
    which keeps the order."""
    if not columns:
        return np.zeros(n, dtype=np.int64), (1 if n else 0)
    key, size = columns[0][0].astype(np.int64), max(int(columns[0][1]), 1)
    for codes, cardinality in columns[1:]:
        cardinality = max(int(cardinality), 1)
        if size * cardinality >= 1 << 62:
            groups = sorted_groups(key)
            key, size = groups.inverse, len(groups)
        key *= np.int64(cardinality)
        key += codes
        size *= cardinality
    if size <= dense_limit(n):
        return compact(key, size)
    groups = sorted_groups(key)
    return groups.inverse, len(groups)


def group_ids_of_groups(columns: list[tuple[np.ndarray, int]], first: np.ndarray, n: int) -> np.ndarray:
    """The ids :func:`group_ids` gives the groups of ``n`` rows, from one entry per group:
    each column's code of the group (with the column's cardinality) and ``first``, the
    position of the group's first row. An engine that counted the groups itself (SQL)
    numbers them exactly as in memory: the same compactions, a presence table's order
    being the key's order and hashing's the order of first appearance."""
    order = np.argsort(np.asarray(first, dtype=np.int64), kind="stable")
    ids = np.empty(len(order), dtype=np.int64)
    if not columns or not len(order):
        ids[:] = 0
        return ids
    pairs = [(np.asarray(c, dtype=np.int64)[order], max(int(k), 1)) for c, k in columns]
    key, size = pairs[0]
    dense = dense_limit(n)

    def renumber(key: np.ndarray, size: int) -> tuple[np.ndarray, int]:
        if size <= dense:      # compact's presence table: the keys' order
            uniques, inverse = np.unique(key, return_inverse=True)
            return inverse.astype(np.int64).reshape(-1), len(uniques)
        codes, uniques = pd.factorize(key, sort=False)   # hashing: first appearance
        return codes.astype(np.int64, copy=False), len(uniques)

    for codes, cardinality in pairs[1:]:
        if size * cardinality > dense and size > 1:
            key, size = renumber(key, size)
        key = key * cardinality + codes
        size *= cardinality
    ids[order] = renumber(key, size)[0]
    return ids


def dense_limit(n: int) -> int:
    """The largest key space counted with a table per key rather than by hashing, for n rows."""
    return max(8 * n, 1 << 16)


def compact(key: np.ndarray, size: int | None = None, rows: int | None = None) -> tuple[np.ndarray, int]:
    """Renumber the distinct keys 0..G-1: by a presence table when the key space is small
    (O(n + size), no hashing), else by hash factorisation (ids in order of first appearance).
    ``rows``: the rows the keys stand for, when that is not their count (:func:`group_ids`)."""
    n = len(key) if rows is None else rows
    if size is not None and size <= dense_limit(n):
        present = np.zeros(size, dtype=np.bool_)
        present[key] = True
        occurring = np.flatnonzero(present)
        renumber = np.empty(size, dtype=np.int64)  # only the occurring keys' entries are written and read
        renumber[occurring] = np.arange(len(occurring), dtype=np.int64)
        return renumber[key], len(occurring)
    codes, uniques = pd.factorize(key, sort=False)
    return codes.astype(np.int64, copy=False), len(uniques)


def extend_keys(key: np.ndarray | None, size: int, column: Codes | tuple[np.ndarray, int],
                limit: int = 1 << 62) -> tuple[np.ndarray, int]:
    """The group keys of a set of columns from those of its parent (the set without
    ``column``; ``key`` None for the empty set): one multiply-add, so a lattice of column
    sets walked depth first costs one pass per set. Keys stay below ``limit`` (compacted
    when the combined key space would reach it)."""
    codes, cardinality = (column.codes, column.cardinality) if isinstance(column, Codes) else column
    cardinality = max(int(cardinality), 1)
    if key is None:
        return codes.astype(np.int64, copy=False), cardinality
    if size * cardinality >= limit:
        key, size = compact(key, size)
    key, size = key * cardinality + codes, size * cardinality
    if size >= limit:
        key, size = compact(key)
    return key, size


def group_keys(columns: list[Codes] | list[tuple[np.ndarray, int]], n: int,
               limit: int = 1 << 62) -> tuple[np.ndarray, int]:
    """Like :func:`group_ids` but without the final compaction when it can be spared: keys
    ``0..size-1`` (mixed radix over the columns' codes) that are equal exactly for rows of
    one group, with ``size < limit``; not every key in the range need occur. Sorting or
    counting these keys groups the rows without a hash pass."""
    pairs = [(c.codes, c.cardinality) if isinstance(c, Codes) else c for c in columns]
    if not pairs:
        return np.zeros(n, dtype=np.int64), 1
    key, size = pairs[0][0].astype(np.int64, copy=False), max(int(pairs[0][1]), 1)
    for codes, cardinality in pairs[1:]:
        cardinality = max(int(cardinality), 1)
        if size * cardinality >= limit:
            key, size = compact(key, size)
            if size * cardinality >= limit:
                return group_ids(pairs, n)
        key = key * cardinality + codes
        size *= cardinality
    return key, size


def mixed_radix(columns: list[tuple[np.ndarray, int]], limit: int = 1 << 62) -> tuple[np.ndarray, list[int]] | None:
    """The key ``((c_0·m_1 + c_1)·m_2 + c_2)…`` of each row over ``(codes, cardinality)``
    columns, uncompacted, so that each column's code can be read back from it, with the
    place value of each column; None when the key space reaches ``limit``."""
    places, size = [], 1
    for _, cardinality in reversed(columns):
        places.append(size)
        size *= max(int(cardinality), 1)
    if size >= limit:
        return None
    places.reverse()
    return radix_key([codes for codes, _ in columns], places), places


def radix_key(columns: list[np.ndarray], places) -> np.ndarray:
    """Σ codes·place of each row over ``columns`` with their ``places`` in a mixed radix."""
    key = np.zeros(len(columns[0]) if columns else 0, dtype=np.int64)
    for codes, place in zip(columns, places):
        key += np.asarray(codes).astype(np.int64, copy=False) * np.int64(place)
    return key


@dataclass(frozen=True)
class SortedGroups:
    """The distinct values of an integer key in increasing order (``keys``), the number of
    rows holding each (``counts``), and each row's index into ``keys`` (``inverse``)."""

    keys: np.ndarray
    counts: np.ndarray
    inverse: np.ndarray

    def __len__(self) -> int:
        return len(self.keys)


def sorted_groups(key: np.ndarray) -> SortedGroups:
    """Group the rows by an integer key with one sort (no hashing): O(n log n) but, with
    numpy's vectorised sort, faster than a hash table over a million distinct keys."""
    n = len(key)
    order, ordered = sort_with_positions(key)
    first = run_starts(ordered)
    ids = np.cumsum(first, dtype=np.int64)
    ids -= 1
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = ids
    del order, ids   # each a row's worth of int64: freed before the groups' arrays are made
    starts = np.flatnonzero(first)
    del first
    keys = ordered[starts]
    del ordered
    return SortedGroups(keys, run_sizes(starts, n), inverse)


def group_sizes(key: np.ndarray, positions: np.ndarray | None = None, bound: int | None = None) -> np.ndarray:
    """For each element of an integer ``key``, how many elements hold its value: one sort
    (:func:`sort_with_positions`), each run's length written back to its elements — the
    counts of :func:`sorted_groups` per element, without numbering the groups.
    ``positions``: 0..m-1 for some m ≥ the elements (kept by the caller); ``bound``: no
    size exceeds it (the sizes are then written in the narrowest unsigned type that holds it)."""
    n = len(key)
    order, ordered = sort_with_positions(key, positions)
    starts = np.flatnonzero(run_starts(ordered))
    del ordered
    lengths = run_sizes(starts, n)
    dtype = np.int64 if bound is None else np.min_scalar_type(max(int(bound), 1))
    sizes = np.empty(n, dtype=dtype)
    sizes[order] = np.repeat(lengths.astype(dtype, copy=False), lengths)
    return sizes


def table_counts(key: np.ndarray, size: int, bound: int) -> np.ndarray:
    """For each element of an integer ``key`` (each < ``size``), how many elements hold its
    value, when no value is held more than ``bound`` times: counted in a table of the
    narrowest unsigned integers that hold ``bound`` (``np.add.at``). ``bincount``'s table
    takes eight bytes an entry, one or two here: on a table of millions of entries, most of
    the time is memory first touched, so this is several times faster."""
    dtype = np.min_scalar_type(max(int(bound), 1))
    table = np.zeros(max(int(size), 1), dtype=dtype)
    np.add.at(table, key, dtype.type(1))
    return table[key]


def sort_with_positions(key: np.ndarray, positions: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(order, key[order])`` with ``order`` a permutation sorting the integer ``key``.
    When each key and its position fit together in 63 bits the two are packed into one
    integer and sorted by value — numpy's vectorised sort of values is several times
    faster than ``argsort`` — and unpacked; else ``argsort``. ``positions``: 0..m-1 for
    some m ≥ len(key), when the caller keeps them."""
    n = len(key)
    if n:
        low, high = int(key.min()), int(key.max())
        bits = max(int(n - 1).bit_length(), 1)
        if low >= 0 and high < (1 << (63 - bits)):
            packed = key.astype(np.int64)   # a copy: the key is not changed
            packed <<= bits
            packed |= positions[:n] if positions is not None and len(positions) >= n else np.arange(n, dtype=np.int64)
            packed.sort()
            order = packed & np.int64((1 << bits) - 1)
            packed >>= bits
            return order, packed
    order = np.argsort(key)
    return order, key[order]


def run_starts(ordered: np.ndarray) -> np.ndarray:
    """Whether each element of a sorted (or run-grouped) array starts a new run of equal values."""
    first = np.empty(len(ordered), dtype=np.bool_)
    first[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return first


def run_sizes(starts: np.ndarray, n: int) -> np.ndarray:
    """The length of each run of ``n`` elements from the runs' ``starts`` (increasing, the first
    0): ``np.diff(starts, append=n)`` by one subtraction into the result, without a concatenation."""
    lengths = np.empty(len(starts), dtype=np.int64)
    np.subtract(starts[1:], starts[:-1], out=lengths[:-1])
    lengths[-1:] = n - starts[-1:]
    return lengths


def run_lengths(ordered: np.ndarray) -> np.ndarray:
    """For each element of a sorted array, how many elements equal it."""
    starts = np.flatnonzero(run_starts(ordered))
    lengths = run_sizes(starts, len(ordered))
    return np.repeat(lengths, lengths)
