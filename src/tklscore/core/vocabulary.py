"""A class hierarchy read from RDF vocabulary files (DPV or any other RDFS/SKOS vocabulary).

``Vocabulary.load(paths)`` parses local Turtle, RDF/XML, N-Triples/N3/TriG or JSON-LD files
(never anything over the network) and keeps only what the domain taxonomy needs:

- the hierarchy: a child→parent link for every ``rdfs:subClassOf`` and/or ``skos:broader``
  triple (configurable). ``rdf:type`` is never a parent link (DPV 2.x types every
  category as ``dpv:PersonalData``). Blank-node parents (OWL restrictions), ``owl:Thing``,
  ``rdfs:Resource`` and self-links (``X subClassOf X``, trivially true in RDFS) are ignored;
- a label per class: ``rdfs:label``, else ``skos:prefLabel`` (English, else untagged,
  else any language), else the local name.

``vocab.graph`` is a ``networkx.DiGraph`` with edges parent→child and the node attribute
``label``; its nodes are the IRIs (strings) of the classes: everything typed
``rdfs:Class``/``owl:Class``/``skos:Concept`` and everything on either side of a hierarchy
link.
"""

from __future__ import annotations

import difflib
import json
import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

import networkx as nx
import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS

from tklscore.core.errors import InputError

PREDICATES = {
    "subClassOf": RDFS.subClassOf,
    "broader": SKOS.broader,
}
"""Hierarchy predicates by short name (``--predicates subClassOf,broader``)."""

CLASS_TYPES = (RDFS.Class, OWL.Class, SKOS.Concept)
IGNORED_PARENTS = {str(OWL.Thing), str(RDFS.Resource), str(RDFS.Class)}

FORMATS = {
    ".ttl": "turtle", ".turtle": "turtle",
    ".rdf": "xml", ".owl": "xml", ".xml": "xml", ".rdfs": "xml",
    ".jsonld": "json-ld", ".json": "json-ld", ".json-ld": "json-ld",
    ".nt": "nt", ".ntriples": "nt",
    ".n3": "n3",
    ".trig": "trig",
    ".nq": "nquads", ".nquads": "nquads",
}

BUILTIN_THESIS = "thesis_taxonomy.ttl"


def local_name(iri: str) -> str:
    """The part of an IRI after the last '#' or '/' (the IRI itself if that is empty)."""
    name = re.split(r"[#/]", iri.rstrip("#/"))[-1] if iri else iri
    return name or iri


def _format_of(path: Path, data: bytes) -> tuple[str, bool]:
    """The rdflib format name and whether it was guessed from the content."""
    suffix = path.suffix.lower()
    if suffix in FORMATS:
        return FORMATS[suffix], False
    guessed = rdflib.util.guess_format(str(path))
    if guessed:
        return guessed, False
    start = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:200]
    if start.startswith(b"<") and not start.startswith(b"<http"):
        return "xml", True
    if start.startswith((b"{", b"[")):
        return "json-ld", True
    return "turtle", True


def _describe_bad_syntax(error: Exception) -> tuple[int | None, str] | None:
    """Line (1-based) and a short text for rdflib's Turtle/N3 ``BadSyntax``."""
    why = getattr(error, "_why", None)
    lines = getattr(error, "lines", None)
    if why is None or not isinstance(lines, int):
        return None
    text = getattr(error, "_str", b"")
    position = getattr(error, "_i", None)
    near = ""
    if isinstance(text, bytes) and isinstance(position, int):
        start = text.rfind(b"\n", 0, position) + 1
        end = text.find(b"\n", position)
        end = len(text) if end < 0 else end
        near = text[max(start, position - 40):min(end, position + 40)].decode("utf-8", "replace")
    detail = f"bad syntax ({why})" + (f" near '{near.strip()}'" if near.strip() else "")
    return lines + 1, detail


def _error_line(error: Exception) -> int | None:
    """The line a parser error points at, if the parser says."""
    for attribute in ("lineno", "lines", "line"):
        value = getattr(error, attribute, None)
        if isinstance(value, int) and value > 0:
            return value
    getter = getattr(error, "getLineNumber", None)  # xml.sax.SAXParseException
    value = getter() if callable(getter) else None
    if isinstance(value, int) and value > 0:
        return value
    match = re.search(r"\bline:?\s*(\d+)", str(error), re.IGNORECASE)
    return int(match.group(1)) if match else None


