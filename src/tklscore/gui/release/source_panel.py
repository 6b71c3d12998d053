"""The Release view's source panel: the source file (path, the delimiter and encoding that
were detected or given, an Excel sheet, whether the spaces around values are kept, "Reload"
with overrides), where spaces were removed, and the table itself (a FrameModel over the
frame, sortable, rows selectable for "From selected rows")."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QFileDialog, QGroupBox, QHBoxLayout, QLabel,
                               QLineEdit, QMessageBox, QPushButton, QTableView, QVBoxLayout)

from tklscore.core.errors import InputError
from tklscore.core.tables.roles import Roles
from tklscore.gui.frame_model import FrameModel
from tklscore.core.tables.loading import table_kind
from tklscore.core.tables.spaces import split_delimiter
from tklscore.gui.release.formats import DELIMITERS, ENCODINGS, TABLE_FILTER


class SourcePanel(QGroupBox):
    def __init__(self, workbench, guard, parent=None):
        super().__init__("Source table", parent)
        self.workbench = workbench
        self.guard = guard
        self._shown_table = None
        self._loaded_with: tuple | None = None  # (path, options) the shown table was read with
        layout = QVBoxLayout(self)
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
        self.keep_spaces_check = QCheckBox("Keep spaces around values")
        self.keep_spaces_check.setToolTip(
            "By default the spaces around each value of a CSV/TSV file are removed ('a, b' reads as 'a' and 'b'), "
            "as a person reads the file. Tick to keep them, for files where they matter; the table then shows "
            "them as ␣, and a hierarchy rule or a weight names such a value in quotes (\" Female\").")
        self.keep_spaces_check.toggled.connect(self._keep_spaces_toggled)
        self.reload_button = QPushButton("Reload")
        self.reload_button.setToolTip("Load the file again with the delimiter, encoding and sheet shown")
        self.reload_button.clicked.connect(self.reload_source)
        for text, widget in (("Delimiter:", self.delimiter_combo), ("Encoding:", self.encoding_combo),
                             ("Sheet:", self.sheet_edit)):
            form.addWidget(QLabel(text))
            form.addWidget(widget)
        form.addWidget(self.keep_spaces_check)
        form.addWidget(self.reload_button)
        form.addStretch(1)
        layout.addLayout(form)
        self.detected_label = QLabel()
        self.detected_label.setWordWrap(True)
        layout.addWidget(self.detected_label)
        self.engine_banner = QLabel()  # why the source is not loaded, and what is shown of it
        self.engine_banner.setObjectName("outOfCore")
        self.engine_banner.setWordWrap(True)
        self.engine_banner.setStyleSheet("#outOfCore { background: rgba(70, 130, 220, 40); "
                                             "border: 1px solid rgb(70, 110, 190); border-radius: 4px; padding: 4px; }")
        self.engine_banner.hide()
        layout.addWidget(self.engine_banner)

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

    def open_source_dialog(self) -> None:
        start = str(Path(self.workbench.project.source_path).parent) if self.workbench.project.source_path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open the source table", start, TABLE_FILTER)
        if path:
            self.open_source(path)

    def open_source(self, path: str, options: dict | None = None, roles: Roles | None = None) -> bool:
        """Open a source; another table than the project's, while the project holds work
        (releases, a model), asks first: a new project, or keep what still applies."""
        change = None

        def check() -> None:
            nonlocal change
            change = self.workbench.source_change(path, options or {})

        if not self.guard(check):
            return False
        if change.holds_work:
            answer = self.ask_source_change(change)
            if answer is None:
                return False
            ok = self.guard(self.workbench.open_other_source, path, options or {}, change, answer == "keep")
        else:
            ok = self.guard(self.workbench.open_source, path, options or {}, roles)
        self._fill_source_form()
        return ok

    def ask_source_change(self, change) -> str | None:
        """"new", "keep" or None (cancel): the user's answer to :meth:`SourceChange.question`."""
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Another table")
        box.setText(f"Open {change.new_name} in a new project, or keep this project's work?")
        box.setInformativeText(change.question())
        new = box.addButton("Start a new project", QMessageBox.ButtonRole.AcceptRole)
        keep = box.addButton("Keep what still applies", QMessageBox.ButtonRole.ActionRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(new)
        box.exec()
        clicked = box.clickedButton()
        return "new" if clicked is new else "keep" if clicked is keep else None

    def _source_kind(self) -> str | None:
        project = self.workbench.project
        if project.builtin is not None:
            return "builtin"
        if not project.source_path:
            return None
        return table_kind(project.source_path)

    def _fill_source_form(self) -> None:
        project, table = self.workbench.project, self.workbench.table
        table = table if table is not None else self.workbench.source_summary  # both know delimiter/encoding
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
        self.keep_spaces_check.setEnabled(kind == "text")
        self.keep_spaces_check.blockSignals(True)
        self.keep_spaces_check.setChecked(bool(options.get("keep_spaces")))
        self.keep_spaces_check.blockSignals(False)
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
            notes = " ".join(f"Note: {note.split(': ', 1)[-1]}." for note in getattr(table, "notes", []))
            self.detected_label.setText(
                f"Delimiter {_delimiter_name(table.delimiter)} and encoding {table.encoding} ({how}). "
                "If the columns look wrong, choose others and click Reload." + _spaces_note(table, options)
                + (f" {notes}" if notes else ""))
        elif kind == "text" and self.workbench.runner.current:
            self.detected_label.setText("Loading…")
        elif kind == "text":
            self.detected_label.setText("This file could not be read with these settings (see the message): "
                                        "choose the delimiter and encoding yourself and click Reload.")
        elif kind == "excel":
            self.detected_label.setText("Excel workbook: choose the sheet (name or number) and click Reload.")
        else:
            self.detected_label.setText("")
        self._show_engine_banner()
        if table is None:
            self.selection_label.setText("")
        else:
            self._update_selection_label()

    def _show_engine_banner(self) -> None:
        workbench = self.workbench
        if not workbench.out_of_core:
            self.engine_banner.hide()
            return
        summary = workbench.source_summary
        if summary is None:
            shown = "Reading its columns and first rows…" if workbench.runner.current else ""
        else:
            shown = (f"<b>Showing the first {summary.preview_rows:,} of {summary.rows:,} records</b> "
                     f"({len(summary.columns)} columns); the scores use every record.")
        self.engine_banner.setText(f"Not loaded — it would take {workbench.engine_choice.reason()} — "
                                       f"so DuckDB reads it out of core.<br>{shown}")
        self.engine_banner.show()

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
        if split_delimiter(text)[1]:  # ", ": the delimiter, the spaces after it removed (the default)
            return text[0]
        if len(text) != 1:
            raise InputError(f"the delimiter must be one character, not '{text}'",
                             hint="choose one from the list or type a single character")
        return text

    def reload_source(self) -> None:
        project, table = self.workbench.project, self.workbench.table
        table = table if table is not None else self.workbench.source_summary
        kind = self._source_kind()
        if kind not in ("text", "excel", "parquet"):
            self.guard(_raise, "there is no source file to reload; open one first")
            return
        try:
            options = self._form_options(kind)
        except InputError as error:
            self.guard(_raise, str(error))
            return
        previous = dict(project.source_options or {})
        if table is not None and self._loaded_with == (project.source_path, previous):
            previous.setdefault("delimiter", table.delimiter)
        same_columns = (options.get("delimiter") == previous.get("delimiter")
                        and options.get("sheet") == previous.get("sheet"))
        # the same file read the same way keeps its roles; a new delimiter or sheet may change the columns
        self.open_source(project.source_path, options, project.roles if same_columns else None)

    def _keep_spaces_toggled(self, _checked: bool) -> None:
        """Read the file again with the spaces around values kept or removed (same columns, same roles)."""
        if self._source_kind() == "text":
            self.reload_source()

    def _form_options(self, kind: str) -> dict:
        options: dict = {}
        if kind == "text":
            delimiter = self.chosen_delimiter()
            encoding = self.encoding_combo.currentText().strip()
            if delimiter:
                options["delimiter"] = delimiter
            if encoding:
                options["encoding"] = encoding
            if self.keep_spaces_check.isChecked():
                options["keep_spaces"] = True
        elif kind == "excel":
            sheet = self.sheet_edit.text().strip()
            if sheet:
                options["sheet"] = int(sheet) if sheet.isdigit() else sheet
        return options

    def show_table(self) -> bool:
        """Show the workbench's table (out of core: the first rows of the source) and fill
        the form; True when the table is a new one."""
        table = self.workbench.table
        shown = table if table is not None else self.workbench.source_summary
        new = shown is not self._shown_table
        if new:
            self._shown_table = shown
            project = self.workbench.project
            self._loaded_with = (project.source_path, dict(project.source_options or {}))
            frame = (table.frame if table is not None else shown.preview if shown is not None else pd.DataFrame())
            self.frame_model.set_frame(frame)
            if shown is not None and len(frame) <= 50_000:  # a big table keeps default widths
                self.table_view.resizeColumnsToContents()
        self._fill_source_form()
        return new

    def _update_selection_label(self, *_args) -> None:
        workbench = self.workbench
        if not workbench.has_source:
            self.selection_label.setText("")
            return
        selected = len(self.table_view.selectionModel().selectedRows())
        text = f"{workbench.source_rows():,} records, {len(workbench.source_columns())} columns"
        if workbench.table is None:
            text += f" (the first {self.frame_model.rowCount():,} shown)"
        if selected:
            text += f" — {selected:,} selected (\"From selected rows\" publishes them)"
        self.selection_label.setText(text)

    def selected_positions(self) -> list[int]:
        """Source row positions of the rows selected in the table view, in source order."""
        rows = {index.row() for index in self.table_view.selectionModel().selectedRows()}
        return sorted(self.frame_model.frame_row(row) for row in rows)


def _raise(message: str) -> None:
    raise InputError(message)


def _spaces_note(table, options: dict) -> str:
    """Where the spaces around values were removed, or that they are kept."""
    stripped = getattr(table, "spaces_stripped", None)
    if options.get("keep_spaces"):
        return "<br>Spaces around values are <b>kept</b> as written (shown as ␣)."
    if stripped:
        return (f"<br><b>{stripped.message('')[0].upper()}{stripped.message('')[1:]}</b>, so that "
                f"a value reads as it looks (tick “Keep spaces around values” to keep them).")
    return ""


def _delimiter_name(delimiter: str | None) -> str:
    if delimiter is None:
        return "(none)"
    return {"\t": "Tab"}.get(delimiter, f"'{delimiter}'")
