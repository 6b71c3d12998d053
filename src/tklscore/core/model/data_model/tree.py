"""The tkl-Data Model's tree (data-model.md §1, thesis Chapter 4.1-4.2) and its edits.

One rooted tree: the domain taxonomy (classes of a vocabulary such as DPV) on top, the
source-table model written with DSO below it (attributes ``A.``, elements ``E.``, values
``V.``), each attribute aligned under a taxonomy class; the AHP judgements of every
criteria group. What is computed from it lives beside this module: priorities and
weights in :mod:`.derivation`, re-alignment in :mod:`.realignment`, keeping up with the
source table in :mod:`.table_sync`, Turtle in :mod:`.turtle`.
"""

from __future__ import annotations

import os
from collections import deque
from dataclasses import replace
from urllib.parse import quote

import numpy as np

from tklscore.core.errors import InputError
from tklscore.core.files.rdf import local_name
from tklscore.core.model.ahp import check_judgement, reciprocal_matrix
from tklscore.core.model.data_model import derivation, realignment, table_sync, turtle
from tklscore.core.model.data_model.nodes import (CRITERIA, DEFAULT_EXPERT, TABLE_PART, UPPER, Kind, Node,
                                                  NodeTable)
from tklscore.core.model.labels import HL7_CONFIDENTIALITY, LabelScale
from tklscore.core.scoring.weights import Interval, Weights


