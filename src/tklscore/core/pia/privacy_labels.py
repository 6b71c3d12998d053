"""Privacy labels, patterns and the privacy mapping λ (pia.md §2.2, Defs 3.3.4–3.3.13).

**Label orders** (:class:`LabelOrder`):

* :class:`TotalOrder` — the default :data:`DEFAULT_ORDER` is Public < Low < Medium < High
  (Table 1.1's wording "Not Private (public)", "Low Privacy", … is accepted as aliases);
* :class:`CategoryLattice` — MAC-style ``(level, {categories})`` labels of Ex. 3.3.6:
  ``(l1, C1) ≤ (l2, C2)`` iff ``l1 ≤ l2`` and ``C1 ⊆ C2``;
  ``LUB((TopSecret,{A,B}), (Secret,{C})) = (TopSecret,{A,B,C})``. Written in files as
  ``TopSecret{A,B}`` or ``(TopSecret, {A, B})``.

Every order has ``parse``, ``format``, ``leq``, ``lub`` and ``bottom`` (the label of a
triple that matches no pattern).

**Patterns** (Def 3.3.4): :class:`PrivacyPattern` ``(s|*, p|*, o|*) → label``; ``None``
is the wildcard ``*``. The 8 shapes of Table 3.2 are ``PrivacyPattern.shape``.

**Privacy mapping** :class:`PrivacyMapping` (λ, Defs 3.3.10–3.3.11): a triple's label is
the **LUB of the labels of all patterns it matches**, where a constant position matches
through ISA ancestors (``(Bob, likelyHas, Hepatitis-C)`` matches ``(*, diagnosedWith,
Hepatitis-C)`` when ``(likelyHas, ISA, diagnosedWith)``). ``monotonicity_violations``
lists every pair ``p2 ⊆pc p1`` with ``not λ(p2) ≥ λ(p1)``; ``check_monotone`` raises an
InputError naming them all.

**Files**: :func:`load_patterns_csv` (columns ``subject, predicate, object, label``;
``*`` or empty is the wildcard; terms as ``<iri>``, ``prefix:local`` or a bare local name
resolved against the data's terms) and :func:`load_patterns_turtle` (nodes of type
``pia:PrivacyPattern`` with ``pia:subject``/``pia:predicate``/``pia:object`` — absent or
``pia:Any`` is the wildcard — and one ``pia:label`` literal).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rdflib import RDF, Literal, URIRef
from rdflib.term import Node

from tklscore.core.errors import InputError, existing_file, shorten
from tklscore.core.files.text import csv_rows, read_text
from tklscore.core.pia.facts import ISA, PIA, IsaHierarchy, local_name, parse_graph

Label = Hashable


class LabelOrder(ABC):
    """A partial order of privacy labels with least upper bounds (a join-semilattice)."""

    name: str

    @abstractmethod
    def parse(self, text: str, *, file: str | None = None, row: int | None = None,
              column: str | None = None) -> Label: ...

    @abstractmethod
    def format(self, label: Label) -> str: ...

    @abstractmethod
    def leq(self, a: Label, b: Label) -> bool: ...

    @abstractmethod
    def join(self, a: Label, b: Label) -> Label: ...

    @property
    @abstractmethod
    def bottom(self) -> Label: ...

    def lub(self, labels: Iterable[Label]) -> Label:
        """Least upper bound; the bottom label for no labels."""
        result = self.bottom
        for label in labels:
            result = self.join(result, label)
        return result

    def exceeds(self, label: Label, threshold: Label) -> bool:
        """A violation test (Def 3.3.13, Alg 3): ``not label ≤ threshold``."""
        return not self.leq(label, threshold)


class TotalOrder(LabelOrder):
    """Labels ``levels[0] < levels[1] < …``; names are matched case-insensitively."""

    def __init__(self, levels: Sequence[str], aliases: dict[str, str] | None = None,
                 name: str = "privacy labels"):
        if not levels:
            raise InputError(f"label order '{name}' has no labels")
        self.name = name
        self.levels = tuple(levels)
        self._rank: dict[str, int] = {}
        for i, level in enumerate(self.levels):
            key = level.strip().casefold()
            if not key:
                raise InputError(f"label order '{name}' has an empty label")
            if key in self._rank:
                raise InputError(f"label order '{name}' names '{level}' twice")
            self._rank[key] = i
        self._alias = {k.strip().casefold(): v for k, v in (aliases or {}).items()}
        for alias, target in self._alias.items():
            if target.casefold() not in self._rank:
                raise InputError(f"alias '{alias}' of label order '{name}' names the unknown label '{target}'")

    def parse(self, text, *, file=None, row=None, column=None) -> str:
        key = str(text).strip().casefold()
        key = self._alias.get(key, key).casefold()
        if key not in self._rank:
            raise InputError(f"'{shorten(str(text).strip())}' is not a label of the order {self.describe()}",
                             file=file, row=row, column=column,
                             hint="use one of the labels of the order, or extend the order")
        return self.levels[self._rank[key]]

    def describe(self) -> str:
        return " < ".join(self.levels)

    def rank(self, label: str) -> int:
        return self._rank[label.casefold()]

    def format(self, label) -> str:
        return str(label)

    def leq(self, a, b) -> bool:
        return self.rank(a) <= self.rank(b)

    def join(self, a, b):
        return a if self.rank(a) >= self.rank(b) else b

    @property
    def bottom(self) -> str:
        return self.levels[0]

    @property
    def top(self) -> str:
        return self.levels[-1]


DEFAULT_ORDER = TotalOrder(
    ("Public", "Low", "Medium", "High"),
    aliases={"Not Private (public)": "Public", "Not Private": "Public", "Low Privacy": "Low",
             "Medium Privacy": "Medium", "High Privacy": "High"},
    name="Public < Low < Medium < High")
"""The running example's labels (Table 1.1)."""

