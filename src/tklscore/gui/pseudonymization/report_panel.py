"""Step 3 of the Pseudonymization view: the utility report of the chosen risk transition —
the verdict (N_v of the people), the removal R_v with the exact minimum, the seven
statistics on the original and the trimmed data with δ, and the analysis's notes."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QGroupBox, QHeaderView, QLabel, QTableWidget, QTableWidgetItem,
                               QVBoxLayout)

from tklscore.core.numbers import number, percent
from tklscore.core.pseudonymization.preferences import MAPPING
from tklscore.core.pseudonymization.utility import LABELS, STATISTICS

VIOLATION, SAFE, REFUSED = "#b71c1c", "#1b5e20", "#6d4c41"


class ReportPanel(QGroupBox):
    def __init__(self, parent=None):
        super().__init__("3 · Pseudonymisation utility report", parent)
        layout = QVBoxLayout(self)
        self.verdict = QLabel("Load data and press Analyse.")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.verdict)
        self.report_table = QTableWidget(0, 4)
        self.report_table.setHorizontalHeaderLabels(["", "original", "trimmed", "δ"])
        self.report_table.horizontalHeaderItem(3).setToolTip("δ = trimmed − original")
        self.report_table.verticalHeader().hide()
        self.report_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        layout.addWidget(self.report_table, 1)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555")
        layout.addWidget(self.notes)

    def show_transition(self, analysis, qi_set, preferences: bool) -> None:
        """The report of releasing ``qi_set`` (``preferences``: the thresholds are the patients' own)."""
        transition = analysis.transition(qi_set)
        records = analysis.records
        share = analysis.share(transition) or 0
        maximum = " (the maximum risk transition)" if transition is analysis.maximum else ""
        colour = VIOLATION if transition.violations else SAFE
        text = (f"<b>Releasing {', '.join(transition.qi_set)}</b>{maximum}: an actor who knows these could predict "
                f"<b>{analysis.engine.sensitive}</b> above the owner's threshold for "
                f"<span style='color:{colour}'><b>{transition.violations:,} of {records:,} people "
                f"({percent(share)})</b></span>.")
        reason = analysis.blocked_reason(transition.qi_set)
        if reason:
            text += f"<br><span style='color:{REFUSED}'><b>✕ Refused by a limit:</b> {reason}</span>"
        self.verdict.setText(text)
        report = analysis.reports.get(transition.qi_set)
        self._fill(report, transition)
        notes = list(analysis.warnings)
        if preferences:
            notes.insert(0, MAPPING)
        if report is None:
            notes.append("The removal was computed for the maximum risk transition only (large data).")
        notes.append("δ = trimmed − original: a negative δ means the statistic went down when the violating "
                     "values were removed.")
        self.notes.setText("\n".join(notes))

    def _fill(self, report, transition) -> None:
        rows, tips = report_rows(report, transition)
        self.report_table.setRowCount(len(rows))
        bold = QFont()
        bold.setBold(True)
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if r == 0:
                    item.setFont(bold)
                    if c == 1 and transition.violations:
                        item.setForeground(QColor(VIOLATION))
                if r in tips:
                    item.setToolTip(tips[r])
                self.report_table.setItem(r, c, item)
        header = self.report_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)


def report_rows(report, transition) -> tuple[list[tuple[str, str, str, str]], dict[int, str]]:
    """The table's rows (label, original, trimmed, δ) and the tool tips by row."""
    rows = [("Violations (N_v)", str(transition.violations), "", "")]
    tips: dict[int, str] = {}
    if report is None:
        return rows, tips
    removal = report.removal
    rows.append(("Values removed (R_v)", "", str(removal.removed), f"{report.violations_after} left"))
    if removal.classes:
        if removal.minimum is not None:
            excess = removal.heuristic_excess
            rows.append(("Exact minimum removal", "", str(removal.minimum),
                         f"heuristic +{excess}" if excess else "heuristic is minimal"))
        else:
            bounds = removal.minimum_json()
            rows.append(("Exact minimum removal", "", f"{bounds['at_least']}–{bounds['at_most']}",
                         f"{bounds['searched']} of {bounds['sets']} sets searched"))
            unsearched = removal.unsearched
            tips[len(rows) - 1] = "\n".join(
                [f"Look-alike set of rows {_rows_text(c.rows)}: {c.note}" for c in unsearched[:5]]
                + ([f"… and {len(unsearched) - 5} more set(s) not searched"] if len(unsearched) > 5 else []))
    stats = report.statistics
    for key in STATISTICS:
        cells = [stats[part][key] for part in ("original", "trimmed", "delta")]
        rows.append((LABELS[key], *(number(c) for c in cells)))
    return rows, tips


def _rows_text(rows, shown: int = 8) -> str:
    """0-based row numbers, the first few."""
    rows = [int(r) for r in rows]
    return ", ".join(map(str, rows[:shown])) + (f", … ({len(rows)} rows)" if len(rows) > shown else "")
