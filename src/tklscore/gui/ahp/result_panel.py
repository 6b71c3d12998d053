"""The AHP view's result: the group's priorities in a table and a bar chart, λ_max, CI and CR,
and the most inconsistent judgement with a one-click "use suggested value"."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QFormLayout, QGroupBox, QHeaderView, QLabel, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout)

from tklscore.core.model.ahp import AHPResult
from tklscore.gui.ahp.saaty_slider import describe, format_rating


class ResultPanel(QGroupBox):
    def __init__(self, use_suggested, parent=None):
        super().__init__("Result", parent)
        self.priority_table = QTableWidget(0, 2)
        self.priority_table.setHorizontalHeaderLabels(["Criterion", "Priority"])
        self.priority_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.priority_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.priority_table.verticalHeader().hide()
        self.priority_table.setMaximumHeight(220)
        self.chart = pg.PlotWidget()
        self.chart.setBackground("w")
        self.chart.setMinimumHeight(160)
        self.chart.setYRange(0, 1)
        self.chart.setMouseEnabled(x=False, y=False)
        self.chart.getPlotItem().hideButtons()
        self.chart.getPlotItem().setMenuEnabled(False)
        self.bars: pg.BarGraphItem | None = None
        self.lambda_label, self.ci_label, self.cr_label = QLabel(), QLabel(), QLabel()
        numbers = QFormLayout()
        numbers.addRow("λ_max:", self.lambda_label)
        numbers.addRow("CI:", self.ci_label)
        numbers.addRow("CR:", self.cr_label)
        self.inconsistent_label = QLabel()
        self.inconsistent_label.setWordWrap(True)
        self.suggest_button = QPushButton("Use suggested value")
        self.suggest_button.clicked.connect(use_suggested)
        box = QVBoxLayout(self)
        box.addWidget(self.priority_table)
        box.addWidget(self.chart, 1)
        box.addLayout(numbers)
        box.addWidget(self.inconsistent_label)
        box.addWidget(self.suggest_button, 0, Qt.AlignmentFlag.AlignLeft)

    def clear(self) -> None:
        self.priority_table.setRowCount(0)
        if self.bars is not None:
            self.chart.removeItem(self.bars)
            self.bars = None
        for label in (self.lambda_label, self.ci_label, self.cr_label):
            label.setText("—")
        self.inconsistent_label.setText("")
        self.suggest_button.setEnabled(False)

    def show_result(self, result: AHPResult | None, labels: list[str], can_fix: bool) -> None:
        """``result`` of the criteria ``labels``; ``can_fix``: the suggestion can be applied
        (one expert's judgements, no slider moving)."""
        self.clear()
        if result is None:
            return
        self.priority_table.setRowCount(len(labels))
        for k, (label, p) in enumerate(zip(labels, result.priorities)):
            self.priority_table.setItem(k, 0, QTableWidgetItem(label))
            item = QTableWidgetItem(f"{p:.4f}")
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.priority_table.setItem(k, 1, item)
        x = np.arange(len(labels))
        self.bars = pg.BarGraphItem(x=x, height=np.asarray(result.priorities, dtype=float), width=0.6,
                                    brush="#4a7ebb")
        self.chart.addItem(self.bars)
        self.chart.getAxis("bottom").setTicks([list(zip(x.tolist(), labels))])
        self.chart.setXRange(-0.6, len(labels) - 0.4, padding=0)
        self.chart.setYRange(0, max(1e-9, float(max(result.priorities))) * 1.1, padding=0)
        self.lambda_label.setText(f"{result.lambda_max:.4f}")
        self.ci_label.setText(f"{result.ci:.4f}")
        self.cr_label.setText(f"{result.cr:.4f}" + (" (n ≤ 2: always consistent)" if result.n <= 2 else ""))
        worst = result.most_inconsistent
        if worst is None:
            self.inconsistent_label.setText("No judgement stands out as inconsistent." if result.n > 2 else "")
            return
        a, b = labels[worst.row], labels[worst.column]
        if not worst.has_better_value:
            self.inconsistent_label.setText(
                f"The judgement deviating most is {describe(a, b, worst.value)}; the Saaty scale has "
                f"no value closer to the priorities, so there is nothing to change.")
            return
        self.inconsistent_label.setText(
            f"Most inconsistent judgement: {describe(a, b, worst.value)}. "
            f"Consistent with the priorities would be {format_rating(worst.suggested)}: "
            f"{describe(a, b, worst.suggested)}.")
        self.suggest_button.setEnabled(can_fix)
