"""The aggregates every measure of the risk lens is finished from, as ARX computes its
risk models from class-level counts: a provider hands them over on demand, once each, and
:mod:`.registry` finishes them with one formula per measure whatever the engine.

| aggregate           | what it is                                                            |
|---------------------|-----------------------------------------------------------------------|
| ``CLASS_SIZES``     | the size of each equivalence class (by class id)                      |
| ``PAIRS``           | per sensitive attribute, the distinct (class, value code) pairs and their counts, read in batches of whole classes (``pair_batches``) |
| ``VALUE_COUNTS``    | per sensitive attribute, the table's count of each value code and its rank in sorted value order |
| ``CLASS_T``         | per sensitive attribute, each class's t (ordered EMD or variational distance, as the t-DF) |
| ``POPULATION``      | each class's population size F (journalist and marketer risk)         |
| ``IDENTIFIERS``     | each class's number of distinct identifier tuples Y ((X,Y)-anonymity) |
| ``SUBSETS``         | per subset of the QIs, its groups and Σ |G|(|G|−1) (QI importance)    |
| ``SAMPLE_WEIGHTS``  | each record's class and each class's sum of sampling weights F_k      |
| ``RECORDS``         | the per-record arrays (rows in scope, class ids); None where an engine keeps the records |

:class:`MemoryAggregates` computes them from factorised columns on the shared group-by
engine (:mod:`tklscore.core.tables.codes`); :class:`tklscore.core.engines.measures.EngineAggregates`
from the engine's group-bys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tklscore.core.errors import InputError
from tklscore.core.risk.equivalence_classes import EquivalenceClasses, equivalence_classes, restrict
from tklscore.core.risk.qi_importance import subset_counts
from tklscore.core.scoring.distinguishing_factors import (class_value_counts, ordered_emd_by_class,
                                                          variational_distance_by_class)
from tklscore.core.tables.codes import Codes, group_ids

CLASS_SIZES = "class sizes"
PAIRS = "(class, value) pairs"
VALUE_COUNTS = "value counts"
CLASS_T = "t of each class"
POPULATION = "population sizes"
IDENTIFIERS = "identifier tuples per class"
SUBSETS = "QI-subset counts"
SAMPLE_WEIGHTS = "sampling weights per class"
RECORDS = "per-record arrays"
AGGREGATES = (CLASS_SIZES, PAIRS, VALUE_COUNTS, CLASS_T, POPULATION, IDENTIFIERS, SUBSETS, SAMPLE_WEIGHTS, RECORDS)


@dataclass(frozen=True)
class RecordArrays:
    """The per-record arrays of a table measured in memory: ``rows`` in scope (positions in
    the table), each one's class id, and — with a population — its population size F."""

    rows: np.ndarray
    ids: np.ndarray
    population: np.ndarray | None = None


class Aggregates:
    """What a provider hands over (each computed or fetched once, when first asked for).

    ``qi``, ``sa`` and ``continuous`` name the roles; ``rows`` counts the table's records
    and ``suppressed_rows`` those whose QIs all hold the marker; ``n`` the records in scope."""

    qi: list[str]
    sa: list[str]
    continuous: set[str]
    rows: int
    suppressed_rows: int
    has_population: bool = False
    has_identifiers: bool = False
    has_sample_weights: bool = False

    def __init__(self):
        self._cache: dict = {}
        self.fetched: list[str] = []   # the aggregates asked for, in order (what the plan ran)

    def get(self, aggregate: str, attribute: str | None = None):
        key = (aggregate, attribute)
        if key not in self._cache:
            self._cache[key] = self._compute(aggregate, attribute)
            self.fetched.append(aggregate if attribute is None else f"{aggregate} of {attribute}")
        return self._cache[key]

    def _compute(self, aggregate: str, attribute: str | None):  # pragma: no cover - interface
        raise NotImplementedError

    def pair_batches(self, attribute: str):
        """``PAIRS`` of ``attribute`` in batches, each holding every pair of its classes: a
        provider that fetches them streams them, so that no more than a batch is held; here
        one batch."""
        yield self.get(PAIRS, attribute)

    @property
    def n(self) -> int:
        return int(self.get(CLASS_SIZES).sum())


