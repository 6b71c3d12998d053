"""The Scores view's charts, one tab each: the record scores of the current release (in the
thesis' order or riskiest first), the releases side by side with their comparison table, and
the growth of the release record by record.

The charts are drawn one per turn of the event loop, and a large release's per-record order
is sorted off the UI thread, so the window stays responsive; off screen they wait until the
view is shown (the owner's :class:`~tklscore.gui.when_shown.WhenShown` calls :meth:`draw`).
Before an export, :meth:`draw_then` brings every chart up to date: a large release's points
(sorted in memory, or read from the records on disk) are read off the UI thread in one task,
and drawn here when they arrive."""

from __future__ import annotations

from typing import Callable

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHeaderView, QSplitter, QTableWidget, QTableWidgetItem,
                               QTabWidget, QVBoxLayout, QWidget)

from tklscore.core.numbers import count, number, percent
from tklscore.core.report.charts import PER_RECORD_KEYS
from tklscore.core.report.sections.scores import normalised
from tklscore.core.scoring.scores import ScoreReport, cumulative_table_scores
from tklscore.gui.scores.charts import SORT_THESIS, SORT_TKL, GrowthChart, PerRecordChart, ReleasesChart, \
    per_record_order
from tklscore.gui.charts import decimate
from tklscore.gui.after_paint import next_turn
from tklscore.gui.tasks import SIDE

SORT_IN_BACKGROUND = 20_000  # records: a larger release's per-record chart is sorted off the UI thread
COMPARISON_COLUMNS = ("release", "tkl / source", "M / source", "L / source", "k", "l", "t", "average risk")


