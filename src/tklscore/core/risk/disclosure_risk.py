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


def disclosure_histogram(d: np.ndarray, threshold: float, bins: int = HISTOGRAM_BINS) -> DisclosureHistogram:
    d = np.asarray(d, dtype=np.float64)
    positive = d[d > 0]
    zero = int(len(d) - len(positive))
    if len(positive) == 0:
        return empty_histogram(zero, threshold)
    logs = np.log10(positive)
    counts, edges = np.histogram(logs, bins=bins,
                                 range=histogram_range(float(logs.min()), float(logs.max()), threshold))
    return DisclosureHistogram(counts, edges, zero, threshold)


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
    """Per-record Σ L (``l_sum``) and D (``d``, α included) in table order — or, where an
    engine kept the records (written to ``records_path`` or left in the engine), None and
    the ``summary`` it computed. ``ids``: the records' ids when an engine fetched them."""

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


def disclosure_risk(table: Table | pd.DataFrame, attributes: list[AttributeParameters],
                    value_weights: Weights | None = None, *, alpha: float = DEFAULT_ALPHA,
                    epsilon: float = DEFAULT_EPSILON, threshold: float = DEFAULT_THRESHOLD,
                    parameters_name: str | None = None, progress=None) -> DisclosureRisk:
    """D(r) of every record of ``table`` over the listed attributes."""
    table = table if isinstance(table, Table) else Table(table)
    check_parameters(attributes, alpha, epsilon, parameters_name, threshold)
    unknown = [a for a in attributes if a.attribute not in table.frame.columns]
    if unknown:
        raise InputError(f"attribute '{unknown[0].attribute}' is not a column of {table.name} (its columns: "
                         f"{', '.join(repr(c) for c in table.columns)})", file=parameters_name, row=unknown[0].row,
                         column="attribute")
    if len(table) == 0:
        raise InputError("the table has no records", file=table.name)
    names = [a.attribute for a in attributes]
    pk = [a.pk for a in attributes]
    sets = known_sets(pk, epsilon)
    n = len(table)
    codes = [factorize(table.frame[c]) for c in names]
    # W(A)·W(r(A)) of each attribute (None where it is 0 for every record)
    contribution = [a.weight * _value_weights(table, a.attribute, value_weights, c) if a.weight else None
                    for a, c in zip(attributes, codes)]
    contribution = [c if c is not None and c.any() else None for c in contribution]
    c_total = np.zeros(n)
    for c in contribution:
        if c is not None:
            c_total += c
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
            child_known = c_known if contribution[j] is None else (
                contribution[j] if c_known is None else c_known + contribution[j])
            if child_known is not None:
                L *= child_known
                np.add(lc_sum, L, out=lc_sum)
            del L
            done += 1
            if progress is not None:
                progress(done / len(sets))
            if (subset + (j,)) in children:
                visit(subset + (j,), key, child_space, pk_set * pk[j], child_known)

    visit((), np.zeros(n, dtype=np.int64), 1, 1.0, None)
    d = l_sum * c_total
    d -= lc_sum
    d *= alpha
    return DisclosureRisk(names, [tuple(names[i] for i in s) for s in sets], l_sum, d, alpha, epsilon, threshold)


def _value_weights(table: Table, attribute: str, weights: Weights | None, codes) -> np.ndarray:
    """W(r(A)) of every row; 0 where no weight is given."""
    n = len(table)
    if weights is None or attribute not in weights.attributes:
        return np.zeros(n)
    if is_numeric_attribute(weights, attribute):
        codes = factorize(table.numeric(attribute), ordered=True)
        per_value = weights.weights_of(attribute, codes.uniques, True)
    else:
        per_value = weights.weights_of(attribute, codes.uniques, False)
    return np.nan_to_num(per_value, nan=0.0)[codes.codes]


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


__all__ = ["AttributeParameters", "DisclosureRisk", "disclosure_risk", "known_sets", "load_attribute_parameters",
           "parameters_from_codes"]