class TklDataModel:
    def __init__(self, namespace: str = "https://tklscore.org/tables/T#", scale: LabelScale = HL7_CONFIDENTIALITY,
                 method: str = "eigenvector", random_index: str = "thesis"):
        self.namespace = namespace
        self.scale = scale
        self.method = method
        self.random_index = random_index
        self.nodes = NodeTable()  # insertion order is the order of children
        self.root: str | None = None
        self.source: str | None = None       # the name of the table the model follows (table_sync.follow_table)
        self.vocabulary: str | None = None   # the key of the shipped vocabulary its taxonomy comes from
        # criteria group (parent iri) -> expert -> (a, b) -> rating of a over b
        self.judgements: dict[str, dict[str, dict[tuple[str, str], float]]] = {}
        # derivation.py keeps what it took from the nodes, and each group's AHP result
        self._table_part_cache = None
        self._group_cache: dict = {}

    @property
    def nodes(self) -> NodeTable:
        """``iri → Node`` in model order, with a child index (assigning a dict re-indexes it)."""
        return self._nodes

    @nodes.setter
    def nodes(self, nodes) -> None:
        self._nodes = nodes if isinstance(nodes, NodeTable) else NodeTable(nodes)

    # ------------------------------------------------------------------ structure

    def children(self, iri: str) -> list[str]:
        return self.nodes.children_of(iri)

    def node(self, iri: str) -> Node:
        if iri not in self.nodes:
            raise InputError(f"the model has no node '{iri}'")
        return self.nodes[iri]

    def path_to_root(self, iri: str) -> list[str]:
        path, seen = [], set()
        while iri is not None:
            if iri in seen:
                raise InputError(f"the model has a cycle through '{self.nodes[iri].label}'")
            seen.add(iri)
            path.append(iri)
            iri = self.nodes[iri].parent
        return path

    def top_down(self, kinds=None) -> list[str]:
        """The nodes reachable from the root, breadth first, children in model order (``kinds``:
        only nodes of these kinds, not walking below the others)."""
        if self.root is None:
            return []
        order, queue, nodes = [], deque([self.root]), self.nodes
        while queue:
            iri = queue.popleft()
            order.append(iri)
            children = nodes.children_of(iri)
            queue.extend(children if kinds is None else (c for c in children if nodes[c].kind in kinds))
        return order

    def attribute(self, column: str) -> Node:
        iri = self.nodes.attribute_of(column)
        if iri is None:
            raise InputError(f"the model has no attribute for column '{column}'",
                             hint=f"attributes: {', '.join(self.columns) or 'none'}")
        return self.nodes[iri]

    @property
    def columns(self) -> list[str]:
        return self.nodes.attribute_columns()

    def values_of(self, column: str) -> list[Node]:
        """The value (or bin) nodes of ``column``, in model order."""
        return [self.nodes[iri] for iri in self.nodes.values_of(column)]

    def find(self, label: str) -> Node:
        """A node by its label ("A.Disease", "E.Viral", "V-0.Flu", "Health") or IRI."""
        if label in self.nodes:
            return self.nodes[label]
        found = [n for n in self.nodes.values() if n.label == label]
        if len(found) != 1:
            raise InputError(f"the model has {'no' if not found else 'several'} node(s) labelled '{label}'")
        return found[0]

    def _iri(self, local: str) -> str:
        return self.namespace + quote(local, safe="-._~")

    def _add(self, node: Node) -> str:
        if node.iri in self.nodes:
            raise InputError(f"the model already has a node '{node.label}'")
        if node.parent is not None and node.parent not in self.nodes:
            raise InputError(f"'{node.label}': parent '{node.parent}' is not in the model")
        self.nodes[node.iri] = node
        return node.iri

    @classmethod
    def from_taxonomy(cls, taxonomy, **options) -> "TklDataModel":
        """A model whose upper part is ``taxonomy`` (a :class:`tklscore.core.model.taxonomy.Taxonomy`)."""
        model = cls(**options)
        for iri in list(taxonomy.nodes):
            parent = taxonomy.parent.get(iri)
            model._add(Node(iri, Kind.ROOT if iri == taxonomy.root else Kind.TAXONOMY,
                            taxonomy.labels.get(iri, local_name(iri)), parent))
        model.root = taxonomy.root
        return model

    def add_taxonomy_class(self, iri: str, label: str, parent: str | None) -> str:
        if parent is None:
            if self.root is not None:
                raise InputError(f"the model already has a root ('{self.nodes[self.root].label}')")
            self.root = iri
            return self._add(Node(iri, Kind.ROOT, label))
        if self.node(parent).kind not in UPPER:
            raise InputError(f"taxonomy class '{label}' must be below a taxonomy class")
        return self._add(Node(iri, Kind.TAXONOMY, label, parent))

    def add_attribute(self, column: str, continuous: bool = False, aligned_to: str | None = None,
                      provisional: bool = False) -> str:
        """The attribute of ``column`` (``provisional``: its alignment is a suggestion)."""
        if self.nodes.attribute_of(column) is not None:
            raise InputError(f"the model already has an attribute for column '{column}'")
        if aligned_to is not None and self.node(aligned_to).kind not in UPPER:
            raise InputError(f"column '{column}' can only be aligned under a taxonomy class")
        label = "A." + column.replace(" ", "-")
        return self._add(Node(self._iri(label), Kind.ATTRIBUTE, label, aligned_to, column=column,
                              continuous=continuous, provisional=provisional and aligned_to is not None))

    def align(self, column: str, taxonomy_class: str, provisional: bool = False) -> None:
        """Make the attribute of ``column`` a subclass of ``taxonomy_class`` (``provisional``:
        as a suggestion the expert has still to confirm)."""
        attribute = self.attribute(column)
        if self.node(taxonomy_class).kind not in UPPER:
            raise InputError(f"column '{column}' can only be aligned under a taxonomy class, "
                             f"not under '{self.nodes[taxonomy_class].label}'")
        if attribute.parent != taxonomy_class:
            self._forget_judgements_of(attribute.iri)
        self.nodes[attribute.iri] = replace(attribute, parent=taxonomy_class, provisional=provisional)

    def _table_parent(self, column: str, parent: str | None) -> str:
        attribute = self.attribute(column)
        if parent is None:
            return attribute.iri
        target = self.node(parent)
        if target.iri != attribute.iri and not (target.kind == Kind.ELEMENT and target.column == column):
            raise InputError(f"a value or element of '{column}' belongs under its attribute or one of its "
                             f"elements, not under '{target.label}'")
        return target.iri

    def add_element(self, column: str, name: str, parent: str | None = None,
                    qualitative: str | None = None, provisional: bool = False) -> str:
        parent = self._table_parent(column, parent)
        if qualitative is not None:
            self.scale.priority(qualitative)
        label = "E." + name.replace(" ", "-")
        if self._iri(label) in self.nodes:
            label = self._unique_label("E", name, column)
        return self._add(Node(self._iri(label), Kind.ELEMENT, label, parent, column=column, qualitative=qualitative,
                              provisional=provisional and qualitative is not None))

    def add_value(self, column: str, value: str, parent: str | None = None, qualitative: str | None = None,
                  label: str | None = None, provisional: bool = False) -> str:
        """A value of a discrete attribute, or a bin (an interval such as ``[0,30)``) of a
        continuous one."""
        attribute = self.attribute(column)
        if attribute.continuous:
            interval = Interval.parse(value)
            if interval is None or interval.is_empty():
                raise InputError(f"'{value}' is not a bin such as [0,30) or [30,inf) for continuous "
                                 f"column '{column}'")
            for other in self.values_of(column):
                if Interval.parse(other.value).overlaps(interval):
                    raise InputError(f"bin {value} of '{column}' overlaps bin {other.value}")
        elif self.nodes.value_of(column, value) is not None:
            raise InputError(f"column '{column}' already has the value '{value}' in the model")
        parent = self._table_parent(column, parent)
        if qualitative is not None:
            self.scale.priority(qualitative)
        if label is None:
            label = "V." + (table_sync.bin_name(value) if attribute.continuous else value.replace(" ", "-"))
        if self._iri(label) in self.nodes:
            label = self._unique_label("V", table_sync.bin_name(value) if attribute.continuous else value, column)
        return self._add(Node(self._iri(label), Kind.VALUE, label, parent, column=column, value=value,
                              qualitative=qualitative, provisional=provisional and qualitative is not None))

    def _unique_label(self, prefix: str, name: str, column: str) -> str:
        index = self.columns.index(column)
        label = f"{prefix}-{index}.{name.replace(' ', '-')}"
        while self._iri(label) in self.nodes:
            index += 1
            label = f"{prefix}-{index}.{name.replace(' ', '-')}"
        return label

    def move(self, iri: str, new_parent: str) -> None:
        """Re-parent a value or element within its attribute (e.g. into an element)."""
        node = self.node(iri)
        if node.kind not in TABLE_PART:
            raise InputError(f"only values and elements can be moved; use align() for '{node.label}'")
        target = self._table_parent(node.column, new_parent)
        if iri in self.path_to_root(target):
            raise InputError(f"'{node.label}' cannot move below itself")
        self.nodes[iri] = replace(node, parent=target)

    def remove(self, iri: str) -> None:
        """Remove a node with everything below it (and the judgements that name them)."""
        node = self.node(iri)
        if node.kind in UPPER and self.children(iri):
            raise InputError(f"taxonomy class '{node.label}' still has children")
        for child in self.children(iri):
            self.remove(child)
        self._forget_judgements_of(iri)
        self.judgements.pop(iri, None)
        del self.nodes[iri]
        if iri == self.root:
            self.root = None

    def set_label(self, iri: str, qualitative: str | None, provisional: bool = False) -> None:
        """The expert's label of a value or element (None clears it); ``provisional`` marks it
        a default that is not yet judged."""
        node = self.node(iri)
        if node.kind not in TABLE_PART:
            raise InputError(f"'{node.label}' is a {node.kind.value}: only values and elements take a label")
        if qualitative is not None:
            self.scale.priority(qualitative)
        self.nodes[iri] = replace(node, qualitative=qualitative, provisional=provisional and qualitative is not None)

    def set_labels(self, iris, qualitative: str | None) -> int:
        """One label for several values and elements (all are checked before any changes);
        returns how many changed."""
        nodes = [self.node(iri) for iri in dict.fromkeys(iris)]
        for node in nodes:
            if node.kind not in TABLE_PART:
                raise InputError(f"'{node.label}' is a {node.kind.value}: only values and elements take a label")
        if qualitative is not None:
            self.scale.priority(qualitative)
        changed = 0
        for node in nodes:
            if node.qualitative != qualitative or node.provisional:
                self.nodes[node.iri] = replace(node, qualitative=qualitative, provisional=False)
                changed += 1
        return changed

    def confirm(self, iris) -> int:
        """Accept the defaults of these nodes as the expert's own: a value's or element's label
        (it is no longer "not yet judged"), an attribute's suggested alignment. Returns how many."""
        changed = 0
        for iri in dict.fromkeys(iris):
            node = self.node(iri)
            if node.provisional:
                self.nodes[iri] = replace(node, provisional=False)
                changed += 1
        return changed

    def unjudged(self) -> list[str]:
        """Values and elements whose label is a default, not yet judged (model order)."""
        return [iri for iri, n in self.nodes.items() if n.provisional and n.kind in TABLE_PART]

    def judged_groups(self) -> dict:
        """The criteria groups whose judgements (or assigned priorities) give priorities, with
        their AHP results (without deriving every value's weight)."""
        return derivation.group_results(self)

    def suggested_alignments(self) -> list[str]:
        """Columns whose alignment is a suggestion the expert has not confirmed."""
        return [c for c in self.columns if self.attribute(c).provisional]

    def taxonomy_nodes(self) -> list[str]:
        """The root and the taxonomy classes below it, top down (without walking the values)."""
        return self.top_down(UPPER)

    def unlabelled(self) -> list[str]:
        """First-level values and elements without a label (each one a problem, §2)."""
        nodes = self.nodes
        return [iri for column in nodes.attribute_columns() for iri in nodes.children_of(nodes.attribute_of(column))
                if nodes[iri].qualitative is None]

    def set_scale(self, scale: LabelScale) -> None:
        """Use another label scale; every label in use must exist in it."""
        unknown = sorted({n.qualitative for n in self.nodes.values() if n.qualitative} - set(scale.names))
        if unknown:
            raise InputError(f"the scale '{scale.name}' lacks the label(s) in use: {', '.join(unknown)}")
        self.scale = scale

    def set_assigned_priority(self, iri: str, priority: float | None) -> None:
        node = self.node(iri)
        if node.kind not in CRITERIA:
            raise InputError(f"'{node.label}' is a {node.kind.value}: only taxonomy classes and attributes "
                             f"have criteria priorities")
        if priority is not None and not 0.0 <= priority <= 1.0:
            raise InputError(f"priority {priority:g} of '{node.label}' is outside [0, 1]")
        self.nodes[iri] = replace(node, assigned=priority)

    # ------------------------------------------------------------------ criteria groups, judgements

    def criteria_group(self, parent: str) -> list[str]:
        return [c for c in self.nodes.children_of(parent) if self.nodes[c].kind in CRITERIA]

    def groups(self) -> list[str]:
        """Parents whose criteria group needs AHP (two or more criteria)."""
        return derivation.groups(self)

    def set_judgement(self, parent: str, a: str, b: str, rating: float | None,
                      expert: str = DEFAULT_EXPERT) -> None:
        """Expert's rating of criterion ``a`` over ``b`` in the group under ``parent``
        (a Saaty-scale number; 1/3 means b is weakly more important); None clears it."""
        group = self.criteria_group(parent)
        for iri in (a, b):
            if iri not in group:
                raise InputError(f"'{self.nodes[iri].label if iri in self.nodes else iri}' is not a criterion "
                                 f"of the group under '{self.node(parent).label}'")
        if a == b:
            raise InputError("a criterion is not compared with itself")
        if rating is not None:
            rating = check_judgement(rating, f"'{self.nodes[a].label}' over '{self.nodes[b].label}'")
        table = self.judgements.setdefault(parent, {}).setdefault(expert, {})
        table.pop((b, a), None)
        table.pop((a, b), None)
        if rating is not None:
            table[(a, b)] = float(rating)

    def criterion(self, parent: str, name: str) -> str:
        """A criterion of the group under ``parent`` by its label, local name, IRI or (an
        attribute) its column; an error listing the group's criteria otherwise."""
        group = self.criteria_group(parent)
        text = str(name).strip()
        for iri in group:
            node = self.nodes[iri]
            if text in (iri, node.label, node.column, local_name(iri)):
                return iri
        folded = [iri for iri in group if text.lower() in {self.nodes[iri].label.lower(), local_name(iri).lower()}]
        if len(folded) == 1:
            return folded[0]
        raise InputError(f"'{text}' is not a criterion of the group under '{self.node(parent).label}'",
                         hint="its criteria: " + ", ".join(self.nodes[c].label for c in group))

    def set_judgements(self, parent: str, criteria: list[str], matrix, expert: str = DEFAULT_EXPERT) -> None:
        """Replace ``expert``'s judgements of the group under ``parent`` by a pairwise matrix whose
        rows and columns are ``criteria`` (names as :meth:`criterion` reads them, in any order;
        NaN: not judged). The matrix must cover the whole group."""
        group = self.criteria_group(parent)
        where = f"the criteria group under '{self.node(parent).label}'"
        if len(group) < 2:
            raise InputError(f"{where} has {len(group)} criterion; a group of one needs no judgements")
        if len(criteria) != len(group):
            raise InputError(f"the matrix compares {len(criteria)} criteria, but {where} has {len(group)}: "
                             + ", ".join(self.nodes[c].label for c in group),
                             hint="write one row and one column per criterion of the group")
        iris = [self.criterion(parent, name) for name in criteria]
        if len(set(iris)) != len(iris):
            raise InputError(f"the matrix names a criterion of {where} twice")
        values = np.asarray(matrix, dtype=np.float64)
        if values.shape != (len(group), len(group)):
            raise InputError(f"the matrix is {'×'.join(map(str, values.shape))}, but {where} has {len(group)} criteria")
        pairs = [(iris[i], iris[j], float(values[i, j])) for i in range(len(iris)) for j in range(i + 1, len(iris))
                 if not np.isnan(values[i, j])]
        if not pairs:
            raise InputError(f"the matrix holds no judgement for {where}")
        for a, b, rating in pairs:  # every judgement is checked before the expert's old ones are replaced
            check_judgement(rating, f"'{self.nodes[a].label}' over '{self.nodes[b].label}'")
        order = {iri: k for k, iri in enumerate(group)}
        self.judgements.setdefault(parent, {})[expert] = {}
        for a, b, rating in pairs:  # stored in the group's order, as the views enter them
            if order[a] < order[b]:
                self.set_judgement(parent, a, b, rating, expert)
            else:
                self.set_judgement(parent, b, a, 1.0 / rating, expert)

    def judgement_matrix(self, parent: str, expert: str = DEFAULT_EXPERT) -> np.ndarray:
        """The expert's reciprocal matrix over the group's criteria (NaN = not judged)."""
        group = self.criteria_group(parent)
        index = {iri: i for i, iri in enumerate(group)}
        known = {}
        for (a, b), rating in self.judgements.get(parent, {}).get(expert, {}).items():
            if a in index and b in index:
                i, j = index[a], index[b]
                known[(i, j) if i < j else (j, i)] = rating if i < j else 1.0 / rating
        return reciprocal_matrix(len(group), known)

    def experts(self, parent: str) -> list[str]:
        return [e for e, table in self.judgements.get(parent, {}).items() if table]

    def _forget_judgements_of(self, iri: str) -> None:
        for experts in self.judgements.values():
            for table in experts.values():
                for pair in [p for p in table if iri in p]:
                    del table[pair]

    # ------------------------------------------------------------------ derivation (derivation.py)

    def derive(self) -> derivation.Derivation:
        """Priorities (AHP, direct assignment, labels, Algorithm 2) and weights, with a list
        of everything the expert still has to provide."""
        return derivation.derive(self)

    def problems(self) -> list[str]:
        return self.derive().problems

    def weight_triples(self) -> list[tuple[str, str, float]]:
        """(column, value, weight) of every value; an error listing what is missing."""
        return derivation.weight_triples(self)

    def to_weights(self, name: str = "tkl-Data Model") -> Weights:
        return Weights.derived(*derivation.weight_columns(self), name=name)

    # ------------------------------------------------------------------ re-alignment (realignment.py)

    def alignment(self) -> dict[str, str]:
        """Column → the taxonomy class its attribute is aligned under (unaligned columns left out)."""
        nodes = self.nodes
        return {column: nodes[iri].parent for column in nodes.attribute_columns()
                if nodes[(iri := nodes.attribute_of(column))].parent is not None}

    def taxonomy_for(self, vocabulary, alignment: dict[str, str] | None = None,
                     keep_parent: dict[str, str] | None = None, keep_current: bool = True):
        """See :func:`.realignment.taxonomy_for`."""
        return realignment.taxonomy_for(self, vocabulary, alignment, keep_parent, keep_current)

    def realign(self, vocabulary, column: str | None = None, class_iri: str | None = None,
                keep_parent: dict[str, str] | None = None, keep_current: bool = True) -> realignment.Realignment:
        """See :func:`.realignment.realign`."""
        return realignment.realign(self, vocabulary, column, class_iri, keep_parent, keep_current)

    # ------------------------------------------------------------------ the source table (table_sync.py)

    @classmethod
    def build(cls, taxonomy, table, roles, alignment: dict[str, str], bins: dict[str, list] | None = None,
              **options) -> "TklDataModel":
        """The model of a source table's sensitive columns below ``taxonomy``: an attribute per
        SA aligned by ``alignment`` (column → taxonomy class), a value per distinct value
        (``bins``: column → intervals, or (interval, node label) pairs, for continuous SAs).
        Value labels shared by several attributes are made distinct: the attributes that
        share one are numbered, their values named ``V-<n>.<value>``."""
        model = cls.from_taxonomy(taxonomy, **options)
        model.update_from_table(table, roles, bins or {}, alignment)
        return model

    def update_from_table(self, table, roles, bins: dict[str, list] | None = None,
                          alignment: dict[str, str] | None = None) -> table_sync.ModelChanges:
        """See :func:`.table_sync.update_from_table`."""
        return table_sync.update_from_table(self, table, roles, bins, alignment)

    # ------------------------------------------------------------------ Turtle (turtle.py)

    def to_graph(self, derived: derivation.Derivation | None = None):
        return turtle.to_graph(self, derived)

    def save(self, path: str | os.PathLike, inputs=()) -> None:
        """Write the model as Turtle, atomically (never over one of ``inputs``)."""
        turtle.save(self, path, inputs)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "TklDataModel":
        return turtle.load(cls, path)

    @classmethod
    def from_graph(cls, graph, name: str = "<model>") -> "TklDataModel":
        return turtle.from_graph(cls, graph, name)

    # ------------------------------------------------------------------ copies

    def copy(self) -> "TklDataModel":
        """An independent copy (nodes are immutable; the judgement tables are copied)."""
        other = TklDataModel(self.namespace, self.scale, self.method, self.random_index)
        other.nodes = self.nodes.copy()
        other.root = self.root
        other.source, other.vocabulary = self.source, self.vocabulary
        other.judgements = {p: {e: dict(t) for e, t in experts.items()} for p, experts in self.judgements.items()}
        derivation.share_caches(self, other)
        return other

    def state(self) -> tuple:
        """Everything the model holds, comparable (for round-trip checks and undo)."""
        return (self.namespace, self.scale, self.method, self.random_index, self.root, self.source, self.vocabulary,
                tuple(self.nodes.values()),
                tuple(sorted((p, e, a, b, r) for p, experts in self.judgements.items()
                             for e, table in experts.items() for (a, b), r in table.items())))
