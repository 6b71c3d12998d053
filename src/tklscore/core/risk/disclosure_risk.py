"""Orooji & Knapp's record-level disclosure risk D(r) (spec disclosure-risk.md Part B,
privacy-models.md §4).

    D(r) = α Σ_KS L_KS(r) · C_UKS(r)
    L_KS(r) = PK(KS) / count(r(KS)),   PK(KS) = Π_{A∈KS} PK(A)   (PK(∅) = 1, count(∅) = n)
    C_UKS(r) = Σ_{A∉KS} W(A) · W(r(A)) = C_total(r) − Σ_{A∈KS} W(A) · W(r(A))

The known sets KS are the subsets with PK(KS) > ε (Fig. 1's predicate; ε = 0 keeps every
set with PK > 0), enumerated depth-first as a subset tree, so a pruned set's subtree is
never visited. Each known set costs one pass over the rows: its group ids are its
parent's ids extended by the codes of the one attribute it adds (compacted by hashing
only when the id space would outgrow the rows).

Value weights come from a weights file (attribute,value,weight): an attribute whose
entries are intervals such as ``[0,40)`` is numeric (its cells are parsed as numbers and
take the weight of their interval; the count still matches exact values); values without
a weight weigh 0 (B5).
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.text import read_text
from tklscore.core.scoring.weights import Interval, Weights
from tklscore.core.tables.codes import compact, factorize
from tklscore.core.tables.loading import Table

DEFAULT_ALPHA = 1.0
DEFAULT_EPSILON = 0.01
DEFAULT_THRESHOLD = 0.01
MAX_KNOWN_SETS = 1 << 20


def share_above(above_threshold: int, n: int) -> float:
    """The share of the records whose D exceeds the threshold (0 without records)."""
    return above_threshold / n if n else 0.0


@dataclass(frozen=True)
class AttributeParameters:
    """PK(A) (probability the attacker knows A) and W(A) (its weight), as the publisher sets them."""

    attribute: str
    pk: float
    weight: float
    row: int | None = None


HISTOGRAM_BINS = 40


@dataclass(frozen=True)
class DisclosureHistogram:
    """Records per bin of log10 D over the records with D > 0; ``zero`` records have D = 0.
    The range covers the threshold, so its line falls on the axis."""

    counts: np.ndarray
    edges: np.ndarray        # log10 D, len(counts) + 1
    zero: int
    threshold: float


def histogram_range(low: float, high: float, threshold: float) -> tuple[float, float]:
    """The range of log10 D the histogram spans (every engine): ``low``..``high``, the log10
    of the smallest positive and of the largest D, widened to the threshold, and by half a
    decade each side when they meet."""
    if threshold > 0:
        low, high = min(low, float(np.log10(threshold))), max(high, float(np.log10(threshold)))
    if high - low < 1e-9:
        low, high = low - 0.5, high + 0.5
    return low, high


def empty_histogram(zero: int, threshold: float) -> DisclosureHistogram:
    """The histogram when no record has D > 0."""
    return DisclosureHistogram(np.zeros(0, dtype=np.int64), np.zeros(0), zero, threshold)


def histogram_edges(d_min: float, d_max: float, threshold: float, bins: int = HISTOGRAM_BINS) -> np.ndarray:
    """The ``bins + 1`` edges (log10 D) of the histogram of the positive D from ``d_min`` to
    ``d_max`` (:func:`histogram_range`), evenly spaced as ``numpy.histogram`` spaces them."""
    low, high = histogram_range(float(np.log10(d_min)), float(np.log10(d_max)), threshold)
    return np.linspace(low, high, bins + 1)


def bin_bounds(edges: np.ndarray) -> np.ndarray:
    """The inner edges as values of D (10 ** edge): **the one binning rule** of every engine.
    A record's bin is how many of them are ≤ its D; D is compared as it is, never through a
    logarithm (an engine's LOG10 and numpy's differ by an ulp, which moves a D lying on an
    edge to the next bin)."""
    return np.power(10.0, np.asarray(edges, dtype=np.float64)[1:-1])


def bin_counts(positive: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Records per bin of the positive D (the rule of :func:`bin_bounds`; an engine counts the
    same in SQL, :meth:`tklscore.core.engines.plan.DisclosurePlan.histogram`)."""
    bins = np.searchsorted(bounds, np.asarray(positive, dtype=np.float64), side="right")
    return np.bincount(bins, minlength=len(bounds) + 1).astype(np.int64)


