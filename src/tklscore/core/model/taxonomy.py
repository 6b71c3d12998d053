"""The domain taxonomy: a rooted tree of vocabulary classes above the mapped columns.

``extract_taxonomy(vocab, mapped)`` follows the thesis (section 4.1.1, data-model.md §1):

1. start from the mapped classes and add their parents breadth-first until no new
   parent appears: a DAG of one or more weakly connected components (``extracted``);
   a cycle in it is an error naming the classes;
2. optionally restrict it to a chosen root and the classes below it (everything above or
   beside the root is dropped; every mapped class must lie below the root);
3. make it a mono-hierarchy: a class with several parents keeps one — the parent the user
   chose (``keep_parent``), else the parent whose subtree holds the most mapped classes;
   ties go to the parent nearest to a root, then to the first by label, then by IRI.
   Classes are settled deepest first, so a parent's count reflects the links already kept
   below it;
4. prune leaves that are not mapped classes, repeatedly;
5. several trees left: a new root (``urn:tklscore:taxonomy-root``, "Root") above them.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx

from tklscore.core.errors import InputError
from tklscore.core.model.vocabulary import Vocabulary, local_name

TAXONOMY_ROOT = "urn:tklscore:taxonomy-root"
TAXONOMY_ROOT_LABEL = "Root"


DRAWN_DEPTH = 40
"""Levels drawn in full by :meth:`Taxonomy.tree_lines`; deeper lines say their level and
draw the last few, so a line's length does not grow with the depth."""


@dataclass(frozen=True)
class Conflict:
    """A class that had several parents and the one it kept."""

    node: str
    parents: list[str]
    kept: str
    reason: str
    rule: str
    """``user`` (keep_parent), ``mapped`` (most mapped classes below), ``depth`` (nearest to
    a root) or ``name`` (first by label, then IRI)."""


