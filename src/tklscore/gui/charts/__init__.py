"""The views' chart base (pyqtgraph), shared by the Scores and Risk views.

:class:`ScoreChart` is a plot with a legend (one row above the data, never over a line) and
axis labels in the data's own units (no SI prefix or ×10ⁿ scaling), redrawn only by its
subclass' ``set_data``, that exports itself as PNG or SVG (:meth:`ScoreChart.export`).
:class:`PlainAxis` labels ticks in plain decimals (never ``5e-05``),
:class:`WholeNumberAxis` ticks counted things at whole numbers only, :class:`PowerOfTenAxis`
a log10 axis with the values themselves. Series longer than :data:`MAX_POINTS` are decimated evenly
(:func:`decimate`, first and last point kept). The report draws its own charts as SVG
without Qt (``core/report/charts.py``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyqtgraph as pg
import pyqtgraph.exporters
from PySide6.QtCore import QBuffer, QIODevice, QRectF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgGenerator

from tklscore.core.errors import InputError
from tklscore.core.files.atomic import atomic_path
from tklscore.core.numbers import number, tick
from tklscore.core.report.charts import evenly_spaced
from tklscore.gui.plots import MenuOnDemandViewBox

MAX_POINTS = 20_000
PEAKS_ABOVE = 200   # a series of more points is drawn as its pixel columns' extremes (ScoreChart.line)
LEGEND_COLUMNS = 5   # every chart has at most five series: the legend stays one row, above the data


def decimate(n: int, limit: int = MAX_POINTS) -> np.ndarray:
    """Indices of at most ``limit`` evenly spaced points of ``n`` (first and last kept)."""
    return evenly_spaced(n, limit)


class PlainAxis(pg.AxisItem):
    """An axis labelled in plain decimals (``0.00005``, ``2,500``), never ``5e-05``."""

    def tickStrings(self, values, scale, spacing):
        return [tick(v * scale, spacing * scale) for v in values]


class WholeNumberAxis(PlainAxis):
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


class PowerOfTenAxis(pg.AxisItem):
    """An axis of log10 values labelled with the values themselves (0.001, 0.01, …)."""

    def tickStrings(self, values, scale, spacing):
        return [number(10.0 ** v, 3) for v in values]


class ScoreChart(pg.PlotWidget):
    """A plot with a legend and axis labels that exports itself."""

    title_text = ""
    LEGEND_ROOM = 1.3   # the y range reaches this far above the highest value: the legend's row

    def __init__(self, parent=None, whole_number_x: bool = False, bottom_axis: pg.AxisItem | None = None):
        bottom = bottom_axis or (WholeNumberAxis("bottom") if whole_number_x else PlainAxis("bottom"))
        axes = {"bottom": bottom, "left": PlainAxis("left")}
        super().__init__(parent, background="w", axisItems=axes, viewBox=MenuOnDemandViewBox())
        self.plot_item: pg.PlotItem = self.getPlotItem()
        self.plot_item.showGrid(x=True, y=True, alpha=0.2)
        self.legend = self.plot_item.addLegend(offset=(10, 5), colCount=LEGEND_COLUMNS)
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
        self.plot_item.setTitle(text, color="k", size="11pt")

    def line(self, xs: np.ndarray, ys: np.ndarray, **options) -> pg.PlotDataItem:
        """A series drawn as a line through evenly spaced ``xs``. Longer than
        :data:`PEAKS_ABOVE` points, it is drawn as each pixel column's lowest and highest
        value, in order (pyqtgraph's "peak" downsampling, one bin a pixel column, again as
        the view is resized or zoomed): the same picture, and a few thousand segments to
        paint and export instead of tens of thousands (the data, ``xData``/``yData``, stay
        whole)."""
        item = self.plot_item.plot(xs, ys, **options)
        if len(xs) > PEAKS_ABOVE:
            item.opts["autoDownsampleFactor"] = 1.0   # no public setter: bins of one pixel column
            item.setDownsampling(auto=True, method="peak")
            item.setClipToView(True)
        return item

    def set_ranges(self, x_low: float, x_high: float, y_high: float) -> None:
        """Whole series in view (nothing cut off at the edges) and room above for the legend."""
        self.plot_item.setXRange(x_low, x_high, padding=0)
        top = y_high if math.isfinite(y_high) and y_high > 0 else 1.0
        self.plot_item.setYRange(0, top * self.LEGEND_ROOM, padding=0)

    def export(self, path: str | Path, inputs=()) -> Path:
        """Write the chart as PNG or SVG, chosen by the file's extension, through a temporary
        file renamed over ``path`` (never over one of ``inputs``)."""
        return self.render(path).write(inputs)

    def render(self, path: str | Path) -> RenderedChart:
        """The chart drawn for ``path``'s format (PNG: an image, SVG: its text), here on the
        UI thread, where the scene lives; encoding and writing the file
        (:meth:`RenderedChart.write`) may run on any thread."""
        path = Path(path)
        if check_chart_format(path) == ".png":
            exporter = pg.exporters.ImageExporter(self.plot_item)
            exporter.parameters()["width"] = max(800, int(self.plot_item.sceneBoundingRect().width()))
            image = exporter.export(toBytes=True)
            if image is None or image.isNull():
                raise OSError(f"the chart could not be drawn for {path}")
            return RenderedChart(path, image=image)
        try:
            return RenderedChart(path, data=bytes(pg.exporters.SVGExporter(self.plot_item).export(toBytes=True)))
        except ValueError:
            # pyqtgraph 0.14's SVGExporter cannot parse the path data Qt 6.12's SVG
            # generator writes; render the scene through QSvgGenerator instead
            return RenderedChart(path, data=self._svg_with_qt(path))

    def _svg_with_qt(self, path: Path) -> bytes:
        source = self.plot_item.sceneBoundingRect()
        if source.isEmpty():
            raise OSError(f"the chart has no size to export to {path}")
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(source.size().toSize())
        generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
        generator.setTitle(self.plot_item.titleLabel.text or "tkl-Score chart")
        painter = QPainter(generator)
        try:
            self.scene().render(painter, QRectF(0, 0, source.width(), source.height()), source)
        finally:
            painter.end()
        return bytes(buffer.data())


class RenderedChart:
    """A chart drawn on the UI thread, to be written to ``path``: a PNG's image (encoded by
    :meth:`write`, which may run on a task's thread: a ``QImage`` is not tied to the GUI
    thread) or an SVG's text."""

    def __init__(self, path: Path, *, image: QImage | None = None, data: bytes | None = None):
        self.path, self.image, self.data = path, image, data

    def write(self, inputs=()) -> Path:
        """The file written through a temporary file renamed over the path (never over one of
        ``inputs``)."""
        with atomic_path(self.path, inputs) as temporary:
            if self.image is not None:
                if not self.image.save(str(temporary), "PNG"):
                    raise OSError(f"the chart could not be written to {self.path}")
            else:
                temporary.write_bytes(self.data)
            if temporary.stat().st_size == 0:
                raise OSError(f"the chart could not be written to {self.path}")
        return self.path


def check_chart_format(path: str | Path) -> str:
    """The chart file's format by its extension (``.png``, ``.svg``), or an error."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise InputError(f"a chart can be exported as .png or .svg, not '{path.suffix or path.name}'",
                         file=str(path))
    return suffix


def highest(items) -> float:
    values = [np.nanmax(item.yData) for item in items
              if item.yData is not None and len(item.yData) and not np.isnan(item.yData).all()]
    return float(max(values)) if values else 1.0
