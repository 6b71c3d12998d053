"""Item models of the Model view: the tkl-Data Model tree (taxonomy on top, table model
below; each node named by its value or column with its code — ``V-0``, ``A``, ``E`` — as a
small tag of its own; its label — a default one marked "not yet judged" —, AHP priority,
label score and weight in separate columns; searchable and filtered lazily, for models of
tens of thousands of values) and the vocabulary browser, both with their own MIME types for
drag and drop.

Drops never move items themselves: they become one undoable edit through the view's
``handler`` (the Workbench then tells every view the model changed and the tree is
rebuilt), so the models only offer CopyAction and never remove rows after a drag.
"""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QAbstractItemModel, QMimeData, QModelIndex, QSortFilterProxyModel, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont, QStandardItem, QStandardItemModel

from tklscore.core.model.data_model import TABLE_PART, Derivation, Kind, TklDataModel
from tklscore.core.model.data_model.nodes import UPPER
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
PROVISIONAL_TEXT = QBrush(QColor("#8a5a00"))
NOT_JUDGED = "not yet judged"
SUGGESTED = "class suggested, not confirmed"
EMPTY_VALUE = "(empty)"
SHOW_ALL, SHOW_UNJUDGED, SHOW_UNLABELLED = "all", "unjudged", "unlabelled"
_COLUMN_COUNT = 7
_ANSWERED = frozenset({Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole, IRI_ROLE, KIND_ROLE,
                       Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.FontRole, Qt.ItemDataRole.ForegroundRole,
                       Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.TextAlignmentRole})


def _flags_of(kind: Kind, bin_: bool) -> tuple:
    """The flags of a node's cells: (name column, label column, other columns)."""
    base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
    if kind in TABLE_PART or kind == Kind.ATTRIBUTE:
        base |= Qt.ItemFlag.ItemIsDragEnabled
    if kind in (Kind.ATTRIBUTE, Kind.ELEMENT, Kind.ROOT, Kind.TAXONOMY):
        base |= Qt.ItemFlag.ItemIsDropEnabled
    label = base | Qt.ItemFlag.ItemIsEditable if kind in TABLE_PART else base
    return (base | Qt.ItemFlag.ItemIsEditable if bin_ else base, label, base)


_FLAGS = {(kind, bin_): _flags_of(kind, bin_) for kind in Kind for bin_ in (False, True)}
_FONTS: dict[tuple, QFont] = {}
SHOWS = (SHOW_ALL, SHOW_UNJUDGED, SHOW_UNLABELLED)
PROVISIONAL_TIP = ("'{label}' is the default label every new value starts with: not yet judged. Set a label, or "
                   "Confirm to keep this one as your judgement.")
SUGGESTED_TIP = ("The class above this column was suggested from its name and values; drag another class onto it, "
                 "or Confirm to keep it.")
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