class MemoryAggregates(Aggregates):
    """The aggregates of a table in memory from its factorised columns: ``qi`` (name →
    codes, in role order), ``sa`` (name → codes; a continuous one's uniques sorted numbers),
    ``identifiers`` (Y's codes); ``population`` (the codes' rows → F, or None) gives each
    record's population size; ``sample_weights`` each record's sampling weight."""

    def __init__(self, qi: dict[str, Codes], sa: dict[str, Codes], continuous, n: int, *, marker: str,
                 exclude_suppressed: bool, identifiers: list[Codes] | None = None, population=None,
                 sample_weights: np.ndarray | None = None, name: str = "table"):
        super().__init__()
        self.qi, self.sa, self.continuous = list(qi), list(sa), set(continuous)
        self.classes: EquivalenceClasses = equivalence_classes(list(qi.values()), n, marker=marker,
                                                               exclude_suppressed=exclude_suppressed)
        if self.classes.n == 0:
            raise InputError("every record is suppressed (all quasi-identifiers hold the marker "
                             f"{marker!r}); nothing is left to measure", file=name,
                             hint="measure without excluding suppressed records")
        self.rows, self.suppressed_rows = n, self.classes.suppressed_rows
        self.in_scope = None if self.classes.n == n else self.classes.rows
        self._qi = {c: restrict(v, self.in_scope) for c, v in qi.items()}
        self._sa = {c: restrict(v, self.in_scope) for c, v in sa.items()}
        self._identifiers = [restrict(v, self.in_scope) for v in identifiers or ()]
        self._population = population
        self._weights = sample_weights
        self.has_population = population is not None
        self.has_identifiers = bool(identifiers)
        self.has_sample_weights = sample_weights is not None

    @property
    def n(self) -> int:
        return self.classes.n

    def _compute(self, aggregate: str, attribute: str | None):
        classes = self.classes
        if aggregate == CLASS_SIZES:
            return classes.sizes
        if aggregate == PAIRS:
            return class_value_counts(classes.ids, classes.count, self._sa[attribute])
        if aggregate == VALUE_COUNTS:
            values = self._sa[attribute]
            return np.bincount(values.codes, minlength=values.cardinality), _value_ranks(values)
        if aggregate == CLASS_T:
            values = self._sa[attribute]
            if attribute in self.continuous:
                return ordered_emd_by_class(classes.ids, classes.count, classes.sizes, values)
            return variational_distance_by_class(classes.ids, classes.count, classes.sizes, values,
                                                 pairs=self.get(PAIRS, attribute))
        if aggregate == IDENTIFIERS:
            y, n_y = group_ids(self._identifiers, classes.n)
            pairs, n_pairs = group_ids([(classes.ids, classes.count), (y, n_y)], classes.n)
            class_of_pair = np.empty(n_pairs, dtype=np.int64)
            class_of_pair[pairs] = classes.ids
            return np.bincount(class_of_pair, minlength=classes.count)
        if aggregate == POPULATION:
            F = self.get(RECORDS).population
            F_class = np.zeros(classes.count, dtype=np.int64)
            F_class[classes.ids] = F
            return F_class
        if aggregate == SUBSETS:
            return subset_counts(self._qi, classes.n)
        if aggregate == SAMPLE_WEIGHTS:
            weights = self._weights if self.in_scope is None else self._weights[self.in_scope]
            return classes.ids, np.bincount(classes.ids, weights=weights, minlength=classes.count)
        if aggregate == RECORDS:
            F = None
            if self._population is not None:
                F = np.asarray(self._population(self.in_scope), dtype=np.int64)
            return RecordArrays(classes.rows, classes.ids, F)
        raise ValueError(f"unknown aggregate {aggregate!r}")


def _value_ranks(values: Codes) -> np.ndarray:
    """Each value code's rank in sorted value order (text; numbers for a continuous SA)."""
    try:
        order = np.argsort(values.uniques, kind="stable")
    except TypeError:  # mixed types: order by text
        order = np.argsort(values.uniques.astype(str), kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank
