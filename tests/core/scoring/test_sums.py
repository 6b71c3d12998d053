"""Exact sums (core/scoring/sums.py): the sum of the exact real numbers rounded once, whatever
the order of the terms and whether ``cnt`` equal terms are one term times ``cnt`` — what lets
memory (record by record) and the engines (combination by combination, in pieces) give a
table score to the last bit."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st

from tklscore.core.scoring.sums import BLOCK, exact_parts, exact_sum

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


def exact(values, counts=None) -> float:
    """The exact sum in integers over one power-of-two denominator, divided once (Python's
    integer division rounds correctly): Fraction's sum, without a gcd at every term."""
    counts = [1] * len(values) if counts is None else counts
    ratios = [float(v).as_integer_ratio() for v in values]
    denominator = max((d for _, d in ratios), default=1)
    return sum(n * (denominator // d) * int(c) for (n, d), c in zip(ratios, counts)) / denominator


@settings(max_examples=60, deadline=None)
@given(values=st.lists(finite, max_size=80), counts=st.lists(st.integers(0, 1 << 40), max_size=80),
       seed=st.integers(0, 2 ** 32 - 1))
def test_the_exact_sum_is_the_rounded_real_sum_in_any_order_and_weighted_or_repeated(values, counts, seed):
    counts = (counts * (len(values) // max(len(counts), 1) + 1))[:len(values)] if counts else [1] * len(values)
    values, counts = np.array(values, dtype=np.float64), np.array(counts, dtype=np.int64)
    assert exact_sum(values) == exact(values)
    assert exact_sum(values, counts) == exact(values, counts)
    assert exact_sum(values, np.ones(len(values), dtype=np.int64)) == exact(values)   # every term once
    order = np.random.default_rng(seed).permutation(len(values))
    assert exact_sum(values[order], counts[order]) == exact_sum(values, counts)
    small = np.minimum(counts, 5)
    assert exact_sum(np.repeat(values, small)) == exact_sum(values, small)
    mostly_once = np.where(np.arange(len(values)) % 3 == 0, small, 1)     # an aggregate's: most rows one record
    assert exact_sum(values, mostly_once) == exact(values, mostly_once)


def test_a_sum_of_many_terms_over_blocks_and_pieces_is_exact():
    rng = np.random.default_rng(11)
    values = rng.random(3 * BLOCK + 17) * 10.0 ** rng.integers(-9, 3, 3 * BLOCK + 17)
    counts = rng.integers(1, 1 << 30, len(values))     # counts above 2**27 are split too
    assert exact_sum(values) == exact(values)
    assert exact_sum(values, counts) == exact(values, counts)
    pieces = exact_parts(values[:1000], counts[:1000]) + exact_parts(values[1000:], counts[1000:])
    assert math.fsum(pieces) == exact_sum(values, counts)
    # numpy's pairwise sum of these terms misses the exact sum somewhere in its last bits
    assert float(values.sum()) != exact(values) or float((values * counts).sum()) != exact(values, counts)


def test_nothing_sums_to_zero_and_nan_or_infinity_as_numpy_gives_them():
    assert exact_sum(np.array([])) == 0.0 and exact_sum([0.0, -0.0]) == 0.0
    assert math.isnan(exact_sum(np.array([1.0, np.nan] * 40)))
    assert exact_sum(np.array([1.0, np.inf] * 40)) == math.inf
    assert exact_sum([1e-320, 1e-320, 3e-310], [1, 2, 3]) == exact([1e-320, 1e-320, 3e-310], [1, 2, 3])
    assert exact_sum([1e300, -1e300, 1.0] * 20) == 20.0


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.floats(min_value=0, max_value=1e290, allow_nan=False, allow_infinity=False), max_size=60),
       counts=st.lists(st.integers(1, 1 << 33), min_size=1, max_size=60))
def test_integer_parts_by_unit_add_up_to_the_exact_sum(values, counts):
    """An engine's integer sums by unit (the parts Plan.totals writes in SQL, here in Python:
    x = (high · 2**28 + low) · 2**unit) added by sum_of_units: exact_sum of the same terms."""
    from tklscore.core.scoring.sums import HALF_BITS, UNIT_BELOW, sum_of_units

    counts = (counts * (len(values) // len(counts) + 1))[:len(values)]
    sums: dict[int, list[int]] = {}
    for x, c in zip(values, counts):
        if x:
            unit = max(math.frexp(x)[1] - 1 - UNIT_BELOW, -1074)
            scaled = Fraction(x) / Fraction(2) ** unit
            assert scaled.denominator == 1 and scaled < 2 ** 56
            high, low = divmod(int(scaled), 1 << HALF_BITS)
            parts = sums.setdefault(unit, [0, 0])
            parts[0] += high * c
            parts[1] += low * c
    units = list(sums)
    total = sum_of_units(units, [sums[u][0] for u in units], [sums[u][1] for u in units])
    assert total == exact_sum(np.array(values, dtype=np.float64), np.array(counts, dtype=np.int64)) == exact(values, counts)
    assert sum_of_units([], [], []) == 0.0 and math.isnan(sum_of_units([0], [1], [0], odd=math.nan))


def rounded(total: Fraction) -> float:
    """The exact sum rounded once to a double, ±inf beyond one (Fraction's own arithmetic)."""
    try:
        return float(total)
    except OverflowError:
        return math.inf if total > 0 else -math.inf


extreme = st.one_of(st.floats(min_value=1e295, max_value=1.7976931348623157e308),    # near a double's top
                    st.floats(min_value=5e-324, max_value=1e-300),                   # subnormal and tiny
                    st.floats(min_value=1e-3, max_value=1e3)).flatmap(lambda v: st.sampled_from([v, -v]))


@settings(max_examples=40, deadline=None)
@given(values=st.lists(extreme, max_size=12), counts=st.lists(st.integers(0, (1 << 62) - 1), min_size=12, max_size=12),
       cut=st.integers(0, 12))
def test_huge_and_tiny_terms_sum_to_the_rounded_exact_sum_or_an_infinity_beyond_a_double(values, counts, cut):
    from tklscore.core.scoring.sums import BlockSum, rounded_sum

    counts = counts[:len(values)]
    once = rounded(sum(map(Fraction, values), Fraction(0)))
    weighted = rounded(sum((Fraction(v) * c for v, c in zip(values, counts)), Fraction(0)))
    assert exact_sum(values) == once and exact_sum(values, counts) == weighted
    assert rounded_sum(exact_parts(values[:cut], counts[:cut]) + exact_parts(values[cut:], counts[cut:])) == weighted
    block = BlockSum()
    block.add(np.array(values[:cut]))
    block.add(np.array(values[cut:]))
    assert block.total() == once


def test_an_exact_sum_within_a_double_is_given_though_partial_sums_overflow():
    assert exact_sum([1e308, 1e308, -1e308]) == 1e308          # math.fsum alone: OverflowError
    assert exact_sum([1e308, -1e308], [3, 2]) == 1e308 and exact_sum([1e308, 1e308]) == math.inf
    with np.errstate(invalid="ignore"):
        assert exact_sum([-1.5e308], [2]) == -math.inf and math.isnan(exact_sum([math.inf, -math.inf]))
