"""The pseudonymisation utility report (disclosure-risk.md A4): seven statistics of the
sensitive field on the original and on the trimmed data, and their difference δ.

The statistics are Apache Commons Math's ``DescriptiveStatistics`` ones, which equal
pandas': bias-corrected skewness ``Series.skew()``, excess kurtosis ``Series.kurt()``,
sample SD ``Series.std()`` (n − 1), ``Series.median()``.

**Sign convention:** ``δ = trimmed − original`` — a negative δ means the statistic went
down when the violating values were removed (the paper does not state one).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

STATISTICS = ("max", "min", "skewness", "kurtosis", "median", "mean", "std")
LABELS = {"max": "Maximum", "min": "Minimum", "skewness": "Skewness", "kurtosis": "Kurtosis",
          "median": "Median", "mean": "Mean", "std": "Standard deviation"}


def _number(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def statistics(values) -> dict[str, float | None]:
    """The seven statistics of the present (non-NaN) values; None where undefined
    (e.g. skewness of fewer than 3 values)."""
    series = pd.Series(np.asarray(values, dtype=float)).dropna()
    return {"max": _number(series.max()), "min": _number(series.min()), "skewness": _number(series.skew()),
            "kurtosis": _number(series.kurt()), "median": _number(series.median()),
            "mean": _number(series.mean()), "std": _number(series.std())}


def utility_report(original, trimmed) -> dict[str, dict[str, float | None]]:
    """``{"original": …, "trimmed": …, "delta": trimmed − original}`` (see the module doc)."""
    before, after = statistics(original), statistics(trimmed)
    delta = {k: (None if before[k] is None or after[k] is None else after[k] - before[k]) for k in STATISTICS}
    return {"original": before, "trimmed": after, "delta": delta}
