"""The Risk view's D(r) page: each attribute's PK and W(A) (editable), α, ε and the
threshold, the summary of D(r) and its log-scale histogram with the threshold line."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QFormLayout, QHeaderView, QLabel, QSplitter, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from tklscore.gui.number_spin import NumberSpinBox
from tklscore.core.errors import InputError
from tklscore.core.numbers import count, number, percent
from tklscore.core.risk.disclosure_risk import (DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD, DisclosureRisk,
                                                parameter_value)
from tklscore.gui.risk.charts import DisclosureRiskChart


class DisclosurePanel(QSplitter):
    """``parameterEdited(attribute, pk, weight)`` (the other None) when a valid value is
    typed; ``changed`` when α, ε or the threshold is."""

    parameterEdited = Signal(str, object, object)
    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self._filling = False
        self._shown: list = []
        self.disclosure_chart = DisclosureRiskChart()
        self.parameters_table = QTableWidget(0, 3)
        self.parameters_table.setObjectName("drParameters")
        self.parameters_table.setHorizontalHeaderLabels(["attribute", "PK", "W(A)"])
        self.parameters_table.horizontalHeaderItem(1).setToolTip("PK: probability that an attacker knows the attribute")
        self.parameters_table.horizontalHeaderItem(2).setToolTip("W(A): how much disclosing the attribute harms")
        self.parameters_table.verticalHeader().setVisible(False)
        self.parameters_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.parameters_table.itemChanged.connect(self._parameter_edited)
        self.alpha_spin = self._spin(DEFAULT_ALPHA, 1e-6, 1e9, 4, "α: consequence coefficient (rescales D)")
        self.epsilon_spin = self._spin(DEFAULT_EPSILON, 0.0, 1.0, 6, "ε: keep known sets with PK > ε")
        self.threshold_spin = self._spin(DEFAULT_THRESHOLD, 0.0, 1e9, 6, "records with D above this are counted")
        self.disclosure_label = QLabel()
        self.disclosure_label.setObjectName("drSummary")
        self.disclosure_label.setWordWrap(True)
        form = QFormLayout()
        form.addRow("α", self.alpha_spin)
        form.addRow("ε", self.epsilon_spin)
        form.addRow("threshold", self.threshold_spin)
        controls = QWidget()
        controls_layout = QVBoxLayout(controls)
        controls_layout.setContentsMargins(0, 0, 0, 0)
        controls_layout.addWidget(self.parameters_table, 1)
        controls_layout.addLayout(form)
        controls_layout.addWidget(self.disclosure_label)
        self.addWidget(controls)
        self.addWidget(self.disclosure_chart)
        self.setSizes([380, 620])

    def _spin(self, value: float, low: float, high: float, decimals: int, tip: str) -> NumberSpinBox:
        spin = NumberSpinBox()
        spin.setRange(low, high)
        spin.setDecimals(decimals)
        spin.setValue(value)
        spin.setKeyboardTracking(False)
        spin.setToolTip(tip)
        spin.valueChanged.connect(lambda _: self.changed.emit())
        return spin

    def settings(self) -> tuple[float, float, float]:
        """α, ε and the threshold as chosen."""
        return self.alpha_spin.value(), self.epsilon_spin.value(), self.threshold_spin.value()

    def fill_parameters(self, params) -> None:
        self._filling = True
        self._shown = list(params)
        self.parameters_table.setRowCount(len(params))
        for i, p in enumerate(params):
            name = QTableWidgetItem(p.attribute)
            name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.parameters_table.setItem(i, 0, name)
            self.parameters_table.setItem(i, 1, QTableWidgetItem(f"{p.pk:g}"))
            self.parameters_table.setItem(i, 2, QTableWidgetItem(f"{p.weight:g}"))
        self._filling = False

    def _parameter_edited(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() == 0:
            return
        attribute = self.parameters_table.item(item.row(), 0).text()
        try:
            value = parameter_value(item.text())
        except InputError as error:
            self.disclosure_label.setText(f"{error}; {attribute} keeps its value.")
            self.fill_parameters(self._shown)
            return
        if item.column() == 1:
            self.parameterEdited.emit(attribute, value, None)
        else:
            self.parameterEdited.emit(attribute, None, value)

    def clear(self) -> None:
        self.disclosure_chart.set_data(None, self.threshold_spin.value())
        self.disclosure_label.setText("")

    def show_disclosure(self, dr: DisclosureRisk, weighted: bool) -> None:
        """D(r)'s summary (``weighted``: value weights were chosen)."""
        no_weights = "" if weighted else " (no value weights: choose weights first)"
        self.disclosure_label.setText(
            f"{count(len(dr.known_sets))} known sets of {count(dr.splits)} splits kept (PK > ε); "
            f"{count(dr.above_threshold)} of {count(dr.n)} records ({percent(dr.above_threshold_share)}) "
            f"have D > {number(dr.threshold)}; largest D = {number(dr.d_max)}{no_weights}. "
            f"W(v) are the project's sensitive-value weights.")
