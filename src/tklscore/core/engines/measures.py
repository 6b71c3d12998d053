"""The risk lens of a table with an out-of-core or cluster engine (``tklscore measures
--engine duckdb|spark``, ``score --measures`` with an engine): the equivalence classes and
the (class, value) counts are the plan's group-bys (:class:`EngineAggregates`, the
aggregates of :mod:`tklscore.core.risk.aggregates`, each fetched when a measure first asks
for it); Python receives one row per class and per (class, value) pair and the formulas of
:mod:`tklscore.core.risk.registry` finish them, as in memory, so every number is the
in-memory engine's.

Supported: k and the class sizes, (α,k), distinct / entropy / recursive (c,l)-diversity,
t-closeness, β-likeness, δ-disclosure, (X,Y)-anonymity, prosecutor risk, journalist and
marketer risk against a population file, sample uniques, population uniques (sampling
fraction), pycanon's readings, suppressed records (counted or excluded), sdcMicro's
individual risk (F_k summed per class from the records' sampling weights, which are read
in record order so that the sums are the in-memory engine's; the result is one number per
record) and QI importance (one grouped count of the classes per subset of the QIs, up to
:data:`QI_IMPORTANCE_MAX` QIs: 2^q − 1 of them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from tklscore.core.engines.backend import Backend
from tklscore.core.engines.plan import Plan
from tklscore.core.engines.scoring import PairSource, combinations_of_values, values_by_code
from tklscore.core.errors import InputError, check_limit
from tklscore.core.risk.aggregates import (CLASS_SIZES, CLASS_T, IDENTIFIERS, POPULATION, RECORDS,
                                           SAMPLE_WEIGHTS, SUBSETS, VALUE_COUNTS, Aggregates)
from tklscore.core.risk.equivalence_classes import SUPPRESSION_MARKER
from tklscore.core.risk.measures import Measures, check_identifier_columns, measure, require_quasi_identifiers
from tklscore.core.risk.registry import MeasureRequest
from tklscore.core.risk.reidentification import DEFAULT_RISK_THRESHOLD
from tklscore.core.tables.roles import Roles

QI_IMPORTANCE_MAX = 12     # 4,095 subsets, a grouped count of the classes each
SUBSETS_PER_STATEMENT = 64


class ReleasedCounts(NamedTuple):
    """A coded release's classes and (class, value) pairs already in Python (a design's
    combinations fetched whole, :func:`.design._released_counts`): measured without a statement."""

    sizes: np.ndarray                          # each class's records, by class id
    pairs: list[tuple[np.ndarray, ...]]        # each SA's (class, value code, count), sorted by class then code
    suppressed_rows: int                       # the records whose QIs all hold the marker


class EngineAggregates(Aggregates):
    """The aggregates (:mod:`tklscore.core.risk.aggregates`) of the records of ``source``
    (``q0.., s0.., y0.., sw``; ``src`` or a subset of it) from the plan's group-bys, each
    run when a measure first asks for it; the per-record arrays stay in the engine.
    ``population``: a relation with ``q0..`` (journalist and marketer risk). ``coded``: the
    records are already coded in the engine — ``classes``, ``codes_{i}`` and ``coded``, as
    :meth:`.Plan.classes`, :meth:`.Plan.value_codes` and :meth:`.Plan.coded` (weighted) make
    them; a designed release's combinations (:meth:`.Plan.released_coded`) — and are read as
    they are, not coded again from their values. ``whole_classes`` (coded): each class holds
    every record of ``population`` with its QI values (a release of the whole population less
    whole suppressed classes), so its population size F is its size k, not grouped again."""

    def __init__(self, backend: Backend, roles: Roles, *, source: str = "src", population: str | None = None,
                 n_identifying: int = 0, sample_weight: bool = False, suppressed_marker: str = SUPPRESSION_MARKER,
                 exclude_suppressed: bool = False, name: str = "table", population_name: str = "population",
                 weighted: bool = False, coded: bool = False, whole_classes: bool = False,
                 released: ReleasedCounts | None = None):
        super().__init__()
        self.backend, self.name, self.population_name = backend, name, population_name
        self.qi, self.sa, self.continuous = list(roles.qi), list(roles.sa), set(roles.continuous)
        self.population, self.n_identifying = population, n_identifying
        self.has_population, self.has_identifiers = population is not None, bool(n_identifying)
        self.has_sample_weights = sample_weight
        self.whole_classes = whole_classes
        if whole_classes and not (coded and population is not None):
            raise ValueError("whole classes are a coded release's, cut from its population")
        if weighted and (n_identifying or sample_weight):
            raise ValueError("identifiers and sampling weights are measured over the records")
        if coded and (not weighted or exclude_suppressed):
            raise ValueError("coded records are a weighted release's combinations, measured as they are")
        if released is not None and not whole_classes:
            raise ValueError("released counts are a coded release's of whole classes")
        # weighted: ``source`` and ``population`` hold the finest aggregate's rows (.finest), with ``cnt``
        plan = Plan(len(roles.qi), tuple(c in roles.continuous for c in roles.sa), "scope", weighted)
        self.released = released
        if released is not None:
            self.plan, self.rows, self.suppressed_rows = replace(plan, source=source), int(released.sizes.sum()), \
                released.suppressed_rows
            self.pairs = PairSource.of_pairs(backend, self.plan, released.pairs)
            return
        markers = [suppressed_marker] * len(roles.qi)   # the marker as a parameter of each QI's test
        # coded: a class's QI values and size are its records'
        count, one, rows = ("CAST(COALESCE(SUM(k), 0) AS BIGINT)", "k", "classes") if coded else (
            plan.count, plan.times("1"), source)
        counted = backend.fetch(f"SELECT {count} AS n, CAST(COALESCE(SUM(CASE WHEN {plan.suppressed('?')} "
                                f"THEN {one} ELSE 0 END), 0) AS BIGINT) AS s FROM {rows}", markers).iloc[0]
        self.rows = int(counted["n"])
        if self.rows == 0:
            raise InputError("the table has no records", file=name)
        self.suppressed_rows = int(counted["s"])
        where = f" WHERE NOT ({plan.suppressed('?')})" if exclude_suppressed and self.suppressed_rows else ""
        if where and self.suppressed_rows == self.rows:
            raise InputError("every record is suppressed (all quasi-identifiers hold the marker "
                             f"{suppressed_marker!r}); nothing is left to measure", file=name,
                             hint="measure without excluding suppressed records")
        if coded:
            self.plan = replace(plan, source=source)
        else:
            # the records in scope; when all are and ``source`` is a relation's name, that relation
            # itself (a copy of a 100M-row source was ~1/5 of the measures' time)
            copied = bool(where) or not source.isidentifier()
            if copied:
                backend.materialize("scope", f"SELECT * FROM {source}{where}", markers if where else None)
            self.plan = plan = replace(plan, source="scope" if copied else source)
            for i in range(len(roles.sa)):
                backend.materialize(f"codes_{i}", plan.value_codes(i))
            backend.materialize("classes", plan.classes())
            backend.materialize("coded", plan.coded())
        self.pairs = PairSource(backend, self.plan, self.rows, keep=True, log=self.fetched, names=self.sa,
                                coded_rows=None if coded else self._coded_rows)

    def _coded_rows(self) -> dict[str, np.ndarray]:
        """The combinations of the records in scope coded in Python (:func:`~.scoring.combinations_of_values`),
        every SA's pairs from one statement grouping their values, not from ``coded`` (its joins cost
        Spark a job each), as a score's combinations are."""
        plan = self.plan
        classes = self.backend.fetch(f"SELECT cid, {', '.join(plan.class_keys)} FROM classes")
        return combinations_of_values(self.backend, plan, classes, values_by_code(self.backend, plan))

    def _compute(self, aggregate: str, attribute: str | None):
        backend, plan = self.backend, self.plan
        i = self.sa.index(attribute) if attribute is not None else None
        if aggregate == CLASS_SIZES:
            if self.released is not None:
                return self.released.sizes
            return backend.fetch("SELECT cid, k FROM classes ORDER BY cid")["k"].to_numpy(dtype=np.int64)
        if aggregate == VALUE_COUNTS:
            counts = self.pairs.value_counts(i)
            # value codes are ranks in sorted value order (text, or numbers for a continuous SA)
            return counts, np.arange(len(counts), dtype=np.int64)
        if aggregate == CLASS_T:
            sizes = self.get(CLASS_SIZES)
            return self.pairs.t(i, int(sizes.sum()), sizes, lambda: self.get(VALUE_COUNTS, attribute)[0])
        if aggregate == IDENTIFIERS:
            return backend.fetch(plan.distinct_identifiers(self.n_identifying))["d"].to_numpy(dtype=np.int64)
        if aggregate == POPULATION:
            return self.get(CLASS_SIZES) if self.whole_classes else self._population_sizes()
        if aggregate == SUBSETS:
            if self.released is not None:
                raise ValueError("QI importance groups the classes in the engine: measure the coded release there")
            return _subset_counts(backend, plan, self.qi, lambda _f: None)
        if aggregate == SAMPLE_WEIGHTS:
            records = backend.fetch(f"SELECT c.cid, s.sw FROM coded AS c JOIN {plan.source} AS s ON s.rid = c.rid "
                                    "ORDER BY c.rid")
            ids = records["cid"].to_numpy(dtype=np.int64)
            sizes = self.get(CLASS_SIZES)
            return ids, np.bincount(ids, weights=records["sw"].to_numpy(dtype=np.float64), minlength=len(sizes))
        if aggregate == RECORDS:
            return None
        raise ValueError(f"unknown aggregate {aggregate!r}")

    def pair_batches(self, attribute: str):
        """The (class, value code, count) pairs of ``attribute`` in batches of whole classes,
        sorted by class then value (the ordered EMD's order; :class:`~.scoring.PairSource`):
        a continuous SA has nearly as many pairs as records."""
        return self.pairs.batches(self.sa.index(attribute))

    def _population_sizes(self) -> np.ndarray:
        """F of each class: the population's records with its QI values (an error names the
        first record no population record matches)."""
        F = self.backend.fetch(self.plan.population_sizes(self.population))["f"].to_numpy(dtype=np.float64)
        missing = np.flatnonzero(np.isnan(F))
        if len(missing):
            first = self.backend.fetch(
                f"SELECT {self.plan.count} AS before FROM coded WHERE rid <= (SELECT MIN(rid) FROM coded WHERE cid IN "
                f"({', '.join(str(int(c)) for c in missing[:1000])}))")["before"].iloc[0]
            rows = int(self.get(CLASS_SIZES)[missing].sum())
            raise InputError(f"{rows} published record(s) have quasi-identifier values that no record of "
                             f"the population has (the first is record {int(first)}); the population "
                             f"must contain the published records", file=self.population_name)
        return F.astype(np.int64)


