"""Efficient disruption (Daniels 2018, Ch. 5 and 6; pia.md §2.5, §2.6, §4.6–§4.8).

Instead of the 4^q − 1 quaternary solutions of the exhaustive search, the efficient
method reasons about the *shape* of the violations' inference paths:

1. **Logic graph** (Algs 10–14, Fig. 5.12) — :func:`build_logic_graph`. A rooted graph of
   ``AND`` (collector: every rule deriving one fact must be disrupted — the disruption
   container of §5.2), ``OR`` (one rule firing: disrupting any body element disrupts it)
   and ``FACT`` (a ground candidate fact) nodes, built from *every* justification of the
   closure. Nodes are reused as in Alg 13/14, so the graph is a DAG (or, with recursive
   rules, may contain cycles; see "semantics" below).
2. **Disruption sentences and cover tests** (Def 5.2.1, Algs 15/16) —
   :meth:`LogicGraph.logic_string` renders Alg 15's string (``∧ … 1`` / ``| … 0``),
   :meth:`LogicGraph.sentence` the flattened sentence of §5.2 (``(a ∨ b ∨ c ∨ e ∨ f)``),
   :func:`evaluate_logic_string` is Alg 16 (set the chosen facts to 1, the others to 0,
   evaluate) and :meth:`LogicGraph.is_cover` the same test on the graph.
3. **Cover powerset** (Algs 17/18) — :meth:`LogicGraph.covers`: every covering subset of the
   candidates (not only the ⊂-minimal ones: Table 5.6 counts 7/49/637, §4.8). All 2^q
   subsets are tested *at once*: each node's truth value is a 2^q-bit integer (bit i =
   the value under subset i), so a cover test is a few big-integer operations per node.
4. **Metadata** (§5.3): participation (Algs 19/20, :func:`participation`), entropy
   (Calmet–Daemi, Algs 21/22, :func:`concept_entropy`), depth (root = 1, §8 item 8),
   information vectors (Defs 5.3.1–5.3.3 / 6.3.1–6.3.3: :class:`ItemVector`,
   :class:`AlterationVector`, :class:`CombinationVector`) and
   ``Impact = Cost + Cost·U − P + V`` (Defs 5.3.4 / 6.3.4, :func:`impact`) with
   ``U = |a2[0] ∪ a2[1]|`` (§8 item 15).
5. **Search** — :func:`efficient_disruption`: the low-cost selection heuristic (Alg 9):
   removal covers in Impact order; for the 5 cheapest, switch a removal to the one-level
   generalisation θ(o) when ``H(θ(o)) − H(o) > (H(root) − H(o)) / 2``; keep a switched
   combination if it is cheaper and the reasoner finds no violation. Then (``refine``)
   the generalisation loop of Alg 23 on the chosen combination: generalise the facts
   with the highest entropy gain, remove the rest, re-check with the reasoner, drop the
   lowest-gain fact on failure (at most 5 checks). ``strategy="traversal"`` uses Alg 24's
   depth-first low-cost cover instead of the cover powerset (for very many candidates).

**Semantics of the graph.** A node is *disrupted* when the fact it stands for can no
longer be derived after the chosen facts are removed. FACT: chosen. OR (rule firing):
any body element disrupted. AND (all rules of one fact): every rule disrupted. Body
elements that can never be altered — ontology facts and facts with safety 3 (Ch. 6
exclusion) — are never disrupted and do not appear in the graph. On an acyclic graph
this is exactly the evaluation of the disruption sentence; with cycles (recursive
rules) :meth:`LogicGraph.covers` computes the least fixpoint of derivability, so a
cover is exactly a removal set after which no violation is derivable.

**Safe inferences** of a fact (a2): the inferred, non-violating triples whose
derivations use it (forward through the closure's justifications), except those that
are "dependent on a violation" (Ex. 5.3.1), read as: some derivation of them uses a
violation (directly or through other inferred facts).

Everything here is pure Python over :mod:`~tklscore.core.pia.reasoner` closures; bad
input raises :class:`~tklscore.core.errors.InputError`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field

from tklscore.core.errors import InputError
from tklscore.core.pia.disruption import DisruptionCancelled, DisruptionResult
from tklscore.core.pia.facts import DEFAULT_ISA_PREDICATES, IsaHierarchy, Triple
from tklscore.core.pia.reasoner import Change, Closure, Justification
from tklscore.core.pia.solutions import (
    CREDIT,
    KEEP,
    PARENT,
    REMOVAL_COST,
    REMOVE,
    Alteration,
    Solution,
    alter_data,
    make_alteration,
)

SAMPLE_SIZE = 5
"""Alg 9 / Alg 23: the number of cheapest covers (z) examined for generalisation."""

ENTROPY_THRESHOLD = 0.5
"""Alg 9: switch to θ(o) when it keeps more than half of the removal's entropy gain."""

