"""The logic graph of the violations' inference paths (Daniels 2018, §5.2; pia.md §2.5):
Algs 10–14 build it, Alg 15 renders its logic string, Def 5.2.1 its disruption sentence,
Alg 16 evaluates a cover (on the string: :func:`evaluate_logic_string`; on the graph:
:meth:`LogicGraph.is_cover`), Algs 17/18 test every subset of the candidates at once
(:meth:`LogicGraph.cover_mask`) and Alg 24 finds one low-cost cover by traversal.

A rooted graph of ``AND`` (collector: every rule deriving one fact must be disrupted —
the disruption container of §5.2), ``OR`` (one rule firing: disrupting any body element
disrupts it) and ``FACT`` (a ground candidate fact) nodes, built from *every*
justification of the closure. Nodes are reused as in Alg 13/14, so the graph is a DAG
(or, with recursive rules, may contain cycles).

**Semantics.** A node is *disrupted* when the fact it stands for can no longer be derived
after the chosen facts are removed. FACT: chosen. OR (rule firing): any body element
disrupted. AND (all rules of one fact): every rule disrupted. Body elements that can
never be altered — ontology facts and facts with safety 3 (Ch. 6 exclusion) — are never
disrupted and do not appear in the graph. On an acyclic graph this is exactly the
evaluation of the disruption sentence; with cycles (recursive rules)
:meth:`LogicGraph.covers` computes the least fixpoint of derivability, so a cover is
exactly a removal set after which no violation is derivable. Every subset is tested at
once: each node's truth value is a 2^q-bit integer (bit i = the value under subset i).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tklscore.core.errors import InputError
from tklscore.core.pia.disruption import DisruptionCancelled
from tklscore.core.pia.facts import Triple
from tklscore.core.pia.reasoner import Closure, Justification

MAX_ENUMERATED = 18
"""Largest candidate count whose 2^q cover powerset is enumerated (Alg 17)."""

AND, OR, FACT = "AND", "OR", "FACT"


@dataclass(eq=False)
class LogicNode:
    """``kind`` AND (collector), OR (one rule firing) or FACT (a candidate)."""

    kind: str
    fact: Triple | None = None
    justification: Justification | None = None
    children: list[LogicNode] = field(default_factory=list)
    index: int = -1           # FACT: position in the candidate list

    def __repr__(self) -> str:
        return f"LogicNode({self.kind}, {self.fact}, {len(self.children)} children)"


class LogicGraph:
    """The rooted AND/OR graph of the violations' inference paths and its candidates C."""

    def __init__(self):
        self.root = LogicNode(AND)
        self.candidates: list[Triple] = []
        self.nodes: list[LogicNode] = [self.root]
        self._and: dict[Triple, LogicNode] = {}
        self._or: dict[tuple, LogicNode] = {}
        self._fact: dict[Triple, LogicNode] = {}
        self._edges: set[tuple[int, int]] = set()

    # -- construction (Algs 12–14) -------------------------------------------------------
    def _edge(self, parent: LogicNode, child: LogicNode) -> None:
        key = (id(parent), id(child))
        if key not in self._edges:
            self._edges.add(key)
            parent.children.append(child)

    def add_inference(self, parent: LogicNode, fact: Triple, just: Justification, count: int) -> LogicNode:
        """Alg 12/13: an OR node for (rule firing, fact), under an AND container if count > 1."""
        if count > 1:
            a = self._and.get(fact)
            if a is None:
                a = self._and[fact] = LogicNode(AND, fact)
                self.nodes.append(a)
            self._edge(parent, a)
            parent = a
        key = (fact, just.rule.name, just.body)
        b = self._or.get(key)
        if b is None:
            b = self._or[key] = LogicNode(OR, fact, just)
            self.nodes.append(b)
        self._edge(parent, b)
        return b

    def add_fact(self, parent: LogicNode, fact: Triple) -> LogicNode:
        """Alg 14 (and Alg 11 lines 6–9: a new fact joins the candidate list C)."""
        n = self._fact.get(fact)
        if n is None:
            n = self._fact[fact] = LogicNode(FACT, fact, index=len(self.candidates))
            self.candidates.append(fact)
            self.nodes.append(n)
        self._edge(parent, n)
        return n

    # -- rendering (Alg 15, Def 5.2.1) -----------------------------------------------------
    def _name(self, names) -> Callable[[Triple], str]:
        if names is None:
            return str
        if callable(names):
            return names
        return lambda t: names[t]

    def logic_string(self, names: Mapping[Triple, str] | Callable | None = None) -> str:
        """Alg 15: ``AND → ( x ∧ y ∧ 1 )``, ``OR → ( x | y | 0 )``, FACT → its name.

        A reference back to a node on the current path (recursive rules) can never help
        derive that node, so it is written ``1`` (disrupted).
        """
        name = self._name(names)
        out: list[str] = []

        def walk(n: LogicNode, path: set[int]) -> None:
            if n.kind == FACT:
                out.append(name(n.fact))
                return
            if id(n) in path:
                out.append("1")
                return
            path.add(id(n))
            out.append("(")
            for c in n.children:
                walk(c, path)
                out.append(" ∧ " if n.kind == AND else " | ")
            out.append("1 )" if n.kind == AND else "0 )")
            path.discard(id(n))

        walk(self.root, set())
        return "".join(out)

    def sentence(self, names: Mapping[Triple, str] | Callable | None = None,
                 node: LogicNode | None = None) -> str:
        """Def 5.2.1's disruption sentence: nested rule bodies flattened into their ``∨``.

        ``node`` (default the root) selects a sub-sentence, e.g. one violation's.
        """
        name = self._name(names)

        def terms(n: LogicNode, path: frozenset) -> list[str]:
            # the ∨-terms of an OR node, with nested single-rule facts flattened in
            out = []
            for c in n.children:
                if c.kind == OR and id(c) not in path:
                    out.extend(terms(c, path | {id(c)}))
                else:
                    out.append(render(c, path))
            return out

        def render(n: LogicNode, path: frozenset) -> str:
            if n.kind == FACT:
                return name(n.fact)
            if id(n) in path:
                return "1"
            path = path | {id(n)}
            if n.kind == OR:
                parts = terms(n, path)
                return "(" + " ∨ ".join(parts) + ")" if parts else "0"
            parts = [render(c, path) for c in n.children]
            return "(" + " ∧ ".join(parts) + ")" if parts else "1"

        return render(node or self.root, frozenset())

    def violation_nodes(self) -> dict[Triple, LogicNode]:
        """The root's children by the violation they stand for."""
        return {c.fact: c for c in self.root.children}

    # -- evaluation (Alg 16, Alg 17 in parallel) ---------------------------------------------
    def _order(self) -> list[LogicNode]:
        """Non-FACT nodes in post-order from the root (children first where acyclic)."""
        order: list[LogicNode] = []
        seen: set[int] = set()
        stack: list[tuple[LogicNode, int]] = [(self.root, 0)]
        seen.add(id(self.root))
        while stack:
            n, i = stack.pop()
            if i < len(n.children):
                stack.append((n, i + 1))
                c = n.children[i]
                if c.kind != FACT and id(c) not in seen:
                    seen.add(id(c))
                    stack.append((c, 0))
            else:
                order.append(n)
        return order

    def _alive(self, removed: Sequence[int], full: int) -> int:
        """The root's "some violation still derivable" truth table (least fixpoint)."""
        order = self._order()
        alive: dict[int, int] = {id(n): 0 for n in order}
        changed = True
        while changed:
            changed = False
            for n in order:
                if n is self.root:
                    continue
                if n.kind == OR:          # a rule fires iff its whole body is alive
                    v = full
                    for c in n.children:
                        v &= (full & ~removed[c.index]) if c.kind == FACT else alive[id(c)]
                        if not v:
                            break
                else:                     # a fact is derived iff one of its rules fires
                    v = 0
                    for c in n.children:
                        v |= alive[id(c)]
                if v != alive[id(n)]:
                    alive[id(n)] = v
                    changed = True
        v = 0
        for c in self.root.children:
            v |= (full & ~removed[c.index]) if c.kind == FACT else alive[id(c)]
        return v

    def is_cover(self, facts: Iterable[Triple]) -> bool:
        """Alg 16 on the graph: does removing ``facts`` disrupt every violation?"""
        chosen = set(facts)
        removed = [1 if c in chosen else 0 for c in self.candidates]
        return not self._alive(removed, 1)

    def cover_mask(self, cancelled: Callable[[], bool] | None = None) -> int:
        """Alg 17 for all 2^q subsets at once: bit i set iff subset i (bit k = candidate k) covers."""
        q = len(self.candidates)
        if q > MAX_ENUMERATED:
            raise InputError(f"{q} candidate facts: the cover powerset has 2^{q} subsets, too many "
                             f"to enumerate (limit {MAX_ENUMERATED})",
                             hint="use strategy='traversal' (Alg 24) for this many candidates")
        n = 1 << q
        full = (1 << n) - 1
        removed = []
        for k in range(q):
            if cancelled is not None and cancelled():
                raise DisruptionCancelled("the efficient disruption was cancelled; nothing was altered")
            pattern = ((1 << (1 << k)) - 1) << (1 << k)        # bits 2^k .. 2^(k+1) − 1
            width = 1 << (k + 1)                               # repeated every 2^(k+1) bits
            while width < n:
                pattern |= pattern << width
                width <<= 1
            removed.append(pattern)
        return full & ~self._alive(removed, full)

    def covers(self, cancelled: Callable[[], bool] | None = None) -> list[tuple[int, ...]]:
        """Every covering subset, as sorted candidate indexes, in binary-count order (Alg 17/18)."""
        mask = self.cover_mask(cancelled)
        q = len(self.candidates)
        return [tuple(k for k in range(q) if i >> k & 1)
                for i, ch in enumerate(bin(mask)[:1:-1]) if ch == "1"]

    def cover_count(self) -> int:
        return self.cover_mask().bit_count()


