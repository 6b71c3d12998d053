"""The Model view (gui.md §2.1, §2.3, §2.4): the tkl-Data Model tree — the vocabulary's
taxonomy on top, the source-table model below, with labels, priorities and derived
weights per node — beside a searchable vocabulary browser (the built-in thesis taxonomy,
or any DPV/RDF files the user opens, remembered in QSettings).

Every change is one undoable edit through ``Workbench.edit_model``: new elements, labels
from the model's scale, removing an element, moving values and elements by drag and drop,
and aligning a column with a vocabulary class (drag the class onto the column's attribute,
or the attribute onto a class). Aligning re-extracts the taxonomy (BFS + mono-hierarchy +
pruning) and keeps every judgement, label and element that still applies; the conflicts
of the extraction (classes with several parents) are listed with the parent kept and why,
and the user can keep another one.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QPushButton,
    QSplitter,
    QTreeView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tklscore.core.model.data_model import TABLE_PART, Kind, Realignment, TklDataModel
from tklscore.core.errors import InputError
from tklscore.core.model.vocabulary import Vocabulary, local_name
from tklscore.gui.when_shown import WhenShown
from tklscore.gui.model.tree import (
    COLUMNS as TREE_COLUMNS,
    IRI_ROLE,
    LABEL_COL,
    ClassFilter,
    ModelTreeModel,
    VocabularyModel,
)

SETTINGS_KEY = "model/vocabularies"
VOCABULARY_FILTER = "RDF vocabularies (*.ttl *.rdf *.owl *.xml *.nt *.n3 *.trig *.jsonld *.json);;All files (*)"
NO_LABEL = "none"


class ModelView(QWidget):
    vocabularyChanged = Signal()

    def __init__(self, workbench, parent: QWidget | None = None, settings: QSettings | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.settings = settings or getattr(parent, "settings", None) or QSettings("tklscore", "tkl-Score Workbench")
        self.vocabulary: Vocabulary | None = None
        self.vocabulary_paths: list[str] = []
        self.last_realignment: Realignment | None = None
        self.conflicts = []
        self._filled = False
        self._build()
        self.load_remembered_vocabulary()
        # off screen, the tree and the taxonomy are re-read when the view is shown, not after every AHP edit
        workbench.modelChanged.connect(WhenShown(self, self.refresh).request)
        self.refresh()

    # ------------------------------------------------------------------ layout

    def _build(self) -> None:
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.splitter)

        # left: the vocabulary browser
        browser = QWidget()
        left = QVBoxLayout(browser)
        left.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open vocabulary…")
        self.open_button.setToolTip("Open one or more DPV (or other RDFS/SKOS) files: .ttl, .rdf, .jsonld")
        self.open_button.clicked.connect(lambda: self.open_vocabulary())
        self.builtin_button = QPushButton("Built-in")
        self.builtin_button.setToolTip("Use the built-in taxonomy of the thesis (DPV v0.1 structure)")
        self.builtin_button.clicked.connect(self.use_builtin_vocabulary)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.builtin_button)
        left.addLayout(buttons)
        self.vocabulary_label = QLabel()
        self.vocabulary_label.setWordWrap(True)
        left.addWidget(self.vocabulary_label)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search classes (label or IRI)…")
        self.search.setClearButtonEnabled(True)
        left.addWidget(self.search)
        self.class_model = VocabularyModel(self)
        self.class_model.handler = self.apply_plan
        self.class_model.columns_of = self._column_of_attribute
        self.class_filter = ClassFilter(self)
        self.class_filter.setSourceModel(self.class_model)
        self.search.textChanged.connect(self._search)
        self.class_tree = QTreeView()
        self.class_tree.setModel(self.class_filter)
        self.class_tree.setDragEnabled(True)
        self.class_tree.setAcceptDrops(True)
        self.class_tree.setDropIndicatorShown(True)
        self.class_tree.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.class_tree.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.class_tree.setColumnHidden(1, True)
        self.class_tree.setToolTip("Drag a class onto a column's attribute (A.…) to align the column with it")
        left.addWidget(self.class_tree)
        hint = QLabel("Drag a class onto an attribute to align the column; drag an attribute onto a class "
                      "to do the same.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(mid);")
        left.addWidget(hint)
        self.splitter.addWidget(browser)

        # right: the model tree, actions, conflicts and problems
        right_widget = QWidget()
        right = QVBoxLayout(right_widget)
        right.setContentsMargins(0, 0, 0, 0)
        actions = QHBoxLayout()
        self.new_element_button = QPushButton("New element…")
        self.new_element_button.setToolTip("Create an element (a group of values) under the selected "
                                           "attribute or element")
        self.new_element_button.clicked.connect(lambda: self.new_element())
        self.label_combo = QComboBox()
        self.label_combo.setToolTip("A qualitative label of the model's scale")
        self.set_label_button = QPushButton("Set label")
        self.set_label_button.clicked.connect(lambda: self.set_label(self._combo_label()))
        self.remove_button = QPushButton("Remove element")
        self.remove_button.setToolTip("Remove the selected element; its values move up to its parent")
        self.remove_button.clicked.connect(lambda: self.remove_element())
        self.align_button = QPushButton("Align with class")
        self.align_button.setToolTip("Align the selected attribute's column with the class selected "
                                     "in the vocabulary browser")
        self.align_button.clicked.connect(self.align_with_selected_class)
        for widget in (self.new_element_button, self.label_combo, self.set_label_button, self.remove_button,
                       self.align_button):
            actions.addWidget(widget)
        actions.addStretch(1)
        right.addLayout(actions)

        self.tree_model = ModelTreeModel(self)
        self.tree_model.handler = self.apply_plan
        self.tree = QTreeView()
        self.tree.setModel(self.tree_model)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.tree.setDragEnabled(True)
        self.tree.setAcceptDrops(True)
        self.tree.setDropIndicatorShown(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.tree.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(TREE_COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.selectionModel().selectionChanged.connect(lambda *_: self._update_actions())
        right.addWidget(self.tree, 1)
        self.tree_legend = QLabel(
            "<small><b>Code</b>: A attribute, E element, V value (V-0, V-1 … keep apart equal values of "
            "different columns). <b>Label</b> in brackets, e.g. <i>(restricted)</i>: the value has no label of "
            "its own and inherits that of the nearest labelled element or attribute above it. "
            "<b>AHP priority</b>: a criterion's share among its siblings; <b>label score</b>: the score of a "
            "value's label; <b>weight</b>: what scoring uses.</small>")
        self.tree_legend.setObjectName("treeLegend")
        self.tree_legend.setWordWrap(True)
        right.addWidget(self.tree_legend)

        self.message = QLabel()
        self.message.setObjectName("modelMessage")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #a40000;")
        self.message.hide()
        right.addWidget(self.message)

        self.taxonomy_box = QGroupBox("Taxonomy: classes with several parents")
        box = QVBoxLayout(self.taxonomy_box)
        self.conflict_list = QTreeWidget()
        self.conflict_list.setHeaderLabels(["Class", "Parents", "Kept", "Why"])
        self.conflict_list.setRootIsDecorated(False)
        self.conflict_list.setMaximumHeight(120)
        box.addWidget(self.conflict_list)
        self.pruning_label = QLabel()
        self.pruning_label.setWordWrap(True)
        box.addWidget(self.pruning_label)
        right.addWidget(self.taxonomy_box)

        self.problems_box = QGroupBox("Problems")
        self.problems_box.setStyleSheet("QGroupBox { background: #fff4ce; border: 1px solid #c19c00; "
                                        "margin-top: 1.2em; } QGroupBox::title { color: #7a5c00; }")
        problems = QVBoxLayout(self.problems_box)
        self.problem_list = QListWidget()
        self.problem_list.setMaximumHeight(110)
        problems.addWidget(self.problem_list)
        right.addWidget(self.problems_box)
        self.splitter.addWidget(right_widget)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([320, 960])
        remove = QAction("Remove element", self.tree)
        remove.setShortcut(QKeySequence.StandardKey.Delete)
        remove.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        remove.triggered.connect(lambda: self.remove_element() if self.selected_node() is not None
                                 and self.selected_node().kind == Kind.ELEMENT else None)
        self.tree.addAction(remove)

    # ------------------------------------------------------------------ vocabulary

    def load_remembered_vocabulary(self) -> None:
        paths = [str(p) for p in (self.settings.value(SETTINGS_KEY, [], list) or [])]
        if paths:
            try:
                self._set_vocabulary(Vocabulary.load(paths), paths)
                return
            except (InputError, OSError) as error:
                self.show_error(f"The remembered vocabulary could not be opened, using the built-in "
                                f"taxonomy: {error}")
        self._set_vocabulary(Vocabulary.builtin_thesis(), [])

    def open_vocabulary(self, paths: list[str] | None = None) -> bool:
        """Open vocabulary files (a dialog when ``paths`` is None) and remember them."""
        if paths is None:
            paths, _ = QFileDialog.getOpenFileNames(self, "Open vocabulary", "", VOCABULARY_FILTER)
            if not paths:
                return False
        paths = [str(p) for p in paths]
        self.setCursor(Qt.CursorShape.WaitCursor)
        try:
            vocabulary = Vocabulary.load(paths)
        except (InputError, OSError) as error:
            self.show_error(str(error))
            return False
        finally:
            self.unsetCursor()
        self._set_vocabulary(vocabulary, paths)
        self.settings.setValue(SETTINGS_KEY, paths)
        return True

    def use_builtin_vocabulary(self) -> None:
        self.settings.remove(SETTINGS_KEY)
        self._set_vocabulary(Vocabulary.builtin_thesis(), [])

    def _set_vocabulary(self, vocabulary: Vocabulary, paths: list[str]) -> None:
        self.vocabulary = vocabulary
        self.vocabulary_paths = list(paths)
        self.class_model.set_vocabulary(vocabulary)
        self.class_tree.expandToDepth(1)
        where = ", ".join(p.rsplit("/", 1)[-1] for p in paths) if paths else "built-in thesis taxonomy"
        self.vocabulary_label.setText(f"{where}: {len(vocabulary):,} classes")
        self.vocabulary_label.setToolTip("\n".join(paths))
        self.vocabularyChanged.emit()
        if self._filled:
            self._show_taxonomy()

    def _search(self, text: str) -> None:
        self.class_filter.set_text(text)
        if text.strip():
            self.class_tree.expandAll()

    def select_class(self, iri: str) -> bool:
        """Select a class in the browser (its first occurrence)."""
        matches = self.class_filter.match(self.class_filter.index(0, 0), IRI_ROLE, iri, 1,
                                          Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive)
        if not matches:
            return False
        self.class_tree.setCurrentIndex(matches[0])
        self.class_tree.scrollTo(matches[0])
        return True

    def selected_class(self) -> str | None:
        index = self.class_tree.currentIndex()
        return index.data(IRI_ROLE) if index.isValid() else None

    # ------------------------------------------------------------------ refresh

    def refresh(self) -> None:
        model: TklDataModel | None = self.workbench.model
        expanded = {iri for iri, item in self.tree_model.items.items() if self.tree.isExpanded(item.index())}
        known = set(self.tree_model.items)
        selected = self.selected_iri()
        self.tree_model.set_model(model)
        if not self._filled or not known:
            self.tree.expandAll()
        else:
            for iri, item in self.tree_model.items.items():
                if iri in expanded or iri not in known:
                    self.tree.setExpanded(item.index(), True)
        self._filled = model is not None
        if selected is not None and selected in self.tree_model.items:
            self.select(selected)
        current = self.label_combo.currentText()
        self.label_combo.clear()
        self.label_combo.addItems([NO_LABEL] + (list(model.scale.names) if model else []))
        if current:
            self.label_combo.setCurrentText(current)
        problems = self.tree_model.derivation.problems if model is not None else []
        self.problem_list.clear()
        self.problem_list.addItems(problems)
        self.problems_box.setVisible(bool(problems))
        self.problems_box.setTitle(f"Problems ({len(problems)}): the model gives no weights until they are solved"
                                   if problems else "Problems")
        self._show_taxonomy()
        self._update_actions()

    def _show_taxonomy(self) -> None:
        """The current model's conflicts and pruning against the open vocabulary."""
        self.conflict_list.clear()
        self.conflicts = []
        model = self.workbench.model
        in_model = {i for i, n in model.nodes.items() if n.kind in (Kind.ROOT, Kind.TAXONOMY)} if model else set()
        aligned = set(model.alignment().values()) if model else set()
        if model is None or self.vocabulary is None or not aligned:
            self.class_model.mark(in_model, aligned, set())
            self.taxonomy_box.setVisible(False)
            return
        self.taxonomy_box.setVisible(True)
        try:
            taxonomy = model.taxonomy_for(self.vocabulary)
        except InputError as error:
            self.class_model.mark(in_model, aligned, set())
            self.conflict_list.setVisible(False)
            self.pruning_label.setText(f"The model's taxonomy cannot be checked against this vocabulary: {error}")
            return
        self.class_model.mark(in_model, aligned, set(taxonomy.removed_nodes))
        name = self.vocabulary.label
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
            combo.activated.connect(lambda i, c=conflict, b=combo: self.keep_parent(c.node, b.itemData(i)))
            self.conflict_list.setItemWidget(item, 2, combo)
        self.conflict_list.setVisible(bool(self.conflicts))
        lines = []
        if not self.conflicts:
            lines.append("No class of the extracted taxonomy has several parents.")
        if taxonomy.removed_nodes:
            lines.append("Pruned by the extraction: " + ", ".join(name(n) for n in taxonomy.removed_nodes))
        realignment = self.last_realignment
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
        self.pruning_label.setText("\n".join(lines))

    def _update_actions(self) -> None:
        node = self.selected_node()
        kind = node.kind if node else None
        self.new_element_button.setEnabled(kind in (Kind.ATTRIBUTE, Kind.ELEMENT))
        self.set_label_button.setEnabled(kind in TABLE_PART)
        self.label_combo.setEnabled(kind in TABLE_PART)
        if node is not None and kind in TABLE_PART:
            self.label_combo.setCurrentText(node.qualitative or NO_LABEL)
        self.remove_button.setEnabled(kind == Kind.ELEMENT)
        self.align_button.setEnabled(kind == Kind.ATTRIBUTE)

    # ------------------------------------------------------------------ selection

    def select(self, iri: str) -> None:
        index = self.tree_model.index_of(iri)
        if index.isValid():
            self.tree.setCurrentIndex(index)
            self.tree.scrollTo(index)

    def selected_iri(self) -> str | None:
        index = self.tree.currentIndex()
        return self.tree_model.iri(index)

    def selected_node(self):
        iri = self.selected_iri()
        model = self.workbench.model
        return model.nodes.get(iri) if model is not None and iri else None

    def _combo_label(self) -> str | None:
        text = self.label_combo.currentText()
        return None if text in ("", NO_LABEL) else text

    def _column_of_attribute(self, iri: str) -> str | None:
        model = self.workbench.model
        node = model.nodes.get(iri) if model is not None else None
        return node.column if node is not None and node.kind == Kind.ATTRIBUTE else None

    def _context_menu(self, position) -> None:
        index = self.tree.indexAt(position)
        if index.isValid():
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
                action.triggered.connect(lambda _=False, n=name: self.set_label(None if n == NO_LABEL else n))
                labels.addAction(action)
        if node.kind == Kind.ELEMENT:
            menu.addAction("Remove element", lambda: self.remove_element())
        if node.kind == Kind.ATTRIBUTE:
            action = menu.addAction("Align with the class selected in the browser", self.align_with_selected_class)
            action.setEnabled(self.selected_class() is not None)
        menu.exec(self.tree.viewport().mapToGlobal(position))

    # ------------------------------------------------------------------ edits

    def show_error(self, message: str) -> None:
        self.message.setText(message)
        self.message.setVisible(bool(message))
        if message:
            self.workbench.failed.emit(message)

    def _edit(self, text: str, change) -> bool:
        """One undoable edit; bad input is shown and changes nothing."""
        self.message.hide()
        try:
            self.workbench.edit_model(text, change)
        except InputError as error:
            self.show_error(str(error))
            return False
        self.workbench.status.emit(text)
        return True

    def _target(self, iri: str | None):
        model = self.workbench.model
        if model is None:
            self.show_error("There is no tkl-Data Model: open the example, a project or a model first")
            return None
        iri = iri or self.selected_iri()
        if iri is None or iri not in model.nodes:
            self.show_error("Select a node of the tkl-Data Model first")
            return None
        return model.nodes[iri]

    def new_element(self, name: str | None = None, parent: str | None = None) -> str | None:
        """Create an element under ``parent`` (default: the selected attribute or element)."""
        node = self._target(parent)
        if node is None:
            return None
        if node.kind not in (Kind.ATTRIBUTE, Kind.ELEMENT):
            self.show_error(f"An element goes under an attribute or another element, not under the "
                            f"{node.kind.value} '{node.label}'")
            return None
        if name is None:
            name, ok = QInputDialog.getText(self, "New element", f"Name of the new element under {node.label}:")
            if not ok:
                return None
        name = name.strip()
        if not name:
            self.show_error("An element needs a name")
            return None
        created = []
        if self._edit(f"New element {name} under {node.label}",
                      lambda m: created.append(m.add_element(node.column, name, node.iri))):
            self.select(created[0])
            return created[0]
        return None

    def set_label(self, qualitative: str | None, iri: str | None = None) -> bool:
        node = self._target(iri)
        if node is None:
            return False
        if node.kind not in TABLE_PART:
            self.show_error(f"Only values and elements take a label; '{node.label}' is a {node.kind.value}")
            return False
        if node.qualitative == qualitative:
            return True
        return self._edit(f"Label {node.label} {qualitative or NO_LABEL}",
                          lambda m: m.set_label(node.iri, qualitative))

    def remove_element(self, iri: str | None = None) -> bool:
        node = self._target(iri)
        if node is None:
            return False
        if node.kind != Kind.ELEMENT:
            self.show_error(f"Only elements can be removed here; '{node.label}' is a {node.kind.value}")
            return False

        def change(model: TklDataModel) -> None:
            for child in model.children(node.iri):
                model.move(child, node.parent)
            model.remove(node.iri)

        return self._edit(f"Remove element {node.label}", change)

    def move(self, iri: str, target: str) -> bool:
        return self.apply_plan([("move", iri, target)])

    def align(self, column: str, class_iri: str, keep_parent: dict[str, str] | None = None) -> bool:
        return self.apply_plan([("align", column, class_iri)], keep_parent)

    def align_with_selected_class(self) -> bool:
        node = self.selected_node()
        cls = self.selected_class()
        if node is None or node.kind != Kind.ATTRIBUTE:
            self.show_error("Select a column's attribute (A.…) in the model tree")
            return False
        if cls is None:
            self.show_error("Select a class in the vocabulary browser")
            return False
        return self.align(node.column, cls)

    def keep_parent(self, node: str, parent: str) -> bool:
        """Rebuild the taxonomy with ``node`` keeping ``parent`` (a conflict's resolution)."""
        if self.vocabulary is None:
            return False
        result = []
        ok = self._edit(f"{self.vocabulary.label(node)} keeps parent {self.vocabulary.label(parent)}",
                        lambda m: result.append(m.realign(self.vocabulary, keep_parent={node: parent})))
        if ok:
            self.last_realignment = result[0]
            self._show_taxonomy()
        return ok

    def apply_plan(self, plan: list[tuple[str, str, str]], keep_parent: dict[str, str] | None = None) -> bool:
        """Edits asked for by a drop: ("move", node, target) or ("align", column, class)."""
        model = self.workbench.model
        if model is None or not plan:
            return False
        name = model.nodes
        vocabulary = self.vocabulary
        results: list[Realignment] = []
        texts = []
        for op, a, b in plan:
            if op == "move":
                texts.append(f"Move {name[a].label} into {name[b].label}")
            else:
                label = name[b].label if b in name else (vocabulary.label(b) if vocabulary else local_name(b))
                texts.append(f"Align {a} with {label}")

        def in_vocabulary(cls: str) -> bool:
            if vocabulary is None:
                return False
            try:
                vocabulary.resolve(cls)
                return True
            except InputError:
                return cls not in model.nodes  # let realign() explain what is wrong

        def change(m: TklDataModel) -> None:
            for op, a, b in plan:
                if op == "move":
                    m.move(a, b)
                elif in_vocabulary(b):
                    results.append(m.realign(vocabulary, a, b, keep_parent))
                elif b in m.nodes:
                    m.align(a, b)  # a class the open vocabulary lacks: align without re-extraction
                else:
                    raise InputError(f"'{local_name(b)}' is neither in the open vocabulary nor in the model")

        ok = self._edit("; ".join(texts), change)
        if ok and results:
            self.last_realignment = results[-1]
            self._show_taxonomy()
            conflicts = results[-1].conflicts
            if conflicts and vocabulary is not None:
                self.workbench.status.emit(
                    "; ".join(texts) + " — " + "; ".join(
                        f"{vocabulary.label(c.node)} keeps {vocabulary.label(c.kept)} ({c.reason})" for c in conflicts))
        if ok and plan[0][0] == "move":
            self.select(plan[0][1])
        return ok

    def label_text(self, iri: str) -> str:
        """The Label column as shown (for tests and accessibility)."""
        return self.tree_model.index_of(iri, LABEL_COL).data() or ""