MAX_ENUMERATED = 18
"""Largest candidate count whose 2^q cover powerset is enumerated (Alg 17)."""

MAX_BASELINE_CHECKS = 200
"""Reasoner checks spent looking for a removal cover that is valid on DB0 (see Alg 9 step 4)."""

# --------------------------------------------------------------------------------------
# entropy and depth (Algs 21/22, Table 5.2)
# --------------------------------------------------------------------------------------


def binary_entropy(p: float) -> float:
    """``−p·log2 p − (1 − p)·log2(1 − p)`` with ``0·log 0 = 0``."""
    if p <= 0.0 or p >= 1.0:
        return 0.0
    return -p * math.log2(p) - (1.0 - p) * math.log2(1.0 - p)


def concept_entropy(degree: int, size: int) -> float:
    """Alg 21: ``H = h(d̂/2)`` with ``d̂ = degree / size`` (size = |O| without the root).

    A leaf (degree 0) gives 0, the root (degree = size) gives 1 (Table 5.2).
    """
    if size <= 0:
        raise InputError("the ontology has no concepts, so entropy is undefined",
                         hint="give the ISA hierarchy of the domain ontology")
    if degree < 0 or degree > size:
        raise InputError(f"concept degree {degree} is outside 0..{size}")
    return binary_entropy(degree / size / 2.0)


def ontology_size(isa: IsaHierarchy) -> int:
    """|O|: the concepts of the ISA hierarchy, the root excluded (Ex. 5.3.2)."""
    return len(isa.concepts() - {isa.root})


def concept_degree(isa: IsaHierarchy, concept) -> int:
    """Alg 22 with the §8 item 9 fix: the number of descendants (the root: |O|)."""
    if concept is None or concept == isa.root:
        return ontology_size(isa)
    return len(isa.descendants(concept))


class EntropyTable:
    """Cached entropy / depth of concepts of one ISA hierarchy (the root: H = 1, depth 1)."""

    def __init__(self, isa: IsaHierarchy):
        self.isa = isa
        self.size = ontology_size(isa)
        self._h: dict = {}

    def entropy(self, concept) -> float:
        if concept is None or concept == self.isa.root:
            return 1.0
        h = self._h.get(concept)
        if h is None:
            h = concept_entropy(concept_degree(self.isa, concept), self.size) if self.size else 0.0
            self._h[concept] = h
        return h

    def depth(self, concept) -> int:
        if concept is None or concept == self.isa.root:
            return 1
        return self.isa.depth(concept)


# --------------------------------------------------------------------------------------
# information vectors and Impact (Defs 5.3.1–5.3.4, 6.3.1–6.3.4)
# --------------------------------------------------------------------------------------


def impact(cost: float, disrupted_safe: int, preference: float = 0, safety: float = 0) -> float:
    """``Impact_S = Cost_S + Cost_S · U − P + V`` (Def 6.3.4; Def 5.3.4 when P = V = 0)."""
    return cost + cost * disrupted_safe - preference + safety


