"""The Release view: the privacy officer's source table, its columns' roles, and the
candidate releases (published tables) to be scored.

Left: the source file (path, the delimiter and encoding that were detected or given, an
Excel sheet, "Reload" with overrides) and the table itself (a FrameModel over the frame,
sortable, rows selectable). Right: one row per column with its role and kind, pre-filled
from the project or from :func:`guess_roles` for a new file; below it the named candidate
releases side by side (records, records not located, tkl-Score), with buttons to define a
release from the selected rows, a published file, a filter expression or a list of ids.
Records of the current release that cannot be located in the source are listed in a
warning box, never dropped silently.

Everything that can fail runs through the main window's ``guard`` (a specific dialog);
without a main window the error goes to ``workbench.failed``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFrame, QGroupBox,
                               QHBoxLayout, QHeaderView, QInputDialog, QLabel, QLineEdit, QListWidget,
                               QMessageBox, QPushButton, QSplitter, QTableView, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from tklscore.core.errors import InputError
from tklscore.core.tables.published import Release
from tklscore.core.release.selection import ReleaseDefinition, resolve_release
from tklscore.core.tables.roles import Role, Roles, guess_roles
from tklscore.core.tables.loading import (EXCEL_SUFFIXES, PARQUET_SUFFIXES, TEXT_SUFFIXES, is_text_table, sniff_text_file,
                                          table_kind)
from tklscore.gui.frame_model import FrameModel

TABLE_FILTER = ";;".join(f"{name} ({' '.join('*' + s for s in suffixes)})" for name, suffixes in (
    ("Tables", TEXT_SUFFIXES + EXCEL_SUFFIXES + PARQUET_SUFFIXES), ("CSV/TSV", TEXT_SUFFIXES),
    ("Excel", EXCEL_SUFFIXES), ("Parquet", PARQUET_SUFFIXES))) + ";;All files (*)"
DELIMITERS = {",": "Comma ( , )", ";": "Semicolon ( ; )", "\t": "Tab", "|": "Bar ( | )"}
ENCODINGS = ["utf-8", "utf-8-sig", "cp1252", "latin-1", "utf-16"]
ROLE_LABELS = {Role.IDENTIFIER: "identifier", Role.QUASI_IDENTIFIER: "quasi-identifier",
               Role.SENSITIVE: "sensitive", Role.INSENSITIVE: "insensitive"}
ROLE_TIPS = {
    Role.IDENTIFIER: "Names one record (e.g. a record number); used to find published records in the source.",
    Role.QUASI_IDENTIFIER: "Could be linked with outside knowledge to single a person out (job, city, gender…).",
    Role.SENSITIVE: "What should not be learnt about a person (disease, medication…); the scores measure it.",
    Role.INSENSITIVE: "Neither: ignored by the scores.",
}
KIND_LABELS = ("categorical", "continuous")
FILTER_HINT = ("Write a condition on the source columns, for example  City == 'Edmonton'  or  "
               "Age >= 30 and Gender == 'Female'.\nUse ==, !=, <, <=, >, >=, and, or, not; put text in "
               "quotes; continuous columns compare as numbers; column names with spaces go in "
               "backticks:  `Initial Diagnosis` == 'Flu'.")
MAX_LISTED = 1000  # unlocated records listed one by one
GUESS_SAMPLE = 50_000  # rows looked at to guess whether a column is continuous


class WarningBox(QFrame):
    """A visible box listing the published records that are not in the source."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("unlocatedBox")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet("#unlocatedBox { background: rgba(255, 190, 60, 60); "
                           "border: 1px solid rgb(200, 130, 0); border-radius: 4px; }")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.list = QListWidget()
        self.list.setMaximumHeight(120)
        layout.addWidget(self.label)
        layout.addWidget(self.list)

    def show_records(self, release_name: str, unlocated: list[str]) -> None:
        self.label.setText(
            f"⚠ {len(unlocated):,} published record(s) of '{release_name}' are not in the source table; "
            "they are left out of the scores. Check the published table or the identifier column:")
        self.list.clear()
        self.list.addItems([str(u) for u in unlocated[:MAX_LISTED]])
        if len(unlocated) > MAX_LISTED:
            self.list.addItem(f"… and {len(unlocated) - MAX_LISTED:,} more")
        self.setVisible(True)

    def items(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]


