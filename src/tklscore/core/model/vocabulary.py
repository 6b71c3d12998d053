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

A vocabulary is also plain data (:meth:`Vocabulary.plain`, :meth:`Vocabulary.from_plain`: its
classes with their labels, its links, its prefixes). A shipped vocabulary is read from its
digest, that plain data written beside its Turtle by ``scripts/digest_vocabularies.py`` with
the SHA-256 of each file it was made from (:func:`digest_document`): reading it parses no RDF
(DPV 2.3 took a tenth of a second or more of parsing, the interpreter lock held throughout).
A digest whose files have changed since is not used: the Turtle is parsed instead.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import networkx as nx
import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS

from tklscore.core.errors import InputError
from tklscore.core.files.rdf import local_name, parse_rdf_file

PREDICATES = {
    "subClassOf": RDFS.subClassOf,
    "broader": SKOS.broader,
}
"""Hierarchy predicates by short name (``--predicates subClassOf,broader``)."""

CLASS_TYPES = (RDFS.Class, OWL.Class, SKOS.Concept)
IGNORED_PARENTS = {str(OWL.Thing), str(RDFS.Resource), str(RDFS.Class)}

BUILTIN_THESIS = "thesis_taxonomy.ttl"


@dataclass(frozen=True)
class ShippedVocabulary:
    """A vocabulary that comes with tklscore (``resources/``): its key (``--vocabulary KEY``),
    title, files, the prefixes its classes may be written with (``pd:Job``), the hierarchy
    predicates it uses and the root its taxonomies hang from unless the expert picks one."""

    key: str
    title: str
    files: tuple[str, ...]
    prefixes: tuple[tuple[str, str], ...]
    predicates: tuple[str, ...]
    default_root: str | None = None
    digest: str | None = None   # the plain data parsed from ``files`` (``resources/``), see digest_document


