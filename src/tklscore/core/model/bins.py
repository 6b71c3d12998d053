"""Bins of a continuous sensitive column (data-model.md §1: "a continuous attribute's values
are bins chosen by the expert, e.g. V.LT-30 ([0,30)) and V.GEQ-30 ([30,∞)); a raw value is
weighted by its bin").

Bins are intervals written as the weights files write them (``[0,30)``, ``[30,inf)``). A set
of bins must be a partition of the line from its first bin's start to its last bin's end:
no two bins overlap (a value would have two weights) and no gap lies between two bins (a
value there would have none). Two ways to propose them, both editable afterwards:

- **quantile bins**: edges at the k-quantiles of the column's values (rounded to the
  column's precision), so that each bin holds about as many records;
- **round-number bins**: edges at multiples of a round width (1, 2, 2.5 or 5 × 10^n) chosen
  so that about five bins span the values.

The first bin starts at 0 when no value is negative (else at −∞) and the last one ends at
∞, so that later records outside today's range still fall in a bin.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tklscore.core.errors import InputError
from tklscore.core.scoring.weights import Interval

DEFAULT_QUANTILES = 4
DEFAULT_ROUND_BINS = 5
_NICE = (1.0, 2.0, 2.5, 5.0)


def _number(x: float) -> str:
    if x == math.inf:
        return "inf"
    if x == -math.inf:
        return "-inf"
    return f"{x:g}" if abs(x) < 1e15 else repr(float(x))


def bins_from_edges(edges: Sequence[float]) -> list[str]:
    """``[e0,e1)``, ``[e1,e2)``, …; the last bin is closed at its end when it is finite
    (so that the largest value, sitting on the last edge, falls in it)."""
    edges = [float(e) for e in edges]
    if len(edges) < 2:
        raise InputError("bins need at least two edges (a start and an end)")
    bins = []
    for k, (low, high) in enumerate(zip(edges, edges[1:])):
        last = k == len(edges) - 2
        close = "]" if last and math.isfinite(high) else ")"
        bins.append(f"{'(' if low == -math.inf else '['}{_number(low)},{_number(high)}{close}")
    return bins


def parse_edges(text: str, column: str = "") -> list[float]:
    """Edges written ``0:30:inf`` (the command line) or ``0, 30, inf`` (the Model view)."""
    parts = [p.strip() for p in text.replace(";", ",").replace(":", ",").split(",") if p.strip()]
    edges = []
    for part in parts:
        try:
            edges.append(float(part))
        except ValueError:
            where = f" of '{column}'" if column else ""
            raise InputError(f"bin edge '{part}'{where} is not a number",
                             hint="write the edges in order, such as 0:30:inf (or 0, 30, inf)") from None
    if any(math.isnan(e) for e in edges):
        raise InputError(f"a bin edge{' of ' + repr(column) if column else ''} is not a number (nan)")
    for a, b in zip(edges, edges[1:]):
        if not a < b:
            raise InputError(f"bin edges{' of ' + repr(column) if column else ''} must increase: "
                             f"{_number(a)} is followed by {_number(b)}")
    return edges


def _start(values: np.ndarray) -> float:
    return 0.0 if len(values) == 0 or float(np.min(values)) >= 0 else -math.inf


def _precision(values: np.ndarray) -> int:
    """Decimals that show the column's values (0 for whole numbers, at most 6)."""
    for decimals in range(7):
        if np.allclose(values, np.round(values, decimals), rtol=0, atol=1e-9):
            return decimals
    return 6


def quantile_bins(values, k: int = DEFAULT_QUANTILES) -> list[str]:
    """About ``k`` bins, each holding about as many of ``values`` (edges at the quantiles,
    rounded to the values' precision; equal edges merge)."""
    numbers = _finite(values)
    if k < 1:
        raise InputError(f"the number of quantile bins must be at least 1, not {k}")
    if len(numbers) == 0:
        raise InputError("the column has no numbers to bin")
    decimals = _precision(numbers)
    inner = np.round(np.quantile(numbers, [i / k for i in range(1, k)]), decimals) if k > 1 else []
    low = float(np.min(numbers))
    edges = [_start(numbers)] + sorted({float(e) for e in inner if float(e) > low}) + [math.inf]
    return bins_from_edges(edges)


def round_width(values, count: int = DEFAULT_ROUND_BINS) -> float:
    """The round width (1, 2, 2.5 or 5 × 10^n) that cuts the values' range into about ``count`` bins."""
    numbers = _finite(values)
    spread = float(np.max(numbers) - np.min(numbers)) if len(numbers) else 0.0
    if spread <= 0:
        return 1.0
    raw = spread / max(1, count)
    exponent = math.floor(math.log10(raw))
    candidates = [n * 10.0 ** e for e in (exponent - 1, exponent, exponent + 1) for n in _NICE]
    return min(candidates, key=lambda w: (abs(spread / w - count), w))


