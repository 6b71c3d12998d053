"""The report's charts, drawn from its input as SVG (:mod:`tklscore.core.report.svg`):
the candidate releases side by side, the per-record scores in the thesis' order, the
growth of the scores, the records by risk band and the histogram of D(r). The views draw
the same figures interactively (``gui/charts``, ``gui/scores``, ``gui/risk``) with the
order defined here and the scores' colours (``core/scoring/scores.SCORE_COLORS``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from tklscore.core.numbers import number
from tklscore.core.report import svg
from tklscore.core.report.model import (CHART_DISCLOSURE, CHART_GROWTH, CHART_PER_RECORD, CHART_RELEASES,
                                        CHART_RISK_DISTRIBUTION, ReportInput)
from tklscore.core.risk.lens import DisclosureHistogram, risk_band_labels
from tklscore.core.scoring.scores import (SCORE_COLORS, SCORE_LABELS, SCORE_NAMES, ScoreSet,  # noqa: F401 (SCORE_COLORS: the views')
                                          cumulative_table_scores, x_text)

ATTACKER_COLORS = {"prosecutor": (31, 119, 180), "journalist": (255, 127, 14)}
RECORD_SERIES = ("tkl", "m_score", "l_severity")
SORT_THESIS = "thesis"      # ascending by L-Severity (ties: by tkl), as Figures 5.1/5.2
SORT_TKL = "tkl"            # descending by tkl
NAMED_RECORDS = 40          # up to this many records, the per-record axis names them by id


def series_label(score: str, x: float | None) -> str:
    """A score's name in a legend; M-Score names its x."""
    return SCORE_LABELS[score] + (f" (x = {x_text(x)})" if score == "m_score" and x is not None else "")


PER_RECORD_KEYS = {SORT_THESIS: (("l_severity", False), ("tkl", False)), SORT_TKL: (("tkl", True),)}
"""Each per-record order as (column, descending) sort keys, ties by published position: the
order :func:`per_record_order` sorts in memory, for records kept on disk
(:meth:`~tklscore.core.engines.record_store.RecordStore.at_ranks`)."""


def per_record_order(records: pd.DataFrame, order: str = SORT_THESIS) -> np.ndarray:
    """The records' positions in the per-record chart's order (a sort: run it off the UI
    thread for a large release)."""
    if order == SORT_THESIS:
        return np.lexsort((records["tkl"].to_numpy(), records["l_severity"].to_numpy()))
    return np.argsort(-records["tkl"].to_numpy(), kind="stable")


def ratio(values, whole: float | None) -> np.ndarray:
    """``values`` divided by the whole source's score (NaN where that is not positive)."""
    if whole is None or not whole > 0:
        return np.full(len(values), np.nan)
    return np.asarray(values, dtype=np.float64) / whole


def releases_chart(normalized: dict[str, ScoreSet], x: float | None) -> str:
    series = [svg.Series(series_label(score, x), SCORE_COLORS[score],
                         np.array([np.nan if getattr(s, score) is None else getattr(s, score)
                                   for s in normalized.values()], dtype=np.float64))
              for score in SCORE_NAMES]
    highest = max([float(np.nanmax(s.values)) for s in series if not np.isnan(s.values).all()] + [1.0])
    return svg.grouped_bars(list(normalized), series, title="Candidate releases ÷ the whole source table's scores",
                            x_label="Candidate release", y_label="Score ÷ source table score", y_max=highest)


def evenly_spaced(n: int, limit: int) -> np.ndarray:
    """Indices of at most ``limit`` evenly spaced points of ``n`` (first and last kept): the
    points a chart of many records draws."""
    if n <= limit:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, limit).round().astype(np.int64))


STORED_POINTS = 2_000   # points of a report chart of records kept on disk (read at evenly spaced ranks)