@dataclass(frozen=True)
class ItemVector:
    """Def 5.3.1/6.3.1: ⟨a1 alteration, a2 safe inferences, a3 depth, a4 entropy, a5, a6⟩.

    ``alteration`` is +1.0 for the altered (source) item and −0.5 / −0.25 / −0.0 for
    the target (Table 3.4's credit).
    """

    alteration: float
    safe: frozenset = frozenset()
    depth: float = 1
    entropy: float = 0.0
    preference: int = 0
    safety: int = 0


@dataclass(frozen=True)
class AlterationVector:
    """Def 5.3.2/6.3.2: the aggregate of a source and a target item."""

    alteration: float
    safe: tuple[frozenset, frozenset]
    depth: float
    entropy: float
    preference: int = 0
    safety: int = 0

    @classmethod
    def of(cls, source: ItemVector, target: ItemVector) -> AlterationVector:
        return cls(source.alteration + target.alteration, (source.safe, target.safe),
                   (source.depth + target.depth) / 2.0, target.entropy - source.entropy,
                   source.preference, source.safety)


@dataclass(frozen=True)
class CombinationVector:
    """Def 5.3.3/6.3.3: the aggregate of a combination's alterations."""

    alteration: float
    safe: tuple[frozenset, frozenset]
    depth: float
    entropy: float
    preference: int = 0
    safety: int = 0

    @classmethod
    def of(cls, alterations: Sequence[AlterationVector]) -> CombinationVector:
        if not alterations:
            return cls(0.0, (frozenset(), frozenset()), 0.0, 0.0, 0, 0)
        return cls(sum(a.alteration for a in alterations),
                   (frozenset().union(*(a.safe[0] for a in alterations)),
                    frozenset().union(*(a.safe[1] for a in alterations))),
                   sum(a.depth for a in alterations) / len(alterations),
                   sum(a.entropy for a in alterations),
                   sum(a.preference for a in alterations), sum(a.safety for a in alterations))

    @property
    def disrupted_safe(self) -> int:
        """U: the safe inferences disrupted, ``|a2[0] ∪ a2[1]|`` (§8 item 15)."""
        return len(self.safe[0] | self.safe[1])

    @property
    def impact(self) -> float:
        return impact(self.alteration, self.disrupted_safe, self.preference, self.safety)


# --------------------------------------------------------------------------------------
# the logic graph (Algs 10–16)
# --------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------
# Alg 16 on the string
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# participation (Algs 19/20) and safe inferences
# --------------------------------------------------------------------------------------


def _forward(closure: Closure, start: Iterable[Triple], stop: set[Triple] | frozenset = frozenset()
             ) -> set[Triple]:
    """Inferred triples whose derivations use one of ``start`` (not expanding past ``stop``)."""
    seen: set[Triple] = set()
    stack = list(start)
    while stack:
        t = stack.pop()
        for head, _ in closure.uses(t):
            if head not in seen and closure.is_inferred(head):
                seen.add(head)
                if head not in stop:
                    stack.append(head)
    return seen


def violation_dependent(closure: Closure, violations: Iterable[Triple]) -> set[Triple]:
    """The violations and every inferred triple some derivation of which uses one."""
    vs = set(violations)
    return vs | _forward(closure, vs)


def safe_inferences(closure: Closure, fact: Triple, dependent: set[Triple]) -> frozenset[Triple]:
    """a2 of a data item: safe inferences it takes part in (Ex. 5.3.1: not violation-dependent)."""
    if fact not in closure:
        return frozenset()
    return frozenset(_forward(closure, [fact], dependent) - dependent)


@dataclass
class Participation:
    """Algs 19/20: per ground fact, the violations and the safe inferences it takes part in."""

    violations: dict[Triple, set[Triple]] = field(default_factory=dict)
    safe: dict[Triple, set[Triple]] = field(default_factory=dict)

    def counts(self, fact: Triple) -> tuple[int, int]:
        return len(self.violations.get(fact, ())), len(self.safe.get(fact, ()))


def participation(closure: Closure, violations: Iterable, *, ontology: Iterable[Triple] = ()
                  ) -> Participation:
    """Algs 19/20 over every inferred triple: ground facts on each conclusion's paths.

    A conclusion counts as *violation* participation when it is a violation, as *safe*
    participation when it is not dependent on a violation (Ex. 5.3.1). Work is
    proportional to the whole closure; :func:`safe_inferences` answers one fact.
    """
    vs = {getattr(v, "triple", v) for v in violations}
    ontology = frozenset(ontology)
    dependent = violation_dependent(closure, vs)
    result = Participation()
    for c in closure.inferred():
        if c in vs:
            target = result.violations
        elif c in dependent:
            continue
        else:
            target = result.safe
        for f in _ground(closure, c, ontology):
            target.setdefault(f, set()).add(c)
    return result


def _ground(closure: Closure, conclusion: Triple, ontology: frozenset) -> set[Triple]:
    found: set[Triple] = set()
    visited = {conclusion}
    stack = [conclusion]
    while stack:
        for j in closure.justifications(stack.pop()):
            for f in j.body:
                if f in ontology:
                    continue
                if closure.is_asserted(f):
                    found.add(f)
                elif f not in visited:
                    visited.add(f)
                    stack.append(f)
    return found


# --------------------------------------------------------------------------------------
# candidate metadata and combinations
# --------------------------------------------------------------------------------------


@dataclass
class Candidate:
    """Metadata of one candidate fact (pia.md §5 "candidate fact data")."""

    fact: Triple
    entropy: float
    depth: int
    safe: frozenset
    preference: int = 0
    safety: int = 0
    parent: object | None = None          # θ(o), None when it is the root
    parent_entropy: float = 1.0
    parent_depth: int = 1
    parent_safe: frozenset = frozenset()

    @property
    def gain(self) -> float:
        """Entropy gained by the one-level generalisation, ``H(θ(o)) − H(o)``."""
        return self.parent_entropy - self.entropy

    def item(self) -> ItemVector:
        return ItemVector(REMOVAL_COST, self.safe, self.depth, self.entropy, self.preference, self.safety)

    def target(self, level: int) -> ItemVector:
        if level == PARENT and self.parent is not None:
            return ItemVector(-CREDIT[PARENT], self.parent_safe, self.parent_depth, self.parent_entropy)
        return ItemVector(-CREDIT[REMOVE], frozenset(), 1, 1.0)

    def vector(self, level: int) -> AlterationVector:
        return AlterationVector.of(self.item(), self.target(level))


@dataclass
class Combination:
    """A cover with a level per fact (REMOVE or PARENT) and its combination vector."""

    members: tuple[int, ...]
    levels: tuple[int, ...]
    vector: CombinationVector

    @property
    def impact(self) -> float:
        return self.vector.impact

    @property
    def cost(self) -> float:
        return self.vector.alteration


def combination(candidates: Sequence[Candidate], members: Sequence[int],
                levels: Sequence[int] | None = None) -> Combination:
    levels = tuple(levels) if levels is not None else (REMOVE,) * len(members)
    vec = CombinationVector.of([candidates[k].vector(lv) for k, lv in zip(members, levels)])
    return Combination(tuple(members), levels, vec)


def _check_levels(values: Mapping | None, kind: str) -> dict[Triple, int]:
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise InputError(f"{kind} values must be a mapping of triples to 0–3, not {type(values).__name__}")
    out = {}
    for t, v in values.items():
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 3:
            raise InputError(f"{kind} of {t} is {v!r}; it must be a whole number 0–3",
                             hint="Table 6.1/6.2: 0, 1, 2 or 3")
        out[Triple(*t)] = v
    return out


