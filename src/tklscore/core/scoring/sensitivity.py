"""Sensitivity of a release's scores to one AHP priority (issue 9 §4, the domain expert's
question: which judgements does the verdict depend on?).

For one criterion of a criteria group of the tkl-Data Model, its local priority p sweeps
0 … 1 while the other criteria of the group keep their proportions (each scaled by
(1 − p) / (1 − p_current); equal shares when the criterion held everything). At each point
the model's weights are re-derived with that priority vector (assigned to the group) and
the release is re-scored with the same :class:`~tklscore.core.scoring.scores.Scorer`,
whose distinguishing factors are cached: each point costs one weights derivation and one
W(r) pass, never a group-by.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tklscore.core.errors import InputError

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
                   progress: Callable[[float], None] | None = None) -> PrioritySweep:
    """tkl, M and L of ``release`` (normalised against the source) as ``criterion``'s
    priority in the group under ``parent`` sweeps 0 … 1 in ``points`` steps."""
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
    scores = {name: np.full(points, np.nan) for name in SERIES}
    for k, p in enumerate(grid):
        vector = rescaled_priorities(current_vector, index, float(p))
        swept = model.copy()
        for iri, value in zip(group, vector):
            swept.set_assigned_priority(iri, float(min(1.0, max(0.0, value))))
        report = scorer.score(release, swept.to_weights(), x)
        for name in SERIES:
            value = getattr(report.normalized_source, name)
            scores[name][k] = np.nan if value is None else value
        if progress is not None:
            progress((k + 1) / points)
    today = scorer.score(release, model.to_weights(), x).normalized_source
    return PrioritySweep(parent, criterion, grid, scores, float(current_vector[index]),
                         {name: getattr(today, name) for name in SERIES})
