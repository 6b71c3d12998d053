"""The Scores view (spec gui.md §1.5-7): the current release's scores raw and normalised,
an x control (∞ allowed), the per-record table with the riskiest records highlighted, an
explanation of the selected record, the charts and the report export — four panels
(``choices_panel.py``, ``summary_panel.py``, ``records_panel.py``, ``charts_panel.py``) over one
Workbench. Which records are the riskiest is core's rule (:func:`riskiest_mask`)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QSplitter, QVBoxLayout, QWidget

from tklscore.core.files.atomic import check_output
from tklscore.core.scoring.scores import RISKIEST_SHARE, ScoreReport, riskiest_count, riskiest_mask
from tklscore.gui.charts import check_chart_format
from tklscore.gui.guard import Guarded, call_guarded
from tklscore.core.report import REPORT_FORMATS, complete_risk
from tklscore.gui.report import prepare_report, report_input
from tklscore.gui.scores.charts_panel import COMPARISON_COLUMNS, SORT_IN_BACKGROUND, ChartsPanel
from tklscore.gui.scores.choices_panel import ChoicesPanel
from tklscore.gui.scores.records_panel import MAX_EXPLAINED_VALUES, RecordsPanel, explanation_html
from tklscore.gui.scores.summary_panel import SummaryPanel
from tklscore.gui.tasks import SAVE, write_cancelled
from tklscore.gui.when_shown import WhenShown

CHART_FORMATS = "PNG image (*.png);;SVG image (*.svg)"


class ScoresView(QWidget):
    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self._report: ScoreReport | None = None
        self._riskiest = None
        self.choices = ChoicesPanel(workbench, self._guard)
        self.summary_panel = SummaryPanel()
        self.records = RecordsPanel(workbench)
        self.charts_panel = ChartsPanel(workbench)
        # the charts are drawn when the view is on screen: off screen, the UI thread does not
        # draw them after every edit (they follow when the view is shown)
        self._charts = WhenShown(self, self.charts_panel.draw)
        upper = QWidget()
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addWidget(self.summary_panel)
        upper_layout.addWidget(self.records, 1)
        main_split = QSplitter(Qt.Orientation.Vertical)
        main_split.addWidget(upper)
        main_split.addWidget(self.charts_panel)
        main_split.setSizes([500, 400])
        layout = QVBoxLayout(self)
        layout.addWidget(self.choices)
        layout.addWidget(main_split, 1)

        # the panels' parts that the application and its tests work with
        for name in ("release_combo", "release_label", "x_spin", "x_infinite", "export_chart_button",
                     "export_report_button", "weights_combo", "weights_file_button", "score_models_button",
                     "weights_label", "hide_own_release_chooser", "open_weights_file_dialog",
                     "open_score_models_dialog"):
            setattr(self, name, getattr(self.choices, name))
        for name in ("summary", "info_label"):
            setattr(self, name, getattr(self.summary_panel, name))
        for name in ("records_model", "paged_model", "records_view", "explain_browser", "select_record"):
            setattr(self, name, getattr(self.records, name))
        for name in ("per_record_chart", "order_combo", "comparison", "charts",
                     "current_chart", "comparison_rows"):
            setattr(self, name, getattr(self.charts_panel, name))
        self.chart_tabs = self.charts_panel
        self._draw_releases = self.charts_panel.draw_releases

        self.export_chart_button.clicked.connect(self.export_chart_dialog)
        self.export_report_button.clicked.connect(self.export_report_dialog)
        workbench.scoresChanged.connect(self.refresh)
        workbench.modelChanged.connect(self.choices.show_weights_source)
        workbench.releasesChanged.connect(self.choices.refresh_releases)
        self.choices.refresh_releases()
        self.refresh()

    @property
    def releases_chart(self):
        return self.charts_panel.releases_chart

    @property
    def growth_chart(self):
        return self.charts_panel.growth_chart

    @property
    def explanation(self):
        """The explanation of the selected record (None until one is selected)."""
        return self.records.explanation

    def _guard(self, function, *args) -> Guarded:
        return call_guarded(self.workbench.failed.emit, function, *args)

    # ------------------------------------------------------------------ refresh

    def refresh(self) -> None:
        self.charts_panel.restore_settings()
        self.choices.refresh()
        report = self.workbench.current_report()
        self._report = report
        self._riskiest = None if report is None else report.riskiest()
        x = self.workbench.project.x if report is None else report.x
        riskiest = (0 if report is None else riskiest_count(report.published_rows) if report.stored is not None
                    else int(self._riskiest.sum()))
        self.summary_panel.show_report(report, x, riskiest, self.workbench.weights_problem)
        self.charts_panel.show_report(report, self.workbench.project.x)
        self.records.show_report(report, self._riskiest)
        self._charts.request()

    def charts_pending(self) -> bool:
        """Whether a chart does not show the current scores yet: it is still to be drawn, its
        records are being sorted, or the view is off screen and draws them when shown."""
        return self.charts_panel.pending() or self._charts.stale

    def summary_text(self, row: int, column: int) -> str:
        """The text of the summary cell (row: score, column 0 raw / 1 by source / 2 by max)."""
        return self.summary_panel.text(row, column)

    def _draw_charts_then(self, then, failed, cancelled=None):
        """Bring every chart up to date, then call ``then`` (before one is exported): a large
        release's points are read off the UI thread (:meth:`ChartsPanel.draw_then`)."""
        stale, self._charts.stale = self._charts.stale, False
        return self.charts_panel.draw_then(stale, then, failed, cancelled)

    # ------------------------------------------------------------------ exports

    def charts(self) -> list:
        return [self.per_record_chart, self.releases_chart, self.growth_chart]

    def current_chart(self):
        return self.charts()[self.chart_tabs.currentIndex()]

    def export_chart_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, "Export chart", "", CHART_FORMATS)
        if path:
            self.export_chart(_with_suffix(path, chosen, ".png"))

    def export_chart(self, path: str, chart=None) -> bool:
        """Write ``chart`` (default: the chart on show) as PNG or SVG by the file's extension,
        once every chart shows the current scores: a large release's points are read in the
        background first (with progress and cancel), the chart drawn here and its file
        written in the background. False
        when the file is refused at once (its format, an input of the project, a folder that
        cannot be written); the file is written atomically."""
        chart = chart or self.current_chart()
        workbench = self.workbench
        inputs = [p for _what, p in workbench.project.named_paths()] + [workbench.project_path]

        def refuse() -> None:
            check_chart_format(path)
            check_output(path, inputs)

        if not self._guard(refuse):
            return False

        def write() -> None:
            # drawn here, where the scene lives; the PNG encoded and the file written on the
            # save lane (tens of milliseconds for a large release, and closing waits for it)
            rendered = self._guard(chart.render, path)
            if rendered:
                workbench.runner.start("Writing the chart", lambda control: rendered.value.write(inputs),
                                       lambda written: workbench.status.emit(f"Chart written to {written}"),
                                       failed, lane=SAVE)

        def failed(message: str) -> None:
            workbench.failed.emit(f"{path}: the chart could not be exported ({message})")

        self._draw_charts_then(write, failed, lambda _value: workbench.status.emit(f"Chart export cancelled: {path}"))
        return True

    def export_report_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, "Export report", "", REPORT_FORMATS)
        if path:
            self.export_report(_with_suffix(path, chosen, ".html"))

    def export_report(self, path: str) -> bool:
        """Write the report as HTML, PDF or CSV by the file's extension, in the background
        (the charts are drawn and the report's content read here, the file written there)."""
        data = report_input(self.workbench)
        writer = self._guard(prepare_report, path, data)
        if not writer:
            return False
        runner = self.workbench.runner

        def failed(message: str) -> None:
            self.workbench.failed.emit(f"{path}: the report could not be written ({message})")

        said = self.workbench.status.emit

        def write(_measured=None) -> None:
            runner.start("Exporting the report", lambda control: writer.value(),
                         lambda written: said(f"Report written to {written}"), failed, cancel_text="Cancel the export",
                         stops="the report's export", on_cancelled=write_cancelled(said, "the report", path))

        if data.measure_risk is not None and data.risk is None and Path(path).suffix.lower() != ".csv":
            # the risk is measured first, in the background, with its own progress
            runner.start("Measuring risk for the report",
                         lambda control: complete_risk(data, lambda f: control.progress(
                             int(100 * f), "Measuring risk for the report")), write, failed,
                         cancel_text="Cancel the export", stops="the report's export (measuring its risk)",
                         on_cancelled=lambda _value: said(f"Cancelled: the report was not written to {path} (its "
                                                          f"risk was being measured; a file already there is unchanged)"))
        else:
            write()
        return True


def _with_suffix(path: str, chosen_filter: str, default: str) -> str:
    """``path`` with the extension of the chosen dialog filter when it has none."""
    if Path(path).suffix:
        return path
    for suffix in (".html", ".pdf", ".csv", ".png", ".svg"):
        if f"*{suffix}" in (chosen_filter or ""):
            return path + suffix
    return path + default


__all__ = ["CHART_FORMATS", "COMPARISON_COLUMNS", "MAX_EXPLAINED_VALUES", "RISKIEST_SHARE", "SORT_IN_BACKGROUND",
           "ScoresView", "explanation_html", "riskiest_mask"]