def disclosure_histogram(d: np.ndarray, threshold: float, bins: int = HISTOGRAM_BINS) -> DisclosureHistogram:
    """The histogram of log10 D of per-record D (records at 0 counted apart)."""
    d = np.asarray(d, dtype=np.float64)
    positive = d[d > 0]
    zero = int(len(d) - len(positive))
    if len(positive) == 0:
        return empty_histogram(zero, threshold)
    edges = histogram_edges(float(positive.min()), float(positive.max()), threshold, bins)
    return DisclosureHistogram(bin_counts(positive, bin_bounds(edges)), edges, zero, threshold)


@dataclass(frozen=True)
class DisclosureSummary:
    """What an engine that keeps the records hands back: their number, how many lie above
    the threshold and at 0, the largest D and the histogram."""

    n: int
    above_threshold: int
    zero: int
    d_max: float
    histogram: DisclosureHistogram


@dataclass
class DisclosureRisk:
    """Per-record Σ L (``l_sum``) and D (``d``, α included) in table order — None where an
    engine kept the records (written to ``records_path`` or left in the engine) — and the
    ``summary`` (above the threshold, at 0, the largest D, the histogram) every engine
    computes alike. ``ids``: the records' ids when a source names them.""" 

    attributes: list[str]
    known_sets: list[tuple[str, ...]]
    l_sum: np.ndarray | None
    d: np.ndarray | None
    alpha: float
    epsilon: float
    threshold: float
    summary: DisclosureSummary | None = None
    ids: np.ndarray | None = None
    records_path: str | None = None
    _histogram: DisclosureHistogram | None = field(default=None, repr=False, compare=False)

    @property
    def splits(self) -> int:
        return 2 ** len(self.attributes)

    @property
    def has_records(self) -> bool:
        return self.d is not None

    @property
    def above_threshold(self) -> int:
        return int((self.d > self.threshold).sum()) if self.d is not None else self.summary.above_threshold

    @property
    def above_threshold_share(self) -> float:
        return share_above(self.above_threshold, self.n)

    @property
    def n(self) -> int:
        return len(self.d) if self.d is not None else self.summary.n

    @property
    def zero(self) -> int:
        """How many records have D = 0."""
        return int((self.d <= 0).sum()) if self.d is not None else self.summary.zero

    @property
    def d_max(self) -> float:
        if self.d is None:
            return self.summary.d_max
        return float(self.d.max()) if len(self.d) else 0.0

    @property
    def histogram(self) -> DisclosureHistogram:
        """The histogram of log10 D the Risk view draws (:data:`HISTOGRAM_BINS` bins)."""
        if self.summary is not None:
            return self.summary.histogram
        if self._histogram is None:
            self._histogram = disclosure_histogram(self.d, self.threshold)
        return self._histogram

    def to_json_dict(self, ids=None) -> dict:
        if self.d is None:
            raise ValueError("the per-record results were not fetched")
        if ids is None:
            records = [{"row": i, "l_sum": float(l), "d": float(d)}
                       for i, (l, d) in enumerate(zip(self.l_sum, self.d))]
        else:
            records = [{"id": str(i), "l_sum": float(l), "d": float(d)} for i, l, d in zip(ids, self.l_sum, self.d)]
        return {"splits": self.splits, "known_sets": [list(s) for s in self.known_sets], "records": records,
                "above_threshold": self.above_threshold}

    def summary_dict(self) -> dict:
        """The summary without the records (``disclosure-risk`` with an engine's Parquet output)."""
        h = self.histogram
        return {"records": self.n, "splits": self.splits, "known_sets": [list(s) for s in self.known_sets],
                "alpha": self.alpha, "epsilon": self.epsilon, "threshold": self.threshold,
                "above_threshold": self.above_threshold, "largest_d": self.d_max,
                "histogram": {"log10_edges": [float(e) for e in h.edges], "counts": [int(c) for c in h.counts],
                              "zero": h.zero}}


