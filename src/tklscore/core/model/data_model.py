"""The tkl-Data Model (data-model.md §1-3, thesis Chapter 4.1-4.2).

One rooted tree: the domain taxonomy (classes of a vocabulary such as DPV) on top, the
source-table model written with DSO below it (attributes ``A.``, elements ``E.``,
values ``V.``), each attribute aligned under a taxonomy class. Priorities come from
AHP on every criteria group (the taxonomy classes and attributes under one node; a group
of one has priority 1; the root has 1), or are assigned directly; elements and values get
qualitative labels, and Algorithm 2 propagates them to values below the first level.

``weight(v) = priority(v) × Π priority(n)`` over the taxonomy and attribute nodes on the
path from v to the root; elements on the path are not multiplied.

The whole model, every AHP judgement included, is saved as Turtle and reopens intact.
"""

from __future__ import annotations

import math
import os
from decimal import Decimal
from collections import deque
from dataclasses import dataclass, field, replace
from enum import Enum
from urllib.parse import quote

import numpy as np
from rdflib import RDF, RDFS, XSD, BNode, Graph, Literal, Namespace, URIRef

from tklscore.core.model.ahp import AHPResult, aggregate_judgements, ahp, reciprocal_matrix
from tklscore.core.files.atomic import atomic_write
from tklscore.core.errors import InputError
from tklscore.core.model.labels import HL7_CONFIDENTIALITY, LabelScale
from tklscore.core.files.rdf import parse_rdf_file
from tklscore.core.scoring.weights import Interval, Weights

DSO = Namespace("https://tklscore.org/ns/dso#")
TKLM = Namespace("https://tklscore.org/ns/tkl-model#")
DEFAULT_EXPERT = "expert 1"


class Kind(str, Enum):
    ROOT = "root"
    TAXONOMY = "taxonomy"
    ATTRIBUTE = "attribute"
    ELEMENT = "element"
    VALUE = "value"


CRITERIA = (Kind.TAXONOMY, Kind.ATTRIBUTE)
TABLE_PART = (Kind.ELEMENT, Kind.VALUE)


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


@dataclass
class Derivation:
    """Priorities of every node that has one, weights of values, AHP results per group,
    and what the model still lacks (``problems``)."""

    priorities: dict[str, float] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)
    groups: dict[str, AHPResult] = field(default_factory=dict)
    # with several experts: each one's own result (where their judgements connect the group)
    experts: dict[str, dict[str, AHPResult]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


@dataclass
class ModelChanges:
    added_attributes: list[str] = field(default_factory=list)
    added_values: list[tuple[str, str]] = field(default_factory=list)
    removed_attributes: list[str] = field(default_factory=list)
    values_not_in_table: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Realignment:
    """What :meth:`TklDataModel.realign` did: the new taxonomy (its conflicts, and what the
    extraction pruned), the classes that came into the model or left it, and the
    judgements (group, criterion a, criterion b) that no longer apply."""

    taxonomy: object
    added: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    forgotten: list[tuple[str, str, str]] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)
    """Classes of the model found in the vocabulary under another IRI (by local name)."""

    @property
    def conflicts(self) -> list:
        return self.taxonomy.conflicts