def measure_in_engine(backend: Backend, roles: Roles, *, source: str = "src", population: str | None = None,
                      n_identifying: int = 0, sampling_fraction: float | None = None,
                      risk_threshold: float = DEFAULT_RISK_THRESHOLD, suppressed_marker: str = SUPPRESSION_MARKER,
                      exclude_suppressed: bool = False, name: str = "table",
                      population_name: str = "population",
                      sample_weight: bool = False, qi_importance: bool = False, progress=None,
                      weighted: bool = False, coded: bool = False, whole_classes: bool = False,
                      released: ReleasedCounts | None = None) -> Measures:
    """The measures of the records of ``source`` (``q0.., s0.., y0..``; ``src`` or a
    subset of it), journalist/marketer risk against ``population`` (a relation with
    ``q0..``) when given, sdcMicro's individual risk from the sampling weights ``sw`` of
    ``source`` with ``sample_weight``, QI importance with ``qi_importance``: the registry's
    measures over :class:`EngineAggregates` (``coded``: the records already coded there;
    ``whole_classes``: each of their classes is whole in ``population``, F = k; ``released``:
    its classes and pairs in Python already).
    ``progress(fraction)`` may raise to stop."""
    require_quasi_identifiers(roles.qi, name)
    if qi_importance:
        check_limit(2 ** len(roles.qi) - 1, 2 ** QI_IMPORTANCE_MAX - 1,
                    what=f"QI importance over {len(roles.qi)} quasi-identifiers", verb="run", unit="grouped counts "
                    "in the engine", hint=f"at most {QI_IMPORTANCE_MAX} quasi-identifiers are allowed out of core; "
                                         f"choose fewer for this analysis, or --engine memory")
    request = MeasureRequest.checked(risk_threshold, sampling_fraction, qi_importance)
    aggregates = EngineAggregates(backend, roles, source=source, population=population, n_identifying=n_identifying,
                                  sample_weight=sample_weight, suppressed_marker=suppressed_marker,
                                  exclude_suppressed=exclude_suppressed, name=name, population_name=population_name,
                                  weighted=weighted, coded=coded, whole_classes=whole_classes, released=released)
    return measure(aggregates, request, progress)


