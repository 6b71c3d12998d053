"""Facts (RDF triples) and the ISA hierarchy of PIA (pia.md §2.1, Defs 3.3.1–3.3.3).

PIA's data and its domain ontology are both plain RDF triple sets. A fact is a
:class:`Triple` of rdflib terms ``(s, p, o)``. :func:`load_triples` reads local RDF
files only (Turtle, N-Triples, N3, RDF/XML, TriG, JSON-LD by suffix); a syntax error
becomes an :class:`~tklscore.core.errors.InputError` naming the file and line.

ISA (Def 3.3.2/3.3.3) is "transitive and reflexive" and covers both instance-of and
sub-concept-of. Which predicates count as ISA is configurable; the default
:data:`DEFAULT_ISA_PREDICATES` is ``pia:ISA`` (``urn:tklscore:pia#ISA``, the spelling
the dissertation uses), ``rdf:type``, ``rdfs:subClassOf`` and ``rdfs:subPropertyOf``.

:class:`IsaHierarchy` answers the ISA questions the rest of PIA needs:

* ``ancestors(c)`` — reflexive-transitive ISA ancestors (pattern matching, §2.2);
* ``is_a(a, b)`` — ``b in ancestors(a)``;
* ``immediate_parents(c)`` — parents after the transitive ISA edges are removed
  (θ of Alg 7 and Def 3.4.1: "Immediate" is judged after transitive reduction);
* ``parent(c)`` / ``grandparent(c)`` — θ(c) and θ(θ(c)), the root when there is none;
* ``descendants(c)`` and ``depth(c)`` (root = 1, pia.md §8 item 8) for the Ch. 5
  metadata built on top of this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from rdflib import RDF, RDFS, BNode, Graph, Literal, Namespace, URIRef
from rdflib.term import Node

from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.rdf import local_name as iri_local_name
from tklscore.core.files.rdf import read_rdf_bytes

PIA = Namespace("urn:tklscore:pia#")
"""PIA's own namespace: ``pia:ISA``, ``pia:Root`` and the pattern vocabulary."""

ISA = PIA.ISA
ROOT = PIA.Root
"""The ontology root θ falls back to when a concept has no parent (Alg 7 digit 3)."""

DEFAULT_ISA_PREDICATES: tuple[URIRef, ...] = (ISA, RDF.type, RDFS.subClassOf, RDFS.subPropertyOf)

_FORMATS = {
    ".ttl": "turtle", ".turtle": "turtle", ".nt": "nt", ".ntriples": "nt", ".n3": "n3",
    ".rdf": "xml", ".xml": "xml", ".owl": "xml", ".trig": "trig", ".nq": "nquads",
    # no JSON-LD: rdflib would fetch a remote @context, and PIA never opens a connection
}


def local_name(term: Node) -> str:
    """The readable part of a term: a literal's text, else the IRI's local name
    (:func:`tklscore.core.files.rdf.local_name`)."""
    return str(term) if isinstance(term, Literal) else iri_local_name(str(term))


class Triple(NamedTuple):
    """One fact ``(s, p, o)``; ``str()`` prints it as the dissertation does: ``(Bob, given, Interferon)``."""

    s: Node
    p: Node
    o: Node

    def __str__(self) -> str:
        return f"({local_name(self.s)}, {local_name(self.p)}, {local_name(self.o)})"

    def with_object(self, o: Node) -> Triple:
        return Triple(self.s, self.p, o)


