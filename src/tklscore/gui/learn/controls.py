"""The Learn view's small controls: record suppression (within a budget) and, for practice,
the tables to work on (the teaching tables or a CSV the student imports)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QHBoxLayout, QLabel, QListWidget, QListWidgetItem,
                               QPushButton, QSpinBox, QWidget)

from tklscore.gui.number_spin import NumberSpinBox
from tklscore.core.learn import tasks


class SuppressionControl(QWidget):
    """Record suppression: leave out the rows of QID groups smaller than k, within a budget."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.enabled = QCheckBox("Suppress: leave out the rows of QID groups smaller than")
        self.below = QSpinBox()
        self.below.setRange(2, 1000)
        self.below.setValue(2)
        self.limit = NumberSpinBox()
        self.limit.setRange(0.0, 100.0)
        self.limit.setDecimals(1)
        self.limit.setSuffix(" %")
        self.limit.setValue(100.0)
        tip = ("Record suppression: rows whose QID group is smaller than this size are not published, the "
               "smallest groups first, as long as at most this share of the rows is left out.")
        for widget in (self.enabled, self.below, self.limit):
            widget.setToolTip(tip)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.enabled)
        layout.addWidget(self.below)
        layout.addWidget(QLabel("rows, at most"))
        layout.addWidget(self.limit)
        layout.addWidget(QLabel("of the rows"))
        layout.addStretch(1)
        self.enabled.toggled.connect(self._enable)
        self._enable(False)

    def _enable(self, on: bool) -> None:
        self.below.setEnabled(on)
        self.limit.setEnabled(on)

    def set_from(self, recipe: tasks.Recipe) -> None:
        self.enabled.setChecked(recipe.suppress_below > 1)
        if recipe.suppress_below > 1:
            self.below.setValue(recipe.suppress_below)
            self.limit.setValue(recipe.suppression_limit * 100)

    def values(self) -> tuple[int, float]:
        if not self.enabled.isChecked():
            return 0, 1.0
        return self.below.value(), round(self.limit.value(), 1) / 100


class TablePicker(QWidget):
    """Practice: tick one or two tables (the teaching tables, or a CSV the student imports)."""

    changed = Signal()
    import_requested = Signal()

    def __init__(self, names, parent=None):
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setMaximumHeight(64)
        self.list.setFlow(QListWidget.Flow.LeftToRight)
        self.list.setWrapping(True)
        self.import_button = QPushButton("Import CSV…")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Tables (tick one, or two to join):")
        layout.addWidget(label)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.import_button)
        for name in names:
            self.add(name, checked=False)
        self.list.itemChanged.connect(lambda _: self.changed.emit())
        self.import_button.clicked.connect(self.import_requested)

    def add(self, name: str, checked: bool = True) -> None:
        self.list.blockSignals(True)
        item = QListWidgetItem(name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.list.addItem(item)
        self.list.blockSignals(False)

    def set_checked(self, names) -> None:
        self.list.blockSignals(True)
        for row in range(self.list.count()):
            item = self.list.item(row)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked)
        self.list.blockSignals(False)
        self.changed.emit()

    def checked(self) -> list[str]:
        return [self.list.item(r).text() for r in range(self.list.count())
                if self.list.item(r).checkState() == Qt.CheckState.Checked]