def round_number_bins(values, width: float | None = None, count: int = DEFAULT_ROUND_BINS) -> list[str]:
    """Bins whose inner edges are multiples of ``width`` (default: :func:`round_width`)."""
    numbers = _finite(values)
    if len(numbers) == 0:
        raise InputError("the column has no numbers to bin")
    width = round_width(numbers, count) if width is None else float(width)
    if not (math.isfinite(width) and width > 0):
        raise InputError(f"the width of round-number bins must be a positive number, not {width:g}")
    low, high = float(np.min(numbers)), float(np.max(numbers))
    first = math.floor(low / width) * width + width
    steps = int(math.floor((high - first) / width)) + 1 if high >= first else 0
    if steps > 10_000:
        raise InputError(f"a width of {width:g} cuts the values ({low:g} to {high:g}) into {steps:,} bins",
                         hint="choose a wider width")
    inner = [round(first + i * width, 12) for i in range(steps)]
    start = _start(numbers)
    edges = [start] + [e for e in inner if e > start and e <= high] + [math.inf]
    return bins_from_edges(edges)


def _finite(values) -> np.ndarray:
    numbers = np.asarray(values, dtype=np.float64)
    return numbers[np.isfinite(numbers)]


def check_bins(bins: Sequence[str], column: str) -> list[Interval]:
    """The bins as intervals, sorted; an error naming the bin and the column when one is not
    an interval, is empty, overlaps another or leaves a gap before the next."""
    if not bins:
        raise InputError(f"continuous column '{column}' needs at least one bin", column=column,
                         hint="for example [0,30) and [30,inf)")
    parsed = []
    for text in bins:
        interval = Interval.parse(str(text))
        if interval is None:
            raise InputError(f"'{text}' is not a bin such as [0,30) or [30,inf)", column=column)
        if interval.is_empty():
            raise InputError(f"bin {text} is empty: it holds no value", column=column,
                             hint="a bin's start must lie below its end, e.g. [30,40)")
        parsed.append(interval)
    ordered = sorted(parsed, key=lambda i: (i.low, not i.low_closed))
    for first, second in zip(ordered, ordered[1:]):
        if first.overlaps(second):
            raise InputError(f"bins {first} and {second} overlap: a value must fall in one bin only",
                             column=column, hint=f"end the first where the second starts, e.g. "
                                                 f"{_with_high(first, second)}")
        touching = first.high == second.low and (first.high_closed or second.low_closed)
        if not touching:
            gap = (f"the value {_number(first.high)} falls in no bin and would have no weight"
                   if first.high == second.low
                   else f"values from {_number(first.high)} to {_number(second.low)} fall in no bin and would "
                        f"have no weight")
            raise InputError(f"bins {first} and {second} leave a gap: {gap}", column=column,
                             hint=f"let the second start where the first ends: {_with_low(second, first)}")
    return ordered


def _with_high(first: Interval, second: Interval) -> str:
    return str(Interval(first.low, second.low, first.low_closed, not second.low_closed))


def _with_low(second: Interval, first: Interval) -> str:
    return str(Interval(first.high, second.high, not first.high_closed, second.high_closed))


def uncovered(bins: Sequence[Interval], values, counts=None) -> tuple[int, float, float] | None:
    """How many of ``values`` fall in none of ``bins`` (which :func:`check_bins` accepted),
    and the smallest and largest of them; None when every value falls in a bin. With
    ``counts``, ``values`` are distinct numbers in increasing order, each held ``counts``
    times (``Table.numeric_counts``: a column checked without sorting its rows again)."""
    if counts is None:
        numbers, counts = np.sort(_finite(values)), None
    else:
        numbers, counts = np.asarray(values, dtype=np.float64), np.asarray(counts, dtype=np.int64)
        finite = np.isfinite(numbers)
        numbers, counts = numbers[finite], counts[finite]
    if not len(numbers):
        return None
    inside = np.zeros(len(numbers), dtype=bool)
    for interval in bins:
        inside[interval.positions_in(numbers)] = True
    if inside.all():
        return None
    outside = numbers[~inside]
    count = len(outside) if counts is None else int(counts[~inside].sum())
    return int(count), float(outside[0]), float(outside[-1])


def overlap_length(a: Interval, b: Interval) -> float:
    """How much of the line two intervals share (∞ when both reach to the same infinity)."""
    low, high = max(a.low, b.low), min(a.high, b.high)
    if high < low or (high == low and not (a.overlaps(b))):
        return -1.0
    return high - low if math.isfinite(high - low) else math.inf