def generalisation_levels(candidates: Sequence[Candidate], members: Sequence[int],
                          threshold: float = ENTROPY_THRESHOLD) -> tuple[int, ...]:
    """Alg 9 lines 10–19: per removal, switch to θ(o) when it keeps enough entropy.

    The switch happens when ``H(θ(o)) − H(o) > threshold · (H(root) − H(o))`` — with the
    default 0.5 this is line 14's ``(entropy(r) − entropy(o)) / 2`` (Ex. 5.4.1: C7 → C3
    gains 0.5814 > 0.5 and is generalised; C18 → C6 gains 0.3095 and stays removed).
    """
    levels = []
    for k in members:
        c = candidates[k]
        limit = threshold * (1.0 - c.entropy)
        levels.append(PARENT if c.parent is not None and c.gain > limit else REMOVE)
    return tuple(levels)


# --------------------------------------------------------------------------------------
# Alg 24 TraverseForCover
# --------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------
# the efficient disruption (Alg 9 + Alg 23)
# --------------------------------------------------------------------------------------


def efficient_disruption(assessment, *, preferences: Mapping[Triple, int] | None = None,
                         safety: Mapping[Triple, int] | None = None,
                         progress: Callable[[float], object] | None = None,
                         cancelled: Callable[[], bool] | None = None,
                         mapping=None, isa: IsaHierarchy | None = None,
                         strategy: str = "heuristic", sample_size: int = SAMPLE_SIZE,
                         entropy_threshold: float = ENTROPY_THRESHOLD,
                         refine: bool = True, data: Sequence[Triple] | None = None) -> DisruptionResult:
    """The low-cost selection heuristic (Alg 9) with preferences/safety (Ch. 6).

    ``assessment``: an :class:`~tklscore.core.pia.violations.Assessment`. ``mapping``:
    the privacy mapping used to re-check generalised combinations (default:
    ``assessment.mapping`` when the assessment carries one). ``isa``: the hierarchy
    for θ, depth and entropy (default: the closure's ISA triples — ontology and data,
    so an instance such as a doctor generalises to its class). ``strategy``: ``"heuristic"`` (cover powerset, Alg 9)
    or ``"traversal"`` (Alg 24 cover, for more than 18 candidates it is used
    automatically). ``data``: DB0 in its original order (default: DBm then the
    redundant facts). ``progress(fraction)`` is called from 0.0 to 1.0; ``cancelled()``
    returning True stops with :class:`~tklscore.core.pia.disruption.DisruptionCancelled`
    (an InputError) and leaves the closure as it was.

    Candidates come from DBm (Alg 10/11); generalised combinations and the final choice
    are re-checked on DB0 ∪ O like Alg 4 (the redundant facts set aside by MinimizeDB
    are released too, so a cover that only disrupts a redundant fact's derivation is
    invalid and the next cover in Impact order is tried). The authorised data set is
    ``alter_data(DB0, S)``. Returns a :class:`DisruptionResult` whose ``evaluated`` is
    the number of covers (Table 5.6 "Inference Covers"), ``impact`` the chosen
    combination's Impact; ``solution.extra`` holds the combination vector, the reasoner
    checks, the cover count, the level (1 = θ(o), 3 = removal) per altered fact and the
    facts excluded by safety 3. No violation → ``solution None``, ``valid True``, DB0
    authorised. No valid cover (e.g. every participant has safety 3) → ``solution None``,
    ``valid False``, nothing authorised.
    """
    t0 = time.perf_counter()
    timings: dict[str, float] = {}

    def tick(name: str, since: float) -> float:
        now = time.perf_counter()
        timings[name] = round((now - since) * 1000.0, 3)
        return now

    def report(fraction: float) -> None:
        if cancelled is not None and cancelled():
            raise DisruptionCancelled("the efficient disruption was cancelled; nothing was altered")
        if progress is not None:
            progress(min(1.0, max(0.0, fraction)))

    if strategy not in ("heuristic", "traversal"):
        raise InputError(f"unknown efficient strategy '{strategy}'", hint="use 'heuristic' or 'traversal'")
    if isinstance(sample_size, bool) or not isinstance(sample_size, int) or sample_size < 1:
        raise InputError(f"sample size must be a positive whole number, not {sample_size!r}")
    prefs = _check_levels(preferences, "preference")
    safe_levels = _check_levels(safety, "safety")
    minimized = assessment.minimized
    closure: Closure = assessment.closure
    db0 = list(dict.fromkeys(data)) if data is not None else list(minimized.kept) + list(minimized.removed)
    known = set(db0)
    for what, levels in (("preference", prefs), ("safety value", safe_levels)):
        stray = [t for t in levels if t not in known]
        if stray:
            raise InputError(f"a {what} is given for {stray[0]}, which is not a fact of the patient data"
                             + (f" ({len(stray)} such facts)" if len(stray) > 1 else ""))
    report(0.0)
    if not assessment.violations:
        report(1.0)
        return DisruptionResult("efficient", None, True, 0.0, 0.0, 0, authorised=db0,
                                timings_ms={"total": round((time.perf_counter() - t0) * 1000, 3)})
    mapping = mapping if mapping is not None else getattr(assessment, "mapping", None)
    if mapping is None:
        raise InputError("the efficient disruption needs the privacy mapping to re-check solutions",
                         hint="pass mapping=<the PrivacyMapping used by assess>")
    ontology = frozenset(minimized.ontology)
    t = time.perf_counter()
    closure_isa = closure.isa_hierarchy()
    if isa is None:
        isa = closure_isa
    tick("isa", t)
    entropy = EntropyTable(isa)
    violations = [v.triple for v in assessment.violations]

    # 1. logic graph and candidates (Algs 10–14; safety 3 never a candidate, Ch. 6)
    t = time.perf_counter()
    excluded = {f for f, level in safe_levels.items() if level == 3}
    graph = build_logic_graph(closure, violations, ontology=ontology, excluded=excluded)
    t = tick("graph", t)
    report(0.2)

    # 2. metadata (Algs 19–22)
    dependent = violation_dependent(closure, violations)
    cands: list[Candidate] = []
    for f in graph.candidates:
        parent = isa.parent(f.o)
        parent = None if parent == isa.root else parent
        c = Candidate(f, entropy.entropy(f.o), entropy.depth(f.o), safe_inferences(closure, f, dependent),
                      prefs.get(f, 0), safe_levels.get(f, 0), parent)
        if parent is not None:
            c.parent_entropy = entropy.entropy(parent)
            c.parent_depth = entropy.depth(parent)
            c.parent_safe = safe_inferences(closure, f.with_object(parent), dependent)
        cands.append(c)
    t = tick("metadata", t)
    report(0.4)

    # 3. removal covers in Impact order (Algs 16–18, Def 5.4.1)
    q = len(cands)
    cover_count: int | None = None
    if strategy == "heuristic" and q <= MAX_ENUMERATED:
        ranked = rank_covers(graph.cover_mask(cancelled), cands, cancelled)
        cover_count = len(ranked)
        combos = _LazyCombinations(cands, ranked)
    else:
        strategy = "traversal"
        members, _ = traverse_for_cover(
            graph, lambda k: impact(REMOVAL_COST, len(cands[k].safe), cands[k].preference, cands[k].safety)
            - cands[k].gain)
        if not (members and graph.is_cover([cands[k].fact for k in members])):
            members = tuple(range(q))             # removing every candidate, if that covers
        combos = [combination(cands, members)] if members and graph.is_cover(
            [cands[k].fact for k in members]) else []
    t = tick("covers", t)
    report(0.6)
    if not combos:                           # e.g. every participant has safety 3
        report(1.0)
        timings["total"] = round((time.perf_counter() - t0) * 1000, 3)
        return DisruptionResult("efficient", None, False, 0.0, None, 0, authorised=[],
                                timings_ms=timings)

    # 4. Alg 9: baseline = cheapest removal cover; generalise the sample
    stack = ExitStack()
    try:
        t = time.perf_counter()
        # re-check on DB0 ∪ O as Alg 4 does (Alg 9 l. 21): the redundant facts MinimizeDB set aside
        # are asserted again for the duration of the search (cheap: they are already in the closure)
        stack.enter_context(closure.altered(additions=minimized.removed))
        checker = _Checker(closure, mapping, assessment.threshold, violations, closure_isa)
        t = tick("DB0", t)
        best = None
        # the baseline must be valid on DB0: a cover that relies on disrupting the derivation of
        # a redundant fact (released again in DB0) is not, so look further (bounded)
        for j in range(min(len(combos), MAX_BASELINE_CHECKS)):
            combo = combos[j]
            if checker.valid(_solution(cands, combo, isa)):
                best = combo
                break
            report(0.6)
        if best is None:
            report(1.0)
            timings["total"] = round((time.perf_counter() - t0) * 1000, 3)
            return DisruptionResult("efficient", None, False, 0.0, None, len(combos), authorised=[],
                                    timings_ms=timings)
        switched_any = False
        sample = combos[:min(sample_size, len(combos))]
        for i, combo in enumerate(sample):
            levels = generalisation_levels(cands, combo.members, entropy_threshold)
            trial = combination(cands, combo.members, levels)
            if (PARENT in levels and (trial.impact, trial.cost) < (best.impact, best.cost)
                    and checker.valid(_solution(cands, trial, isa))):
                best, switched_any = trial, True
            report(0.6 + 0.25 * (i + 1) / len(sample))

        # 5. Alg 23's generalisation loop on the chosen combination (refine)
        refined = False
        if refine:
            order = sorted((k for k, lv in zip(best.members, best.levels)
                            if lv == REMOVE and cands[k].parent is not None),
                           key=lambda k: (-cands[k].gain, k))[:sample_size]
            generalise = list(order)
            while generalise:
                chosen = set(generalise)
                levels = [PARENT if k in chosen else lv for k, lv in zip(best.members, best.levels)]
                trial = combination(cands, best.members, levels)
                if (trial.impact, trial.cost) < (best.impact, best.cost) and checker.valid(
                        _solution(cands, trial, isa)):
                    best, refined = trial, True
                    break
                generalise.pop()               # drop the lowest-gain fact
                report(0.9)
        t = tick("search", t)

        # 6. final check and the authorised data set (Alg 8 / Alg 1 post-processing)
        solution = _solution(cands, best, isa)
        valid = checker.valid(solution)
        solution.state = "valid" if valid else "invalid"
        authorised = alter_data(db0, solution)
        solution.extra.update({
            "impact": best.impact, "vector": best.vector, "strategy": strategy,
            "covers": cover_count, "candidates": list(graph.candidates), "reasoner_checks": checker.checks,
            "generalised": switched_any or refined, "refined": refined,
            "levels": dict(zip((cands[k].fact for k in best.members), best.levels)),
            "excluded": sorted(excluded, key=str),
        })
        tick("final", t)
    finally:
        stack.close()
    timings["total"] = round((time.perf_counter() - t0) * 1000, 3)
    report(1.0)
    return DisruptionResult("efficient", solution, valid, solution.cost, best.impact, len(combos),
                            authorised=authorised, timings_ms=timings)