def build_logic_graph(closure: Closure, violations: Iterable, *, ontology: Iterable[Triple] = (),
                      excluded: Iterable[Triple] = ()) -> LogicGraph:
    """Algs 10–14: the logic graph of the violations and the candidate list C.

    ``violations``: :class:`~tklscore.core.pia.violations.Violation` objects or triples.
    ``ontology`` facts (O) are never candidates; ``excluded`` facts (safety 3) neither.
    """
    graph = LogicGraph()
    ontology = frozenset(ontology)
    excluded = frozenset(excluded)
    followed: set[tuple] = set()

    def get_candidates(just: Justification, node: LogicNode) -> None:   # Alg 11
        stack = [(just, node)]
        while stack:
            j, n = stack.pop()
            todo = []
            for f in j.body:
                if f in ontology:
                    continue
                if closure.is_asserted(f):
                    if f not in excluded:
                        graph.add_fact(n, f)
                    continue
                rules = closure.justifications(f)
                for r in rules:
                    child = graph.add_inference(n, f, r, len(rules))
                    key = (f, r.rule.name, r.body)
                    if key not in followed:
                        followed.add(key)
                        todo.append((r, child))
            stack.extend(reversed(todo))

    for v in violations:                                                  # Alg 10
        triple = getattr(v, "triple", v)
        rules = closure.justifications(triple)
        for r in rules:
            n = graph.add_inference(graph.root, triple, r, len(rules))
            key = (triple, r.rule.name, r.body)
            if key not in followed:
                followed.add(key)
                get_candidates(r, n)
    return graph


