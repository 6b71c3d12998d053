"""Value-prediction risk and violations (disclosure-risk.md A3, Algorithm 1 cleaned).

For a QI subset F, record i's kF-set G_F(i) is the records sharing i's (generalised)
values of the QIs in F — a group of the shared engine :mod:`tklscore.core.tables.codes`.
Its risk is the share of the set whose sensitive value lies within the margin of i's:

    risk_F(i) = |{j ∈ G_F(i) : |x_j − x_i| ≤ margin}| / |G_F(i)|

and it is a violation when ``risk_F(i) > threshold_i`` (strict ``>`` by default, ``≥``
selectable). N_v(F) counts the violations.

The margin count is never pairwise: the distinct sensitive values are ranked once, each
value's margin window becomes a rank interval ``[lo, hi]`` (``searchsorted`` on the sorted
distinct values; ``lo`` derived from ``hi`` so that the relation is symmetric), and within a
subset the key ``group·R + rank`` is counted either by a cumulative ``bincount`` (small key
space) or by one sort of (group, rank, row) and a walk over the distinct (group, rank)
cells — O(n log n) per subset at worst. All subsets share work: a subset's group keys are
its parent's extended by one column (``codes.extend_keys``, :meth:`ViolationEngine.subset_keys`).

A record whose sensitive cell is empty has no value to predict (a removed value): it is in
no kF-set and is never a violation; its risk is NaN.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field as dataclass_field

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError, check_limit
from tklscore.core.risk.qi_importance import MAX_QUASI_IDENTIFIERS, MAX_SUBSETS
from tklscore.core.tables.codes import Codes, compact, extend_keys, factorize, group_ids, group_keys
from tklscore.core.tables.loading import MISSING, Table

OPERATORS = ("gt", "ge")
_BINCOUNT_LIMIT = 1 << 18


@dataclass(frozen=True)
class Transition:
    """The risk transition of one QI subset: N_v, which rows violate, every row's risk."""

    qi_set: tuple[str, ...]
    violations: int
    violating_rows: np.ndarray
    risks: np.ndarray | None            # None when not kept (``all_transitions(keep_risks=False)``)

    def to_json_dict(self) -> dict:
        document = {"qi_set": list(self.qi_set), "violations": self.violations,
                    "violating_rows": [int(i) for i in self.violating_rows]}
        if self.risks is not None:
            document["risks"] = [None if math.isnan(r) else float(r) for r in self.risks]
        return document


