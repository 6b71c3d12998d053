"""The Scores view's summary: each score raw, normalised by the source and by the theoretical
maximum, and a line on the release (records published, the riskiest highlighted, warnings)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, \
    QWidget

from tklscore.core.numbers import count
from tklscore.core.report.sections.scores import score_rows
from tklscore.core.scoring.scores import SCORE_NAMES, ScoreReport, score_label


class SummaryPanel(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.info_label)

    def show_report(self, report: ScoreReport | None, x: float, riskiest: int, problem: str | None) -> None:
        """The scores of ``report`` (None: none yet, for ``problem`` if there is one); ``riskiest``:
        how many records are highlighted."""
        labels = [score_label(key, x) for key in SCORE_NAMES]
        self.summary.setVerticalHeaderLabels(labels)
        rows = score_rows(report) if report is not None else [(l, "", "", "") for l in labels]
        for i, row in enumerate(rows):
            for j, text in enumerate(row[1:]):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if text == "n/a":
                    item.setToolTip("undefined: the source table published whole scores 0")
                self.summary.setItem(i, j, item)
        if report is None:
            self.info_label.setText(problem or "No scores yet: load a source, choose roles, weights and a release.")
            return
        text = (f"{count(report.published_rows)} of {count(report.source_rows)} source records published; "
                + ("the riskiest record by tkl is highlighted." if riskiest == 1
                   else f"the {count(riskiest)} riskiest records by tkl are highlighted."))
        if report.warnings:
            text += " ⚠ " + " ⚠ ".join(report.warnings)
        self.info_label.setText(text)

    def text(self, row: int, column: int) -> str:
        """The text of the summary cell (row: score, column 0 raw / 1 by source / 2 by max)."""
        item = self.summary.item(row, column)
        return item.text() if item is not None else ""
