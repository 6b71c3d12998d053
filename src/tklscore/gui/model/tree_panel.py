"""The model tree of the Model view: the tkl-Data Model with its labels, priorities and
weights, searchable and filtered to what still needs the expert ("not yet judged", "without a
label"); several rows selected take one label in one edit; a label or a bin is edited in
place (double-click); values and elements move by drag and drop."""

from __future__ import annotations

from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QInputDialog, QLabel,
                               QLineEdit, QMenu, QPushButton, QStyledItemDelegate, QTreeView, QVBoxLayout, QWidget)

from tklscore.core.model.data_model import TABLE_PART, Kind
from tklscore.gui.model.edits import NO_LABEL
from tklscore.gui.model.tree import (COLUMNS, LABEL_COL, SHOW_ALL, SHOW_UNJUDGED, SHOW_UNLABELLED, ModelTreeModel)

EXPAND_AT_MOST = 300   # a node with more children starts collapsed (its values are found by the search)
LEGEND = ("<small><b>Code</b>: A attribute, E element, V value (V-0, V-1 … keep apart equal values of different "
          "columns). <b>Label</b> <i>normal · not yet judged</i>: the default every new value starts with — set a "
          "label or Confirm it. In brackets, e.g. <i>(restricted)</i>: no label of its own; it inherits that of the "
          "nearest labelled element or attribute above it. <b>AHP priority</b>: a criterion's share among its "
          "siblings; <b>label score</b>: the score of a value's label; <b>weight</b>: what scoring uses. "
          "Double-click a label or a bin to edit it; select several values to label them at once.</small>")


class LabelDelegate(QStyledItemDelegate):
    """A label typed in place is chosen from the model's scale."""

    def __init__(self, scale_names, parent=None):
        super().__init__(parent)
        self.scale_names = scale_names   # () -> the model's label names

    def createEditor(self, parent, option, index):
        if index.column() != LABEL_COL:
            return super().createEditor(parent, option, index)
        combo = QComboBox(parent)
        combo.addItems([NO_LABEL] + list(self.scale_names()))
        return combo

    def setEditorData(self, editor, index):
        if isinstance(editor, QComboBox):
            editor.setCurrentText(index.data(Qt.ItemDataRole.EditRole) or NO_LABEL)
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor, model, index):
        if isinstance(editor, QComboBox):
            text = editor.currentText()
            model.setData(index, "" if text == NO_LABEL else text, Qt.ItemDataRole.EditRole)
        else:
            super().setModelData(editor, model, index)


