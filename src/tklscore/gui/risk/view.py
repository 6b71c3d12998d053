"""The Risk view: the risk lens of the current release for the privacy officer.

A verdict sentence; the privacy models, each with what its value means; the attacker
models side by side; the distribution of per-record risk (as ARX shows it); QI
importance; Orooji–Knapp D(r) with its parameters editable and its log-scale histogram
with the threshold line; the riskiest records, which open in the Scores view. Everything
is computed by the core (``core.risk``) on the workbench's task runner whenever the
scores or the current release change, or a D(r) parameter is edited.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QDoubleSpinBox, QFormLayout, QHBoxLayout, QHeaderView, QLabel,
                               QSplitter, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from tklscore.core.errors import InputError
from tklscore.core.risk.disclosure_risk import (DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD, AttributeParameters,
                                                DisclosureRisk)
from tklscore.core.risk.lens import QI_IMPORTANCE_MAX, RISKIEST, RiskLens, default_parameters
from tklscore.core.risk.measures import Measures, describe, verdict
from tklscore.gui.risk.charts import DisclosureRiskChart, RiskDistributionChart
from tklscore.gui.when_shown import WhenShown


def _number(value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    return f"{value:.4f}"


def _readonly(table: QTableWidget) -> None:
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)


class RiskView(QWidget):
    recordActivated = Signal(int)  # a row of the current release's records (published order)

    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self.measures: Measures | None = None
        self.lens: RiskLens | None = None
        self.disclosure: DisclosureRisk | None = None
        self.record_ids: np.ndarray | None = None
        self._generation = 0
        self._parameters: dict[str, tuple[float, float]] = {}
        self._filling = False

        self.verdict_label = QLabel("No release yet.")
        self.verdict_label.setObjectName("riskVerdict")
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setStyleSheet("font-size: 13px; font-weight: 600; padding: 4px;")

        self.engine_note = QLabel("Measured out of core by DuckDB: the source is too large for memory, so every "
                                  "number below was computed by the engine over the file, with the same formulas; "
                                  "the riskiest records are fetched from it.")
        self.engine_note.setObjectName("riskEngineNote")
        self.engine_note.setWordWrap(True)
        self.engine_note.setStyleSheet("color: #555; padding: 0 4px 4px 4px;")
        self.engine_note.setVisible(False)

        self.models_table = QTableWidget(0, 3)
        self.models_table.setObjectName("privacyModels")
        self.models_table.setHorizontalHeaderLabels(["privacy model", "value", "what it means"])
        _readonly(self.models_table)
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

        self.importance_table = QTableWidget(0, 3)
        self.importance_table.setObjectName("qiImportance")
        self.importance_table.setHorizontalHeaderLabels(["quasi-identifiers", "distinction", "separation"])
        _readonly(self.importance_table)
        self.importance_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)

        self.distribution_chart = RiskDistributionChart()
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
        dr_controls = QWidget()
        dr_controls_layout = QVBoxLayout(dr_controls)
        dr_controls_layout.setContentsMargins(0, 0, 0, 0)
        dr_controls_layout.addWidget(self.parameters_table, 1)
        dr_controls_layout.addLayout(form)
        dr_controls_layout.addWidget(self.disclosure_label)
        dr_page = QSplitter(Qt.Orientation.Horizontal)
        dr_page.addWidget(dr_controls)
        dr_page.addWidget(self.disclosure_chart)
        dr_page.setSizes([380, 620])

        self.riskiest_table = QTableWidget(0, 5)
        self.riskiest_table.setObjectName("riskiestRecords")
        self.riskiest_table.setHorizontalHeaderLabels(["record", "class size", "prosecutor risk", "journalist risk",
                                                       "D(r)"])
        _readonly(self.riskiest_table)
        self.riskiest_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.riskiest_table.setToolTip("Double-click a record to open it in the Scores view")
        self.riskiest_table.cellDoubleClicked.connect(self._riskiest_activated)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("riskTabs")
        self.tabs.addTab(self.distribution_chart, "Risk distribution")
        self.tabs.addTab(dr_page, "Disclosure risk D(r)")
        self.tabs.addTab(self.importance_table, "QI importance")
        self.tabs.currentChanged.connect(lambda _index: self._draw_charts())
        self._stale_charts: set[str] = set()

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(QLabel("<b>Privacy models</b>"))
        left_layout.addWidget(self.models_table, 3)
        left_layout.addWidget(QLabel("<b>Attacker models</b> (risk of re-identifying a record)"))
        left_layout.addWidget(self.attackers_table)
        left_layout.addWidget(self.attackers_note)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.tabs, 3)
        right_layout.addWidget(QLabel("<b>Riskiest records</b> (double-click: open in the Scores view)"))
        right_layout.addWidget(self.riskiest_table, 2)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([700, 900])
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.engine_note)
        layout.addWidget(split, 1)

        workbench.scoresChanged.connect(WhenShown(self, self.recompute).request)
        workbench.sourceChanged.connect(self.recompute)
        self.recompute()

    def _spin(self, value: float, low: float, high: float, decimals: int, tip: str) -> QDoubleSpinBox:
        spin = QDoubleSpinBox()
        spin.setRange(low, high)
        spin.setDecimals(decimals)
        spin.setValue(value)
        spin.setKeyboardTracking(False)
        spin.setToolTip(tip)
        spin.valueChanged.connect(lambda _: self.recompute())
        return spin

    # ------------------------------------------------------------------ parameters

    def parameters(self) -> list[AttributeParameters]:
        """D(r)'s attribute parameters: the table's values, defaults for new attributes."""
        return default_parameters(self.workbench.project.roles, self._parameters)

    def set_parameter(self, attribute: str, pk: float | None = None, weight: float | None = None) -> None:
        current = {p.attribute: (p.pk, p.weight) for p in self.parameters()}
        old_pk, old_weight = current[attribute]
        self._parameters[attribute] = (old_pk if pk is None else pk, old_weight if weight is None else weight)
        self.recompute()

    def _fill_parameters(self) -> None:
        self._filling = True
        params = self.parameters()
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
            value = float(item.text())
            if not 0.0 <= value <= 1.0:
                raise ValueError
        except ValueError:
            self.disclosure_label.setText(f"'{item.text()}' is not a number in [0, 1]; {attribute} keeps its value.")
            self._fill_parameters()
            return
        if item.column() == 1:
            self.set_parameter(attribute, pk=value)
        else:
            self.set_parameter(attribute, weight=value)

    # ------------------------------------------------------------------ computation

    def recompute(self) -> None:
        """Measure the current release in the background (a newer request supersedes an older
        one), on the source as it is held: in memory, or by the engine reading it."""
        self._generation += 1
        generation = self._generation
        workbench = self.workbench
        self._fill_parameters()
        project = workbench.project
        source, roles, name = workbench.source, project.roles, project.current_release
        if source is None or not roles.qi or not name:
            self._show(None, None, None, "Choose a source, quasi-identifiers and a release to see its risk.")
            return
        if name in workbench.release_errors:
            self._show(None, None, None, f"The risk of {name} cannot be measured: {workbench.release_errors[name]}")
            return
        if workbench.current_report() is None:
            self._show(None, None, None, "Waiting for the scores…")
            return
        definition = project.release(name)
        params, weights, measured = self.parameters(), workbench.weights, workbench.measures.get(name)
        alpha, epsilon, threshold = self.alpha_spin.value(), self.epsilon_spin.value(), self.threshold_spin.value()
        text = "Measuring the release's risk" + (f" out of core ({source.engine_name})" if source.out_of_core else "")

        def compute(control):
            control.progress(0, text)
            return source.risk_lens(definition, measures=measured, weights=weights, parameters=params, alpha=alpha,
                                    epsilon=epsilon, threshold=threshold,
                                    progress=lambda f: control.progress(int(100 * f), text))

        self.verdict_label.setText(f"{text}…")
        self._start(generation, text, compute)

    def _start(self, generation: int, title: str, compute) -> None:
        """Run ``compute`` (→ a RiskLens) on the task runner; show it unless a newer one was asked for."""
        workbench = self.workbench

        def done(lens: RiskLens) -> None:
            if generation == self._generation:
                workbench.risk_lens = lens
                self._show(lens.measures, lens.disclosure, lens.ids, lens=lens)

        def failed(message: str) -> None:
            if generation == self._generation:
                self._show(None, None, None, message)

        workbench.runner.start(title, compute, done, failed)

    # ------------------------------------------------------------------ display

    def _show(self, measures: Measures | None, dr: DisclosureRisk | None, ids, message: str | None = None,
              lens: RiskLens | None = None) -> None:
        self.measures, self.disclosure, self.record_ids, self.lens = measures, dr, ids, lens
        if measures is None:
            self.verdict_label.setText(message or "")
            self.engine_note.setVisible(False)
            self.models_table.setRowCount(0)
            self.importance_table.setRowCount(0)
            self.riskiest_table.setRowCount(0)
            for row in range(3):
                for column in range(4):
                    self.attackers_table.setItem(row, column, QTableWidgetItem(""))
            self._stale_charts = set()
            self.distribution_chart.set_data({})
            self.disclosure_chart.set_data(None, self.threshold_spin.value())
            self.disclosure_label.setText("")
            return
        self.verdict_label.setText(verdict(measures))
        self.engine_note.setVisible(lens is not None and lens.out_of_core)
        rows = describe(measures)
        self.models_table.setRowCount(len(rows) + len(measures.models.t_by_attribute))
        for i, (name, value, meaning) in enumerate(rows):
            self._set_row(self.models_table, i, [name, _number(value), meaning])
        for j, (attribute, t) in enumerate(measures.models.t_by_attribute.items()):
            self._set_row(self.models_table, len(rows) + j, [f"  t of {attribute}", _number(t),
                                                            "distance of the classes' distribution of this "
                                                            "attribute from the table's"])
        self.models_table.resizeColumnToContents(0)
        self.models_table.resizeRowsToContents()
        p, j = measures.prosecutor, measures.journalist
        self._set_row(self.attackers_table, 0, [_number(p.highest), _number(p.average), _number(p.records_at_risk),
                                                _number(p.success_rate)])
        self._set_row(self.attackers_table, 1, [_number(j.highest), _number(j.average), _number(j.records_at_risk),
                                                _number(j.success_rate)] if j else ["n/a"] * 4)
        self._set_row(self.attackers_table, 2, ["", _number(measures.marketer), "", _number(measures.marketer)])
        self.attackers_note.setText(
            "Prosecutor: knows the person is in the release. Journalist: links the release to the source table "
            "(the population). Marketer: tries to re-identify as many records as possible. Records at risk: share "
            f"of records whose risk exceeds {100 * measures.risk_threshold:g} %. "
            f"Sample uniques: {100 * measures.sample_uniques:.1f} %.")
        importance = measures.qi_importance or []
        self.importance_table.setRowCount(max(len(importance), 1))
        for i, q in enumerate(importance):
            self._set_row(self.importance_table, i, [", ".join(q.attributes), _number(q.distinction),
                                                     _number(q.separation)])
        if not importance:
            self._set_row(self.importance_table, 0, [
                f"Not computed: QI importance measures every subset of the quasi-identifiers, and "
                f"{len(self.workbench.project.roles.qi)} of them have {2 ** len(self.workbench.project.roles.qi) - 1:,} "
                f"subsets (at most {QI_IMPORTANCE_MAX} quasi-identifiers are measured).", "", ""])
        self._stale_charts = {"distribution", "disclosure"}
        self._draw_charts()
        no_weights = "" if self.workbench.weights is not None else " (no value weights: choose weights first)"
        self.disclosure_label.setText(
            f"{len(dr.known_sets)} known sets of {dr.splits:,} splits kept (PK > ε); "
            f"{dr.above_threshold:,} of {dr.n:,} records ({100 * dr.above_threshold / max(dr.n, 1):.2f} %) "
            f"have D > {dr.threshold:g}; largest D = {dr.d_max:.4g}{no_weights}. "
            f"W(v) are the project's sensitive-value weights.")
        self._fill_riskiest(lens)

    def _draw_charts(self) -> None:
        """Draw the chart on show; the other waits until its tab is chosen (drawing costs
        the event loop tens of milliseconds)."""
        lens = self.lens
        if lens is None:
            return
        current = self.tabs.currentIndex()
        if "distribution" in self._stale_charts and current == 0:
            self.distribution_chart.set_shares(lens.risk_distribution())
            self._stale_charts.discard("distribution")
        if "disclosure" in self._stale_charts and current == 1:
            self.disclosure_chart.set_histogram(lens.disclosure_histogram())
            self._stale_charts.discard("disclosure")

    def _fill_riskiest(self, lens: RiskLens) -> None:
        riskiest = lens.riskiest(RISKIEST)
        self.riskiest_table.setRowCount(len(riskiest))
        for i, (record, row, size, prosecutor, journalist, d) in enumerate(riskiest.itertuples(index=False)):
            self._set_row(self.riskiest_table, i, [record, f"{int(size):,}", _number(float(prosecutor)),
                                                   _number(None if np.isnan(journalist) else float(journalist)),
                                                   f"{float(d):.4g}"])
            self.riskiest_table.item(i, 0).setData(Qt.ItemDataRole.UserRole, int(row))

    @staticmethod
    def _set_row(table: QTableWidget, row: int, texts: list[str]) -> None:
        for column, text in enumerate(texts):
            item = QTableWidgetItem(text)
            if text == "n/a" or text.replace(",", "").replace(".", "", 1).replace("e-", "").lstrip("-").isdigit():
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            table.setItem(row, column, item)

    def _riskiest_activated(self, row: int, _column: int) -> None:
        item = self.riskiest_table.item(row, 0)
        if item is not None:
            self.recordActivated.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def riskiest_frame(self) -> pd.DataFrame:
        """The riskiest records as shown (for the report)."""
        rows = []
        for i in range(self.riskiest_table.rowCount()):
            rows.append([self.riskiest_table.item(i, c).text() for c in range(self.riskiest_table.columnCount())])
        return pd.DataFrame(rows, columns=["record", "class size", "prosecutor risk", "journalist risk", "D(r)"])
