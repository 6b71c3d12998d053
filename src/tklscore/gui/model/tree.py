"""Item models of the Model view: the tkl-Data Model tree (taxonomy on top, table model
below; each node named by its value or column with its code — ``V-0``, ``A``, ``E`` — as a
small tag of its own; its label, AHP priority, label score and weight in separate columns)
and the vocabulary browser, both with their own MIME types for drag and drop.

Drops never move items themselves: they become one undoable edit through the view's
``handler`` (the Workbench then tells every view the model changed and the tree is
rebuilt), so the models only offer CopyAction and never remove rows after a drag.
"""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QMimeData, QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QBrush, QColor, QStandardItem, QStandardItemModel

from tklscore.core.model.data_model import TABLE_PART, Derivation, Kind, TklDataModel
from tklscore.core.model.node_names import display_name, inherited_label
from tklscore.core.model.vocabulary import Vocabulary

NODE_MIME = "application/x-tklscore-model-node"
CLASS_MIME = "application/x-tklscore-vocabulary-class"
IRI_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2
COLUMNS = ("Node", "Code", "Kind", "Label", "AHP priority", "Label score", "Weight")
NODE_COL, CODE_COL, KIND_COL, LABEL_COL, PRIORITY_COL, LABEL_SCORE_COL, WEIGHT_COL = range(7)
NUMBER_COLUMNS = (PRIORITY_COL, LABEL_SCORE_COL, WEIGHT_COL)
TAXONOMY_BRUSH = QBrush(QColor("#e8f0fb"))
TAXONOMY_TEXT = QBrush(QColor("#1f4e8c"))
TAG_TEXT = QBrush(QColor("#6b6b6b"))
INHERITED_TIP = ("In brackets: this value has no label of its own; it takes {label} from {source}, the nearest "
                 "labelled element or attribute above it (propagation, Algorithm 2).")
HEADER_TIPS = {
    CODE_COL: "The model's code for the node: A attribute, E element, V value (V-0, V-1 … keep apart values "
              "of the same name in different columns)",
    LABEL_COL: "The qualitative label (HL7 scale by default); in brackets when inherited from above",
    PRIORITY_COL: "AHP priority: the criterion's share among its siblings, from the experts' judgements "
                  "(or assigned)",
    LABEL_SCORE_COL: "The score of the value's or element's label on the model's scale",
    WEIGHT_COL: "The weight scoring uses for this value",
}


def _iris(mime: QMimeData, kind: str) -> list[str]:
    if not mime.hasFormat(kind):
        return []
    return [line for line in bytes(mime.data(kind)).decode("utf-8").splitlines() if line]


