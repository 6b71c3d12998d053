"""M-Score's own sensitive-value weights (Harel et al.; spec data-model.md §5, thesis
Section 3.3.1): a three-level AHP tree.

- level 1, the goal, priority 1;
- level 2, the sensitive attributes, whose priorities come from one AHP matrix;
- level 3, each attribute's (discretised) values, one AHP matrix per attribute.

``weight(value) = priority(value) × priority(attribute) × 1``. Any level may instead be
given priorities directly. A group of a single node has priority 1. Thesis example
(Figure 3.1): priority(Statin) 0.2 × priority(Medication) 0.5 × 1 = 0.1 — see
:func:`thesis_example_model`.

The result, :meth:`MScoreModel.weights`, is the ``(attribute, value, weight)`` triples that
:class:`tklscore.core.scoring.weights.Weights` takes; for a continuous attribute the values are
intervals such as ``[0,30)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from tklscore.core.model.ahp import AHPResult, ahp, reciprocal_matrix
from tklscore.core.errors import InputError
from tklscore.core.scoring.weights import Weights

GOAL = "Goal"
_SUM_TOL = 1e-6


class MScoreModel:
    """The three-level tree of one table's sensitive attributes and their values.

    ``attributes`` maps each sensitive attribute to its values (in the order the
    judgement matrices use), e.g. ``{"Medication": ["ARV", "Statin", ...], "Age":
    ["[0,30)", "[30,inf)"]}``.
    """

    def __init__(self, attributes: Mapping[str, Sequence[str]] | Iterable[tuple[str, Sequence[str]]],
                 *, method: str = "eigenvector", ri: str = "thesis", name: str = "M-Score model"):
        items = list(attributes.items() if isinstance(attributes, Mapping) else attributes)
        if not items:
            raise InputError("an M-Score model needs at least one sensitive attribute", file=name)
        self.name = name
        self.method = method
        self.ri = ri
        self._values: dict[str, list[str]] = {}
        for attribute, values in items:
            if not isinstance(attribute, str) or not attribute:
                raise InputError(f"attribute name {attribute!r} must be a non-empty string", file=name)
            if attribute in self._values:
                raise InputError(f"attribute '{attribute}' is listed twice", file=name)
            values = [str(v) for v in values]
            if not values:
                raise InputError(f"attribute '{attribute}' has no values", file=name)
            repeated = sorted({v for v in values if values.count(v) > 1})
            if repeated:
                raise InputError(f"attribute '{attribute}' lists value(s) {', '.join(map(repr, repeated))} twice",
                                 file=name)
            self._values[attribute] = values
        self._priorities: dict[str | None, np.ndarray] = {}   # None: the attribute level
        self.results: dict[str | None, AHPResult] = {}        # AHP results (CR etc.), same keys
        for key, members in [(None, self.attributes)] + [(a, v) for a, v in self._values.items()]:
            if len(members) == 1:
                self._priorities[key] = np.ones(1)

    # ------------------------------------------------------------------ structure
    @property
    def attributes(self) -> list[str]:
        return list(self._values)

    def values(self, attribute: str) -> list[str]:
        return list(self._values[self._attribute(attribute)])

    def _attribute(self, attribute: str) -> str:
        if attribute not in self._values:
            raise InputError(f"unknown attribute '{attribute}'", file=self.name,
                             hint=f"the model's attributes are {', '.join(map(repr, self._values))}")
        return attribute

    def _members(self, key: str | None) -> list[str]:
        return self.attributes if key is None else self._values[key]

    def _label(self, key: str | None) -> str:
        return "the attributes" if key is None else f"the values of '{key}'"

    # ------------------------------------------------------------------ judgements
    def set_attribute_judgements(self, matrix) -> AHPResult:
        """Priorities of the attributes from an AHP matrix (rows/columns in the order of
        :attr:`attributes`) or from named judgements ``{(a, b): a_ab}``."""
        return self._judge(None, matrix)

    def set_value_judgements(self, attribute: str, matrix) -> AHPResult:
        """Priorities of one attribute's values from an AHP matrix (order of
        :meth:`values`) or from named judgements ``{(v, w): a_vw}``."""
        return self._judge(self._attribute(attribute), matrix)

    def _judge(self, key: str | None, matrix) -> AHPResult:
        members = self._members(key)
        if isinstance(matrix, Mapping):
            index = {m: k for k, m in enumerate(members)}
            unknown = [pair for pair in matrix if any(p not in index for p in pair)]
            if unknown:
                raise InputError(f"judgement {unknown[0]!r} names something that is not one of {self._label(key)} "
                                 f"({', '.join(map(repr, members))})", file=self.name)
            matrix = reciprocal_matrix(len(members), {(index[p], index[q]): v for (p, q), v in matrix.items()})
        result = ahp(matrix, method=self.method, ri=self.ri, criteria=members,
                     name=f"{self.name}, judgements of {self._label(key)}")
        self._priorities[key] = result.priorities
        self.results[key] = result
        return result

    def set_priorities(self, priorities: Mapping[str, float] | Sequence[float], attribute: str | None = None,
                       *, normalize: bool = False) -> None:
        """Set priorities directly: of the attributes (``attribute=None``) or of one
        attribute's values; a mapping name → priority (every member named) or a sequence in
        the model's order. They must be ≥ 0 and, like AHP priorities, sum to 1 —
        or pass ``normalize=True`` to scale them to sum 1."""
        key = None if attribute is None else self._attribute(attribute)
        members = self._members(key)
        where = f"{self.name}, priorities of {self._label(key)}"
        if isinstance(priorities, Mapping):
            extra = [k for k in priorities if k not in members]
            absent = [m for m in members if m not in priorities]
            if extra or absent:
                raise InputError(("unknown: " + ", ".join(map(repr, extra)) + "; " if extra else "")
                                 + ("missing: " + ", ".join(map(repr, absent)) if absent else ""), file=where,
                                 hint=f"give one priority for each of {', '.join(map(repr, members))}")
            values = [priorities[m] for m in members]
        else:
            values = list(priorities)
            if len(values) != len(members):
                raise InputError(f"{len(values)} priorities for {len(members)} members "
                                 f"({', '.join(map(repr, members))})", file=where)
        for member, value in zip(members, values):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) \
                    or not math.isfinite(value) or value < 0:
                raise InputError(f"priority of '{member}' is {value!r}; it must be a number ≥ 0", file=where)
        vector = np.array(values, dtype=np.float64)
        total = vector.sum()
        if normalize:
            if total <= 0:
                raise InputError("the priorities are all 0; nothing to normalise", file=where)
            vector = vector / total
        elif not math.isclose(total, 1.0, rel_tol=0, abs_tol=_SUM_TOL):
            raise InputError(f"the priorities sum to {total:g}, not 1 (the priorities of one group sum to 1)",
                             file=where, hint="correct them, or pass normalize=True to scale them")
        self._priorities[key] = vector
        self.results.pop(key, None)

    # ------------------------------------------------------------------ results
    def attribute_priorities(self) -> dict[str, float]:
        return dict(zip(self.attributes, map(float, self._require(None))))

    def value_priorities(self, attribute: str) -> dict[str, float]:
        key = self._attribute(attribute)
        return dict(zip(self._values[key], map(float, self._require(key))))

    def _require(self, key: str | None) -> np.ndarray:
        if key not in self._priorities:
            raise InputError(f"{self._label(key)} have no priorities yet", file=self.name,
                             hint="give AHP judgements or priorities for them")
        return self._priorities[key]

    def missing(self) -> list[str | None]:
        """The groups still without priorities (None: the attribute level)."""
        return [k for k in [None, *self._values] if k not in self._priorities]

    def weights(self) -> list[tuple[str, str, float]]:
        """``(attribute, value, weight)`` with weight = priority(value) × priority(attribute) × 1."""
        absent = self.missing()
        if absent:
            raise InputError(f"no priorities yet for {', '.join(self._label(k) for k in absent)}", file=self.name,
                             hint="give AHP judgements or priorities for every group before deriving weights")
        top = self._priorities[None]
        return [(attribute, value, float(top[a] * p))
                for a, attribute in enumerate(self.attributes)
                for value, p in zip(self._values[attribute], self._priorities[attribute])]

    def to_weights(self) -> Weights:
        return Weights(self.weights(), name=self.name)

    def inconsistent(self, threshold: float = 0.10) -> dict[str | None, AHPResult]:
        """The groups whose AHP judgements have CR above ``threshold``."""
        return {k: r for k, r in self.results.items() if not r.acceptable(threshold)}


def thesis_example_model() -> MScoreModel:
    """The three-level tree of thesis Figure 3.1 (Medication and Age sensitive): the two
    attributes judged equally important (0.5 each), the five medications equally
    sensitive (0.2 each) and the two age bins equally sensitive (0.5 each), so
    weight(Statin) = 0.2 × 0.5 × 1 = 0.1 (thesis Section 3.3.1). The equal judgements are
    our reading: the thesis gives only the Statin path's numbers."""
    model = MScoreModel({"Medication": ["ARV", "Tamiflu", "Statin", "Paracetamol", "Antibiotics"],
                         "Age": ["[0,30)", "[30,inf)"]}, name="thesis Figure 3.1")
    model.set_attribute_judgements([[1, 1], [1, 1]])
    model.set_value_judgements("Medication", np.ones((5, 5)))
    model.set_value_judgements("Age", {("[0,30)", "[30,inf)"): 1})
    return model
