"""Exact sums: a table score the same figure whichever engine sums it and in whichever order.

In memory a table's tkl-Score is the sum of its records' scores in record order; out of core
it is the sum over the finest aggregate's rows of ``cnt · score``, in pieces of classes. Two
orders of a floating-point sum differ in their last bits, and a last bit can reorder a near
tie on a Pareto front. Both engines therefore sum through :func:`exact_sum`: the sum of the
exact real numbers, rounded once to the nearest double — the same figure for the same
records, whether each record is a term or ``cnt`` equal records are one term.

How (vectorised, no Python loop over the terms):

- ``cnt · x`` is written exactly as two products of halves (Veltkamp's split of ``x`` into
  two 26-bit halves; a count below 2**27 times a half fits a double's 53 bits; larger counts
  are split too);
- the terms are summed by extraction (Rump, Ogita and Oishi's ``ExtractVector``): with σ a
  power of two at least ``2n`` times the largest term, ``q = (σ + x) − σ`` rounds each term to
  one grid and ``x − q`` is exact; the ``q`` add up without any rounding in any order, and the
  remainders, 2**29 or more times smaller at a million terms, go round again until none is left.
- :func:`exact_parts` returns those exact partial sums: parts of pieces are added by
  concatenating them, and :func:`rounded_sum` rounds their total once (correctly: ``math.fsum``;
  when its partial sums leave a double's range, ``Fraction`` arithmetic, and ±inf only when the
  exact sum does). A term of ``HUGE`` or more times a count is written exactly apart.

An engine (DuckDB, Spark) sums a relation's scores without fetching them: its SQL
(:meth:`tklscore.core.engines.plan.Plan.totals`) writes each finite score ``x`` as an integer
times a power of two, ``x = (high · 2**HALF_BITS + low) · 2**unit`` (exact: a double scaled by a
power of two), and sums ``cnt · high`` and ``cnt · low`` as integers by ``unit`` — exact in any
order and on any number of threads; :func:`sum_of_units` adds those sums exactly and rounds
once, to the double :func:`exact_sum` gives for the same terms.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

SPLIT = 134217729.0         # 2**27 + 1: Veltkamp's factor, two halves of at most 26 bits
WHOLE_BITS = 27             # a count below 2**27 times a 26-bit half is exact
BLOCK = 1 << 15             # terms summed a block at a time (the block's temporaries stay in cache)
LEVELS = 8                  # terms spread wider than this many extractions: math.fsum the rest
HALF_BITS = 28              # an engine's integer parts of a score: two of at most 28 bits (:func:`sum_of_units`)
UNIT_BELOW = 54             # a score's unit: 2**(⌊log2 |x|⌋ - 54), its integer below 2**56 whatever log2's last bit
HUGE = 2.0 ** 960           # a term this large times a count (below 2**63) could leave a double's range when split


def exact_sum(values, counts=None) -> float:
    """Σ values (· counts), the exact sum rounded once to the nearest double; NaN or ±inf as
    numpy's sum gives them; ±inf when the exact sum is beyond a double."""
    return rounded_sum(exact_parts(values, counts))


def rounded_sum(parts) -> float:
    """The exact sum of ``parts`` (:func:`exact_parts`' doubles and integers, of one sum or of
    its pieces concatenated) rounded once to the nearest double; ±inf when it is beyond a
    double; a NaN or ±inf among the parts as numpy's sum gives it."""
    try:
        return math.fsum(parts)
    except ValueError:              # +inf and -inf
        return math.nan
    except OverflowError:           # a partial sum (or an integer part, or the total) beyond a double
        pass
    odd = [p for p in parts if isinstance(p, float) and not math.isfinite(p)]
    if odd:
        return float(sum(odd))
    total = sum(map(Fraction, parts), Fraction(0))
    try:
        return float(total)         # an integer divided by an integer: rounded once, correctly
    except OverflowError:
        return math.inf if total > 0 else -math.inf


def exact_parts(values, counts=None) -> list[float]:
    """Doubles whose exact sum is Σ values (· counts, non-negative integers): the pieces of a
    sum are added by concatenating their parts, and :func:`rounded_sum` rounds the total once.
    A product too large to split (a term of ``HUGE`` or more) is written in whole doubles, or as
    an exact Python integer when it is beyond a double."""
    x = np.asarray(values, dtype=np.float64).ravel()
    c = None if counts is None else np.asarray(counts).ravel()
    parts: list[float] = []
    buffers = (np.empty(4 * BLOCK), np.empty(4 * BLOCK), np.empty(4 * BLOCK))
    for start in range(0, x.size, BLOCK):
        terms = x[start:start + BLOCK]
        if c is not None:
            terms = exact_products(terms, c[start:start + BLOCK], parts)
        if not _extract(terms, parts, buffers):
            return [float(x.sum() if c is None else (x * c).sum())]
    return parts


