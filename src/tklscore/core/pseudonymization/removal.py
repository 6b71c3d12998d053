"""Violation removal (disclosure-risk.md A5, Algorithm 2 with the termination fix).

Each pass computes the violations of the chosen QI subset F on the values still present;
in every kF-set S with k > 0 violations it removes ``max(1, ceil(k − t·|S|))`` of the
current violators, chosen at random (seeded) — t is the system default threshold, which
only estimates how many to remove; the next pass re-checks every value against its own
threshold. It stops when no violation is left (each pass removes at least one value, so
it always stops). A removed value leaves its record otherwise intact.

kF-sets do not influence each other, so the passes treat all sets at once, and the
**exact minimum** removal is searched per set: every subset of the set's values (any
values, not only violators — removing a close non-violator can clear a violation) in
increasing size, up to one less than the heuristic removed there. The search is done only
when it needs at most :data:`SEARCH_BUDGET` candidate subsets for the set and the removal's
whole search stays within :data:`SEARCH_TOTAL`; otherwise the set's minimum is reported as
not searched, with the reason, and the total as bounds (each unsearched set needs at least
one removal and at most the heuristic's).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from tklscore.core.errors import check_seed
from tklscore.core.pseudonymization.violations import ViolationEngine
from tklscore.core.tables.codes import group_ids

SEARCH_BUDGET = 200_000
SEARCH_TOTAL = 2_000_000


@dataclass
class ClassRemoval:
    """One kF-set that had violations: its rows, the heuristic's removal, the optimum."""

    rows: np.ndarray
    violations: int
    removed: int
    minimum: int | None
    note: str = ""


@dataclass
class RemovalResult:
    qi_set: tuple[str, ...]
    violations_before: int
    removed_rows: np.ndarray
    violations_after: int
    passes: int
    seed: int
    classes: list[ClassRemoval] = field(default_factory=list)

    @property
    def removed(self) -> int:
        return int(len(self.removed_rows))

    @property
    def minimum(self) -> int | None:
        """The exact minimum number of values to remove, when every set was searched."""
        if any(c.minimum is None for c in self.classes):
            return None
        return sum(c.minimum for c in self.classes)

    @property
    def heuristic_excess(self) -> int | None:
        """How many more values the heuristic removed than the exact minimum (None when unknown)."""
        return None if self.minimum is None else self.removed - self.minimum

    @property
    def unsearched(self) -> list[ClassRemoval]:
        return [c for c in self.classes if c.minimum is None]

    def minimum_json(self) -> dict:
        """The exact minimum against the heuristic: the total when every set with a
        violation was searched, else bounds; and each set's figures."""
        searched = [c for c in self.classes if c.minimum is not None]
        at_least = sum(c.minimum for c in searched) + len(self.unsearched)
        at_most = sum(c.minimum for c in searched) + sum(c.removed for c in self.unsearched)
        return {"total": self.minimum, "heuristic_excess": self.heuristic_excess,
                "at_least": at_least, "at_most": at_most, "sets": len(self.classes), "searched": len(searched),
                "classes": [{"rows": [int(r) for r in c.rows], "violations": c.violations, "removed": c.removed,
                             "minimum": c.minimum, "note": c.note} for c in self.classes]}


def removal_count(k: np.ndarray, size: np.ndarray, threshold: float) -> np.ndarray:
    """``max(1, ceil(k − t·|S|))`` where k > 0 (0 elsewhere), at most k."""
    estimate = np.ceil(np.round(k - threshold * size, 9)).astype(np.int64)
    return np.where(k > 0, np.minimum(np.maximum(estimate, 1), k), 0)