def rdf_format(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    try:
        return _FORMATS[suffix]
    except KeyError:
        raise InputError(f"unknown RDF file type '{suffix or '(none)'}'", file=str(path),
                         hint="use .ttl (Turtle), .nt (N-Triples), .n3, .rdf/.owl (RDF/XML), "
                              ".trig or .nq") from None


_LINE = re.compile(r"(?:line|at line)[ :]*(\d+)", re.IGNORECASE)


def parse_graph(path: str | Path, fmt: str | None = None) -> Graph:
    """Parse one local RDF file into an rdflib Graph; bad syntax → InputError with the line."""
    path = existing_file(path, "RDF file")
    fmt = fmt or rdf_format(path)
    data = read_rdf_bytes(path, fmt, "RDF file")
    graph = Graph()
    try:
        graph.parse(data=data, format=fmt, publicID=path.resolve().as_uri())
    except InputError:
        raise
    except Exception as exc:  # noqa: BLE001 - rdflib raises many types (BadSyntax, SAXParseException, ...)
        text = " ".join(str(exc).split())
        match = _LINE.search(text)
        row = int(match.group(1)) if match else getattr(exc, "lines", None)
        if isinstance(row, int) and not match:
            row += 1  # notation3.BadSyntax counts lines from 0
        raise InputError(f"not valid {fmt} RDF: {text[:300]}", file=str(path),
                         row=row if isinstance(row, int) else None,
                         hint="fix the syntax error; PIA reads local RDF files only") from None
    return graph


def load_triples(path: str | Path, fmt: str | None = None) -> list[Triple]:
    """All triples of a local RDF file, in a stable (sorted) order; blank nodes are refused."""
    graph = parse_graph(path, fmt)
    triples = []
    for s, p, o in graph:
        if isinstance(s, BNode) or isinstance(o, BNode):
            raise InputError(f"blank node in fact ({local_name(s)}, {local_name(p)}, {local_name(o)})",
                             file=str(path),
                             hint="PIA facts name every subject and object with an IRI")
        triples.append(Triple(s, p, o))
    triples.sort(key=lambda t: (str(t.s), str(t.p), str(t.o)))
    return triples


def graph_prefixes(path: str | Path) -> dict[str, str]:
    """The prefixes a local RDF file declares (for resolving pattern terms)."""
    return {prefix: str(ns) for prefix, ns in parse_graph(path).namespaces() if prefix}


class IsaHierarchy:
    """The reflexive-transitive ISA relation over a set of triples.

    Built from any triples (asserted data, the ontology, or a reasoner's closure); only
    triples whose predicate is in ``isa_predicates`` are used. ISA over relations works
    the same way (``(likelyHas, ISA, diagnosedWith)``), which pattern containment
    (Def 3.3.5) uses for the predicate position.
    """

    def __init__(self, triples: Iterable[tuple[Node, Node, Node]],
                 isa_predicates: Iterable[Node] = DEFAULT_ISA_PREDICATES, root: Node = ROOT):
        self.isa_predicates = frozenset(isa_predicates)
        self.root = root
        self._parents: dict[Node, set[Node]] = {}
        self._children: dict[Node, set[Node]] = {}
        for s, p, o in triples:
            if p in self.isa_predicates and s != o:
                self._parents.setdefault(s, set()).add(o)
                self._children.setdefault(o, set()).add(s)
        self.ancestors = lru_cache(maxsize=None)(self._ancestors)  # type: ignore[method-assign]
        self.descendants = lru_cache(maxsize=None)(self._descendants)  # type: ignore[method-assign]

    # -- transitive queries ------------------------------------------------------------
    def parents(self, c: Node) -> frozenset[Node]:
        """Direct ISA targets as stated (transitive edges included)."""
        return frozenset(self._parents.get(c, ()))

    def children(self, c: Node) -> frozenset[Node]:
        return frozenset(self._children.get(c, ()))

    def _ancestors(self, c: Node) -> frozenset[Node]:
        """``c`` and everything above it (ISA is reflexive and transitive)."""
        seen = {c}
        stack = [c]
        while stack:
            for parent in self._parents.get(stack.pop(), ()):
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return frozenset(seen)

    def _descendants(self, c: Node) -> frozenset[Node]:
        """Everything strictly below ``c``."""
        seen: set[Node] = set()
        stack = [c]
        while stack:
            for child in self._children.get(stack.pop(), ()):
                if child not in seen and child != c:
                    seen.add(child)
                    stack.append(child)
        return frozenset(seen)

    def is_a(self, a: Node, b: Node) -> bool:
        """``(a ISA b)`` holds, reflexively and transitively."""
        return b in self.ancestors(a)

    # -- tree-shaped queries (generalization, Alg 7 / Def 3.4.1) ----------------------
    def immediate_parents(self, c: Node) -> list[Node]:
        """Parents of ``c`` after transitive reduction, sorted by IRI for determinism."""
        parents = self._parents.get(c, set())
        keep = [p for p in parents
                if not any(p != q and p in self.ancestors(q) and q not in self.ancestors(p)
                           for q in parents)]
        return sorted(keep, key=str)

    def parent(self, c: Node) -> Node:
        """θ(c): the immediate ISA parent, or the root if there is none."""
        parents = self.immediate_parents(c)
        return parents[0] if parents else self.root

    def grandparent(self, c: Node) -> Node:
        """θ(θ(c)); the root stays the root."""
        first = self.parent(c)
        return self.root if first == self.root else self.parent(first)

    def depth(self, c: Node) -> int:
        """Number of concepts on the θ-path from ``c`` up to and including the root (root = 1)."""
        depth, node, seen = 1, c, set()
        while node != self.root and node not in seen:
            seen.add(node)
            node = self.parent(node)
            depth += 1
        return depth

    def concepts(self) -> frozenset[Node]:
        return frozenset(self._parents) | frozenset(self._children)


def property_terms(triples: Iterable[Triple], rules: Iterable = ()) -> set:
    """The terms used as relations: the predicates of the facts and of the rules' atoms
    (``likelyHas``, ``diagnosedWith`` …), as opposed to the things they relate (a rule's
    variable ``?p`` is no term)."""
    found = {t.p for t in triples}
    found.update(atom.p for rule in rules for atom in (*rule.body, rule.head) if isinstance(atom.p, Node))
    return found
