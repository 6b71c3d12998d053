"""The Risk view's riskiest records (class size, prosecutor and journalist risk, D(r)); a
double-click opens the record in the Scores view."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHeaderView, QLabel, QTableWidget, QVBoxLayout, QWidget

from tklscore.core.numbers import count, number, percent
from tklscore.core.risk.lens import RISKIEST, RiskLens
from tklscore.gui.risk.tables import readonly, set_row

COLUMNS = ["record", "class size", "prosecutor risk", "journalist risk", "D(r)"]


class RiskiestPanel(QWidget):
    recordActivated = Signal(int)  # a row of the current release's records (published order)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.riskiest_table = QTableWidget(0, len(COLUMNS))
        self.riskiest_table.setObjectName("riskiestRecords")
        self.riskiest_table.setHorizontalHeaderLabels(COLUMNS)
        readonly(self.riskiest_table)
        self.riskiest_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.riskiest_table.setToolTip("Double-click a record to open it in the Scores view")
        self.riskiest_table.cellDoubleClicked.connect(self._activated)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Riskiest records</b> (double-click: open in the Scores view)"))
        layout.addWidget(self.riskiest_table, 1)

    def clear(self) -> None:
        self.riskiest_table.setRowCount(0)

    def show_lens(self, lens: RiskLens) -> None:
        riskiest = lens.riskiest(RISKIEST)
        self.riskiest_table.setRowCount(len(riskiest))
        for i, (record, row, size, prosecutor, journalist, d) in enumerate(riskiest.itertuples(index=False)):
            set_row(self.riskiest_table, i, [record, count(int(size)), percent(float(prosecutor)),
                                             percent(None if np.isnan(journalist) else float(journalist)),
                                             number(float(d))])
            self.riskiest_table.item(i, 0).setData(Qt.ItemDataRole.UserRole, int(row))

    def _activated(self, row: int, _column: int) -> None:
        item = self.riskiest_table.item(row, 0)
        if item is not None:
            self.recordActivated.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def riskiest_frame(self) -> pd.DataFrame:
        """The riskiest records as shown (for the report)."""
        rows = []
        for i in range(self.riskiest_table.rowCount()):
            rows.append([self.riskiest_table.item(i, c).text() for c in range(self.riskiest_table.columnCount())])
        return pd.DataFrame(rows, columns=COLUMNS)