def evaluate_logic_string(text: str, chosen: Iterable[str]) -> bool:
    """Alg 16: set the names in ``chosen`` to 1 and every other name to 0, then evaluate.

    Accepts Alg 15's form (``∧``/``|`` with identities) and the sentence form (``∨``).
    Names are the tokens between operators and parentheses.
    """
    chosen = set(chosen)
    tokens: list[str] = []
    buf = ""
    for ch in text:
        if ch in "()∧∨|&":
            if buf.strip():
                tokens.append(buf.strip())
            buf = ""
            tokens.append({"&": "∧", "|": "∨"}.get(ch, ch))
        elif ch.isspace():
            if buf.strip():
                tokens.append(buf.strip())
            buf = ""
        else:
            buf += ch
    if buf.strip():
        tokens.append(buf.strip())
    pos = 0

    def atom() -> bool:
        nonlocal pos
        if pos >= len(tokens):
            raise InputError("incomplete logic string")
        tok = tokens[pos]
        pos += 1
        if tok == "(":
            value = expr()
            if pos >= len(tokens) or tokens[pos] != ")":
                raise InputError("unbalanced parentheses in logic string")
            pos += 1
            return value
        if tok in ("0", "1"):
            return tok == "1"
        if tok in (")", "∧", "∨"):
            raise InputError(f"unexpected '{tok}' in logic string")
        return tok in chosen

    def conj() -> bool:
        nonlocal pos
        value = atom()
        while pos < len(tokens) and tokens[pos] == "∧":
            pos += 1
            value = atom() and value
        return value

    def expr() -> bool:
        nonlocal pos
        value = conj()
        while pos < len(tokens) and tokens[pos] == "∨":
            pos += 1
            value = conj() or value
        return value

    result = expr()
    if pos != len(tokens):
        raise InputError(f"unexpected '{tokens[pos]}' in logic string")
    return result


def traverse_for_cover(graph: LogicGraph, cost: Callable[[int], float]) -> tuple[tuple[int, ...], float]:
    """Alg 24: AND → all children (costs summed), OR → the cheapest child, FACT → ``cost(k)``.

    Returns (candidate indexes, total). A back-reference on the current path is free
    (that rule body cannot derive its ancestor). Costs of facts picked twice are counted once.
    """
    inf = float("inf")

    def walk(n: LogicNode, path: frozenset) -> tuple[frozenset, float]:
        if n.kind == FACT:
            return frozenset([n.index]), cost(n.index)
        if id(n) in path:
            return frozenset(), 0.0
        path = path | {id(n)}
        if n.kind == AND:
            chosen: frozenset = frozenset()
            for c in n.children:
                s, _ = walk(c, path)
                chosen |= s
            return chosen, sum(cost(k) for k in chosen)
        best, best_e = frozenset(), inf
        for c in n.children:
            s, e = walk(c, path)
            if e < best_e:
                best, best_e = s, e
        return best, best_e

    chosen, total = walk(graph.root, frozenset())
    return tuple(sorted(chosen)), total
