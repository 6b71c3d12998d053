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

Every computation is core's (:func:`tklscore.core.pseudonymization.analysis.analyse`),
run on the workbench's task runner.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QListWidget, QListWidgetItem, QMessageBox,
                               QPushButton, QSpinBox, QSplitter, QStackedWidget, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from tklscore.core.errors import InputError
from tklscore.core.files.resources import resource_path
from tklscore.core.numbers import number, percent
from tklscore.core.pseudonymization.analysis import ThresholdChoice, analyse, write_trimmed
from tklscore.core.pseudonymization.blocking import BlockingRule, check_rules
from tklscore.core.pseudonymization.data_flow import DataFlowModel
from tklscore.core.pseudonymization.preferences import MAPPING, load_people_from_preferences
from tklscore.core.pseudonymization.thresholds import PeoplePolicy, ThresholdPolicy
from tklscore.core.pseudonymization.utility import LABELS, STATISTICS
from tklscore.core.tables.loading import Table, load_table
from tklscore.gui.pseudonymization.dialogs import LimitsDialog, RemoveFieldsDialog
from tklscore.gui.pseudonymization.lts_graph import LtsGraph
from tklscore.core.report.sections.pseudonymization import PseudonymizationSummary

MODES = [("uniform", "one threshold for everyone"), ("column", "a column of thresholds"),
         ("westin", "Westin category column (Table 5)"), ("people", "a policy per person (file)"),
         ("preferences", "the patients' saved preferences")]
SETTINGS_KEY = "pseudonymization"
DESIGN_VIEW = "design"
NONE = "— row by row —"