MAC_LEVELS = TotalOrder(("Unclassified", "Confidential", "Secret", "TopSecret"),
                        aliases={"Top Secret": "TopSecret", "TS": "TopSecret", "S": "Secret",
                                 "C": "Confidential", "U": "Unclassified"},
                        name="MAC levels")


@dataclass(frozen=True)
class MacLabel:
    """A ``(level, categories)`` label of :class:`CategoryLattice`."""

    level: str
    categories: frozenset[str] = frozenset()

    def __str__(self) -> str:
        return f"({self.level}, {{{', '.join(sorted(self.categories))}}})"


_MAC = re.compile(r"^\(?\s*([^,{}()]+?)\s*(?:,\s*)?(?:\{([^{}]*)\})?\s*\)?$")


class CategoryLattice(LabelOrder):
    """MAC-style labels (Ex. 3.3.6): level order × subset order on categories."""

    def __init__(self, levels: TotalOrder = MAC_LEVELS, categories: Iterable[str] | None = None,
                 name: str = "(level, categories) lattice"):
        self.name = name
        self.levels = levels
        self.categories = frozenset(categories) if categories is not None else None

    def parse(self, text, *, file=None, row=None, column=None) -> MacLabel:
        match = _MAC.match(str(text).strip())
        if not match:
            raise InputError(f"'{text}' is not a (level, categories) label", file=file, row=row,
                             column=column, hint="write it as TopSecret{A,B} or (TopSecret, {A, B})")
        level = self.levels.parse(match.group(1), file=file, row=row, column=column)
        cats = frozenset(c.strip() for c in (match.group(2) or "").split(",") if c.strip())
        if self.categories is not None and not cats <= self.categories:
            unknown = ", ".join(sorted(cats - self.categories))
            raise InputError(f"unknown categor(y/ies) {unknown} in label '{text}'", file=file, row=row,
                             column=column,
                             hint=f"known categories: {', '.join(sorted(self.categories))}")
        return MacLabel(level, cats)

    def format(self, label) -> str:
        return str(label)

    def leq(self, a, b) -> bool:
        return self.levels.leq(a.level, b.level) and a.categories <= b.categories

    def join(self, a, b) -> MacLabel:
        return MacLabel(self.levels.join(a.level, b.level), a.categories | b.categories)

    @property
    def bottom(self) -> MacLabel:
        return MacLabel(self.levels.bottom, frozenset())


# --------------------------------------------------------------------------------------
# patterns
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PrivacyPattern:
    """``(s|*, p|*, o|*) → label``; ``None`` is the wildcard. ``source`` is file/row for messages."""

    s: Node | None
    p: Node | None
    o: Node | None
    label: Label
    source: str | None = None

    @property
    def shape(self) -> str:
        """The Table 3.2 shape, e.g. ``(c_i, r_j, *)``."""
        return "(" + ", ".join("*" if t is None else name
                               for t, name in zip(self.terms, ("c_i", "r_j", "c_k"))) + ")"

    @property
    def terms(self) -> tuple[Node | None, Node | None, Node | None]:
        return (self.s, self.p, self.o)

    def matches(self, triple: Sequence[Node], isa: IsaHierarchy | None = None) -> bool:
        """The triple is an instance of the pattern (constants match through ISA ancestors)."""
        for want, have in zip(self.terms, triple):
            if want is None or want == have:
                continue
            if isa is None or not isa.is_a(have, want):
                return False
        return True

    def contained_in(self, other: PrivacyPattern, isa: IsaHierarchy | None = None) -> bool:
        """Def 3.3.5: ``self ⊆pc other``."""
        for mine, theirs in zip(self.terms, other.terms):
            if theirs is None:
                continue
            if mine is None:
                return False
            if mine != theirs and (isa is None or not isa.is_a(mine, theirs)):
                return False
        return True

    def __str__(self) -> str:
        return "(" + ", ".join("*" if t is None else local_name(t) for t in self.terms) + ")"


