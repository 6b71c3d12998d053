"""The Pseudonymization view (seed 004's Fig. 3 workflow, disclosure-risk.md A6).

1. Load the original data, the pseudonymised data, the thresholds (uniform, a column,
   Westin categories with Table 5, a policy per person, or the patients' own saved
   preferences) and the data-flow model.
2. The LTS is drawn with every risk transition dotted and annotated with N_v; the maximum
   risk transition is selected.
3. The utility report of the selected transition: N_v, R_v, the exact minimum, and the
   seven statistics on the original and the trimmed data with δ.
4. The five choices: accept with violations, accept with violations removed (writes the
   trimmed data), try another pseudonymisation (opens the Design view, the release
   designer), try removing fields (Fig. 6), impose limits (blocking rules, kept in the
   project file). The latest analysis and decision go into the application's report.

Steps 1, 3 and 4 are panels (``inputs_panel.py``, ``report_panel.py``, ``decision_panel.py``)
beside the LTS (``lts_graph.py``); this view holds the state and the flow between them. Every
computation is core's (:func:`tklscore.core.pseudonymization.analysis.analyse`, the analysis's
record count, shares and limits), run on the workbench's task runner.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QGroupBox, QSplitter, QVBoxLayout, QWidget

from tklscore.core.errors import InputError
from tklscore.core.files.resources import resource_path
from tklscore.core.pseudonymization.analysis import analyse, write_trimmed
from tklscore.core.pseudonymization.blocking import BlockingRule
from tklscore.core.pseudonymization.data_flow import DataFlowModel
from tklscore.core.pseudonymization.generator import survey_example as example_tables
from tklscore.core.pseudonymization.preferences import load_people_from_preferences
from tklscore.core.pseudonymization.thresholds import PeoplePolicy
from tklscore.core.tables.loading import Table, load_table
from tklscore.gui.pseudonymization.decision_panel import DecisionPanel
from tklscore.gui.pseudonymization.dialogs import LimitsDialog, RemoveFieldsDialog
from tklscore.gui.guard import run_guarded
from tklscore.gui.pseudonymization.inputs_panel import InputsPanel, choose
from tklscore.gui.pseudonymization.lts_graph import LtsGraph
from tklscore.gui.pseudonymization.report_panel import ReportPanel
from tklscore.core.report.sections.pseudonymization import PseudonymizationSummary

SETTINGS_KEY = "pseudonymization"
DESIGN_VIEW = "design"
STOPPED = "<i class='stopped'>"   # the start of the sentence saying what a cancelled task left on show


class PseudonymizationView(QWidget):
    analysed = Signal()
    designRequested = Signal()

    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self.original: Table | None = None
        self.pseudonymised: Table | None = None
        self.model: DataFlowModel | None = None
        self.people: PeoplePolicy | None = None
        self.analysis = None
        self.selected: tuple | None = None
        self.decision = ""
        self.design_available = False

        self.inputs, self.report, self.decisions = InputsPanel(), ReportPanel(), DecisionPanel()
        self.graph = LtsGraph()
        graph_box = QGroupBox("2 · The LTS: risk transitions dotted, each with its violation count N_v")
        QVBoxLayout(graph_box).addWidget(self.graph)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(graph_box)
        splitter.addWidget(self.report)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([900, 600])
        layout = QVBoxLayout(self)
        layout.addWidget(self.inputs)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.decisions)

        # the panels' parts that the application and its tests work with
        for name in ("original_edit", "pseudonymised_edit", "model_edit", "example_button", "sensitive_combo",
                     "id_combo", "margin_spin", "operator_combo", "seed_spin", "qi_list", "mode_combo", "mode_stack",
                     "uniform_spin", "threshold_column", "category_combo", "flag_combo", "people_edit",
                     "preferences_edit", "analyse_button", "chosen_qis"):
            setattr(self, name, getattr(self.inputs, name))
        for name in ("verdict", "report_table", "notes"):
            setattr(self, name, getattr(self.report, name))
        for name in ("accept_button", "accept_removed_button", "design_button", "fields_button", "limits_button",
                     "decision_label"):
            setattr(self, name, getattr(self.decisions, name))

        self.inputs.originalChosen.connect(lambda path: self.load_tables(original=path))
        self.inputs.pseudonymisedChosen.connect(lambda path: self.load_tables(pseudonymised=path))
        self.inputs.modelChosen.connect(self.load_model)
        self.inputs.peopleChosen.connect(lambda path: self._guard(
            lambda: self._set_people(PeoplePolicy.load(path), self.people_edit, path)))
        self.inputs.preferencesChosen.connect(lambda path: self._guard(
            lambda: self._set_people(load_people_from_preferences(path), self.preferences_edit, path)))
        self.example_button.clicked.connect(self.load_example)
        self.analyse_button.clicked.connect(self.run_analysis)
        self.graph.riskSelected.connect(self.select)
        self.accept_button.clicked.connect(self.accept_with_violations)
        self.accept_removed_button.clicked.connect(self.accept_with_removal)
        self.design_button.clicked.connect(self.try_another)
        self.fields_button.clicked.connect(self.try_removing_fields)
        self.limits_button.clicked.connect(self.impose_limits)
        self.set_design_available(False)
        self._update_buttons()
        self.graph.show_graph(None)

    # ------------------------------------------------------------------ inputs

    _choose = staticmethod(choose)

    def _set_people(self, people: PeoplePolicy, edit, path: str) -> None:
        self.people = people
        edit.setText(f"{Path(path).name} ({len(people.categories)} people)")

    def _guard(self, action) -> bool:
        return run_guarded(self.workbench.failed.emit, action)

    def load_tables(self, original: str | None = None, pseudonymised: str | None = None) -> None:
        def load(control):
            return {key: load_table(path) for key, path in (("original", original), ("pseudonymised", pseudonymised))
                    if path}

        def done(tables: dict) -> None:
            if "original" in tables:
                self.original = tables["original"]
            if "pseudonymised" in tables:
                self.pseudonymised = tables["pseudonymised"]
            self._tables_changed()

        names = " and ".join(Path(p).name for p in (original, pseudonymised) if p)

        def cancelled(_tables) -> None:
            self._say_stopped(f"Loading {names} was cancelled: "
                              + ("the check below is of the tables loaded before."
                                 if self.analysis is not None else "the tables loaded before are kept."))

        self.workbench.runner.start("Loading the data", load, done, self.workbench.failed.emit, owner=self,
                                    on_cancelled=cancelled, cancel_text="Cancel loading", stops=f"loading {names}")

    def load_model(self, path) -> bool:
        def set_model() -> None:
            self.model = DataFlowModel.load(path)
            self.inputs.show_model(Path(path).name, self.model.name)

        return self._guard(set_model)

    def set_tables(self, original: Table, pseudonymised: Table) -> None:
        self.original, self.pseudonymised = original, pseudonymised
        self._tables_changed()

    def load_example(self) -> None:
        original, pseudonymised = example_tables()
        self.set_tables(original, pseudonymised)
        self.load_model(resource_path("pseudonymization/health_survey.json"))
        choose(self.sensitive_combo, "weight")
        choose(self.id_combo, "id")
        self.margin_spin.setValue(5)
        self.inputs.set_mode("westin")
        choose(self.category_combo, "category")
        choose(self.flag_combo, "weight_sensitive")
        self.inputs.check_qis(("age", "sex", "race", "height"))
        self.run_analysis()

    def _tables_changed(self) -> None:
        self.inputs.show_tables(self.original, self.pseudonymised)
        self._update_buttons()

    def threshold_choice(self):
        return self.inputs.threshold_choice(self.people)

    # ------------------------------------------------------------------ rules (kept in the project)

    def rules(self) -> list[BlockingRule]:
        stored = self.workbench.project.settings.get(SETTINGS_KEY, {}).get("rules", [])
        rules = []
        for text in stored:
            try:
                rules.append(BlockingRule.parse(text))
            except InputError:
                continue
        return rules

    def set_rules(self, rules: list[BlockingRule]) -> None:
        settings = self.workbench.project.settings
        entry = dict(settings.get(SETTINGS_KEY, {}))
        texts = [str(rule) for rule in rules]
        if entry.get("rules") != texts:
            entry["rules"] = texts
            settings[SETTINGS_KEY] = entry
            self.workbench._mark(True)
        if self.analysis is not None:
            self.analysis.apply_rules(self.rules())
            self._show()

    # ------------------------------------------------------------------ analysis

    def run_analysis(self) -> None:
        if self.original is None or self.pseudonymised is None:
            self.workbench.failed.emit("Load the original and the pseudonymised data first.")
            return
        try:
            choice = self.threshold_choice()
        except InputError as error:
            self.workbench.failed.emit(str(error))
            return
        original, pseudonymised, model = self.original, self.pseudonymised, self.model
        sensitive, qi = self.sensitive_combo.currentText(), self.chosen_qis()
        id_column = self.inputs.id_column()
        margin, operator, seed = self.margin_spin.value(), self.operator_combo.currentData(), self.seed_spin.value()
        rules = self.rules()

        def work(control):
            def progress(percent, text):
                control.progress(percent, text)
                control.check()

            return analyse(original, pseudonymised, sensitive, qi, choice, margin=margin, operator=operator,
                           seed=seed, id_column=id_column, model=model, rules=rules, progress=progress)

        def done(analysis) -> None:
            self.analysis = analysis
            self.selected = analysis.maximum.qi_set
            self.decision = ""
            self.decision_label.setText("")
            self._show()
            self.analysed.emit()

        def cancelled(_value) -> None:
            self._say_stopped("The check of the pseudonymised data was cancelled: " + (
                "the graph and the report below are the last check's." if self.analysis is not None
                else "no results are shown. Press Analyse to check again."))

        self.analyse_button.setEnabled(False)
        task = self.workbench.runner.start("Counting violations", work, done, self._failed, owner=self,
                                           on_cancelled=cancelled, cancel_text="Cancel the check",
                                           stops="the pseudonymised data's check")
        task.signals.finished.connect(lambda _=None: self.analyse_button.setEnabled(True))
        task.signals.failed.connect(lambda _=None: self.analyse_button.setEnabled(True))
        task.signals.cancelled.connect(lambda: self.analyse_button.setEnabled(True))

    def _say_stopped(self, sentence: str) -> None:
        """What a cancelled load or check leaves on show, said above the verdict it leaves."""
        verdict = self.verdict.text()
        if verdict.startswith(STOPPED):
            verdict = verdict.split("<br>", 1)[1] if "<br>" in verdict else ""
        self.verdict.setText(f"{STOPPED}{sentence}</i>" + (f"<br>{verdict}" if verdict else ""))

    def _failed(self, message: str) -> None:
        self.analyse_button.setEnabled(True)
        self.workbench.failed.emit(message)

    def select(self, qi_set) -> None:
        if self.analysis is None:
            return
        self.selected = tuple(qi_set)
        self._show()

    def _show(self) -> None:
        analysis = self.analysis
        self.graph.show_graph(analysis.lts, list(analysis.engine.qi), self.selected)
        self.report.show_transition(analysis, self.selected, self.mode_combo.currentData() == "preferences")
        self._update_buttons()
        self._publish()

    def _publish(self) -> None:
        """Leave the analysis on the workbench for the application's report."""
        if self.analysis is not None:
            self.workbench.pseudonymization = PseudonymizationSummary(self.analysis, self.rules(), self.selected,
                                                                      self.decision)

    def _update_buttons(self) -> None:
        self.decisions.set_ready(self.analysis is not None)
        self.analyse_button.setEnabled(self.original is not None and self.pseudonymised is not None
                                       and not self.workbench.runner.current)

    # ------------------------------------------------------------------ the five choices

    def _decide(self, text: str) -> None:
        self.decision = text
        self.decision_label.setText(text)
        self.workbench.status.emit(text)
        self._publish()

    def accept_with_violations(self) -> None:
        reason = self.analysis.blocked_reason(self.selected)
        transition = self.analysis.transition(self.selected)
        if reason:
            self._decide(f"✕ Not released: {', '.join(self.selected)} is refused — {reason}")
            return
        self._decide(f"Accepted: {', '.join(self.selected)} released with {transition.violations} violation(s) "
                     "remaining.")

    def accept_with_removal(self, path: str | None = None) -> None:
        report = self.analysis.reports.get(self.selected)
        if report is None:
            self.workbench.failed.emit("No removal was computed for this transition; choose the maximum one.")
            return
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save the trimmed data", "trimmed.csv", "CSV (*.csv)")
            if not path:
                return
        table = self.analysis.engine.table
        inputs = [self.original.name, self.pseudonymised.name]
        ok = self._guard(lambda: write_trimmed(table, self.analysis.engine.sensitive, report.removal.removed_rows,
                                               path, inputs=inputs))
        if ok:
            self._decide(f"Accepted with violations removed: {report.removal.removed} value(s) emptied, "
                         f"trimmed data saved to {Path(path).name}.")

    def set_design_available(self, available: bool) -> None:
        self.design_available = available
        self.decisions.set_design_available(available)

    def _designer_window(self):
        """The main window when it has the release designer (view key ``design``)."""
        window = self.window()
        views = getattr(window, "views", None)
        return window if isinstance(views, Mapping) and DESIGN_VIEW in views and hasattr(window, "show_view") else None

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._designer_window() is not None:
            self.set_design_available(True)

    def try_another(self) -> None:
        self._decide("Trying another pseudonymisation in the release designer.")
        self.designRequested.emit()
        window = self._designer_window()
        if window is not None:
            window.show_view(DESIGN_VIEW)

    def try_removing_fields(self) -> RemoveFieldsDialog:
        dialog = RemoveFieldsDialog(self.analysis, self)
        dialog.finished.connect(lambda _: dialog.chosen and self.select(dialog.chosen))
        dialog.open()
        return dialog

    def impose_limits(self) -> LimitsDialog:
        dialog = LimitsDialog(self.rules(), self)
        dialog.accepted.connect(lambda: self.set_rules(dialog.rules))
        dialog.open()
        return dialog


__all__ = ["PseudonymizationView", "example_tables"]