@dataclass
class SensitiveField:
    """The sensitive column as ranks: ``rank`` of each row's value among the distinct
    values, the margin window ``[lo, hi]`` in ranks, and ``present`` (not empty)."""

    name: str
    numeric: bool
    values: np.ndarray          # float64 (numeric) or object (text); NaN/'' where absent
    rank: np.ndarray
    lo_of_rank: np.ndarray
    hi_of_rank: np.ndarray
    present: np.ndarray
    distinct: int
    reach: int = 0              # the most distinct values above (below) a value within its margin
    reach_down: int = 0

    def __post_init__(self):
        positions = np.arange(len(self.hi_of_rank))
        self.reach = int((self.hi_of_rank - positions).max(initial=0))
        self.reach_down = int((positions - self.lo_of_rank).max(initial=0))

    @property
    def lo(self) -> np.ndarray:
        return self.lo_of_rank[self.rank]

    @property
    def hi(self) -> np.ndarray:
        return self.hi_of_rank[self.rank]

    @classmethod
    def from_column(cls, table: Table, column: str, margin: float) -> "SensitiveField":
        text = table.frame[column]
        codes, uniques = pd.factorize(text, use_na_sentinel=False)
        uniques = pd.Series(uniques, dtype=object)
        empty = (uniques.map(lambda v: str(v).strip()) == MISSING).to_numpy()
        parsed = pd.to_numeric(uniques, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
        bad = ~np.isfinite(parsed) & ~empty
        numeric = not bad.any() and not empty.all()
        if margin > 0 and not numeric:
            first = int(np.flatnonzero(bad[codes])[0]) if bad.any() else 0
            shown = f"'{text.iloc[first]}'" if bad.any() else "no number at all"
            raise InputError(f"a margin of {margin:g} needs a numeric field, but it holds {shown} "
                             f"({int(bad[codes].sum())} non-numeric cell(s))",
                             file=table.name, row=table.row_number(first) if bad.any() else None,
                             column=column,
                             hint="use --margin 0 (exact matches) for a text field, or fix the value")
        present = ~empty[codes]
        if numeric:
            unique_values = parsed
            ordered = np.unique(parsed[~empty])
            rank_of_unique = np.searchsorted(ordered, parsed)
            positions = np.arange(len(ordered))
            # a difference equal to the margin up to rounding (0.6 − 0.1 vs 0.5) is within it
            slack = 1e-12 * max(margin, float(np.abs(ordered).max(initial=0)), 1.0) if margin > 0 else 0.0
            hi_of_rank = np.maximum(np.searchsorted(ordered, ordered + margin + slack, side="right") - 1, positions)
            # j is within i's margin exactly when i is within j's: the window's low end is
            # the first value whose high end reaches i (the same relation, never recomputed)
            lo_of_rank = np.searchsorted(hi_of_rank, positions, side="left")
            values = np.where(present, unique_values[codes], np.nan)
            distinct = len(ordered)
        else:
            rank_of_unique = np.arange(len(uniques))
            lo_of_rank = hi_of_rank = rank_of_unique
            values = np.where(present, text.to_numpy(dtype=object), None)
            distinct = len(uniques)
        rank = np.where(present, rank_of_unique[codes], 0).astype(np.int64)
        if not len(lo_of_rank):
            lo_of_rank = hi_of_rank = np.zeros(1, dtype=np.int64)
        return cls(column, numeric, values, rank, lo_of_rank.astype(np.int64), hi_of_rank.astype(np.int64),
                   present, max(distinct, 1))


def parse_margin(value, column: str | None = None) -> float:
    try:
        margin = float(value)
    except (TypeError, ValueError):
        raise InputError(f"margin '{value}' is not a number", column=column) from None
    if not math.isfinite(margin) or margin < 0:
        raise InputError(f"margin {value} must be a finite number ≥ 0", column=column,
                         hint="the margin is how far apart two values may be and still count as equal")
    return margin


def check_operator(operator: str) -> str:
    if operator not in OPERATORS:
        raise InputError(f"operator '{operator}' is not one of gt (risk > threshold), ge (risk ≥ threshold)")
    return operator


@dataclass
class ViolationEngine:
    """Risks and violations of one sensitive field over any subset of the QIs of a table."""

    table: Table
    sensitive: str
    qi: list[str]
    margin: float = 0.0
    operator: str = "gt"
    field: SensitiveField = dataclass_field(init=False, repr=False)
    _codes: dict[str, Codes] = dataclass_field(init=False, repr=False)

    def __post_init__(self):
        if isinstance(self.table, pd.DataFrame):
            self.table = Table.from_frame(self.table)
        self.qi = list(self.qi)
        self.margin = parse_margin(self.margin, self.sensitive)
        self.operator = check_operator(self.operator)
        if not self.qi:
            raise InputError("name at least one quasi-identifier", hint="--qi COL[,COL...]")
        if len(set(self.qi)) != len(self.qi):
            raise InputError(f"a quasi-identifier is named twice: {', '.join(self.qi)}")
        if self.sensitive in self.qi:
            raise InputError(f"'{self.sensitive}' is the sensitive field and cannot also be a quasi-identifier",
                             file=self.table.name, column=self.sensitive)
        self.table.require_columns([*self.qi, self.sensitive])
        self.field = SensitiveField.from_column(self.table, self.sensitive, self.margin)
        self._codes = {c: factorize(self.table.frame[c]) for c in self.qi}

    def __len__(self) -> int:
        return len(self.table)

    @property
    def present(self) -> np.ndarray:
        return self.field.present

    def check_qi_set(self, qi_set) -> tuple[str, ...]:
        qi_set = tuple(qi_set)
        unknown = [c for c in qi_set if c not in self._codes]
        if unknown or not qi_set:
            raise InputError(f"QI set {', '.join(qi_set) or '(empty)'} must be a non-empty subset of the "
                             f"quasi-identifiers {', '.join(self.qi)}", hint="--qi-set COL[,COL...]")
        return tuple(c for c in self.qi if c in qi_set)

    def groups(self, qi_set) -> tuple[np.ndarray, int]:
        """The kF-set of each row: dense group ids over the QIs in ``qi_set``."""
        return group_ids([self._codes[c] for c in self.check_qi_set(qi_set)], len(self))

    def risks(self, qi_set, present: np.ndarray | None = None, *, keys: tuple[np.ndarray, int] | None = None
              ) -> np.ndarray:
        """risk_F(i) for every row (NaN where the value is absent); ``keys`` are the
        subset's group keys when the caller has them already."""
        present = self.present if present is None else present & self.present
        if keys is None:
            keys = group_keys([self._codes[c] for c in self.check_qi_set(qi_set)], len(self), limit=self._key_limit)
        shares = match_risks(*keys, self.field, present)
        if len(shares) == len(self):
            return shares
        risks = np.full(len(self), np.nan)
        risks[present] = shares
        return risks

    @property
    def _key_limit(self) -> int:
        """Group keys stay below this, so (key, rank, row) packs into one int64."""
        shift = max(1, (self.field.distinct - 1).bit_length())
        return 1 << max(8, 62 - shift - max(1, len(self).bit_length()))

    def violations(self, qi_set, thresholds: np.ndarray, present: np.ndarray | None = None) -> np.ndarray:
        """Boolean per row: the row's risk exceeds (``gt``) or reaches (``ge``) its threshold."""
        return self.violations_from_risks(self.risks(qi_set, present), thresholds)

    def violations_from_risks(self, risks: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
        thresholds = np.broadcast_to(np.asarray(thresholds, dtype=float), risks.shape)
        with np.errstate(invalid="ignore"):
            exceeded = risks > thresholds if self.operator == "gt" else risks >= thresholds
        return exceeded & ~np.isnan(risks)

    def transition(self, qi_set, thresholds: np.ndarray, present: np.ndarray | None = None, *,
                   keys: tuple[np.ndarray, int] | None = None, keep_risks: bool = True) -> Transition:
        qi_set = self.check_qi_set(qi_set)
        risks = self.risks(qi_set, present, keys=keys)
        violating = np.flatnonzero(self.violations_from_risks(risks, thresholds))
        return Transition(qi_set, int(len(violating)), violating, risks if keep_risks else None)

    def check_subsets(self) -> None:
        """Refuse, before any work, a number of QIs whose subsets are too many to evaluate."""
        check_limit(2 ** len(self.qi) - 1, MAX_SUBSETS, what=f"the risk transitions of {len(self.qi)} "
                    f"quasi-identifiers (one per QI subset)", unit="subsets",
                    hint=f"choose at most {MAX_QUASI_IDENTIFIERS} quasi-identifiers the actor could know, or "
                         f"evaluate one subset (--qi-set)")

    def subsets(self) -> list[tuple[str, ...]]:
        """Every non-empty QI subset, smallest first (in QI order), so the full set — the
        maximum risk transition — comes last."""
        self.check_subsets()
        return [combo for size in range(1, len(self.qi) + 1) for combo in itertools.combinations(self.qi, size)]

    def subset_keys(self):
        """Every non-empty QI subset with its group keys, depth first: a subset's keys are
        its parent's (the subset without its last QI) extended by one column, so each
        subset costs one multiply-add instead of one per QI."""
        self.check_subsets()
        limit = self._key_limit

        def extend(prefix, key, size, start):
            for index in range(start, len(self.qi)):
                child = extend_keys(key, size, self._codes[self.qi[index]], limit)
                subset = (*prefix, self.qi[index])
                yield subset, child
                yield from extend(subset, *child, index + 1)

        yield from extend((), None, 1, 0)

    def all_transitions(self, thresholds: np.ndarray, progress=None, *, keep_risks: bool = True) -> list[Transition]:
        """The risk transition of every QI subset, in :meth:`subsets` order (the maximum
        last). ``keep_risks=False`` keeps N_v and the violating rows but not every row's
        risk (the "try removing fields" table on large data)."""
        total = 2 ** len(self.qi) - 1
        found = {}
        for qi_set, keys in self.subset_keys():
            found[qi_set] = self.transition(qi_set, thresholds, keys=keys, keep_risks=keep_risks)
            if progress is not None:
                progress(len(found), total)
        return [found[qi_set] for qi_set in self.subsets()]


def match_risks(key: np.ndarray, size: int, field: SensitiveField, present: np.ndarray) -> np.ndarray:
    """risk_F of each present row (in order): the share of the present rows of its kF-set
    that lie in its margin window. ``key`` are F's group keys (``codes.group_keys``), below ``size``.

    A small (group, rank) space is counted densely (``bincount`` and a cumulative sum);
    otherwise the (group, rank, row) keys are sorted once and counted per distinct
    (group, rank) cell: a cell's window ends where the cells stop being within its margin,
    found by ``reach`` shifted comparisons of the sorted cells (a window spans at most that
    many distinct values each side) or, for wide windows, one ``searchsorted``."""
    everything = bool(present.all())
    rank = field.rank if everything else field.rank[present]
    m = len(rank)
    if m == 0:
        return np.zeros(0)
    distinct = field.distinct
    if _dense_cells(m) < size * distinct <= 16 * _dense_cells(m):  # compacted, it may fit the dense count
        key, size = compact(key, size)
    if not everything:
        key = key[present]
    if size * distinct <= _dense_cells(m):
        return _dense_risks(key, size, rank, field)
    return _sorted_risks(key, size, rank, field)


def _dense_cells(m: int) -> int:
    return max(_BINCOUNT_LIMIT, m)


def _dense_risks(key, size, rank, field) -> np.ndarray:
    """Count every (group, rank) cell, turn the counts into each cell's risk (its window's
    count over its group's size), and read each row's risk from its cell."""
    distinct = field.distinct
    cell = key * distinct
    cell += rank
    counts = np.bincount(cell, minlength=size * distinct).reshape(size, distinct)
    cumulative = np.zeros((size, distinct + 1), dtype=np.int64)
    np.cumsum(counts, axis=1, out=cumulative[:, 1:])
    window = cumulative[:, field.hi_of_rank + 1] - cumulative[:, field.lo_of_rank]
    with np.errstate(divide="ignore", invalid="ignore"):  # groups with no row are never read
        risk = window / cumulative[:, -1:]
    return risk.ravel()[cell]


def _sorted_risks(key, size, rank, field) -> np.ndarray:
    m = len(rank)
    shift = max(1, (field.distinct - 1).bit_length())
    bits = max(1, m.bit_length())
    if (size << shift) >> (62 - bits):  # too wide to carry the row number: compact, else sort an index
        key, size = compact(key, size)
    cells = (key << shift) | rank
    if (size << shift) >> (62 - bits):
        order = np.argsort(cells)
        keys = cells[order]
    else:  # one sort of (group, rank, row) packed in an int64
        cells <<= bits
        cells |= np.arange(m, dtype=np.int64)
        keys = np.sort(cells)
        order = keys & ((1 << bits) - 1)
        keys >>= bits
    del cells
    new = np.empty(m, dtype=bool)
    new[0] = True
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    starts = np.flatnonzero(new)                      # the distinct (group, rank) cells, in order
    cell = keys[starts]
    del keys
    bounds = np.append(starts, m)                     # rows of cell k: bounds[k] .. bounds[k+1]
    ranks = cell & ((1 << shift) - 1)
    base = cell - ranks
    matches = (bounds[_window_edge(cell, base + field.hi_of_rank[ranks], field.reach, upward=True)]
               - bounds[_window_edge(cell, base + field.lo_of_rank[ranks], field.reach_down, upward=False)])
    group_first = np.empty(len(cell), dtype=bool)
    group_first[0] = True
    np.not_equal(base[1:], base[:-1], out=group_first[1:])
    first_cell = np.flatnonzero(group_first)
    group_rows = np.diff(bounds[np.append(first_cell, len(cell))])
    risk = matches / np.repeat(group_rows, np.diff(np.append(first_cell, len(cell))))
    risks = np.empty(m)
    risks[order] = np.repeat(risk, np.diff(bounds))
    return risks


def _window_edge(cell: np.ndarray, limit: np.ndarray, reach: int, *, upward: bool) -> np.ndarray:
    """For strictly increasing cell keys: one past the last cell ≤ ``limit`` (``upward``),
    or the first cell ≥ ``limit``. A window holds at most ``reach`` cells beyond its own on
    that side, so ``reach`` shifted comparisons find it (one ``searchsorted`` when wide)."""
    c = len(cell)
    if reach > 16:
        return np.searchsorted(cell, limit, side="right" if upward else "left")
    extra = np.zeros(c, dtype=np.int8)
    inside = np.empty(c, dtype=bool)
    for step in range(1, min(reach, c - 1) + 1):
        if upward:
            np.less_equal(cell[step:], limit[:-step], out=inside[:-step])
            np.add(extra[:-step], inside[:-step], out=extra[:-step])
        else:
            np.greater_equal(cell[:-step], limit[step:], out=inside[step:])
            np.add(extra[step:], inside[step:], out=extra[step:])
    edge = np.arange(1, c + 1, dtype=np.int64) if upward else np.arange(c, dtype=np.int64)
    if upward:
        edge += extra
    else:
        edge -= extra
    return edge


def naive_risks(groups: list, values: list, margin: float) -> list[float]:
    """Reference implementation (pairwise, O(Σ|G|²)): for tests and the benchmark only."""
    risks = []
    for i, (gi, xi) in enumerate(zip(groups, values)):
        members = [xj for gj, xj in zip(groups, values) if gj == gi]
        close = sum(1 for xj in members if abs(xj - xi) <= margin)
        risks.append(close / len(members))
    return risks
