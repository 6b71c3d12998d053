"""The Release view's releases panel: the named candidate releases side by side (records,
records not located, tkl-Score), defined from the selected rows, a published file, a filter
expression or a list of ids; the current release's records that cannot be located in the
source are listed in a warning box, never dropped silently."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QFileDialog, QFrame, QGroupBox, QHBoxLayout, QHeaderView,
                               QInputDialog, QLabel, QLineEdit, QListWidget, QMessageBox, QPushButton, QTableView,
                               QVBoxLayout)

from tklscore.core.errors import InputError
from tklscore.core.numbers import count
from tklscore.core.numbers import score as tkl_text
from tklscore.core.release.filters import FilterError
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.source import OpenedRelease
from tklscore.core.tables.loading import is_text_table, sniff_text_file
from tklscore.core.tables.published import Release
from tklscore.gui.release.formats import DELIMITERS, TABLE_FILTER
from tklscore.gui.release.published_file_dialog import PublishedFileDialog, html_text as _html
from tklscore.gui.release.source_panel import SourcePanel

FILTER_HINT = ("Write a condition on the source columns, for example  City == 'Edmonton'  or  "
               "Age >= 30 and Gender == 'Female'.\n"
               "Compare with ==, !=, <, <=, >, >= or in ['a', 'b']; join with and, or, not and parentheses.\n"
               "Put text in quotes; a column whose values are all numbers compares with numbers (Age >= 30).\n"
               "Column names with spaces go in backticks:  `Initial Diagnosis` == 'Flu'.\n"
               "A filter is read, never run: anything else (calls, attributes, @ names, arithmetic) is refused.")
MAX_LISTED = 1000  # unlocated records listed one by one


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


class ReleasesModel(QAbstractTableModel):
    """The candidate releases as rows (name, definition, records, records not located,
    tkl-Score), read from the workbench when a row is drawn: refreshing is one reset, so a
    project with thousands of releases opens as fast as one with a few."""

    HEADERS = ("Name", "Defined by", "Records", "Not located", "tkl-Score")

    def __init__(self, panel: "ReleasesPanel"):
        super().__init__(panel)
        self.panel = panel

    def refresh(self) -> None:
        self.beginResetModel()
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.panel.workbench.project.releases)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        releases = self.panel.workbench.project.releases
        if not index.isValid() or index.row() >= len(releases):
            return None
        column = index.column()
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter) if column >= 2 else None
        if role not in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.ForegroundRole):
            return None
        definition = releases[index.row()]
        if role == Qt.ItemDataRole.DisplayRole and column < 2:
            return definition.name if column == 0 else _describe(definition)
        resolved = self.panel._resolved(definition)
        located = isinstance(resolved, (Release, OpenedRelease))
        if role == Qt.ItemDataRole.ForegroundRole:
            return QColor(Qt.GlobalColor.darkRed) if column == 3 and located and resolved.unlocated else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return resolved if isinstance(resolved, str) else (
                definition.name if column == 0 else _describe(definition) if column == 1 else None)
        if column == 4:
            report = self.panel.workbench.reports.get(definition.name)
            return tkl_text(report.scores.tkl) if report is not None else ""
        if located:
            return count(len(resolved)) if column == 2 else count(len(resolved.unlocated))
        if isinstance(resolved, str):
            return ("refused" if self.panel._refused_filter(definition) else "error") if column == 2 else ""
        return "…"


class ReleasesPanel(QGroupBox):
    def __init__(self, workbench, guard, source: SourcePanel, parent=None):
        super().__init__("Candidate releases (published tables)", parent)
        self.workbench = workbench
        self.guard = guard
        self.source = source
        self._fallback: dict = {}  # (definition, source id) -> the release located, or the error text
        self._refused: set = set()  # keys of _fallback whose error is a refused filter
        layout = QVBoxLayout(self)
        self.releases_model = ReleasesModel(self)
        self.releases_table = QTableView()
        self.releases_table.setModel(self.releases_model)
        self.releases_table.verticalHeader().hide()
        self.releases_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.releases_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.releases_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.releases_table.horizontalHeader()
        header.setResizeContentsPrecision(0)  # columns fit the rows on screen, not every release
        # the counts and the score whole; the name and the definition share the rest, elided with a tooltip
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.releases_table.setWordWrap(False)
        self.releases_table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.releases_table.selectionModel().selectionChanged.connect(self._on_release_selected)
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

    def _resolved(self, definition: ReleaseDefinition) -> Release | OpenedRelease | str | None:
        """The release's records (how many, and those not located), or why it cannot be
        located; None while it is being scored.

        Scoring locates every release (its report counts them); without scores (no sensitive
        attribute, no weights) a release is located here when the source does that at once
        (loaded in memory), once per source and definition."""
        workbench = self.workbench
        if definition.name in workbench.release_errors:
            return workbench.release_errors[definition.name]
        located = workbench.resolved.get(definition)
        if located is not None:
            return located
        report = workbench.reports.get(definition.name)
        if report is not None:
            return OpenedRelease(definition, definition.name, report.published_rows, list(report.unlocated))
        source = workbench.source
        if source is None or (workbench.weights is not None and source.can_score()):
            return None   # scored (and located) in the background
        key = (definition, id(source))
        if key not in self._fallback:
            try:
                self._fallback[key] = source.located(definition)
            except InputError as error:
                self._fallback[key] = str(error)
                if isinstance(error, FilterError):
                    self._refused.add(key)
        return self._fallback[key]

    def _refused_filter(self, definition: ReleaseDefinition) -> bool:
        """Whether a release's error is its filter's refusal (core.release.filters), not its source's."""
        workbench = self.workbench
        return definition.name in workbench.refused_releases or (definition, id(workbench.source)) in self._refused

    def refresh(self) -> None:
        workbench = self.workbench
        table = self.releases_table
        selection = table.selectionModel()
        selection.blockSignals(True)
        self.releases_model.refresh()
        names = [r.name for r in workbench.project.releases]
        current = workbench.project.current_release
        current_row = names.index(current) if current in names else -1
        table.clearSelection()
        if current_row >= 0:
            table.selectRow(current_row)
        selection.blockSignals(False)
        has_current = current_row >= 0
        self.rename_button.setEnabled(has_current)
        self.remove_button.setEnabled(has_current)
        has_table = workbench.has_source
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
        if name in workbench.project.designed_names():   # saved from the Design view: transformed rows
            report = workbench.reports.get(name)
            scored = (f" {report.published_rows:,} of {report.source_rows:,} source records are published, "
                      f"transformed; tkl-Score {tkl_text(report.scores.tkl)}.") if report is not None else ""
            self.release_info.setText(f"<b>{_html(name)}</b>: a release designed in the Design view (open it there "
                                      f"to change it).{scored}")
            return
        try:
            definition = workbench.project.release(name)
        except InputError as error:
            self.release_info.setText(_html(str(error)))
            return
        resolved = self._resolved(definition)
        source_rows = workbench.source_rows()
        text = f"<b>{_html(name)}</b>: "
        if isinstance(resolved, (Release, OpenedRelease)):
            text += f"{len(resolved):,} of {source_rows:,} source records are published."
            if resolved.unlocated:
                self.unlocated_box.show_records(name, resolved.unlocated)
        elif isinstance(resolved, str):
            what = "filter refused, not scored" if self._refused_filter(definition) else "cannot be resolved"
            text += f"<span style='color:#b00'>{what}: {_html(resolved)}</span>"
        else:
            text += ("its records are counted by the engine as it is scored." if workbench.out_of_core
                     else "being resolved…")
        report = workbench.reports.get(name)
        if report is not None:
            text += f" tkl-Score {tkl_text(report.scores.tkl)}."
        elif workbench.has_source and not workbench.project.roles.sa:
            text += " No scores yet: choose the roles (with a sensitive attribute) and click Apply roles."
        elif workbench.source is not None and not workbench.source.can_score():
            text += (" No scores yet: out of core the engine needs at least one quasi-identifier; choose one and "
                     "click Apply roles.")
        elif workbench.weights is None and workbench.weights_problem:
            text += f" No scores: {_html(workbench.weights_problem)}."
        self.release_info.setText(text)

    def _on_release_selected(self, *_args) -> None:
        rows = {index.row() for index in self.releases_table.selectionModel().selectedIndexes()}
        if len(rows) != 1:
            return
        name = self.releases_model.index(rows.pop(), 0).data()
        if name != self.workbench.project.current_release:
            self.guard(self.workbench.set_current_release, name)

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

        return self.guard(add)

    def _need_table(self) -> bool:
        if not self.workbench.has_source:
            self._fail("open a source table first")
            return False
        return True

    def release_from_selection(self) -> bool:
        if not self._need_table():
            return False
        positions = self.source.selected_positions()
        if not positions:
            self._fail("no rows are selected: click rows of the source table (Shift- or Ctrl-click for more), "
                       "then \"From selected rows\"")
            return False
        identifier = self.workbench.project.roles.identifier
        frame = self.source.frame_model.frame  # out of core: the first rows, at the same positions
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
        columns = ", ".join(_quote_column(c) for c in self.workbench.source_columns())
        expression, name = "", None
        while True:  # a refused filter is said, then offered again as written
            expression, ok = QInputDialog.getMultiLineText(
                self, "Release by a filter", f"{FILTER_HINT}\n\nColumns: {columns}\n\nCondition:", expression)
            expression = " ".join(expression.split()) if ok else ""
            if not expression:
                return False
            name = self._ask_name(name or (expression if len(expression) <= 40 else expression[:39] + "…"))
            if name is None:
                return False
            definition = ReleaseDefinition(name=name, kind="filter", expression=expression)
            if self.guard(self.workbench.add_release, definition):
                return True

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

        return self.guard(rename)

    def remove_release(self) -> bool:
        name = self.selected_release()
        if not name:
            self._fail("choose the release to remove in the list first")
            return False
        answer = QMessageBox.question(self, "Remove the release", f"Remove the candidate release '{name}'?",
                                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        if answer != QMessageBox.StandardButton.Yes:
            return False
        return self.guard(self.workbench.remove_release, name)


    def _fail(self, message: str) -> None:
        self.guard(_raise, message)


def _raise(message: str) -> None:
    raise InputError(message)


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