def remove_violations(engine: ViolationEngine, qi_set, thresholds: np.ndarray, *, seed: int,
                      removal_threshold: float, search: bool = True, progress=None) -> RemovalResult:
    qi_set = engine.check_qi_set(qi_set)
    thresholds = np.broadcast_to(np.asarray(thresholds, dtype=float), (len(engine),))
    rng = np.random.default_rng(check_seed(seed))
    groups, group_count = group_ids([engine._codes[c] for c in qi_set], len(engine))
    present = engine.present.copy()
    first = engine.violations(qi_set, thresholds, present)
    violating = first
    passes = 0
    while violating.any():
        passes += 1
        rows = np.flatnonzero(violating)
        g = groups[rows]
        k = np.bincount(g, minlength=group_count)
        size = np.bincount(groups[present], minlength=group_count)
        count = removal_count(k, size, removal_threshold)
        order = np.lexsort((rng.random(len(rows)), g))
        rows, g = rows[order], g[order]
        starts = np.searchsorted(g, g, side="left")
        position = np.arange(len(rows)) - starts
        present[rows[position < count[g]]] = False
        violating = engine.violations(qi_set, thresholds, present)
        if progress is not None:
            progress(passes, int(violating.sum()))
    removed_rows = np.flatnonzero(engine.present & ~present)
    result = RemovalResult(qi_set, int(first.sum()), removed_rows, 0, passes, seed)
    if search:
        result.classes = _exact_minima(engine, groups, first, present, thresholds)
    return result


def _exact_minima(engine, groups, first, present_after, thresholds, total: int = SEARCH_TOTAL
                  ) -> list[ClassRemoval]:
    present = engine.present
    rows = np.flatnonzero(present)
    rows = rows[np.argsort(groups[rows], kind="stable")]
    sorted_groups = groups[rows]
    classes = []
    left = total
    for group in np.unique(groups[first]):
        members = rows[np.searchsorted(sorted_groups, group, "left"):np.searchsorted(sorted_groups, group, "right")]
        removed = int((~present_after[members]).sum())
        if removed <= 1:
            minimum, note = removed, "exact (one value is the least that can clear a violation)"
        else:
            needed = search_size(len(members), removed)
            if needed > left and needed <= SEARCH_BUDGET:
                minimum, note = None, (f"not searched: the search of this removal stopped at {total:,} candidate "
                                       f"removals ({needed:,} more needed here)")
            else:
                minimum, note = minimum_removal(engine.field.values[members], thresholds[members], engine.margin,
                                                engine.operator, upper=removed, numeric=engine.field.numeric)
                if minimum is not None:
                    left -= needed
        classes.append(ClassRemoval(members, int(first[members].sum()), removed, minimum, note))
    return classes


def search_size(size: int, upper: int) -> int:
    """Candidate removals of a set of ``size`` values below ``upper`` values."""
    return sum(math.comb(size, r) for r in range(1, upper))


def _violating(keep: np.ndarray, close: np.ndarray, thresholds: np.ndarray, operator: str) -> np.ndarray:
    """Rows of ``keep`` (a batch of masks) that still violate, for each candidate."""
    matches = keep.astype(np.int64) @ close
    sizes = keep.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        risk = matches / np.where(sizes == 0, 1, sizes)
    exceeded = risk > thresholds if operator == "gt" else risk >= thresholds
    return (exceeded & keep).any(axis=1)


def minimum_removal(values, thresholds, margin: float, operator: str, *, upper: int,
                    numeric: bool = True, budget: int = SEARCH_BUDGET) -> tuple[int | None, str]:
    """The fewest values of one kF-set whose removal leaves no violation in it, searched
    among all subsets of size < ``upper`` (``upper`` itself is known to work). Returns
    ``(None, reason)`` when the search would exceed ``budget`` candidate subsets."""
    s = len(values)
    if upper <= 1:
        return upper, "exact (one value is the least that can clear a violation)"
    needed = search_size(s, upper)
    if needed > budget:
        return None, (f"not searched: a set of {s} values needs {needed:,} candidate removals "
                      f"below the heuristic's {upper} (limit {budget:,})")
    values = np.asarray(values, dtype=float if numeric else object)
    if numeric:
        close = (np.abs(values[:, None] - values[None, :]) <= margin).astype(np.int64)
    else:
        close = (values[:, None] == values[None, :]).astype(np.int64)
    thresholds = np.asarray(thresholds, dtype=float)
    for r in range(1, upper):
        combos = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(s), r)),
                             dtype=np.int64).reshape(-1, r)
        for start in range(0, len(combos), 4096):
            chunk = combos[start:start + 4096]
            keep = np.ones((len(chunk), s), dtype=bool)
            keep[np.arange(len(chunk))[:, None], chunk] = False
            if (~_violating(keep, close, thresholds, operator)).any():
                return r, "exact"
    return upper, "exact (the heuristic's removal is minimal here)"
