"""The Scores view (spec gui.md §1.5-7): the current release's scores raw and normalised,
an x control (∞ allowed), the per-record table with the riskiest records highlighted, an
explanation of the selected record, the charts and the report export."""

from __future__ import annotations

import html
import math
from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from tklscore.core.errors import InputError
from tklscore.core.scoring.explain import RecordExplanation, explain_record
from tklscore.core.scoring.scores import SCORE_NAMES, ScoreReport, score_label
from tklscore.core.scoring.weights_source import FILE, MODEL, SCORE_MODELS
from tklscore.gui.guard import run_guarded
from tklscore.gui.tasks import SIDE
from tklscore.gui.when_shown import WhenShown
from tklscore.gui.scores.charts import (
    SORT_THESIS,
    SORT_TKL,
    GrowthChart,
    PerRecordChart,
    ReleasesChart,
    per_record_order,
)
from tklscore.gui.frame_model import FrameModel
from tklscore.core.numbers import count, number, percent, score
from tklscore.core.report import REPORT_FORMATS, complete_risk
from tklscore.core.report.sections.scores import normalised, score_rows
from tklscore.gui.report import prepare_report, report_input

RISKIEST_SHARE = 0.10
# the per-record columns by the report's names (W: the record's weight sum; RS: its record scores)
RECORD_HEADERS = {"weight_sum": "W", "tkl": "RS tkl", "m_score": "RS M", "l_severity": "RS L"}
SORT_IN_BACKGROUND = 20_000  # records: a larger release's per-record chart is sorted off the UI thread
CHART_FORMATS = "PNG image (*.png);;SVG image (*.svg)"
MAX_EXPLAINED_VALUES = 50


COMPARISON_COLUMNS = ("release", "tkl / source", "M / source", "L / source", "k", "l", "t", "average risk")


def riskiest_mask(tkl: np.ndarray, share: float = RISKIEST_SHARE) -> np.ndarray:
    """True for the ceil(share · n) records with the highest tkl record score (at least one)."""
    n = len(tkl)
    mask = np.zeros(n, dtype=bool)
    if n:
        count = max(1, math.ceil(share * n))
        mask[np.argpartition(-np.asarray(tkl), count - 1)[:count]] = True
    return mask