def rank_covers(mask: int, candidates: Sequence[Candidate],
                cancelled: Callable[[], bool] | None = None) -> list[tuple[float, float, int, int]]:
    """Removal covers of ``mask`` (bit i = subset i) as ``(Impact, cost, size, i)``, sorted.

    The Impact of a removal cover (Def 6.3.4) needs only bit operations: each candidate's
    safe inferences become a bitset, so U is the popcount of an OR.
    """
    index: dict = {}
    safe_bits = []
    for c in candidates:
        bits = 0
        for t in c.safe:
            bits |= 1 << index.setdefault(t, len(index))
        safe_bits.append(bits)
    delta = [c.safety - c.preference for c in candidates]
    total = 1 << len(candidates)
    # per subset (dynamic programming on the lowest bit): safe-inference union, V − P, size
    union, pv, size = [0] * total, [0] * total, [0] * total
    for i in range(1, total):
        k = (i & -i).bit_length() - 1
        j = i & (i - 1)
        union[i] = union[j] | safe_bits[k]
        pv[i] = pv[j] + delta[k]
        size[i] = size[j] + 1
        if cancelled is not None and not i & 0xFFFF and cancelled():
            raise DisruptionCancelled("the efficient disruption was cancelled; nothing was altered")
    out = []
    bits = bin(mask)[:1:-1]                 # bit i of the mask is bits[i]
    for i, ch in enumerate(bits):
        if ch == "1":
            cost = size[i] * REMOVAL_COST
            out.append((cost + cost * union[i].bit_count() + pv[i], cost, size[i], i))
    out.sort()
    return out


