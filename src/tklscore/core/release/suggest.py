"""Suggested releases (privacy-models.md §5): over the lattice of generalisation levels of
the QIs that have a hierarchy, the releases that meet the officer's constraints (k ≥ K,
l ≥ L, t ≤ T, normalised tkl ≤ X, suppressed share ≤ S) and are not dominated on
(normalised tkl-Score against the source, utility loss = 1 − precision).

k-anonymity with suppression is monotone along the lattice (a generalisation of a
k-anonymous node is k-anonymous, so a specialisation of a failing node fails): nodes are
visited from the top down and a node whose direct generalisation failed is skipped
without evaluation (ARX's pruning). When no node meets the constraints, the evaluated
nodes closest to meeting them are returned instead. A cancelled search stops at the next
node and returns the front of the nodes it evaluated so far (``Suggestions.cancelled``).
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from tklscore.core.errors import Cancelled, InputError, check_limit
from tklscore.core.release.designer import ReleaseDesigner
from tklscore.core.release.transform import ReleaseDesign
from tklscore.core.scoring.distinguishing_factors import distinct_and_t_by_class
from tklscore.core.scoring.scores import ScoreSet, normalise_by_source
from tklscore.core.scoring.sums import exact_parts, exact_sum, rounded_sum
from tklscore.core.scoring.weights import Weights
from tklscore.core.tables.codes import Codes

# why a search evaluates only part of the lattice, in the officer's words
SKIPPED = "the rest need not be: a release generalised less than one that misses k misses it too"


__all__ = ["Cancelled", "Candidate", "Constraints", "Suggestions", "lattice", "pareto_front", "privacy_models",
           "suggest"]


@dataclass(frozen=True)
class Constraints:
    k: int = 1
    l: int = 1
    t: float = 1.0
    max_tkl: float = math.inf
    suppression_limit: float = 0.0

    def __post_init__(self):
        if self.k < 1 or self.l < 1:
            raise InputError(f"k = {self.k} and l = {self.l} must be at least 1")
        if not 0.0 <= self.t <= 1.0:
            raise InputError(f"t = {self.t:g} is outside [0, 1]")
        if not 0.0 <= self.suppression_limit <= 1.0:
            raise InputError(f"suppression limit {self.suppression_limit!r} is outside [0, 1] (a share of the rows)")
        if math.isnan(self.max_tkl) or self.max_tkl < 0:
            raise InputError(f"the largest normalised tkl {self.max_tkl!r} must be ≥ 0")


@dataclass(frozen=True)
class Candidate:
    levels: dict[str, int]
    tkl_normalized: float
    utility_loss: float
    k: int
    l: int
    t: float
    suppressed_share: float
    shortfall: float = 0.0  # 0 when every constraint is met

    def misses(self, c: Constraints) -> list[str]:
        """The constraints this release does not meet, in words (empty: it meets them all)."""
        out = []
        if self.k < c.k:
            out.append(f"k = {self.k} < {c.k}")
        if self.suppressed_share > c.suppression_limit + 1e-12:
            out.append(f"suppresses {self.suppressed_share:.1%} > {c.suppression_limit:.1%}")
        if self.l < c.l:
            out.append(f"l = {self.l} < {c.l}")
        if math.isnan(self.t) or self.t > c.t:
            out.append(f"t = {self.t:.4f} > {c.t:g}" if not math.isnan(self.t) else "t not computed")
        if not math.isinf(c.max_tkl) and (math.isnan(self.tkl_normalized) or self.tkl_normalized > c.max_tkl):
            out.append(f"tkl / source = {self.tkl_normalized:.4f} > {c.max_tkl:g}")
        return out

    def as_dict(self) -> dict:
        return {"levels": dict(self.levels), "tkl_normalized": self.tkl_normalized,
                "utility_loss": self.utility_loss, "k": self.k, "l": self.l, "t": self.t,
                "suppressed_share": self.suppressed_share}


@dataclass
class Suggestions:
    lattice_size: int
    evaluated: int
    front: list[Candidate]
    met: bool                  # some release meets the constraints (else ``front`` holds the closest)
    message: str = ""
    constraints: Constraints | None = None
    all_evaluated: list[Candidate] = field(default_factory=list, repr=False)
    cancelled: bool = False    # stopped before the whole lattice was searched: the front of what was
    visited: int | None = None  # cancelled: the nodes reached (evaluated or skipped) before it stopped

    def to_json_dict(self) -> dict:
        return {"lattice_size": self.lattice_size, "evaluated": self.evaluated, "met": self.met,
                "message": self.message, "front": [c.as_dict() for c in self.front]}

    def searched(self) -> str:
        """How much of the lattice the search evaluated, in words."""
        if self.cancelled:
            return (f"Cancelled after {self.visited:,} of the lattice's {self.lattice_size:,} releases "
                    f"({self.evaluated:,} evaluated; {SKIPPED}): the releases shown come from those only.")
        return f"Lattice of {self.lattice_size:,} releases, {self.evaluated:,} evaluated ({SKIPPED})."


MAX_LATTICE_NODES = 1 << 20
"""The most nodes (combinations of levels) a search for suggested releases visits."""


def lattice(designer: ReleaseDesigner, base: ReleaseDesign) -> tuple[list[str], list[int]]:
    """The QIs the search generalises (those with a hierarchy, not removed) and their heights."""
    columns = [c for c in designer.roles.qi if c in designer.hierarchies and c not in base.removed]
    return columns, [designer.height(c) for c in columns]


def suggest(designer: ReleaseDesigner, weights: Weights, constraints: Constraints,
            base: ReleaseDesign | None = None, x: float = 1.0, missing_weight_zero: bool = False,
            progress=None, cancelled=None, closest: int = 5) -> Suggestions:
    """The Pareto front of the lattice under ``constraints`` (``designer``: in memory, or out of
    core :class:`tklscore.core.engines.lattice.AggregateLattice`, which makes its own nodes);
    ``progress(fraction)`` and
    ``cancelled() -> bool`` are called between nodes. Once ``cancelled()`` is true (or
    ``progress`` raises :class:`~tklscore.core.errors.Cancelled`) the search stops and
    returns the front of the nodes evaluated so far, marked ``cancelled``."""
    if not designer.roles.qi:
        raise InputError("suggesting releases needs quasi-identifiers (with hierarchies) to generalise")
    base = base or ReleaseDesign()
    base = ReleaseDesign(base.name, base.levels, constraints.k, constraints.suppression_limit, base.removed,
                         base.microaggregate, base.noise, base.seed, base.selection)
    columns, heights = lattice(designer, base)
    if not columns:
        raise InputError("no quasi-identifier has a hierarchy; give one with --hierarchy COL=FILE")
    check_limit(math.prod(h + 1 for h in heights), MAX_LATTICE_NODES,
                what=f"the lattice of generalisation levels of {len(columns)} columns", verb="search",
                unit="nodes", hint="give fewer columns a hierarchy, or fewer levels, or fix the levels of some "
                                   "columns and search the others")
    nodes = sorted(itertools.product(*[range(h + 1) for h in heights]), key=lambda n: (-sum(n), n))
    size = len(nodes)
    # l ≥ 1 and t ≤ 1 hold for every published table: l and t are then computed only for
    # the releases shown, not to filter
    filter_models = constraints.l > 1 or constraints.t < 1.0
    search = designer if isinstance(designer, LatticeSearch) else _InMemorySearch(designer)
    failed_k: set[tuple[int, ...]] = set()
    evaluated: list[_Node] = []
    pending: deque = deque()
    stopped = False
    visited = 0
    try:
        search.prepare_search(weights, x, missing_weight_zero)
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="tklscore-suggest") as workers:
            try:
                for index, node in enumerate(nodes):
                    if cancelled is not None and cancelled():
                        stopped = True
                        break
                    if progress is not None:
                        try:
                            progress(index / size)
                        except Cancelled:
                            stopped = True
                            break
                    visited = index + 1
                    above = [node[:i] + (node[i] + 1,) + node[i + 1:] for i in range(len(node)) if node[i] < heights[i]]
                    if any(a in failed_k for a in above):
                        failed_k.add(node)
                        continue
                    levels = dict(zip(columns, node))
                    entry = search.lattice_node(levels, base.with_levels(levels))
                    evaluated.append(entry)
                    if not entry.meets_k(constraints):
                        failed_k.add(node)
                        entry.done()
                        continue
                    if filter_models and not (entry.complete_models() and entry.meets_models(constraints)):
                        entry.done()
                        continue
                    # the scores (the factors over the whole source) run on two workers while the
                    # next nodes' k is checked here; the group-bys release the interpreter lock
                    pending.append(workers.submit(entry.score_and_done, weights, x, missing_weight_zero))
                    while len(pending) > 2:
                        pending.popleft().result()
                while pending:
                    pending.popleft().result()
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
    finally:
        search.search_done()   # what the search held freed, even after an error
    if progress is not None and not stopped:
        progress(1.0)
    reached = visited if stopped else None   # nodes evaluated or skipped before the cancel
    meeting = {}
    for entry in evaluated:
        if entry.scored and (not filter_models or entry.meets_models(constraints)):
            candidate = entry.candidate(constraints, optimistic=not filter_models)
            if candidate.shortfall == 0.0:
                meeting[tuple(candidate.levels.items())] = (candidate, entry)
    if meeting:
        chosen = [meeting[tuple(c.levels.items())][1] for c in pareto_front([c for c, _ in meeting.values()])]
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="tklscore-suggest") as workers:
            for _ in workers.map(_Node.models_and_done, chosen):   # the front's l and t, two at once
                pass
        front = [entry.candidate(constraints) for entry in chosen]
        return Suggestions(size, len(evaluated), front, True,
                           ("of the releases evaluated before the search was cancelled, " if stopped else "")
                           + f"{_releases(len(meeting))} the constraints; {_best(len(front))} (no other is both "
                             f"less misuseable and more useful)",
                           all_evaluated=[e.candidate(constraints) for e in evaluated], constraints=constraints,
                           cancelled=stopped, visited=reached)
    # nothing meets the constraints: complete the nodes nearest to them and list the closest
    nearest = sorted(evaluated, key=lambda e: e.candidate(constraints, optimistic=True).shortfall)[:3 * closest]
    for entry in nearest:
        entry.complete_models()
        entry.complete_scores(weights, x, missing_weight_zero)
        entry.done()
    ranked = sorted((e.candidate(constraints) for e in nearest),
                    key=lambda c: (c.shortfall, _key(c.tkl_normalized), _key(c.utility_loss)))
    message = ("the search was cancelled before a release meeting the constraints was found; the closest ones "
               "evaluated so far are listed" if stopped else
               "no release meets the constraints; the closest ones are listed "
               "(relax k, l, t, the largest tkl or the suppression budget)")
    return Suggestions(size, len(evaluated), ranked[:closest], False, message,
                       all_evaluated=[e.candidate(constraints) for e in evaluated], constraints=constraints,
                       cancelled=stopped, visited=reached)


def _releases(n: int) -> str:
    return "1 release meets" if n == 1 else f"{n:,} releases meet"


def _best(n: int) -> str:
    return "1 is the best trade-off" if n == 1 else f"{n:,} are the best trade-offs"


@runtime_checkable
class LatticeSearch(Protocol):
    """What :func:`suggest` asks of the designer it searches with: the whole source's scores
    (the normalisation) once before the nodes, each node evaluated, and what the search held
    freed once every node is scored, even after an error. The out-of-core designer's
    :class:`~tklscore.core.engines.lattice.AggregateLattice` is one; the in-memory
    :class:`ReleaseDesigner` is searched through :class:`_InMemorySearch`."""

    def prepare_search(self, weights: Weights, x: float, missing_weight_zero: bool) -> None: ...

    def lattice_node(self, levels: dict[str, int], design: ReleaseDesign) -> "_Node": ...

    def search_done(self) -> None: ...


class _InMemorySearch:
    """:class:`LatticeSearch` over the in-memory designer: the whole source's scores computed
    once, before the workers share them; its nodes :class:`_Node`; nothing held after."""

    def __init__(self, designer: ReleaseDesigner):
        self.designer = designer

    def prepare_search(self, weights: Weights, x: float, missing_weight_zero: bool) -> None:
        self.designer.scorer.whole_source_scores(weights, x, missing_weight_zero)

    def lattice_node(self, levels: dict[str, int], design: ReleaseDesign) -> "_Node":
        return _Node(levels, design, self.designer)

    def search_done(self) -> None:
        pass


class _Node:
    """One evaluated node of the lattice, its figures computed as far as the search needs
    (its transformed release is kept only while it is being evaluated)."""

    def __init__(self, levels: dict[str, int], design: ReleaseDesign, designer: ReleaseDesigner):
        self.levels, self.design, self.designer = levels, design, designer
        self.transformed = designer.transform(design)
        self.k = _smallest_published_class(self.transformed)
        selected = len(self.transformed.selected)
        self.published = self.transformed.published_count   # counts from the classes: no row gathered
        self.share = self.transformed.suppressed_count / selected if selected else 0.0
        self.loss = 1.0 - designer.precision(self.transformed) if self.published else 1.0
        self.l: int | None = None
        self.t: float | None = None
        self.tkl: float | None = None

    @property
    def scored(self) -> bool:
        return self.tkl is not None

    def _release(self):
        if self.transformed is None:
            self.transformed = self.designer.transform(self.design)
        return self.transformed

    def done(self) -> None:
        self.transformed = None

    def meets_k(self, c: Constraints) -> bool:
        return self.k >= c.k and self.share <= c.suppression_limit + 1e-12

    def complete_models(self) -> bool:
        """l and t of the published table; False when nothing is published."""
        if self.l is None and self.published:
            release = self._release()
            self.l, self.t = privacy_models(self.designer, self.design, release, release.published_class_ids)
        return self.l is not None

    def meets_models(self, c: Constraints) -> bool:
        return self.l is not None and self.l >= c.l and self.t <= c.t

    def complete_scores(self, weights, x, missing_weight_zero) -> None:
        """The normalised tkl-Score (the search's figure; the designer's ``table_scores`` without
        the other scores and per-record tables: the same records summed in the same order)."""
        if self.tkl is None and self.published:
            designer, release = self.designer, self._release()
            factors = designer.factors(release.design, classes=designer._source_classes(release))
            if factors is None:
                _, normalized = designer.table_scores(release, weights, x, missing_weight_zero)
            else:
                weight_sum, _ = designer.record_weights(release.design, weights, missing_weight_zero)
                tkl = factors.t_plus(weight_sum)
                tkl /= factors.l
                total, published = _published_sum(release, tkl, designer.levels.whole(release.design.selection))
                whole = designer.scorer.whole_source_scores(weights, x, missing_weight_zero)
                normalized = normalise_by_source(ScoreSet(total, 0.0, 0.0, 0.0, 0.0), whole, published)
            self.tkl = 0.0 if normalized.tkl is None else float(normalized.tkl)

    def score_and_done(self, weights, x, missing_weight_zero) -> None:
        self.complete_scores(weights, x, missing_weight_zero)
        self.done()

    def models_and_done(self) -> None:
        self.complete_models()
        self.done()

    def candidate(self, c: Constraints, optimistic: bool = False) -> Candidate:
        """The node as a candidate (nothing published: tkl and t 0, loss 1); an unknown figure
        is NaN and a full miss of its constraint (no miss when ``optimistic``)."""
        empty = not self.published
        tkl = 0.0 if empty else (math.nan if self.tkl is None else self.tkl)
        t = 0.0 if empty else (math.nan if self.t is None else self.t)
        return Candidate(dict(self.levels), tkl, self.loss, self.k, self.l or 0, t, self.share,
                         _shortfall(c, self.k, None if empty else self.l, None if empty else self.t,
                                    None if empty else self.tkl, self.share, optimistic))


def _published_sum(release, scores: np.ndarray, whole: bool) -> tuple[float, int]:
    """The exact sum of the published rows' ``scores`` (one per source row) and their count. When
    every source row is selected in order (``whole``) the published rows are all but the
    suppressed classes' few: every score's exact parts and the suppressed ones' negated, rounded
    once — the same double as the sum over the published rows, without gathering them."""
    if whole and len(scores) == len(release.selected):
        parts = exact_parts(scores)
        if release.dropped is None:
            return rounded_sum(parts), len(scores)
        if not parts or math.isfinite(parts[0]):   # else a NaN or ±inf (a single part): summed as numpy does
            parts += exact_parts(np.negative(scores[np.flatnonzero(release.suppressed_mask)]))
            return rounded_sum(parts), release.published_count
    rows = release.published
    return exact_sum(scores[rows] if len(rows) != len(scores) or not whole else scores), len(rows)


def _smallest_published_class(transformed) -> int:
    """k of the published table (0 when nothing is published): the smallest class of the
    selected rows that suppression kept (it drops whole classes)."""
    sizes = transformed.class_sizes
    if transformed.dropped is not None:
        sizes = sizes[~transformed.dropped]
    kept = sizes[sizes > 0]
    return int(kept.min()) if len(kept) else 0


def _key(value: float) -> float:
    return math.inf if math.isnan(value) else value


def _shortfall(c: Constraints, k, l, t, tkl, share, optimistic: bool = False) -> float:
    """How far a node is from meeting the constraints (0: it meets them); an unknown
    figure counts as a full miss (as no miss when ``optimistic``)."""
    unknown = 0.0 if optimistic else 1.0
    miss = max(0.0, (c.k - k) / c.k) + max(0.0, share - c.suppression_limit)
    miss += unknown if l is None else max(0.0, (c.l - l) / c.l)
    miss += unknown if t is None else max(0.0, t - c.t)
    if not math.isinf(c.max_tkl):
        miss += unknown if tkl is None else max(0.0, tkl - c.max_tkl)
    return float(miss)


def privacy_models(designer: ReleaseDesigner, design: ReleaseDesign, transformed, classes: np.ndarray) -> tuple[int, float]:
    """Distinct l-diversity (min over classes and SAs) and t-closeness (max) of the
    published table, on the shared group-by engine (the constraints of the search)."""
    rows = transformed.published
    n = len(rows)
    if n == 0:
        return 0, 0.0
    n_classes = int(classes.max()) + 1
    sizes = np.bincount(classes, minlength=n_classes)
    kept = [s for s in designer.roles.sa if s not in design.removed]
    sa = designer._sa_codes(design, kept)
    l, t = np.iinfo(np.int64).max, 0.0
    for name, codes in sa.items():
        published = Codes(*_dense(codes.codes[rows]))
        distinct, per_class = distinct_and_t_by_class(classes, n_classes, sizes, published,
                                                      name in designer.roles.continuous)
        l = min(l, int(distinct.min()))
        t = max(t, float(per_class.max()))
    return int(l), t


def _dense(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes renumbered 0..m-1 keeping their order (the values present in the rows)."""
    present = np.flatnonzero(np.bincount(codes))
    if len(present) == (int(present[-1]) + 1 if len(present) else 0):   # every code present: already dense
        return codes, present
    rank = np.zeros(int(codes.max()) + 1 if len(codes) else 0, dtype=np.int64)
    rank[present] = np.arange(len(present))
    return rank[codes], present


