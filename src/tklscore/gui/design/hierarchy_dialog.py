"""The hierarchy builder (issue 11 §1): intervals (widths or cut points, one level per
line), value groups (the prototype's ``a,b->General`` rules, levels separated by a line
``---``), masking, dates, or an ARX CSV; a preview of each level's groups and sizes, and
the validation message naming the value or level at fault."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from tklscore.core.errors import InputError
from tklscore.core.release.hierarchy import Hierarchy, load_arx_csv, rule_line, rules_text
from tklscore.core.tables.spaces import visible_spaces

KIND_NAMES = {"intervals": "Intervals (numbers)", "groups": "Value groups (a,b->General)",
              "masking": "Masking (keep a prefix)", "dates": "Dates (month, year)", "table": "ARX CSV table"}
HELP = {
    "intervals": "One level per line: a width (10 gives [50, 60) for 54) or cut points (0, 18, 65).",
    "groups": "One rule per line, a,b->General; separate levels with a line ---. Values without a rule "
              "are an error unless kept as they are.",
    "masking": "Level h replaces the last h characters with *.",
    "dates": "YYYY-MM-DD values: day → month → year → *.",
    "table": "Load an ARX hierarchy CSV (value;level 1;…;*).",
}


def parse_intervals(text: str) -> list:
    levels = []
    for number, line in enumerate((l for l in text.splitlines() if l.strip()), start=1):
        parts = [p.strip() for p in line.replace(";", ",").split(",") if p.strip()]
        try:
            numbers = [float(p) for p in parts]
        except ValueError:
            raise InputError(f"interval level {number} '{line.strip()}' is not a width or a list of cut points") \
                from None
        levels.append(numbers[0] if len(numbers) == 1 else tuple(numbers))
    return levels


class HierarchyDialog(QDialog):
    def __init__(self, column: str, values: pd.Series | None, hierarchy: Hierarchy | None = None, parent=None,
                 counts: pd.Series | None = None):
        """``values``: the column's cells; or ``counts``: its distinct values (the index) with
        how many records hold each (a source read out of core)."""
        super().__init__(parent)
        self.setWindowTitle(f"Hierarchy of '{column}'")
        self.column = column
        counts = values.value_counts(sort=False) if counts is None else counts
        self.values = np.asarray(counts.index, dtype=object)
        self.counts = counts.to_numpy()
        self.hierarchy: Hierarchy | None = hierarchy
        self._table_rows = hierarchy.spec["rows"] if hierarchy is not None and hierarchy.kind == "table" else None
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.kind = QComboBox()
        for key, name in KIND_NAMES.items():
            self.kind.addItem(name, key)
        top.addWidget(QLabel("Kind:"))
        top.addWidget(self.kind, 1)
        self.load_button = QPushButton("Load ARX CSV…")
        self.load_button.clicked.connect(self._load_csv)
        top.addWidget(self.load_button)
        layout.addLayout(top)
        self.help = QLabel()
        self.help.setWordWrap(True)
        layout.addWidget(self.help)
        self.text = QPlainTextEdit()
        self.text.setMaximumHeight(120)
        layout.addWidget(self.text)
        # value groups by selection: pick values, name the group, and the rule is written
        self.value_list = QListWidget()
        self.value_list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.value_list.setMaximumHeight(110)
        for value in self.values[:5000]:  # shown with visible spaces, matched as written
            item = QListWidgetItem(visible_spaces(str(value)))
            item.setData(Qt.ItemDataRole.UserRole, str(value))
            self.value_list.addItem(item)
        grouping = QHBoxLayout()
        grouping.addWidget(self.value_list, 1)
        self.group_name = QLineEdit()
        self.group_name.setPlaceholderText("name of the group")
        self.group_button = QPushButton("Group the selected values")
        self.group_button.clicked.connect(lambda: self.group_selected())
        named = QVBoxLayout()
        named.addWidget(self.group_name)
        named.addWidget(self.group_button)
        named.addStretch(1)
        grouping.addLayout(named)
        layout.addLayout(grouping)
        self.keep_others = QCheckBox("Values without a rule stay as they are")
        layout.addWidget(self.keep_others)
        self.message = QLabel()
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.preview = QTableWidget(0, 3)
        self.preview.setHorizontalHeaderLabels(["level", "group", "rows"])
        self.preview.verticalHeader().setVisible(False)
        layout.addWidget(self.preview, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        numeric = pd.to_numeric(pd.Series(self.values, dtype=object), errors="coerce").notna().all()
        self._set_from(hierarchy, "intervals" if numeric else "groups")
        self.kind.currentIndexChanged.connect(self._refresh)
        self.text.textChanged.connect(self._refresh)
        self.keep_others.toggled.connect(self._refresh)
        self._refresh()
        self.resize(560, 520)

    def _set_from(self, hierarchy: Hierarchy | None, default_kind: str) -> None:
        kind = hierarchy.kind if hierarchy is not None else default_kind
        self.kind.setCurrentIndex(list(KIND_NAMES).index(kind))
        if hierarchy is None:
            self.text.setPlainText("10" if kind == "intervals" else "")
        elif kind == "intervals":
            self.text.setPlainText("\n".join(", ".join(f"{c:g}" for c in l) if isinstance(l, tuple) else f"{l:g}"
                                             for l in hierarchy.spec["levels"]))
        elif kind == "groups":
            self.text.setPlainText("\n---\n".join(rules_text(level) for level in hierarchy.spec["levels"]))
            self.keep_others.setChecked(hierarchy.spec.get("keep_others", False))

    def group_selected(self, values: list[str] | None = None, name: str | None = None) -> None:
        """Append the rule ``a,b->Name`` for the selected values to the current level's rules."""
        values = values if values is not None else [i.data(Qt.ItemDataRole.UserRole)
                                                    for i in self.value_list.selectedItems()]
        name = (name if name is not None else self.group_name.text()).strip()
        if not values or not name:
            self.message.setText("<span style='color:#b00020'>select values and name their group first</span>")
            return
        if self.kind.currentData() != "groups":
            self.kind.setCurrentIndex(list(KIND_NAMES).index("groups"))
        text = self.text.toPlainText().rstrip("\n")
        self.text.setPlainText((text + "\n" if text else "") + rule_line(values, name))
        self.group_name.clear()
        self.value_list.clearSelection()

    def build(self) -> Hierarchy:
        kind = self.kind.currentData()
        text = self.text.toPlainText()
        if kind == "intervals":
            return Hierarchy.intervals(self.column, parse_intervals(text))
        if kind == "groups":
            levels = [part for part in text.split("\n---") if part.strip()]
            if not levels:
                raise InputError("write at least one rule, e.g. a,b->General")
            return Hierarchy.from_rules(self.column, levels, self.keep_others.isChecked())
        if kind == "masking":
            return Hierarchy.masking(self.column)
        if kind == "dates":
            return Hierarchy.dates(self.column)
        if self._table_rows is None:
            raise InputError("load an ARX hierarchy CSV")
        return Hierarchy.table(self.column, self._table_rows)

    def _load_csv(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "ARX hierarchy", "", "CSV (*.csv);;All files (*)")
        if path:
            self.load_file(path)

    def load_file(self, path: str) -> None:
        try:
            self._table_rows = load_arx_csv(path, self.column).spec["rows"]
        except InputError as error:
            self.message.setText(f"<span style='color:#b00020'>{error}</span>")
            return
        self.kind.setCurrentIndex(list(KIND_NAMES).index("table"))
        self._refresh()

    def _refresh(self) -> None:
        kind = self.kind.currentData()
        self.help.setText(HELP[kind])
        self.text.setEnabled(kind in ("intervals", "groups"))
        self.keep_others.setVisible(kind == "groups")
        for widget in (self.value_list, self.group_name, self.group_button):
            widget.setVisible(kind == "groups")
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.preview.setRowCount(0)
        try:
            hierarchy = self.build()
            levels = hierarchy.labels(self.values)
        except InputError as error:
            self.message.setText(f"<span style='color:#b00020'>{error}</span>")
            ok.setEnabled(False)
            return
        self.hierarchy = hierarchy
        ok.setEnabled(True)
        self.message.setText(f"{len(levels) - 1} level(s) above the values; every value is covered.")
        rows = []
        for h, labels in enumerate(levels[1:], start=1):
            sizes = pd.Series(self.counts).groupby(pd.Series(labels, dtype=object)).sum()
            rows += [(h, str(g), int(c)) for g, c in sizes.items()][:50]
        self.preview.setRowCount(len(rows))
        for r, (h, g, c) in enumerate(rows):
            for col, value in enumerate((str(h), g, f"{c:,}")):
                self.preview.setItem(r, col, QTableWidgetItem(value))
        self.preview.resizeColumnsToContents()