def _subset_counts(backend: Backend, plan: Plan, names: list[str], progress) -> list[tuple[tuple[str, ...], int, int]]:
    """The groups and Σ_G |G|(|G|−1) of every non-empty subset of the QIs (as
    :func:`tklscore.core.risk.qi_importance.subset_counts`, in its order), each subset's
    groups counted from the classes' sizes."""
    subsets = sorted((tuple(j for j in range(len(names)) if mask >> j & 1) for mask in range(1, 2 ** len(names))),
                     key=lambda s: (len(s), s))
    out = []
    for start in range(0, len(subsets), SUBSETS_PER_STATEMENT):
        batch = subsets[start:start + SUBSETS_PER_STATEMENT]
        rows = backend.fetch(plan.subset_groups(batch)).sort_values("subset")
        for subset, groups, same in zip(batch, rows["groups"].to_numpy(dtype=np.int64),
                                        rows["same"].to_numpy(dtype=np.int64)):
            out.append((tuple(names[j] for j in subset), int(groups), int(same)))
        progress(min(1.0, (start + len(batch)) / len(subsets)))
    return out


def measure_files(engine: str, table: str, roles: Roles, *, identifying=(), population: str | None = None,
                  sampling_fraction: float | None = None, risk_threshold: float = DEFAULT_RISK_THRESHOLD,
                  suppressed_marker: str = SUPPRESSION_MARKER, exclude_suppressed: bool = False,
                  sample_weight: str | None = None, qi_importance: bool = False,
                  memory_limit: str | None = None, master: str | None = None, delimiter: str | None = None,
                  encoding: str | None = None, backend: Backend | None = None, progress=None,
                  keep_spaces: bool = False) -> Measures:
    """``tklscore measures TABLE --engine duckdb|spark``: the measures of a table file."""
    from tklscore.core.engines import open_backend

    own = backend is None
    backend = open_backend(engine, memory_limit, master, keep_spaces) if own else backend
    try:
        check_identifier_columns(identifying, roles.qi, roles.sa, str(table), id_column=roles.identifier,
                                 sample_weight=sample_weight)
        backend.open_source(table, roles, delimiter, encoding, identifying, sample_weight=sample_weight)
        if population is not None:
            backend.open_population(population, roles.qi, delimiter, encoding)
        return measure_in_engine(backend, roles, population="population" if population else None,
                                 n_identifying=len(identifying), sampling_fraction=sampling_fraction,
                                 risk_threshold=risk_threshold, suppressed_marker=suppressed_marker,
                                 exclude_suppressed=exclude_suppressed, name=str(table),
                                 population_name=str(population), sample_weight=sample_weight is not None,
                                 qi_importance=qi_importance, progress=progress)
    finally:
        if own:
            backend.close()


def measure_published(backend: Backend, roles: Roles, name: str = "published", **options) -> Measures:
    """``score --measures`` with an engine: the measures of the published records (``src``
    rows in ``published``), journalist and marketer risk against the whole source, as
    :func:`tklscore.core.risk.measures.measure_release` in memory (``options``: QI
    importance, progress, as :func:`measure_in_engine`)."""
    backend.materialize("published_src", "SELECT src.* FROM src JOIN published USING (id)")
    return measure_in_engine(backend, roles, source="published_src", population="src", name=name,
                             population_name="source", **options)
