"""The registry of the risk lens's measures, and the one orchestration of them over any
engine's aggregates (:mod:`.aggregates`).

Each :class:`Measure` names the aggregates it needs — as ARX's privacy criteria declare
their requirements — and its formula over them. :func:`measure` computes the measures a
request asks for in registry order; a provider computes (in memory) or fetches (from an
engine's plan) only the aggregates those measures need, once each. A measure's value is
``Measures.value(key)``; ``tests/test_engine_measures.py`` compares every registered
measure across the engines, so a new measure is one entry here plus its formula (in the
module of its family), and is tested on every engine by being registered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from tklscore.core.errors import InputError
from tklscore.core.risk.aggregates import (CLASS_SIZES, CLASS_T, IDENTIFIERS, PAIRS, POPULATION, RECORDS,
                                           SAMPLE_WEIGHTS, SUBSETS, VALUE_COUNTS, Aggregates)
from tklscore.core.risk.population_uniqueness import population_uniques
from tklscore.core.risk.privacy_models import PrivacyModels, class_size_statistics, pair_figures, recursive_c
from tklscore.core.risk.qi_importance import QiImportance
from tklscore.core.risk.reidentification import (DEFAULT_RISK_THRESHOLD, AttackerRisk, average_rir,
                                                 individual_risk_of_classes, journalist_risk_by_class,
                                                 prosecutor_risk, sample_uniques)


@dataclass(frozen=True)
class MeasureRequest:
    """What is asked besides the privacy models: the risk threshold, population uniques
    (``sampling_fraction``), QI importance; journalist/marketer risk, (X,Y)-anonymity and
    sdcMicro's individual risk follow from what the provider was given (a population,
    identifier columns, sampling weights)."""

    risk_threshold: float = DEFAULT_RISK_THRESHOLD
    sampling_fraction: float | None = None
    qi_importance: bool = False

    @classmethod
    def checked(cls, risk_threshold: float = DEFAULT_RISK_THRESHOLD, sampling_fraction: float | None = None,
                qi_importance: bool = False) -> "MeasureRequest":
        """A request whose numbers are in range (every engine), else an error naming the number."""
        if sampling_fraction is not None:
            f = float(sampling_fraction)
            if not (math.isfinite(f) and 0.0 < f <= 1.0):
                raise InputError(f"sampling fraction {sampling_fraction!r} is outside (0, 1]",
                                 column="sampling fraction",
                                 hint="the share of the population the table holds, e.g. 0.1")
        r = float(risk_threshold)
        if not (math.isfinite(r) and 0.0 <= r <= 1.0):
            raise InputError(f"risk threshold {risk_threshold!r} is outside [0, 1]", column="risk threshold")
        return cls(risk_threshold, sampling_fraction, qi_importance)


class Inputs:
    """What a formula reads: the provider's aggregates (fetched on first use), the request
    and the values of the measures computed before it."""

    def __init__(self, aggregates: Aggregates, request: MeasureRequest, values: dict):
        self.aggregates, self.request, self.values = aggregates, request, values
        self._once: dict = {}

    def __call__(self, aggregate: str, attribute: str | None = None):
        return self.aggregates.get(aggregate, attribute)

    def once(self, name: str, attribute: str | None, formula: Callable[[], Any]):
        """A value several measures read (e.g. both β-likenesses), computed once."""
        key = ("once", name, attribute)
        if key not in self._once:
            self._once[key] = formula()
        return self._once[key]

    @property
    def sizes(self) -> np.ndarray:
        return self(CLASS_SIZES)

    @property
    def n(self) -> int:
        return int(self.sizes.sum())

    @property
    def sa(self) -> list[str]:
        return self.aggregates.sa


@dataclass(frozen=True)
class Measure:
    """One registered measure: ``key`` (its name in ``Measures.value`` and the JSON), the
    aggregates it ``needs``, its ``formula`` and whether a request asks for it (``asked``).
    ``per_attribute``: the formula is applied to each sensitive attribute (``formula(inputs,
    sa)``) and ``combine`` makes the table's value of them (None without a sensitive
    attribute); ``after``: measures whose values it reads."""

    key: str
    needs: frozenset[str]
    formula: Callable[..., Any]
    asked: Callable[[Aggregates, MeasureRequest], bool] = lambda aggregates, request: True
    per_attribute: bool = False
    combine: Callable[[list], Any] | None = None
    after: tuple[str, ...] = ()

    def compute(self, inputs: Inputs):
        if not self.per_attribute:
            return self.formula(inputs)
        if not inputs.sa:
            return None
        return self.combine([self.formula(inputs, sa) for sa in inputs.sa])


def _per_sa(key: str, needs, formula, combine, after=()) -> Measure:
    return Measure(key, frozenset(needs), formula, per_attribute=True, combine=combine, after=after)


def _recursive(inputs: Inputs, sa: str, which: int):
    l_table = inputs.values["l_distinct"]
    if l_table <= 1:
        return None
    return inputs.once("recursive", sa, lambda: recursive_c(inputs.aggregates.pair_batches(sa), inputs.sizes,
                                                            l_table))[which]


def _pairs(inputs: Inputs, sa: str):
    """α, l, the entropies, β and δ of ``sa``: one pass over its (class, value) pairs."""
    def figures():
        table_counts, rank = inputs(VALUE_COUNTS, sa)
        return pair_figures(inputs.aggregates.pair_batches(sa), inputs.sizes, table_counts, rank, inputs.n)

    return inputs.once("pairs", sa, figures)


def _max_or_none(values: list):
    return None if any(v is None for v in values) else max(values)


def _journalist(inputs: Inputs) -> tuple[AttackerRisk, float]:
    return inputs.once("journalist", None, lambda: journalist_risk_by_class(inputs.sizes, inputs(POPULATION),
                                                                            inputs.request.risk_threshold))


def _individual(inputs: Inputs):
    ids, Fk = inputs(SAMPLE_WEIGHTS)
    return individual_risk_of_classes(ids, inputs.sizes.astype(np.float64), Fk)


def _records(inputs: Inputs) -> dict | None:
    """The per-record arrays (None where an engine keeps the records)."""
    arrays = inputs(RECORDS)
    if arrays is None:
        return None
    sizes = inputs.sizes[arrays.ids]
    return {"record_rows": arrays.rows, "equivalence_class": arrays.ids, "class_size": sizes,
            "prosecutor_records": 1.0 / sizes,
            "journalist_records": None if arrays.population is None else 1.0 / arrays.population}


MEASURES: list[Measure] = [
    Measure("class_sizes", frozenset({CLASS_SIZES}), lambda i: class_size_statistics(i.sizes)),
    Measure("k", frozenset({CLASS_SIZES}), lambda i: int(i.sizes.min())),
    _per_sa("alpha", {PAIRS, VALUE_COUNTS}, lambda i, sa: _pairs(i, sa).alpha, max),
    _per_sa("l_distinct", {PAIRS, VALUE_COUNTS}, lambda i, sa: _pairs(i, sa).l_distinct, min),
    _per_sa("l_entropy", {PAIRS, VALUE_COUNTS}, lambda i, sa: _pairs(i, sa).entropies[0], lambda v: math.exp(min(v))),
    _per_sa("pycanon_entropy_l", {PAIRS, VALUE_COUNTS}, lambda i, sa: _pairs(i, sa).entropies[1],
            lambda v: int(np.exp(1) ** min(v))),
    _per_sa("recursive_c", {PAIRS}, lambda i, sa: _recursive(i, sa, 0), _max_or_none, after=("l_distinct",)),
    _per_sa("pycanon_recursive_c", {PAIRS}, lambda i, sa: _recursive(i, sa, 1), _max_or_none,
            after=("l_distinct",)),
    _per_sa("t_by_attribute", {CLASS_T}, lambda i, sa: (sa, float(i(CLASS_T, sa).max())), dict),
    Measure("t", frozenset({CLASS_T}), lambda i: max(i.values["t_by_attribute"].values()) if i.sa else None,
            after=("t_by_attribute",)),
    _per_sa("beta_basic", {PAIRS, VALUE_COUNTS}, lambda i, sa: _pairs(i, sa).beta[0], max),
    _per_sa("beta_enhanced", {PAIRS, VALUE_COUNTS}, lambda i, sa: _pairs(i, sa).beta[1], max),
    _per_sa("delta", {PAIRS, VALUE_COUNTS}, lambda i, sa: _pairs(i, sa).delta, max),
    Measure("xy_anonymity", frozenset({IDENTIFIERS}), lambda i: int(i(IDENTIFIERS).min()),
            asked=lambda aggregates, request: aggregates.has_identifiers),
    Measure("prosecutor", frozenset({CLASS_SIZES}), lambda i: prosecutor_risk(i.sizes, i.request.risk_threshold)),
    Measure("sample_uniques", frozenset({CLASS_SIZES}), lambda i: sample_uniques(i.sizes)),
    Measure("average_rir", frozenset({CLASS_SIZES}), lambda i: average_rir(i.sizes)),
    Measure("journalist", frozenset({CLASS_SIZES, POPULATION}), lambda i: _journalist(i)[0],
            asked=lambda aggregates, request: aggregates.has_population),
    Measure("marketer", frozenset({CLASS_SIZES, POPULATION}), lambda i: _journalist(i)[1],
            asked=lambda aggregates, request: aggregates.has_population),
    Measure("population_uniques", frozenset({CLASS_SIZES}),
            lambda i: population_uniques(i.sizes, i.request.sampling_fraction),
            asked=lambda aggregates, request: request.sampling_fraction is not None),
    Measure("individual_risk", frozenset({CLASS_SIZES, SAMPLE_WEIGHTS}), _individual,
            asked=lambda aggregates, request: aggregates.has_sample_weights),
    Measure("qi_importance", frozenset({SUBSETS}),
            lambda i: [QiImportance.of_counts(names, groups, same, i.n) for names, groups, same in i(SUBSETS)],
            asked=lambda aggregates, request: request.qi_importance),
    Measure("records", frozenset({RECORDS, CLASS_SIZES}), _records),
]
BY_KEY = {m.key: m for m in MEASURES}
# the measures PrivacyModels holds (besides the class sizes and each attribute's t)
MODEL_KEYS = [name for name in PrivacyModels.__dataclass_fields__ if name not in ("class_sizes", "t_by_attribute")]


@dataclass
class Computed:
    """The values of the measures a request asked for, by key, and the aggregates fetched."""

    values: dict = field(default_factory=dict)
    fetched: list[str] = field(default_factory=list)


def wanted(keys=None) -> list[Measure]:
    """The registered measures ``keys`` name (every one by default) and those they read, in
    registry order."""
    if keys is None:
        return list(MEASURES)
    needed, stack = set(), list(keys)
    while stack:
        key = stack.pop()
        if key not in needed:
            needed.add(key)
            stack += BY_KEY[key].after
    return [m for m in MEASURES if m.key in needed]


def compute(aggregates: Aggregates, request: MeasureRequest, keys=None, progress=None) -> Computed:
    """The measures ``keys`` (every registered one by default) that the request asks for."""
    values: dict = {}
    inputs = Inputs(aggregates, request, values)
    chosen = [m for m in wanted(keys) if m.asked(aggregates, request)]
    for done, entry in enumerate(chosen, start=1):
        values[entry.key] = entry.compute(inputs)
        if progress is not None:
            progress(done / len(chosen))
    return Computed(values, list(aggregates.fetched))
