"""pyqtgraph charts of the scores (spec gui.md §1.6), on the shared base of ``gui/charts``:

- :class:`PerRecordChart`: per-record tkl/M/L normalised against the source table score,
  sorted as in the thesis' Figures 5.1/5.2 (ascending by L-Severity) or by tkl descending;
- :class:`ReleasesChart`: grouped bars of the five normalised-by-source scores per release;
- :class:`GrowthChart`: tkl/M/L (normalised by source) as records are added in published order.

Colours, names and the per-record order are the report's (``core/report/charts.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyqtgraph as pg

from tklscore.core.report.charts import (SCORE_COLORS, SORT_THESIS, SORT_TKL,  # noqa: F401 (SORT_TKL: the views')
                                         per_record_order, ratio)
from tklscore.core.scoring.scores import SCORE_LABELS, SCORE_NAMES, ScoreSet, cumulative_table_scores, x_text
from tklscore.gui.charts import MAX_POINTS, ScoreChart, decimate, highest  # noqa: F401 (MAX_POINTS: the limit)

COLORS = SCORE_COLORS
LABELS = SCORE_LABELS
x_label = x_text


class PerRecordChart(ScoreChart):
    """Record scores of tkl, M and L, each divided by the source table's score."""

    SERIES = ("tkl", "m_score", "l_severity")

    def __init__(self, parent=None):
        super().__init__(parent, whole_number_x=True)
        self.order = SORT_THESIS
        self.series: dict[str, pg.PlotDataItem] = {}
        self.ids: list[str] = []
        self._last = None
        self.set_data(None, None, 1.0)

    def set_order(self, order: str) -> None:
        self.order = order
        if self._last is not None:
            self.set_data(*self._last)

    def set_data(self, records: pd.DataFrame | None, whole: ScoreSet | None, x: float,
                 order: np.ndarray | None = None) -> None:
        """``order``: :func:`per_record_order` of ``records`` in this chart's order, when the
        caller sorted them already (e.g. in the background for a large release)."""
        self._last = (records, whole, x) if records is not None else None
        self._clear()
        if records is None or whole is None or not len(records):
            return
        if order is None:
            order = per_record_order(records, self.order)
        keep = order[decimate(len(order))]
        xs = np.arange(len(order))[decimate(len(order))]
        self._plot(xs, records.iloc[keep], len(order), whole, x)

    def set_ranked(self, points: pd.DataFrame, n: int, whole: ScoreSet | None, x: float) -> None:
        """The chart of a release of ``n`` records kept on disk from its records at evenly
        spaced ranks of this chart's order (``points``: their ``rank`` and record scores,
        :meth:`~tklscore.core.engines.record_store.RecordStore.at_ranks`)."""
        self._last = None
        self._clear()
        if whole is None or not n:
            return
        self._plot(points["rank"].to_numpy(), points, n, whole, x)

    def _clear(self) -> None:
        """No series; the labels, the bottom one naming this chart's order."""
        self.clear_chart()
        self.series = {}
        self.ids = []
        sort_text = ("ascending by L-Severity, as the thesis' Figures 5.1/5.2" if self.order == SORT_THESIS
                     else "descending by tkl-Score")
        self.plot_item.setLabel("left", "Record score / source table score")
        self.plot_item.setLabel("bottom", f"Published record (sorted {sort_text})")
        self.set_title("Per-record scores / source table scores")

    def _plot(self, xs: np.ndarray, records: pd.DataFrame, n: int, whole: ScoreSet, x: float) -> None:
        """The series at ``xs`` from ``records`` (one a point) of a release of ``n`` records."""
        for name in self.SERIES:
            ys = ratio(records[name].to_numpy(), getattr(whole, name))
            label = LABELS[name] + (f" (x = {x_label(x)})" if name == "m_score" else "")
            many = len(xs) > 200
            self.series[name] = self.line(
                xs, ys, name=label, pen=pg.mkPen(COLORS[name], width=2), connect="finite",
                symbol=None if many else "o", symbolSize=7, symbolBrush=COLORS[name], symbolPen=None)
        self.ids = [str(i) for i in records["id"].tolist()]  # only the drawn records' ids
        if len(xs) <= 40:
            self.plot_item.getAxis("bottom").setTicks([[(int(x), i) for x, i in zip(xs, self.ids)]])
        self.set_ranges(-0.5, n - 0.5, highest(self.series.values()))

    def point_count(self) -> int:
        item = self.series.get("tkl")
        return 0 if item is None or item.xData is None else len(item.xData)


