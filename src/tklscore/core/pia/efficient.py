"""Efficient disruption: the search (Daniels 2018, Ch. 5 and 6; pia.md §2.5, §2.6, §4.6–§4.8).

Instead of the 4^q − 1 quaternary solutions of the exhaustive search, the efficient
method reasons about the *shape* of the violations' inference paths
(:mod:`~tklscore.core.pia.logic_graph`) and the metadata of the facts on them
(:mod:`~tklscore.core.pia.metadata`). :func:`efficient_disruption` is the low-cost
selection heuristic (Alg 9) with preferences and safety (Ch. 6), in numbered steps:

1. **logic graph and candidates** (Algs 10–14): safety-3 facts are never candidates;
2. **metadata** of every candidate (Algs 19–22): entropy, depth, safe inferences, θ(o);
3. **removal covers** in Impact order (Algs 16–18, Def 5.4.1): every covering subset of
   the candidates (not only the ⊂-minimal ones: Table 5.6 counts 7/49/637, §4.8); more
   than 18 candidates, or ``strategy="traversal"``: Alg 24's depth-first low-cost cover;
4. **baseline and sample** (Alg 9): the cheapest removal cover valid on DB0; for the 5
   cheapest, switch a removal to the one-level generalisation θ(o) when
   ``H(θ(o)) − H(o) > (H(root) − H(o)) / 2``, keep a switched combination if it is
   cheaper and the reasoner finds no violation;
5. **refine** (Alg 23's generalisation loop on the chosen combination): generalise the
   facts with the highest entropy gain, remove the rest, re-check with the reasoner,
   drop the lowest-gain fact on failure (at most 5 checks);
6. **final check** and the authorised data set (Alg 8 / Alg 1 post-processing).

Everything here is pure Python over :mod:`~tklscore.core.pia.reasoner` closures; bad
input raises :class:`~tklscore.core.errors.InputError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack

from tklscore.core.errors import InputError
from tklscore.core.pia.disruption import DisruptionCancelled, DisruptionResult
from tklscore.core.pia.facts import DEFAULT_ISA_PREDICATES, IsaHierarchy, Triple
from tklscore.core.pia.logic_graph import MAX_ENUMERATED, LogicGraph, build_logic_graph, traverse_for_cover
from tklscore.core.pia.metadata import (
    Candidate,
    Combination,
    EntropyTable,
    combination,
    impact,
    safe_inferences,
    violation_dependent,
)
from tklscore.core.pia.reasoner import Change, Closure
from tklscore.core.pia.solutions import KEEP, PARENT, REMOVAL_COST, REMOVE, Alteration, Solution, alter_data, make_alteration

SAMPLE_SIZE = 5
"""Alg 9 / Alg 23: the number of cheapest covers (z) examined for generalisation."""

ENTROPY_THRESHOLD = 0.5
"""Alg 9: switch to θ(o) when it keeps more than half of the removal's entropy gain."""

