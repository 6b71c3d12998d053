"""Value-prediction risk and violations (disclosure-risk.md A3, Algorithm 1 cleaned).

For a QI subset F, record i's kF-set G_F(i) is the records sharing i's (generalised)
values of the QIs in F — a group of the shared engine :mod:`tklscore.core.tables.codes`.
Its risk is the share of the set whose sensitive value lies within the margin of i's:

    risk_F(i) = |{j ∈ G_F(i) : |x_j − x_i| ≤ margin}| / |G_F(i)|

and it is a violation when ``risk_F(i) > threshold_i`` (strict ``>`` by default, ``≥``
selectable). N_v(F) counts the violations.

The margin count is never pairwise: the distinct sensitive values are ranked once, each
value's margin window becomes a rank interval ``[lo, hi]`` (two ``searchsorted`` on the
sorted distinct values), and within a subset the key ``group·R + rank`` is counted either
by a cumulative ``bincount`` (small key space) or by sorting the keys and two
``searchsorted`` lookups — O(n log n) per subset at worst.

A record whose sensitive cell is empty has no value to predict (a removed value): it is in
no kF-set and is never a violation; its risk is NaN.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field as dataclass_field

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError
from tklscore.core.tables.codes import Codes, factorize, group_ids, group_keys
from tklscore.core.tables.loading import MISSING, Table

OPERATORS = ("gt", "ge")
_BINCOUNT_LIMIT = 1 << 18


@dataclass(frozen=True)
class Transition:
    """The risk transition of one QI subset: N_v, which rows violate, every row's risk."""

    qi_set: tuple[str, ...]
    violations: int
    violating_rows: np.ndarray
    risks: np.ndarray

    def to_json_dict(self) -> dict:
        return {"qi_set": list(self.qi_set), "violations": self.violations,
                "violating_rows": [int(i) for i in self.violating_rows],
                "risks": [None if math.isnan(r) else float(r) for r in self.risks]}


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
            lo_of_rank = np.minimum(np.searchsorted(ordered, ordered - margin, side="left"), positions)
            hi_of_rank = np.maximum(np.searchsorted(ordered, ordered + margin, side="right") - 1, positions)
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

    def risks(self, qi_set, present: np.ndarray | None = None) -> np.ndarray:
        """risk_F(i) for every row (NaN where the value is absent)."""
        present = self.present if present is None else present & self.present
        columns = [self._codes[c] for c in self.check_qi_set(qi_set)]
        shares = match_risks(columns, len(self), self.field, present)
        if len(shares) == len(self):
            return shares
        risks = np.full(len(self), np.nan)
        risks[present] = shares
        return risks

    def violations(self, qi_set, thresholds: np.ndarray, present: np.ndarray | None = None) -> np.ndarray:
        """Boolean per row: the row's risk exceeds (``gt``) or reaches (``ge``) its threshold."""
        return self.violations_from_risks(self.risks(qi_set, present), thresholds)

    def violations_from_risks(self, risks: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
        thresholds = np.broadcast_to(np.asarray(thresholds, dtype=float), risks.shape)
        with np.errstate(invalid="ignore"):
            exceeded = risks > thresholds if self.operator == "gt" else risks >= thresholds
        return exceeded & ~np.isnan(risks)

    def transition(self, qi_set, thresholds: np.ndarray, present: np.ndarray | None = None) -> Transition:
        qi_set = self.check_qi_set(qi_set)
        risks = self.risks(qi_set, present)
        violating = np.flatnonzero(self.violations_from_risks(risks, thresholds))
        return Transition(qi_set, int(len(violating)), violating, risks)

    def subsets(self) -> list[tuple[str, ...]]:
        """Every non-empty QI subset, smallest first (in QI order), so the full set — the
        maximum risk transition — comes last."""
        return [combo for size in range(1, len(self.qi) + 1) for combo in itertools.combinations(self.qi, size)]

    def all_transitions(self, thresholds: np.ndarray, progress=None) -> list[Transition]:
        subsets = self.subsets()
        result = []
        for index, qi_set in enumerate(subsets):
            result.append(self.transition(qi_set, thresholds))
            if progress is not None:
                progress(index + 1, len(subsets))
        return result


def match_risks(columns: list[Codes], n: int, field: SensitiveField, present: np.ndarray) -> np.ndarray:
    """risk_F of each present row (in order): the share of the present rows of its kF-set
    that lie in its margin window. ``columns`` are the codes of the QIs in F."""
    everything = bool(present.all())
    rank = field.rank if everything else field.rank[present]
    m = len(rank)
    if m == 0:
        return np.zeros(0)
    shift = max(1, (field.distinct - 1).bit_length())
    span = 1 << shift  # a power of two: keys split by shifts, not divisions
    bits = max(1, m.bit_length())
    key, size = group_keys(columns, n, limit=max(2, (1 << (62 - bits)) // span))
    if not everything:
        key = key[present]
    if size * span <= max(_BINCOUNT_LIMIT, m // 4):  # small key space: count, no sort
        base = key << shift
        cumulative = np.zeros(size * span + 1, dtype=np.int64)
        np.cumsum(np.bincount(base + rank, minlength=size * span), out=cumulative[1:])
        matches = cumulative[base + field.hi_of_rank[rank] + 1] - cumulative[base + field.lo_of_rank[rank]]
        return matches / np.bincount(key, minlength=size)[key]
    if (size * span) >> (62 - bits):  # keys too wide to carry the row number: sort an index
        order = np.argsort((key << shift) | rank, kind="stable")
        keys = ((key << shift) | rank)[order]
    else:  # one sort of (key, rank, row) packed in an int64: no argsort, no hash pass
        packed = np.sort((((key << shift) | rank) << bits) | np.arange(m, dtype=np.int64))
        keys = packed >> bits
        order = packed & ((1 << bits) - 1)
    groups = keys >> shift
    base = groups << shift
    ranks = keys & (span - 1)
    matches = (np.searchsorted(keys, base + field.hi_of_rank[ranks], side="right")
               - np.searchsorted(keys, base + field.lo_of_rank[ranks], side="left"))
    new_group = np.empty(m, dtype=bool)
    new_group[0] = True
    np.not_equal(groups[1:], groups[:-1], out=new_group[1:])
    starts = np.flatnonzero(new_group)
    lengths = np.diff(starts, append=m)
    risks = np.empty(m)
    risks[order] = matches / lengths[np.cumsum(new_group) - 1]
    return risks


def naive_risks(groups: list, values: list, margin: float) -> list[float]:
    """Reference implementation (pairwise, O(Σ|G|²)): for tests and the benchmark only."""
    risks = []
    for i, (gi, xi) in enumerate(zip(groups, values)):
        members = [xj for gj, xj in zip(groups, values) if gj == gi]
        close = sum(1 for xj in members if abs(xj - xi) <= margin)
        risks.append(close / len(members))
    return risks