@dataclass
class Taxonomy:
    root: str
    parent: dict[str, str]
    labels: dict[str, str]
    mapped: list[str]
    nodes: list[str]
    edges: list[tuple[str, str]]
    removed_edges: list[tuple[str, str]] = field(default_factory=list)
    removed_nodes: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    extracted: nx.DiGraph | None = None
    """The DAG found breadth-first from the mapped classes (edges parent→child), before the
    root choice, mono-hierarchy and pruning."""
    added_root: bool = False
    """True when the root is the new ``urn:tklscore:taxonomy-root`` joining several trees."""

    def __post_init__(self):
        self._children: dict[str, list[str]] = {}
        for parent, child in self.edges:
            self._children.setdefault(parent, []).append(child)

    # -- queries --------------------------------------------------------------------------
    def label(self, iri: str) -> str:
        return self.labels.get(iri) or local_name(iri)

    def children(self, iri: str) -> list[str]:
        return list(self._children.get(iri, []))

    def path_to_root(self, iri: str) -> list[str]:
        """``[iri, its parent, ..., root]``."""
        if iri not in self.nodes:
            raise InputError(f"'{self.label(iri)}' ({iri}) is not in the taxonomy")
        path = [iri]
        seen = {iri}
        while path[-1] != self.root:
            parent = self.parent.get(path[-1])
            if parent is None or parent in seen:
                raise InputError(f"'{self.label(iri)}' has no path to the root "
                                 f"'{self.label(self.root)}'")
            path.append(parent)
            seen.add(parent)
        return path

    @property
    def leaves(self) -> list[str]:
        return [node for node in self.nodes if not self._children.get(node)]

    def to_networkx(self) -> nx.DiGraph:
        """The tree as a DiGraph (edges parent→child; node attributes ``label``, ``mapped``)."""
        graph = nx.DiGraph()
        mapped = set(self.mapped)
        for node in self.nodes:
            graph.add_node(node, label=self.label(node), mapped=node in mapped)
        graph.add_edges_from(self.edges)
        return graph

    def to_json_dict(self) -> dict:
        return {
            "root": self.root,
            "nodes": [{"iri": node, "label": self.label(node)} for node in self.nodes],
            "edges": [[parent, child] for parent, child in self.edges],
            "removed_edges": [[parent, child] for parent, child in self.removed_edges],
            "removed_nodes": list(self.removed_nodes),
        }

    def tree_lines(self) -> list[str]:
        """The tree drawn with ├── / └── and labels, one line per node."""
        lines = [self.label(self.root)]
        stack = [(child, "", index == len(self.children(self.root)) - 1)
                 for index, child in enumerate(self.children(self.root))][::-1]
        while stack:  # depth first with an explicit stack: a chain of thousands of classes draws too
            node, prefix, last = stack.pop()
            shown = prefix if len(prefix) <= 4 * DRAWN_DEPTH else f"[level {len(prefix) // 4 + 1}] " + prefix[-4 * 8:]
            lines.append(f"{shown}{'└── ' if last else '├── '}{self.label(node)}")
            kids = self.children(node)
            inner = prefix + ("    " if last else "│   ")
            stack.extend((child, inner, index == len(kids) - 1) for index, child in reversed(list(enumerate(kids))))
        return lines

    # -- checks ---------------------------------------------------------------------------
    def validate(self) -> list[str]:
        """Every way this is not a proper taxonomy tree, one precise sentence each."""
        problems: list[str] = []
        name = self.label
        nodes = list(self.nodes)
        node_set = set(nodes)
        for node, count in Counter(nodes).items():
            if count > 1:
                problems.append(f"node '{name(node)}' ({node}) is listed {count} times")
        for edge, count in Counter(self.edges).items():
            if count > 1:
                problems.append(f"edge '{name(edge[0])}' → '{name(edge[1])}' is repeated "
                                f"{count} times")
        for parent, child in dict.fromkeys(self.edges):
            for end in (parent, child):
                if end not in node_set:
                    problems.append(f"edge '{name(parent)}' → '{name(child)}' uses "
                                    f"'{name(end)}' ({end}), which is not a node")
            if parent == child:
                problems.append(f"edge '{name(parent)}' → '{name(child)}' links a node to itself")
        parents: dict[str, list[str]] = {}
        for parent, child in dict.fromkeys(self.edges):
            parents.setdefault(child, []).append(parent)
        for child, ps in parents.items():
            if len(ps) > 1:
                problems.append(f"'{name(child)}' has {len(ps)} parents "
                                f"({', '.join(repr(name(p)) for p in ps)}); a tree allows one")
        roots = [node for node in dict.fromkeys(nodes) if node not in parents]
        if self.root not in node_set:
            problems.append(f"the root '{name(self.root)}' ({self.root}) is not a node")
        elif self.root in parents:
            problems.append(f"the root '{name(self.root)}' has a parent "
                            f"('{name(parents[self.root][0])}')")
        if len(roots) != 1:
            shown = ", ".join(repr(name(r)) for r in roots) or "none"
            problems.append(f"the tree must have exactly one root (a node without parent), "
                            f"found {len(roots)}: {shown}")
        elif roots[0] != self.root:
            problems.append(f"the only node without a parent is '{name(roots[0])}', not the "
                            f"root '{name(self.root)}'")
        graph = nx.DiGraph()
        graph.add_nodes_from(node_set)
        graph.add_edges_from(e for e in self.edges if e[0] != e[1])
        cycle = find_cycle(graph)
        if cycle is not None:
            loop = [u for u, _ in cycle] + [cycle[0][0]]
            problems.append("edges are not all top-down: they form a cycle "
                            + " → ".join(repr(name(n)) for n in loop))
        if self.root in node_set:
            below = nx.descendants(graph, self.root) | {self.root}
            unreachable = [n for n in dict.fromkeys(nodes) if n not in below]
            if unreachable:
                problems.append("not below the root (edges must all lead down from "
                                f"'{name(self.root)}'): "
                                + ", ".join(repr(name(n)) for n in unreachable))
        mapped = set(self.mapped)
        for node in dict.fromkeys(nodes):
            if not graph.out_degree(node) and node not in mapped and node != self.root:
                problems.append(f"leaf '{name(node)}' ({node}) is not a mapped class")
        if len(node_set) == 1 and self.root in node_set and self.root not in mapped:
            problems.append(f"the only node '{name(self.root)}' is not a mapped class")
        for node in self.mapped:
            if node not in node_set:
                problems.append(f"mapped class '{name(node)}' ({node}) is not in the tree")
        edge_set = set(self.edges)
        for child, parent in self.parent.items():
            if (parent, child) not in edge_set:
                problems.append(f"parent of '{name(child)}' is '{name(parent)}' but there is "
                                f"no such edge")
        return problems

    @classmethod
    def from_edges(cls, root: str, edges: Iterable[Sequence[str]], labels: Mapping[str, str],
                   mapped: Iterable[str]) -> Taxonomy:
        """Rebuild a taxonomy (e.g. from a saved model); InputError if it is not a tree."""
        edge_list = [(str(e[0]), str(e[1])) for e in edges]
        children: dict[str, list[str]] = {}
        for parent, child in dict.fromkeys(edge_list):
            children.setdefault(parent, []).append(child)
        nodes = list(dict.fromkeys([root] + [n for e in edge_list for n in e]))
        order = _bfs(root, lambda n: children.get(n, []))
        reached = set(order)
        order += [n for n in nodes if n not in reached]
        parent_of: dict[str, str] = {}
        for parent, child in edge_list:
            parent_of.setdefault(child, parent)
        taxonomy = cls(root=root, parent=parent_of, labels=dict(labels), mapped=list(mapped),
                       nodes=order, edges=edge_list, added_root=root == TAXONOMY_ROOT)
        problems = taxonomy.validate()
        if problems:
            raise InputError("the taxonomy is not a proper tree: " + "; ".join(problems))
        return taxonomy


def _bfs(root: str, children) -> list[str]:
    order, seen, queue = [], {root}, deque([root])
    while queue:
        node = queue.popleft()
        order.append(node)
        for child in children(node):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return order


def _distance_to_root(dag: nx.DiGraph, node: str) -> int:
    """Fewest parent links from ``node`` up to a class without parents."""
    seen, queue = {node}, deque([(node, 0)])
    while queue:
        current, distance = queue.popleft()
        parents = list(dag.predecessors(current))
        if not parents:
            return distance
        for parent in parents:
            if parent not in seen:
                seen.add(parent)
                queue.append((parent, distance + 1))
    return 0  # unreachable for a DAG


def find_cycle(graph: nx.DiGraph) -> list[tuple[str, str]] | None:
    """The edges of one directed cycle of ``graph``, or None: a depth-first search with an
    explicit stack, linear in nodes and edges (networkx's ``find_cycle`` restarts a search
    from every node and takes quadratic time on a long chain of classes)."""
    state: dict = {}  # node → 1 on the current path, 2 done
    for start in graph:
        if start in state:
            continue
        state[start] = 1
        path, stack = [start], [iter(graph.successors(start))]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                loop = path[path.index(child):]
                return list(zip(loop, loop[1:] + loop[:1]))
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append(iter(graph.successors(child)))
    return None


def _cycle_error(vocab: Vocabulary, dag: nx.DiGraph) -> None:
    cycle = find_cycle(dag)
    if cycle is None:
        return
    # edges are parent→child; reversed, each class is a subclass of the next one
    loop = [child for _, child in reversed(cycle)]
    loop.append(loop[0])
    names = " ⊂ ".join(f"'{vocab.label(n)}'" for n in loop)
    raise InputError(f"the class hierarchy has a cycle: {names} "
                     f"({', '.join(dict.fromkeys(loop))})",
                     hint="a taxonomy must not contain a class below itself; fix the vocabulary")


