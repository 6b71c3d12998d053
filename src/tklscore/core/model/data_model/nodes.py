"""The nodes of the tkl-Data Model and the table that holds them with a child index.

A :class:`Node` is immutable; an edit replaces it. :class:`NodeTable` is the model's
``nodes`` dict (insertion order is the order of siblings) that also keeps, for every
node, its children and, for every column, its attribute and values — so walking the
tree, finding a column's attribute or listing its values never scans the whole model.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from itertools import count

_tables = count()
_shapes = count()
DEFAULT_EXPERT = "expert 1"


class Kind(str, Enum):
    ROOT = "root"
    TAXONOMY = "taxonomy"
    ATTRIBUTE = "attribute"
    ELEMENT = "element"
    VALUE = "value"


CRITERIA = (Kind.TAXONOMY, Kind.ATTRIBUTE)
TABLE_PART = (Kind.ELEMENT, Kind.VALUE)
UPPER = (Kind.ROOT, Kind.TAXONOMY)


@dataclass(frozen=True)
class Node:
    iri: str
    kind: Kind
    label: str
    parent: str | None = None
    column: str | None = None          # attribute, element, value: the table column
    value: str | None = None           # value: the table value as written, or a bin's interval
    continuous: bool = False           # attribute
    qualitative: str | None = None     # element, value: a label of the model's scale
    assigned: float | None = None      # taxonomy class, attribute: a priority set directly
    provisional: bool = False          # value, element: the label is a default, not yet judged;
    #                                    attribute: the alignment is a suggestion, not yet confirmed


def _same_place(a: Node, b: Node) -> bool:
    """Whether two versions of a node sit at the same place of the tree (only a label, an
    assigned priority or the "not yet judged" mark differ)."""
    return (a.kind, a.parent, a.column, a.value, a.continuous, a.label) == \
        (b.kind, b.parent, b.column, b.value, b.continuous, b.label)


class NodeTable(dict):
    """``iri → Node`` that indexes children by parent, attributes and values by column.
    ``version`` counts the changes; ``structure`` counts those that move, add or remove a
    node, and ``relabelled`` lists the nodes changed in place since this table was made (a
    label), so that what is derived from the nodes can be kept — or patched — over an edit."""

    def __init__(self, nodes=()):
        super().__init__()
        self.version = 0
        self.structure = 0
        self.relabelled: list[str] = []
        self.shape = next(_shapes)   # the same for copies that have the same nodes in the same places
        self.identity = next(_tables)   # with version: names this table's state for caches
        self._position: dict[str, int] = {}
        self._counter = count()
        self._children: dict[str | None, set[str]] = {}
        self._attributes: dict[str, str] = {}
        self._values: dict[str, dict[str, str]] = {}   # column -> table value -> iri
        for iri, node in dict(nodes).items():
            self[iri] = node

    def __setitem__(self, iri: str, node: Node) -> None:
        if iri in self:
            old = super().__getitem__(iri)
            if _same_place(old, node):  # in place: the indexes stay as they are
                super().__setitem__(iri, node)
                self.version += 1
                self.relabelled.append(iri)
                return
            self._unindex(old)
        else:
            self._position[iri] = next(self._counter)
        super().__setitem__(iri, node)
        self.version += 1
        self.structure += 1
        self.shape = next(_shapes)
        self._children.setdefault(node.parent, set()).add(iri)
        if node.kind == Kind.ATTRIBUTE and node.column is not None:
            self._attributes[node.column] = iri
        elif node.kind == Kind.VALUE and node.column is not None:
            self._values.setdefault(node.column, {})[node.value] = iri

    def __delitem__(self, iri: str) -> None:
        self._unindex(super().__getitem__(iri))
        del self._position[iri]
        super().__delitem__(iri)
        self.version += 1
        self.structure += 1
        self.shape = next(_shapes)

    def _unindex(self, node: Node) -> None:
        self._children[node.parent].discard(node.iri)
        if node.kind == Kind.ATTRIBUTE and self._attributes.get(node.column) == node.iri:
            del self._attributes[node.column]
        elif node.kind == Kind.VALUE and node.column is not None:
            if self._values[node.column].get(node.value) == node.iri:
                del self._values[node.column][node.value]

    def _ordered(self, iris) -> list[str]:
        return sorted(iris, key=self._position.__getitem__)

    def children_of(self, iri: str | None) -> list[str]:
        """The children of ``iri`` in model order (``None``: the nodes without a parent)."""
        children = self._children.get(iri)
        if not children:
            return []
        return list(children) if len(children) == 1 else self._ordered(children)

    def attribute_of(self, column: str) -> str | None:
        return self._attributes.get(column)

    def attribute_columns(self) -> list[str]:
        """The columns that have an attribute, in model order."""
        return sorted(self._attributes, key=lambda c: self._position[self._attributes[c]])

    def values_of(self, column: str) -> list[str]:
        return self._ordered(self._values.get(column, {}).values())

    def value_of(self, column: str, value: str) -> str | None:
        """The node of ``column``'s table value (or bin) ``value``, if the model has one."""
        return self._values.get(column, {}).get(value)

    def copy(self) -> "NodeTable":
        """An independent table with the same nodes and indexes, copied as they are (not
        rebuilt node by node: an undoable edit copies the model)."""
        other = NodeTable()
        dict.update(other, self)
        other._position = dict(self._position)
        other._counter = count(max(self._position.values(), default=-1) + 1)
        other._children = {parent: set(children) for parent, children in self._children.items()}
        other._attributes = dict(self._attributes)
        other._values = {column: dict(values) for column, values in self._values.items()}
        other.shape = self.shape
        return other

    def pop(self, *args):
        raise TypeError("remove nodes with del")

    def update(self, *args, **kwargs) -> None:
        for iri, node in dict(*args, **kwargs).items():
            self[iri] = node

    def setdefault(self, *args):
        raise TypeError("add nodes by assignment")

    def clear(self) -> None:
        for iri in list(self):
            del self[iri]
