"""pyqtgraph charts of the scores (spec gui.md §1.6):

- :class:`PerRecordChart`: per-record tkl/M/L normalised against the source table score,
  sorted as in the thesis' Figures 5.1/5.2 (ascending by L-Severity) or by tkl descending;
- :class:`ReleasesChart`: grouped bars of the five normalised-by-source scores per release;
- :class:`GrowthChart`: tkl/M/L (normalised by source) as records are added in published order.

Every chart has a legend and axis labels, is redrawn only by ``set_data`` and exports
itself as PNG or SVG (:meth:`ScoreChart.export`, :meth:`ScoreChart.png_bytes`). Series
longer than :data:`MAX_POINTS` are decimated evenly (first and last point kept).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyqtgraph as pg
import pyqtgraph.exporters
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF
from PySide6.QtGui import QPainter
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


def _ratio(values: np.ndarray, whole: float | None) -> np.ndarray:
    if whole is None or not whole > 0:
        return np.full(len(values), np.nan)
    return np.asarray(values, dtype=np.float64) / whole


class ScoreChart(pg.PlotWidget):
    """A plot with a legend and axis labels that exports itself."""

    title_text = ""

    def __init__(self, parent=None):
        super().__init__(parent, background="w")
        self.plot_item: pg.PlotItem = self.getPlotItem()
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.legend = self.plot_item.addLegend(offset=(10, 10))
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
        self.plot_item.setTitle(text, color="k")

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

    def png_bytes(self, width: int = 900) -> bytes:
        """The chart as PNG bytes (for embedding into a report)."""
        exporter = pg.exporters.ImageExporter(self.plot_item)
        exporter.parameters()["width"] = width
        image = exporter.export(toBytes=True)
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        buffer.close()
        return bytes(data.data())


class PerRecordChart(ScoreChart):
    """Record scores of tkl, M and L, each divided by the source table's score."""

    SERIES = ("tkl", "m_score", "l_severity")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.order = SORT_THESIS
        self.series: dict[str, pg.PlotDataItem] = {}
        self.ids: list[str] = []
        self._last = None
        self.set_data(None, None, 1.0)

    def set_order(self, order: str) -> None:
        self.order = order
        if self._last is not None:
            self.set_data(*self._last)

    def set_data(self, records: pd.DataFrame | None, whole: ScoreSet | None, x: float) -> None:
        self._last = (records, whole, x) if records is not None else None
        self.clear_chart()
        self.series = {}
        self.ids = []
        sort_text = ("ascending by L-Severity, as the thesis' Figures 5.1/5.2" if self.order == SORT_THESIS
                     else "descending by tkl-Score")
        self.plot_item.setLabel("left", "Record score / source table score")
        self.plot_item.setLabel("bottom", f"Published record (sorted {sort_text})")
        self.set_title(f"Per-record scores normalised against the source (M with x = {x_label(x)})")
        if records is None or whole is None or not len(records):
            return
        if self.order == SORT_THESIS:
            order = np.lexsort((records["tkl"].to_numpy(), records["l_severity"].to_numpy()))
        else:
            order = np.argsort(-records["tkl"].to_numpy(), kind="stable")
        keep = order[decimate(len(order))]
        xs = np.arange(len(order))[decimate(len(order))]
        for name in self.SERIES:
            ys = _ratio(records[name].to_numpy()[keep], getattr(whole, name))
            label = LABELS[name] + (f" (x = {x_label(x)})" if name == "m_score" else "")
            many = len(xs) > 200
            self.series[name] = self.plot_item.plot(
                xs, ys, name=label, pen=pg.mkPen(COLORS[name], width=2), connect="finite",
                symbol=None if many else "o", symbolSize=7, symbolBrush=COLORS[name], symbolPen=None)
        self.ids = [str(i) for i in records["id"].to_numpy()[keep]]
        if len(xs) <= 40:
            self.plot_item.getAxis("bottom").setTicks([[(int(x), i) for x, i in zip(xs, self.ids)]])
        self.plot_item.enableAutoRange()

    def point_count(self) -> int:
        item = self.series.get("tkl")
        return 0 if item is None or item.xData is None else len(item.xData)


class ReleasesChart(ScoreChart):
    """Candidate releases side by side: grouped bars of the five normalised-by-source scores."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.bars: dict[str, pg.BarGraphItem] = {}
        self.names: list[str] = []
        self.set_data({})

    def set_data(self, normalized: dict[str, ScoreSet], x: float | None = None) -> None:
        """``normalized``: release name → its scores normalised against the source (M with ``x``)."""
        self.clear_chart()
        self.bars = {}
        self.names = list(normalized)
        self.plot_item.setLabel("left", "Score / source table score")
        self.plot_item.setLabel("bottom", "Candidate release")
        self.set_title("Candidate releases (normalised against the source; undefined shown as 0)")
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
        self.plot_item.setXRange(-0.6, len(self.names) - 0.4)
        self.plot_item.setYRange(0, 1.05)

    def bar_count(self) -> int:
        return sum(len(item.opts["height"]) for item in self.bars.values())


class GrowthChart(ScoreChart):
    """tkl, M and L of the first i published records (in published order), divided by the
    source table's scores; the last point is the release's normalised score."""

    SERIES = ("tkl", "m_score", "l_severity")

    def __init__(self, parent=None):
        super().__init__(parent)
        self.series: dict[str, pg.PlotDataItem] = {}
        self.set_data(None, None, 1.0)

    cumulative = staticmethod(cumulative_table_scores)

    def set_data(self, records: pd.DataFrame | None, whole: ScoreSet | None, x: float) -> None:
        self.clear_chart()
        self.series = {}
        self.plot_item.setLabel("left", "Score so far / source table score")
        self.plot_item.setLabel("bottom", "Records published (in published order)")
        self.set_title(f"Score growth as records are added (M with x = {x_label(x)})")
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
        self.plot_item.enableAutoRange()

    def point_count(self) -> int:
        item = self.series.get("tkl")
        return 0 if item is None or item.xData is None else len(item.xData)