MAX_BASELINE_CHECKS = 200
"""Reasoner checks spent looking for a removal cover that is valid on DB0 (see Alg 9 step 4)."""


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

    def finished(solution, valid: bool, cost: float, best_impact, evaluated: int, authorised) -> DisruptionResult:
        timings["total"] = round((time.perf_counter() - t0) * 1000, 3)
        report(1.0)
        return DisruptionResult("efficient", solution, valid, cost, best_impact, evaluated, authorised=authorised,
                                timings_ms=timings)

    if strategy not in ("heuristic", "traversal"):
        raise InputError(f"unknown efficient strategy '{strategy}'", hint="use 'heuristic' or 'traversal'")
    if isinstance(sample_size, bool) or not isinstance(sample_size, int) or sample_size < 1:
        raise InputError(f"sample size must be a positive whole number, not {sample_size!r}")
    prefs = _check_levels(preferences, "preference")
    safe_levels = _check_levels(safety, "safety")
    minimized = assessment.minimized
    closure: Closure = assessment.closure
    db0 = list(dict.fromkeys(data)) if data is not None else list(minimized.kept) + list(minimized.removed)
    _check_facts_known(db0, prefs, safe_levels)
    report(0.0)
    if not assessment.violations:
        return finished(None, True, 0.0, 0.0, 0, db0)
    mapping = mapping if mapping is not None else getattr(assessment, "mapping", None)
    if mapping is None:
        raise InputError("the efficient disruption needs the privacy mapping to re-check solutions",
                         hint="pass mapping=<the PrivacyMapping used by assess>")
    t = time.perf_counter()
    closure_isa = closure.isa_hierarchy()
    if isa is None:
        isa = closure_isa
    tick("isa", t)
    violations = [v.triple for v in assessment.violations]

    # 1. logic graph and candidates (Algs 10–14; safety 3 never a candidate, Ch. 6)
    t = time.perf_counter()
    excluded = {f for f, level in safe_levels.items() if level == 3}
    graph = build_logic_graph(closure, violations, ontology=frozenset(minimized.ontology), excluded=excluded)
    t = tick("graph", t)
    report(0.2)

    # 2. metadata (Algs 19–22)
    cands = candidate_metadata(graph, closure, violations, isa, prefs, safe_levels)
    t = tick("metadata", t)
    report(0.4)

    # 3. removal covers in Impact order (Algs 16–18, Def 5.4.1)
    combos, cover_count, strategy = removal_covers(graph, cands, strategy, cancelled)
    t = tick("covers", t)
    report(0.6)
    if not combos:                           # e.g. every participant has safety 3
        return finished(None, False, 0.0, None, 0, [])

    with ExitStack() as stack:
        t = time.perf_counter()
        # re-check on DB0 ∪ O as Alg 4 does (Alg 9 l. 21): the redundant facts MinimizeDB set aside
        # are asserted again for the duration of the search (cheap: they are already in the closure)
        stack.enter_context(closure.altered(additions=minimized.removed))
        checker = _Checker(closure, mapping, assessment.threshold, violations, closure_isa)
        t = tick("DB0", t)

        # 4. Alg 9: baseline = the cheapest removal cover valid on DB0; generalise the sample
        best = baseline_cover(combos, cands, checker, isa, report)
        if best is None:
            return finished(None, False, 0.0, None, len(combos), [])
        best, switched_any = generalise_sample(combos, best, cands, checker, isa, sample_size, entropy_threshold,
                                               report)

        # 5. Alg 23's generalisation loop on the chosen combination
        refined = False
        if refine:
            best, refined = refine_combination(best, cands, checker, isa, sample_size, report)
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
    return finished(solution, valid, solution.cost, best.impact, len(combos), authorised)


def _check_facts_known(db0: Sequence[Triple], prefs: Mapping[Triple, int], safe_levels: Mapping[Triple, int]) -> None:
    known = set(db0)
    for what, levels in (("preference", prefs), ("safety value", safe_levels)):
        stray = [t for t in levels if t not in known]
        if stray:
            raise InputError(f"a {what} is given for {stray[0]}, which is not a fact of the patient data"
                             + (f" ({len(stray)} such facts)" if len(stray) > 1 else ""))


def candidate_metadata(graph: LogicGraph, closure: Closure, violations: Sequence[Triple], isa: IsaHierarchy,
                       preferences: Mapping[Triple, int], safety: Mapping[Triple, int]) -> list[Candidate]:
    """Step 2: entropy, depth and safe inferences of each candidate and of its θ(o)."""
    entropy = EntropyTable(isa)
    dependent = violation_dependent(closure, violations)
    cands: list[Candidate] = []
    for f in graph.candidates:
        parent = isa.parent(f.o)
        parent = None if parent == isa.root else parent
        c = Candidate(f, entropy.entropy(f.o), entropy.depth(f.o), safe_inferences(closure, f, dependent),
                      preferences.get(f, 0), safety.get(f, 0), parent)
        if parent is not None:
            c.parent_entropy = entropy.entropy(parent)
            c.parent_depth = entropy.depth(parent)
            c.parent_safe = safe_inferences(closure, f.with_object(parent), dependent)
        cands.append(c)
    return cands


