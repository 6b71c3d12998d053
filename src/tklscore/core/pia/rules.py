"""Inference rules: positive Horn clauses over triple patterns (pia.md §2.3, §9).

A :class:`Rule` is ``body → head`` where body and head are :class:`Atom` triple patterns
whose positions are rdflib terms or :class:`Var` variables (Def 3.3.8: "the variables of
q also appear in the body"). A rule with several head atoms is split into one rule per
head (``name``, ``name#2``, …); a rule with an empty body and a ground head is an axiom.

Two syntaxes are read, both from local files or strings:

* **Jena rule syntax** (:func:`parse_jena_rules`), the subset PIA needs::

      @prefix ex: <http://example.org/pia#>.
      # comment            // comment too
      [likelyHas: (?p ex:treatedBy ex:Hepatologist) (?p ex:given ex:Interferon)
                  -> (?p ex:likelyHas ex:Hepatitis-C)]
      [isaTrans: (?a pia:ISA ?b), (?b pia:ISA ?c) -> (?a pia:ISA ?c)]

  ``rdf``, ``rdfs``, ``owl``, ``xsd`` and ``pia`` are predeclared. Terms: ``?var``,
  ``<iri>``, ``prefix:local``, ``'literal'``/``"literal"`` (with ``^^type`` or
  ``@lang``), numbers. The label (``name:``) is optional; a rule may also be written
  without brackets and ended with ``.``.
* **N3** (:func:`parse_n3_rules`): ``{ body } => { head } .`` parsed by rdflib.

Anything outside positive forward Horn clauses is refused with an
:class:`~tklscore.core.errors.InputError` naming file, line and rule: backward rules
(``<-``), builtins / functors (``notEqual(?a ?b)``, ``noValue``, ``log:``/``math:``
predicates), nested rules, ``@include``, and a head variable not bound by the body.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from rdflib import OWL, RDF, RDFS, XSD, BNode, Graph, Literal, URIRef, Variable
from rdflib.graph import QuotedGraph
from rdflib.term import Node

from tklscore.core.errors import InputError, existing_file
from tklscore.core.pia.facts import PIA, local_name


@dataclass(frozen=True, order=True)
class Var:
    """A rule variable, ``?name``."""

    name: str

    def __str__(self) -> str:
        return f"?{self.name}"


Term = Var | Node


class Atom(NamedTuple):
    """A triple pattern; each position is a constant (rdflib term) or a :class:`Var`."""

    s: Term
    p: Term
    o: Term

    def variables(self) -> set[Var]:
        return {t for t in self if isinstance(t, Var)}

    def __str__(self) -> str:
        return "(" + " ".join(_show(t) for t in self) + ")"


def _show(term: Term) -> str:
    if isinstance(term, Var):
        return str(term)
    if isinstance(term, Literal):
        return repr(str(term))
    return local_name(term)


@dataclass(frozen=True)
class Rule:
    """``body → head``; ``source`` says where it was read (``file:line``) for messages."""

    name: str
    body: tuple[Atom, ...]
    head: Atom
    source: str | None = None

    def __post_init__(self):
        unbound = self.head.variables() - set().union(*(a.variables() for a in self.body))
        if unbound:
            names = ", ".join(sorted(str(v) for v in unbound))
            raise InputError(f"rule '{self.name}': head variable(s) {names} do not occur in the body",
                             file=self.source,
                             hint="every variable of the conclusion must be bound by the premises "
                                  "(Def 3.3.8); existential conclusions are not supported")

    @property
    def is_axiom(self) -> bool:
        return not self.body

    def __str__(self) -> str:
        body = " ".join(str(a) for a in self.body)
        return f"[{self.name}: {body} -> {self.head}]"


PREDECLARED = {"rdf": str(RDF), "rdfs": str(RDFS), "owl": str(OWL), "xsd": str(XSD), "pia": str(PIA)}

_BUILTIN_NAMESPACES = (
    "http://www.w3.org/2000/10/swap/",  # log:, math:, string:, list:, time:, crypto:, os:
    "http://www.w3.org/2007/rif-builtin-function#",
    "http://www.w3.org/2007/rif-builtin-predicate#",
)

# --------------------------------------------------------------------------------------
# Jena rule syntax
# --------------------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*|//[^\n]*)
  | (?P<arrow>->)
  | (?P<backarrow><-)
  | (?P<iri><[^>\s]*>)
  | (?P<string>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")(?:\^\^(?P<dtype><[^>\s]*>|[A-Za-z_][\w\-]*:[\w\-.]*[\w\-])|@(?P<lang>[A-Za-z\-]+))?
  | (?P<number>[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w:]))
  | (?P<var>\?[A-Za-z_][\w\-]*)
  | (?P<directive>@[A-Za-z]+)
  | (?P<name>[A-Za-z_][\w\-]*(?::(?:[\w\-.]*[\w\-])?)?|:[\w\-.]*[\w\-])
  | (?P<punct>[\[\]\(\),.:])
""", re.VERBOSE)


