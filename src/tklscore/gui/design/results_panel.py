"""The Design view's results panel: the headline of the evaluated design, its scores (raw
and normalised), utility, privacy models and risk, the notes, and tabs with the published
table (generalised cells shaded) and the suppressed records. One :meth:`ResultsPanel.show`
for an evaluation in memory or out of core."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QGroupBox, QHBoxLayout, QLabel, QListWidget, QTableView, QTableWidget,
                               QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from tklscore.core.numbers import count, number, percent, score
from tklscore.core.release.figures import privacy_rows
from tklscore.core.release.session import Evaluation
from tklscore.core.release.utility import UTILITY_MEANINGS, utility_rows
from tklscore.gui.design.columns_panel import table
from tklscore.gui.frame_model import FrameModel

SCORE_ROWS = (("tkl", "tkl-Score"), ("tkl_max", "tkl-Score_max"), ("m_score", "M-Score"),
              ("m_score_inf", "M-Score (x=∞)"), ("l_severity", "L-Severity"))
GENERALISED = QColor("#fff3c4")
ERROR = "<span style='color:#b00020'>{}</span>"
EVALUATING = " Evaluating the new design…"
CANCELLED = " The new design's evaluation was cancelled: the figures below are the last design's."
SUPERSEDED = " (the new design's evaluation was cancelled: these are the last design's figures)"
NOTHING_YET = ("The design's evaluation was cancelled before it finished: no figures are shown. "
               "Change a level or a setting to evaluate the design again.")
WAITING = " (the new design is waiting for the search to finish: these are the last design's figures)"
WAITING_FIRST = ("The design is waiting for the search to finish: it is evaluated next "
                 "(cancel the search to have it at once).")


def fit_rows(widget: QTableWidget) -> None:
    """Show every row without a scroll bar: the height of the rows and the header."""
    widget.resizeRowsToContents()
    widget.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    widget.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    height = widget.horizontalHeader().height() + 2 * widget.frameWidth() + sum(
        widget.rowHeight(r) for r in range(widget.rowCount()))
    widget.setFixedHeight(max(height, 60))


class MarkedFrameModel(FrameModel):
    """A FrameModel whose cells in ``marked`` columns are shaded (generalised cells)."""

    marked: set[int] = set()

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.BackgroundRole and index.isValid() and index.column() in self.marked:
            return QBrush(GENERALISED)
        return super().data(index, role)


class ResultsPanel(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        self.shown = False   # an evaluation's figures are on screen
        self.headline = QLabel("Open a source table and choose its roles to design a release.")
        self.headline.setWordWrap(True)
        self.headline.setStyleSheet("font-size: 14px; font-weight: 600;")
        self.engine_note = QLabel()
        self.engine_note.setWordWrap(True)
        self.engine_note.setStyleSheet("background: #e8f0fe; color: #0b3d66; padding: 6px; border-radius: 4px;")
        self.engine_note.setVisible(False)
        self.scores = table(len(SCORE_ROWS), ["score", "raw", "/ source", "/ max"])
        self.utility_table = table(len(UTILITY_MEANINGS), ["utility", "value"])
        # the privacy models and risk in two pairs of columns, the full width of the view
        self.privacy_table = table(4, ["privacy model or risk", "value", "privacy model or risk", "value"])
        for widget in (self.scores, self.utility_table, self.privacy_table):
            fit_rows(widget)
        panels = QHBoxLayout()
        for title, widget, stretch in (("Misuseability", self.scores, 4), ("Utility", self.utility_table, 3)):
            group = QGroupBox(title)
            QVBoxLayout(group).addWidget(widget)
            panels.addWidget(group, stretch)
        privacy_group = QGroupBox("Privacy models and risk (the published table, linked against the source)")
        QVBoxLayout(privacy_group).addWidget(self.privacy_table)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #7a5300;")
        self.tabs = QTabWidget()
        self.preview_model = MarkedFrameModel()
        self.preview = QTableView()
        self.preview.setModel(self.preview_model)
        self.preview.setWordWrap(False)   # a value on one line, as in the source ("Married-civ-spouse")
        self.tabs.addTab(self.preview, "Published table")
        self.suppressed_list = QListWidget()
        self.tabs.addTab(self.suppressed_list, "Suppressed rows")
        for widget in (self.headline, self.engine_note):
            layout.addWidget(widget)
        layout.addLayout(panels)
        layout.addWidget(privacy_group)
        layout.addWidget(self.notes)
        layout.addWidget(self.tabs, 1)

    def say(self, text: str) -> None:
        """What the headline says while there is nothing (new) to show."""
        self.headline.setText(text)

    def fail(self, message: str) -> None:
        self.headline.setText(ERROR.format(message))

    def show_engine_note(self, note: str | None) -> None:
        """The engine's note (core's ``DesignOffer.note``: each change evaluated by an engine
        reading the file), or none."""
        self.engine_note.setVisible(note is not None)
        self.engine_note.setText(note or "")

    def evaluating(self) -> None:
        """With an engine's note: say that a new evaluation is on its way (the last figures stay)."""
        if not self.engine_note.isHidden():
            self.engine_note.setText(self._note() + EVALUATING)

    def waiting(self) -> None:
        """The new design waits behind a search on the task runner's lane: the headline says so
        (the last figures stay, said to be the last design's)."""
        if not self.shown:
            self.headline.setText(WAITING_FIRST)
        elif WAITING not in self.headline.text():
            self.headline.setText(self.headline.text().replace(SUPERSEDED, "") + WAITING)

    def begun(self) -> None:
        """The waiting evaluation has begun: the headline no longer says it waits."""
        if not self.shown and self.headline.text() == WAITING_FIRST:
            self.headline.setText("Evaluating the design…")
        else:
            self.headline.setText(self.headline.text().replace(WAITING, ""))

    def _note(self) -> str:
        """The engine note without what it says about the evaluation under way or cancelled."""
        return self.engine_note.text().split(EVALUATING)[0].split(CANCELLED)[0]

    def stopped(self) -> None:
        """The evaluation was cancelled: the last figures stay, said to be the last design's (or
        that none are shown)."""
        self.headline.setText(self.headline.text().replace(WAITING, ""))
        if not self.shown:
            self.headline.setText(NOTHING_YET)
            self.engine_note.setText(self._note())
        elif not self.engine_note.isHidden():
            self.engine_note.setText(self._note() + CANCELLED)
        elif SUPERSEDED not in self.headline.text():
            self.headline.setText(self.headline.text() + SUPERSEDED)

    def show(self, evaluation: Evaluation) -> None:
        """The headline, scores, privacy models, utility, notes, published table and
        suppressed records of an evaluation (either engine)."""
        result, figures = evaluation.result, evaluation.figures
        self.shown = True
        report, utility = result.report, result.utility
        tkl_norm = report.normalized_source.tkl
        self.headline.setText(
            f"{figures.rows_sentence()} — tkl-Score {score(report.scores.tkl)} "
            f"({percent(tkl_norm)} of the untransformed source), k = {count(figures.k)}, "
            f"precision {number(utility.precision)}")
        for r, (key, label) in enumerate(SCORE_ROWS):
            values = (report.scores.as_dict()[key], report.normalized_source.as_dict()[key],
                      report.normalized_max.as_dict()[key])
            self.scores.setItem(r, 0, QTableWidgetItem(label))
            for c, (v, shown) in enumerate(zip(values, (score, number, number)), start=1):
                self.scores.setItem(r, c, QTableWidgetItem(shown(v)))
        rows = privacy_rows(figures, result.measures)
        half = (len(rows) + 1) // 2
        self.privacy_table.setRowCount(half)
        for i, (name, value) in enumerate(rows):
            r, c = (i, 0) if i < half else (i - half, 2)
            self.privacy_table.setItem(r, c, QTableWidgetItem(name))
            self.privacy_table.setItem(r, c + 1, QTableWidgetItem(value))
        for r, (label, value, meaning) in enumerate(utility_rows(utility)):
            item = QTableWidgetItem(label)
            item.setToolTip(meaning)
            self.utility_table.setItem(r, 0, item)
            self.utility_table.setItem(r, 1, QTableWidgetItem(value))
        for widget in (self.privacy_table, self.scores, self.utility_table):
            fit_rows(widget)
        self.notes.setText("\n".join(result.notes))
        preview = evaluation.preview
        self.preview_model.marked = {i for i, c in enumerate(preview.columns) if c in figures.generalised}
        self.preview_model.set_frame(preview)
        self._show_suppressed(evaluation.suppressed_ids, figures.suppressed_rows)
        self.tabs.setTabText(0, f"Published table ({figures.published_rows:,} rows)" if len(preview) ==
                             figures.published_rows else
                             f"Published table (first {len(preview):,} of {figures.published_rows:,} rows)")
        self.engine_note.setText(self._note())

    def _show_suppressed(self, ids: list[str], total: int) -> None:
        self.suppressed_list.clear()
        self.suppressed_list.addItems([f"record {i}" for i in ids])
        if total == 0:
            self.suppressed_list.addItem("No record is suppressed: every published class is as large as the "
                                         "suppression asks, or the suppression is off.")
        if total > len(ids):
            self.suppressed_list.addItem(f"… and {total - len(ids):,} more")
        self.tabs.setTabText(1, f"Suppressed rows ({total:,})")
