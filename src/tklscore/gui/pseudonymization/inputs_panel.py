"""Step 1 of the Pseudonymization view: the original and the pseudonymised data, the
data-flow model, the sensitive field and how records are matched, the quasi-identifiers the
actor may know, and where each person's threshold comes from."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout, QLabel,
                               QLineEdit, QListWidget, QListWidgetItem, QPushButton, QSpinBox, QStackedWidget,
                               QVBoxLayout, QWidget)

from tklscore.gui.number_spin import NumberSpinBox
from tklscore.core.errors import InputError
from tklscore.core.pseudonymization.analysis import ThresholdChoice
from tklscore.core.pseudonymization.preferences import MAPPING
from tklscore.core.pseudonymization.thresholds import PeoplePolicy, ThresholdPolicy

MODES = [("uniform", "one threshold for everyone"), ("column", "a column of thresholds"),
         ("westin", "Westin category column (Table 5)"), ("people", "a policy per person (file)"),
         ("preferences", "the patients' saved preferences")]
NONE = "— row by row —"
TABLES = "Tables (*.csv *.tsv *.txt *.xlsx *.parquet);;All files (*)"


def choose(combo: QComboBox, text: str) -> None:
    """Select ``text`` in ``combo`` when it is there."""
    index = combo.findText(text)
    if index >= 0:
        combo.setCurrentIndex(index)


class InputsPanel(QGroupBox):
    """The inputs of one analysis; a chosen file is announced by a signal (its path)."""

    originalChosen = Signal(str)
    pseudonymisedChosen = Signal(str)
    modelChosen = Signal(str)
    peopleChosen = Signal(str)
    preferencesChosen = Signal(str)

    def __init__(self, parent=None):
        super().__init__("1 · Load the data, the thresholds and the data-flow model", parent)
        row = QHBoxLayout(self)
        row.addLayout(self._files(), 3)
        row.addLayout(self._fields(), 2)
        row.addLayout(self._qi_box(), 1)
        row.addLayout(self._thresholds(), 2)
        for combo in (self.sensitive_combo, self.id_combo, self.operator_combo, self.mode_combo,
                      self.threshold_column, self.category_combo, self.flag_combo):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)

    # ------------------------------------------------------------------ layout

    def _files(self) -> QFormLayout:
        files = QFormLayout()
        self.original_edit, self.pseudonymised_edit, self.model_edit = QLineEdit(), QLineEdit(), QLineEdit()
        for edit, label, signal, filter_ in (
                (self.original_edit, "Original data", self.originalChosen, TABLES),
                (self.pseudonymised_edit, "Pseudonymised data", self.pseudonymisedChosen, TABLES),
                (self.model_edit, "Data-flow model", self.modelChosen, "Data-flow models (*.json);;All files (*)")):
            files.addRow(label, self._file_line(edit, label, signal, filter_))
        self.example_button = QPushButton("Load the §6.2 example")
        self.example_button.setToolTip("1,103 survey records shaped like the paper's Table 4, 2-anonymised")
        files.addRow("", self.example_button)
        return files

    def _file_line(self, edit: QLineEdit, title: str, signal, filter_: str) -> QHBoxLayout:
        """A read-only path with its Open… button, which announces the chosen file on ``signal``."""
        edit.setReadOnly(True)
        button = QPushButton("Open…")
        button.clicked.connect(lambda: self._open(title, filter_, signal))
        line = QHBoxLayout()
        line.addWidget(edit, 1)
        line.addWidget(button)
        return line

    def _open(self, title: str, filter_: str, signal) -> None:
        path, _ = QFileDialog.getOpenFileName(self, title, "", filter_)
        if path:
            signal.emit(path)

    def _fields(self) -> QFormLayout:
        fields = QFormLayout()
        self.sensitive_combo = QComboBox()
        self.id_combo = QComboBox()
        self.margin_spin = NumberSpinBox()
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
        return fields

    def _qi_box(self) -> QVBoxLayout:
        qi_box = QVBoxLayout()
        qi_box.addWidget(QLabel("Quasi-identifiers the actor may know"))
        self.qi_list = QListWidget()
        self.qi_list.setMaximumHeight(110)
        qi_box.addWidget(self.qi_list)
        return qi_box

    def _thresholds(self) -> QFormLayout:
        thresholds = QFormLayout()
        self.mode_combo = QComboBox()
        for key, text in MODES:
            self.mode_combo.addItem(text, key)
        self.mode_stack = QStackedWidget()
        self.uniform_spin = NumberSpinBox()
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
        for edit, title, signal, filter_ in (
                (self.people_edit, "Policy per person", self.peopleChosen, "CSV (*.csv);;All files (*)"),
                (self.preferences_edit, "Patients' preferences", self.preferencesChosen,
                 "Preferences (*.csv *.ttl);;All files (*)")):
            holder = QWidget()
            line = self._file_line(edit, title, signal, filter_)
            line.setContentsMargins(0, 0, 0, 0)
            holder.setLayout(line)
            self.mode_stack.addWidget(holder)
        self.mode_combo.currentIndexChanged.connect(self.mode_stack.setCurrentIndex)
        thresholds.addRow("Thresholds from", self.mode_combo)
        thresholds.addRow("", self.mode_stack)
        self.analyse_button = QPushButton("Analyse")
        self.analyse_button.setDefault(True)
        thresholds.addRow("", self.analyse_button)
        return thresholds

    # ------------------------------------------------------------------ the choices

    def show_tables(self, original, pseudonymised) -> None:
        """Name the loaded tables and offer their columns (keeping what was chosen)."""
        for edit, table in ((self.original_edit, original), (self.pseudonymised_edit, pseudonymised)):
            if table is not None:
                edit.setText(f"{table.name} ({len(table):,} records)")
                edit.setCursorPosition(0)
        columns = pseudonymised.columns if pseudonymised is not None else []
        original_columns = original.columns if original is not None else []
        for combo, items in ((self.sensitive_combo, original_columns), (self.threshold_column, columns),
                             (self.category_combo, columns), (self.flag_combo, ["—", *columns]),
                             (self.id_combo, [NONE, *[c for c in columns if c in original_columns]])):
            current = combo.currentText()
            combo.clear()
            combo.addItems(list(items))
            choose(combo, current)
        checked = set(self.chosen_qis())
        self.qi_list.clear()
        for column in columns:
            item = QListWidgetItem(column)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if column in checked else Qt.CheckState.Unchecked)
            self.qi_list.addItem(item)

    def show_model(self, file_name: str, model_name: str) -> None:
        self.model_edit.setText(f"{file_name}: {model_name}")
        self.model_edit.setCursorPosition(0)

    def check_qis(self, names) -> None:
        """Tick exactly the quasi-identifiers ``names``."""
        for index in range(self.qi_list.count()):
            item = self.qi_list.item(index)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked)

    def set_mode(self, key: str) -> None:
        self.mode_combo.setCurrentIndex([k for k, _ in MODES].index(key))

    def chosen_qis(self) -> list[str]:
        return [self.qi_list.item(i).text() for i in range(self.qi_list.count())
                if self.qi_list.item(i).checkState() == Qt.CheckState.Checked]

    def id_column(self) -> str | None:
        return None if self.id_combo.currentText() in ("", NONE) else self.id_combo.currentText()

    def threshold_choice(self, people: PeoplePolicy | None) -> ThresholdChoice:
        """The thresholds as chosen (``people``: the policy per person or the preferences opened)."""
        mode = self.mode_combo.currentData()
        id_column = self.id_column()
        if mode == "uniform":
            return ThresholdChoice(uniform=self.uniform_spin.value())
        if mode == "column":
            return ThresholdChoice(column=self.threshold_column.currentText())
        if mode == "westin":
            flag = self.flag_combo.currentText()
            return ThresholdChoice(category_column=self.category_combo.currentText(),
                                   sensitive_flag_column=None if flag in ("", "—") else flag)
        if people is None:
            raise InputError("open the policy file first" if mode == "people" else "open the preferences file first")
        if id_column is None:
            raise InputError("a policy per person needs the id column that names each record's person",
                             hint="choose it under 'Records matched by'")
        return ThresholdChoice(people=people, id_column=id_column, policy=ThresholdPolicy())
