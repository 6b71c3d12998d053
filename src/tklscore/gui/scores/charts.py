"""pyqtgraph charts of the scores (spec gui.md §1.6):

- :class:`PerRecordChart`: per-record tkl/M/L normalised against the source table score,
  sorted as in the thesis' Figures 5.1/5.2 (ascending by L-Severity) or by tkl descending;
- :class:`ReleasesChart`: grouped bars of the five normalised-by-source scores per release;
- :class:`GrowthChart`: tkl/M/L (normalised by source) as records are added in published order.

Every chart has a legend (one row above the data, never over a line) and axis labels,
is redrawn only by ``set_data`` and exports itself as PNG or SVG (:meth:`ScoreChart.export`);
:func:`render_png` draws one at a fixed size, with :meth:`ScoreChart.use_report_style`'s
large text for a report. Record axes show whole records only. Series longer than
:data:`MAX_POINTS` are decimated evenly (first and last point kept).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyqtgraph as pg
import pyqtgraph.exporters
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF
from PySide6.QtGui import QFont, QPainter
from PySide6.QtSvg import QSvgGenerator

from tklscore.core.errors import InputError
from tklscore.core.scoring.scores import SCORE_LABELS, SCORE_NAMES, ScoreSet, cumulative_table_scores, x_text

MAX_POINTS = 20_000
COLORS = {"tkl": (31, 119, 180), "m_score": (214, 39, 40), "l_severity": (44, 160, 44),
          "tkl_max": (255, 127, 14), "m_score_inf": (148, 103, 189)}
LABELS = SCORE_LABELS
SORT_THESIS = "thesis"      # ascending by L-Severity (ties: by tkl), as Figures 5.1/5.2
SORT_TKL = "tkl"            # descending by tkl


x_label = x_text


def decimate(n: int, limit: int = MAX_POINTS) -> np.ndarray:
    """Indices of at most ``limit`` evenly spaced points of ``n`` (first and last kept)."""
    if n <= limit:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, limit).round().astype(np.int64))


class WholeNumberAxis(pg.AxisItem):
    """An axis of counted things (records): ticks only at whole numbers, at least 1 apart."""

    def tickValues(self, minVal, maxVal, size):
        levels = super().tickValues(minVal, maxVal, size)
        whole = []
        for spacing, values in levels:
            if spacing < 1:
                continue
            kept = [v for v in values if float(v).is_integer()]
            if kept:
                whole.append((spacing, kept))
        if not whole and maxVal - minVal < 2:  # zoomed in below one record: the records in view
            whole = [(1.0, [float(v) for v in range(math.ceil(minVal), math.floor(maxVal) + 1)])]
        return whole


def _ratio(values: np.ndarray, whole: float | None) -> np.ndarray:
    if whole is None or not whole > 0:
        return np.full(len(values), np.nan)
    return np.asarray(values, dtype=np.float64) / whole


class ScoreChart(pg.PlotWidget):
    """A plot with a legend and axis labels that exports itself."""

    title_text = ""
    LEGEND_ROOM = 1.3   # the y range reaches this far above the highest value: the legend's row

    def __init__(self, parent=None, whole_number_x: bool = False):
        axes = {"bottom": WholeNumberAxis("bottom")} if whole_number_x else None
        super().__init__(parent, background="w", axisItems=axes)
        self.plot_item: pg.PlotItem = self.getPlotItem()
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.legend = self.plot_item.addLegend(offset=(10, 5), colCount=3)
        for axis in ("left", "bottom"):
            self.plot_item.getAxis(axis).setTextPen("k")
            self.plot_item.getAxis(axis).setPen("k")
            self.plot_item.getAxis(axis).enableAutoSIPrefix(False)
        self.legend.setLabelTextColor("k")
        self.legend.setBrush(pg.mkBrush(255, 255, 255, 200))

    def clear_chart(self) -> None:
        self.plot_item.clear()  # also empties the legend
        self.plot_item.getAxis("bottom").setTicks(None)

    def set_title(self, text: str) -> None:
        self.title_text = text
        self.plot_item.setTitle(text, color="k", size=self._title_size)

    _title_size = "11pt"

    def set_ranges(self, x_low: float, x_high: float, y_high: float) -> None:
        """Whole series in view (nothing cut off at the edges) and room above for the legend."""
        self.plot_item.setXRange(x_low, x_high, padding=0)
        top = y_high if math.isfinite(y_high) and y_high > 0 else 1.0
        self.plot_item.setYRange(0, top * self.LEGEND_ROOM, padding=0)

    def use_report_style(self, points: int = 15) -> None:
        """Large text for a chart printed on a page at about two thirds of its pixel size."""
        font = QFont()
        font.setPointSize(points)
        for axis in ("left", "bottom"):
            item = self.plot_item.getAxis(axis)
            item.setStyle(tickFont=font, tickTextOffset=points // 2)
            item.label.setFont(font)
        self.plot_item.getAxis("left").setWidth(int(points * 6))
        self.plot_item.getAxis("bottom").setHeight(int(points * 4.5))
        self.legend.setLabelTextSize(f"{points}pt")
        for _, label in self.legend.items:
            label.setText(label.text, size=f"{points}pt", color="k")
        self._title_size = f"{points + 1}pt"
        self.set_title(self.title_text)

    def export(self, path: str | Path) -> Path:
        """Write the chart as PNG or SVG, chosen by the file's extension."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".png":
            exporter = pg.exporters.ImageExporter(self.plot_item)
            exporter.parameters()["width"] = max(800, int(self.plot_item.sceneBoundingRect().width()))
            exporter.export(str(path))
        elif suffix == ".svg":
            try:
                pg.exporters.SVGExporter(self.plot_item).export(str(path))
            except ValueError:
                # pyqtgraph 0.14's SVGExporter cannot parse the path data Qt 6.12's SVG
                # generator writes; render the scene through QSvgGenerator instead
                self._export_svg_with_qt(path)
        else:
            raise InputError(f"a chart can be exported as .png or .svg, not '{path.suffix or path.name}'",
                             file=str(path))
        if not path.exists():
            raise OSError(f"the chart could not be written to {path}")
        return path

    def _export_svg_with_qt(self, path: Path) -> None:
        source = self.plot_item.sceneBoundingRect()
        if source.isEmpty():
            raise OSError(f"the chart has no size to export to {path}")
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(source.size().toSize())
        generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
        generator.setTitle(self.plot_item.titleLabel.text or "tkl-Score chart")
        painter = QPainter(generator)
        try:
            self.scene().render(painter, QRectF(0, 0, source.width(), source.height()), source)
        finally:
            painter.end()


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
        self.clear_chart()
        self.series = {}
        self.ids = []
        sort_text = ("ascending by L-Severity, as the thesis' Figures 5.1/5.2" if self.order == SORT_THESIS
                     else "descending by tkl-Score")
        self.plot_item.setLabel("left", "Record score / source table score")
        self.plot_item.setLabel("bottom", f"Published record (sorted {sort_text})")
        self.set_title("Per-record scores / source table scores")
        if records is None or whole is None or not len(records):
            return
        if order is None:
            order = per_record_order(records, self.order)
        keep = order[decimate(len(order))]
        xs = np.arange(len(order))[decimate(len(order))]
        for name in self.SERIES:
            ys = _ratio(records[name].to_numpy()[keep], getattr(whole, name))
            label = LABELS[name] + (f" (x = {x_label(x)})" if name == "m_score" else "")
            many = len(xs) > 200
            self.series[name] = self.plot_item.plot(
                xs, ys, name=label, pen=pg.mkPen(COLORS[name], width=2), connect="finite",
                symbol=None if many else "o", symbolSize=7, symbolBrush=COLORS[name], symbolPen=None)
        self.ids = [str(i) for i in records["id"].iloc[keep].tolist()]  # only the drawn records' ids
        if len(xs) <= 40:
            self.plot_item.getAxis("bottom").setTicks([[(int(x), i) for x, i in zip(xs, self.ids)]])
        self.set_ranges(-0.5, len(order) - 0.5, _highest(self.series.values()))

    def point_count(self) -> int:
        item = self.series.get("tkl")
        return 0 if item is None or item.xData is None else len(item.xData)


