"""Factorised codes: columns as dense integer codes, and group ids over several columns.

Everything the distinguishing factors need is a group-by, done here in O(n) with hash
factorisation of integer keys (never a comparison of rows with rows).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

_LIMIT = 1 << 62


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
    codes, uniques = pd.factorize(values, sort=ordered, use_na_sentinel=False)
    uniques = np.asarray(uniques, dtype=object if not pd.api.types.is_numeric_dtype(uniques) else None)
    return Codes(codes.astype(np.int64, copy=False), uniques)


def group_ids(columns: list[Codes] | list[tuple[np.ndarray, int]], n: int) -> tuple[np.ndarray, int]:
    """Dense ids 0..G-1 of the groups of rows sharing the values of all ``columns``
    (each a :class:`Codes` or a ``(codes, cardinality)`` pair); all rows in one group when
    there are no columns."""
    pairs = [(c.codes, c.cardinality) if isinstance(c, Codes) else c for c in columns]
    if not pairs:
        return np.zeros(n, dtype=np.int64), (1 if n else 0)
    key, size = pairs[0][0].astype(np.int64, copy=False), max(int(pairs[0][1]), 1)
    for codes, cardinality in pairs[1:]:
        cardinality = max(int(cardinality), 1)
        if size * cardinality >= _LIMIT:
            key, size = compact(key, size)
        key = key * cardinality + codes
        size *= cardinality
    return compact(key, size)


def compact(key: np.ndarray, size: int) -> tuple[np.ndarray, int]:
    """Dense ids of the distinct keys (all in [0, size)): by a table of the key space when
    it is not much larger than the rows (ids then follow the keys' order), else by hashing."""
    if size <= max(4 * len(key), 1 << 16):
        present = np.zeros(size, dtype=bool)
        present[key] = True
        distinct = np.flatnonzero(present)
        remap = np.empty(size, dtype=np.int64)
        remap[distinct] = np.arange(len(distinct), dtype=np.int64)
        return remap[key], len(distinct)
    codes, uniques = pd.factorize(key, sort=False)
    return codes.astype(np.int64, copy=False), len(uniques)
