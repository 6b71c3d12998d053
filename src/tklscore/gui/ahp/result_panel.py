"""The AHP view's result: the group's priorities in a table — with the sensitive columns below
each criterion, how much the last (or the moving) judgement changed it, and its weight
factor — and a bar chart, λ_max, CI and CR, and the most inconsistent judgement with a
one-click "use suggested value"."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QFormLayout, QGroupBox, QHeaderView, QLabel, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout)

from tklscore.core.model.ahp import AHPResult
from tklscore.core.model.data_model.derivation import CriterionEffect
from tklscore.gui.ahp.saaty_slider import describe, format_rating
from tklscore.gui.plots import plot_widget


COLUMNS = (
    ("Criterion", ""),
    ("Sensitive columns below", "the table's sensitive columns whose values weigh by this criterion"),
    ("Priority", "the criterion's share of its group (AHP)"),
    ("Change", "how much the judgement being moved, or else the last one kept, changed the priority"),
    ("Weight factor", "the priority times the priorities above it: every value below weighs its label score "
                      "× this factor"),
)
PRIORITY_COLUMN = 2
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _cell(text: str, right: bool = False, tip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    if right:
        item.setTextAlignment(RIGHT)
    if tip:
        item.setToolTip(tip)
    return item


def change_text(now: float, before: float | None) -> str:
    """``+0.1234`` / ``−0.0500``; ``""`` without a judgement to compare with or no change."""
    if before is None or np.isnan(before) or abs(now - before) < 5e-5:
        return ""
    return f"{now - before:+.4f}".replace("-", "−")


class ResultPanel(QGroupBox):
    def __init__(self, use_suggested, parent=None):
        super().__init__("Result", parent)
        self.priority_table = QTableWidget(0, len(COLUMNS))
        self.priority_table.setHorizontalHeaderLabels([name for name, _ in COLUMNS])
        for k, (_, tip) in enumerate(COLUMNS):
            self.priority_table.horizontalHeaderItem(k).setToolTip(tip)
        self.priority_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.priority_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.priority_table.verticalHeader().hide()
        self.priority_table.setMaximumHeight(220)
        self.chart = plot_widget()
        self.chart.setBackground("w")
        self.chart.setMinimumHeight(160)
        self.chart.setYRange(0, 1)
        self.chart.setMouseEnabled(x=False, y=False)
        self.chart.getPlotItem().hideButtons()
        self.chart.getPlotItem().setMenuEnabled(False)
        self.bars: pg.BarGraphItem | None = None
        self.before_bars: pg.BarGraphItem | None = None   # dashed outlines: the priorities before
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
        for bars in (self.bars, self.before_bars):
            if bars is not None:
                self.chart.removeItem(bars)
        self.bars = self.before_bars = None
        for label in (self.lambda_label, self.ci_label, self.cr_label):
            label.setText("—")
        self.inconsistent_label.setText("")
        self.suggest_button.setEnabled(False)

    def show_result(self, result: AHPResult | None, labels: list[str], can_fix: bool,
                    effects: list[CriterionEffect] = (), before=None) -> None:
        """``result`` of the criteria ``labels``; ``can_fix``: the suggestion can be applied
        (one expert's judgements, no slider moving); ``effects``: each criterion's columns and
        weight factor; ``before``: the priorities before the judgement moved or last kept."""
        self.clear()
        if result is None:
            return
        table = self.priority_table
        table.setRowCount(len(labels))
        effects = list(effects) if len(effects) == len(labels) else [None] * len(labels)
        before = before if before is not None and len(before) == len(labels) else [None] * len(labels)
        for k, (label, p, effect, old) in enumerate(zip(labels, result.priorities, effects, before)):
            table.setItem(k, 0, _cell(label))
            columns = ", ".join(effect.columns) if effect is not None else ""
            table.setItem(k, 1, _cell(columns or ("—" if effect is not None else ""), tip=columns))
            table.setItem(k, PRIORITY_COLUMN, _cell(f"{p:.4f}", right=True))
            change = change_text(float(p), old)
            table.setItem(k, 3, _cell(change, right=True,
                                      tip=f"was {old:.4f}" if change else ""))
            factor = effect.factor if effect is not None else float("nan")
            table.setItem(k, 4, _cell("—" if np.isnan(factor) else f"{factor:.4f}", right=True,
                                      tip="a group above is not judged yet" if np.isnan(factor) else ""))
        x = np.arange(len(labels))
        self.bars = pg.BarGraphItem(x=x, height=np.asarray(result.priorities, dtype=float), width=0.6,
                                    brush="#4a7ebb")
        self.chart.addItem(self.bars)
        heights = [float(p) for p in result.priorities]
        if any(change_text(p, old) for p, old in zip(heights, before)):
            heights = [max(heights[k], old) for k, old in enumerate(before)]
            self.before_bars = pg.BarGraphItem(x=x, height=np.asarray(before, dtype=float), width=0.6, brush=None,
                                               pen=pg.mkPen("#555555", width=1.5, style=Qt.PenStyle.DashLine))
            self.chart.addItem(self.before_bars)
        self.chart.getAxis("bottom").setTicks([list(zip(x.tolist(), labels))])
        self.chart.setXRange(-0.6, len(labels) - 0.4, padding=0)
        self.chart.setYRange(0, max(1e-9, max(heights)) * 1.1, padding=0)
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