def parameter_value(text: str) -> float:
    """A PK or W(A) as a publisher types it: a number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise InputError(f"'{text}' is not a number in [0, 1]")
    return value


def check_parameters(attributes: list[AttributeParameters], alpha: float, epsilon: float,
                     name: str | None = None, threshold: float | None = None) -> None:
    seen: dict[str, int | None] = {}
    for a in attributes:
        if not a.attribute:
            raise InputError("the attribute is empty", file=name, row=a.row, column="attribute")
        if a.attribute in seen:
            raise InputError(f"attribute '{a.attribute}' is listed twice (also row {seen[a.attribute]})",
                             file=name, row=a.row, column="attribute")
        seen[a.attribute] = a.row
        if not (math.isfinite(a.pk) and 0.0 <= a.pk <= 1.0):
            raise InputError(f"PK {a.pk:g} of '{a.attribute}' is outside [0, 1]", file=name, row=a.row, column="pk",
                             hint="PK is the probability that an attacker knows the attribute")
        if not (math.isfinite(a.weight) and 0.0 <= a.weight <= 1.0):
            raise InputError(f"weight {a.weight:g} of '{a.attribute}' is outside [0, 1]", file=name, row=a.row,
                             column="weight")
    if not (math.isfinite(alpha) and alpha > 0):
        raise InputError(f"α = {alpha:g} is not allowed; the consequence coefficient must be > 0", column="alpha")
    if not (math.isfinite(epsilon) and epsilon >= 0):
        raise InputError(f"ε = {epsilon:g} is not allowed; ε ≥ 0 (ε = 0 keeps every known set with PK > 0)",
                         column="epsilon")
    if threshold is not None and not (math.isfinite(threshold) and threshold >= 0):
        raise InputError(f"threshold {threshold:g} is not allowed; records are counted where D > T, a number ≥ 0",
                         column="threshold")


def known_sets(pk: list[float], epsilon: float, limit: int = MAX_KNOWN_SETS) -> list[tuple[int, ...]]:
    """Index sets S with Π_{j∈S} pk_j > ε (∅ included), in Fig. 1's depth-first pre-order.
    More than ``limit`` sets is an error that says how many would be enumerated."""
    out: list[tuple[int, ...]] = [()]
    m = len(pk)

    def visit(subset: tuple[int, ...], product: float) -> None:
        for j in range(subset[-1] + 1 if subset else 0, m):
            p = product * pk[j]
            if p > epsilon:
                out.append(subset + (j,))
                if len(out) > limit:
                    raise _TooMany()
                visit(subset + (j,), p)

    try:
        if 1.0 > epsilon:
            visit((), 1.0)
        else:
            out = []
    except _TooMany:
        positive = sum(1 for p in pk if p > 0)
        count = f"{2 ** positive:,}" if epsilon == 0 else f"more than {limit:,}"
        raise InputError(f"{count} known sets would be enumerated for {m} attributes (2^{m} = {2 ** m:,} splits); "
                         f"at most {limit:,} are allowed", column="epsilon",
                         hint="raise ε to prune the known sets, or lower the PK of attributes an attacker "
                              "rarely knows") from None
    return out


class _TooMany(Exception):
    pass


class DisclosureAggregates:
    """What D(r) is computed from, in memory or in an engine — the provider the one
    orchestration (:func:`disclosure_over`) asks, as the measures ask theirs
    (:mod:`tklscore.core.risk.aggregates`):

    - ``name``, ``columns``: the table's name and the columns a user may name;
    - :meth:`values` of an attribute (its distinct values as written) and, for an attribute
      weighed by intervals, :meth:`numbers` (those values parsed, or an error naming the
      first cell that is not a number);
    - :meth:`count`, the records;
    - :meth:`sums`: per record Σ_KS L and D = α (C_total · Σ L − Σ L·C_KS) over the known
      sets, each set's records counted by the set's values (:class:`MemoryDisclosureAggregates`
      on the shared group-by engine; the engines' ``EngineDisclosureAggregates`` in SQL from
      :class:`~tklscore.core.engines.plan.DisclosurePlan`, the same floating-point operations in
      the same order);
    - :meth:`summary` and :meth:`bin_counts`: what is left where the records stay (above
      the threshold, at 0, the smallest positive and the largest D; the records per bin
      under :func:`bin_bounds`' rule);
    - :meth:`records`: the per-record arrays, or None where the engine keeps them.

    ``weighted`` maps an attribute's index to the distinct values that weigh and W(A)·W(v)
    of each (the values :meth:`values` gave)."""

    name: str = "table"
    columns: list[str]

    def values(self, attribute: str) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def numbers(self, attribute: str, values: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def count(self) -> int:  # pragma: no cover - interface
        raise NotImplementedError

    def sums(self, attributes: list[str], sets: list[tuple[int, ...]], pk: list[float],
             weighted: dict[int, tuple[np.ndarray, np.ndarray]], alpha: float, progress) -> None:
        raise NotImplementedError  # pragma: no cover - interface

    def summary(self, threshold: float) -> tuple[int, int, float | None, float]:  # pragma: no cover
        """(above the threshold, at 0, the smallest positive D or None, the largest D)."""
        raise NotImplementedError

    def bin_counts(self, bounds: np.ndarray) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def records(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(Σ L, D) per record in table order, where they are at hand."""
        return None


def disclosure_over(aggregates: DisclosureAggregates, attributes: list[AttributeParameters],
                    value_weights: Weights | None = None, *, alpha: float = DEFAULT_ALPHA,
                    epsilon: float = DEFAULT_EPSILON, threshold: float = DEFAULT_THRESHOLD,
                    parameters_name: str | None = None, progress=None) -> DisclosureRisk:
    """D(r) of every record a provider holds, over the listed attributes — **the one
    orchestration** of every engine: the parameters and the attributes checked, the known
    sets enumerated, W(A)·W(v) looked up per distinct value, the sums asked for, and the
    summary and histogram binned by one rule. ``progress(fraction)`` may raise to stop."""
    report = progress or (lambda _fraction: None)
    check_parameters(attributes, alpha, epsilon, parameters_name, threshold)
    unknown = [a for a in attributes if a.attribute not in aggregates.columns]
    if unknown:
        raise InputError(f"attribute '{unknown[0].attribute}' is not a column of {aggregates.name} (its columns: "
                         f"{', '.join(repr(c) for c in aggregates.columns)})", file=parameters_name,
                         row=unknown[0].row, column="attribute")
    names = [a.attribute for a in attributes]
    pk = [a.pk for a in attributes]
    sets = known_sets(pk, epsilon)
    weighted: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for j, a in enumerate(attributes):
        if not a.weight or value_weights is None or a.attribute not in value_weights.attributes:
            continue
        values = aggregates.values(a.attribute)
        numbers = aggregates.numbers(a.attribute, values) if is_numeric_attribute(value_weights, a.attribute) \
            else None
        per_value = a.weight * value_weights_of(a.attribute, values, numbers, value_weights)
        if per_value.any():
            weighted[j] = (values, per_value)
    n = aggregates.count()
    if n == 0:
        raise InputError("the table has no records", file=aggregates.name)
    report(0.05)
    aggregates.sums(names, sets, pk, weighted, float(alpha), lambda f: report(0.05 + 0.85 * f))
    above, zero, d_min, d_max = aggregates.summary(threshold)
    if d_min is None:
        histogram = empty_histogram(zero, threshold)
    else:
        edges = histogram_edges(d_min, d_max, threshold)
        histogram = DisclosureHistogram(aggregates.bin_counts(bin_bounds(edges)), edges, zero, threshold)
    records = aggregates.records()
    l_sum, d = records if records is not None else (None, None)
    report(1.0)
    return DisclosureRisk(names, [tuple(names[i] for i in s) for s in sets], l_sum, d, float(alpha), float(epsilon),
                          float(threshold), DisclosureSummary(n, above, zero, d_max, histogram))


class MemoryDisclosureAggregates(DisclosureAggregates):
    """D(r)'s aggregates of a table in memory, on the shared group-by engine: each known
    set costs one pass over the rows, its group ids its parent's extended by the codes of
    the one attribute it adds (compacted by hashing only when the id space would outgrow
    the rows); the subset tree is walked depth-first, so a pruned set's subtree is never
    visited."""

    def __init__(self, table: Table | pd.DataFrame):
        self.table = table if isinstance(table, Table) else Table(table)
        self.name, self.columns = self.table.name, list(self.table.frame.columns)
        self._codes: dict[str, object] = {}
        self.l_sum = self.d = None

    def _codes_of(self, attribute: str):
        if attribute not in self._codes:
            self._codes[attribute] = factorize(self.table.frame[attribute])
        return self._codes[attribute]

    def values(self, attribute: str) -> np.ndarray:
        return np.asarray(self._codes_of(attribute).uniques, dtype=object)

    def numbers(self, attribute: str, values: np.ndarray) -> np.ndarray:
        self.table.numeric(attribute)   # every cell a number, or the first that is not named
        return pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=np.float64)

    def count(self) -> int:
        return len(self.table)

    def sums(self, attributes, sets, pk, weighted, alpha, progress) -> None:
        n = len(self.table)
        codes = [self._codes_of(c) if any(j in s for s in sets) else None for j, c in enumerate(attributes)]
        # W(A)·W(r(A)) of each attribute that weighs
        contribution = {j: per_value[self._codes_of(attributes[j]).codes] for j, (_, per_value) in weighted.items()}
        c_total = np.zeros(n)
        for j in sorted(contribution):
            c_total += contribution[j]
        # D = α Σ_KS L·(C_total − C_KS) = α (C_total · Σ L − Σ L·C_KS): two sums per record
        l_sum = np.full(n, 1.0 / n)  # KS = ∅: PK 1, count n, C_KS 0
        lc_sum = np.zeros(n)
        done = 1
        children: dict[tuple[int, ...], list[int]] = {}
        for s in sets[1:]:
            children.setdefault(s[:-1], []).append(s[-1])

        def visit(subset: tuple[int, ...], ids: np.ndarray, space: int, pk_set: float, c_known) -> None:
            nonlocal done
            for j in children.get(subset, ()):
                card = max(codes[j].cardinality, 1)
                if space * card > max(4 * n, 1 << 16):
                    ids, space = compact(ids, space)
                key = ids * card
                key += codes[j].codes
                child_space = space * card
                L = np.divide(pk_set * pk[j], np.bincount(key, minlength=child_space)[key])
                np.add(l_sum, L, out=l_sum)
                added = contribution.get(j)
                child_known = c_known if added is None else (added if c_known is None else c_known + added)
                if child_known is not None:
                    L *= child_known
                    np.add(lc_sum, L, out=lc_sum)
                del L
                done += 1
                progress(done / len(sets))
                if (subset + (j,)) in children:
                    visit(subset + (j,), key, child_space, pk_set * pk[j], child_known)

        visit((), np.zeros(n, dtype=np.int64), 1, 1.0, None)
        d = l_sum * c_total
        d -= lc_sum
        d *= alpha
        self.l_sum, self.d = l_sum, d

    def summary(self, threshold: float) -> tuple[int, int, float | None, float]:
        d = self.d
        positive = d[d > 0]
        return (int((d > threshold).sum()), int(len(d) - len(positive)),
                float(positive.min()) if len(positive) else None, float(d.max()) if len(d) else 0.0)

    def bin_counts(self, bounds: np.ndarray) -> np.ndarray:
        return bin_counts(self.d[self.d > 0], bounds)

    def records(self) -> tuple[np.ndarray, np.ndarray]:
        return self.l_sum, self.d