class ReleaseView(QWidget):
    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self._shown_table = None
        self._loaded_with: tuple | None = None  # (path, options) the shown table was read with
        self._guesses: tuple | None = None  # (table, guess_roles(table))
        self._guessed = False
        self._fallback: dict = {}  # (definition, table id, roles) -> Release or error text
        self._filling = False

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self._build_source())
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self._build_roles())
        right.addWidget(self._build_releases())
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

        workbench.sourceChanged.connect(self._on_source_changed)
        workbench.releasesChanged.connect(self._refresh_releases)
        workbench.scoresChanged.connect(self._refresh_releases)
        workbench.failed.connect(self._on_failed)
        self._on_source_changed()

    # ------------------------------------------------------------------ building

    def _build_source(self) -> QWidget:
        box = QGroupBox("Source table")
        layout = QVBoxLayout(box)
        line = QHBoxLayout()
        self.path_edit = QLineEdit()
        self.path_edit.setReadOnly(True)
        self.path_edit.setPlaceholderText("No source table yet: open a CSV/TSV, Excel or Parquet file")
        self.open_button = QPushButton("Open…")
        self.open_button.setToolTip("Open the source table (CSV/TSV, Excel or Parquet)")
        self.open_button.clicked.connect(self.open_source_dialog)
        line.addWidget(QLabel("File:"))
        line.addWidget(self.path_edit, 1)
        line.addWidget(self.open_button)
        layout.addLayout(line)

        form = QHBoxLayout()
        self.delimiter_combo = QComboBox()
        self.delimiter_combo.setEditable(True)
        self.delimiter_combo.setToolTip("The character between fields; pick one or type another, then Reload")
        for value, label in DELIMITERS.items():
            self.delimiter_combo.addItem(label, value)
        self.encoding_combo = QComboBox()
        self.encoding_combo.setEditable(True)
        self.encoding_combo.addItems(ENCODINGS)
        self.encoding_combo.setToolTip("The text encoding; pick one or type another (e.g. cp1250), then Reload")
        self.sheet_edit = QLineEdit()
        self.sheet_edit.setPlaceholderText("first sheet")
        self.sheet_edit.setToolTip("Excel: the sheet's name or number (0 is the first)")
        self.reload_button = QPushButton("Reload")
        self.reload_button.setToolTip("Load the file again with the delimiter, encoding and sheet shown")
        self.reload_button.clicked.connect(self.reload_source)
        for text, widget in (("Delimiter:", self.delimiter_combo), ("Encoding:", self.encoding_combo),
                             ("Sheet:", self.sheet_edit)):
            form.addWidget(QLabel(text))
            form.addWidget(widget)
        form.addWidget(self.reload_button)
        form.addStretch(1)
        layout.addLayout(form)
        self.detected_label = QLabel()
        self.detected_label.setWordWrap(True)
        layout.addWidget(self.detected_label)

        self.frame_model = FrameModel(parent=self)
        self.table_view = QTableView()
        self.table_view.horizontalHeader().setResizeContentsPrecision(100)  # sample rows: big tables
        self.table_view.setModel(self.frame_model)
        self.table_view.setSortingEnabled(True)
        self.table_view.horizontalHeader().setSortIndicatorShown(False)
        self.table_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table_view.setAlternatingRowColors(True)
        self.table_view.verticalHeader().setDefaultSectionSize(22)
        self.table_view.selectionModel().selectionChanged.connect(self._update_selection_label)
        layout.addWidget(self.table_view, 1)
        self.selection_label = QLabel()
        layout.addWidget(self.selection_label)
        return box

    def _build_roles(self) -> QWidget:
        box = QGroupBox("Roles of the columns")
        layout = QVBoxLayout(box)
        self.roles_table = QTableWidget(0, 4)
        self.roles_table.setHorizontalHeaderLabels(["Column", "Role", "Kind", "Example values"])
        self.roles_table.verticalHeader().hide()
        self.roles_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.roles_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.roles_table.setWordWrap(False)
        header = self.roles_table.horizontalHeader()
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
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
        self.reset_roles_button.clicked.connect(self._fill_roles)
        buttons.addStretch(1)
        buttons.addWidget(self.reset_roles_button)
        buttons.addWidget(self.apply_roles_button)
        layout.addLayout(buttons)
        return box

    def _build_releases(self) -> QWidget:
        box = QGroupBox("Candidate releases (published tables)")
        layout = QVBoxLayout(box)
        self.releases_table = QTableWidget(0, 5)
        self.releases_table.setHorizontalHeaderLabels(["Name", "Defined by", "Records", "Not located",
                                                       "tkl-Score"])
        self.releases_table.verticalHeader().hide()
        self.releases_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.releases_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.releases_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.releases_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.releases_table.itemSelectionChanged.connect(self._on_release_selected)
        layout.addWidget(self.releases_table, 1)

        row1, row2 = QHBoxLayout(), QHBoxLayout()
        self.from_selection_button = QPushButton("From selected rows")
        self.from_selection_button.setToolTip("Publish the rows selected in the source table")
        self.from_selection_button.clicked.connect(self.release_from_selection)
        self.from_file_button = QPushButton("From file…")
        self.from_file_button.setToolTip("Open the published table as a file; its records are found in the source")
        self.from_file_button.clicked.connect(self.release_from_file)
        self.filter_button = QPushButton("Filter…")
        self.filter_button.setToolTip("Publish the source records matching a condition")
        self.filter_button.clicked.connect(self.release_from_filter)
        self.ids_button = QPushButton("By ids…")
        self.ids_button.setToolTip("Publish the source records with the ids you list")
        self.ids_button.clicked.connect(self.release_from_ids)
        for button in (self.from_selection_button, self.from_file_button, self.filter_button, self.ids_button):
            row1.addWidget(button)
        self.rename_button = QPushButton("Rename…")
        self.rename_button.clicked.connect(self.rename_release)
        self.remove_button = QPushButton("Remove")
        self.remove_button.clicked.connect(self.remove_release)
        row2.addStretch(1)
        row2.addWidget(self.rename_button)
        row2.addWidget(self.remove_button)
        layout.addLayout(row1)
        layout.addLayout(row2)

        self.release_info = QLabel()
        self.release_info.setWordWrap(True)
        self.release_info.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.release_info)
        self.unlocated_box = WarningBox()
        self.unlocated_box.hide()
        layout.addWidget(self.unlocated_box)
        return box

    # ------------------------------------------------------------------ errors

    def _guard(self, function, *args) -> bool:
        """Run an action; bad input becomes the main window's dialog (or ``workbench.failed``)."""
        window = self.window()
        guard = getattr(window, "guard", None)
        if window is not self and callable(guard):
            return guard(function, *args)
        try:
            function(*args)
            return True
        except InputError as error:
            self.workbench.failed.emit(str(error))
        except OSError as error:
            self.workbench.failed.emit(f"{error.filename or ''}: {error.strerror or error}")
        return False

    def _on_failed(self, _message: str) -> None:
        self._fill_source_form()  # e.g. a file that failed to load: show its path and settings

    def _fail(self, message: str) -> None:
        self._guard(_raise, message)

    # ------------------------------------------------------------------ source table

    def open_source_dialog(self) -> None:
        start = str(Path(self.workbench.project.source_path).parent) if self.workbench.project.source_path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open the source table", start, TABLE_FILTER)
        if path:
            self.open_source(path)

    def open_source(self, path: str, options: dict | None = None, roles: Roles | None = None) -> bool:
        ok = self._guard(self.workbench.open_source, path, options or {}, roles)
        self._fill_source_form()
        return ok

    def _source_kind(self) -> str | None:
        project = self.workbench.project
        if project.builtin is not None:
            return "builtin"
        if not project.source_path:
            return None
        return table_kind(project.source_path)

    def _fill_source_form(self) -> None:
        project, table = self.workbench.project, self.workbench.table
        kind = self._source_kind()
        options = project.source_options or {}
        if kind == "builtin":
            self.path_edit.setText(f"Built-in example: {table.name if table is not None else project.builtin}")
        else:
            self.path_edit.setText(project.source_path or "")
        loaded = (table is not None and kind not in (None, "builtin")
                  and self._loaded_with == (project.source_path, dict(options)))
        self.delimiter_combo.setEnabled(kind == "text")
        self.encoding_combo.setEnabled(kind == "text")
        self.sheet_edit.setEnabled(kind == "excel")
        self.reload_button.setEnabled(kind in ("text", "excel", "parquet"))
        delimiter = options.get("delimiter") or (table.delimiter if loaded else None)
        encoding = options.get("encoding") or (table.encoding if loaded else None)
        self._set_delimiter(delimiter if kind == "text" else None)
        self.encoding_combo.setCurrentText(encoding if kind == "text" and encoding else "")
        sheet = options.get("sheet")
        self.sheet_edit.setText("" if sheet is None or kind != "excel" else str(sheet))
        if kind == "text" and loaded:
            how = "as given" if options.get("delimiter") or options.get("encoding") else "detected"
            self.detected_label.setText(
                f"Delimiter {_delimiter_name(table.delimiter)} and encoding {table.encoding} ({how}). "
                "If the columns look wrong, choose others and click Reload.")
        elif kind == "text" and self.workbench.runner.current:
            self.detected_label.setText("Loading…")
        elif kind == "text":
            self.detected_label.setText("This file could not be read with these settings (see the message): "
                                        "choose the delimiter and encoding yourself and click Reload.")
        elif kind == "excel":
            self.detected_label.setText("Excel workbook: choose the sheet (name or number) and click Reload.")
        else:
            self.detected_label.setText("")
        if table is None:
            self.selection_label.setText("")
        else:
            self._update_selection_label()

    def _set_delimiter(self, delimiter: str | None) -> None:
        if delimiter is None:
            self.delimiter_combo.setCurrentIndex(-1)
            self.delimiter_combo.setEditText("")
            return
        index = self.delimiter_combo.findData(delimiter)
        if index >= 0:
            self.delimiter_combo.setCurrentIndex(index)
        else:
            self.delimiter_combo.setEditText(delimiter)

    def chosen_delimiter(self) -> str | None:
        text = self.delimiter_combo.currentText()
        if text == "":
            return None
        for value, label in DELIMITERS.items():
            if text == label:
                return value
        if text.strip().lower() in ("tab", "\\t"):
            return "\t"
        if len(text) != 1:
            raise InputError(f"the delimiter must be one character, not '{text}'",
                             hint="choose one from the list or type a single character")
        return text

    def reload_source(self) -> None:
        project, table = self.workbench.project, self.workbench.table
        kind = self._source_kind()
        if kind not in ("text", "excel", "parquet"):
            self._fail("there is no source file to reload; open one first")
            return
        try:
            options = self._form_options(kind)
        except InputError as error:
            self._fail(str(error))
            return
        previous = dict(project.source_options or {})
        if table is not None and self._loaded_with == (project.source_path, previous):
            previous.setdefault("delimiter", table.delimiter)
        same_columns = (options.get("delimiter") == previous.get("delimiter")
                        and options.get("sheet") == previous.get("sheet"))
        # the same file read the same way keeps its roles; a new delimiter or sheet may change the columns
        self.open_source(project.source_path, options, project.roles if same_columns else None)

    def _form_options(self, kind: str) -> dict:
        options: dict = {}
        if kind == "text":
            delimiter = self.chosen_delimiter()
            encoding = self.encoding_combo.currentText().strip()
            if delimiter:
                options["delimiter"] = delimiter
            if encoding:
                options["encoding"] = encoding
        elif kind == "excel":
            sheet = self.sheet_edit.text().strip()
            if sheet:
                options["sheet"] = int(sheet) if sheet.isdigit() else sheet
        return options

    def _on_source_changed(self) -> None:
        table = self.workbench.table
        if table is not self._shown_table:
            self._shown_table = table
            project = self.workbench.project
            self._loaded_with = (project.source_path, dict(project.source_options or {}))
            self.frame_model.set_frame(table.frame if table is not None else pd.DataFrame())
            if table is not None and len(table) <= 50_000:  # a big table keeps default widths
                self.table_view.resizeColumnsToContents()
            self._fallback.clear()
        self._fill_source_form()
        self._fill_roles()
        self._refresh_releases()

    def _update_selection_label(self, *_args) -> None:
        table = self.workbench.table
        if table is None:
            self.selection_label.setText("")
            return
        selected = len(self.table_view.selectionModel().selectedRows())
        text = f"{len(table):,} records, {len(table.columns)} columns"
        if selected:
            text += f" — {selected:,} selected (\"From selected rows\" publishes them)"
        self.selection_label.setText(text)

    def selected_positions(self) -> list[int]:
        """Source row positions of the rows selected in the table view, in source order."""
        rows = {index.row() for index in self.table_view.selectionModel().selectedRows()}
        return sorted(self.frame_model.frame_row(row) for row in rows)

    # ------------------------------------------------------------------ roles

    def _fill_roles(self) -> None:
        table = self.workbench.table
        self._filling = True
        self.roles_table.setRowCount(0)
        if table is None:
            self._filling = False
            self._update_roles_hint()
            return
        roles = self.workbench.project.roles
        named = list(roles.qi) + list(roles.sa) + ([roles.identifier] if roles.identifier else [])
        if named and all(column in table.columns for column in named):
            choices = {c: (roles.role_of(c), roles.is_continuous(c)) for c in table.columns}
            self._guessed = False
        else:
            if self._guesses is None or self._guesses[0] is not table:
                self._guesses = (table, guess_roles(table, sample_rows=GUESS_SAMPLE))
            choices = self._guesses[1]
            self._guessed = True
        self.roles_table.setRowCount(len(table.columns))
        for row, column in enumerate(table.columns):
            role, continuous = choices[column]
            name = QTableWidgetItem(column)
            name.setToolTip(column)
            self.roles_table.setItem(row, 0, name)
            role_combo = QComboBox()
            for value, label in ROLE_LABELS.items():
                role_combo.addItem(label, value)
                role_combo.setItemData(role_combo.count() - 1, ROLE_TIPS[value], Qt.ItemDataRole.ToolTipRole)
            role_combo.setCurrentIndex(role_combo.findData(role))
            kind_combo = QComboBox()
            kind_combo.addItems(KIND_LABELS)
            kind_combo.setToolTip("Continuous: numbers compared by size (e.g. age). Categorical: labels.")
            kind_combo.setCurrentIndex(1 if continuous else 0)
            kind_combo.setEnabled(role == Role.SENSITIVE)
            role_combo.currentIndexChanged.connect(lambda _i, r=row: self._role_edited(r))
            kind_combo.currentIndexChanged.connect(lambda _i: self._update_roles_hint())
            self.roles_table.setCellWidget(row, 1, role_combo)
            self.roles_table.setCellWidget(row, 2, kind_combo)
            examples = pd.unique(table.frame[column].iloc[:1000])[:4]
            shown = ", ".join("(empty)" if v == "" else str(v) for v in examples)
            self.roles_table.setItem(row, 3, QTableWidgetItem(shown))
        self._filling = False
        self._update_roles_hint()

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
        role = self.roles_table.cellWidget(row, 1).currentData()
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
        if self.workbench.table is None:
            self.roles_hint.setText("Open a source table to choose the roles of its columns.")
            self.apply_roles_button.setEnabled(False)
            return
        self.apply_roles_button.setEnabled(True)
        choices = self.form_choices()
        roles = [role for role, _ in choices.values()]
        lines = []
        if self._guessed:
            lines.append("These roles are <b>suggestions</b> from the data: check them, choose the "
                         "quasi-identifiers and sensitive attributes, then click <b>Apply roles</b>.")
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

        return self._guard(apply)

    # ------------------------------------------------------------------ releases

    def _resolved(self, definition: ReleaseDefinition) -> Release | str | None:
        """The resolved release (or why it cannot be resolved); None while it is being scored.

        The Workbench resolves releases while scoring; without scores (no sensitive attribute,
        no weights) ids and filters are resolved here, and files once per table and roles."""
        workbench = self.workbench
        release = workbench.resolved.get(definition)
        if release is not None or workbench.table is None:
            return release
        scoring = bool(workbench.project.roles.sa) and workbench.weights is not None
        if scoring:  # the Workbench resolves it in the background while scoring
            return None
        key = (definition, id(workbench.table), workbench.project.roles)
        if key not in self._fallback:
            try:
                self._fallback[key] = resolve_release(definition, workbench.table, workbench.project.roles)
            except InputError as error:
                self._fallback[key] = str(error)
        return self._fallback[key]

    def _refresh_releases(self) -> None:
        workbench = self.workbench
        project = workbench.project
        table = self.releases_table
        table.blockSignals(True)
        table.setRowCount(len(project.releases))
        current_row = -1
        for row, definition in enumerate(project.releases):
            resolved = self._resolved(definition)
            report = workbench.reports.get(definition.name)
            if isinstance(resolved, Release):
                records, unlocated = f"{len(resolved):,}", f"{len(resolved.unlocated):,}"
            elif isinstance(resolved, str):
                records, unlocated = "error", ""
            else:
                records, unlocated = "…", "…"
            score = f"{report.scores.tkl:.5f}" if report is not None else ""
            cells = [definition.name, _describe(definition), records, unlocated, score]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 1:
                    item.setToolTip(text)
                if column == 3 and isinstance(resolved, Release) and resolved.unlocated:
                    item.setForeground(Qt.GlobalColor.darkRed)
                if isinstance(resolved, str):
                    item.setToolTip(resolved)
                table.setItem(row, column, item)
            if definition.name == project.current_release:
                current_row = row
        table.clearSelection()
        if current_row >= 0:
            table.selectRow(current_row)
        table.blockSignals(False)
        has_current = current_row >= 0
        self.rename_button.setEnabled(has_current)
        self.remove_button.setEnabled(has_current)
        has_table = workbench.table is not None
        for button in (self.from_selection_button, self.from_file_button, self.filter_button, self.ids_button):
            button.setEnabled(has_table)
        self._show_current()

    def _show_current(self) -> None:
        workbench = self.workbench
        name = workbench.project.current_release
        self.unlocated_box.hide()
        if not workbench.project.releases:
            self.release_info.setText("No release yet: select rows in the source table, open a published "
                                      "file, or write a filter.")
            return
        if not name:
            self.release_info.setText("Choose a release in the list.")
            return
        try:
            definition = workbench.project.release(name)
        except InputError as error:
            self.release_info.setText(_html(str(error)))
            return
        resolved = self._resolved(definition)
        source_rows = len(workbench.table) if workbench.table is not None else 0
        text = f"<b>{_html(name)}</b>: "
        if isinstance(resolved, Release):
            text += f"{len(resolved):,} of {source_rows:,} source records are published."
            if resolved.unlocated:
                self.unlocated_box.show_records(name, resolved.unlocated)
        elif isinstance(resolved, str):
            text += f"<span style='color:#b00'>cannot be resolved: {_html(resolved)}</span>"
        else:
            text += "being resolved…"
        report = workbench.reports.get(name)
        if report is not None:
            text += f" tkl-Score {report.scores.tkl:.5f}."
        elif workbench.table is not None and not workbench.project.roles.sa:
            text += " No scores yet: choose the roles (with a sensitive attribute) and click Apply roles."
        elif workbench.weights is None and workbench.weights_problem:
            text += f" No scores: {_html(workbench.weights_problem)}."
        self.release_info.setText(text)

    def _on_release_selected(self) -> None:
        rows = {index.row() for index in self.releases_table.selectedIndexes()}
        if len(rows) != 1:
            return
        name = self.releases_table.item(rows.pop(), 0).text()
        if name != self.workbench.project.current_release:
            self._guard(self.workbench.set_current_release, name)

    def selected_release(self) -> str | None:
        return self.workbench.project.current_release

    def _unique_name(self, base: str) -> str:
        names = set(self.workbench.release_names())
        base = base.strip() or "Release"
        if base not in names:
            return base
        number = 2
        while f"{base} ({number})" in names:
            number += 1
        return f"{base} ({number})"

    def _ask_name(self, default: str) -> str | None:
        name, ok = QInputDialog.getText(self, "Name the release", "A name for this candidate release:",
                                        QLineEdit.EchoMode.Normal, self._unique_name(default))
        name = name.strip() if ok else ""
        return name or None

    def _add(self, definition_args: dict, default_name: str) -> bool:
        name = self._ask_name(default_name)
        if name is None:
            return False

        def add() -> None:
            self.workbench.add_release(ReleaseDefinition(name=name, **definition_args))

        return self._guard(add)

    def _need_table(self) -> bool:
        if self.workbench.table is None:
            self._fail("open a source table first")
            return False
        return True

    def release_from_selection(self) -> bool:
        if not self._need_table():
            return False
        positions = self.selected_positions()
        if not positions:
            self._fail("no rows are selected: click rows of the source table (Shift- or Ctrl-click for more), "
                       "then \"From selected rows\"")
            return False
        identifier = self.workbench.project.roles.identifier
        frame = self.workbench.table.frame
        ids = (frame[identifier].iloc[positions].tolist() if identifier else [str(p) for p in positions])
        number = 1
        while f"Selection {number}" in self.workbench.release_names():
            number += 1
        return self._add({"kind": "ids", "ids": tuple(ids)}, f"Selection {number}")

    def release_from_file(self) -> bool:
        if not self._need_table():
            return False
        source = self.workbench.project.source_path
        start = str(Path(source).parent) if source else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open the published table", start, TABLE_FILTER)
        if not path:
            return False
        options = self.published_file_options(path)
        if options is None:
            return False
        return self._add({"kind": "file", "path": path, "options": options}, Path(path).stem)

    def published_file_options(self, path: str) -> dict | None:
        """Show how a published CSV/TSV file will be read (detected delimiter and encoding,
        with a preview) and let the user override them; None when cancelled."""
        if not is_text_table(path):
            return {}
        try:
            delimiter, encoding = sniff_text_file(path)
        except OSError as error:
            self._fail(f"{path}: {error.strerror or error}")
            return None
        dialog = PublishedFileDialog(path, delimiter, encoding, self)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.options()

    def release_from_filter(self) -> bool:
        if not self._need_table():
            return False
        columns = ", ".join(_quote_column(c) for c in self.workbench.table.columns)
        expression, ok = QInputDialog.getMultiLineText(
            self, "Release by a filter", f"{FILTER_HINT}\n\nColumns: {columns}\n\nCondition:")
        expression = " ".join(expression.split()) if ok else ""
        if not expression:
            return False
        default = expression if len(expression) <= 40 else expression[:39] + "…"
        return self._add({"kind": "filter", "expression": expression}, default)

    def release_from_ids(self) -> bool:
        if not self._need_table():
            return False
        identifier = self.workbench.project.roles.identifier
        what = (f"values of the identifier column '{identifier}'" if identifier
                else "row numbers counted from 0 (there is no identifier column)")
        text, ok = QInputDialog.getMultiLineText(
            self, "Release by ids", f"The ids of the published records ({what}),\n"
                                    "separated by commas or on separate lines:")
        if not ok:
            return False
        ids = [part.strip() for part in re.split(r"[,\n;]+", text) if part.strip()]
        if not ids:
            self._fail("no ids were given")
            return False
        number = 1
        while f"Ids {number}" in self.workbench.release_names():
            number += 1
        return self._add({"kind": "ids", "ids": tuple(ids)}, f"Ids {number}")

    def rename_release(self) -> bool:
        old = self.selected_release()
        if not old:
            self._fail("choose the release to rename in the list first")
            return False
        new, ok = QInputDialog.getText(self, "Rename the release", f"New name for '{old}':",
                                       QLineEdit.EchoMode.Normal, old)
        new = new.strip() if ok else ""
        if not new or new == old:
            return False

        def rename() -> None:
            if new in self.workbench.release_names():
                raise InputError(f"there is already a release named '{new}'")
            definition = self.workbench.project.release(old)
            self.workbench.replace_release(old, dataclasses.replace(definition, name=new))

        return self._guard(rename)

    def remove_release(self) -> bool:
        name = self.selected_release()
        if not name:
            self._fail("choose the release to remove in the list first")
            return False
        answer = QMessageBox.question(self, "Remove the release", f"Remove the candidate release '{name}'?",
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        if answer != QMessageBox.StandardButton.Yes:
            return False
        return self._guard(self.workbench.remove_release, name)


def _raise(message: str) -> None:
    raise InputError(message)


def _delimiter_name(delimiter: str | None) -> str:
    if delimiter is None:
        return "(none)"
    return {"\t": "Tab"}.get(delimiter, f"'{delimiter}'")


def _quote_column(column: str) -> str:
    return column if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", column) else f"`{column}`"


def _describe(definition: ReleaseDefinition) -> str:
    if definition.kind == "ids":
        shown = ", ".join(definition.ids[:12]) + (", …" if len(definition.ids) > 12 else "")
        return f"ids: {shown}"
    if definition.kind == "file":
        name = Path(definition.path).name if definition.path else "?"
        options = definition.options or {}
        read_as = ", ".join(filter(None, [DELIMITERS.get(options.get("delimiter"), ""), options.get("encoding")]))
        return f"file: {name}" + (f" ({read_as})" if read_as else "")
    return f"filter: {definition.expression}"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class PublishedFileDialog(QDialog):
    """How a published CSV/TSV file will be read: the detected delimiter and encoding,
    overridable, with a preview of its first rows."""

    PREVIEW_ROWS = 20

    def __init__(self, path: str, delimiter: str, encoding: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Read the published table")
        self.path = path
        self.detected = (delimiter, encoding)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"<b>{_html(Path(path).name)}</b> — detected: delimiter "
                                f"{DELIMITERS.get(delimiter, repr(delimiter))}, encoding {encoding}. "
                                "Change them if the preview looks wrong."))
        form = QHBoxLayout()
        form.addWidget(QLabel("Delimiter:"))
        self.delimiter_combo = QComboBox()
        for value, label in DELIMITERS.items():
            self.delimiter_combo.addItem(label, value)
        self.delimiter_combo.setCurrentIndex(max(0, self.delimiter_combo.findData(delimiter)))
        form.addWidget(self.delimiter_combo)
        form.addWidget(QLabel("Encoding:"))
        self.encoding_combo = QComboBox()
        self.encoding_combo.setEditable(True)
        self.encoding_combo.addItems(ENCODINGS if encoding in ENCODINGS else ENCODINGS + [encoding])
        self.encoding_combo.setCurrentText(encoding)
        form.addWidget(self.encoding_combo)
        form.addStretch(1)
        layout.addLayout(form)
        self.preview_model = FrameModel()
        self.preview = QTableView()
        self.preview.setModel(self.preview_model)
        layout.addWidget(self.preview)
        self.problem = QLabel("")
        self.problem.setStyleSheet("color: #b00020;")
        self.problem.setWordWrap(True)
        layout.addWidget(self.problem)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.delimiter_combo.currentIndexChanged.connect(self.refresh)
        self.encoding_combo.currentTextChanged.connect(self.refresh)
        self.resize(760, 420)
        self.refresh()

    def options(self) -> dict:
        """The settings chosen (only those that differ from the detected ones)."""
        chosen = {"delimiter": self.delimiter_combo.currentData(), "encoding": self.encoding_combo.currentText()}
        detected = dict(zip(("delimiter", "encoding"), self.detected))
        return {k: v for k, v in chosen.items() if v and v != detected[k]}

    def refresh(self) -> None:
        try:
            frame = pd.read_csv(self.path, sep=self.delimiter_combo.currentData(),
                                encoding=self.encoding_combo.currentText(), dtype=str, keep_default_na=False,
                                nrows=self.PREVIEW_ROWS)
        except (UnicodeDecodeError, LookupError, pd.errors.ParserError, ValueError, OSError) as error:
            self.preview_model.set_frame(pd.DataFrame())
            self.problem.setText(f"Cannot be read this way: {error}")
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return
        self.preview_model.set_frame(frame)
        self.preview.resizeColumnsToContents()
        self.problem.setText("")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)
