"""Equivalence classes of a table (spec privacy-models.md §1) on the shared group-by engine.

A class is the set of rows with equal quasi-identifier values (the empty value is a value
of its own). A row whose QIs all hold the suppression marker is a *suppressed record*: by
default it forms a class like any other; with ``exclude_suppressed`` it is left out of
every measure and only counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tklscore.core.tables.codes import Codes, group_ids

SUPPRESSION_MARKER = "*"


@dataclass(frozen=True)
class EquivalenceClasses:
    """``ids[i]`` is the class of the i-th row in scope (``rows`` are their positions in the
    table), ``sizes[c]`` the size of class c."""

    ids: np.ndarray
    sizes: np.ndarray
    rows: np.ndarray
    suppressed_rows: int

    @property
    def count(self) -> int:
        return len(self.sizes)

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def record_sizes(self) -> np.ndarray:
        """|E| of each row's class."""
        return self.sizes[self.ids]


def suppressed_mask(qi: list[Codes], n: int, marker: str = SUPPRESSION_MARKER) -> np.ndarray:
    """Rows whose quasi-identifiers all hold ``marker``."""
    if not qi:
        return np.zeros(n, dtype=bool)
    mask = np.ones(n, dtype=bool)
    for codes in qi:
        hits = np.flatnonzero(codes.uniques == marker) if codes.uniques.dtype == object else np.array([], int)
        if len(hits) == 0:
            return np.zeros(n, dtype=bool)
        mask &= codes.codes == int(hits[0])
    return mask


def restrict(codes: Codes, rows: np.ndarray | None) -> Codes:
    """The codes of the rows in scope, renumbered over the values that occur there (in the
    same order, so a continuous attribute's uniques stay sorted): the models count the
    distinct values of the table measured, not of a larger one."""
    if rows is None:
        return codes
    return subset_codes(codes, rows)


def subset_codes(codes: Codes, rows: np.ndarray) -> Codes:
    sub = codes.codes[rows]
    present = np.bincount(sub, minlength=codes.cardinality) > 0
    if present.all():
        return Codes(sub, codes.uniques)
    remap = np.cumsum(present) - 1
    return Codes(remap[sub], codes.uniques[present])


def equivalence_classes(qi: list[Codes], n: int, *, marker: str = SUPPRESSION_MARKER,
                        exclude_suppressed: bool = False) -> EquivalenceClasses:
    """The classes of the ``n`` rows over the factorised quasi-identifiers ``qi``."""
    suppressed = suppressed_mask(qi, n, marker)
    n_suppressed = int(suppressed.sum())
    if exclude_suppressed and n_suppressed:
        rows = np.flatnonzero(~suppressed)
        ids, count = group_ids([restrict(c, rows) for c in qi], len(rows))
    else:
        rows = np.arange(n)
        ids, count = group_ids(qi, n)
    sizes = np.bincount(ids, minlength=count) if len(ids) else np.zeros(0, dtype=np.int64)
    return EquivalenceClasses(ids, sizes, rows, n_suppressed)