class ModelTreeModel(QStandardItemModel):
    """The tkl-Data Model as a tree of rows (one per node).

    ``handler`` is called for drops: ``handler("move", node_iri, target_iri)`` for a value or
    element dropped onto an element/attribute of its column; ``handler("align", column,
    class_iri)`` for a vocabulary class dropped onto an attribute or an attribute dropped
    onto a taxonomy class. It returns True when the edit was made."""

    def __init__(self, parent=None):
        super().__init__(0, len(COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(COLUMNS))
        for column, tip in HEADER_TIPS.items():
            self.horizontalHeaderItem(column).setToolTip(tip)
        self.model: TklDataModel | None = None
        self.derivation: Derivation | None = None
        self.handler = None
        self.items: dict[str, QStandardItem] = {}

    # ------------------------------------------------------------------ content

    def set_model(self, model: TklDataModel | None) -> None:
        self.removeRows(0, self.rowCount())
        self.items = {}
        self.model = model
        self.derivation = model.derive() if model is not None else None
        if model is None:
            return
        children: dict[str | None, list[str]] = {}
        for node in model.nodes.values():
            children.setdefault(node.parent, []).append(node.iri)
        tops = [model.root] if model.root in model.nodes else []
        # nodes not connected to the root (unaligned attributes) are shown at the top level too
        tops += [i for i, n in model.nodes.items() if i != model.root and (n.parent is None or n.parent not in model.nodes)]
        queue = deque((self.invisibleRootItem(), iri) for iri in tops)
        while queue:
            parent_item, iri = queue.popleft()
            row = self._row(model.nodes[iri])
            parent_item.appendRow(row)
            self.items[iri] = row[0]
            queue.extend((row[0], child) for child in children.get(iri, []))

    def _row(self, node) -> list[QStandardItem]:
        derivation = self.derivation
        priority = derivation.priorities.get(node.iri)
        weight = derivation.weights.get(node.iri)
        label_score = node.kind in TABLE_PART  # a value's or element's priority is its label's score
        tag, name = display_name(node)
        texts = [name, tag, node.kind.value, node.qualitative or "",
                 "" if priority is None or label_score else f"{priority:.5f}",
                 "" if priority is None or not label_score else f"{priority:.2f}",
                 "" if weight is None else f"{weight:.5f}"]
        row = [QStandardItem(text) for text in texts]
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if node.kind in TABLE_PART or node.kind == Kind.ATTRIBUTE:
            flags |= Qt.ItemFlag.ItemIsDragEnabled
        if node.kind in (Kind.ATTRIBUTE, Kind.ELEMENT, Kind.ROOT, Kind.TAXONOMY):
            flags |= Qt.ItemFlag.ItemIsDropEnabled
        tip = f"{node.label}\n{node.iri}"
        if node.kind == Kind.VALUE:
            tip += f"\ntable value: {node.value} (column {node.column})"
        inherited = inherited_label(self.model, node.iri) if label_score else None
        if inherited is not None:
            source = next(self.model.nodes[a] for a in self.model.path_to_root(node.iri)[1:]
                          if self.model.nodes[a].qualitative is not None)
            row[LABEL_COL].setText(f"({inherited})")
            row[LABEL_COL].setToolTip(INHERITED_TIP.format(label=f"'{inherited}'", source=display_name(source)[1]))
        for column, item in enumerate(row):
            item.setFlags(flags)
            item.setData(node.iri, IRI_ROLE)
            item.setData(node.kind.value, KIND_ROLE)
            if column == NODE_COL:
                item.setToolTip(tip)
            if column in NUMBER_COLUMNS:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if column == CODE_COL:
                small = item.font()
                small.setPointSizeF(max(6.0, small.pointSizeF() * 0.8))
                item.setFont(small)
                item.setForeground(TAG_TEXT)
                item.setToolTip(HEADER_TIPS[CODE_COL])
            if node.kind in (Kind.ROOT, Kind.TAXONOMY):
                item.setBackground(TAXONOMY_BRUSH)
                item.setForeground(TAXONOMY_TEXT)
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
            elif node.kind == Kind.ATTRIBUTE:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
        return row

    def index_of(self, iri: str, column: int = NODE_COL) -> QModelIndex:
        item = self.items.get(iri)
        if item is None:
            return QModelIndex()
        index = item.index()
        return index.siblingAtColumn(column) if column else index

    def iri(self, index: QModelIndex) -> str | None:
        return index.data(IRI_ROLE) if index.isValid() else None

    # ------------------------------------------------------------------ drag and drop

    def supportedDragActions(self):
        return Qt.DropAction.CopyAction

    def supportedDropActions(self):
        return Qt.DropAction.CopyAction | Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [NODE_MIME, CLASS_MIME]

    def mimeData(self, indexes) -> QMimeData:
        iris = list(dict.fromkeys(self.iri(i) for i in indexes if self.iri(i)))
        mime = QMimeData()
        mime.setData(NODE_MIME, "\n".join(iris).encode("utf-8"))
        if self.model is not None:
            mime.setText("\n".join(self.model.nodes[i].label for i in iris if i in self.model.nodes))
        return mime

    def _target(self, row: int, parent: QModelIndex) -> str | None:
        # dropped between rows: the parent row is the target
        return self.iri(parent.siblingAtColumn(0)) if parent.isValid() else None

    def drop_plan(self, mime: QMimeData, target: str | None) -> list[tuple[str, str, str]]:
        """The edits a drop onto ``target`` asks for (empty: not a valid drop)."""
        model = self.model
        if model is None or target not in model.nodes:
            return []
        goal = model.nodes[target]
        plan = []
        for iri in _iris(mime, NODE_MIME):
            node = model.nodes.get(iri)
            if node is None or iri == target:
                return []
            if node.kind in TABLE_PART:
                if goal.kind not in (Kind.ATTRIBUTE, Kind.ELEMENT) or goal.column != node.column:
                    return []
                if iri in model.path_to_root(target) or node.parent == target:
                    return []
                plan.append(("move", iri, target))
            elif node.kind == Kind.ATTRIBUTE and goal.kind in (Kind.ROOT, Kind.TAXONOMY):
                if node.parent == target:
                    return []
                plan.append(("align", node.column, target))
            else:
                return []
        for iri in _iris(mime, CLASS_MIME):
            if goal.kind != Kind.ATTRIBUTE:
                return []
            plan.append(("align", goal.column, iri))
        return plan

    def canDropMimeData(self, mime, action, row, column, parent) -> bool:
        return bool(self.drop_plan(mime, self._target(row, parent)))

    def dropMimeData(self, mime, action, row, column, parent) -> bool:
        if action == Qt.DropAction.IgnoreAction:
            return True
        plan = self.drop_plan(mime, self._target(row, parent))
        if not plan or self.handler is None:
            return False
        return bool(self.handler(plan))


class VocabularyModel(QStandardItemModel):
    """The vocabulary's classes as a tree (a class with several parents appears under each);
    columns: label, IRI. Drags carry the class IRI; an attribute of the model dropped onto a
    class asks ``handler([("align", column, class_iri)])``."""

    def __init__(self, parent=None):
        super().__init__(0, 2, parent)
        self.setHorizontalHeaderLabels(["Class", "IRI"])
        self.vocabulary: Vocabulary | None = None
        self.handler = None
        self.columns_of = None  # node iri -> column of an attribute (set by the view)
        self.class_items: list[QStandardItem] = []

    def set_vocabulary(self, vocabulary: Vocabulary | None) -> None:
        self.removeRows(0, self.rowCount())
        self.vocabulary = vocabulary
        self.class_items: list[QStandardItem] = []
        if vocabulary is None:
            return
        graph = vocabulary.graph
        label = vocabulary.label
        roots = sorted((n for n in graph.nodes if graph.in_degree(n) == 0), key=lambda n: (label(n).lower(), n))

        def add(parent_item: QStandardItem, iri: str, path: frozenset) -> None:
            row = [QStandardItem(label(iri)), QStandardItem(iri)]
            for item in row:
                item.setData(iri, IRI_ROLE)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                              | Qt.ItemFlag.ItemIsDragEnabled | Qt.ItemFlag.ItemIsDropEnabled)
                item.setToolTip(iri)
            parent_item.appendRow(row)
            self.class_items.append(row[0])
            for child in sorted(graph.successors(iri), key=lambda n: (label(n).lower(), n)):
                if child not in path:
                    add(row[0], child, path | {child})

        for root in roots:
            add(self.invisibleRootItem(), root, frozenset({root}))

    def mark(self, in_model: set[str], aligned: set[str], pruned: set[str]) -> None:
        """Show which classes are in the model's taxonomy (bold), have a column aligned
        under them (a ▸ mark) or were pruned by the extraction (struck out)."""
        for item in self.class_items:
            iri = item.data(IRI_ROLE)
            font = item.font()
            font.setBold(iri in in_model)
            font.setStrikeOut(iri in pruned)
            item.setFont(font)
            label = self.vocabulary.label(iri)
            text = f"{label}  ▸ column" if iri in aligned else label
            if item.text() != text:
                item.setText(text)
            tip = iri
            if iri in in_model:
                tip += "\nin the tkl-Data Model's taxonomy"
            if iri in pruned:
                tip += "\npruned by the extraction (no column below it)"
            item.setToolTip(tip)

    def supportedDragActions(self):
        return Qt.DropAction.CopyAction

    def supportedDropActions(self):
        return Qt.DropAction.CopyAction | Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [CLASS_MIME, NODE_MIME]

    def mimeData(self, indexes) -> QMimeData:
        iris = list(dict.fromkeys(i.data(IRI_ROLE) for i in indexes if i.data(IRI_ROLE)))
        mime = QMimeData()
        mime.setData(CLASS_MIME, "\n".join(iris).encode("utf-8"))
        mime.setText("\n".join(iris))
        return mime

    def drop_plan(self, mime: QMimeData, parent: QModelIndex) -> list[tuple[str, str, str]]:
        target = parent.data(IRI_ROLE) if parent.isValid() else None
        if target is None or self.columns_of is None:
            return []
        plan = []
        for iri in _iris(mime, NODE_MIME):
            column = self.columns_of(iri)
            if column is None:
                return []
            plan.append(("align", column, target))
        return plan

    def canDropMimeData(self, mime, action, row, column, parent) -> bool:
        return bool(self.drop_plan(mime, parent))

    def dropMimeData(self, mime, action, row, column, parent) -> bool:
        if action == Qt.DropAction.IgnoreAction:
            return True
        plan = self.drop_plan(mime, parent)
        if not plan or self.handler is None:
            return False
        return bool(self.handler(plan))


class ClassFilter(QSortFilterProxyModel):
    """Search over the browser: a class matches when its label or IRI contains the text;
    its ancestors stay visible (recursive filtering)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterKeyColumn(-1)

    def set_text(self, text: str) -> None:
        self.setFilterFixedString(text.strip())