class _Tok(NamedTuple):
    kind: str
    text: str
    line: int
    dtype: str | None = None
    lang: str | None = None


def _tokenize(text: str, file: str | None) -> list[_Tok]:
    tokens: list[_Tok] = []
    pos, line = 0, 1
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            snippet = text[pos:pos + 20].split("\n")[0]
            raise InputError(f"cannot read rule text at '{snippet}'", file=file, row=line,
                             hint="Jena rule syntax: [name: (?s ex:p ?o) ... -> (?s ex:q ?o)]")
        kind = match.lastgroup
        if kind in ("dtype", "lang"):
            kind = "string"
        chunk = match.group(0)
        if kind not in ("ws", "comment"):
            tokens.append(_Tok(kind, match.group(kind) if kind != "string" else match.group("string"),
                               line, match.group("dtype"), match.group("lang")))
        line += chunk.count("\n")
        pos = match.end()
    return tokens


class _JenaParser:
    def __init__(self, text: str, file: str | None, prefixes: dict[str, str] | None):
        self.file = file
        self.tokens = _tokenize(text, file)
        self.i = 0
        self.prefixes = dict(PREDECLARED)
        self.prefixes.update(prefixes or {})
        self.rules: list[Rule] = []
        self.count = 0

    # -- helpers -------------------------------------------------------------------
    def error(self, message: str, tok: _Tok | None = None, hint: str | None = None):
        tok = tok or (self.tokens[self.i] if self.i < len(self.tokens) else
                      (self.tokens[-1] if self.tokens else None))
        raise InputError(message, file=self.file, row=tok.line if tok else None,
                         hint=hint or "Jena rule syntax: [name: (?s ex:p ?o) ... -> (?s ex:q ?o)]")

    def peek(self, k: int = 0) -> _Tok | None:
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else None

    def take(self) -> _Tok:
        tok = self.peek()
        if tok is None:
            self.error("unexpected end of the rule file")
        self.i += 1
        return tok

    def expect(self, text: str) -> _Tok:
        tok = self.take()
        if tok.text != text:
            self.error(f"expected '{text}' but found '{tok.text}'", tok)
        return tok

    # -- grammar -------------------------------------------------------------------
    def parse(self) -> list[Rule]:
        while self.peek() is not None:
            tok = self.peek()
            if tok.kind == "directive":
                self.directive()
            elif tok.text == "[":
                self.take()
                self.rule(closing="]")
            else:
                self.rule(closing=".")
        return self.rules

    def directive(self):
        tok = self.take()
        if tok.text == "@prefix":
            name = self.take()
            if name.kind != "name" or not name.text.endswith(":"):
                self.error(f"expected a prefix name like 'ex:' after @prefix, found '{name.text}'", name)
            iri = self.take()
            if iri.kind != "iri":
                self.error(f"expected <iri> after @prefix {name.text}, found '{iri.text}'", iri)
            self.prefixes[name.text[:-1]] = iri.text[1:-1]
            if self.peek() is not None and self.peek().text == ".":
                self.take()
        elif tok.text == "@include":
            self.error("@include is not supported", tok,
                       hint="PIA reads local rule files only; concatenate the rules into one file")
        else:
            self.error(f"unknown directive '{tok.text}'", tok)

    def rule(self, closing: str):
        start = self.peek()
        name = None
        first, second = self.peek(), self.peek(1)
        if first is not None and first.kind == "name" and (
                first.text.endswith(":") or (second is not None and second.text == ":")):
            self.take()
            if not first.text.endswith(":"):
                self.take()
            name = first.text.rstrip(":")
        self.count += 1
        name = name or f"rule{self.count}"
        source = f"{self.file}:{start.line}" if self.file else f"line {start.line}"
        body = []
        while True:
            tok = self.peek()
            if tok is None or tok.text == "]":
                self.error(f"rule '{name}' is not finished: no '->' conclusion", tok or start)
            if tok.kind == "backarrow":
                self.error(f"rule '{name}' is a backward rule ('<-')", tok,
                           hint="PIA runs positive forward rules only; write it as body -> head")
            if tok.kind == "arrow":
                self.take()
                break
            if tok.text == ",":
                self.take()
                continue
            body.append(self.atom(name))
        heads = []
        while True:
            tok = self.peek()
            if tok is None:
                if closing == ".":
                    break
                self.error(f"rule '{name}' is missing its closing '{closing}'", start)
            if tok.text == closing:
                self.take()
                break
            if tok.text == ",":
                self.take()
                continue
            if tok.kind in ("arrow", "backarrow"):
                self.error(f"rule '{name}' has a second arrow", tok)
            if tok.text == "[":
                self.error(f"rule '{name}' has a nested rule in its conclusion", tok,
                           hint="nested (backward) rules are not supported; PIA runs positive "
                                "forward Horn rules only")
            heads.append(self.atom(name))
        if not heads:
            self.error(f"rule '{name}' has no conclusion after '->'", start)
        for k, head in enumerate(heads):
            try:
                self.rules.append(Rule(name if k == 0 else f"{name}#{k + 1}", tuple(body), head,
                                       source=source))
            except InputError as exc:
                raise InputError(exc.message, file=self.file, row=start.line, hint=exc.hint) from None
            if not body and head.variables():
                self.error(f"axiom '{name}' has variables in its conclusion", start)

    def atom(self, rule: str) -> Atom:
        tok = self.take()
        if tok.kind == "name" and self.peek() is not None and self.peek().text == "(":
            self.error(f"rule '{rule}' uses the builtin or functor '{tok.text}(...)'", tok,
                       hint="builtins (notEqual, noValue, lessThan, ...), negation and functors are "
                            "not supported; PIA runs positive triple-pattern Horn rules only")
        if tok.text != "(":
            self.error(f"rule '{rule}': expected '(' to start a triple pattern, found '{tok.text}'", tok)
        terms = []
        while True:
            nxt = self.peek()
            if nxt is None:
                self.error(f"rule '{rule}': unfinished triple pattern", tok)
            if nxt.text == ")":
                self.take()
                break
            terms.append(self.term(rule))
        if len(terms) != 3:
            self.error(f"rule '{rule}': a triple pattern needs 3 terms, found {len(terms)}", tok)
        return Atom(*terms)

    def term(self, rule: str) -> Term:
        tok = self.take()
        if tok.kind == "var":
            return Var(tok.text[1:])
        if tok.kind == "iri":
            return URIRef(tok.text[1:-1])
        if tok.kind == "number":
            text = tok.text
            return Literal(int(text)) if re.fullmatch(r"[+-]?\d+", text) else Literal(float(text))
        if tok.kind == "string":
            value = bytes(tok.text[1:-1], "utf-8").decode("unicode_escape")
            if tok.dtype:
                dtype = tok.dtype[1:-1] if tok.dtype.startswith("<") else self.expand(tok.dtype, tok)
                return Literal(value, datatype=URIRef(dtype))
            return Literal(value, lang=tok.lang)
        if tok.kind == "name":
            if self.peek() is not None and self.peek().text == "(":
                self.error(f"rule '{rule}' uses the functor '{tok.text}(...)'", tok,
                           hint="functors are not supported; PIA runs triple-pattern rules only")
            return URIRef(self.expand(tok.text, tok))
        self.error(f"rule '{rule}': unexpected '{tok.text}' in a triple pattern", tok)

    def expand(self, text: str, tok: _Tok) -> str:
        if ":" not in text:
            self.error(f"'{text}' has no prefix", tok,
                       hint=f"write a prefixed name such as ex:{text} (and declare @prefix ex: <...>.) "
                            f"or a full <iri>; PIA's ISA is pia:ISA")
        prefix, local = text.split(":", 1)
        if prefix not in self.prefixes:
            self.error(f"unknown prefix '{prefix}:' in '{text}'", tok,
                       hint=f"declare it first: @prefix {prefix}: <...>.")
        return self.prefixes[prefix] + local


