"""Numbers as people read them: the one formatter of the views, the report and the CLI's
table output (JSON and CSV outputs keep full precision and never pass through here).

- :func:`number`: significant digits by magnitude — ``1555.0`` → ``1,555``,
  ``20967.04843`` → ``20,967``, ``0.714286`` → ``0.7143``, ``1.889882`` → ``1.89`` with
  three digits; trailing zeros dropped; thousands separated; a whole number stays whole.
- :func:`score`: a tkl-Score, M-Score or L-Severity as the thesis prints them (six
  significant digits, at most five decimals: ``4.98258``, ``0.02736``, ``20,967``).
- :func:`percent`: a share of records or a probability as a percentage (``0.5`` → ``50 %``,
  ``1/3`` → ``33.3 %``), wherever the verdict speaks in percentages.
- :func:`count`: a count of records or classes (``32,561``).
- :func:`tick`: a chart axis' tick, as many decimals as the ticks' spacing needs and never in
  scientific notation (``0.00005``, ``2,500``).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

NOT_AVAILABLE = "n/a"
TINY = 1e-6          # below this a number is written in scientific notation


def _missing(value) -> bool:
    return value is None or (isinstance(value, Real) and not isinstance(value, Integral) and math.isnan(value))


def number(value, digits: int = 4, max_decimals: int | None = None) -> str:
    """``value`` with ``digits`` significant digits (at most ``max_decimals`` decimals),
    never fewer than its integer part: no trailing zeros, thousands separated, ``n/a`` for
    an unknown value, ``∞`` for an infinite one."""
    if _missing(value):
        return NOT_AVAILABLE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Integral):
        return f"{int(value):,}"
    v = float(value)
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    if v == 0:
        return "0"
    if abs(v) < TINY and (max_decimals is None or max_decimals > 6):
        mantissa = f"{v:.{max(digits - 1, 0)}e}"
        significand, exponent = mantissa.split("e")
        if "." in significand:
            significand = significand.rstrip("0").rstrip(".")
        return f"{significand}e{exponent}"
    magnitude = math.floor(math.log10(abs(v)))
    decimals = max(0, digits - 1 - magnitude)
    if max_decimals is not None:
        decimals = min(decimals, max_decimals)
    text = f"{v:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def score(value) -> str:
    """A score (raw, record or normalised by the source's) as the thesis prints it."""
    return number(value, 6, max_decimals=5)


def percent(share, digits: int = 3) -> str:
    """A share in [0, 1] as a percentage with ``digits`` significant digits (at most two
    decimals): ``50 %``, ``33.3 %``, ``0.12 %``; shares too small or too close to 1 to show
    are ``< 0.01 %`` and ``> 99.99 %``, never a rounded 0 or 100."""
    if _missing(share):
        return NOT_AVAILABLE
    p = 100.0 * float(share)
    if math.isinf(p):
        return number(p)
    if p == 0:
        return "0 %"
    if 0 < abs(p) < 0.01:
        return "< 0.01 %" if p > 0 else "> -0.01 %"
    if 99.99 < p < 100:
        return "> 99.99 %"
    return f"{number(p, digits, max_decimals=2)} %"


def count(value) -> str:
    """A count (records, classes): ``32,561``."""
    if _missing(value):
        return NOT_AVAILABLE
    return f"{int(value):,}"


def tick(value, spacing: float) -> str:
    """A tick of an axis whose ticks are ``spacing`` apart: the decimals the spacing needs
    (``0.00035`` beside ``0.0003``, never ``5e-05``), thousands separated, no trailing zeros."""
    v = float(value)
    if not math.isfinite(v):
        return number(v)
    decimals = max(0, math.ceil(-math.log10(spacing)) + 1) if spacing > 0 and math.isfinite(spacing) else 4
    text = f"{v:,.{min(decimals, 12)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