def disclosure_risk(table: Table | pd.DataFrame, attributes: list[AttributeParameters],
                    value_weights: Weights | None = None, *, alpha: float = DEFAULT_ALPHA,
                    epsilon: float = DEFAULT_EPSILON, threshold: float = DEFAULT_THRESHOLD,
                    parameters_name: str | None = None, progress=None) -> DisclosureRisk:
    """D(r) of every record of ``table`` in memory (:func:`disclosure_over` on
    :class:`MemoryDisclosureAggregates`)."""
    return disclosure_over(MemoryDisclosureAggregates(table), attributes, value_weights, alpha=alpha,
                           epsilon=epsilon, threshold=threshold, parameters_name=parameters_name, progress=progress)


def is_numeric_attribute(weights: Weights, attribute: str) -> bool:
    """An attribute whose value weights are all intervals such as ``[0,40)``: its cells are
    numbers and take the weight of their interval."""
    values = [e.value for e in weights.entries if e.attribute == attribute]
    return any(v.strip()[:1] in "[(" for v in values) and all(Interval.parse(v) is not None for v in values)


def value_weights_of(attribute: str, values: np.ndarray, numbers: np.ndarray | None,
                     weights: Weights | None) -> np.ndarray:
    """W(v) of each distinct value (``values``: as written; ``numbers``: the same parsed,
    for a numeric attribute), 0 where no weight is given: the lookup the engines share."""
    if weights is None or attribute not in weights.attributes:
        return np.zeros(len(values))
    if is_numeric_attribute(weights, attribute):
        sorted_numbers, back = np.unique(np.asarray(numbers, dtype=np.float64), return_inverse=True)
        per_value = weights.weights_of(attribute, sorted_numbers, True)[back.reshape(-1)]
    else:
        per_value = weights.weights_of(attribute, np.asarray(values, dtype=object), False)
    return np.nan_to_num(per_value, nan=0.0)