def _remote_contexts(node, found: list[str]) -> None:
    """Collect the remote ``@context``/``@import`` references of a JSON-LD document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("@context", "@import"):
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, str):
                        found.append(item)
                    else:
                        _remote_contexts(item, found)
            else:
                _remote_contexts(value, found)
    elif isinstance(node, list):
        for item in node:
            _remote_contexts(item, found)


def _parse_file(graph: rdflib.Graph, path: Path) -> None:
    """Parse one local file into ``graph``; bad syntax → InputError naming file and line."""
    if not path.exists():
        raise InputError("vocabulary file not found", file=str(path))
    if not path.is_file():
        raise InputError("not a file (a vocabulary must be a Turtle, RDF/XML or JSON-LD file)",
                         file=str(path))
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot be read: {error.strerror or error}", file=str(path)) from None
    fmt, guessed = _format_of(path, data)
    if fmt == "json-ld":
        try:
            document = json.loads(data.decode("utf-8-sig"))
        except UnicodeDecodeError as error:
            raise InputError(f"not UTF-8 text: {error}", file=str(path)) from None
        except json.JSONDecodeError as error:
            raise InputError(f"not valid JSON-LD: {error.msg} at line {error.lineno}, "
                             f"column {error.colno}", file=str(path), row=None) from None
        remote: list[str] = []
        _remote_contexts(document, remote)
        if remote:
            raise InputError(
                f"the JSON-LD document refers to a remote @context ({remote[0]}), which "
                f"this offline tool does not fetch", file=str(path),
                hint="inline the context in the file, or use the Turtle or RDF/XML version")
    try:
        with warnings.catch_warnings():  # rdflib's own deprecations (JSON-LD parser)
            warnings.simplefilter("ignore", DeprecationWarning)
            graph.parse(data=data, format=fmt, publicID=path.resolve().as_uri())
    except Exception as error:  # noqa: BLE001 - every parser has its own exception types
        described = _describe_bad_syntax(error)
        if described:
            line, detail = described
        else:
            line = _error_line(error)
            detail = " ".join(str(error).split())
        where = f" at line {line}" if line else ""
        if len(detail) > 300:
            detail = detail[:300] + "..."
        hint = ("format guessed from the content; name the file .ttl, .rdf or .jsonld"
                if guessed else None)
        raise InputError(f"cannot be read as {fmt}{where}: {detail or error.__class__.__name__}",
                         file=str(path), hint=hint) from None


def _pick_literal(values: Iterable) -> str | None:
    """English first, then untagged, then any other language (alphabetically)."""
    literals = [v for v in values if isinstance(v, Literal) and str(v).strip()]
    if not literals:
        return None

    def rank(literal: Literal):
        lang = (literal.language or "").lower()
        if lang == "en":
            order = 0
        elif lang.startswith("en-"):
            order = 1
        elif not lang:
            order = 2
        else:
            order = 3
        return (order, lang, str(literal))

    return " ".join(str(min(literals, key=rank)).split())


class Vocabulary:
    """Classes, their labels and their hierarchy (``graph``: edges parent→child)."""

    def __init__(self, graph: nx.DiGraph, sources: Sequence[str] = (),
                 predicates: Sequence[str] = ("subClassOf", "broader")):
        self.graph = graph
        self.sources = list(sources)
        self.predicates = tuple(predicates)
        self._by_local: dict[str, list[str]] = {}
        for node in graph.nodes:
            self._by_local.setdefault(local_name(node), []).append(node)
        for candidates in self._by_local.values():
            candidates.sort()

    # -- construction -------------------------------------------------------------------
    @classmethod
    def load(cls, paths: str | Path | Sequence[str | Path],
             predicates: Sequence[str] | str = ("subClassOf", "broader")) -> Vocabulary:
        """Read one or more local RDF files into one vocabulary."""
        if isinstance(paths, (str, Path)):
            paths = [paths]
        paths = [Path(p) for p in paths]
        if not paths:
            raise InputError("no vocabulary file given")
        chosen = cls._predicates(predicates)
        rdf = rdflib.Graph()
        for path in paths:
            _parse_file(rdf, path)
        return cls.from_rdf(rdf, predicates=chosen, sources=[str(p) for p in paths])

    @staticmethod
    def _predicates(predicates: Sequence[str] | str) -> tuple[str, ...]:
        if isinstance(predicates, str):
            predicates = [p.strip() for p in predicates.split(",")]
        chosen = []
        lookup = {name.lower(): name for name in PREDICATES}
        for name in predicates:
            key = lookup.get(str(name).strip().lower())
            if key is None:
                raise InputError(f"unknown hierarchy predicate '{name}'",
                                 hint=f"use one or more of {', '.join(PREDICATES)}")
            if key not in chosen:
                chosen.append(key)
        if not chosen:
            raise InputError("no hierarchy predicate given",
                             hint=f"use one or more of {', '.join(PREDICATES)}")
        return tuple(chosen)

    @classmethod
    def from_rdf(cls, rdf: rdflib.Graph, predicates: Sequence[str] = ("subClassOf", "broader"),
                 sources: Sequence[str] = ()) -> Vocabulary:
        """Build the hierarchy from an already parsed rdflib graph."""
        chosen = cls._predicates(predicates)
        graph = nx.DiGraph()
        for class_type in CLASS_TYPES:
            for subject in rdf.subjects(RDF.type, class_type):
                if isinstance(subject, URIRef) and str(subject) not in IGNORED_PARENTS:
                    graph.add_node(str(subject))
        for name in chosen:
            for child, parent in rdf.subject_objects(PREDICATES[name]):
                if not isinstance(child, URIRef) or not isinstance(parent, URIRef):
                    continue  # blank nodes: OWL restrictions, anonymous classes
                child_iri, parent_iri = str(child), str(parent)
                if child_iri in IGNORED_PARENTS:
                    continue
                graph.add_node(child_iri)
                if parent_iri in IGNORED_PARENTS or parent_iri == child_iri:
                    continue
                graph.add_edge(parent_iri, child_iri)
        for node in graph.nodes:
            subject = URIRef(node)
            label = (_pick_literal(rdf.objects(subject, RDFS.label))
                     or _pick_literal(rdf.objects(subject, SKOS.prefLabel))
                     or local_name(node))
            graph.nodes[node]["label"] = label
        return cls(graph, sources=sources, predicates=chosen)

    @classmethod
    def builtin_thesis(cls) -> Vocabulary:
        """The taxonomy of the thesis (DPV v0.1 structure), shipped in ``resources/``."""
        from tklscore.core.resources import resource_path

        return cls.load([resource_path(BUILTIN_THESIS)], predicates=("subClassOf",))

    # -- queries --------------------------------------------------------------------------
    @property
    def classes(self) -> list[str]:
        return list(self.graph.nodes)

    def __contains__(self, iri: object) -> bool:
        return iri in self.graph

    def __len__(self) -> int:
        return self.graph.number_of_nodes()

    def label(self, iri: str) -> str:
        if iri in self.graph:
            return self.graph.nodes[iri].get("label") or local_name(iri)
        return local_name(iri)

    def parents(self, iri: str) -> list[str]:
        """Direct parents (sorted), ``[]`` for a root or an unknown IRI."""
        if iri not in self.graph:
            return []
        return sorted(self.graph.predecessors(iri))

    def children(self, iri: str) -> list[str]:
        if iri not in self.graph:
            return []
        return sorted(self.graph.successors(iri))

    def resolve(self, name_or_iri: str) -> str:
        """The IRI of a class given by full IRI or by local name (case-sensitive, then not)."""
        text = str(name_or_iri).strip()
        if not text:
            raise InputError("empty class name")
        if text in self.graph:
            return text
        candidates = self._by_local.get(text)
        if not candidates:
            folded = [iri for name, iris in self._by_local.items() if name.lower() == text.lower()
                      for iri in iris]
            candidates = sorted(folded) or None
        if candidates and len(candidates) == 1:
            return candidates[0]
        if candidates:
            raise InputError(
                f"the class name '{text}' is ambiguous: {len(candidates)} classes have it "
                f"({', '.join(candidates)})", hint="give the full IRI")
        if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", text) and local_name(text) in self._by_local:
            same = self._by_local[local_name(text)]
            raise InputError(f"no class <{text}> in the vocabulary",
                             hint=f"did you mean {', '.join(same)}? (IRIs differ between "
                                  f"vocabulary releases; the local name alone also works"
                                  f"{'' if len(same) == 1 else ' when unambiguous'})")
        close = difflib.get_close_matches(text, list(self._by_local), n=5, cutoff=0.6)
        if not close:
            lowered = {name.lower(): name for name in self._by_local}
            close = [lowered[m] for m in difflib.get_close_matches(text.lower(), list(lowered),
                                                                   n=5, cutoff=0.6)]
        hint = (f"did you mean {', '.join(close)}?" if close
                else "give a class by its full IRI or local name")
        where = f" ({', '.join(self.sources)})" if self.sources else ""
        raise InputError(f"no class '{text}' in the vocabulary{where}", hint=hint)