def removal_covers(graph: LogicGraph, cands: Sequence[Candidate], strategy: str,
                   cancelled: Callable[[], bool] | None = None):
    """Step 3: the removal covers in Impact order (lazily), their count (None when not
    enumerated) and the strategy used — the cover powerset, or Alg 24's one cover."""
    q = len(cands)
    if strategy == "heuristic" and q <= MAX_ENUMERATED:
        ranked = rank_covers(graph.cover_mask(cancelled), cands, cancelled)
        return _LazyCombinations(cands, ranked), len(ranked), strategy
    members, _ = traverse_for_cover(
        graph, lambda k: impact(REMOVAL_COST, len(cands[k].safe), cands[k].preference, cands[k].safety)
        - cands[k].gain)
    if not (members and graph.is_cover([cands[k].fact for k in members])):
        members = tuple(range(q))             # removing every candidate, if that covers
    combos = [combination(cands, members)] if members and graph.is_cover(
        [cands[k].fact for k in members]) else []
    return combos, None, "traversal"


def baseline_cover(combos, cands: Sequence[Candidate], checker: "_Checker", isa: IsaHierarchy,
                   report: Callable[[float], None]) -> Combination | None:
    """Step 4a: the cheapest removal cover valid on DB0 (a cover that relies on disrupting
    the derivation of a redundant fact, released again in DB0, is not), looking at most
    :data:`MAX_BASELINE_CHECKS` covers far."""
    for j in range(min(len(combos), MAX_BASELINE_CHECKS)):
        combo = combos[j]
        if checker.valid(_solution(cands, combo, isa)):
            return combo
        report(0.6)
    return None


def generalise_sample(combos, best: Combination, cands: Sequence[Candidate], checker: "_Checker",
                      isa: IsaHierarchy, sample_size: int, entropy_threshold: float,
                      report: Callable[[float], None]) -> tuple[Combination, bool]:
    """Step 4b (Alg 9 lines 10–25): each of the cheapest covers with its removals switched
    to θ(o) where that keeps enough entropy; a switched one that is cheaper and valid wins."""
    switched_any = False
    sample = combos[:min(sample_size, len(combos))]
    for i, combo in enumerate(sample):
        levels = generalisation_levels(cands, combo.members, entropy_threshold)
        trial = combination(cands, combo.members, levels)
        if (PARENT in levels and (trial.impact, trial.cost) < (best.impact, best.cost)
                and checker.valid(_solution(cands, trial, isa))):
            best, switched_any = trial, True
        report(0.6 + 0.25 * (i + 1) / len(sample))
    return best, switched_any


def refine_combination(best: Combination, cands: Sequence[Candidate], checker: "_Checker", isa: IsaHierarchy,
                       sample_size: int, report: Callable[[float], None]) -> tuple[Combination, bool]:
    """Step 5 (Alg 23): generalise the removed facts with the highest entropy gain, re-check,
    drop the lowest-gain one on failure; the first cheaper valid combination wins."""
    order = sorted((k for k, lv in zip(best.members, best.levels)
                    if lv == REMOVE and cands[k].parent is not None),
                   key=lambda k: (-cands[k].gain, k))[:sample_size]
    generalise = list(order)
    while generalise:
        chosen = set(generalise)
        levels = [PARENT if k in chosen else lv for k, lv in zip(best.members, best.levels)]
        trial = combination(cands, best.members, levels)
        if (trial.impact, trial.cost) < (best.impact, best.cost) and checker.valid(_solution(cands, trial, isa)):
            return trial, True
        generalise.pop()               # drop the lowest-gain fact
        report(0.9)
    return best, False


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