@dataclass(frozen=True)
class MonotonicityViolation:
    """``narrow ⊆pc broad`` but ``λ(narrow) ≥ λ(broad)`` does not hold (Def 3.3.10)."""

    narrow: PrivacyPattern
    broad: PrivacyPattern

    def describe(self, order: LabelOrder) -> str:
        where = f" [{self.narrow.source}]" if self.narrow.source else ""
        broad_where = f" [{self.broad.source}]" if self.broad.source else ""
        return (f"{self.narrow} → {order.format(self.narrow.label)}{where} is contained in "
                f"{self.broad} → {order.format(self.broad.label)}{broad_where} but its label is not at least "
                f"as high")


class PrivacyMapping:
    """λ: patterns → labels of ``order``; labels triples by LUB over matching patterns."""

    def __init__(self, patterns: Iterable[PrivacyPattern], order: LabelOrder = DEFAULT_ORDER):
        self.order = order
        checked = []
        for pattern in patterns:  # labels must belong to the order; text labels are parsed
            label = pattern.label
            if isinstance(label, str):
                label = order.parse(label, file=pattern.source)
            elif isinstance(label, MacLabel) and isinstance(order, CategoryLattice):
                label = order.parse(str(label), file=pattern.source)
            else:
                order.parse(order.format(label), file=pattern.source)
            checked.append(PrivacyPattern(pattern.s, pattern.p, pattern.o, label, pattern.source))
        self.patterns: tuple[PrivacyPattern, ...] = tuple(checked)

    def matching(self, triple: Sequence[Node], isa: IsaHierarchy | None = None) -> list[PrivacyPattern]:
        return [p for p in self.patterns if p.matches(triple, isa)]

    def label(self, triple: Sequence[Node], isa: IsaHierarchy | None = None) -> Label:
        """λ(triple): LUB of the labels of all matching patterns; bottom if none matches."""
        if isa is None:
            return self.order.lub(p.label for p in self.patterns if p.matches(triple))
        anc = [isa.ancestors(t) for t in triple]
        return self.order.lub(
            p.label for p in self.patterns
            if (p.s is None or p.s in anc[0]) and (p.p is None or p.p in anc[1])
            and (p.o is None or p.o in anc[2]))

    def monotonicity_violations(self, isa: IsaHierarchy | None = None) -> list[MonotonicityViolation]:
        """Every pair ``p2 ⊆pc p1`` with ``not λ(p1) ≤ λ(p2)``."""
        found = []
        for narrow in self.patterns:
            for broad in self.patterns:
                if narrow is broad:
                    continue
                if narrow.contained_in(broad, isa) and not self.order.leq(broad.label, narrow.label):
                    found.append(MonotonicityViolation(narrow, broad))
        return found

    def check_monotone(self, isa: IsaHierarchy | None = None, file: str | None = None) -> None:
        """Raise an InputError naming every monotonicity violation (none: return)."""
        found = self.monotonicity_violations(isa)
        if found:
            lines = "; ".join(v.describe(self.order) for v in found[:20])
            more = f"; and {len(found) - 20} more" if len(found) > 20 else ""
            raise InputError(f"the privacy mapping is not monotone: {lines}{more}", file=file,
                             hint="a pattern contained in another must have a label at least as "
                                  "high (Def 3.3.10); raise the narrower pattern's label")


# --------------------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------------------


class TermResolver:
    """Turns a term written in a pattern file into an rdflib term.

    ``<iri>`` → that IRI; ``prefix:local`` → expanded with ``prefixes``; ``ISA`` →
    ``pia:ISA``; a bare name → the unique known term (from the data) with that local
    name, else ``default_namespace + name`` when one is given.
    """

    def __init__(self, prefixes: dict[str, str] | None = None, known: Iterable[Node] = (),
                 default_namespace: str | None = None):
        self.prefixes = {"pia": str(PIA), "rdf": str(RDF)}
        self.prefixes.update(prefixes or {})
        self.default_namespace = default_namespace
        self._by_local: dict[str, set[Node]] = {}
        for term in known:
            if isinstance(term, URIRef):
                self._by_local.setdefault(local_name(term), set()).add(term)

    def resolve(self, text: str, *, file=None, row=None, column=None) -> Node | None:
        text = text.strip()
        if text in ("", "*"):
            return None
        if text.startswith("<") and text.endswith(">"):
            return URIRef(text[1:-1])
        if ":" in text and not text.startswith(("http:", "https:", "urn:")):
            prefix, local = text.split(":", 1)
            if prefix in self.prefixes:
                return URIRef(self.prefixes[prefix] + local)
            raise InputError(f"unknown prefix '{prefix}:' in '{text}'", file=file, row=row, column=column,
                             hint=f"known prefixes: {', '.join(sorted(self.prefixes))}; "
                                  f"or write the full IRI in <...>")
        if ":" in text:
            return URIRef(text)
        if text == "ISA":
            return ISA
        candidates = self._by_local.get(text, set())
        if len(candidates) == 1:
            return next(iter(candidates))
        if len(candidates) > 1:
            raise InputError(f"'{text}' is ambiguous: {', '.join(sorted(map(str, candidates)))}",
                             file=file, row=row, column=column, hint="write prefix:name or <iri>")
        if self.default_namespace:
            return URIRef(self.default_namespace + text)
        raise InputError(f"unknown term '{text}'", file=file, row=row, column=column,
                         hint="no term of the data has this name; write prefix:name or <iri>, or fix "
                              "the spelling")