def per_record_chart(records: pd.DataFrame, whole: ScoreSet, x: float, ranks: np.ndarray | None = None) -> str:
    """``records`` in the thesis' order; ``ranks``: the records are those at these ranks of
    that order (a release kept on disk, read at evenly spaced points)."""
    order = per_record_order(records) if ranks is None else np.arange(len(records))
    series = [svg.Series(series_label(name, x), SCORE_COLORS[name],
                         ratio(records[name].to_numpy()[order], getattr(whole, name))) for name in RECORD_SERIES]
    xs = np.arange(len(order), dtype=np.float64) if ranks is None else np.asarray(ranks, dtype=np.float64)
    ticks = None
    every_record = ranks is None or np.array_equal(ranks, np.arange(len(ranks)))   # a few kept on disk: all read
    if len(order) <= NAMED_RECORDS and every_record:
        ticks = [(float(i), str(record)) for i, record in enumerate(records["id"].to_numpy(dtype=object)[order])]
    return svg.lines(xs, series, title="Per-record scores ÷ the whole source table's scores",
                     x_label=("Published record, by id (ascending L-Severity, as the thesis' Figures 5.1/5.2)"
                              if ticks else "Published records, ascending L-Severity (as the thesis' Figures 5.1/5.2)"),
                     y_label="Record score ÷ source table score", x_ticks=ticks)


def growth_chart(records: pd.DataFrame | None, whole: ScoreSet, x: float, stored=None) -> str:
    """The running scores of ``records``, or of a ``stored`` release's records at evenly
    spaced positions (:meth:`~tklscore.core.engines.record_store.RecordStore.cumulative_at`)."""
    if stored is None:
        grown, xs = cumulative_table_scores(records, x), np.arange(1, len(records) + 1, dtype=np.float64)
    else:
        positions = evenly_spaced(len(stored), STORED_POINTS)
        grown, xs = stored.cumulative_at(positions, x), (positions + 1).astype(np.float64)
    series = [svg.Series(series_label(name, x), SCORE_COLORS[name], ratio(grown[name], getattr(whole, name)))
              for name in RECORD_SERIES]
    return svg.lines(xs, series,
                     title="How the scores grow as records are added",
                     x_label="Records published (in published order)", y_label="Score so far ÷ source table score")


def risk_distribution_chart(shares: dict[str, np.ndarray]) -> str:
    series = [svg.Series(name.capitalize(), ATTACKER_COLORS.get(name, (120, 120, 120)),
                         100.0 * np.asarray(values, dtype=np.float64)) for name, values in shares.items()]
    return svg.grouped_bars(risk_band_labels(), series, title="Records by re-identification risk",
                            x_label="Risk of re-identification (%)", y_label="Share of records (%)", y_max=100.0)


def _power_text(exponent: float) -> str:
    return number(10.0 ** exponent, 3)


def _powers_of_ten(low: float, high: float) -> list[float]:
    """Ticks of a log10 axis at whole powers of ten (every n-th when there are many), or
    round steps within a decade."""
    whole = list(range(math.ceil(low), math.floor(high) + 1))
    if len(whole) < 2:
        return svg.nice_ticks(low, high, 5)
    step = max(1, math.ceil(len(whole) / 8))
    return [float(e) for e in whole[::step]]


def disclosure_chart(histogram: DisclosureHistogram) -> str:
    threshold = histogram.threshold
    marker = (math.log10(threshold), f"threshold {number(threshold)}") if threshold > 0 else None
    return svg.histogram(histogram.edges, histogram.counts, title="Disclosure risk D(r), on a logarithmic axis",
                         x_label="D(r) (logarithmic)", y_label="Records", color=(44, 160, 44), marker=marker,
                         x_format=_power_text, x_ticks=_powers_of_ten)


def report_charts(data: ReportInput) -> dict[str, str]:
    """Every chart the report's input has data for, as SVG, by chart key."""
    charts = {}
    if data.reports:
        charts[CHART_RELEASES] = releases_chart({name: r.normalized_source for name, r in data.reports.items()},
                                                data.x)
    report = data.report
    if report is not None and report.stored is not None and report.published_rows:
        ranks = evenly_spaced(report.published_rows, STORED_POINTS)
        points = report.stored.at_ranks(PER_RECORD_KEYS[SORT_THESIS], ranks, ["id", *RECORD_SERIES])
        charts[CHART_PER_RECORD] = per_record_chart(points, report.source_scores, report.x, ranks=ranks)
        charts[CHART_GROWTH] = growth_chart(None, report.source_scores, report.x, stored=report.stored)
    elif report is not None and len(report.records):
        charts[CHART_PER_RECORD] = per_record_chart(report.records, report.source_scores, report.x)
        charts[CHART_GROWTH] = growth_chart(report.records, report.source_scores, report.x)
    if data.risk is not None:
        charts[CHART_RISK_DISTRIBUTION] = risk_distribution_chart(data.risk.risk_distribution())
        charts[CHART_DISCLOSURE] = disclosure_chart(data.risk.disclosure_histogram())
    return charts
