"""Sensitivity of a release's scores to one AHP priority (issue 9 §4, the domain expert's
question: which judgements does the verdict depend on?).

For one criterion of a criteria group of the tkl-Data Model, its local priority p sweeps
0 … 1 while the other criteria of the group keep their proportions (each scaled by
(1 − p) / (1 − p_current); equal shares when the criterion held everything). At each point
the release is scored as if that priority vector were assigned to the group, against the
same :class:`~tklscore.core.scoring.scores.Scorer`'s distinguishing factors.

A value's weight is its priority times the priorities on its path to the root, and that
path crosses at most one criterion of the group: so W(r) is an affine function of the
group's priority vector v (Σ v = 1), W(r; v) = Σ_j v_j · W_j(r), where W_j is W(r) with
criterion j alone (priority 1). The sweep derives the m weights W_j once; each point is
then a few vectorised operations: tkl and L are sums, linear in v
(Σ (t + W) / l = Σ t / l + Σ_j v_j Σ W_j / l), and M's maximum of min(1, W) / k is taken
over all points at once in blocks of records (only records that can hold it for some v
are visited). The Scorer is only read, so the sweep may run beside the scoring.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tklscore.core.errors import InputError
from tklscore.core.scoring.scores import m_score_table

SERIES = ("tkl", "m_score", "l_severity")


@dataclass(frozen=True)
class PrioritySweep:
    parent: str                 # the criteria group (its parent node)
    criterion: str              # the swept criterion
    priorities: np.ndarray      # the swept priority p, ascending from 0 to 1
    scores: dict[str, np.ndarray]   # tkl / m_score / l_severity normalised against the source, per p
    current: float              # the criterion's priority today
    current_scores: dict[str, float | None]


def rescaled_priorities(priorities, index: int, p: float) -> np.ndarray:
    """The group's priority vector with criterion ``index`` at ``p`` and the others keeping
    their proportions (sum 1)."""
    vector = np.asarray(priorities, dtype=np.float64)
    if not 0.0 <= p <= 1.0:
        raise InputError(f"a priority must lie in [0, 1], not {p:g}")
    others = vector.copy()
    others[index] = 0.0
    rest = others.sum()
    if rest > 0:
        result = others * ((1.0 - p) / rest)
    else:
        result = np.full(len(vector), (1.0 - p) / max(1, len(vector) - 1))
    result[index] = p
    return result


def priority_sweep(model, parent: str, criterion: str, scorer, release, x: float = 1.0, points: int = 21,
                   progress: Callable[[float], None] | None = None,
                   missing_weight_zero: bool = False) -> PrioritySweep:
    """tkl, M and L of ``release`` (normalised against the source) as ``criterion``'s
    priority in the group under ``parent`` sweeps 0 … 1 in ``points`` steps.
    ``progress(fraction)`` is called between steps and may raise to stop the sweep."""
    group = model.criteria_group(parent)
    if criterion not in group:
        raise InputError(f"'{model.nodes[criterion].label}' is not a criterion of the group under "
                         f"'{model.nodes[parent].label}'")
    derivation = model.derive()
    if any(c not in derivation.priorities for c in group):
        raise InputError("the group's priorities cannot be derived yet: " + "; ".join(derivation.problems))
    current_vector = np.array([derivation.priorities[c] for c in group], dtype=np.float64)
    index = group.index(criterion)
    grid = np.linspace(0.0, 1.0, points)
    # the group's priority vector at each point, and today's as the last column
    vectors = np.column_stack([np.clip(rescaled_priorities(current_vector, index, float(p)), 0.0, 1.0)
                               for p in grid] + [current_vector])
    steps = len(group) + 2
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done / steps)

    basis = np.empty((len(scorer.source), len(group)), order="F")  # W_j contiguous
    for j in range(len(group)):
        alone = model.copy()
        for i, iri in enumerate(group):
            alone.set_assigned_priority(iri, 1.0 if i == j else 0.0)
        basis[:, j] = scorer.weight_sums(alone.to_weights(), missing_weight_zero)[0]
        step()
    positions = np.asarray(release.positions)
    factors = scorer.factors_of(positions)
    check = (lambda: progress(done / steps)) if progress is not None else None
    published = _swept_scores(factors.k.astype(np.float64), factors.l.astype(np.float64), factors.t,
                              basis[positions], vectors, x, check)
    step()
    k, l, t = scorer._whole_factors()
    whole = _swept_scores(k, l, t, basis, vectors, x, check)
    step()
    n = len(positions)
    scores = {}
    for name in SERIES:
        if n == 0:
            scores[name] = np.zeros(vectors.shape[1])
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                scores[name] = np.where(whole[name] > 0, published[name] / whole[name], np.nan)
    return PrioritySweep(parent, criterion, grid, {name: scores[name][:-1] for name in SERIES},
                         float(current_vector[index]),
                         {name: None if np.isnan(scores[name][-1]) else float(scores[name][-1])
                          for name in SERIES})


_BLOCK = 1 << 16   # records per block of M's maximum


def _swept_scores(k: np.ndarray, l: np.ndarray, t: np.ndarray, basis: np.ndarray, vectors: np.ndarray,
                  x: float, check: Callable[[], None] | None = None) -> dict[str, np.ndarray]:
    """Table tkl-Score, M-Score and L-Severity of records with factors k, l, t and
    W(r) = basis @ v, for each column v of ``vectors`` (each sums to 1); ``check()`` runs
    between blocks (it may raise to stop)."""
    n = len(k)
    if n == 0:
        return {name: np.zeros(vectors.shape[1]) for name in SERIES}
    tkl = float(np.sum(t / l)) + (basis.T @ (1.0 / l)) @ vectors
    l_severity = (basis.T @ (1.0 / k)) @ vectors
    # M: max_r min(1, W(r)) / k(r). As Σ v = 1 and v ≥ 0, W(r) lies between the smallest and
    # the largest of the record's W_j: a record whose highest possible value stays below the
    # lowest any record is sure of never holds the maximum.
    inverse_k = 1.0 / k
    columns = [basis[:, j] for j in range(basis.shape[1])]
    highest = np.minimum(1.0, functools.reduce(np.maximum, columns)) * inverse_k
    surely = float(np.max(np.minimum(1.0, functools.reduce(np.minimum, columns)) * inverse_k))
    candidates = np.flatnonzero(highest >= surely)
    m_max = np.full(vectors.shape[1], -np.inf)
    for start in range(0, len(candidates), _BLOCK):
        rows = candidates[start:start + _BLOCK]
        values = basis[rows] @ vectors
        np.minimum(values, 1.0, out=values)
        values *= inverse_k[rows, None]
        np.maximum(m_max, values.max(axis=0), out=m_max)
        if check is not None:
            check()
    m_score = m_score_table(n, m_max, x)
    return {"tkl": tkl, "m_score": m_score, "l_severity": l_severity}