_COLUMNS = ("subject", "predicate", "object", "label")


def load_patterns_csv(path: str | Path, order: LabelOrder = DEFAULT_ORDER,
                      resolver: TermResolver | None = None) -> PrivacyMapping:
    """Patterns from a CSV file with columns subject, predicate, object, label."""
    path = existing_file(path, "pattern file")
    file = str(path)
    resolver = resolver or TermResolver()
    reader = csv_rows(read_text(path, "pattern file"), file)
    try:
        _, header = next(reader)
    except StopIteration:
        raise InputError("pattern file is empty", file=file,
                         hint="the first line must be: subject,predicate,object,label") from None
    names = [h.strip().casefold() for h in header]
    missing = [c for c in _COLUMNS if c not in names]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)}", file=file, row=1,
                         hint="the first line must be: subject,predicate,object,label")
    where = {c: names.index(c) for c in _COLUMNS}
    patterns = []
    for row_no, row in reader:
        if not any(cell.strip() for cell in row) or row[0].lstrip().startswith("#"):
            continue
        if len(row) < len(header):
            raise InputError(f"{len(row)} field(s), expected {len(header)}", file=file, row=row_no)
        terms = [resolver.resolve(row[where[c]], file=file, row=row_no, column=c) for c in _COLUMNS[:3]]
        label = order.parse(row[where["label"]], file=file, row=row_no, column="label")
        patterns.append(PrivacyPattern(*terms, label=label, source=f"{file}, row {row_no}"))
    return PrivacyMapping(patterns, order)


def load_patterns_turtle(path: str | Path, order: LabelOrder = DEFAULT_ORDER) -> PrivacyMapping:
    """Patterns from RDF: ``[] a pia:PrivacyPattern; pia:predicate ex:p; pia:label "High"``."""
    file = str(path)
    graph = parse_graph(path)
    patterns = []
    nodes = sorted(set(graph.subjects(RDF.type, PIA.PrivacyPattern)), key=str)
    if not nodes:
        raise InputError("no pia:PrivacyPattern in the file", file=file,
                         hint="declare each pattern as  [] a pia:PrivacyPattern ; pia:label \"High\" ; ... "
                              "with @prefix pia: <urn:tklscore:pia#>")
    for node in nodes:
        name = local_name(node) if isinstance(node, URIRef) else "a blank-node pattern"
        terms = []
        for prop in (PIA.subject, PIA.predicate, PIA.object):
            values = list(graph.objects(node, prop))
            if len(values) > 1:
                raise InputError(f"pattern {name} has {len(values)} values for pia:{local_name(prop)}",
                                 file=file, hint="a pattern position holds one term or the wildcard")
            value = values[0] if values else None
            if value == PIA.Any or (isinstance(value, Literal) and str(value).strip() in ("*", "")):
                value = None
            terms.append(value)
        labels = list(graph.objects(node, PIA.label))
        if len(labels) != 1:
            raise InputError(f"pattern {name} ({', '.join('*' if t is None else local_name(t) for t in terms)})"
                             f" has {len(labels)} pia:label values, expected 1", file=file)
        label = order.parse(str(labels[0]), file=file, column=f"pattern {name}")
        patterns.append(PrivacyPattern(*terms, label=label, source=f"{file}, pattern {name}"))
    return PrivacyMapping(patterns, order)


def load_patterns(path: str | Path, order: LabelOrder = DEFAULT_ORDER,
                  resolver: TermResolver | None = None) -> PrivacyMapping:
    """``.csv`` → :func:`load_patterns_csv`; anything else is read as RDF."""
    if Path(path).suffix.lower() == ".csv":
        return load_patterns_csv(path, order, resolver)
    return load_patterns_turtle(path, order)