def example_tables(seed: int = 0) -> tuple[Table, Table]:
    """The §6.2-shaped survey: the original (true ages and heights) and its 2-anonymous copy."""
    from tklscore.core.pseudonymization.generator import survey_tables

    original, pseudonymised = survey_tables(seed)
    return (Table.from_frame(original, name="§6.2 survey, original"),
            Table.from_frame(pseudonymised, name="§6.2 survey, 2-anonymous"))


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
        self._build()

    # ------------------------------------------------------------------ layout

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        inputs = QGroupBox("1 · Load the data, the thresholds and the data-flow model")
        row = QHBoxLayout(inputs)
        files = QFormLayout()
        self.original_edit, self.pseudonymised_edit, self.model_edit = QLineEdit(), QLineEdit(), QLineEdit()
        for edit, label, slot in ((self.original_edit, "Original data", self._browse_original),
                                  (self.pseudonymised_edit, "Pseudonymised data", self._browse_pseudonymised),
                                  (self.model_edit, "Data-flow model", self._browse_model)):
            edit.setReadOnly(True)
            button = QPushButton("Open…")
            button.clicked.connect(slot)
            line = QHBoxLayout()
            line.addWidget(edit, 1)
            line.addWidget(button)
            files.addRow(label, line)
        self.example_button = QPushButton("Load the §6.2 example")
        self.example_button.setToolTip("1,103 survey records shaped like the paper's Table 4, 2-anonymised")
        self.example_button.clicked.connect(self.load_example)
        files.addRow("", self.example_button)
        row.addLayout(files, 3)
        fields = QFormLayout()
        self.sensitive_combo = QComboBox()
        self.id_combo = QComboBox()
        self.margin_spin = QDoubleSpinBox()
        self.margin_spin.setRange(0, 1e9)
        self.margin_spin.setDecimals(3)
        self.margin_spin.setValue(5)
        self.operator_combo = QComboBox()
        self.operator_combo.addItem("risk > threshold (paper)", "gt")
        self.operator_combo.addItem("risk ≥ threshold", "ge")
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 2**31 - 1)
        fields.addRow("Sensitive field", self.sensitive_combo)
        fields.addRow("Records matched by", self.id_combo)
        self.margin_spin.setToolTip("Two values at most this far apart count as equal (0 for a text field)")
        fields.addRow("Margin", self.margin_spin)
        fields.addRow("Violation when", self.operator_combo)
        fields.addRow("Removal seed", self.seed_spin)
        row.addLayout(fields, 2)
        qi_box = QVBoxLayout()
        qi_box.addWidget(QLabel("Quasi-identifiers the actor may know"))
        self.qi_list = QListWidget()
        self.qi_list.setMaximumHeight(110)
        qi_box.addWidget(self.qi_list)
        row.addLayout(qi_box, 1)
        thresholds = QFormLayout()
        self.mode_combo = QComboBox()
        for key, text in MODES:
            self.mode_combo.addItem(text, key)
        self.mode_stack = QStackedWidget()
        self.uniform_spin = QDoubleSpinBox()
        self.uniform_spin.setRange(0, 1)
        self.uniform_spin.setSingleStep(0.05)
        self.uniform_spin.setValue(0.9)
        self.threshold_column = QComboBox()
        westin = QWidget()
        westin_form = QFormLayout(westin)
        westin_form.setContentsMargins(0, 0, 0, 0)
        self.category_combo, self.flag_combo = QComboBox(), QComboBox()
        westin_form.addRow("category", self.category_combo)
        westin_form.addRow("sensitive flag", self.flag_combo)
        self.people_edit, self.preferences_edit = QLineEdit(), QLineEdit()
        self.people_edit.setToolTip("CSV id,category,sensitive_fields: one row per person")
        self.preferences_edit.setToolTip(MAPPING)
        for widget in (self.uniform_spin, self.threshold_column, westin):
            self.mode_stack.addWidget(widget)
        for edit, slot in ((self.people_edit, self._browse_people), (self.preferences_edit, self._browse_preferences)):
            holder = QWidget()
            line = QHBoxLayout(holder)
            line.setContentsMargins(0, 0, 0, 0)
            edit.setReadOnly(True)
            button = QPushButton("Open…")
            button.clicked.connect(slot)
            line.addWidget(edit, 1)
            line.addWidget(button)
            self.mode_stack.addWidget(holder)
        self.mode_combo.currentIndexChanged.connect(self.mode_stack.setCurrentIndex)
        thresholds.addRow("Thresholds from", self.mode_combo)
        thresholds.addRow("", self.mode_stack)
        for combo in (self.sensitive_combo, self.id_combo, self.operator_combo, self.mode_combo,
                      self.threshold_column, self.category_combo, self.flag_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)
        self.analyse_button = QPushButton("Analyse")
        self.analyse_button.setDefault(True)
        self.analyse_button.clicked.connect(self.run_analysis)
        thresholds.addRow("", self.analyse_button)
        row.addLayout(thresholds, 2)
        layout.addWidget(inputs)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        graph_box = QGroupBox("2 · The LTS: risk transitions dotted, each with its violation count N_v")
        graph_layout = QVBoxLayout(graph_box)
        self.graph = LtsGraph()
        self.graph.riskSelected.connect(self.select)
        graph_layout.addWidget(self.graph)
        splitter.addWidget(graph_box)
        report_box = QGroupBox("3 · Pseudonymisation utility report")
        report_layout = QVBoxLayout(report_box)
        self.verdict = QLabel("Load data and press Analyse.")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        report_layout.addWidget(self.verdict)
        self.report_table = QTableWidget(0, 4)
        self.report_table.setHorizontalHeaderLabels(["", "original", "trimmed", "δ"])
        self.report_table.horizontalHeaderItem(3).setToolTip("δ = trimmed − original")
        self.report_table.verticalHeader().hide()
        self.report_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        report_layout.addWidget(self.report_table, 1)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #555")
        report_layout.addWidget(self.notes)
        splitter.addWidget(report_box)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([900, 600])
        layout.addWidget(splitter, 1)

        choices = QGroupBox("4 · Decide")
        buttons = QHBoxLayout(choices)
        self.accept_button = QPushButton("Accept with violations")
        self.accept_removed_button = QPushButton("Accept with violations removed…")
        self.design_button = QPushButton("Try another pseudonymisation")
        self.fields_button = QPushButton("Try removing fields…")
        self.limits_button = QPushButton("Impose limits…")
        self.accept_button.clicked.connect(self.accept_with_violations)
        self.accept_removed_button.clicked.connect(self.accept_with_removal)
        self.design_button.clicked.connect(self.try_another)
        self.fields_button.clicked.connect(self.try_removing_fields)
        self.limits_button.clicked.connect(self.impose_limits)
        for button in (self.accept_button, self.accept_removed_button, self.design_button, self.fields_button,
                       self.limits_button):
            buttons.addWidget(button)
        self.decision_label = QLabel("")
        self.decision_label.setWordWrap(True)
        buttons.addWidget(self.decision_label, 1)
        layout.addWidget(choices)
        self.set_design_available(False)
        self._update_buttons()
        self.graph.show_graph(None)

    # ------------------------------------------------------------------ inputs

    def _open(self, title: str, filter_: str) -> str | None:
        path, _ = QFileDialog.getOpenFileName(self, title, "", filter_)
        return path or None

    def _browse_original(self) -> None:
        path = self._open("Original data", "Tables (*.csv *.tsv *.txt *.xlsx *.parquet);;All files (*)")
        if path:
            self.load_tables(original=path)

    def _browse_pseudonymised(self) -> None:
        path = self._open("Pseudonymised data", "Tables (*.csv *.tsv *.txt *.xlsx *.parquet);;All files (*)")
        if path:
            self.load_tables(pseudonymised=path)

    def _browse_model(self) -> None:
        path = self._open("Data-flow model", "Data-flow models (*.json);;All files (*)")
        if path:
            self.load_model(path)

    def _browse_people(self) -> None:
        path = self._open("Policy per person", "CSV (*.csv);;All files (*)")
        if path:
            self._guard(lambda: self._set_people(PeoplePolicy.load(path), self.people_edit, path))

    def _browse_preferences(self) -> None:
        path = self._open("Patients' preferences", "Preferences (*.csv *.ttl);;All files (*)")
        if path:
            self._guard(lambda: self._set_people(load_people_from_preferences(path), self.preferences_edit, path))

    def _set_people(self, people: PeoplePolicy, edit: QLineEdit, path: str) -> None:
        self.people = people
        edit.setText(f"{Path(path).name} ({len(people.categories)} people)")

    def _guard(self, action) -> bool:
        try:
            action()
            return True
        except InputError as error:
            self.workbench.failed.emit(str(error))
            return False

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

        self.workbench.runner.start("Loading the data", load, done, self.workbench.failed.emit)

    def load_model(self, path) -> bool:
        def set_model() -> None:
            self.model = DataFlowModel.load(path)
            self.model_edit.setText(f"{Path(path).name}: {self.model.name}")
            self.model_edit.setCursorPosition(0)

        return self._guard(set_model)

    def set_tables(self, original: Table, pseudonymised: Table) -> None:
        self.original, self.pseudonymised = original, pseudonymised
        self._tables_changed()

    def load_example(self) -> None:
        original, pseudonymised = example_tables()
        self.set_tables(original, pseudonymised)
        self.load_model(resource_path("pseudonymization/health_survey.json"))
        self._choose(self.sensitive_combo, "weight")
        self._choose(self.id_combo, "id")
        self.margin_spin.setValue(5)
        self.mode_combo.setCurrentIndex([k for k, _ in MODES].index("westin"))
        self._choose(self.category_combo, "category")
        self._choose(self.flag_combo, "weight_sensitive")
        for index in range(self.qi_list.count()):
            item = self.qi_list.item(index)
            item.setCheckState(Qt.CheckState.Checked if item.text() in ("age", "sex", "race", "height")
                               else Qt.CheckState.Unchecked)
        self.run_analysis()

    @staticmethod
    def _choose(combo: QComboBox, text: str) -> None:
        index = combo.findText(text)
        if index >= 0:
            combo.setCurrentIndex(index)

    def _tables_changed(self) -> None:
        if self.original is not None:
            self.original_edit.setText(f"{self.original.name} ({len(self.original):,} records)")
            self.original_edit.setCursorPosition(0)
        if self.pseudonymised is not None:
            self.pseudonymised_edit.setText(f"{self.pseudonymised.name} ({len(self.pseudonymised):,} records)")
            self.pseudonymised_edit.setCursorPosition(0)
        columns = self.pseudonymised.columns if self.pseudonymised is not None else []
        original_columns = self.original.columns if self.original is not None else []
        for combo, items in ((self.sensitive_combo, original_columns), (self.threshold_column, columns),
                             (self.category_combo, columns), (self.flag_combo, ["—", *columns]),
                             (self.id_combo, [NONE, *[c for c in columns if c in original_columns]])):
            current = combo.currentText()
            combo.clear()
            combo.addItems(list(items))
            self._choose(combo, current)
        checked = {self.qi_list.item(i).text() for i in range(self.qi_list.count())
                   if self.qi_list.item(i).checkState() == Qt.CheckState.Checked}
        self.qi_list.clear()
        for column in columns:
            item = QListWidgetItem(column)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if column in checked else Qt.CheckState.Unchecked)
            self.qi_list.addItem(item)
        self._update_buttons()

    def chosen_qis(self) -> list[str]:
        return [self.qi_list.item(i).text() for i in range(self.qi_list.count())
                if self.qi_list.item(i).checkState() == Qt.CheckState.Checked]

    def threshold_choice(self) -> ThresholdChoice:
        mode = self.mode_combo.currentData()
        id_column = None if self.id_combo.currentText() in ("", NONE) else self.id_combo.currentText()
        if mode == "uniform":
            return ThresholdChoice(uniform=self.uniform_spin.value())
        if mode == "column":
            return ThresholdChoice(column=self.threshold_column.currentText())
        if mode == "westin":
            flag = self.flag_combo.currentText()
            return ThresholdChoice(category_column=self.category_combo.currentText(),
                                   sensitive_flag_column=None if flag in ("", "—") else flag)
        if self.people is None:
            raise InputError("open the policy file first" if mode == "people" else "open the preferences file first")
        if id_column is None:
            raise InputError("a policy per person needs the id column that names each record's person",
                             hint="choose it under 'Records matched by'")
        return ThresholdChoice(people=self.people, id_column=id_column, policy=ThresholdPolicy())

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
            self._apply_rules()
            self._show()

    def _apply_rules(self) -> None:
        analysis = self.analysis
        records = int(analysis.engine.present.sum())
        for t in analysis.transitions:
            report = analysis.reports.get(t.qi_set)
            analysis.blocked[t.qi_set] = check_rules(self.rules(), t.violations, records,
                                                     report.statistics["delta"] if report else None)
        if analysis.lts is not None:
            for _, _, data in analysis.lts.edges(data=True):
                if data["kind"] == "risk":
                    key = tuple(q for q in analysis.engine.qi if q in data["qi_set"])
                    data["blocked"], data["reason"] = analysis.blocked.get(key, (False, ""))

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
        id_column = None if self.id_combo.currentText() in ("", NONE) else self.id_combo.currentText()
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

        self.analyse_button.setEnabled(False)
        task = self.workbench.runner.start("Counting violations", work, done, self._failed)
        task.signals.finished.connect(lambda _=None: self.analyse_button.setEnabled(True))
        task.signals.failed.connect(lambda _=None: self.analyse_button.setEnabled(True))
        task.signals.cancelled.connect(lambda: self.analyse_button.setEnabled(True))

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
        transition = analysis.transition(self.selected)
        records = int(analysis.engine.present.sum())
        blocked, reason = analysis.blocked.get(transition.qi_set, (False, ""))
        share = transition.violations / records if records else 0
        maximum = " (the maximum risk transition)" if transition is analysis.maximum else ""
        colour = "#b71c1c" if transition.violations else "#1b5e20"
        text = (f"<b>Releasing {', '.join(transition.qi_set)}</b>{maximum}: an actor who knows these could predict "
                f"<b>{analysis.engine.sensitive}</b> above the owner's threshold for "
                f"<span style='color:{colour}'><b>{transition.violations:,} of {records:,} people "
                f"({percent(share)})</b></span>.")
        if blocked:
            text += f"<br><span style='color:#6d4c41'><b>✕ Refused by a limit:</b> {reason}</span>"
        self.verdict.setText(text)
        report = analysis.reports.get(transition.qi_set)
        self._fill_report(report, transition)
        notes = list(analysis.warnings)
        if self.mode_combo.currentData() == "preferences":
            notes.insert(0, MAPPING)
        if report is None:
            notes.append("The removal was computed for the maximum risk transition only (large data).")
        notes.append("δ = trimmed − original: a negative δ means the statistic went down when the violating "
                     "values were removed.")
        self.notes.setText("\n".join(notes))
        self._update_buttons()
        self._publish()

    def _publish(self) -> None:
        """Leave the analysis on the workbench for the application's report."""
        if self.analysis is not None:
            self.workbench.pseudonymization = PseudonymizationSummary(self.analysis, self.rules(), self.selected,
                                                                      self.decision)

    def _fill_report(self, report, transition) -> None:
        rows = [("Violations (N_v)", str(transition.violations), "", "")]
        tips: dict[int, str] = {}
        if report is not None:
            removal = report.removal
            rows.append(("Values removed (R_v)", "", str(removal.removed), f"{report.violations_after} left"))
            if removal.classes:
                bounds = removal.minimum_json()
                if removal.minimum is not None:
                    excess = removal.removed - removal.minimum
                    rows.append(("Exact minimum removal", "", str(removal.minimum),
                                 f"heuristic +{excess}" if excess else "heuristic is minimal"))
                else:
                    rows.append(("Exact minimum removal", "", f"{bounds['at_least']}–{bounds['at_most']}",
                                 f"{bounds['searched']} of {bounds['sets']} sets searched"))
                    unsearched = removal.unsearched
                    tips[len(rows) - 1] = "\n".join(
                        [f"Look-alike set of rows {_rows_text(c.rows)}: {c.note}" for c in unsearched[:5]]
                        + ([f"… and {len(unsearched) - 5} more set(s) not searched"] if len(unsearched) > 5 else []))
            stats = report.statistics
            for key in STATISTICS:
                cells = [stats[part][key] for part in ("original", "trimmed", "delta")]
                rows.append((LABELS[key], *(number(c) for c in cells)))
        self.report_table.setRowCount(len(rows))
        bold = QFont()
        bold.setBold(True)
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if r == 0:
                    item.setFont(bold)
                    if c == 1 and transition.violations:
                        item.setForeground(QColor("#b71c1c"))
                if r in tips:
                    item.setToolTip(tips[r])
                self.report_table.setItem(r, c, item)
        header = self.report_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)

    def _update_buttons(self) -> None:
        ready = self.analysis is not None
        for button in (self.accept_button, self.accept_removed_button, self.fields_button):
            button.setEnabled(ready)
        self.limits_button.setEnabled(True)
        self.analyse_button.setEnabled(self.original is not None and self.pseudonymised is not None
                                       and not self.workbench.runner.current)

    # ------------------------------------------------------------------ the five choices

    def _blocked_reason(self) -> str | None:
        blocked, reason = self.analysis.blocked.get(self.selected, (False, ""))
        return reason if blocked else None

    def _decide(self, text: str) -> None:
        self.decision = text
        self.decision_label.setText(text)
        self.workbench.status.emit(text)
        self._publish()

    def accept_with_violations(self) -> None:
        reason = self._blocked_reason()
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
        self.design_button.setEnabled(available)
        self.design_button.setToolTip("Opens the Design view (the release designer) to pseudonymise differently, "
                                      "e.g. coarser generalisation or l-diversity, then analyse its release here"
                                      if available else "The release designer is the application's Design view; "
                                      "it is not reachable from this view outside the application window")

    def _designer_window(self):
        """The main window when it has the release designer (view key ``design``)."""
        window = self.window()
        views = getattr(window, "views", None)
        return window if isinstance(views, dict) and DESIGN_VIEW in views and hasattr(window, "show_view") else None

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


def _rows_text(rows, shown: int = 8) -> str:
    """0-based row numbers, the first few."""
    rows = [int(r) for r in rows]
    return ", ".join(map(str, rows[:shown])) + (f", … ({len(rows)} rows)" if len(rows) > shown else "")