class ReleasesChart(ScoreChart):
    """Candidate releases side by side: grouped bars of the five normalised-by-source scores."""

    LEGEND_ROOM = 1.4   # a short chart whose bars reach 1: the legend's row clear of their tops

    def __init__(self, parent=None):
        super().__init__(parent)
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.names: list[str] = []
        self.plot_item.showGrid(x=False, y=True, alpha=0.2)
        self.set_data({})

    def set_data(self, normalized: dict[str, ScoreSet], x: float | None = None) -> None:
        """``normalized``: release name → its scores normalised against the source (M with ``x``)."""
        self.clear_chart()
        self.bars = {}
        self.names = list(normalized)
        self.plot_item.setLabel("left", "Score / source table score")
        self.plot_item.setLabel("bottom", "Candidate release")
        self.set_title("Candidate releases / source table scores")
        if not normalized:
            return
        width = 0.8 / len(SCORE_NAMES)
        positions = np.arange(len(self.names), dtype=np.float64)
        for i, score in enumerate(SCORE_NAMES):
            heights = np.array([getattr(s, score) if getattr(s, score) is not None else 0.0
                                for s in normalized.values()], dtype=np.float64)
            item = pg.BarGraphItem(x=positions - 0.4 + width * (i + 0.5), height=heights, width=width * 0.95,
                                   brush=pg.mkBrush(COLORS[score]), pen=pg.mkPen("k", width=0.5),
                                   name=LABELS[score] + (f" (x = {x_label(x)})"
                                                         if score == "m_score" and x is not None else ""))
            self.plot_item.addItem(item)
            self.bars[score] = item
        self.plot_item.getAxis("bottom").setTicks([[(float(p), n) for p, n in zip(positions, self.names)]])
        self.set_ranges(-0.6, len(self.names) - 0.4, 1.0)

    def bar_count(self) -> int:
        return sum(len(item.opts["height"]) for item in self.bars.values())


class GrowthChart(ScoreChart):
    """tkl, M and L of the first i published records (in published order), divided by the
    source table's scores; the last point is the release's normalised score."""

    SERIES = ("tkl", "m_score", "l_severity")

    def __init__(self, parent=None):
        super().__init__(parent, whole_number_x=True)
        self.series: dict[str, pg.PlotDataItem] = {}
        self.set_data(None, None, 1.0)

    cumulative = staticmethod(cumulative_table_scores)

    def set_data(self, records: pd.DataFrame | None, whole: ScoreSet | None, x: float) -> None:
        self.clear_chart()
        self.series = {}
        self.plot_item.setLabel("left", "Score so far / source table score")
        self.plot_item.setLabel("bottom", "Records published (in published order)")
        self.set_title("Score growth as records are added")
        if records is None or whole is None or not len(records):
            return
        keep = decimate(len(records))
        grown = {name: values[keep] for name, values in self.cumulative(records, x).items()}
        self.set_running(keep, grown, len(records), whole, x)

    def set_running(self, positions: np.ndarray, grown: dict, n: int, whole: ScoreSet | None, x: float) -> None:
        """The chart from the scores of the first p+1 records at each ``positions`` p
        (``grown``: score → values) of a release of ``n`` records."""
        self.clear_chart()
        self.series = {}
        self.plot_item.setLabel("left", "Score so far / source table score")
        self.plot_item.setLabel("bottom", "Records published (in published order)")
        self.set_title("Score growth as records are added")
        if whole is None or not n:
            return
        xs = (np.asarray(positions) + 1).astype(np.float64)
        for name in self.SERIES:
            ys = ratio(grown[name], getattr(whole, name))
            label = LABELS[name] + (f" (x = {x_label(x)})" if name == "m_score" else "")
            self.series[name] = self.line(
                xs, ys, name=label, pen=pg.mkPen(COLORS[name], width=2), connect="finite",
                symbol=None if len(xs) > 200 else "o", symbolSize=6, symbolBrush=COLORS[name], symbolPen=None)
        self.set_ranges(0.5, n + 0.5, highest(self.series.values()))

    def point_count(self) -> int:
        item = self.series.get("tkl")
        return 0 if item is None or item.xData is None else len(item.xData)
