"""Why a record scores what it scores (spec gui.md §1.5): its equivalence class, for each
sensitive attribute the class's distribution against the whole source table with the
distance behind t-DF, the groups behind l-DF, and the weights that add up to W(r).

Pure (no Qt). Everything is computed for ONE record from the Scorer's factorised codes,
in O(n · attributes) — cheap enough to run on every selection change; each class's
distance behind t-DF is read from the distinguishing factors, not computed again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from tklscore.core.scoring.scores import Scorer
from tklscore.core.scoring.weights import Weights

VARIATIONAL = "variational distance"
ORDERED_EMD = "ordered EMD"


@dataclass
class SensitiveExplanation:
    """One sensitive attribute of the record."""

    attribute: str
    continuous: bool
    value: object                  # the record's value
    weight: float | None           # the weight of that value (None: the weights give none)
    values: np.ndarray             # the attribute's distinct values in the source (sorted if continuous)
    class_counts: np.ndarray       # per value: records of the equivalence class with it
    table_counts: np.ndarray       # per value: records of the source with it
    distance: float                # variational distance / ordered EMD of class vs table
    measure: str
    l_group_size: int              # records sharing the QIs and every OTHER sensitive value
    l_distinct: int                # distinct values of this attribute in that group

    @property
    def class_distribution(self) -> np.ndarray:
        total = self.class_counts.sum()
        return self.class_counts / total if total else self.class_counts.astype(float)

    @property
    def table_distribution(self) -> np.ndarray:
        total = self.table_counts.sum()
        return self.table_counts / total if total else self.table_counts.astype(float)

    def rows(self, only_present: bool = True) -> list[tuple[object, int, float, int, float]]:
        """(value, class count, class share, table count, table share) of each value;
        only the values present in the class unless ``only_present`` is False."""
        p, q = self.class_distribution, self.table_distribution
        keep = np.flatnonzero(self.class_counts > 0) if only_present else np.arange(len(self.values))
        return [(self.values[i], int(self.class_counts[i]), float(p[i]), int(self.table_counts[i]), float(q[i]))
                for i in keep]


@dataclass
class RecordExplanation:
    position: int                          # source row position
    id: str
    quasi_identifiers: dict[str, object]   # the record's QI values
    class_positions: np.ndarray            # source positions of its equivalence class
    class_ids: list[str]
    k: int
    l: int
    t: float
    weight_sum: float                      # W(r) = Σ of the SA values' weights
    sensitive: list[SensitiveExplanation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def t_attribute(self) -> str | None:
        """The sensitive attribute whose distance is t-DF (the largest)."""
        if not self.sensitive:
            return None
        return max(self.sensitive, key=lambda s: s.distance).attribute

    @property
    def l_attribute(self) -> str | None:
        """The sensitive attribute whose group gives l-DF (the fewest distinct values)."""
        if not self.sensitive:
            return None
        return min(self.sensitive, key=lambda s: s.l_distinct).attribute


def explain_record(scorer: Scorer, weights: Weights | None, position: int,
                   published: np.ndarray | None = None) -> RecordExplanation:
    """Explain the source record at row ``position``.

    With quasi-identifiers the equivalence class is taken from ``scorer.factors``; without
    them the factors depend on the published table, so the class is ``published`` (source
    positions; all records when not given) and t-DF is 0 (Definitions 12, 15, 16).
    """
    n = len(scorer.source)
    position = int(position)
    if not 0 <= position < n:
        raise IndexError(f"record position {position} is outside the source table (0..{n - 1})")
    roles = scorer.roles
    frame = scorer.source.frame
    factors = scorer.factors
    notes: list[str] = []
    if factors is not None:
        members = np.flatnonzero(factors.equivalence_class == factors.equivalence_class[position])
        k, l, t = int(factors.k[position]), int(factors.l[position]), float(factors.t[position])
    else:
        members = np.arange(n) if published is None else np.asarray(published, dtype=np.int64)
        notes.append("there are no quasi-identifiers: the equivalence class is the whole published table "
                     "and t-DF is 0")
        k, l, t = len(members), 0, 0.0
    universe = np.arange(n) if factors is not None else members
    in_group = np.zeros(n, dtype=bool)
    in_group[universe] = True
    qi_match = in_group.copy()
    for codes in scorer.qi_codes:
        qi_match &= codes.codes == codes.codes[position]
    sa_match = {name: codes.codes == codes.codes[position] for name, codes in scorer.sa_codes.items()}

    sensitive = []
    weight_sum = 0.0
    for name, codes in scorer.sa_codes.items():
        continuous = name in roles.continuous
        m = codes.cardinality
        table_counts = np.bincount(codes.codes[universe], minlength=m)
        class_counts = np.bincount(codes.codes[members], minlength=m)
        distance = 0.0 if factors is None else float(factors.class_t[name][factors.equivalence_class[position]])
        group = qi_match.copy()
        for other, match in sa_match.items():
            if other != name:
                group &= match
        distinct = len(np.unique(codes.codes[group]))
        value = codes.uniques[codes.codes[position]]
        weight = None
        if weights is not None:
            found = float(weights.weights_of(name, np.asarray([value], dtype=object if not continuous else float),
                                             continuous)[0])
            if not math.isnan(found):
                weight = found
                weight_sum += found
            else:
                notes.append(f"{name} = {value!r} has no weight (counts as 0 only when missing weights "
                             f"are allowed)")
        sensitive.append(SensitiveExplanation(name, continuous, value, weight, codes.uniques, class_counts,
                                              table_counts, distance, ORDERED_EMD if continuous else VARIATIONAL,
                                              int(group.sum()), distinct))
    if factors is None:
        l = min((s.l_distinct for s in sensitive), default=0)
    qi_values = {column: frame[column].iat[position] for column in roles.qi}
    ids = scorer.ids_of(members)
    return RecordExplanation(position, str(scorer.ids_of(np.asarray([position]))[0]), qi_values, members,
                             [str(i) for i in ids], k, l, t, weight_sum, sensitive, notes)