def load_attribute_parameters(path: str | os.PathLike) -> list[AttributeParameters]:
    """Read ``attribute,pk,weight`` (columns in any order)."""
    path = existing_file(path, "attribute parameters file")
    name = str(path)
    text = read_text(path, "attribute parameters file").lstrip("\ufeff")
    from tklscore.core.tables.loading import detect_delimiter

    rows = list(csv.reader(io.StringIO(text), delimiter=detect_delimiter(text, path.suffix.lower())))
    if not rows:
        raise InputError("the attribute parameters file is empty", file=name)
    header = [h.strip().lower() for h in rows[0]]
    missing = [c for c in ("attribute", "pk", "weight") if c not in header]
    if missing:
        raise InputError(f"the header lacks column(s) {', '.join(missing)}; expected attribute,pk,weight",
                         file=name, row=1)
    ia, ip, iw = (header.index(c) for c in ("attribute", "pk", "weight"))
    out = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(ia, ip, iw):
            raise InputError(f"has {len(row)} field(s); expected {len(header)}", file=name, row=number)
        values = {}
        for column, index in (("pk", ip), ("weight", iw)):
            raw = row[index].strip()
            try:
                values[column] = float(raw)
            except ValueError:
                raise InputError(f"{column} '{raw}' is not a number", file=name, row=number, column=column) from None
        out.append(AttributeParameters(row[ia].strip(), values["pk"], values["weight"], number))
    if not out:
        raise InputError("lists no attribute", file=name)
    check_parameters(out, DEFAULT_ALPHA, 0.0, name)
    return out


def parameters_from_codes(names: list[str], pk: list[float], weight: list[float]) -> list[AttributeParameters]:
    """Parameters for code (e.g. the application's editable table)."""
    return [AttributeParameters(a, float(p), float(w)) for a, p, w in zip(names, pk, weight)]


__all__ = ["AttributeParameters", "DisclosureAggregates", "DisclosureRisk", "MemoryDisclosureAggregates",
           "disclosure_over", "disclosure_risk", "known_sets", "load_attribute_parameters",
           "parameters_from_codes"]
