"""The Release view's roles panel: one row per column with its role (identifier,
quasi-identifier, sensitive, insensitive) and kind (categorical, continuous), pre-filled from
the project or, for a new file, from the guesses of :mod:`tklscore.core.tables.role_guesses`
(each marked as a guess, with its reason), with hints on what is missing."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout)

from tklscore.core.errors import InputError
from tklscore.core.tables.loading import Table
from tklscore.core.tables.role_guesses import guess_table_roles
from tklscore.core.tables.roles import Role, Roles
from tklscore.core.tables.spaces import visible_spaces
from tklscore.gui.tasks import SIDE

ROLE_LABELS = {Role.IDENTIFIER: "identifier", Role.QUASI_IDENTIFIER: "quasi-identifier",
               Role.SENSITIVE: "sensitive", Role.INSENSITIVE: "insensitive"}
ROLE_TIPS = {
    Role.IDENTIFIER: "Names one record (e.g. a record number); used to find published records in the source.",
    Role.QUASI_IDENTIFIER: "Could be linked with outside knowledge to single a person out (job, city, gender…).",
    Role.SENSITIVE: "What should not be learnt about a person (disease, medication…); the scores measure it.",
    Role.INSENSITIVE: "Neither: ignored by the scores.",
}
KIND_LABELS = ("categorical", "continuous")
EXAMPLES = 4  # values shown per column


class RolesPanel(QGroupBox):
    def __init__(self, workbench, guard, parent=None):
        super().__init__("Roles of the columns", parent)
        self.workbench = workbench
        self.guard = guard
        self._guesses: tuple | None = None  # (table, guess_table_roles(table))
        self._guessed = False
        self._filling = False
        self._values: dict = {}        # out of core: column -> column_values (first values, how many)
        self._values_for = None        # the SourceSummary they were counted for
        layout = QVBoxLayout(self)
        self.roles_table = QTableWidget(0, 5)
        self.roles_table.setHorizontalHeaderLabels(["Column", "Role", "Kind", "Example values", "Why this guess"])
        self.roles_table.verticalHeader().hide()
        self.roles_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.roles_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.roles_table.setWordWrap(False)
        header = self.roles_table.horizontalHeader()
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(3, 150)
        header.setStretchLastSection(True)
        self.roles_table.setTextElideMode(Qt.TextElideMode.ElideRight)
        layout.addWidget(self.roles_table, 1)
        self.roles_hint = QLabel()
        self.roles_hint.setWordWrap(True)
        layout.addWidget(self.roles_hint)
        buttons = QHBoxLayout()
        self.apply_roles_button = QPushButton("Apply roles")
        self.apply_roles_button.setToolTip("Use these roles and compute the scores again")
        self.apply_roles_button.clicked.connect(self.apply_roles)
        self.reset_roles_button = QPushButton("Reset")
        self.reset_roles_button.setToolTip("Show the roles in use again")
        self.reset_roles_button.clicked.connect(self.fill_roles)
        buttons.addStretch(1)
        buttons.addWidget(self.reset_roles_button)
        buttons.addWidget(self.apply_roles_button)
        layout.addLayout(buttons)

    def fill_roles(self) -> None:
        workbench = self.workbench
        table = workbench.table if workbench.table is not None else workbench.source_summary
        self._filling = True
        self.roles_table.setRowCount(0)
        if table is None:
            self._filling = False
            self._update_roles_hint()
            return
        columns = workbench.source_columns()
        roles = workbench.project.roles
        named = list(roles.qi) + list(roles.sa) + ([roles.identifier] if roles.identifier else [])
        if named and all(column in columns for column in named):
            choices = {c: (roles.role_of(c), roles.is_continuous(c)) for c in columns}
            self._guessed = False
        else:
            if self._guesses is None or self._guesses[0] is not table:
                sample = table if workbench.table is not None else Table(table.preview, name=table.path)
                self._guesses = (table, guess_table_roles(sample))
            choices = {c: (g.role, g.continuous) for c, g in self._guesses[1].items()}
            self._guessed = True
        reasons = {c: g.reason for c, g in self._guesses[1].items()} if self._guessed else {}
        self.roles_table.setRowCount(len(columns))
        for row, column in enumerate(columns):
            role, continuous = choices[column]
            name = QTableWidgetItem(column)
            name.setToolTip(f"{column}\nGuessed {ROLE_LABELS[role]}: {reasons[column]}" if column in reasons else column)
            self.roles_table.setItem(row, 0, name)
            role_combo = QComboBox()
            for value, label in ROLE_LABELS.items():
                role_combo.addItem(label, value)
                role_combo.setItemData(role_combo.count() - 1, ROLE_TIPS[value], Qt.ItemDataRole.ToolTipRole)
            role_combo.setCurrentIndex(role_combo.findData(role))
            if column in reasons:  # a guess, marked as one until the roles are applied
                role_combo.setToolTip(f"Guessed: {reasons[column]}")
                role_combo.setStyleSheet("QComboBox { font-style: italic; background: rgb(255, 244, 200); }")
            kind_combo = QComboBox()
            kind_combo.addItems(KIND_LABELS)
            kind_combo.setToolTip("Continuous: numbers compared by size (e.g. age). Categorical: labels.")
            kind_combo.setCurrentIndex(1 if continuous else 0)
            kind_combo.setEnabled(role == Role.SENSITIVE)
            role_combo.currentIndexChanged.connect(lambda _i, r=row: self._role_edited(r))
            kind_combo.currentIndexChanged.connect(lambda _i: self._update_roles_hint())
            self.roles_table.setCellWidget(row, 1, role_combo)
            self.roles_table.setCellWidget(row, 2, kind_combo)
            self.roles_table.setItem(row, 3, _item(self._examples(column)))
            why = _item(f"guess: {reasons[column]}" if column in reasons else "")
            if column in reasons:
                font = QFont(why.font())
                font.setItalic(True)
                why.setFont(font)
                why.setForeground(QBrush(QColor(120, 90, 0)))
            self.roles_table.setItem(row, 4, why)
        self._filling = False
        self._update_roles_hint()
        if workbench.table is None:
            self._count_values(table)

    def _examples(self, column: str) -> str:
        """A few values of the column: the first rows' in memory; out of core the
        distinct values counted by the engine (with how many there are), once counted."""
        counted = self._values.get(column) if self._values_for is self.workbench.source_summary else None
        if counted is not None:
            shown = ", ".join(_shown(v) for v in counted["value"].tolist())
            more = ", …" if counted.attrs.get("beyond", 0) else ""
            return f"{counted.attrs['distinct']:,} distinct: {shown}{more}"
        workbench = self.workbench
        frame = workbench.table.frame if workbench.table is not None else workbench.source_summary.preview
        return ", ".join(_shown(v) for v in pd.unique(frame[column].iloc[:1000])[:EXAMPLES])

    def _count_values(self, summary) -> None:
        """Each column's first distinct values and their number, from the engine on the task
        runner (once per source described); the examples column then shows them."""
        if self._values_for is summary:
            return
        self._values_for, self._values = summary, {}
        workbench, source = self.workbench, self.workbench.source

        def count(control):
            values = {}
            with source.session() as held:
                for i, column in enumerate(summary.columns):
                    control.progress(int(100 * i / max(1, len(summary.columns))), f"Counting the values of {column}")
                    values[column] = held.column_values(column, limit=EXAMPLES)
            return values

        def done(values) -> None:
            if self._values_for is not summary or workbench.source_summary is not summary:
                return
            self._values = values
            for row in range(self.roles_table.rowCount()):
                column = self.roles_table.item(row, 0).text()
                if column in values:
                    self.roles_table.setItem(row, 3, _item(self._examples(column)))

        workbench.runner.start("Counting the values of each column", count, done, workbench._fail, owner=self,
                               lane=SIDE)

    def role_combo(self, column: str) -> QComboBox:
        return self.roles_table.cellWidget(self._roles_row(column), 1)

    def kind_combo(self, column: str) -> QComboBox:
        return self.roles_table.cellWidget(self._roles_row(column), 2)

    def _roles_row(self, column: str) -> int:
        for row in range(self.roles_table.rowCount()):
            if self.roles_table.item(row, 0).text() == column:
                return row
        raise KeyError(column)

    def _role_edited(self, row: int) -> None:
        combo = self.roles_table.cellWidget(row, 1)
        if combo.styleSheet():  # no longer a guess: the user chose it
            combo.setStyleSheet("")
            combo.setToolTip("")
            self.roles_table.setItem(row, 4, _item(""))
        role = combo.currentData()
        kind = self.roles_table.cellWidget(row, 2)
        kind.setEnabled(role == Role.SENSITIVE)
        if role != Role.SENSITIVE:
            kind.setCurrentIndex(0)
        self._update_roles_hint()

    def form_choices(self) -> dict[str, tuple[Role, bool]]:
        choices = {}
        for row in range(self.roles_table.rowCount()):
            column = self.roles_table.item(row, 0).text()
            role = self.roles_table.cellWidget(row, 1).currentData()
            continuous = role == Role.SENSITIVE and self.roles_table.cellWidget(row, 2).currentIndex() == 1
            choices[column] = (role, continuous)
        return choices

    def roles_from_form(self) -> Roles:
        choices = self.form_choices()
        identifiers = [c for c, (role, _) in choices.items() if role == Role.IDENTIFIER]
        if len(identifiers) > 1:
            raise InputError(f"only one column can be the identifier, but {', '.join(map(repr, identifiers))} "
                             "are chosen", hint="make the others insensitive")
        return Roles(qi=[c for c, (role, _) in choices.items() if role == Role.QUASI_IDENTIFIER],
                     sa=[c for c, (role, _) in choices.items() if role == Role.SENSITIVE],
                     continuous=[c for c, (_, continuous) in choices.items() if continuous],
                     identifier=identifiers[0] if identifiers else None)

    def _update_roles_hint(self) -> None:
        if self._filling:
            return
        if not self.workbench.has_source:
            self.roles_hint.setText("Open a source table to choose the roles of its columns.")
            self.apply_roles_button.setEnabled(False)
            return
        self.apply_roles_button.setEnabled(True)
        choices = self.form_choices()
        roles = [role for role, _ in choices.values()]
        lines = []
        if self._guessed:
            lines.append("The roles marked <i>guess</i> come from the columns' names (personal-data "
                         "categories such as age, sex, income, diagnosis) and values (an identifier is unique "
                         "in every row): check them, then click <b>Apply roles</b>.")
        if self.workbench.table is None:
            lines.append("The source is read out of core: the suggestions come from its first rows, and a "
                         "continuous column is checked (every cell a number) when the releases are scored.")
        if Role.SENSITIVE not in roles:
            lines.append("⚠ No sensitive attribute is chosen: the scores measure what a release reveals "
                         "about sensitive attributes, so choose at least one.")
        if Role.QUASI_IDENTIFIER not in roles:
            lines.append("No quasi-identifier is chosen: all records then look alike to an attacker.")
        if Role.IDENTIFIER not in roles:
            lines.append("No identifier column: published records are found by their row number "
                         "(or, for a published file, by matching all its columns).")
        if not self._guessed and not self._form_matches_project():
            lines.append("The roles have been changed: click <b>Apply roles</b> to use them.")
        self.roles_hint.setText("<br>".join(lines))

    def _form_matches_project(self) -> bool:
        roles = self.workbench.project.roles
        return all(choice == (roles.role_of(c), roles.is_continuous(c)) for c, choice in self.form_choices().items())

    def apply_roles(self) -> bool:
        def apply() -> None:
            self.workbench.set_roles(self.roles_from_form())

        return self.guard(apply)


def _shown(value) -> str:
    return "(empty)" if value == "" else visible_spaces(str(value))


def _item(text: str) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setToolTip(text)
    return item