class BlockSum:
    """:func:`exact_sum` of terms given a block (at most BLOCK terms) at a time: the same
    figure, without the terms ever held whole."""

    def __init__(self):
        self.parts: list[float] = []
        self.finite = True   # False once a block held a NaN or ±inf (then :meth:`total` is None)
        self._buffers = (np.empty(BLOCK), np.empty(BLOCK), np.empty(BLOCK))

    def add(self, terms: np.ndarray, top: float | None = None) -> None:
        """Add ``terms`` (``top``: their largest magnitude, when the caller has it)."""
        if self.finite:
            self.finite = _extract(terms, self.parts, self._buffers, top)

    def merge(self, other: "BlockSum") -> None:
        """Add the terms ``other`` was given."""
        self.parts += other.parts
        self.finite = self.finite and other.finite

    def total(self) -> float | None:
        """The exact sum rounded once; None when a term was NaN or ±inf (sum those as numpy does)."""
        return rounded_sum(self.parts) if self.finite else None


def _extract(terms: np.ndarray, parts: list[float], buffers, top: float | None = None) -> bool:
    """Append to ``parts`` doubles whose exact sum is Σ terms (``top``: max |term| if known);
    False for a NaN or ±inf."""
    n = terms.size
    if n == 0:
        return True
    q, rest, spare = (b[:n] for b in buffers)
    bits = (2 * n).bit_length()                 # σ ≥ 2n · the largest term
    if top is None:
        top = max(float(terms.max()), -float(terms.min()))
    if not math.isfinite(top):
        return False
    for _ in range(LEVELS):
        if top == 0.0:
            return True
        exponent = math.frexp(top)[1] + bits
        if not -1000 < exponent - 53 < exponent < 1000:    # beyond a double's range: term by term
            break
        sigma = math.ldexp(1.0, exponent)
        np.add(terms, sigma, out=q)
        q -= sigma
        parts.append(float(q.sum()))            # every q on one grid, their sum below σ: exact
        np.subtract(terms, q, out=rest)         # exact
        terms, rest, spare = rest, spare, rest
        # each remainder is at most half of q's grid, ulp(σ) / 2 (no pass to find the largest)
        top = math.ldexp(1.0, exponent - 53) if terms.any() else 0.0
    parts.extend(terms.tolist())
    return True


def exact_products(x: np.ndarray, counts: np.ndarray, parts: list) -> np.ndarray:
    """Terms whose exact sum is Σ x · counts (non-negative integer counts): each product
    written as the products of ``x``'s two halves, each exact; a product of a term of ``HUGE``
    or more appended to ``parts`` exactly (such a double is a whole number): as doubles, or as
    the integer when the product is beyond a double."""
    if x.size == 0:
        return x
    if not max(float(x.max()), -float(x.min())) < HUGE:   # NaN, ±inf, or a term too large to split
        if not np.isfinite(x).all():
            return x * counts                  # as numpy multiplies (and sums)
        huge = np.abs(x) >= HUGE
        for v, k in zip(x[huge].tolist(), counts[huge].tolist()):
            parts.extend(_whole_parts(int(v) * int(k)))
        return exact_products(x[~huge], counts[~huge], parts)
    scaled = x * SPLIT
    top = int(counts.max())
    once = counts == 1
    ones = int(np.count_nonzero(once))
    if ones == x.size:      # every term counted once (most rows of an aggregate): x itself
        return x
    if top < 1 << WHOLE_BITS and 2 * ones > x.size:    # most counted once: those as they are, the others split
        rest = ~once
        split, c = x[rest], counts[rest].astype(np.float64)
        high = scaled[rest]
        high -= high - split
        return np.concatenate((x[once], high * c, (split - high) * c))
    high = scaled - (scaled - x)
    low = x - high
    if top < 1 << WHOLE_BITS:
        c = counts.astype(np.float64)
        return np.concatenate((high * c, low * c))
    whole = np.asarray(counts, dtype=np.int64)
    upper = (whole >> WHOLE_BITS).astype(np.float64)
    lower = (whole & ((1 << WHOLE_BITS) - 1)).astype(np.float64)
    shift = float(1 << WHOLE_BITS)
    return np.concatenate((high * lower, low * lower, high * upper * shift, low * upper * shift))


def _whole_parts(n: int) -> list:
    """Doubles whose exact sum is the integer ``n``; the integer itself when beyond a double."""
    parts = []
    while n:
        try:
            whole = float(n)
        except OverflowError:
            return parts + [n]
        parts.append(whole)
        n -= int(whole)
    return parts


def sum_of_units(units, highs, lows, odd: float | None = None) -> float:
    """Σ (highs · 2**HALF_BITS + lows) · 2**units — integer sums an engine made by unit (see
    above) — exactly, rounded once to the nearest double: :func:`exact_sum` of the same terms.
    ``odd``: the largest of the terms that are NaN or ±inf, if any (then the sum is it, as
    numpy's sum gives a NaN or an infinity)."""
    if odd is not None:
        return float(odd)
    units = [int(u) for u in units]
    if not units:
        return 0.0
    lowest = min(units)
    total = sum(((int(h) << HALF_BITS) + int(l)) << (u - lowest) for u, h, l in zip(units, highs, lows))
    try:
        return float(total << lowest) if lowest >= 0 else total / (1 << -lowest)   # both rounded once, correctly
    except OverflowError:
        return math.copysign(math.inf, total)
