"""Metadata of the candidate facts for the efficient disruption (Daniels 2018, §5.3 and
Ch. 6; pia.md §2.5, §2.6):

- **entropy** (Calmet–Daemi, Algs 21/22, Table 5.2) and **depth** (root = 1, §8 item 8) of
  concepts: :func:`concept_entropy`, :class:`EntropyTable`;
- **information vectors** (Defs 5.3.1–5.3.3 / 6.3.1–6.3.3): :class:`ItemVector`,
  :class:`AlterationVector`, :class:`CombinationVector`;
- **Impact** ``= Cost + Cost·U − P + V`` (Defs 5.3.4 / 6.3.4, :func:`impact`) with
  ``U = |a2[0] ∪ a2[1]|`` (§8 item 15);
- **participation** (Algs 19/20, :func:`participation`) and the **safe inferences** of a
  fact (a2): the inferred, non-violating triples whose derivations use it, except those
  "dependent on a violation" (Ex. 5.3.1: some derivation of them uses a violation);
- the :class:`Candidate` facts and :class:`Combination` s of them that the search ranks.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tklscore.core.errors import InputError
from tklscore.core.pia.facts import IsaHierarchy, Triple
from tklscore.core.pia.reasoner import Closure
from tklscore.core.pia.solutions import CREDIT, PARENT, REMOVAL_COST, REMOVE

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
# candidate facts and their combinations
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
