"""The Scores view's records: the per-record table (the riskiest highlighted, sortable) beside
the explanation of the selected record — its equivalence class, its sensitive values' weights,
distances and l-groups, and the record scores' formulas with its numbers."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QSplitter, QTableView, QTextBrowser

from tklscore.core.errors import InputError
from tklscore.core.numbers import number, score
from tklscore.core.scoring.explain import RecordExplanation, explain_record
from tklscore.core.scoring.scores import ScoreReport
from tklscore.gui.frame_model import FrameModel
from tklscore.gui.scores.paged_model import PAGE_ROWS, PagedRecordsModel

MAX_EXPLAINED_VALUES = 50
# the per-record columns by the report's names (W: the record's weight sum; RS: its record scores)
RECORD_HEADERS = {"weight_sum": "W", "tkl": "RS tkl", "m_score": "RS M", "l_severity": "RS L"}
SELECT_A_RECORD = "<p>Select a record to see why it scores what it scores.</p>"
OUT_OF_CORE_NOTE = ("<p>The source is read out of core: the records are read from disk a page at a time as you "
                    "scroll (sorting a column reads that order's first page). Explaining a record needs the source "
                    "in memory.</p>")


class RecordsPanel(QSplitter):
    def __init__(self, workbench, parent=None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.workbench = workbench
        self.report: ScoreReport | None = None
        self.explanation: RecordExplanation | None = None
        self.records_model = FrameModel(parent=self, headers=RECORD_HEADERS)
        self.records_view = QTableView()
        self.records_view.horizontalHeader().setResizeContentsPrecision(100)  # sample rows: big tables
        self.records_view.setObjectName("recordsTable")
        self.paged_model = PagedRecordsModel(workbench.runner, parent=self, headers=RECORD_HEADERS,
                                             failed=workbench.failed.emit)
        # the columns fit the first page of records read from disk
        self.paged_model.pageLoaded.connect(lambda rows: rows <= PAGE_ROWS and self.records_view.resizeColumnsToContents())
        self.records_view.setSortingEnabled(True)
        self.records_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.records_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.records_view.horizontalHeader().setSortIndicatorShown(True)
        self._use(self.records_model)
        self.explain_browser = QTextBrowser()
        self.explain_browser.setObjectName("explanation")
        self.explain_browser.setHtml(SELECT_A_RECORD)
        self.addWidget(self.records_view)
        self.addWidget(self.explain_browser)
        self.setSizes([600, 400])

    def _use(self, model) -> None:
        """Show ``model`` (the records in memory, or paged from disk) in the table."""
        if self.records_view.model() is model:
            return
        self.records_view.setModel(model)
        self.records_view.selectionModel().currentRowChanged.connect(lambda current, _: self._explain_row(current.row()))

    def show_report(self, report: ScoreReport | None, riskiest) -> None:
        """The records of ``report`` with the ``riskiest`` (a mask) highlighted; no record
        explained. Records kept on disk (``report.stored``) are paged in as the view scrolls."""
        self.report = report
        stored = None if report is None else report.stored
        if stored is not None:   # published order first (the view sorts a model it is given by its indicator)
            self.records_model.set_frame(FrameModel().frame)
            self.records_view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.DescendingOrder)
            self._use(self.paged_model)
            self.paged_model.set_store(stored)
        else:   # the frame first, then the view switched to it: its header never asks for a column it lacks
            self.paged_model.set_store(None)
            self.records_model.set_frame(FrameModel().frame if report is None else report.records,
                                         None if report is None else riskiest)
            self._use(self.records_model)
            if report is not None:
                self.records_view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.DescendingOrder)
                if len(report.records) <= 50_000:  # a big release keeps default widths
                    self.records_view.resizeColumnsToContents()
        self.explanation = None
        self.explain_browser.setHtml(SELECT_A_RECORD if stored is None else OUT_OF_CORE_NOTE)

    def select_record(self, frame_row: int) -> None:
        """Select the record at row ``frame_row`` of the report's records (published order)."""
        view_row = self.records_model.view_row(frame_row)
        self.records_view.selectRow(view_row)
        self.records_view.setCurrentIndex(self.records_model.index(view_row, 0))

    def _explain_row(self, view_row: int) -> None:
        report, release, scorer = self.report, self.workbench.current_release(), self.workbench.scorer
        if view_row >= 0 and report is not None and report.stored is not None:
            self.explain_browser.setHtml(stored_record_html(self.paged_model.record(view_row),
                                                            self.paged_model.position(view_row)))
            return
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


def stored_record_html(record, position: int) -> str:
    """A record read from disk: its factors and record scores (the explanation needs the source in memory)."""
    esc = html.escape
    return (f"<h3>Record {esc(str(record['id']))}</h3><p>published record {position + 1:,}</p>"
            f"<p>k = {record['k']}, l = {record['l']}, t = {score(record['t'])}, W = {score(record['weight_sum'])}</p>"
            f"<p>RS_tkl = (t + W) / l = {score(record['tkl'])}; RS_M = min(1, W) / k = {score(record['m_score'])}; "
            f"RS_L = W / k = {score(record['l_severity'])}</p>" + OUT_OF_CORE_NOTE)


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
