"""The view's two dialogs: "Try removing fields" (Fig. 6: N_v for every QI subset, as a
table and a chart) and "Impose limits" (blocking rules, UC3)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QLineEdit,
                               QListWidget, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout)

from tklscore.core.errors import InputError
from tklscore.core.pseudonymization.blocking import BlockingRule
from tklscore.gui.plots import plot_widget


class RemoveFieldsDialog(QDialog):
    """Every risk transition of the sensitive field with N_v, the QIs it leaves out, and
    whether a rule refuses it; ``chosen`` is the QI subset picked for its utility report."""

    def __init__(self, analysis, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Try removing fields — violations per set of QIs the actor knows")
        self.resize(920, 620)
        self.chosen: tuple | None = None
        qi = list(analysis.engine.qi)
        rows = analysis.largest_first()
        self.rows = rows
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Sensitive field <b>{analysis.engine.sensitive}</b>: each row is what an actor "
                                f"could predict if only the listed QIs were released. Pick one and show its "
                                f"utility report."))
        self.table = QTableWidget(len(rows), 4)
        self.table.setHorizontalHeaderLabels(["QIs released", "left out", "violations (N_v)", "rule"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for r, t in enumerate(rows):
            left = [q for q in qi if q not in t.qi_set]
            blocked, reason = analysis.blocked.get(t.qi_set, (False, ""))
            cells = [", ".join(t.qi_set), ", ".join(left) or "—", str(t.violations),
                     f"refused: {reason}" if blocked else "allowed"]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if blocked:
                    item.setForeground(QColor("#6d4c41"))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemDoubleClicked.connect(lambda _: self.accept_row())
        layout.addWidget(self.table, 3)
        self.chart = plot_widget(background="w")
        self.chart.setLabel("left", "violations N_v")
        self.chart.setLabel("bottom", "QIs released (row of the table)")
        heights = [t.violations for t in rows]
        colors = [pg.mkBrush("#6d4c41" if analysis.blocked.get(t.qi_set, (False,))[0] else "#c62828") for t in rows]
        self.chart.addItem(pg.BarGraphItem(x=list(range(1, len(rows) + 1)), height=heights, width=0.7,
                                           brushes=colors))
        ticks = [(i + 1, str(i + 1)) for i in range(len(rows))]
        self.chart.getAxis("bottom").setTicks([ticks])
        self.chart.setMouseEnabled(False, False)
        layout.addWidget(self.chart, 2)
        layout.addWidget(QLabel("Bars: violations of each row of the table; red = allowed, brown = refused by a "
                                "limit."))
        buttons = QDialogButtonBox()
        show = buttons.addButton("Show its utility report", QDialogButtonBox.ButtonRole.AcceptRole)
        show.clicked.connect(self.accept_row)
        buttons.addButton(QDialogButtonBox.StandardButton.Close).clicked.connect(self.reject)
        layout.addWidget(buttons)
        if rows:
            self.table.selectRow(0)

    def accept_row(self) -> None:
        selected = self.table.selectionModel().selectedRows()
        if selected:
            self.chosen = self.rows[selected[0].row()].qi_set
            self.accept()


class LimitsDialog(QDialog):
    """Edit the blocking rules: one per line, ``IF violations > L [AND|OR] delta(stat) > M THEN block``."""

    def __init__(self, rules: list[BlockingRule], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Impose limits — rules that refuse a release automatically")
        self.resize(720, 380)
        self.rules = list(rules)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("A risk transition (releasing these QIs to the actor) is refused when a rule "
                                "matches. L is a count or a percentage of the records; δ is how much a "
                                "statistic changes when the violations are removed."))
        self.list = QListWidget()
        layout.addWidget(self.list, 1)
        row = QHBoxLayout()
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("IF violations > 50% AND delta(std) > 0.5 THEN block")
        self.edit.returnPressed.connect(self.add_rule)
        add = QPushButton("Add rule")
        add.clicked.connect(self.add_rule)
        remove = QPushButton("Remove selected")
        remove.clicked.connect(self.remove_rule)
        row.addWidget(self.edit, 1)
        row.addWidget(add)
        row.addWidget(remove)
        layout.addLayout(row)
        self.error = QLabel("")
        self.error.setStyleSheet("color: #b71c1c")
        self.error.setWordWrap(True)
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._refresh()

    def _refresh(self) -> None:
        self.list.clear()
        for rule in self.rules:
            self.list.addItem(str(rule))

    def add_rule(self) -> bool:
        try:
            rule = BlockingRule.parse(self.edit.text())
        except InputError as error:
            self.error.setText(str(error))
            return False
        self.error.setText("")
        self.rules.append(rule)
        self.edit.clear()
        self._refresh()
        return True

    def remove_rule(self) -> None:
        row = self.list.currentRow()
        if 0 <= row < len(self.rules):
            del self.rules[row]
            self._refresh()
