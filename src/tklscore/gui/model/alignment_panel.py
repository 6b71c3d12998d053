"""Alignment of the Model view: each sensitive column with its class — confirmed, suggested
(from the column's name and values; confirmed by a click, or replaced by dragging another
class onto the column) or none yet — and the taxonomy's mono-hierarchy choices: every class
that has several parents in the vocabulary, the parent it keeps and why, editable."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QGroupBox, QHeaderView, QLabel, QPushButton,
                               QSizePolicy, QTableWidget, QTableWidgetItem, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from tklscore.core.errors import InputError
from tklscore.core.model.class_suggestions import suggest_class
from tklscore.core.model.vocabulary import local_name
from tklscore.gui.model.tree import IRI_ROLE

CONFIRMED, SUGGESTED, NONE = "confirmed", "suggested", "no class yet"


class AlignmentPanel(QWidget):
    def __init__(self, workbench, edits, parent: QWidget | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.edits = edits
        self.conflicts = []
        self.suggestions = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.columns_table = QTableWidget(0, 4)
        self.columns_table.setObjectName("alignmentTable")
        self.columns_table.setHorizontalHeaderLabels(["Sensitive column", "Class", "Status", ""])
        self.columns_table.verticalHeader().hide()
        self.columns_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.columns_table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.columns_table, 1)
        self.taxonomy_box = QGroupBox("Taxonomy: classes with several parents (the parent kept is yours to choose)")
        box = QVBoxLayout(self.taxonomy_box)
        self.conflict_list = QTreeWidget()
        self.conflict_list.setHeaderLabels(["Class", "Parents", "Kept", "Why"])
        self.conflict_list.setRootIsDecorated(False)
        self.conflict_list.setMaximumHeight(130)
        box.addWidget(self.conflict_list)
        self.pruning_label = QLabel()
        self.pruning_label.setWordWrap(True)
        box.addWidget(self.pruning_label)
        self.taxonomy_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        layout.addWidget(self.taxonomy_box)

    # ------------------------------------------------------------------ columns

    def refresh(self, vocabulary) -> None:
        self.show_columns(vocabulary)
        self.show_taxonomy(vocabulary)

    def show_columns(self, vocabulary) -> None:
        model, table = self.workbench.model, self.workbench.table
        columns = model.columns if model is not None else []
        self.columns_table.setRowCount(0)   # drops the buttons of the rows before
        self.columns_table.setRowCount(len(columns))
        self.suggestions = {}
        for row, column in enumerate(columns):
            attribute = model.attribute(column)
            parent = model.nodes.get(attribute.parent) if attribute.parent else None
            if parent is not None:
                status = SUGGESTED if attribute.provisional else CONFIRMED
                cls, button = parent.label, ("Confirm" if attribute.provisional else "")
                why = ("suggested from the column's name and values; Confirm it, or drag another class onto the "
                       "column" if attribute.provisional else "aligned by the expert")
            else:
                suggestion = None
                if vocabulary is not None and table is not None and column in table.columns:
                    suggestion = suggest_class(column, table.codes(column).uniques[:2000].tolist(), vocabulary)
                self.suggestions[column] = suggestion
                status, cls = NONE, (f"→ {suggestion.label}?" if suggestion else "—")
                button = "Use suggestion" if suggestion else ""
                why = suggestion.reason if suggestion is not None else "drag a class onto the column's attribute"
            items = [QTableWidgetItem(column), QTableWidgetItem(cls), QTableWidgetItem(status)]
            for item in items:
                item.setToolTip(why)
            if status == SUGGESTED:
                items[2].setForeground(Qt.GlobalColor.darkYellow)
            elif status == NONE:
                items[2].setForeground(Qt.GlobalColor.darkRed)
            for k, item in enumerate(items):
                self.columns_table.setItem(row, k, item)
            if button:
                action = QPushButton(button)
                action.setObjectName(f"alignment:{column}")
                action.clicked.connect(lambda _=False, c=column: self.accept(c))
                self.columns_table.setCellWidget(row, 3, action)

    def status_of(self, column: str) -> str:
        for row in range(self.columns_table.rowCount()):
            if self.columns_table.item(row, 0).text() == column:
                return self.columns_table.item(row, 2).text()
        raise KeyError(column)

    def accept(self, column: str) -> bool:
        """Confirm a suggested alignment, or align with the suggestion for an unaligned column."""
        model = self.workbench.model
        attribute = model.attribute(column)
        if attribute.parent is not None:
            return self.edits.confirm([attribute.iri]) is not None
        suggestion = self.suggestions.get(column)
        if not suggestion:
            return False
        return self.edits.apply_plan([("align", column, suggestion.iri)])

    # ------------------------------------------------------------------ taxonomy

    def show_taxonomy(self, vocabulary) -> None:
        """The current model's conflicts and pruning against the open vocabulary."""
        self.conflict_list.clear()
        self.conflicts = []
        model = self.workbench.model
        aligned = set(model.alignment().values()) if model else set()
        if model is None or vocabulary is None or not aligned:
            self.taxonomy_box.setVisible(False)
            return
        self.taxonomy_box.setVisible(True)
        try:
            taxonomy = self.taxonomy(vocabulary)
        except InputError as error:
            self.conflict_list.setVisible(False)
            self.pruning_label.setText(f"The model's taxonomy cannot be checked against this vocabulary: {error}")
            return None
        name = vocabulary.label
        self.conflicts = list(taxonomy.conflicts)
        for conflict in self.conflicts:
            item = QTreeWidgetItem([name(conflict.node), ", ".join(name(p) for p in conflict.parents), "",
                                    conflict.reason])
            item.setData(0, IRI_ROLE, conflict.node)
            item.setToolTip(3, conflict.reason)
            self.conflict_list.addTopLevelItem(item)
            combo = QComboBox()
            combo.setObjectName("keepParent")
            for parent in conflict.parents:
                combo.addItem(name(parent), parent)
            combo.setCurrentIndex(conflict.parents.index(conflict.kept))
            combo.setToolTip("The parent this class keeps; choose another to rebuild the taxonomy")
            combo.activated.connect(lambda i, c=conflict, b=combo: self.edits.keep_parent(c.node, b.itemData(i)))
            self.conflict_list.setItemWidget(item, 2, combo)
        self.conflict_list.setVisible(bool(self.conflicts))
        self.pruning_label.setText("\n".join(self._pruning_lines(taxonomy, vocabulary)))
        return taxonomy

    def _pruning_lines(self, taxonomy, vocabulary) -> list[str]:
        name = vocabulary.label
        lines = [] if self.conflicts else ["No class of the extracted taxonomy has several parents."]
        if taxonomy.removed_nodes:
            lines.append("Pruned by the extraction: " + ", ".join(name(n) for n in taxonomy.removed_nodes))
        realignment = self.edits.last_realignment
        if realignment is not None:
            if realignment.dropped:
                lines.append("Left the model at the last alignment: "
                             + ", ".join(local_name(n) for n in realignment.dropped))
            if realignment.added:
                lines.append("Came into the model: " + ", ".join(name(n) for n in realignment.added))
            if realignment.renamed:
                lines.append(f"{len(realignment.renamed)} class(es) now use this vocabulary's IRIs")
            if realignment.forgotten:
                lines.append(f"{len(realignment.forgotten)} judgement(s) no longer apply and were dropped")
        return lines

    def taxonomy(self, vocabulary):
        """The model's taxonomy extracted again from ``vocabulary`` (kept while neither the
        model's tree nor the vocabulary changes: a label edit does not extract it again)."""
        model = self.workbench.model
        key = (model.nodes.shape, model.root, id(vocabulary), self.edits.last_realignment is not None)
        if getattr(self, "_taxonomy", (None,))[0] != key:
            self._taxonomy = (key, model.taxonomy_for(vocabulary))
        return self._taxonomy[1]

    def marks(self):
        """(classes in the model's taxonomy, classes with a column aligned under them)."""
        model = self.workbench.model
        if model is None:
            return set(), set()
        return set(model.taxonomy_nodes()), set(model.alignment().values())