def per_record_order(records: pd.DataFrame, order: str) -> np.ndarray:
    """The records' positions in the per-record chart's order (a sort: run it off the UI
    thread for a large release)."""
    if order == SORT_THESIS:
        return np.lexsort((records["tkl"].to_numpy(), records["l_severity"].to_numpy()))
    return np.argsort(-records["tkl"].to_numpy(), kind="stable")


class ReleasesChart(ScoreChart):
    """Candidate releases side by side: grouped bars of the five normalised-by-source scores."""

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
        grown = self.cumulative(records, x)
        keep = decimate(len(records))
        xs = (keep + 1).astype(np.float64)
        for name in self.SERIES:
            ys = _ratio(grown[name][keep], getattr(whole, name))
            label = LABELS[name] + (f" (x = {x_label(x)})" if name == "m_score" else "")
            self.series[name] = self.plot_item.plot(
                xs, ys, name=label, pen=pg.mkPen(COLORS[name], width=2), connect="finite",
                symbol=None if len(xs) > 200 else "o", symbolSize=6, symbolBrush=COLORS[name], symbolPen=None)
        self.set_ranges(0.5, len(records) + 0.5, _highest(self.series.values()))

    def point_count(self) -> int:
        item = self.series.get("tkl")
        return 0 if item is None or item.xData is None else len(item.xData)


def _highest(items) -> float:
    values = [np.nanmax(item.yData) for item in items
              if item.yData is not None and len(item.yData) and not np.isnan(item.yData).all()]
    return float(max(values)) if values else 1.0


def render_png(chart: ScoreChart, width: int = 1000, height: int = 560) -> bytes:
    """The chart drawn at ``width`` × ``height`` pixels (it need not be on screen), as PNG."""
    chart.resize(width, height)
    image = chart.grab().toImage()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())