class TreePanel(QWidget):
    def __init__(self, workbench, edits, parent: QWidget | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.edits = edits
        self.filled = False
        self.fit_pending = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._filter_row())
        self.tree_model = ModelTreeModel(self)
        self.tree_model.editor = self._edited_in_place
        self.tree = QTreeView()
        self.tree.setObjectName("modelTree")
        self.tree.setModel(self.tree_model)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                  | QAbstractItemView.EditTrigger.EditKeyPressed)
        self.tree.setItemDelegate(LabelDelegate(lambda: self.workbench.model.scale.names
                                                if self.workbench.model else [], self.tree))
        for setting in (self.tree.setDragEnabled, self.tree.setAcceptDrops, self.tree.setDropIndicatorShown,
                        self.tree.setAlternatingRowColors, self.tree.setUniformRowHeights):
            setting(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.tree.setDefaultDropAction(Qt.DropAction.CopyAction)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setResizeContentsPrecision(64)   # widths from the first rows, not from 20,000
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        layout.addWidget(self.tree, 1)
        layout.addLayout(self._action_row())
        self.tree.selectionModel().selectionChanged.connect(lambda *_: self.update_actions())
        self.tree_legend = QLabel(LEGEND)
        self.tree_legend.setObjectName("treeLegend")
        self.tree_legend.setWordWrap(True)
        layout.addWidget(self.tree_legend)
        remove = QAction("Remove element", self.tree)
        remove.setShortcut(QKeySequence.StandardKey.Delete)
        remove.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        remove.triggered.connect(lambda: self.remove_element() if self.selected_node() is not None
                                 and self.selected_node().kind == Kind.ELEMENT else None)
        self.tree.addAction(remove)

    def _filter_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setObjectName("modelSearch")
        self.search.setPlaceholderText("Find a value, column, class or label…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _: self.apply_filter())
        self.show_combo = QComboBox()
        self.show_combo.setObjectName("modelShow")
        for text, key in (("Every node", SHOW_ALL), ("Not yet judged", SHOW_UNJUDGED),
                          ("Without a label of their own", SHOW_UNLABELLED)):
            self.show_combo.addItem(text, key)
        self.show_combo.setToolTip("Show every node, or only what still needs a judgement")
        self.show_combo.currentIndexChanged.connect(lambda _: self.apply_filter())
        self.count_label = QLabel()
        self.count_label.setObjectName("modelCounts")
        row.addWidget(self.search, 2)
        row.addWidget(QLabel("Show:"))
        row.addWidget(self.show_combo)
        row.addWidget(self.count_label, 1)
        return row

    def _action_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.new_element_button = QPushButton("New element…")
        self.new_element_button.setToolTip("Create an element (a group of values) under the selected attribute or "
                                           "element")
        self.new_element_button.clicked.connect(lambda: self.new_element())
        self.label_combo = QComboBox()
        self.label_combo.setToolTip("A qualitative label of the model's scale")
        self.label_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.set_label_button = QPushButton("Set label")
        self.set_label_button.setToolTip("Give every selected value and element this label (one edit)")
        self.set_label_button.clicked.connect(lambda: self.label_selected(self.combo_label()))
        self.confirm_button = QPushButton("Confirm")
        self.confirm_button.setToolTip("Keep the selected defaults (labels not yet judged, suggested classes) as "
                                       "your judgement")
        self.confirm_button.clicked.connect(lambda: self.edits.confirm(self.selected_iris()))
        self.select_shown_button = QPushButton("Select shown values")
        self.select_shown_button.setToolTip("Select every value the search and the Show choice list, to label them "
                                            "at once")
        self.select_shown_button.clicked.connect(self.select_shown_values)
        self.remove_button = QPushButton("Remove element")
        self.remove_button.setToolTip("Remove the selected element; its values move up to its parent")
        self.remove_button.clicked.connect(lambda: self.remove_element())
        self.align_button = QPushButton("Align with class")
        self.align_button.setToolTip("Align the selected attribute's column with the class selected in the "
                                     "vocabulary browser")
        for widget in (self.new_element_button, self.label_combo, self.set_label_button, self.confirm_button,
                       self.select_shown_button, self.remove_button, self.align_button):
            row.addWidget(widget)
        row.addStretch(1)
        return row

    # ------------------------------------------------------------------ model → tree

    def refresh(self) -> None:
        model = self.workbench.model
        tree, items = self.tree, self.tree_model
        expanded = self._expanded()
        known = bool(items.model is not None and items.model.nodes)
        selected = self.selected_iris()
        current = self.selected_iri()
        if items.set_model(model):   # rebuilt: the expansion and the selection come back
            if not self.filled or not known:
                self.expand_default()
            else:
                for iri in expanded:
                    index = items.index_of(iri)
                    if index.isValid():
                        tree.setExpanded(index, True)
            self.select_all(selected, current)
        self.filled = model is not None
        label = self.label_combo.currentText()
        self.label_combo.clear()
        self.label_combo.addItems([NO_LABEL] + (list(model.scale.names) if model else []))
        if label:
            self.label_combo.setCurrentText(label)
        self.show_counts()
        self.update_actions()
        self.fit_columns()

    def fit_columns(self) -> None:
        """The columns but the node's as wide as their texts, once the tree is filled or filtered
        (sized to their contents at every layout, the tree asked each cell's texts, font, colours
        and size several times over while a view was first laid out and painted). Off screen the
        tree has no rows laid out to measure: then when it is next shown."""
        self.fit_pending = not self.isVisible()
        if self.fit_pending:
            return
        for column in range(1, len(COLUMNS)):
            self.tree.resizeColumnToContents(column)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.fit_pending:
            self.fit_columns()

    def _expanded(self) -> set[str]:
        """The expanded nodes (only nodes with children can be)."""
        return {self.tree_model.iri(index) for index in self.tree_model.branches() if self.tree.isExpanded(index)}

    def expand_default(self) -> None:
        """Everything open but nodes with very many children (a 20,000-value column)."""
        items = self.tree_model
        for index in items.branches():
            rows = items.rowCount(index)
            if rows <= EXPAND_AT_MOST or items.text or items.show != SHOW_ALL:
                self.tree.setExpanded(index, True)

    def apply_filter(self) -> None:
        self.tree_model.set_filter(self.search.text(), self.show_combo.currentData())
        self.expand_default()
        self.show_counts()
        self.fit_columns()

    def show_counts(self) -> None:
        model, items = self.workbench.model, self.tree_model
        if model is None:
            self.count_label.setText("")
            return
        values = sum(len(model.nodes.values_of(c)) for c in model.columns)
        parts = [f"{values:,} values", f"{len(model.unjudged()):,} not yet judged",
                 f"{len(model.unlabelled()):,} without a label"]
        if items.text or items.show != SHOW_ALL:
            parts.append(f"{items.matching:,} shown")
        self.count_label.setText(" · ".join(parts))

    def update_actions(self) -> None:
        node = self.selected_node()
        kind = node.kind if node else None
        nodes = self.workbench.model.nodes if self.workbench.model else {}
        many = [nodes[i] for i in self.selected_iris() if i in nodes]
        self.new_element_button.setEnabled(kind in (Kind.ATTRIBUTE, Kind.ELEMENT) and len(many) <= 1)
        labelable = any(n.kind in TABLE_PART for n in many)
        self.set_label_button.setEnabled(labelable)
        self.label_combo.setEnabled(labelable)
        self.set_label_button.setText(f"Set label ({len(many):,})" if len(many) > 1 else "Set label")
        if node is not None and kind in TABLE_PART and len(many) == 1:
            self.label_combo.setCurrentText(node.qualitative or NO_LABEL)
        self.confirm_button.setEnabled(any(n.provisional for n in many))
        self.remove_button.setEnabled(kind == Kind.ELEMENT and len(many) == 1)
        self.align_button.setEnabled(kind == Kind.ATTRIBUTE)

    # ------------------------------------------------------------------ selection

    def select(self, iri: str) -> None:
        index = self.tree_model.index_of(iri)
        if index.isValid():
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)

    def select_all(self, iris, current: str | None = None) -> None:
        """Select the rows of ``iris`` at once: one range per run of neighbouring rows (selecting
        20,000 rows one by one would merge ranges 20,000 times)."""
        selection = self.tree.selectionModel()
        indexes = sorted(((index.parent(), index.row()) for index in map(self.tree_model.index_of, iris)
                          if index.isValid()), key=lambda pr: (self.tree_model.iri(pr[0]) or "", pr[1]))
        ranges, last = QItemSelection(), len(COLUMNS) - 1
        start = previous = None
        for parent, row in indexes + [(None, None)]:
            if start is not None and (parent != start[0] or row != previous + 1):
                ranges.select(self.tree_model.index(start[1], 0, start[0]),
                              self.tree_model.index(previous, last, start[0]))
                start = None
            if parent is None:
                break
            if start is None:
                start = (parent, row)
            previous = row
        selection.select(ranges, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        if current is not None and self.tree_model.index_of(current).isValid():
            selection.setCurrentIndex(self.tree_model.index_of(current), QItemSelectionModel.SelectionFlag.NoUpdate)

    def select_shown_values(self) -> None:
        iris = self.tree_model.shown_iris()
        self.select_all(iris, iris[0] if iris else None)
        self.update_actions()

    def selected_iri(self) -> str | None:
        return self.tree_model.iri(self.tree.currentIndex())

    def selected_iris(self) -> list[str]:
        selection = self.tree.selectionModel()
        iris = self.tree_model.iris_in(selection.selection()) if selection is not None else []
        return iris or ([self.selected_iri()] if self.selected_iri() else [])

    def selected_node(self):
        iri, model = self.selected_iri(), self.workbench.model
        return model.nodes.get(iri) if model is not None and iri else None

    def combo_label(self) -> str | None:
        text = self.label_combo.currentText()
        return None if text in ("", NO_LABEL) else text

    # ------------------------------------------------------------------ edits

    def label_selected(self, qualitative: str | None) -> bool:
        iris = self.selected_iris()
        if len(iris) == 1:
            return self.edits.set_label(qualitative, iris[0])
        return self.edits.set_labels(iris, qualitative) is not None

    def new_element(self, name: str | None = None, parent: str | None = None) -> str | None:
        node = self.edits.target(parent)
        if node is None:
            return None
        if name is None and node.kind in (Kind.ATTRIBUTE, Kind.ELEMENT):
            name, ok = QInputDialog.getText(self, "New element", f"Name of the new element under {node.label}:")
            if not ok:
                return None
        created = self.edits.new_element(name or "", node.iri)
        if created is not None:
            self.select(created)
        return created

    def remove_element(self, iri: str | None = None) -> bool:
        return self.edits.remove_element(iri)

    def _edited_in_place(self, kind: str, iri: str, text: str) -> bool:
        if kind == "bin":
            return self.edits.edit_bin(iri, text)
        return self.edits.set_label(text or None, iri)

    def _context_menu(self, position) -> None:
        index = self.tree.indexAt(position)
        if index.isValid() and self.tree_model.iri(index) not in self.selected_iris():
            self.tree.setCurrentIndex(index)
        node = self.selected_node()
        if node is None:
            return
        menu = QMenu(self)
        if node.kind in (Kind.ATTRIBUTE, Kind.ELEMENT):
            menu.addAction("New element…", lambda: self.new_element())
        if node.kind in TABLE_PART:
            labels = menu.addMenu("Set label")
            for name in [NO_LABEL] + list(self.workbench.model.scale.names):
                action = QAction(name, labels)
                action.setCheckable(True)
                action.setChecked((node.qualitative or NO_LABEL) == name)
                action.triggered.connect(lambda _=False, n=name: self.label_selected(None if n == NO_LABEL else n))
                labels.addAction(action)
        if any(self.workbench.model.nodes[i].provisional for i in self.selected_iris()):
            menu.addAction("Confirm", lambda: self.edits.confirm(self.selected_iris()))
        if node.kind == Kind.ELEMENT:
            menu.addAction("Remove element", lambda: self.remove_element())
        if node.kind == Kind.ATTRIBUTE:
            menu.addAction("Align with the class selected in the browser", self.align_button.click)
        menu.exec(self.tree.viewport().mapToGlobal(position))