class ScoresView(QWidget):
    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self.explanation: RecordExplanation | None = None
        self._report: ScoreReport | None = None
        self._chart_steps: list = []  # chart updates still to draw, one per event-loop turn
        self._sorting = None          # the per-record chart's background sort, while it runs
        # the charts are drawn when the view is on screen: off screen, the UI thread does not
        # draw them after every edit (they follow when the view is shown)
        self._charts = WhenShown(self, self._draw_charts)

        # ---- top bar: release, x, exports
        self.release_combo = QComboBox()
        self.release_combo.setObjectName("releaseCombo")
        self.release_combo.setMinimumWidth(160)
        self.release_combo.currentTextChanged.connect(self._release_chosen)
        self.x_spin = QDoubleSpinBox()
        self.x_spin.setObjectName("xSpin")
        self.x_spin.setRange(1.0, 1e6)
        self.x_spin.setDecimals(2)
        self.x_spin.setValue(1.0)
        self.x_spin.setKeyboardTracking(False)
        self.x_spin.setToolTip("M-Score = n^(1/x) · max RS_M; x ≥ 1")
        self.x_spin.valueChanged.connect(lambda _: self._apply_x())
        self.x_infinite = QCheckBox("∞")
        self.x_infinite.setObjectName("xInfinite")
        self.x_infinite.setToolTip("x → ∞: M-Score is the largest record score")
        self.x_infinite.toggled.connect(lambda _: self._apply_x())
        self.export_chart_button = QPushButton("Export chart…")
        self.export_chart_button.clicked.connect(self.export_chart_dialog)
        self.export_report_button = QPushButton("Export report…")
        self.export_report_button.clicked.connect(self.export_report_dialog)
        top = QHBoxLayout()
        self.release_label = QLabel("Release:")
        for widget in (self.release_label, self.release_combo, QLabel("M-Score x:"), self.x_spin, self.x_infinite):
            top.addWidget(widget)
        top.addStretch(1)
        top.addWidget(self.export_chart_button)
        top.addWidget(self.export_report_button)

        # ---- where the weights come from, and the switch between sources
        self.weights_combo = QComboBox()
        self.weights_combo.setObjectName("weightsCombo")
        self.weights_combo.setToolTip("The weights the scores use: the project's tkl-Data Model, a weights file, "
                                      "or each score's own model (tkl-Score: the tkl-Data Model; M-Score and "
                                      "L-Severity: their own models)")
        self.weights_combo.activated.connect(self._weights_chosen)
        self.weights_file_button = QPushButton("Weights file…")
        self.weights_file_button.clicked.connect(self.open_weights_file_dialog)
        self.score_models_button = QPushButton("Score models…")
        self.score_models_button.setToolTip("Open an M-Score model and an L-Severity model (Turtle)")
        self.score_models_button.clicked.connect(self.open_score_models_dialog)
        self.weights_label = QLabel()
        self.weights_label.setObjectName("weightsSource")
        self.weights_label.setWordWrap(True)
        self.weights_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        weights_row = QHBoxLayout()
        weights_row.addWidget(QLabel("Weights from:"))
        weights_row.addWidget(self.weights_combo)
        weights_row.addWidget(self.weights_file_button)
        weights_row.addWidget(self.score_models_button)
        weights_row.addWidget(self.weights_label, 1)

        # ---- summary
        self.summary = QTableWidget(len(SCORE_NAMES), 3)
        self.summary.setObjectName("summaryTable")
        self.summary.setHorizontalHeaderLabels(["raw", "normalised by source", "normalised by theoretical max"])
        self.summary.setVerticalHeaderLabels([score_label(key, "x") for key in SCORE_NAMES])
        self.summary.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.summary.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.summary.setMaximumHeight(190)
        self.info_label = QLabel()
        self.info_label.setWordWrap(True)
        self.info_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        # ---- per-record table and explanation
        self.records_model = FrameModel(parent=self, headers=RECORD_HEADERS)
        self.records_view = QTableView()
        self.records_view.horizontalHeader().setResizeContentsPrecision(100)  # sample rows: big tables
        self.records_view.setObjectName("recordsTable")
        self.records_view.setModel(self.records_model)
        self.records_view.setSortingEnabled(True)
        self.records_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.records_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.records_view.horizontalHeader().setSortIndicatorShown(True)
        self.records_view.selectionModel().currentRowChanged.connect(lambda current, _: self._explain_row(current.row()))
        self.explain_browser = QTextBrowser()
        self.explain_browser.setObjectName("explanation")
        self.explain_browser.setHtml("<p>Select a record to see why it scores what it scores.</p>")

        # ---- charts
        self.per_record_chart = PerRecordChart()
        self.releases_chart = ReleasesChart()
        self.growth_chart = GrowthChart()
        self.order_combo = QComboBox()
        self.order_combo.addItem("Sort as the thesis' Figures 5.1/5.2 (ascending L-Severity)", SORT_THESIS)
        self.order_combo.addItem("Sort by tkl-Score, riskiest first", SORT_TKL)
        self.order_combo.currentIndexChanged.connect(self._order_chosen)
        per_record = QWidget()
        per_record_layout = QVBoxLayout(per_record)
        per_record_layout.setContentsMargins(0, 0, 0, 0)
        per_record_layout.addWidget(self.order_combo)
        per_record_layout.addWidget(self.per_record_chart)
        self.chart_tabs = QTabWidget()
        self.chart_tabs.setObjectName("chartTabs")
        self.chart_tabs.addTab(per_record, "Per record")
        self.comparison = QTableWidget(0, len(COMPARISON_COLUMNS))
        self.comparison.setObjectName("releaseComparison")
        self.comparison.setHorizontalHeaderLabels(list(COMPARISON_COLUMNS))
        self.comparison.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.comparison.verticalHeader().setVisible(False)
        self.comparison.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.comparison.setToolTip("tkl, M, L normalised against the source; k, l, t and the average "
                                   "re-identification risk (prosecutor) of each release")
        releases_page = QSplitter(Qt.Orientation.Vertical)
        releases_page.addWidget(self.releases_chart)
        releases_page.addWidget(self.comparison)
        releases_page.setSizes([300, 120])
        self.chart_tabs.addTab(releases_page, "Releases")
        self.chart_tabs.addTab(self.growth_chart, "Growth")

        records_split = QSplitter(Qt.Orientation.Horizontal)
        records_split.addWidget(self.records_view)
        records_split.addWidget(self.explain_browser)
        records_split.setSizes([600, 400])
        main_split = QSplitter(Qt.Orientation.Vertical)
        upper = QWidget()
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addWidget(self.summary)
        upper_layout.addWidget(self.info_label)
        upper_layout.addWidget(records_split, 1)
        main_split.addWidget(upper)
        main_split.addWidget(self.chart_tabs)
        main_split.setSizes([500, 400])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(weights_row)
        layout.addWidget(main_split, 1)

        workbench.scoresChanged.connect(self.refresh)
        workbench.modelChanged.connect(self._show_weights_source)
        workbench.releasesChanged.connect(self._refresh_releases)
        self._refresh_releases()
        self.refresh()

    # ------------------------------------------------------------------ state

    def _refresh_releases(self) -> None:
        names = self.workbench.release_names()
        current = self.workbench.project.current_release
        self.release_combo.blockSignals(True)
        self.release_combo.clear()
        self.release_combo.addItems(names)
        if current in names:
            self.release_combo.setCurrentIndex(names.index(current))
        self.release_combo.blockSignals(False)

    def hide_own_release_chooser(self) -> None:
        """In the main window the release is chosen once, above the officer's views."""
        self.release_label.hide()
        self.release_combo.hide()

    def _show_weights_source(self) -> None:
        workbench = self.workbench
        self.weights_combo.blockSignals(True)
        self.weights_combo.clear()
        for kind in workbench.weights_choices():
            text = {MODEL: "the tkl-Data Model", FILE: f"weights file {Path(workbench.project.weights_path or '').name}",
                    SCORE_MODELS: "each score's own model"}[kind]
            self.weights_combo.addItem(text, kind)
        index = self.weights_combo.findData(workbench.weights_use())
        self.weights_combo.setCurrentIndex(max(0, index))
        self.weights_combo.setEnabled(self.weights_combo.count() > 1)
        self.weights_combo.blockSignals(False)
        source = workbench.weights_source()
        self.weights_label.setText(source.sentence() if source is not None
                                   else (workbench.weights_problem or "No weights chosen yet."))

    def _weights_chosen(self, index: int) -> None:
        kind = self.weights_combo.itemData(index)
        if kind and kind != self.workbench.weights_use():
            self._guard(self.workbench.set_weights_use, kind)

    def open_weights_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Weights file", "", "Weights (*.csv *.tsv *.txt);;All files (*)")
        if path:
            self._guard(self.workbench.use_weights_file, path)

    def open_score_models_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "An M-Score model and an L-Severity model", "",
                                                "Turtle models (*.ttl);;All files (*)")
        if paths:
            self._guard(self.workbench.use_score_models, paths)

    def _release_chosen(self, name: str) -> None:
        if name and name != self.workbench.project.current_release:
            self._guard(self.workbench.set_current_release, name)

    def _sync_x(self) -> None:
        x = float(self.workbench.project.x)
        for widget in (self.x_spin, self.x_infinite):
            widget.blockSignals(True)
        self.x_infinite.setChecked(math.isinf(x))
        self.x_spin.setEnabled(not math.isinf(x))
        if not math.isinf(x):
            self.x_spin.setValue(x)
        for widget in (self.x_spin, self.x_infinite):
            widget.blockSignals(False)

    def _apply_x(self) -> None:
        x = math.inf if self.x_infinite.isChecked() else float(self.x_spin.value())
        self.x_spin.setEnabled(not math.isinf(x))
        if x != self.workbench.project.x:
            self._guard(self.workbench.set_x, x)

    def _guard(self, function, *args) -> bool:
        return run_guarded(self.workbench.failed.emit, function, *args)

    # ------------------------------------------------------------------ refresh

    def refresh(self) -> None:
        self._restore_chart_settings()
        self._refresh_releases()
        self._show_weights_source()
        self._sync_x()
        report = self.workbench.current_report()
        self._report = report
        self._fill_summary(report)
        if report is None:
            self.records_model.set_frame(FrameModel().frame)
            self.per_record_chart.set_data(None, None, self.workbench.project.x)
            self.growth_chart.set_data(None, None, self.workbench.project.x)
        else:
            self.records_model.set_frame(report.records, self._riskiest)
            header = self.records_view.horizontalHeader()
            header.setSortIndicator(-1, Qt.SortOrder.DescendingOrder)
            if len(report.records) <= 50_000:  # a big release keeps default widths
                self.records_view.resizeColumnsToContents()
        self._chart_steps = []
        self._charts.request()
        self.explanation = None
        self.explain_browser.setHtml("<p>Select a record to see why it scores what it scores.</p>")

    def _fill_summary(self, report: ScoreReport | None) -> None:
        x = self.workbench.project.x if report is None else report.x
        labels = [score_label(key, x) for key in SCORE_NAMES]
        self.summary.setVerticalHeaderLabels(labels)
        rows = score_rows(report) if report is not None else [(l, "", "", "") for l in labels]
        self._riskiest = None if report is None else riskiest_mask(report.records["tkl"].to_numpy())
        for i, row in enumerate(rows):
            for j, text in enumerate(row[1:]):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if text == "n/a":
                    item.setToolTip("undefined: the source table published whole scores 0")
                self.summary.setItem(i, j, item)
        if report is None:
            problem = self.workbench.weights_problem
            self.info_label.setText(problem or "No scores yet: load a source, choose roles, weights and a release.")
        else:
            riskiest = int(self._riskiest.sum())
            text = (f"{report.published_rows:,} of {report.source_rows:,} source records published; "
                    + ("the riskiest record by tkl is highlighted." if riskiest == 1
                       else f"the {riskiest:,} riskiest records by tkl are highlighted."))
            if report.warnings:
                text += " ⚠ " + " ⚠ ".join(report.warnings)
            self.info_label.setText(text)

    def _order_chosen(self, _index: int = 0) -> None:
        order = self.order_combo.currentData()
        self.per_record_chart.set_order(order)
        settings = self.workbench.project.settings
        if settings.get("per_record_order") != order:
            settings["per_record_order"] = order
            self.workbench._mark(True)

    def _restore_chart_settings(self) -> None:
        """Chart settings live in the project file, so a reopened project shows the same."""
        order = self.workbench.project.settings.get("per_record_order")
        index = self.order_combo.findData(order) if order else -1
        if index >= 0 and index != self.order_combo.currentIndex():
            self.order_combo.blockSignals(True)
            self.order_combo.setCurrentIndex(index)
            self.order_combo.blockSignals(False)
            self.per_record_chart.set_order(order)

    def _draw_charts(self) -> None:
        """The charts of the current report, in later turns of the event loop, one each, so
        that the window stays responsive while large releases are drawn."""
        self._chart_steps = [self._draw_per_record, self._draw_growth, self._draw_releases]
        QTimer.singleShot(0, self._next_chart)

    def _draw_charts_now(self) -> None:
        """Bring every chart up to date at once (before one is exported)."""
        steps, self._chart_steps = self._chart_steps, []
        if self._charts.stale:
            self._charts.stale = False
            steps = [self._draw_per_record, self._draw_growth, self._draw_releases]
        if self._sorting is not None and self._draw_per_record not in steps:
            steps.insert(0, self._draw_per_record)
        for step in steps:
            if step == self._draw_per_record:
                step(background=False)
            else:
                step()

    def _next_chart(self) -> None:
        if self._chart_steps:
            self._chart_steps.pop(0)()
            if self._chart_steps:
                QTimer.singleShot(0, self._next_chart)

    def _draw_per_record(self, background: bool = True) -> None:
        report = self._report
        chart = self.per_record_chart
        if self._sorting is not None:
            self._sorting.cancel()
            self._sorting = None
        if report is None:
            return
        if not background or len(report.records) <= SORT_IN_BACKGROUND:
            chart.set_data(report.records, report.source_scores, report.x)
            return
        kind = chart.order

        def done(order) -> None:  # drawn unless another release or order came meanwhile
            if task is self._sorting:
                self._sorting = None
            if self._report is report and chart.order == kind:
                chart.set_data(report.records, report.source_scores, report.x, order=order)

        def failed(message: str) -> None:
            if task is self._sorting:
                self._sorting = None
            self.workbench.failed.emit(message)

        # the side lane: the sort reads only the report, and never delays the next scores
        task = self._sorting = self.workbench.runner.start(
            "Sorting the records for the chart", lambda control: per_record_order(report.records, kind), done,
            failed, owner=self, lane=SIDE)

    def _draw_growth(self) -> None:
        report = self._report
        if report is not None:
            self.growth_chart.set_data(report.records, report.source_scores, report.x)

    def _draw_releases(self) -> None:
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

    def charts_pending(self) -> bool:
        """Whether a chart does not show the current scores yet: it is still to be drawn, its
        records are being sorted, or the view is off screen and draws them when shown."""
        return bool(self._chart_steps) or self._sorting is not None or self._charts.stale

    def summary_text(self, row: int, column: int) -> str:
        """The text of the summary cell (row: score, column 0 raw / 1 by source / 2 by max)."""
        item = self.summary.item(row, column)
        return item.text() if item is not None else ""

    # ------------------------------------------------------------------ explanation

    def select_record(self, frame_row: int) -> None:
        """Select the record at row ``frame_row`` of the report's records (published order)."""
        view_row = self.records_model.view_row(frame_row)
        self.records_view.selectRow(view_row)
        self.records_view.setCurrentIndex(self.records_model.index(view_row, 0))

    def _explain_row(self, view_row: int) -> None:
        report, release, scorer = self._report, self.workbench.current_release(), self.workbench.scorer
        if view_row < 0 or report is None or release is None or scorer is None:
            return
        frame_row = self.records_model.frame_row(view_row)
        if frame_row >= len(release.positions):
            return
        try:
            self.explanation = explain_record(scorer, self.workbench.weights, int(release.positions[frame_row]),
                                              published=release.positions)
        except (InputError, IndexError) as error:
            self.explain_browser.setHtml(f"<p>{html.escape(str(error))}</p>")
            return
        self.explain_browser.setHtml(explanation_html(self.explanation, report.records.iloc[frame_row]))

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
        """Write ``chart`` (default: the chart on show) as PNG or SVG by the file's extension."""
        self._draw_charts_now()
        ok = self._guard((chart or self.current_chart()).export, path)
        if ok:
            self.workbench.status.emit(f"Chart written to {path}")
        return ok

    def export_report_dialog(self) -> None:
        path, chosen = QFileDialog.getSaveFileName(self, "Export report", "", REPORT_FORMATS)
        if path:
            self.export_report(_with_suffix(path, chosen, ".html"))

    def export_report(self, path: str) -> bool:
        """Write the report as HTML, PDF or CSV by the file's extension, in the background
        (the charts are drawn and the report's content read here, the file written there)."""
        data = report_input(self.workbench)
        writer = []
        if not self._guard(lambda: writer.append(prepare_report(path, data))):
            return False
        runner = self.workbench.runner

        def failed(message: str) -> None:
            self.workbench.failed.emit(f"{path}: the report could not be written ({message})")

        def write(_measured=None) -> None:
            runner.start("Exporting the report", lambda control: writer[0](),
                         lambda written: self.workbench.status.emit(f"Report written to {written}"), failed)

        if data.measure_risk is not None and data.risk is None and Path(path).suffix.lower() != ".csv":
            # the risk is measured first, in the background, with its own progress
            runner.start("Measuring risk for the report",
                         lambda control: complete_risk(data, lambda f: control.progress(
                             int(100 * f), "Measuring risk for the report")), write, failed)
        else:
            write()
        return True


