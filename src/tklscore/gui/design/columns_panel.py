"""The Design view's columns panel: each column with its role, hierarchy (a button that
builds or edits it), a level slider, whether it is published, how a numeric non-QI column
is perturbed, and each quasi-identifier's precision at its level; below, record
suppression. It edits the session's :class:`~tklscore.core.release.session.DesignState`
and says when the design changed."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QGroupBox, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QSlider, QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from tklscore.gui.number_spin import NumberSpinBox
from tklscore.core.errors import InputError
from tklscore.core.numbers import number
from tklscore.core.release.session import DesignState
from tklscore.core.tables.roles import Roles

COLUMN, ROLE, HIERARCHY, LEVEL, PRECISION, PUBLISH, PERTURB = range(7)
HEADERS = ["column", "role", "hierarchy", "level", "precision", "publish", "perturb"]
PRECISION_TIP = ("how much of a quasi-identifier's detail its level keeps: 1.00 as in the source, 0.00 every "
                 "value generalised to the top of its hierarchy")
PERTURB_TIP = ("numeric columns that are not quasi-identifiers: publish each class's mean or median "
               "(microaggregation) or add seeded noise of ± ε % of the value")
NOISE_OUT_OF_CORE = ("noise is drawn in memory (a seeded stream over the rows); out of core a numeric column can "
                     "be published as its class mean or median")


def table(rows: int, headers: list[str]) -> QTableWidget:
    """A read-only table with these headers, its columns as wide as their contents."""
    widget = QTableWidget(rows, len(headers))
    widget.setHorizontalHeaderLabels(headers)
    widget.verticalHeader().setVisible(False)
    widget.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    widget.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    widget.horizontalHeader().setStretchLastSection(True)
    return widget


class ColumnsPanel(QWidget):
    """``changed``: the design changed, evaluate once it rests (a drag, a spin box);
    ``settled``: a level was set (a click, a key), evaluate at once; ``released``: a drag
    ended; ``hierarchyRequested(column)``: build or edit that column's hierarchy."""

    changed = Signal()
    settled = Signal()
    released = Signal()
    hierarchyRequested = Signal(str)

    def __init__(self, state: DesignState, parent=None):
        super().__init__(parent)
        self.state = state
        self.sliders: dict[str, QSlider] = {}
        self._slider_labels: dict[str, QLabel] = {}
        self.perturb_boxes: dict[str, tuple[QComboBox, NumberSpinBox]] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        box = QGroupBox("Columns: role, hierarchy, level, published")
        self.columns = table(0, HEADERS)
        self.columns.horizontalHeaderItem(PERTURB).setToolTip(PERTURB_TIP)
        self.columns.horizontalHeaderItem(PRECISION).setToolTip(PRECISION_TIP)
        QVBoxLayout(box).addWidget(self.columns)
        layout.addWidget(box, 1)
        suppression = QGroupBox("Record suppression")
        row = QHBoxLayout(suppression)
        self.suppress_below = QSpinBox()
        self.suppress_below.setRange(0, 1_000_000)
        self.budget = NumberSpinBox()
        self.budget.setRange(0.0, 100.0)
        self.budget.setSuffix(" %")
        self.budget.setValue(100.0 * state.suppression_limit)
        for widget in (QLabel("classes smaller than"), self.suppress_below, QLabel("within a budget of"), self.budget):
            row.addWidget(widget)
        row.addStretch(1)
        layout.addWidget(suppression)
        self.suppress_below.valueChanged.connect(self._suppression_set)
        self.budget.valueChanged.connect(self._suppression_set)

    def _suppression_set(self, *_args) -> None:
        self.state.suppress_below = self.suppress_below.value()
        self.state.suppression_limit = self.budget.value() / 100.0
        self.changed.emit()

    def show_suppression(self) -> None:
        """The state's suppression in the spin boxes (without saying the design changed)."""
        for box, value in ((self.suppress_below, self.state.suppress_below),
                           (self.budget, self.state.suppression_limit * 100.0)):
            box.blockSignals(True)
            box.setValue(value)
            box.blockSignals(False)

    def fill(self, names: list[str] | None, roles: Roles, noise: bool = True) -> None:
        """One row per column of the source (none: no source yet); ``noise``: offered as a
        perturbation (core's ``DesignOffer``)."""
        for cells in (self.sliders, self._slider_labels, self.perturb_boxes):   # cleared in place: the view
            cells.clear()                                                       # shows the same dicts
        self.columns.setRowCount(0)
        self.show_suppression()
        if names is None:
            return
        self.columns.setRowCount(len(names))
        for r, column in enumerate(names):
            self.columns.setItem(r, COLUMN, QTableWidgetItem(column))
            self.columns.setItem(r, ROLE, QTableWidgetItem(roles.role_of(column).value))
            hierarchy = self.state.hierarchies.get(column)
            button = QPushButton("Build…" if hierarchy is None else f"{hierarchy.kind} ✎")
            button.clicked.connect(lambda _=False, c=column: self.hierarchyRequested.emit(c))
            self.columns.setCellWidget(r, HIERARCHY, button)
            self.columns.setCellWidget(r, LEVEL, self._slider_cell(column))
            publish = QCheckBox()
            publish.setChecked(column not in self.state.removed)
            publish.toggled.connect(lambda on, c=column: self._published(c, on))
            self.columns.setCellWidget(r, PUBLISH, publish)
            if column not in roles.qi and column != roles.identifier:
                self.columns.setCellWidget(r, PERTURB, self._perturb_cell(column, noise=noise))

    def _published(self, column: str, published: bool) -> None:
        self.state.set_published(column, published)
        self.changed.emit()

    def _slider_cell(self, column: str) -> QWidget:
        cell = QWidget()
        row = QHBoxLayout(cell)
        row.setContentsMargins(4, 0, 4, 0)
        if column not in self.state.hierarchies:
            row.addWidget(QLabel("—"))
            return cell
        # the height comes from the designer, built off the UI thread with the first evaluation
        # (factorising a large column here would block the window)
        level = self.state.levels.get(column, 0)
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(0, level)
        slider.setValue(level)
        slider.setEnabled(False)
        slider.setMinimumWidth(55)
        label = QLabel("…")
        slider.valueChanged.connect(lambda value, c=column, s=slider: self._slid(c, value, s))
        slider.sliderReleased.connect(self.released.emit)
        row.addWidget(slider)
        row.addWidget(label)
        self.sliders[column] = slider
        self._slider_labels[column] = label
        return cell

    def _slid(self, column: str, value: int, slider: QSlider) -> None:
        self._slider_labels[column].setText(f"{value}/{slider.maximum()}")
        self.state.levels[column] = value
        # a drag waits to rest (or end) before evaluating; a click, a key or a set value at once
        (self.changed if slider.isSliderDown() else self.settled).emit()

    def set_heights(self, heights: dict[str, int | InputError]) -> None:
        """Each slider's range: its column's hierarchy height (or the error reading it)."""
        for column, slider in self.sliders.items():
            label, height = self._slider_labels[column], heights.get(column)
            if height is None:
                continue
            if isinstance(height, InputError):
                label.setText(f"invalid: {height.message}")
                continue
            slider.blockSignals(True)
            slider.setRange(0, height)
            slider.setValue(min(self.state.levels.get(column, 0), height))
            slider.blockSignals(False)
            slider.setEnabled(True)
            label.setText(f"{slider.value()}/{height}")

    def show_levels(self, levels: dict[str, int]) -> None:
        """Set levels (a suggested release loaded) on the sliders and in the state."""
        for column, value in levels.items():
            self.state.levels[column] = value
            if column in self.sliders:
                slider = self.sliders[column]
                slider.blockSignals(True)
                slider.setValue(value)
                slider.blockSignals(False)
                self._slider_labels[column].setText(f"{value}/{slider.maximum()}")

    def _perturb_cell(self, column: str, noise: bool = True) -> QWidget:
        cell = QWidget()
        row = QHBoxLayout(cell)
        row.setContentsMargins(4, 0, 4, 0)
        how = QComboBox()
        for text, key in (("—", None), ("class mean", "mean"), ("class median", "median"), ("± noise", "noise")):
            if key != "noise" or noise:
                how.addItem(text, key)
        if not noise:
            how.setToolTip(NOISE_OUT_OF_CORE)
        epsilon = NumberSpinBox()
        epsilon.setRange(0.0, 1000.0)
        epsilon.setSuffix(" %")
        kind, value = self.state.perturbed.get(column, (None, 10.0))
        how.setCurrentIndex(how.findData(kind))
        epsilon.setValue(value if kind == "noise" else 10.0)
        epsilon.setVisible(kind == "noise")

        def changed(*_):
            epsilon.setVisible(how.currentData() == "noise")
            self.state.set_perturbed(column, how.currentData(), epsilon.value())
            self.changed.emit()

        how.currentIndexChanged.connect(changed)
        epsilon.valueChanged.connect(changed)
        row.addWidget(how)
        row.addWidget(epsilon)
        self.perturb_boxes[column] = (how, epsilon)
        return cell

    def show_precision(self, utility) -> None:
        """Each quasi-identifier's own precision beside its level."""
        for r in range(self.columns.rowCount()):
            values = utility.per_attribute.get(self.columns.item(r, COLUMN).text())
            shown = "" if values is None else number(values["precision"], 3)
            self.columns.setItem(r, PRECISION, QTableWidgetItem(shown))

    def selected_column(self) -> str | None:
        row = self.columns.currentRow()
        return self.columns.item(row, COLUMN).text() if row >= 0 else None