def extract_taxonomy(vocab: Vocabulary, mapped: Sequence[str],
                     keep_parent: Mapping[str, str] | None = None,
                     root: str | None = None) -> Taxonomy:
    """The domain taxonomy above the ``mapped`` classes (IRIs, or local names)."""
    mapped_iris = list(dict.fromkeys(vocab.resolve(m) for m in mapped))
    if not mapped_iris:
        raise InputError("no mapped class: map at least one column to a vocabulary class")
    keep = {vocab.resolve(c): vocab.resolve(p) for c, p in (keep_parent or {}).items()}
    root_iri = vocab.resolve(root) if root is not None else None
    label = vocab.label

    # 1. breadth-first over parents
    dag = nx.DiGraph()
    dag.add_nodes_from(mapped_iris)
    queue = deque(mapped_iris)
    seen = set(mapped_iris)
    while queue:
        node = queue.popleft()
        for parent in vocab.parents(node):
            dag.add_edge(parent, node)
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    _cycle_error(vocab, dag)
    extracted = dag.copy()
    for node in extracted.nodes:
        extracted.nodes[node]["label"] = label(node)

    removed_edges: list[tuple[str, str]] = []
    removed_nodes: list[str] = []

    # 2. the chosen root
    if root_iri is not None:
        if root_iri in dag:
            below = nx.descendants(dag, root_iri) | {root_iri}
        else:
            below = {root_iri} if root_iri in mapped_iris else set()
        outside = [m for m in mapped_iris if m not in below]
        if outside:
            raise InputError(
                f"the root '{label(root_iri)}' must lie above every mapped class, but "
                f"{', '.join(repr(label(m)) for m in outside)} "
                f"{'is' if len(outside) == 1 else 'are'} not below it",
                hint="choose a class above all mapped classes as the root")
        for parent, child in list(dag.edges):
            if child in below and parent not in below:
                removed_edges.append((parent, child))
        removed_nodes.extend(n for n in _bfs_all(dag) if n not in below)
        dag = dag.subgraph(below).copy()

    # 3. user choices must name real parents
    for child, parent in keep.items():
        if child not in dag:
            raise InputError(f"keep-parent: '{label(child)}' ({child}) is not in the extracted "
                             f"taxonomy (it is not a mapped class or above one)")
        vocab_parents = vocab.parents(child)
        if parent not in vocab_parents:
            shown = ", ".join(f"'{label(p)}'" for p in vocab_parents) or "none"
            raise InputError(f"keep-parent: '{label(parent)}' is not a parent of "
                             f"'{label(child)}' (its parents: {shown})")
        if parent not in dag:
            raise InputError(f"keep-parent: '{label(parent)}' is not below the chosen root "
                             f"'{label(root_iri)}'")

    # 4. mono-hierarchy, deepest classes first
    mapped_set = set(mapped_iris)
    conflicts: list[Conflict] = []
    for node in reversed(list(nx.lexicographical_topological_sort(dag))):
        parents = sorted(dag.predecessors(node))
        if len(parents) < 2:
            continue
        if node in keep:
            kept, rule = keep[node], "user"
            reason = f"chosen by the user (keep-parent {local_name(node)}={local_name(kept)})"
        else:
            scores = {p: (-len((nx.descendants(dag, p) | {p}) & mapped_set),
                          _distance_to_root(dag, p), label(p), p) for p in parents}
            ranked = sorted(parents, key=lambda p: scores[p])
            kept, runner_up = ranked[0], ranked[1]
            best, second = scores[kept], scores[runner_up]
            counts = ", ".join(f"'{label(p)}' {-scores[p][0]}" for p in ranked)
            if best[0] != second[0]:
                rule = "mapped"
                reason = f"most mapped classes below ({counts})"
            elif best[1] != second[1]:
                rule = "depth"
                depths = ", ".join(f"'{label(p)}' {scores[p][1]}" for p in ranked
                                   if scores[p][0] == best[0])
                reason = (f"tie on mapped classes below ({counts}); nearest to a root "
                          f"(links up: {depths})")
            else:
                rule = "name"
                reason = (f"tie on mapped classes below ({counts}) and on distance to a root "
                          f"({best[1]}); first by label, then IRI")
        for parent in parents:
            if parent != kept:
                dag.remove_edge(parent, node)
                removed_edges.append((parent, node))
        conflicts.append(Conflict(node=node, parents=parents, kept=kept, reason=reason, rule=rule))
    conflicts.reverse()  # top-down, for reading

    # 5. prune leaves that are not mapped, repeatedly
    while True:
        leaves = sorted((n for n in dag.nodes if dag.out_degree(n) == 0 and n not in mapped_set),
                        key=lambda n: (label(n), n))
        if not leaves:
            break
        for leaf in leaves:
            dag.remove_node(leaf)
            removed_nodes.append(leaf)

    # 6. one root
    labels = {node: label(node) for node in extracted.nodes}
    roots = sorted((n for n in dag.nodes if dag.in_degree(n) == 0), key=lambda n: (label(n), n))
    added_root = False
    if root_iri is not None:
        tree_root = root_iri
    elif len(roots) == 1:
        tree_root = roots[0]
    else:
        tree_root, added_root = TAXONOMY_ROOT, True
        labels[TAXONOMY_ROOT] = TAXONOMY_ROOT_LABEL
        for top in roots:
            dag.add_edge(TAXONOMY_ROOT, top)

    def ordered_children(node: str) -> list[str]:
        return sorted(dag.successors(node), key=lambda n: (label(n), n))

    nodes = _bfs(tree_root, ordered_children)
    edges = [(parent, child) for parent in nodes for child in ordered_children(parent)]
    parent_of = {child: parent for parent, child in edges}
    taxonomy = Taxonomy(root=tree_root, parent=parent_of, labels=labels, mapped=mapped_iris,
                        nodes=nodes, edges=edges, removed_edges=removed_edges,
                        removed_nodes=removed_nodes, conflicts=conflicts, extracted=extracted,
                        added_root=added_root)
    problems = taxonomy.validate()
    if problems:  # a bug rather than bad input, but say what is wrong
        raise InputError("the extracted taxonomy is not a proper tree: " + "; ".join(problems))
    return taxonomy


def _bfs_all(dag: nx.DiGraph) -> list[str]:
    """All nodes, breadth-first from the roots (deterministic order for reports)."""
    roots = sorted(n for n in dag.nodes if dag.in_degree(n) == 0)
    order: list[str] = []
    seen: set[str] = set()
    for top in roots:
        for node in _bfs(top, lambda n: sorted(dag.successors(n))):
            if node not in seen:
                seen.add(node)
                order.append(node)
    return order