def explanation_html(e: RecordExplanation, scores=None) -> str:
    esc = html.escape
    qi = ", ".join(f"{esc(str(c))} = {esc(str(v))}" for c, v in e.quasi_identifiers.items()) or "none"
    members = e.class_ids if len(e.class_ids) <= 30 else e.class_ids[:30] + [f"… {len(e.class_ids) - 30:,} more"]
    parts = [f"<h3>Record {esc(e.id)}</h3>"]
    if scores is not None:
        parts.append(f"<p>RS_tkl = (t + W) / l = ({score(e.t)} + {score(e.weight_sum)}) / {e.l} = "
                     f"{score(scores['tkl'])}; RS_M = min(1, W) / k = {score(scores['m_score'])}; "
                     f"RS_L = W / k = {score(scores['l_severity'])}</p>")
    parts.append(f"<p><b>Equivalence class</b> (QIs {qi}): k = {e.k} record(s): "
                 f"{{{esc(', '.join(members))}}}</p>")
    rows = "".join(
        f"<tr><td>{esc(s.attribute)}</td><td>{esc(str(s.value))}</td>"
        f"<td>{score(s.weight)}</td><td>{score(s.distance)} ({esc(s.measure)})</td>"
        f"<td>{s.l_distinct} / {s.l_group_size}</td></tr>" for s in e.sensitive)
    parts.append("<table border='1' cellspacing='0' cellpadding='2'><tr><th>sensitive attribute</th><th>value</th>"
                 "<th>weight</th><th>class vs table distance</th><th>l-group: distinct values / records</th></tr>"
                 f"{rows}<tr><td><b>W(r)</b></td><td></td><td><b>{score(e.weight_sum)}</b></td>"
                 f"<td><b>t = {score(e.t)}</b> ({esc(e.t_attribute or '')})</td>"
                 f"<td><b>l = {e.l}</b> ({esc(e.l_attribute or '')})</td></tr></table>")
    for s in e.sensitive:
        shown = s.rows(only_present=not s.continuous and len(s.values) > MAX_EXPLAINED_VALUES)
        if len(shown) > MAX_EXPLAINED_VALUES:
            shown = shown[:MAX_EXPLAINED_VALUES]
        body = "".join(f"<tr><td>{esc(str(v))}</td><td>{c} ({number(p)})</td><td>{tc} ({number(q)})</td></tr>"
                       for v, c, p, tc, q in shown)
        parts.append(f"<p><b>{esc(s.attribute)}</b>: distribution in the class vs the source table "
                     f"({esc(s.measure)} = {score(s.distance)})</p>"
                     "<table border='1' cellspacing='0' cellpadding='2'><tr><th>value</th><th>class</th>"
                     f"<th>table</th></tr>{body}</table>")
    for note in e.notes:
        parts.append(f"<p><i>{esc(note)}</i></p>")
    return "\n".join(parts)


def _with_suffix(path: str, chosen_filter: str, default: str) -> str:
    """``path`` with the extension of the chosen dialog filter when it has none."""
    if Path(path).suffix:
        return path
    for suffix in (".html", ".pdf", ".csv", ".png", ".svg"):
        if f"*{suffix}" in (chosen_filter or ""):
            return path + suffix
    return path + default