THESIS = "thesis"
DPV_2_3 = "dpv-2.3"
DPV = "https://w3id.org/dpv#"
DPV_PD = "https://w3id.org/dpv/pd#"
SHIPPED: dict[str, ShippedVocabulary] = {
    THESIS: ShippedVocabulary(THESIS, "the thesis' taxonomy (DPV v0.1 structure, 9 classes)", (BUILTIN_THESIS,),
                              (("dpv", "http://www.w3.org/ns/dpv#"),), ("subClassOf",),
                              digest="thesis_taxonomy.digest.json"),
    DPV_2_3: ShippedVocabulary(DPV_2_3, "DPV 2.3 personal data categories (W3C)",
                               ("dpv/dpv-2.3-pd.ttl", "dpv/dpv-2.3-personal_data.ttl"),
                               (("pd", DPV_PD), ("dpv-pd", DPV_PD), ("dpv", DPV)), ("subClassOf", "broader"),
                               DPV + "PersonalData", digest="dpv/dpv-2.3.digest.json"),
}
"""The vocabularies tklscore ships, by key; DPV 2.3 is the default for a new model."""
DEFAULT_VOCABULARY = DPV_2_3


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
                 predicates: Sequence[str] = ("subClassOf", "broader"), key: str | None = None,
                 prefixes: Sequence[tuple[str, str]] = (), default_root: str | None = None,
                 title: str | None = None):
        self.graph = graph
        self.sources = list(sources)
        self.predicates = tuple(predicates)
        self.key = key                      # a shipped vocabulary's key, None for files the user opened
        self.prefixes = dict(prefixes)      # prefix -> namespace, for classes written as pd:Job
        self.default_root = default_root if default_root in graph else None
        self.title = title or ", ".join(Path(s).name for s in self.sources) or "vocabulary"
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
            parse_rdf_file(path, rdf, "vocabulary file")
        return cls.from_rdf(rdf, predicates=chosen, sources=[str(p) for p in paths])

    @classmethod
    def load_apart(cls, paths: Sequence[str | Path], predicates: Sequence[str] | str = ("subClassOf", "broader"),
                   cancelled=None) -> Vocabulary:
        """:meth:`load` in a process of its own (:func:`~tklscore.core.apart.run_apart`): the
        caller's threads keep the interpreter lock while the files are parsed; ``cancelled()``
        stops it. Files that are missing are said before the process starts."""
        from tklscore.core.apart import read_files

        paths = [str(p) for p in ([paths] if isinstance(paths, (str, Path)) else paths)]
        if not paths:
            raise InputError("no vocabulary file given")
        return read_files(_plain_of, paths, list(cls._predicates(predicates)), kind="vocabulary file",
                          rebuild=lambda plain: cls.from_plain(plain, ", ".join(paths)), cancelled=cancelled,
                          what="reading the vocabulary")

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
        # the file's own prefixes that name classes (pd:Job), so that a class can be written as in the file
        used = {iri[:len(iri) - len(local_name(iri))] for iri in graph.nodes}
        prefixes = [(str(p), str(ns)) for p, ns in rdf.namespaces() if p and str(ns) in used]
        return cls(graph, sources=sources, predicates=chosen, prefixes=prefixes)

    def plain(self) -> dict:
        """The vocabulary as plain data, flat (JSON's types; a document of a few arrays, which
        the JSON reader need not walk for its depth): its classes and their labels, its links as
        parents beside children, in the graph's order; its prefixes, predicates and sources."""
        graph = self.graph
        links = list(graph.edges)
        return {"classes": list(graph.nodes), "labels": [graph.nodes[iri]["label"] for iri in graph.nodes],
                "parents": [parent for parent, _ in links], "children": [child for _, child in links],
                "prefixes": dict(self.prefixes), "predicates": list(self.predicates), "sources": list(self.sources)}

    @classmethod
    def from_plain(cls, data, name: str = "vocabulary") -> Vocabulary:
        """The vocabulary :meth:`plain` gave; ``name`` says where ``data`` came from when it is not that."""
        try:
            graph = nx.DiGraph()
            graph.add_nodes_from((str(iri), {"label": str(label)})
                                 for iri, label in zip(data["classes"], data["labels"], strict=True))
            graph.add_edges_from((str(parent), str(child))
                                 for parent, child in zip(data["parents"], data["children"], strict=True))
            prefixes = [(str(prefix), str(namespace)) for prefix, namespace in data["prefixes"].items()]
            return cls(graph, sources=[str(s) for s in data["sources"]], predicates=cls._predicates(data["predicates"]),
                       prefixes=prefixes)
        except (KeyError, TypeError, ValueError, AttributeError) as error:   # InputError is a ValueError: said as it is
            if isinstance(error, InputError):
                raise
            raise InputError(f"is not a vocabulary's plain data ({error.__class__.__name__}: {error})",
                             file=name) from None

    @classmethod
    def builtin_thesis(cls) -> Vocabulary:
        """The taxonomy of the thesis (DPV v0.1 structure), shipped in ``resources/``."""
        return cls.shipped(THESIS)

    @classmethod
    def shipped(cls, key: str) -> Vocabulary:
        """A vocabulary tklscore ships (:data:`SHIPPED`), read once per process."""
        if key not in SHIPPED:
            raise InputError(f"there is no shipped vocabulary '{key}'",
                             hint=f"shipped: {', '.join(SHIPPED)}; or give a vocabulary file")
        return _shipped(key)

    @classmethod
    def named(cls, name: str | Path) -> Vocabulary:
        """A shipped vocabulary by key, else the RDF file at ``name``."""
        return cls.shipped(str(name)) if str(name) in SHIPPED else cls.load([name])

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

    def with_local_name(self, name: str) -> list[str]:
        """The classes whose IRI ends in ``name`` (exactly), sorted."""
        return list(self._by_local.get(name, ()))

    def expand(self, name: str) -> str:
        """``pd:Job`` → its full IRI when ``pd`` is one of this vocabulary's prefixes; else ``name``."""
        prefix, sep, rest = str(name).strip().partition(":")
        if sep and prefix in self.prefixes and not rest.startswith("//"):
            return self.prefixes[prefix] + rest
        return str(name).strip()

    def short(self, iri: str) -> str:
        """The class as ``prefix:name`` when a prefix of this vocabulary covers it, else the IRI."""
        for prefix, namespace in self.prefixes.items():
            if iri.startswith(namespace) and "/" not in iri[len(namespace):]:
                return f"{prefix}:{iri[len(namespace):]}"
        return iri

    def resolve(self, name_or_iri: str) -> str:
        """The IRI of a class given by full IRI, ``prefix:name`` (the vocabulary's prefixes)
        or local name (case-sensitive, then not)."""
        text = str(name_or_iri).strip()
        if not text:
            raise InputError("empty class name")
        if text in self.graph:
            return text
        expanded = self.expand(text)
        if expanded in self.graph:
            return expanded
        if expanded != text:
            raise InputError(f"no class {text} (<{expanded}>) in the vocabulary {self.title}",
                             hint=self._close_hint(local_name(expanded)))
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
        where = f" ({', '.join(self.sources)})" if self.sources else ""
        raise InputError(f"no class '{text}' in the vocabulary{where}", hint=self._close_hint(text))

    def _close_hint(self, text: str) -> str:
        close = difflib.get_close_matches(text, list(self._by_local), n=5, cutoff=0.6)
        if not close:
            lowered = {name.lower(): name for name in self._by_local}
            close = [lowered[m] for m in difflib.get_close_matches(text.lower(), list(lowered),
                                                                   n=5, cutoff=0.6)]
        return (f"did you mean {', '.join(close)}?" if close
                else "give a class by its full IRI, prefix:name or local name")