class _LazyCombinations:
    """The ranked covers as :class:`Combination` objects, built only when looked at."""

    def __init__(self, candidates: Sequence[Candidate], ranked: list[tuple[float, float, int, int]]):
        self.candidates = candidates
        self.ranked = ranked

    def __len__(self) -> int:
        return len(self.ranked)

    def __bool__(self) -> bool:
        return bool(self.ranked)

    def __getitem__(self, item):
        if isinstance(item, slice):
            return [self[j] for j in range(*item.indices(len(self)))]
        i = self.ranked[item][3]
        members = tuple(k for k in range(len(self.candidates)) if i >> k & 1)
        return combination(self.candidates, members)

    def __iter__(self):
        for j in range(len(self)):
            yield self[j]


def _solution(cands: Sequence[Candidate], combo: Combination, isa: IsaHierarchy) -> Solution:
    alterations: list[Alteration] = []
    for k, level in zip(combo.members, combo.levels):
        alterations.append(make_alteration(cands[k].fact, level, isa))
    digits = [KEEP] * len(cands)
    for k, level in zip(combo.members, combo.levels):
        digits[k] = level
    return Solution(tuple(alterations), code="".join(map(str, digits)))


class _Checker:
    """Apply a solution to the maintained closure, look for violations, revert (Alg 9 l. 21–25)."""

    def __init__(self, closure: Closure, mapping, threshold, violations: Sequence[Triple],
                 isa: IsaHierarchy | None = None):
        self.closure = closure
        self.mapping = mapping
        self.threshold = threshold
        self.violations = list(violations)
        self.isa_predicates = frozenset(DEFAULT_ISA_PREDICATES)
        self.isa = isa if isa is not None else closure.isa_hierarchy()
        self.checks = 0

    def valid(self, solution: Solution) -> bool:
        self.checks += 1
        with self.closure.altered(*solution.as_update()) as change:
            return not self.after(change)

    def after(self, change: Change) -> list[Triple]:
        """Violations in the (altered) closure, from the change alone unless ISA changed."""
        closure, order = self.closure, self.mapping.order
        if any(t.p in self.isa_predicates for t in change.touched()):
            from tklscore.core.pia.violations import detect_violations
            return [v.triple for v in detect_violations(closure, self.mapping, self.threshold)]
        bad = [v for v in self.violations if closure.is_inferred(v)]
        for t in change.added | change.now_inferred:
            if closure.is_inferred(t) and order.exceeds(self.mapping.label(t, self.isa), self.threshold):
                bad.append(t)
        return bad