def parse_jena_rules(text: str, *, file: str | None = None,
                     prefixes: dict[str, str] | None = None) -> list[Rule]:
    """Rules in Jena rule syntax (the positive forward subset) → list of :class:`Rule`."""
    return _JenaParser(text, file, prefixes).parse()


# --------------------------------------------------------------------------------------
# N3
# --------------------------------------------------------------------------------------

_LOG_IMPLIES = URIRef("http://www.w3.org/2000/10/swap/log#implies")


def parse_n3_rules(text: str, *, file: str | None = None) -> list[Rule]:
    """Rules written in N3 as ``{ body } => { head } .`` (parsed by rdflib, locally)."""
    graph = Graph()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            graph.parse(data=text, format="n3")
    except Exception as exc:  # noqa: BLE001 - rdflib's N3 parser raises many exception types
        message = " ".join(str(exc).split())
        lines = getattr(exc, "lines", None)
        raise InputError(f"not valid N3: {message[:300]}", file=file,
                         row=lines + 1 if isinstance(lines, int) else None,
                         hint="N3 rules are written { ?x ex:p ?y } => { ?y ex:q ?x } .") from None
    rules: list[Rule] = []
    implications = sorted(graph.triples((None, _LOG_IMPLIES, None)),
                          key=lambda t: (sorted(map(str, t[2])), sorted(map(str, t[0]))))
    other = [t for t in graph if t[1] != _LOG_IMPLIES]
    if other:
        s, p, o = other[0]
        raise InputError(f"N3 rule file holds a plain fact ({local_name(s)}, {local_name(p)}, "
                         f"{local_name(o)}) outside any rule", file=file,
                         hint="put facts in the data file; a rule file holds only { ... } => { ... } .")
    for k, (body_graph, _, head_graph) in enumerate(implications, start=1):
        name = f"n3rule{k}"
        if not isinstance(body_graph, QuotedGraph) or not isinstance(head_graph, QuotedGraph):
            raise InputError(f"rule {k}: '=>' must join two formulas {{ ... }}", file=file)
        body = tuple(_n3_atom(t, name, file, in_head=False) for t in sorted(body_graph, key=str))
        heads = [_n3_atom(t, name, file, in_head=True) for t in sorted(head_graph, key=str)]
        if not heads:
            raise InputError(f"rule {k} has an empty conclusion {{ }}", file=file)
        for j, head in enumerate(heads):
            rules.append(Rule(name if j == 0 else f"{name}#{j + 1}", body, head, source=file))
    return rules


