"""The one number formatter (core/numbers.py) of the views, the report and the CLI's tables."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tklscore.core.numbers import count, number, percent, score, tick


@pytest.mark.parametrize("value, text", [
    (1555.0, "1,555"), (20967.04843, "20,967"), (0.7142857, "0.7143"), (1.8898815748423097, "1.89"),
    (2.0, "2"), (0.25, "0.25"), (0.1, "0.1"), (123.456, "123.5"), (12.3456, "12.35"), (0.0123456, "0.01235"),
    (1.23456e-05, "0.00001235"), (1.23456e-07, "1.235e-07"), (-0.5, "-0.5"), (0.0, "0"), (None, "n/a"),
    (float("nan"), "n/a"),
    (float("inf"), "∞"), (7, "7"), (32561, "32,561"), (np.int64(12), "12"), (np.float64(0.33333), "0.3333"),
    (9.99996, "10"), (-1e-20, "-1e-20"),
])
def test_number_by_magnitude(value, text):
    assert number(value) == text


def test_number_digits_and_decimals():
    assert number(1.8898815748423097, 3) == "1.89"
    assert number(0.000123, 4, max_decimals=4) == "0.0001"
    assert number(1234567.891, 4) == "1,234,568"


@pytest.mark.parametrize("value, text", [
    (4.98258, "4.98258"), (0.58464, "0.58464"), (0.41760, "0.4176"), (0.02736, "0.02736"),
    (20967.04843, "20,967"), (1555.0, "1,555"), (8.763020000001, "8.76302"), (None, "n/a"),
])
def test_score_as_the_thesis_prints_it(value, text):
    assert score(value) == text


@pytest.mark.parametrize("share, text", [
    (0.5, "50 %"), (1 / 3, "33.3 %"), (1.0, "100 %"), (0.0, "0 %"), (0.0012, "0.12 %"), (0.00001, "< 0.01 %"),
    (0.99999, "> 99.99 %"), (0.1234567, "12.3 %"), (None, "n/a"), (0.07, "7 %"),
])
def test_percent(share, text):
    assert percent(share) == text


def test_count():
    assert count(32561) == "32,561" and count(np.int64(3)) == "3" and count(None) == "n/a"


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1e-6, max_value=1e12, allow_nan=False), st.integers(min_value=2, max_value=8),
       st.booleans())
def test_number_reads_back_within_its_digits(value, digits, negative):
    value = -value if negative else value
    text = number(value, digits)
    back = float(text.replace(",", ""))
    # significant digits, or the whole integer part when that has more
    assert math.isclose(back, value, rel_tol=10 ** (1 - digits), abs_tol=0.5)
    assert not ("." in text and text.endswith("0"))


@pytest.mark.parametrize("value, spacing, text", [
    (0.00005, 0.00005, "0.00005"), (0.00035, 0.00005, "0.00035"), (0.0003, 0.00005, "0.0003"),
    (2500.0, 500.0, "2,500"), (1.25, 0.25, "1.25"), (0.30000000000000004, 0.05, "0.3"), (0.0, 0.05, "0"),
    (12345.5, 0.5, "12,345.5"), (-0.0, 0.1, "0"), (100.0, 20.0, "100"), (-0.2, 0.1, "-0.2"),
])
def test_tick_has_the_decimals_its_spacing_needs_and_no_exponent(value, spacing, text):
    assert tick(value, spacing) == text


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-9, max_value=6), st.sampled_from([1, 2, 2.5, 5]), st.integers(min_value=-20, max_value=20))
def test_ticks_of_one_axis_are_distinct_and_read_back(power, step, i):
    spacing = step * 10.0 ** power
    a, b = tick(i * spacing, spacing), tick((i + 1) * spacing, spacing)
    assert a != b and "e" not in a
    assert math.isclose(float(a.replace(",", "")), i * spacing, rel_tol=1e-9, abs_tol=spacing * 1e-6)