class ChartsPanel(QTabWidget):
    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self.report: ScoreReport | None = None
        self.steps: list = []   # chart updates still to draw, one per event-loop turn
        self.sorting = None     # the per-record chart's background sort, while it runs
        self.reading = None     # the points of the charts to export, read in the background
        self.queued: list = []  # exports asked for meanwhile: (stale, then, failed, cancelled) each
        workbench.measuresChanged.connect(self._fill_comparison)   # the releases' k, l, t and risk come after their scores
        self.setObjectName("chartTabs")
        self.per_record_chart = PerRecordChart()
        self._releases_chart: ReleasesChart | None = None   # built when first drawn or shown: see the properties
        self._growth_chart: GrowthChart | None = None
        self.order_combo = QComboBox()
        self.order_combo.addItem("Sort as the thesis' Figures 5.1/5.2 (ascending L-Severity)", SORT_THESIS)
        self.order_combo.addItem("Sort by tkl-Score, riskiest first", SORT_TKL)
        self.order_combo.currentIndexChanged.connect(self._order_chosen)
        per_record = QWidget()
        per_record_layout = QVBoxLayout(per_record)
        per_record_layout.setContentsMargins(0, 0, 0, 0)
        per_record_layout.addWidget(self.order_combo)
        per_record_layout.addWidget(self.per_record_chart)
        self.addTab(per_record, "Per record")
        self.comparison = QTableWidget(0, len(COMPARISON_COLUMNS))
        self.comparison.setObjectName("releaseComparison")
        self.comparison.setHorizontalHeaderLabels(list(COMPARISON_COLUMNS))
        self.comparison.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.comparison.verticalHeader().setVisible(False)
        self.comparison.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.comparison.setToolTip("tkl, M, L normalised against the source; k, l, t and the average "
                                   "re-identification risk (prosecutor) of each release")
        self.releases_page = QSplitter(Qt.Orientation.Vertical)
        self.releases_page.addWidget(self.comparison)
        self.addTab(self.releases_page, "Releases")
        self.growth_page = QWidget()
        QVBoxLayout(self.growth_page).setContentsMargins(0, 0, 0, 0)
        self.addTab(self.growth_page, "Growth")
        self.currentChanged.connect(self._tab_shown)

    # The charts of the tabs behind the first are built the first time they are drawn (a turn of
    # the event loop of their own, after the view is shown) or their tab is shown: building all
    # three took most of the Scores view's first show.
    @property
    def releases_chart(self) -> ReleasesChart:
        if self._releases_chart is None:
            self._releases_chart = ReleasesChart()
            self.releases_page.insertWidget(0, self._releases_chart)
            self.releases_page.setSizes([300, 120])
        return self._releases_chart

    @property
    def growth_chart(self) -> GrowthChart:
        if self._growth_chart is None:
            self._growth_chart = GrowthChart()
            self.growth_page.layout().addWidget(self._growth_chart)
        return self._growth_chart

    def _tab_shown(self, index: int) -> None:
        """A tab shown before its chart was first drawn shows it built (empty until drawn)."""
        if index == 1:
            self.releases_chart.show()
        elif index == 2:
            self.growth_chart.show()

    def charts(self) -> list:
        return [self.per_record_chart, self.releases_chart, self.growth_chart]

    def current_chart(self):
        return self.charts()[self.currentIndex()]

    def show_report(self, report: ScoreReport | None, x: float) -> None:
        """The charts are to show ``report``: cleared at once without one, drawn by :meth:`draw`."""
        self.report = report
        if report is None:
            self.per_record_chart.set_data(None, None, x)
            if self._growth_chart is not None:   # one not built yet is empty
                self._growth_chart.set_data(None, None, x)
        self.steps = []

    # ------------------------------------------------------------------ the order, kept in the project

    def _order_chosen(self, _index: int = 0) -> None:
        order = self.order_combo.currentData()
        self.per_record_chart.set_order(order)
        if self.report is not None and self.report.stored is not None:   # its points are read again, in order
            self.draw_per_record()
        settings = self.workbench.project.settings
        if settings.get("per_record_order") != order:
            settings["per_record_order"] = order
            self.workbench._mark(True)

    def restore_settings(self) -> None:
        """Chart settings live in the project file, so a reopened project shows the same."""
        order = self.workbench.project.settings.get("per_record_order")
        index = self.order_combo.findData(order) if order else -1
        if index >= 0 and index != self.order_combo.currentIndex():
            self.order_combo.blockSignals(True)
            self.order_combo.setCurrentIndex(index)
            self.order_combo.blockSignals(False)
            self.per_record_chart.set_order(order)

    # ------------------------------------------------------------------ drawing

    def draw(self) -> None:
        """The charts of the current report, in later turns of the event loop, one each, so
        that the window stays responsive while large releases are drawn."""
        self.steps = [self.draw_per_record, self.draw_growth, self.draw_releases]
        next_turn(self._next_chart)

    def draw_then(self, stale: bool, then: Callable[[], None], failed: Callable[[str], None],
                  cancelled: Callable[[object], None] | None = None):
        """Bring every chart up to date, then call ``then`` (an export); ``stale``: none was
        drawn since the last change. A large release's points are read off the UI thread, in
        one task (returned) with the runner's progress and cancel; ``then`` follows once they
        are drawn, ``failed`` gets its error, ``cancelled`` is called when it is cancelled.
        A small release's charts are drawn at once, and ``then`` called before returning."""
        if self.reading is not None:   # another export reads its points: this one follows it
            self.queued.append((stale, then, failed, cancelled))
            return self.reading
        steps, self.steps = self.steps, []
        if stale:
            steps = [self.draw_per_record, self.draw_growth, self.draw_releases]
        if self.sorting is not None:   # its points are read with the others below
            self.sorting.cancel()
            self.sorting = None
            if self.draw_per_record not in steps:
                steps.insert(0, self.draw_per_record)
        if self.draw_releases in steps:
            self.draw_releases()
        report = self.report
        per_record = report is not None and self.draw_per_record in steps
        growth = report is not None and self.draw_growth in steps
        if not (per_record or growth):
            then()
            return None
        kind = self.per_record_chart.order
        read = chart_points(report, kind if per_record else None, growth)
        if report.stored is None and len(report.records) <= SORT_IN_BACKGROUND:
            self._show_points(report, kind, read())
            then()
            return None

        def done(points) -> None:
            # one chart drawn per event-loop turn, then the export in its own: the window
            # stays responsive between them (each is tens of milliseconds for a large release)
            steps = [lambda name=name: self._show_points(report, kind, {name: points[name]}) for name in points]
            next_turn(lambda: next_step(steps + [then]))

        def next_step(steps) -> None:
            if self.report is not report or self.per_record_chart.order != kind:
                # another release or order came meanwhile: its points are read in turn
                self.reading = None
                self.draw_then(True, then, failed, cancelled)
                self._follow(lambda *queued: self.draw_then(*queued))
                return
            step = steps.pop(0)
            if not steps:
                self.reading = None
            step()
            if steps:
                next_turn(lambda: next_step(steps))
            else:
                self._follow(lambda *queued: self.draw_then(*queued))

        def stopped(value) -> None:
            self.reading = None
            if cancelled is not None:
                cancelled(value)
            self._follow(lambda _stale, _then, _failed, cancelled_too: cancelled_too and cancelled_too(None))

        def settled_with(message: str) -> None:
            self.reading = None
            failed(message)
            self._follow(lambda _stale, _then, failed_too, _cancelled: failed_too(message))

        task = self.reading = self.workbench.runner.start(
            "Reading the chart's points", read, done, settled_with, owner=self, lane=SIDE,
            on_cancelled=stopped)
        return task

    def _follow(self, call) -> None:
        """``call(stale, then, failed, cancelled)`` for each export asked for while one read."""
        queued, self.queued = self.queued, []
        for export in queued:
            call(*export)

    def _show_points(self, report: ScoreReport, kind: str, points: dict) -> None:
        """Draw the points :func:`chart_points` read (on the UI thread)."""
        if "per_record" in points:
            if report.stored is not None:
                self.per_record_chart.set_ranked(points["per_record"], report.published_rows, report.source_scores,
                                                 report.x)
            else:
                self.per_record_chart.set_data(report.records, report.source_scores, report.x,
                                               order=points["per_record"])
        if "growth" in points:
            positions, grown = points["growth"]
            self.growth_chart.set_running(positions, grown, report.published_rows if report.stored is not None
                                          else len(report.records), report.source_scores, report.x)

    def _next_chart(self) -> None:
        if self.steps:
            self.steps.pop(0)()
            if self.steps:
                next_turn(self._next_chart)

    def pending(self) -> bool:
        """Whether a chart is still to be drawn or its records are being sorted or read."""
        return bool(self.steps) or self.sorting is not None or self.reading is not None

    def draw_per_record(self) -> None:
        report = self.report
        chart = self.per_record_chart
        if self.sorting is not None:
            self.sorting.cancel()
            self.sorting = None
        if report is None:
            return
        if report.stored is not None:
            self._draw_stored(chart, report)
            return
        if len(report.records) <= SORT_IN_BACKGROUND:
            chart.set_data(report.records, report.source_scores, report.x)
            return
        kind = chart.order

        def done(order) -> None:  # drawn unless another release or order came meanwhile
            if task is self.sorting:
                self.sorting = None
            if self.report is report and chart.order == kind:
                chart.set_data(report.records, report.source_scores, report.x, order=order)

        def failed(message: str) -> None:
            if task is self.sorting:
                self.sorting = None
            self.workbench.failed.emit(message)

        # the side lane: the sort reads only the report, and never delays the next scores
        task = self.sorting = self.workbench.runner.start(
            "Sorting the records for the chart", lambda control: per_record_order(report.records, kind), done,
            failed, owner=self, lane=SIDE)

    def _draw_stored(self, chart, report: ScoreReport) -> None:
        """The per-record chart of a release whose records are on disk: its records at evenly
        spaced ranks of the chart's order, found by a query over the file (off the UI thread)."""
        kind, store, n = chart.order, report.stored, report.published_rows

        def read(control=None):
            if control is not None:
                control.check()   # cancelled before it began (an export reads the points itself)
            return store.at_ranks(PER_RECORD_KEYS[kind], decimate(n), ["id", "tkl", "m_score", "l_severity"])

        def done(points) -> None:
            if task is self.sorting:
                self.sorting = None
            if self.report is report and chart.order == kind:
                chart.set_ranked(points, n, report.source_scores, report.x)

        def failed(message: str) -> None:
            if task is self.sorting:
                self.sorting = None
            self.workbench.failed.emit(message)

        task = self.sorting = self.workbench.runner.start("Sorting the records for the chart", read, done, failed,
                                                          owner=self, lane=SIDE)

    def draw_growth(self) -> None:
        """The growth chart; records on disk are added up off the UI thread."""
        report = self.report
        if report is None:
            return
        if report.stored is None:
            self.growth_chart.set_data(report.records, report.source_scores, report.x)
            return
        store, n, positions = report.stored, report.published_rows, decimate(report.published_rows)

        def done(grown) -> None:
            if self.report is report:
                self.growth_chart.set_running(positions, grown, n, report.source_scores, report.x)

        self.workbench.runner.start("Adding up the records for the growth chart",
                                    lambda control: store.cumulative_at(positions, report.x), done,
                                    self.workbench.failed.emit, owner=self, lane=SIDE)

    def draw_releases(self) -> None:
        self.releases_chart.set_data({name: r.normalized_source for name, r in self.workbench.reports.items()},
                                     self.workbench.project.x)
        self._fill_comparison()

    def _fill_comparison(self) -> None:
        reports, measures = self.workbench.reports, getattr(self.workbench, "measures", {})
        self.comparison.setRowCount(len(reports))
        for row, (name, report) in enumerate(reports.items()):
            n = report.normalized_source
            m = measures.get(name)
            cells = [name] + [normalised(v) for v in (n.tkl, n.m_score, n.l_severity)]
            if m is None:
                cells += ["n/a"] * 4
            else:
                cells += [count(m.k), count(m.models.l_distinct), number(m.models.t), percent(m.prosecutor.average)]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.comparison.setItem(row, column, item)

    def comparison_rows(self) -> list[list[str]]:
        """The release comparison as shown (release, tkl, M, L by source, k, l, t, average risk)."""
        return [[self.comparison.item(r, c).text() for c in range(self.comparison.columnCount())]
                for r in range(self.comparison.rowCount())]


def chart_points(report: ScoreReport, kind: str | None, growth: bool) -> Callable:
    """The function that reads the points of ``report``'s per-record chart in ``kind``'s order
    (None: not that chart) and of its growth chart: ``{"per_record": order or ranked records,
    "growth": (positions, scores so far)}``. It touches no widget and may run in a task
    (given its control, checked between the two)."""

    def read(control=None) -> dict:
        points = {}
        if control is not None:
            control.progress(0, "Reading the chart's points")
        if kind is not None:
            if report.stored is not None:
                n = report.published_rows
                points["per_record"] = report.stored.at_ranks(PER_RECORD_KEYS[kind], decimate(n),
                                                              ["id", "tkl", "m_score", "l_severity"])
            else:
                points["per_record"] = per_record_order(report.records, kind)
        if growth:
            if control is not None:
                control.progress(50, "Reading the chart's points")
            if report.stored is not None:
                positions = decimate(report.published_rows)
                points["growth"] = positions, report.stored.cumulative_at(positions, report.x)
            else:
                positions = decimate(len(report.records))
                grown = cumulative_table_scores(report.records, report.x)
                points["growth"] = positions, {name: np.asarray(values)[positions] for name, values in grown.items()}
        return points
    return read
