"""Disruption: choosing the alterations that keep violations from being released.

``DisruptionResult`` is what both disruption methods return: the exhaustive search
(dissertation Alg 4/7/8, :func:`exhaustive_disruption`) and the efficient one (Ch. 5,
:mod:`tklscore.core.pia.efficient`).

:func:`exhaustive_disruption` is Alg 4 (ExhaustiveDisruption) over the candidate list of
Alg 5/6 (the assessment's participants, minus the facts whose clinician safety value is
3 — Ch. 6, pia.md §2.6): it enumerates the 4^p − 1 solutions of Alg 7 in the
dissertation's order (Table 3.3, least-significant digit = first candidate, so solution
index 4 of six candidates is ``110000``), costs 0.5 / 0.75 / 1.0 per alteration, and for
each one applies AlterData in place (``Closure.altered``: Delete/Rederive, then revert),
re-checks the violations **incrementally** from the update's :class:`Change` (a full
relabel only when the alteration touches an ISA triple, since labels flow through ISA),
and keeps the cheapest valid solution — the first one in enumeration order among equal
costs (Alg 4 replaces the best only on a strictly lower cost).

Alg 4 evaluates ``Reason(AlterData(DB0, S), O)``: the original data DB0, **including**
the redundant facts MinimizeDB set aside. They are asserted again in the evaluation
closure, so an alteration whose effect a released redundant fact would undo is invalid
(Ch. 1: removing (Bob, treatedBy, Leonard) does not help while (Bob, treatedBy,
Hepatologist) is released). The authorised data set is ``alter_data(DB0, best)``.

The privacy mapping λ is needed to re-check candidates; it is taken from the
``mapping`` keyword, else from ``assessment.mapping`` when the assessment carries it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from tklscore.core.errors import InputError
from tklscore.core.pia.facts import DEFAULT_ISA_PREDICATES, Triple
from tklscore.core.pia.reasoner import Change, Closure
from tklscore.core.pia.solutions import (
    GRANDPARENT,
    PARENT,
    REMOVE,
    Solution,
    alter_data,
    code,
    make_alteration,
    quaternary_digits,
    solution_count,
)
from tklscore.core.pia.violations import detect_violations


@dataclass
class DisruptionResult:
    method: str                       # "exhaustive" | "efficient"
    solution: Solution | None         # None when no valid solution exists (or none was needed)
    valid: bool                       # the solution leaves no violation
    cost: float                       # the solution's cost (0.5 / 0.75 / 1.0 per alteration)
    impact: float | None              # efficient method: Impact (Ch. 5/6); None for exhaustive
    evaluated: int                    # solutions (exhaustive) or covers (efficient) evaluated
    authorised: list[Triple] = field(default_factory=list)  # the data set to release
    timings_ms: dict[str, float] = field(default_factory=dict)


class DisruptionCancelled(InputError):
    """The caller's ``cancelled()`` returned True: the search stopped, nothing was chosen."""


MUST_BE_RELEASED = 3
"""Safety value (Table 6.2) of a fact that is never altered (never a candidate)."""


def original_data(assessment, data: Sequence[Triple] | None = None) -> list[Triple]:
    """DB0: ``data`` if given, else MinimizeDB's kept facts followed by the removed ones."""
    if data is not None:
        return list(dict.fromkeys(data))
    return [*assessment.minimized.kept, *assessment.minimized.removed]


def evaluation_closure(assessment) -> Closure:
    """The closure of DB0 ∪ O that Alg 4 re-checks candidates against.

    The assessment's own closure (over DBm) when MinimizeDB removed nothing; otherwise a
    copy with the removed (redundant) facts asserted again.
    """
    removed = assessment.minimized.removed
    if not removed:
        return assessment.closure
    closure = assessment.closure.copy()
    closure.add(removed)
    return closure


def check_levels(values: Mapping[Triple, int] | None, what: str) -> dict[Triple, int]:
    """``values`` as a dict after checking every value is an integer 0–3."""
    checked: dict[Triple, int] = {}
    for triple, value in (values or {}).items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
            raise InputError(f"{what} value {value!r} for {Triple(*triple)} is not one of 0, 1, 2, 3")
        checked[Triple(*triple)] = value
    return checked


def candidate_facts(assessment, safety: Mapping[Triple, int] | None = None) -> list[Triple]:
    """Alg 5's candidate list C without the facts whose safety is 3 (Ch. 6, Alg 11 line 6)."""
    safety = check_levels(safety, "safety")
    return [f for f in assessment.participants.facts if safety.get(f, 0) != MUST_BE_RELEASED]


