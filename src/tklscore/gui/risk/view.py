"""The Risk view: the risk lens of the current release for the privacy officer.

A verdict sentence; the privacy models, each with what its value means; the attacker
models side by side; the distribution of per-record risk (as ARX shows it); QI
importance; Orooji–Knapp D(r) with its parameters editable and its log-scale histogram
with the threshold line; the riskiest records, which open in the Scores view. Everything
is computed by the core (``core.risk``) on the workbench's task runner whenever the
scores or the current release change, or a D(r) parameter is edited. The view composes
four panels: ``models_panel.py``, ``lens_tabs.py`` (with ``disclosure_panel.py``) and
``riskiest_panel.py``.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from tklscore.core.risk.disclosure_risk import AttributeParameters, DisclosureRisk
from tklscore.core.risk.lens import RiskLens, default_parameters
from tklscore.core.risk.measures import Measures, verdict
from tklscore.gui.risk.lens_tabs import LensTabs
from tklscore.gui.risk.models_panel import ModelsPanel
from tklscore.gui.risk.riskiest_panel import RiskiestPanel
from tklscore.gui.when_shown import WhenShown


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
        self._shown_release: str | None = None   # the release whose lens is on screen
        self._parameters: dict[str, tuple[float, float]] = {}

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
        self.models, self.tabs, self.riskiest = ModelsPanel(), LensTabs(), RiskiestPanel()
        self.disclosure_panel = self.tabs.disclosure
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.tabs, 3)
        right_layout.addWidget(self.riskiest, 2)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.models)
        split.addWidget(right)
        split.setSizes([700, 900])
        layout = QVBoxLayout(self)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.engine_note)
        layout.addWidget(split, 1)

        # the panels' parts that the application and its tests work with
        for name in ("models_table", "attackers_table", "attackers_note"):
            setattr(self, name, getattr(self.models, name))
        for name in ("distribution_chart", "importance_table"):
            setattr(self, name, getattr(self.tabs, name))
        for name in ("parameters_table", "alpha_spin", "epsilon_spin", "threshold_spin", "disclosure_label",
                     "disclosure_chart"):
            setattr(self, name, getattr(self.disclosure_panel, name))
        self.riskiest_table, self.riskiest_frame = self.riskiest.riskiest_table, self.riskiest.riskiest_frame

        self.riskiest.recordActivated.connect(self.recordActivated)
        self.disclosure_panel.parameterEdited.connect(self.set_parameter)
        self.disclosure_panel.changed.connect(self.recompute)
        workbench.scoresChanged.connect(WhenShown(self, self.recompute).request)
        workbench.measuresChanged.connect(WhenShown(self, self.recompute).request)
        workbench.sourceChanged.connect(self.recompute)
        self.recompute()

    @property
    def _stale_charts(self) -> set[str]:
        """The charts still to be drawn when their tab is shown."""
        return self.tabs.stale

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
        self.disclosure_panel.fill_parameters(self.parameters())

    # ------------------------------------------------------------------ computation

    def recompute(self) -> None:
        """Measure the current release in the background (a newer request supersedes an older
        one), on the source as it is held: in memory, or by the engine reading it."""
        self._generation += 1
        generation = self._generation
        workbench = self.workbench
        self._fill_parameters()
        name = workbench.project.current_release
        if name in workbench.project.designed_names():   # its published records are transformed
            self._show(None, None, None, f"{name} is a release designed in the Design view: its privacy models and "
                                         f"risk are there, and in the Scores view's comparison.")
            return
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
        if name not in workbench.measures and workbench.measures_pending():   # measured next, once: it follows
            self._show(None, None, None, "Measuring the release's risk…")
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
        self._start(generation, text, compute, name)

    def _start(self, generation: int, title: str, compute, name: str) -> None:
        """Run ``compute`` (→ a RiskLens of release ``name``) on the task runner; show it unless a
        newer one was asked for; cancelled, say so and what is still shown."""
        workbench = self.workbench

        def done(lens: RiskLens) -> None:
            if generation == self._generation:
                workbench.risk_lens = lens
                self._shown_release = name
                self._show(lens.measures, lens.disclosure, lens.ids, lens=lens)

        def failed(message: str) -> None:
            if generation == self._generation:
                self._show(None, None, None, message)

        def cancelled(_value) -> None:
            if generation != self._generation:
                return
            if self.measures is not None and self._shown_release == name:
                self.verdict_label.setText(f"Measuring the risk of {name} again was cancelled: the figures below "
                                           f"are its last complete measurement. Change a parameter to measure again.")
            else:
                self._show(None, None, None, f"Measuring the risk of {name} was cancelled: no figures are shown. "
                                             "Change a parameter to measure it.")

        workbench.runner.start(title, compute, done, failed, on_cancelled=cancelled,
                               cancel_text="Cancel measuring the risk")

    # ------------------------------------------------------------------ display

    def _show(self, measures: Measures | None, dr: DisclosureRisk | None, ids, message: str | None = None,
              lens: RiskLens | None = None) -> None:
        self.measures, self.disclosure, self.record_ids, self.lens = measures, dr, ids, lens
        if measures is None:
            self.verdict_label.setText(message or "")
            self.engine_note.setVisible(False)
            self.models.clear()
            self.tabs.clear()
            self.riskiest.clear()
            return
        self.verdict_label.setText(verdict(measures))
        self.engine_note.setVisible(lens is not None and lens.out_of_core)
        self.models.show_measures(measures)
        self.tabs.show_lens(lens, len(self.workbench.project.roles.qi))
        self.disclosure_panel.show_disclosure(dr, self.workbench.weights is not None)
        self.riskiest.show_lens(lens)
