"""Alterations, solutions and their costs (pia.md §2.4: Alg 7, Alg 8, Defs 3.4.1–3.4.3).

An :class:`Alteration` replaces the **object** of one asserted triple (the implementation
alters only the object, §2.4) by its immediate ISA parent θ(o) (cost 0.5), its
grandparent θ(θ(o)) (0.75), or removes it — "replace by the ontology root" (1.0).
In Table 3.4's form, cost = 1.0 for removing c minus the credit for what is added back:
c′ 0.5, c″ 0.25, root 0.0.

A :class:`Solution` is a set of alterations plus a state (``unknown``/``valid``/
``invalid``); its cost is the sum (Def 3.4.3). :func:`quaternary_digits` enumerates the
4^q − 1 digit vectors of Alg 7 (one base-4 digit per candidate, least-significant digit
first — the "reversed" order 10, 20, 30, 01, 11, … of Table 3.3, all-zero skipped);
:func:`quaternary_powerset` turns them into solutions over real candidate triples, and
:func:`alter_data` is AlterData (Alg 8) on a triple list. (For in-place evaluation of a
solution against a maintained closure use ``Closure.altered(*solution.as_update())``.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from rdflib.term import Node

from tklscore.core.pia.facts import IsaHierarchy, Triple

KEEP, PARENT, GRANDPARENT, REMOVE = 0, 1, 2, 3
"""Alg 7 digits: 0 keep, 1 object → θ(o), 2 object → θ(θ(o)), 3 object → root (removal)."""

ALTERATION_COST = {PARENT: 0.5, GRANDPARENT: 0.75, REMOVE: 1.0}
"""Cost_f (Def 3.4.2)."""

REMOVAL_COST = 1.0
CREDIT = {PARENT: 0.5, GRANDPARENT: 0.25, REMOVE: 0.0}
"""Table 3.4: credit for what is added back (c′ −0.5, c″ −0.25, root −0.0)."""

SYMBOL = {KEEP: "", PARENT: "′", GRANDPARENT: "″", REMOVE: "∅"}


def alteration_cost(digit: int) -> float:
    """Cost_f for an Alg 7 digit = removal (+1.0) minus the Table 3.4 credit."""
    if digit == KEEP:
        return 0.0
    return REMOVAL_COST - CREDIT[digit]


@dataclass(frozen=True)
class Alteration:
    """(original triple, new object, alteration cost); ``new_object is None`` = removal."""

    source: Triple
    new_object: Node | None
    cost: float
    level: int = REMOVE

    @property
    def replacement(self) -> Triple | None:
        return None if self.new_object is None else self.source.with_object(self.new_object)


@dataclass
class Solution:
    """(alteration set, (state, cost)) of §2.4; state ∈ {unknown, valid, invalid}."""

    alterations: tuple[Alteration, ...]
    state: str = "unknown"
    code: str = ""
    index: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def cost(self) -> float:
        return sum(a.cost for a in self.alterations)

    def as_update(self) -> tuple[list[Triple], list[Triple]]:
        """``(removals, additions)`` for ``Closure.altered`` / ``Closure.replace``."""
        removals = [a.source for a in self.alterations]
        additions = [a.replacement for a in self.alterations if a.replacement is not None]
        return removals, additions


def solution_count(q: int) -> int:
    """4^q − 1 (pia.md §8 item 2)."""
    return 4 ** q - 1


def quaternary_digits(q: int) -> Iterator[tuple[int, ...]]:
    """Digit vectors for counts 1 … 4^q − 1, least-significant digit (candidate 0) first."""
    for count in range(1, 4 ** q):
        yield tuple((count >> (2 * k)) & 3 for k in range(q))


def code(digits: Sequence[int]) -> str:
    """Table 3.3's "Count" column: the digits written candidate 0 first (``(1, 0)`` → ``"10"``)."""
    return "".join(str(d) for d in digits)


def describe(digits: Sequence[int], names: Sequence[str]) -> str:
    """Table 3.3's "Solution" column, e.g. ``(2, 1)`` with names a, b → ``"a″ b′"``."""
    parts = []
    for digit, name in zip(digits, names):
        if digit == REMOVE:
            parts.append("∅")
        elif digit:
            parts.append(name + SYMBOL[digit])
    return " ".join(parts)


def target(isa: IsaHierarchy, obj: Node, digit: int) -> Node | None:
    """The new object for a digit: θ(o), θ(θ(o)), or ``None`` (removal / the root)."""
    if digit == PARENT:
        new = isa.parent(obj)
    elif digit == GRANDPARENT:
        new = isa.grandparent(obj)
    else:
        return None
    return None if new == isa.root else new


def make_alteration(triple: Triple, digit: int, isa: IsaHierarchy) -> Alteration:
    return Alteration(triple, target(isa, triple.o, digit), alteration_cost(digit), digit)


def quaternary_powerset(candidates: Sequence[Triple], isa: IsaHierarchy) -> Iterator[Solution]:
    """Alg 7 QuaternaryPowerset over candidate ground facts, in Table 3.3 order."""
    for index, digits in enumerate(quaternary_digits(len(candidates))):
        alterations = tuple(make_alteration(c, d, isa) for c, d in zip(candidates, digits) if d)
        yield Solution(alterations, code=code(digits), index=index)


def alter_data(triples: Iterable[Triple], solution: Solution) -> list[Triple]:
    """AlterData (Alg 8): remove each altered triple, insert its replacement (if any)."""
    removals, additions = solution.as_update()
    drop = set(removals)
    result = [t for t in triples if t not in drop]
    present = set(result)
    result.extend(t for t in additions if t not in present)
    return result