class _Checker:
    """Does the closure (currently altered by ``change``) still hold a violation?"""

    def __init__(self, closure: Closure, mapping, threshold):
        self.closure = closure
        self.mapping = mapping
        self.threshold = threshold
        self.isa_predicates = frozenset(DEFAULT_ISA_PREDICATES)
        self.isa = closure.isa_hierarchy()
        self.base = [v.triple for v in detect_violations(closure, mapping, threshold, self.isa)]

    def violated(self, change: Change) -> bool:
        touched = change.touched()
        if any(t.p in self.isa_predicates for t in touched):
            # labels flow through ISA ancestors: relabel everything with the altered ISA
            return bool(detect_violations(self.closure, self.mapping, self.threshold,
                                          self.closure.isa_hierarchy()))
        gone = change.removed | change.now_asserted
        for v in self.base:
            if v not in gone:
                return True            # still inferred, same ISA, same label
        exceeds, label = self.mapping.order.exceeds, self.mapping.label
        for t in change.added | change.now_inferred:
            if self.closure.is_inferred(t) and exceeds(label(t, self.isa), self.threshold):
                return True
        return False


def exhaustive_disruption(assessment, *, max_solutions: int | None = None,
                          progress: Callable[[float], object] | None = None,
                          cancelled: Callable[[], bool] | None = None,
                          safety: Mapping[Triple, int] | None = None,
                          mapping=None, data: Sequence[Triple] | None = None) -> DisruptionResult:
    """Alg 4 ExhaustiveDisruption: the cheapest valid solution of the 4^p − 1 of Alg 7.

    * ``max_solutions``: refuse (InputError naming 4^p − 1 and the limit) when the search
      space is larger; ``None`` = no limit.
    * ``progress(fraction)``: called with 0.0, then about every 0.5 %, and 1.0 at the end.
    * ``cancelled()``: polled before each solution; True → :class:`DisruptionCancelled`.
    * ``safety``: ``{triple: 0..3}`` (Table 6.2); facts with safety 3 are never candidates.
    * ``mapping``: the privacy mapping λ (default: ``assessment.mapping``).
    * ``data``: DB0 in its original order (default: MinimizeDB's kept + removed facts).

    Returns a :class:`DisruptionResult` with ``method="exhaustive"``, ``impact=None``,
    ``evaluated`` = solutions evaluated, ``authorised`` = AlterData(DB0, best) (DB0 itself
    when there is no violation, and — with ``valid=False`` — when no solution is valid).
    """
    start = time.perf_counter()
    mapping = mapping if mapping is not None else getattr(assessment, "mapping", None)
    if mapping is None:
        raise InputError("the exhaustive disruption needs the privacy mapping (labels) to re-check "
                         "candidate solutions", hint="pass mapping=...")
    db0 = original_data(assessment, data)
    candidates = candidate_facts(assessment, safety)
    q = len(candidates)
    total = solution_count(q) if assessment.violations else 0
    if max_solutions is not None and total > max_solutions:
        raise InputError(
            f"the exhaustive search would evaluate {total:,} solutions (4^{q} − 1 for {q} candidate "
            f"facts), more than the limit of {max_solutions:,}",
            hint="raise the limit (--max-solutions) or use the efficient method")
    timings: dict[str, float] = {}
    if not assessment.violations:
        if progress:
            progress(1.0)
        timings["evaluate"] = 0.0
        timings["total"] = (time.perf_counter() - start) * 1000
        return DisruptionResult("exhaustive", None, True, 0.0, None, 0, db0, timings)

    closure = evaluation_closure(assessment)
    checker = _Checker(closure, mapping, assessment.threshold)
    isa = checker.isa
    options = [{d: make_alteration(c, d, isa) for d in (PARENT, GRANDPARENT, REMOVE)} for c in candidates]
    timings["prepare"] = (time.perf_counter() - start) * 1000

    evaluate_start = time.perf_counter()
    best: Solution | None = None
    best_cost = float("inf")
    step = max(1, total // 200)
    if progress:
        progress(0.0)
    evaluated = 0
    for index, digits in enumerate(quaternary_digits(q)):
        if cancelled is not None and cancelled():
            raise DisruptionCancelled(f"the exhaustive search was cancelled after {evaluated:,} of "
                                      f"{total:,} solutions; nothing was altered")
        alterations = tuple(options[k][d] for k, d in enumerate(digits) if d)
        solution = Solution(alterations, code=code(digits), index=index)
        with closure.altered(*solution.as_update()) as change:
            ok = not checker.violated(change)
        solution.state = "valid" if ok else "invalid"
        evaluated += 1
        if ok and solution.cost < best_cost:
            best, best_cost = solution, solution.cost
        if progress and evaluated % step == 0:
            progress(evaluated / total)
    if progress:
        progress(1.0)
    timings["evaluate"] = (time.perf_counter() - evaluate_start) * 1000
    if best is None:
        timings["total"] = (time.perf_counter() - start) * 1000
        return DisruptionResult("exhaustive", None, False, 0.0, None, evaluated, db0, timings)
    authorised = alter_data(db0, best)
    timings["total"] = (time.perf_counter() - start) * 1000
    return DisruptionResult("exhaustive", best, True, best.cost, None, evaluated, authorised, timings)