TIE = 1e-12   # relative: two figures this close are the same figure summed in another order


def tie_keys(values) -> dict[float, float]:
    """Each value mapped to the smallest value of its run of values within TIE of the run's
    first: figures equal in exact arithmetic but summed in another order (in memory, in an
    engine) compare equal, so a front does not depend on the order of a sum."""
    keys: dict[float, float] = {}
    start = None
    for v in sorted(set(values)):
        if start is None or not math.isclose(v, start, rel_tol=TIE, abs_tol=TIE * 1e-3):
            start = v
        keys[v] = start
    return keys


def pareto_front(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates no other candidate dominates on (tkl_normalized, utility_loss), both
    minimised (figures within TIE of each other are ties), ordered by tkl_normalized."""
    tkl = tie_keys(c.tkl_normalized for c in candidates)
    loss = tie_keys(c.utility_loss for c in candidates)
    ordered = sorted(candidates, key=lambda c: (tkl[c.tkl_normalized], loss[c.utility_loss],
                                                c.tkl_normalized, sorted(c.levels.items())))
    front: list[Candidate] = []
    best = math.inf
    for c in ordered:
        if loss[c.utility_loss] < best:
            front.append(c)
            best = loss[c.utility_loss]
        elif front and loss[c.utility_loss] == best and tkl[c.tkl_normalized] == tkl[front[-1].tkl_normalized]:
            front.append(c)
    return front
