"""What each score means, in plain words, and a verdict on its normalised value.

The thesis sets no threshold for "too misuseable"; the verdict therefore reads the score
normalised against the source table (the share of what publishing the whole source
would score, spec scoring.md "Normalisation") in four equal bands, and says so. It helps
a reader compare releases of one source; the decision stays with the committee.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MEANINGS = {
    "tkl": ("How much a person who knows some quasi-identifiers (e.g. job, city, gender) can learn "
            "about the published records' sensitive values, summed over the records. A record adds "
            "more when its group's sensitive values stand out from the whole table (t), are more "
            "sensitive (W) and are less varied within the group (l)."),
    "tkl_max": "The tkl-Score of the single riskiest published record.",
    "m_score": ("Harel et al.'s misuseability: the most sensitive and most identifiable record, "
                "scaled up by the number of published records (n^(1/x); a larger x lets quantity "
                "count less)."),
    "m_score_inf": "M-Score when only quality counts (x → ∞): the worst single published record.",
    "l_severity": ("Vavilis et al.'s severity: the sensitivity of every published record divided by "
                   "the number of source records that look the same, summed over the records."),
}

BANDS = ((0.25, "low", "at most a quarter of what publishing the whole source table would score"),
         (0.50, "moderate", "more than a quarter and at most half of the whole source table's score"),
         (0.75, "high", "more than half and at most three quarters of the whole source table's score"),
         (float("inf"), "very high", "more than three quarters of the whole source table's score"))


def bands_text(percent: bool = False) -> str:
    """The verdict bands in one line: ``low ≤ 0.25 < moderate ≤ 0.50 < … < very high`` (or
    with percentages: ``low ≤ 25 % < …``)."""
    return " < ".join(level if math.isinf(limit) else f"{level} ≤ {limit * 100:g} %" if percent
                      else f"{level} ≤ {limit:.2f}" for limit, level, _ in BANDS)


BANDS_NOTE = (f"Verdicts read the score normalised against the source table in four equal bands ({bands_text()}); "
              "the thesis sets no threshold, so they compare releases of one source rather than judge one alone.")


@dataclass(frozen=True)
class Verdict:
    level: str      # low | moderate | high | very high | undefined
    words: str      # a sentence for a reader without the tool


def verdict(normalised_by_source: float | None) -> Verdict:
    """The verdict on a score normalised against the source table (None: undefined)."""
    if normalised_by_source is None or math.isnan(normalised_by_source):
        return Verdict("undefined", "cannot be judged: the whole source table scores 0")
    limit, level, words = next(band for band in BANDS if normalised_by_source <= band[0])
    return Verdict(level, words)