class TklDataModel:
    def __init__(self, namespace: str = "https://tklscore.org/tables/T#", scale: LabelScale = HL7_CONFIDENTIALITY,
                 method: str = "eigenvector", random_index: str = "thesis"):
        self.namespace = namespace
        self.scale = scale
        self.method = method
        self.random_index = random_index
        self.nodes: dict[str, Node] = {}  # insertion order is the order of children
        self.root: str | None = None
        # criteria group (parent iri) -> expert -> (a, b) -> rating of a over b
        self.judgements: dict[str, dict[str, dict[tuple[str, str], float]]] = {}

    # ------------------------------------------------------------------ structure

    def children(self, iri: str) -> list[str]:
        return [n.iri for n in self.nodes.values() if n.parent == iri]

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

    def attribute(self, column: str) -> Node:
        for node in self.nodes.values():
            if node.kind == Kind.ATTRIBUTE and node.column == column:
                return node
        raise InputError(f"the model has no attribute for column '{column}'",
                         hint=f"attributes: {', '.join(self.columns) or 'none'}")

    @property
    def columns(self) -> list[str]:
        return [n.column for n in self.nodes.values() if n.kind == Kind.ATTRIBUTE]

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
        order = list(taxonomy.nodes)
        for iri in order:
            parent = taxonomy.parent.get(iri)
            model._add(Node(iri, Kind.ROOT if iri == taxonomy.root else Kind.TAXONOMY,
                            taxonomy.labels.get(iri, _local_name(iri)), parent))
        model.root = taxonomy.root
        return model

    def add_taxonomy_class(self, iri: str, label: str, parent: str | None) -> str:
        if parent is None:
            if self.root is not None:
                raise InputError(f"the model already has a root ('{self.nodes[self.root].label}')")
            self.root = iri
            return self._add(Node(iri, Kind.ROOT, label))
        if self.node(parent).kind not in (Kind.ROOT, Kind.TAXONOMY):
            raise InputError(f"taxonomy class '{label}' must be below a taxonomy class")
        return self._add(Node(iri, Kind.TAXONOMY, label, parent))

    def add_attribute(self, column: str, continuous: bool = False, aligned_to: str | None = None) -> str:
        if column in self.columns:
            raise InputError(f"the model already has an attribute for column '{column}'")
        if aligned_to is not None and self.node(aligned_to).kind not in (Kind.ROOT, Kind.TAXONOMY):
            raise InputError(f"column '{column}' can only be aligned under a taxonomy class")
        label = "A." + column.replace(" ", "-")
        return self._add(Node(self._iri(label), Kind.ATTRIBUTE, label, aligned_to, column=column,
                              continuous=continuous))

    def align(self, column: str, taxonomy_class: str) -> None:
        """Make the attribute of ``column`` a subclass of ``taxonomy_class``."""
        attribute = self.attribute(column)
        if self.node(taxonomy_class).kind not in (Kind.ROOT, Kind.TAXONOMY):
            raise InputError(f"column '{column}' can only be aligned under a taxonomy class, "
                             f"not under '{self.nodes[taxonomy_class].label}'")
        self._forget_judgements_of(attribute.iri)
        self.nodes[attribute.iri] = replace(attribute, parent=taxonomy_class)

    # ------------------------------------------------------------------ re-alignment

    def alignment(self) -> dict[str, str]:
        """Column → the taxonomy class its attribute is aligned under (unaligned columns left out)."""
        return {n.column: n.parent for n in self.nodes.values()
                if n.kind == Kind.ATTRIBUTE and n.parent is not None}

    def taxonomy_for(self, vocabulary, alignment: dict[str, str] | None = None,
                     keep_parent: dict[str, str] | None = None, keep_current: bool = True):
        """The taxonomy extracted from ``vocabulary`` above the classes of ``alignment``
        (default: the model's own). With ``keep_current``, a class with several parents keeps
        the parent it has in this model unless ``keep_parent`` says otherwise; the current
        root is kept when it still lies above every mapped class."""
        import networkx as nx

        from tklscore.core.model.taxonomy import TAXONOMY_ROOT, extract_taxonomy

        alignment = self._resolved_alignment(vocabulary, self.alignment() if alignment is None else alignment)
        mapped = list(dict.fromkeys(alignment.values()))
        if not mapped:
            raise InputError("no column is aligned: align at least one column with a vocabulary class")
        root = None
        if self.root is not None and self.root != TAXONOMY_ROOT and self.root in vocabulary.graph:
            below = nx.descendants(vocabulary.graph, self.root) | {self.root}
            if all(m in below for m in mapped):
                root = self.root
        keep = {vocabulary.resolve(c): vocabulary.resolve(p) for c, p in (keep_parent or {}).items()}
        taxonomy = extract_taxonomy(vocabulary, mapped, keep, root)
        if keep_current:
            current = {}
            for conflict in taxonomy.conflicts:
                node = self.nodes.get(conflict.node)
                if (conflict.node not in keep and node is not None and node.kind == Kind.TAXONOMY
                        and node.parent in conflict.parents and node.parent != conflict.kept):
                    current[conflict.node] = node.parent
            if current:
                taxonomy = extract_taxonomy(vocabulary, mapped, {**current, **keep}, root)
        return taxonomy

    @staticmethod
    def _resolved_alignment(vocabulary, alignment: dict[str, str]) -> dict[str, str]:
        """The alignment in ``vocabulary``'s IRIs: a class the vocabulary lacks is found by its
        local name when that is unambiguous (IRIs differ between DPV releases)."""
        resolved = {}
        for column, cls in alignment.items():
            try:
                resolved[column] = vocabulary.resolve(cls)
            except InputError as error:
                found = _same_class(vocabulary, cls)
                if found is None:
                    raise InputError(f"column '{column}' is aligned under '{_local_name(cls)}', which the "
                                     f"vocabulary lacks: {error.message}", hint=error.hint) from None
                resolved[column] = found
        return resolved

    def _rename_classes(self, rename: dict[str, str]) -> None:
        """Give taxonomy classes new IRIs (another release of the vocabulary), judgements included."""
        if not rename:
            return
        def new(iri: str) -> str:
            return rename.get(iri, iri)

        self.nodes = {new(i): replace(n, iri=new(n.iri), parent=None if n.parent is None else new(n.parent))
                      for i, n in self.nodes.items()}
        self.root = None if self.root is None else new(self.root)
        self.judgements = {new(p): {e: {(new(a), new(b)): r for (a, b), r in t.items()} for e, t in experts.items()}
                           for p, experts in self.judgements.items()}

    def realign(self, vocabulary, column: str | None = None, class_iri: str | None = None,
                keep_parent: dict[str, str] | None = None, keep_current: bool = True):
        """Align ``column`` under ``class_iri`` (a class of ``vocabulary``) and rebuild the upper
        part: the taxonomy is re-extracted from the new alignment (``keep_parent``: class →
        the parent it keeps; ``keep_current``: see :meth:`taxonomy_for`). Every label, element,
        value, assigned priority and judgement that still applies is kept: a judgement
        applies while both criteria are still in the group under the same parent. Returns a
        :class:`Realignment` (the new taxonomy with its conflicts and pruning, the classes
        added and dropped, the judgements forgotten)."""
        rename = {}
        for iri, node in self.nodes.items():
            if node.kind in (Kind.ROOT, Kind.TAXONOMY) and iri not in vocabulary.graph:
                found = _same_class(vocabulary, iri)
                if found is not None and found not in self.nodes:
                    rename[iri] = found
        if column is not None:
            self.attribute(column)
        self._rename_classes(rename)
        alignment = self.alignment()
        if column is not None:
            if class_iri is None:
                raise InputError(f"choose the class to align column '{column}' with")
            alignment[column] = vocabulary.resolve(class_iri)
        alignment = self._resolved_alignment(vocabulary, alignment)
        taxonomy = self.taxonomy_for(vocabulary, alignment, keep_parent, keep_current)
        nodes: dict[str, Node] = {}
        for iri in taxonomy.nodes:
            kind = Kind.ROOT if iri == taxonomy.root else Kind.TAXONOMY
            parent = taxonomy.parent.get(iri) if iri != taxonomy.root else None
            old = self.nodes.get(iri)
            if old is not None and old.kind not in (Kind.ROOT, Kind.TAXONOMY):
                raise InputError(f"the class '{taxonomy.label(iri)}' has the IRI of the model's "
                                 f"{old.kind.value} '{old.label}'")
            assigned = old.assigned if old is not None and kind == Kind.TAXONOMY else None
            nodes[iri] = Node(iri, kind, taxonomy.label(iri), parent, assigned=assigned)
        for node in self.nodes.values():
            if node.kind in (Kind.ROOT, Kind.TAXONOMY):
                continue
            if node.kind == Kind.ATTRIBUTE:
                node = replace(node, parent=alignment.get(node.column))
            nodes[node.iri] = node
        upper = [iri for iri, n in self.nodes.items() if n.kind in (Kind.ROOT, Kind.TAXONOMY)]
        result = Realignment(taxonomy, added=[i for i in taxonomy.nodes if i not in self.nodes],
                             dropped=[i for i in upper if i not in nodes], renamed=rename)
        old_groups = {p: set(self.criteria_group(p)) for p in self.judgements if p in self.nodes}
        self.nodes = nodes
        self.root = taxonomy.root
        for parent in list(self.judgements):
            group = set(self.criteria_group(parent)) if parent in self.nodes else set()
            applies = group & old_groups.get(parent, set())
            for table in self.judgements[parent].values():
                for pair in [p for p in table if not set(p) <= applies]:
                    del table[pair]
                    result.forgotten.append((parent, *pair))
            if parent not in self.nodes:
                del self.judgements[parent]
        return result

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
                    qualitative: str | None = None) -> str:
        parent = self._table_parent(column, parent)
        if qualitative is not None:
            self.scale.priority(qualitative)
        label = "E." + name.replace(" ", "-")
        if self._iri(label) in self.nodes:
            label = self._unique_label("E", name, column)
        return self._add(Node(self._iri(label), Kind.ELEMENT, label, parent, column=column, qualitative=qualitative))

    def add_value(self, column: str, value: str, parent: str | None = None, qualitative: str | None = None,
                  label: str | None = None) -> str:
        """A value of a discrete attribute, or a bin (an interval such as ``[0,30)``) of a
        continuous one."""
        attribute = self.attribute(column)
        if attribute.continuous:
            interval = Interval.parse(value)
            if interval is None or interval.is_empty():
                raise InputError(f"'{value}' is not a bin such as [0,30) or [30,inf) for continuous "
                                 f"column '{column}'")
            for other in self._values_of(column):
                if Interval.parse(other.value).overlaps(interval):
                    raise InputError(f"bin {value} of '{column}' overlaps bin {other.value}")
        elif any(v.value == value for v in self._values_of(column)):
            raise InputError(f"column '{column}' already has the value '{value}' in the model")
        parent = self._table_parent(column, parent)
        if qualitative is not None:
            self.scale.priority(qualitative)
        if label is None:
            label = "V." + (_bin_name(value) if attribute.continuous else value.replace(" ", "-"))
        if self._iri(label) in self.nodes:
            label = self._unique_label("V", value, column)
        return self._add(Node(self._iri(label), Kind.VALUE, label, parent, column=column, value=value,
                              qualitative=qualitative))

    def _unique_label(self, prefix: str, name: str, column: str) -> str:
        index = self.columns.index(column)
        label = f"{prefix}-{index}.{name.replace(' ', '-')}"
        while self._iri(label) in self.nodes:
            index += 1
            label = f"{prefix}-{index}.{name.replace(' ', '-')}"
        return label

    def _values_of(self, column: str) -> list[Node]:
        return [n for n in self.nodes.values() if n.kind == Kind.VALUE and n.column == column]

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
        if node.kind in (Kind.ROOT, Kind.TAXONOMY) and self.children(iri):
            raise InputError(f"taxonomy class '{node.label}' still has children")
        for child in self.children(iri):
            self.remove(child)
        self._forget_judgements_of(iri)
        self.judgements.pop(iri, None)
        del self.nodes[iri]
        if iri == self.root:
            self.root = None

    def set_label(self, iri: str, qualitative: str | None) -> None:
        node = self.node(iri)
        if node.kind not in TABLE_PART:
            raise InputError(f"'{node.label}' is a {node.kind.value}: only values and elements take a label")
        if qualitative is not None:
            self.scale.priority(qualitative)
        self.nodes[iri] = replace(node, qualitative=qualitative)

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

    def criteria_group(self, parent: str) -> list[str]:
        return [c for c in self.children(parent) if self.nodes[c].kind in CRITERIA]

    def groups(self) -> list[str]:
        """Parents whose criteria group needs AHP (two or more criteria)."""
        return [iri for iri in self._top_down() if len(self.criteria_group(iri)) >= 2]

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
        if rating is not None and not (math.isfinite(rating) and rating > 0):
            raise InputError(f"judgement {rating!r} of '{self.nodes[a].label}' over '{self.nodes[b].label}' "
                             f"must be a positive number")
        table = self.judgements.setdefault(parent, {}).setdefault(expert, {})
        table.pop((b, a), None)
        table.pop((a, b), None)
        if rating is not None:
            table[(a, b)] = float(rating)

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

    def _top_down(self) -> list[str]:
        if self.root is None:
            return []
        children: dict[str | None, list[str]] = {}
        for node in self.nodes.values():
            children.setdefault(node.parent, []).append(node.iri)
        order, queue = [], deque([self.root])
        while queue:
            iri = queue.popleft()
            order.append(iri)
            queue.extend(children.get(iri, []))
        return order

    # ------------------------------------------------------------------ derivation

    def derive(self) -> Derivation:
        """Priorities (AHP, direct assignment, labels, Algorithm 2) and weights, with a list
        of everything the expert still has to provide."""
        result = Derivation()
        problems = result.problems
        if self.root is None:
            problems.append("the model has no taxonomy root")
            return result
        reachable = set(self._top_down())
        for node in self.nodes.values():
            if node.iri not in reachable:
                if node.kind == Kind.ATTRIBUTE:
                    problems.append(f"attribute {node.label} is not aligned under a taxonomy class")
                elif node.kind not in TABLE_PART:
                    problems.append(f"'{node.label}' is not connected to the root")
        priorities = result.priorities
        priorities[self.root] = 1.0
        for parent in self._top_down():
            if self.nodes[parent].kind not in (Kind.ROOT, Kind.TAXONOMY):
                continue
            group = self.criteria_group(parent)
            if len(group) == 1:
                priorities[group[0]] = 1.0
            elif group:
                self._group_priorities(parent, group, result)
        for node in self.nodes.values():
            if node.kind == Kind.ATTRIBUTE and node.iri in reachable:
                if not self.children(node.iri):
                    problems.append(f"attribute {node.label} has no values"
                                    + (" (a continuous attribute needs bins)" if node.continuous else ""))
                self._propagate(node.iri, result)
        for node in self.nodes.values():
            if node.kind != Kind.VALUE or node.iri not in priorities:
                continue
            weight = priorities[node.iri]
            for iri in self.path_to_root(node.parent):
                if self.nodes[iri].kind in (Kind.ATTRIBUTE, Kind.TAXONOMY, Kind.ROOT):
                    if iri not in priorities:
                        break
                    weight *= priorities[iri]
            else:
                result.weights[node.iri] = weight
        return result

    def _group_priorities(self, parent: str, group: list[str], result: Derivation) -> None:
        labels = [self.nodes[c].label for c in group]
        where = f"the criteria group under {self.nodes[parent].label} ({', '.join(labels)})"
        assigned = [self.nodes[c].assigned for c in group]
        if all(p is not None for p in assigned):
            if abs(sum(assigned) - 1.0) > 1e-6:
                result.problems.append(f"the priorities assigned in {where} sum to {sum(assigned):g}, not 1")
                return
            result.priorities.update(zip(group, assigned))
            return
        experts = self.experts(parent)
        if not experts:
            result.problems.append(f"{where} needs pairwise judgements")
            return
        matrices = [self.judgement_matrix(parent, e) for e in experts]
        matrix = matrices[0] if len(matrices) == 1 else aggregate_judgements(matrices)
        try:
            outcome = ahp(matrix, method=self.method, ri=self.random_index, criteria=labels)
        except InputError as error:
            result.problems.append(f"{where}: {error.message}")
            return
        result.groups[parent] = outcome
        if len(experts) > 1:
            own = result.experts.setdefault(parent, {})
            for expert, expert_matrix in zip(experts, matrices):
                try:
                    own[expert] = ahp(expert_matrix, method=self.method, ri=self.random_index, criteria=labels)
                except InputError:
                    continue  # an expert's partial judgements need not connect the group on their own
        result.priorities.update(zip(group, (float(p) for p in outcome.priorities)))

    def _propagate(self, attribute: str, result: Derivation) -> None:
        """Algorithm 2: labels give priorities; a node below the first level without one
        takes its nearest ancestor's (depth first, without recursion)."""
        priorities = result.priorities
        stack = list(reversed(self.children(attribute)))
        for iri in stack:
            if self.nodes[iri].qualitative is None:
                result.problems.append(f"first-level {self.nodes[iri].kind.value} {self.nodes[iri].label} of "
                                       f"{self.nodes[attribute].label} has no label")
        visited = set()
        while stack:
            iri = stack.pop()
            if iri in visited:
                continue
            visited.add(iri)
            node = self.nodes[iri]
            if node.qualitative is not None:
                priorities[iri] = self.scale.priority(node.qualitative)
            elif node.parent in priorities and node.parent != attribute:
                priorities[iri] = priorities[node.parent]
            stack.extend(reversed(self.children(iri)))

    def problems(self) -> list[str]:
        return self.derive().problems

    def weight_triples(self) -> list[tuple[str, str, float]]:
        """(column, value, weight) of every value; an error listing what is missing."""
        derivation = self.derive()
        if derivation.problems:
            raise InputError("the tkl-Data Model is not complete: " + "; ".join(derivation.problems))
        return [(self.nodes[iri].column, self.nodes[iri].value, weight)
                for iri, weight in derivation.weights.items()]

    def to_weights(self, name: str = "tkl-Data Model") -> Weights:
        return Weights(self.weight_triples(), name=name)

    # ------------------------------------------------------------------ the source table

    @classmethod
    def build(cls, taxonomy, table, roles, alignment: dict[str, str], bins: dict[str, list] | None = None,
              **options) -> "TklDataModel":
        """The model of a source table's sensitive columns below ``taxonomy``: an attribute
        per SA aligned by ``alignment`` (column → taxonomy class), a value per distinct value
        (``bins``: column → intervals, or (interval, node label) pairs, for continuous SAs). Value labels shared by several attributes
        are made distinct: the attributes that share one are numbered, their values named
        ``V-<n>.<value>``."""
        model = cls.from_taxonomy(taxonomy, **options)
        model.update_from_table(table, roles, bins or {}, alignment)
        return model

    def update_from_table(self, table, roles, bins: dict[str, list] | None = None,
                          alignment: dict[str, str] | None = None) -> ModelChanges:
        """Bring the table model in line with the source: add new sensitive columns and new
        values (unlabelled: they are what the expert is asked for), remove columns that are
        no longer sensitive. Every existing judgement, label and element is kept."""
        bins, alignment = bins or {}, alignment or {}
        changes = ModelChanges()
        for column in [c for c in self.columns if c not in roles.sa]:
            self.remove(self.attribute(column).iri)
            changes.removed_attributes.append(column)
        new_values: dict[str, list[str]] = {}
        for column in roles.sa:
            continuous = column in roles.continuous
            if column not in self.columns:
                self.add_attribute(column, continuous, alignment.get(column))
                changes.added_attributes.append(column)
            elif column in alignment:
                self.align(column, alignment[column])
            if continuous:
                present = {v.value for v in self._values_of(column)}
                for entry in bins.get(column, []):
                    interval, label = (entry, None) if isinstance(entry, str) else entry
                    if interval not in present:
                        self.add_value(column, interval, label=label)
                        changes.added_values.append((column, interval))
                new_values[column] = []
            else:
                present = {v.value for v in self._values_of(column)}
                distinct = list(dict.fromkeys(table.text(column).tolist()))
                new_values[column] = [v for v in distinct if v not in present]
                changes.values_not_in_table += [(column, v) for v in present if v not in set(distinct)]
        shared = _shared_value_labels(new_values, self)
        for column, values in new_values.items():
            for value in values:
                label = None
                if column in shared and not self.attribute(column).continuous:
                    label = f"V-{shared[column]}.{value.replace(' ', '-')}"
                self.add_value(column, value, label=label)
                changes.added_values.append((column, value))
        return changes

    # ------------------------------------------------------------------ Turtle

    def to_graph(self, derivation: Derivation | None = None) -> Graph:
        graph = Graph()
        graph.bind("dso", DSO)
        graph.bind("tklm", TKLM)
        graph.bind("rdfs", RDFS)
        graph.bind("t", Namespace(self.namespace))
        model = URIRef(self.namespace + "model")
        graph.add((model, RDF.type, TKLM.TklDataModel))
        graph.add((model, TKLM.tableNamespace, Literal(self.namespace)))
        graph.add((model, TKLM.ahpMethod, Literal(self.method)))
        graph.add((model, TKLM.randomIndex, Literal(self.random_index)))
        if self.root is not None:
            graph.add((model, TKLM.root, URIRef(self.root)))
        scale = BNode()
        graph.add((model, TKLM.labelScale, scale))
        graph.add((scale, RDFS.label, Literal(self.scale.name)))
        for rank, (label, value) in enumerate(self.scale.labels):
            entry = BNode()
            graph.add((scale, TKLM.entry, entry))
            graph.add((entry, TKLM.rank, Literal(rank)))
            graph.add((entry, TKLM.name, Literal(label)))
            graph.add((entry, TKLM.priority, _double(value)))
        types = {Kind.ROOT: TKLM.TaxonomyClass, Kind.TAXONOMY: TKLM.TaxonomyClass, Kind.ELEMENT: DSO.Element,
                 Kind.VALUE: DSO.Value}
        derivation = derivation or self.derive()
        for order, node in enumerate(self.nodes.values()):
            subject = URIRef(node.iri)
            graph.add((subject, TKLM.inModel, model))
            kind = node.kind
            if kind == Kind.ATTRIBUTE:
                graph.add((subject, RDF.type, DSO.ContinuousAttribute if node.continuous else DSO.DiscreteAttribute))
            else:
                graph.add((subject, RDF.type, types[kind]))
            graph.add((subject, RDFS.label, Literal(node.label)))
            graph.add((subject, TKLM.order, Literal(order)))
            if node.parent is not None:
                graph.add((subject, RDFS.subClassOf, URIRef(node.parent)))
            if node.column is not None:
                graph.add((subject, TKLM.column, Literal(node.column)))
            if node.value is not None:
                graph.add((subject, TKLM.tableValue, Literal(node.value)))
            if node.qualitative is not None:
                graph.add((subject, TKLM.qualitativeLabel, Literal(node.qualitative)))
            if node.assigned is not None:
                graph.add((subject, TKLM.assignedPriority, _double(node.assigned)))
            if node.iri in derivation.priorities:
                graph.add((subject, DSO.hasPriority, _double(derivation.priorities[node.iri])))
            if node.iri in derivation.weights:
                graph.add((subject, DSO.hasWeight, _double(derivation.weights[node.iri])))
        for parent, experts in self.judgements.items():
            for expert, table in experts.items():
                for (a, b), rating in table.items():
                    judgement = BNode()
                    graph.add((judgement, RDF.type, TKLM.Judgement))
                    graph.add((judgement, TKLM.group, URIRef(parent)))
                    graph.add((judgement, TKLM.expert, Literal(expert)))
                    graph.add((judgement, TKLM.criterionA, URIRef(a)))
                    graph.add((judgement, TKLM.criterionB, URIRef(b)))
                    graph.add((judgement, TKLM.rating, _double(rating)))
        return graph

    def save(self, path: str | os.PathLike) -> None:
        """Write the model as Turtle, atomically."""
        text = self.to_graph().serialize(format="turtle")
        with atomic_write(path) as handle:
            handle.write(text)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "TklDataModel":
        return cls.from_graph(parse_rdf_file(path, what="model file"), str(path))

    @classmethod
    def from_graph(cls, graph: Graph, name: str = "<model>") -> "TklDataModel":
        models = list(graph.subjects(RDF.type, TKLM.TklDataModel))
        if len(models) != 1:
            raise InputError(f"holds {len(models)} tkl-Data Models; expected exactly one", file=name)
        model_iri = models[0]

        def one(subject, predicate, required=True, what=None):
            value = graph.value(subject, predicate)
            if value is None and required:
                raise InputError(f"'{what or subject}' lacks {graph.qname(predicate)}", file=name)
            return value

        scale_node = one(model_iri, TKLM.labelScale)
        entries = sorted(((int(one(e, TKLM.rank)), str(one(e, TKLM.name)), float(one(e, TKLM.priority)))
                          for e in graph.objects(scale_node, TKLM.entry)))
        scale = LabelScale(str(one(scale_node, RDFS.label)), tuple((n, p) for _, n, p in entries))
        model = cls(str(one(model_iri, TKLM.tableNamespace)), scale, str(one(model_iri, TKLM.ahpMethod)),
                    str(one(model_iri, TKLM.randomIndex)))
        root = one(model_iri, TKLM.root, required=False)
        kinds = {TKLM.TaxonomyClass: Kind.TAXONOMY, DSO.ContinuousAttribute: Kind.ATTRIBUTE,
                 DSO.DiscreteAttribute: Kind.ATTRIBUTE, DSO.Element: Kind.ELEMENT, DSO.Value: Kind.VALUE}
        rows = []
        for subject in graph.subjects(TKLM.inModel, model_iri):
            kind = next((kinds[t] for t in graph.objects(subject, RDF.type) if t in kinds), None)
            if kind is None:
                raise InputError(f"node '{subject}' has no DSO or taxonomy type", file=name)
            if subject == root:
                kind = Kind.ROOT
            optional = {p: graph.value(subject, p) for p in (RDFS.subClassOf, TKLM.column, TKLM.tableValue,
                                                             TKLM.qualitativeLabel, TKLM.assignedPriority)}
            node = Node(str(subject), kind, str(one(subject, RDFS.label)),
                        _str(optional[RDFS.subClassOf]), _str(optional[TKLM.column]),
                        _str(optional[TKLM.tableValue]),
                        (subject, RDF.type, DSO.ContinuousAttribute) in graph,
                        _str(optional[TKLM.qualitativeLabel]),
                        None if optional[TKLM.assignedPriority] is None else float(optional[TKLM.assignedPriority]))
            if kind == Kind.ATTRIBUTE and node.column is None:
                raise InputError(f"attribute '{node.label}' lacks its column (tklm:column)", file=name)
            if kind == Kind.VALUE and node.value is None:
                raise InputError(f"value '{node.label}' lacks its table value (tklm:tableValue)", file=name)
            rows.append((int(one(subject, TKLM.order)), node))
        for _, node in sorted(rows, key=lambda r: r[0]):
            model.nodes[node.iri] = node
        model.root = str(root) if root is not None else None
        for node in model.nodes.values():
            if node.parent is not None and node.parent not in model.nodes:
                raise InputError(f"'{node.label}' is below '{node.parent}', which is not in the model", file=name)
            if node.qualitative is not None and node.qualitative not in scale.names:
                raise InputError(f"'{node.label}' has the label '{node.qualitative}', which the scale "
                                 f"'{scale.name}' lacks", file=name)
        for judgement in graph.subjects(RDF.type, TKLM.Judgement):
            parent, a, b = (str(one(judgement, p, what="a judgement"))
                            for p in (TKLM.group, TKLM.criterionA, TKLM.criterionB))
            expert = str(one(judgement, TKLM.expert, what="a judgement"))
            model.judgements.setdefault(parent, {}).setdefault(expert, {})[(a, b)] = \
                float(one(judgement, TKLM.rating, what="a judgement"))
        return model

    def copy(self) -> "TklDataModel":
        """An independent copy (nodes are immutable; the judgement tables are copied)."""
        other = TklDataModel(self.namespace, self.scale, self.method, self.random_index)
        other.nodes = dict(self.nodes)
        other.root = self.root
        other.judgements = {p: {e: dict(t) for e, t in experts.items()} for p, experts in self.judgements.items()}
        return other

    def state(self) -> tuple:
        """Everything the model holds, comparable (for round-trip checks and undo)."""
        return (self.namespace, self.scale, self.method, self.random_index, self.root,
                tuple(self.nodes.values()),
                tuple(sorted((p, e, a, b, r) for p, experts in self.judgements.items()
                             for e, table in experts.items() for (a, b), r in table.items())))