def _n3_atom(triple, rule: str, file: str | None, *, in_head: bool) -> Atom:
    terms: list[Term] = []
    for term in triple:
        if isinstance(term, QuotedGraph):
            raise InputError(f"{rule}: nested formula in a rule", file=file,
                             hint="PIA runs positive triple-pattern Horn rules only")
        if isinstance(term, Variable):
            terms.append(Var(str(term)))
        elif isinstance(term, BNode):
            if in_head:
                raise InputError(f"{rule}: blank node (existential) in the conclusion", file=file,
                                 hint="every term of the conclusion must be a constant or a body variable")
            terms.append(Var("_b" + str(term)))
        else:
            if isinstance(term, URIRef) and str(term).startswith(_BUILTIN_NAMESPACES):
                raise InputError(f"{rule} uses the builtin {term}", file=file,
                                 hint="builtins (log:, math:, string:, ...) are not supported; "
                                      "PIA runs positive triple-pattern Horn rules only")
            terms.append(term)
    return Atom(*terms)


# --------------------------------------------------------------------------------------


def load_rules(path: str | Path, *, prefixes: dict[str, str] | None = None) -> list[Rule]:
    """Read a local rule file: ``.n3`` as N3, anything else (``.rules``, ``.txt``) as Jena rules."""
    path = existing_file(path, "rule file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"rule file is not UTF-8 text ({exc.reason})", file=str(path)) from None
    if path.suffix.lower() == ".n3":
        return parse_n3_rules(text, file=str(path))
    return parse_jena_rules(text, file=str(path), prefixes=prefixes)


def check_unique_names(rules: Iterable[Rule]) -> None:
    seen: dict[str, Rule] = {}
    for rule in rules:
        if rule.name in seen:
            raise InputError(f"two rules are named '{rule.name}'", file=rule.source,
                             hint="give every rule its own label")
        seen[rule.name] = rule


__all__ = [
    "PREDECLARED",
    "Atom",
    "Rule",
    "Term",
    "Var",
    "check_unique_names",
    "load_rules",
    "parse_jena_rules",
    "parse_n3_rules",
]
