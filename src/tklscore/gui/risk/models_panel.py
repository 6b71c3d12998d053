"""The Risk view's left side: the privacy models, each with what its value means, and the
attacker models (prosecutor, journalist, marketer) side by side."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, \
    QWidget

from tklscore.core.numbers import number, percent
from tklscore.core.risk.measures import Measures, describe, t_by_attribute_rows
from tklscore.gui.risk.tables import readonly, set_row


class ModelsPanel(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.models_table = QTableWidget(0, 3)
        self.models_table.setObjectName("privacyModels")
        self.models_table.setHorizontalHeaderLabels(["privacy model", "value", "what it means"])
        readonly(self.models_table)
        self.models_table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.models_table.setWordWrap(True)

        self.attackers_table = QTableWidget(3, 4)
        self.attackers_table.setObjectName("attackerModels")
        self.attackers_table.setHorizontalHeaderLabels(["highest risk", "average risk", "records at risk",
                                                        "success rate"])
        self.attackers_table.setVerticalHeaderLabels(["Prosecutor", "Journalist", "Marketer"])
        self.attackers_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.attackers_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.attackers_table.setMaximumHeight(130)
        self.attackers_note = QLabel()
        self.attackers_note.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Privacy models</b>"))
        layout.addWidget(self.models_table, 3)
        layout.addWidget(QLabel("<b>Attacker models</b> (risk of re-identifying a record)"))
        layout.addWidget(self.attackers_table)
        layout.addWidget(self.attackers_note)

    def clear(self) -> None:
        self.models_table.setRowCount(0)
        for row in range(3):
            for column in range(4):
                self.attackers_table.setItem(row, column, QTableWidgetItem(""))

    def show_measures(self, measures: Measures) -> None:
        rows = describe(measures) + t_by_attribute_rows(measures)
        self.models_table.setRowCount(len(rows))
        for i, (name, value, meaning) in enumerate(rows):
            set_row(self.models_table, i, [name, number(value), meaning])
        self.models_table.resizeColumnToContents(0)
        self.models_table.resizeRowsToContents()
        p, j = measures.prosecutor, measures.journalist
        set_row(self.attackers_table, 0, [percent(p.highest), percent(p.average), percent(p.records_at_risk),
                                          percent(p.success_rate)])
        set_row(self.attackers_table, 1, [percent(j.highest), percent(j.average), percent(j.records_at_risk),
                                          percent(j.success_rate)] if j else ["n/a"] * 4)
        set_row(self.attackers_table, 2, ["", percent(measures.marketer), "", percent(measures.marketer)])
        self.attackers_note.setText(
            "Prosecutor: knows the person is in the release. Journalist: links the release to the source table "
            "(the population). Marketer: tries to re-identify as many records as possible. Records at risk: share "
            f"of records whose risk exceeds {percent(measures.risk_threshold)}. "
            f"Sample uniques: {percent(measures.sample_uniques)}.")