class ModelTreeModel(QAbstractItemModel):
    """The tkl-Data Model as a tree of rows (one per node), read lazily from the model: a
    reset is linear in the model's size and only the rows on screen are ever drawn, so a
    model with 20,000 values stays responsive. A search text and a "show" choice (every
    node, the values not yet judged, the values without a label of their own) filter it; the
    ancestors of what matches stay visible.

    ``handler`` is called for drops: ``handler([("move", node_iri, target_iri)])`` for a value
    or element dropped onto an element/attribute of its column; ``handler([("align", column,
    class_iri)])`` for a vocabulary class dropped onto an attribute or an attribute dropped
    onto a taxonomy class. ``editor(kind, iri, text)`` makes an edit typed in place: a bin's
    interval (``"bin"``) or a label (``"label"``). Both return True when the edit was made."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model: TklDataModel | None = None
        self.derivation: Derivation | None = None
        self.handler = None
        self.editor = None
        self.text = ""
        self.show = SHOW_ALL
        self.matching = 0                       # nodes that match the search and the "show" choice
        self._iris: list[str] = []              # node id - 1 -> iri (ids start at 1; 0 is the top level)
        self._ids: dict[str, int] = {}
        self._parent: list[int] = [0]           # id -> parent id
        self._kids: dict[int, list[int]] = {}   # id -> visible children ids, in model order
        self._row: dict[int, int] = {}          # visible id -> its row under its parent
        self._flags: list = [None]              # id -> (name column, label column, other columns) flags
        self._shape = None                      # the shape of the nodes the rows were built for

    # ------------------------------------------------------------------ content

    def set_model(self, model: TklDataModel | None) -> bool:
        """Show ``model``; returns whether the rows were rebuilt (False: the same nodes in the
        same places, only labels or priorities changed — the rows, their expansion and the
        selection stay, and only the cells are redrawn)."""
        if model is not None and self.model is not None and model.nodes.shape == self._shape:
            kids = self._kids
            self.model, self.derivation = model, model.derive()
            if self.text or self.show != SHOW_ALL:
                self._filter()
            if self._kids == kids:
                top = len(self._kids.get(0, ()))
                if top:
                    self.dataChanged.emit(self.index(0, 0), self.index(top - 1, _COLUMN_COUNT - 1))
                return False
            self.beginResetModel()
            self.endResetModel()
            return True
        self.beginResetModel()
        self.model = model
        self._shape = model.nodes.shape if model is not None else None
        self.derivation = model.derive() if model is not None else None
        nodes = model.nodes if model is not None else {}
        self._iris = list(nodes)
        self._ids = {iri: k for k, iri in enumerate(self._iris, start=1)}
        ids = self._ids
        self._parent = [0] + [ids.get(nodes[iri].parent, 0) if nodes[iri].parent is not None else 0
                              for iri in self._iris]
        continuous = {c for c in model.columns if model.attribute(c).continuous} if model is not None else set()
        self._flags = [None] + [_FLAGS[(nodes[iri].kind, nodes[iri].kind == Kind.VALUE
                                        and nodes[iri].column in continuous)] for iri in self._iris]
        self._filter()
        self.endResetModel()
        return True

    def set_filter(self, text: str, show: str = SHOW_ALL) -> None:
        """Show the nodes whose name, code, label, column or value holds ``text`` (any case) and
        that ``show`` asks for (:data:`SHOW_ALL`, :data:`SHOW_UNJUDGED`, :data:`SHOW_UNLABELLED`)."""
        if show not in SHOWS:
            raise ValueError(f"show is one of {', '.join(SHOWS)}")
        self.beginResetModel()
        self.text, self.show = text.strip().lower(), show
        self._filter()
        self.endResetModel()

    def _filter(self) -> None:
        count = len(self._iris)
        parent = self._parent
        if not self.text and self.show == SHOW_ALL:
            visible = None
            self.matching = count
        else:
            visible = bytearray(count + 1)
            matching = 0
            for k in range(1, count + 1):
                if self._matches(k):
                    matching += 1
                    while k and not visible[k]:
                        visible[k] = 1
                        k = parent[k]
            self.matching = matching
        kids: dict[int, list[int]] = {}
        root = self._ids.get(self.model.root) if self.model is not None else None
        if root is not None and (visible is None or visible[root]):
            kids[0] = [root]   # the root first; unconnected nodes (unaligned attributes) after it
        for k in range(1, count + 1):
            if (visible is None or visible[k]) and k != root:
                kids.setdefault(parent[k], []).append(k)
        self._kids = kids
        self._row = {k: row for children in kids.values() for row, k in enumerate(children)}

    def _matches(self, k: int) -> bool:
        node = self.model.nodes[self._iris[k - 1]]
        if self.show == SHOW_UNJUDGED and not node.provisional:
            return False
        if self.show == SHOW_UNLABELLED and not (node.kind in TABLE_PART and node.qualitative is None):
            return False
        if not self.text:
            return True
        tag, name = display_name(node)
        haystack = " ".join(filter(None, (name, tag, node.label, node.qualitative, node.column, node.value)))
        return self.text in haystack.lower()

    # ------------------------------------------------------------------ Qt's item model

    def index(self, row: int, column: int, parent: QModelIndex = QModelIndex()) -> QModelIndex:
        kids = self._kids.get(parent.internalId())   # an invalid parent's id is 0: the top level
        if kids is None or row < 0 or row >= len(kids) or column < 0 or column >= _COLUMN_COUNT:
            return QModelIndex()
        return self.createIndex(row, column, kids[row])

    def parent(self, index: QModelIndex = QModelIndex()) -> QModelIndex:
        if not index.isValid():
            return QModelIndex()
        above = self._parent[index.internalId()]
        if not above:
            return QModelIndex()
        return self.createIndex(self._row[above], 0, above)

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._kids.get(parent.internalId() if parent.isValid() else 0, ()))

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return len(COLUMNS)

    def hasChildren(self, parent: QModelIndex = QModelIndex()) -> bool:
        return self.rowCount(parent) > 0

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return HEADER_TIPS.get(section)
        return None

    def node_at(self, index: QModelIndex):
        return self.model.nodes[self._iris[index.internalId() - 1]] if index.isValid() else None

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        # the view asks each cell it paints or measures for eight roles: those answered by nothing, at once
        if role not in _ANSWERED or not index.isValid() or self.model is None:
            return None
        node = self.node_at(index)
        column = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._text(node, column, role == Qt.ItemDataRole.EditRole)
        if role == IRI_ROLE:
            return node.iri
        if role == KIND_ROLE:
            return node.kind.value
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tip(node, column)
        if role == Qt.ItemDataRole.FontRole:
            return self._font(node, column)
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == CODE_COL:
                return TAG_TEXT
            if column == LABEL_COL and node.provisional:
                return PROVISIONAL_TEXT
            return TAXONOMY_TEXT if node.kind in UPPER else None
        if role == Qt.ItemDataRole.BackgroundRole:
            return TAXONOMY_BRUSH if node.kind in UPPER else None
        if role == Qt.ItemDataRole.TextAlignmentRole and column in NUMBER_COLUMNS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _text(self, node, column: int, editing: bool = False) -> str:
        if column == NODE_COL:
            name = display_name(node)[1]
            if node.kind == Kind.ATTRIBUTE and not editing:
                count = len(self.model.nodes.values_of(node.column))
                return f"{name}  ({count:,} {'bins' if node.continuous else 'values'})" if count > 20 else name
            return name if name or editing else EMPTY_VALUE
        if column == CODE_COL:
            return display_name(node)[0]
        if column == KIND_COL:
            return node.kind.value
        if column == LABEL_COL:
            if node.kind == Kind.ATTRIBUTE:
                return SUGGESTED if node.provisional else ""
            if node.qualitative is not None:
                return node.qualitative if editing or not node.provisional else f"{node.qualitative} · {NOT_JUDGED}"
            inherited = inherited_label(self.model, node.iri) if node.kind in TABLE_PART else None
            return "" if inherited is None or editing else f"({inherited})"
        priority = self.derivation.priorities.get(node.iri)
        if column == PRIORITY_COL:
            return "" if priority is None or node.kind in TABLE_PART else f"{priority:.5f}"
        if column == LABEL_SCORE_COL:
            return "" if priority is None or node.kind not in TABLE_PART else f"{priority:.2f}"
        weight = self.derivation.weights.get(node.iri)
        return "" if weight is None else f"{weight:.5f}"

    def _tip(self, node, column: int) -> str | None:
        if column == CODE_COL:
            return HEADER_TIPS[CODE_COL]
        if column == LABEL_COL:
            if node.kind == Kind.ATTRIBUTE and node.provisional:
                return SUGGESTED_TIP
            if node.provisional:
                return PROVISIONAL_TIP.format(label=node.qualitative)
            inherited = inherited_label(self.model, node.iri) if node.kind in TABLE_PART else None
            if inherited is not None:
                source = next(self.model.nodes[a] for a in self.model.path_to_root(node.iri)[1:]
                              if self.model.nodes[a].qualitative is not None)
                return INHERITED_TIP.format(label=f"'{inherited}'", source=display_name(source)[1])
            return None
        if column != NODE_COL:
            return None
        tip = f"{node.label}\n{node.iri}"
        if node.kind == Kind.VALUE:
            tip += f"\ntable value: {node.value} (column {node.column})"
            if self.model.attribute(node.column).continuous:
                tip += "\ndouble-click to edit the bin; its neighbour follows the shared edge"
        return tip

    def _font(self, node, column: int) -> QFont:
        key = (column == CODE_COL, node.kind in UPPER or (column == LABEL_COL and node.provisional),
               node.kind == Kind.ATTRIBUTE and column != CODE_COL)
        font = _FONTS.get(key)
        if font is None:
            font = _FONTS[key] = QFont()
            if key[0]:
                font.setPointSizeF(max(6.0, font.pointSizeF() * 0.8))
            font.setItalic(key[1])
            font.setBold(key[2])
        return font

    def flags(self, index: QModelIndex):
        # called for every cell of a selection: a look-up of what set_model worked out per node
        k = index.internalId()
        if not k:
            return Qt.ItemFlag.ItemIsDropEnabled
        column = index.column()
        return self._flags[k][0 if column == NODE_COL else 1 if column == LABEL_COL else 2]

    def setData(self, index: QModelIndex, value, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or self.editor is None:
            return False
        node, text = self.node_at(index), str(value).strip()
        kind = "bin" if index.column() == NODE_COL else "label" if index.column() == LABEL_COL else None
        if kind is None or text == self._text(node, index.column(), editing=True):
            return False
        # the edit resets this model: made once the editor has closed
        QTimer.singleShot(0, lambda: self.editor(kind, node.iri, text))
        return True

    def index_of(self, iri: str, column: int = NODE_COL) -> QModelIndex:
        k = self._ids.get(iri)
        if k is None or k not in self._row:
            return QModelIndex()
        return self.createIndex(self._row[k], column, k)

    def iri(self, index: QModelIndex) -> str | None:
        return self._iris[index.internalId() - 1] if index.isValid() else None

    def iris_in(self, selection) -> list[str]:
        """The nodes a QItemSelection covers, from its ranges (not cell by cell)."""
        chosen: dict[int, None] = {}
        for selected in selection:
            kids = self._kids.get(selected.parent().internalId(), [])
            chosen.update(dict.fromkeys(kids[selected.top():selected.bottom() + 1]))
        return [self._iris[k - 1] for k in chosen]

    def branches(self) -> list[QModelIndex]:
        """The shown nodes that have shown children (the only ones a tree can expand)."""
        return [self.createIndex(self._row[k], 0, k) for k in self._kids if k and k in self._row]

    def shown(self, iri: str) -> bool:
        return self._ids.get(iri) in self._row

    def shown_iris(self, kinds=TABLE_PART) -> list[str]:
        """The nodes of ``kinds`` the filter shows, in model order."""
        nodes = self.model.nodes if self.model is not None else {}
        return [self._iris[k - 1] for k in sorted(self._row) if nodes[self._iris[k - 1]].kind in kinds]

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
                if node.parent == target and not node.provisional:
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
        self._marks = None
        if vocabulary is None:
            return
        graph = vocabulary.graph
        label = vocabulary.label
        roots = sorted((n for n in graph.nodes if graph.in_degree(n) == 0), key=lambda n: (label(n).lower(), n))

        flags = (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled
                 | Qt.ItemFlag.ItemIsDropEnabled)

        def row_of(iri: str, path: frozenset) -> list[QStandardItem]:
            """The class's row with its subtree, built apart from the model (no signal per row)."""
            row = [QStandardItem(label(iri)), QStandardItem(iri)]
            for item in row:
                item.setData(iri, IRI_ROLE)
                item.setFlags(flags)
                item.setToolTip(iri)
            self.class_items.append(row[0])
            for child in sorted(graph.successors(iri), key=lambda n: (label(n).lower(), n)):
                if child not in path:
                    row[0].appendRow(row_of(child, path | {child}))
            return row

        for root in roots:
            self.invisibleRootItem().appendRow(row_of(root, frozenset({root})))

    def mark(self, in_model: set[str], aligned: set[str], pruned: set[str]) -> None:
        """Show which classes are in the model's taxonomy (bold), have a column aligned
        under them (a ▸ mark) or were pruned by the extraction (struck out)."""
        marks = (frozenset(in_model), frozenset(aligned), frozenset(pruned))
        if marks == getattr(self, "_marks", None):
            return
        self._marks = marks
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