def _shared_value_labels(new_values: dict[str, list[str]], model: TklDataModel) -> dict[str, int]:
    """Columns whose values share a label with another column's values, numbered in order."""
    labels: dict[str, set[str]] = {}
    for column in model.columns:
        if model.attribute(column).continuous:
            continue
        labels[column] = {v.value for v in model._values_of(column)} | set(new_values.get(column, []))
    shared = []
    for column, values in labels.items():
        if any(values & other for c, other in labels.items() if c != column):
            shared.append(column)
    return {column: i for i, column in enumerate(shared)}


def _bin_name(interval: str) -> str:
    parsed = Interval.parse(interval)
    if parsed.low == parsed.high:
        return f"EQ-{parsed.low:g}"
    if math.isinf(parsed.low):
        return f"{'LEQ' if parsed.high_closed else 'LT'}-{parsed.high:g}"
    if math.isinf(parsed.high):
        return f"{'GEQ' if parsed.low_closed else 'GT'}-{parsed.low:g}"
    return f"{'GEQ' if parsed.low_closed else 'GT'}-{parsed.low:g}-{'LEQ' if parsed.high_closed else 'LT'}-{parsed.high:g}"


def _same_class(vocabulary, iri: str) -> str | None:
    """The vocabulary's class with the local name of ``iri``, when there is exactly one."""
    try:
        return vocabulary.resolve(_local_name(iri))
    except InputError:
        return None


def _local_name(iri: str) -> str:
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def _double(value: float) -> Literal:
    """An xsd:decimal whose text reads back as exactly ``value`` (rdflib would shorten an
    xsd:double to 7 digits)."""
    return Literal(format(Decimal(repr(float(value))), "f"), datatype=XSD.decimal)


def _str(value) -> str | None:
    return None if value is None else str(value)
