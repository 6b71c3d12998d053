"""File ▸ New model from source…: the choices a new tkl-Data Model is built from — the
vocabulary, how each continuous column is binned, the label values start with (marked not yet
judged) — with the sensitive columns and the class suggested for each shown beforehand."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QSpinBox, QTableWidget,
                               QTableWidgetItem, QVBoxLayout)

from tklscore.core.model.class_suggestions import suggest_class
from tklscore.core.model.data_model.building import QUANTILE, ROUND
from tklscore.core.model.labels import HL7_CONFIDENTIALITY
from tklscore.core.model.vocabulary import SHIPPED, Vocabulary


@dataclass
class NewModelChoices:
    vocabulary: Vocabulary
    bins: dict[str, tuple[str, float | None]] = field(default_factory=dict)   # column -> (method, parameter)
    default_label: str = HL7_CONFIDENTIALITY.default


class NewModelDialog(QDialog):
    def __init__(self, table, roles, current: Vocabulary | None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("New tkl-Data Model from the source")
        self.table, self.roles = table, roles
        self.vocabularies = [Vocabulary.shipped(key) for key in SHIPPED]
        if current is not None and current.key is None:
            self.vocabularies.insert(0, current)
        layout = QVBoxLayout(self)
        intro = QLabel(f"One attribute per sensitive column of <b>{table.name.rsplit('/', 1)[-1]}</b>, aligned with "
                       f"the suggested class (confirm or change it afterwards), its values — bins for a continuous "
                       f"column — each starting with the default label, marked <i>not yet judged</i>.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.vocabulary_combo = QComboBox()
        for vocabulary in self.vocabularies:
            self.vocabulary_combo.addItem(vocabulary.title)
        default = next((k for k, v in enumerate(self.vocabularies) if v.key == "dpv-2.3"), 0)
        self.vocabulary_combo.setCurrentIndex(0 if current is not None and current.key is None else default)
        self.vocabulary_combo.currentIndexChanged.connect(lambda _: self.show_suggestions())
        form.addRow("Vocabulary:", self.vocabulary_combo)
        self.label_combo = QComboBox()
        self.label_combo.addItems(HL7_CONFIDENTIALITY.names)
        self.label_combo.setCurrentText(HL7_CONFIDENTIALITY.default)
        form.addRow("Values start with:", self.label_combo)
        self.bin_choices: dict[str, tuple[QComboBox, QSpinBox]] = {}
        for column in [c for c in roles.sa if c in roles.continuous]:
            method, count = QComboBox(), QSpinBox()
            method.addItem("quantile bins", QUANTILE)
            method.addItem("round-number bins", ROUND)
            count.setRange(2, 20)
            count.setValue(4)
            count.setPrefix("bins: ")
            method.currentIndexChanged.connect(lambda _, c=count, m=method: c.setEnabled(m.currentData() == QUANTILE))
            self.bin_choices[column] = (method, count)
            row = QVBoxLayout()
            row.addWidget(method)
            row.addWidget(count)
            form.addRow(f"{column}:", row)
        layout.addLayout(form)
        self.columns = QTableWidget(len(roles.sa), 3)
        self.columns.setHorizontalHeaderLabels(["Sensitive column", "Suggested class", "Why"])
        self.columns.verticalHeader().hide()
        self.columns.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.columns, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Build the model")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(760, 480)
        self.show_suggestions()

    def vocabulary(self) -> Vocabulary:
        return self.vocabularies[self.vocabulary_combo.currentIndex()]

    def show_suggestions(self) -> None:
        vocabulary = self.vocabulary()
        for row, column in enumerate(self.roles.sa):
            suggestion = suggest_class(column, self.table.codes(column).uniques[:2000].tolist(), vocabulary)
            for k, text in enumerate((column, suggestion.label or "— (drag one on after building)", suggestion.reason)):
                item = QTableWidgetItem(text)
                item.setToolTip(suggestion.reason)
                self.columns.setItem(row, k, item)
        self.columns.resizeColumnsToContents()

    def choices(self) -> NewModelChoices:
        bins = {column: (method.currentData(), float(count.value()) if method.currentData() == QUANTILE else None)
                for column, (method, count) in self.bin_choices.items()}
        return NewModelChoices(self.vocabulary(), bins, self.label_combo.currentText())