def _plain_of(paths: list[str], predicates: list[str]) -> dict:
    """In :meth:`Vocabulary.load_apart`'s process: the files' vocabulary as plain data."""
    return Vocabulary.load(paths, predicates).plain()


@lru_cache(maxsize=None)
def _shipped(key: str) -> Vocabulary:
    from tklscore.core.files.resources import resource_path

    shipped = SHIPPED[key]
    paths = [resource_path(name) for name in shipped.files]
    vocabulary = _digested(shipped, paths) or Vocabulary.load(paths, predicates=shipped.predicates)
    read = Vocabulary(vocabulary.graph, vocabulary.sources, vocabulary.predicates, key=key,
                      prefixes=shipped.prefixes, default_root=shipped.default_root, title=shipped.title)
    return read


def _file_hashes(shipped: ShippedVocabulary, paths: Sequence[Path]) -> dict[str, str]:
    from tklscore.core.files.digest import sha256_of

    return {name: sha256_of(path) for name, path in zip(shipped.files, paths)}


def digest_document(key: str) -> dict:
    """The digest of the shipped vocabulary ``key`` as parsing its files gives it now: the
    files' SHA-256 and the vocabulary's plain data (its sources as names in ``resources/``).
    ``scripts/digest_vocabularies.py`` writes it; a test checks that the shipped digest equals it."""
    from tklscore.core.files.resources import resource_path

    shipped = SHIPPED[key]
    paths = [resource_path(name) for name in shipped.files]
    plain = Vocabulary.load(paths, predicates=shipped.predicates).plain()
    plain["sources"] = list(shipped.files)
    return {"vocabulary": key, "files": _file_hashes(shipped, paths), **plain}


def _digested(shipped: ShippedVocabulary, paths: Sequence[Path]) -> Vocabulary | None:
    """The shipped vocabulary from its digest; None without one, or when a file it was made from has changed."""
    from tklscore.core.files.json_file import read_json
    from tklscore.core.files.resources import resource_path

    if shipped.digest is None:
        return None
    try:
        document = read_json(resource_path(shipped.digest), "vocabulary digest")
    except InputError:
        return None
    if not isinstance(document, dict) or document.get("files") != _file_hashes(shipped, paths):
        return None
    document = {**document, "sources": [str(path) for path in paths]}
    return Vocabulary.from_plain(document, shipped.digest)
