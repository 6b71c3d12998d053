"""Suggested releases (privacy-models.md §5): over the lattice of generalisation levels of
the QIs that have a hierarchy, the releases that meet the officer's constraints (k ≥ K,
l ≥ L, t ≤ T, normalised tkl ≤ X, suppressed share ≤ S) and are not dominated on
(normalised tkl-Score against the source, utility loss = 1 − precision).

k-anonymity with suppression is monotone along the lattice (a generalisation of a
k-anonymous node is k-anonymous, so a specialisation of a failing node fails): nodes are
visited from the top down and a node whose direct generalisation failed is skipped
without evaluation (ARX's pruning). When no node meets the constraints, the evaluated
nodes closest to meeting them are returned instead.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from tklscore.core.errors import InputError
from tklscore.core.release.designer import ReleaseDesigner
from tklscore.core.release.transform import ReleaseDesign
from tklscore.core.scoring.distinguishing_factors import ordered_emd_by_class, variational_distance_by_class
from tklscore.core.scoring.weights import Weights
from tklscore.core.tables.codes import Codes, group_ids


class Cancelled(Exception):
    """The search was cancelled."""


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
    all_evaluated: list[Candidate] = field(default_factory=list, repr=False)

    def to_json_dict(self) -> dict:
        return {"lattice_size": self.lattice_size, "evaluated": self.evaluated, "met": self.met,
                "message": self.message, "front": [c.as_dict() for c in self.front]}


def lattice(designer: ReleaseDesigner, base: ReleaseDesign) -> tuple[list[str], list[int]]:
    """The QIs the search generalises (those with a hierarchy, not removed) and their heights."""
    columns = [c for c in designer.roles.qi if c in designer.hierarchies and c not in base.removed]
    return columns, [designer.height(c) for c in columns]


def suggest(designer: ReleaseDesigner, weights: Weights, constraints: Constraints,
            base: ReleaseDesign | None = None, x: float = 1.0, missing_weight_zero: bool = False,
            progress=None, cancelled=None, closest: int = 5) -> Suggestions:
    """The Pareto front of the lattice under ``constraints``; ``progress(fraction)`` and
    ``cancelled() -> bool`` are called between nodes (progress may raise to stop)."""
    if not designer.roles.qi:
        raise InputError("suggesting releases needs quasi-identifiers (with hierarchies) to generalise")
    base = base or ReleaseDesign()
    base = ReleaseDesign(base.name, base.levels, constraints.k, constraints.suppression_limit, base.removed,
                         base.microaggregate, base.noise, base.seed, base.selection)
    columns, heights = lattice(designer, base)
    if not columns:
        raise InputError("no quasi-identifier has a hierarchy; give one with --hierarchy COL=FILE")
    nodes = sorted(itertools.product(*[range(h + 1) for h in heights]), key=lambda n: (-sum(n), n))
    size = len(nodes)
    failed_k: set[tuple[int, ...]] = set()
    evaluated: list[Candidate] = []
    count = 0
    for index, node in enumerate(nodes):
        if cancelled is not None and cancelled():
            raise Cancelled("the search for suggested releases was cancelled")
        if progress is not None:
            progress(index / size)
        above = [node[:i] + (node[i] + 1,) + node[i + 1:] for i in range(len(node)) if node[i] < heights[i]]
        if any(a in failed_k for a in above):
            failed_k.add(node)
            continue
        design = base.with_levels(dict(zip(columns, node)))
        count += 1
        transformed = designer.transform(design)
        published_classes = transformed.published_class_ids
        sizes = np.bincount(published_classes) if len(published_classes) else np.zeros(0, dtype=np.int64)
        k = int(sizes[sizes > 0].min()) if len(sizes) else 0
        share = len(transformed.suppressed) / len(transformed.selected) if len(transformed.selected) else 0.0
        if k < constraints.k or share > constraints.suppression_limit + 1e-12:
            failed_k.add(node)
        if len(transformed.published) == 0:
            evaluated.append(Candidate(dict(zip(columns, node)), 0.0, 1.0, 0, 0, 0.0, share,
                                       _shortfall(constraints, k, None, None, None, share)))
            continue
        _, normalized = designer.table_scores(transformed, weights, x, missing_weight_zero)
        l, t = privacy_models(designer, design, transformed, published_classes)
        tkl = 0.0 if normalized.tkl is None else float(normalized.tkl)
        loss = 1.0 - designer.precision(transformed)
        evaluated.append(Candidate(dict(zip(columns, node)), tkl, loss, k, l, t, share,
                                   _shortfall(constraints, k, l, t, tkl, share)))
    if progress is not None:
        progress(1.0)
    meeting = [c for c in evaluated if c.shortfall == 0.0]
    if meeting:
        front = pareto_front(meeting)
        return Suggestions(size, count, front, True,
                           f"{len(meeting)} release(s) meet the constraints; {len(front)} are not dominated",
                           evaluated)
    ranked = sorted(evaluated, key=lambda c: (c.shortfall, _key(c.tkl_normalized), _key(c.utility_loss)))
    return Suggestions(size, count, ranked[:closest], False,
                       "no release meets the constraints; the closest ones are listed "
                       "(relax k, l, t, the largest tkl or the suppression budget)", evaluated)


def _key(value: float) -> float:
    return math.inf if math.isnan(value) else value


def _shortfall(c: Constraints, k, l, t, tkl, share) -> float:
    """How far a node is from meeting the constraints (0: it meets them); an unknown
    figure counts as a full miss."""
    miss = max(0.0, (c.k - k) / c.k) + max(0.0, share - c.suppression_limit)
    miss += 1.0 if l is None else max(0.0, (c.l - l) / c.l)
    miss += 1.0 if t is None else max(0.0, t - c.t)
    miss += 1.0 if tkl is None else (0.0 if math.isinf(c.max_tkl) else max(0.0, tkl - c.max_tkl))
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
        pairs, n_pairs = group_ids([(classes, n_classes), published], n)
        class_of_pair = np.empty(n_pairs, dtype=np.int64)
        class_of_pair[pairs] = classes
        l = min(l, int(np.bincount(class_of_pair, minlength=n_classes).min()))
        if name in designer.roles.continuous:
            per_class = ordered_emd_by_class(classes, n_classes, sizes, published)
        else:
            per_class = variational_distance_by_class(classes, n_classes, sizes, published)
        t = max(t, float(per_class.max()))
    return int(l), t


def _dense(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes renumbered 0..m-1 keeping their order (the values present in the rows)."""
    present = np.flatnonzero(np.bincount(codes))
    rank = np.zeros(int(codes.max()) + 1 if len(codes) else 0, dtype=np.int64)
    rank[present] = np.arange(len(present))
    return rank[codes], present


def pareto_front(candidates: list[Candidate]) -> list[Candidate]:
    """The candidates no other candidate dominates on (tkl_normalized, utility_loss), both
    minimised, ordered by tkl_normalized."""
    ordered = sorted(candidates, key=lambda c: (c.tkl_normalized, c.utility_loss, sorted(c.levels.items())))
    front: list[Candidate] = []
    best = math.inf
    for c in ordered:
        if c.utility_loss < best:
            front.append(c)
            best = c.utility_loss
        elif front and c.utility_loss == best and c.tkl_normalized == front[-1].tkl_normalized:
            front.append(c)
    return front
