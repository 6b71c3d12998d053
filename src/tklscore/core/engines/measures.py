"""The risk lens of a table with an out-of-core or cluster engine (``tklscore measures
--engine duckdb|spark``, ``score --measures`` with an engine): the equivalence classes and
the (class, value) counts are the plan's group-bys; Python receives one row per class and
per (class, value) pair and finishes them with the in-memory functions of
:mod:`tklscore.core.risk`, so every number is the in-memory engine's.

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

import math

import numpy as np

from tklscore.core.engines.backend import Backend
from tklscore.core.engines.plan import Plan
from tklscore.core.engines.scoring import attribute_t
from tklscore.core.errors import InputError, check_limit
from tklscore.core.risk.equivalence_classes import SUPPRESSION_MARKER
from tklscore.core.risk.measures import Measures
from tklscore.core.risk.population_uniqueness import population_uniques
from tklscore.core.risk.privacy_models import ClassSizes, PrivacyModels, combine_models, sensitive_measures_from_pairs
from tklscore.core.risk.qi_importance import QiImportance
from tklscore.core.risk.reidentification import (DEFAULT_RISK_THRESHOLD, individual_risk_of_classes,
                                                 journalist_risk_by_class)
from tklscore.core.tables.roles import Roles

QI_IMPORTANCE_MAX = 12     # 4,095 subsets, a grouped count of the classes each
SUBSETS_PER_STATEMENT = 64


class _Classes:
    """The class sizes, as the in-memory risk functions read them (count, n, sizes)."""

    def __init__(self, sizes: np.ndarray):
        self.sizes = sizes
        self.count = len(sizes)
        self.n = int(sizes.sum())


def measure_in_engine(backend: Backend, roles: Roles, *, source: str = "src", population: str | None = None,
                      n_identifying: int = 0, sampling_fraction: float | None = None,
                      risk_threshold: float = DEFAULT_RISK_THRESHOLD, suppressed_marker: str = SUPPRESSION_MARKER,
                      exclude_suppressed: bool = False, name: str = "table",
                      population_name: str = "population",
                      sample_weight: bool = False, qi_importance: bool = False, progress=None) -> Measures:
    """The measures of the records of ``source`` (``q0.., s0.., y0..``; ``src`` or a
    subset of it), journalist/marketer risk against ``population`` (a relation with
    ``q0..``) when given. sdcMicro's individual risk from the sampling weights
    ``sw`` of ``source`` with ``sample_weight``, QI importance with ``qi_importance``.
    ``progress(fraction)`` may raise to stop."""
    report = progress or (lambda _fraction: None)
    if not roles.qi:
        raise InputError("no quasi-identifier is chosen; the privacy models need at least one", file=name)
    if qi_importance:
        check_limit(2 ** len(roles.qi) - 1, 2 ** QI_IMPORTANCE_MAX - 1,
                    what=f"QI importance over {len(roles.qi)} quasi-identifiers", verb="run", unit="grouped counts "
                    "in the engine", hint=f"at most {QI_IMPORTANCE_MAX} quasi-identifiers are allowed out of core; "
                                         f"choose fewer for this analysis, or --engine memory")
    _check_numbers(sampling_fraction, risk_threshold)
    plan = Plan(len(roles.qi), tuple(c in roles.continuous for c in roles.sa), "scope")
    markers = [suppressed_marker] * len(roles.qi)   # the marker as a parameter of each QI's test
    n_all = int(backend.fetch(f"SELECT COUNT(*) AS n FROM {source}")["n"].iloc[0])
    if n_all == 0:
        raise InputError("the table has no records", file=name)
    suppressed = int(backend.fetch(f"SELECT COUNT(*) AS n FROM {source} WHERE {plan.suppressed('?')}",
                                   markers)["n"].iloc[0])
    where = f" WHERE NOT ({plan.suppressed('?')})" if exclude_suppressed and suppressed else ""
    backend.materialize("scope", f"SELECT * FROM {source}{where}", markers if where else None)
    if where and suppressed == n_all:
        raise InputError("every record is suppressed (all quasi-identifiers hold the marker "
                         f"{suppressed_marker!r}); nothing is left to measure", file=name,
                         hint="measure without excluding suppressed records")
    for i in range(len(roles.sa)):
        backend.materialize(f"codes_{i}", plan.value_codes(i))
    backend.materialize("classes", plan.classes())
    backend.materialize("coded", plan.coded())
    sizes = backend.fetch("SELECT cid, k FROM classes ORDER BY cid")["k"].to_numpy(dtype=np.int64)
    classes = _Classes(sizes)
    n = classes.n
    report(0.3)

    xy = int(backend.fetch(plan.distinct_identifiers(n_identifying))["xy"].iloc[0]) if n_identifying else None
    class_sizes = ClassSizes(len(sizes), int(sizes.min()), int(sizes.max()), float(sizes.mean()),
                             float(np.median(sizes)))
    k = int(sizes.min())
    if roles.sa:
        by_attribute, fetched = {}, {}
        for i, column in enumerate(roles.sa):
            pairs = backend.fetch(plan.class_value_pairs(i))
            counted = backend.fetch(plan.value_counts(i))
            table_counts = counted["c"].to_numpy(dtype=np.int64)
            fetched[column] = (pairs, table_counts)
        l_table = min(int(np.bincount(p["cid"].to_numpy(dtype=np.int64), minlength=len(sizes)).min())
                      for p, _ in fetched.values())
        for i, column in enumerate(roles.sa):
            pairs, table_counts = fetched[column]
            arrays = tuple(pairs[c].to_numpy(dtype=np.int64) for c in ("cid", "idx", "c"))
            class_t = attribute_t(backend, plan, i, n, sizes, pairs, table_counts)
            # value codes are ranks in sorted value order (text, or numbers for a continuous SA)
            rank = np.arange(len(table_counts), dtype=np.int64)
            by_attribute[column] = sensitive_measures_from_pairs(arrays, sizes, table_counts, n, class_t, rank,
                                                                 l_table)
        models = combine_models(k, class_sizes, by_attribute, l_table, xy)
    else:
        models = PrivacyModels(k, class_sizes, None, None, None, None, None, {}, None, None, None, xy, None, None, {})

    from tklscore.core.risk.reidentification import average_rir, prosecutor_risk, sample_uniques

    empty = np.zeros(0, dtype=np.int64)
    measures = Measures(rows=n_all, suppressed_rows=suppressed, models=models,
                        prosecutor=prosecutor_risk(classes, risk_threshold), sample_uniques=sample_uniques(classes),
                        average_rir=average_rir(classes), record_rows=empty, equivalence_class=empty,
                        class_size=empty, prosecutor_records=np.zeros(0), risk_threshold=risk_threshold)
    if population is not None:
        F = backend.fetch(plan.population_sizes(population))["f"].to_numpy(dtype=np.float64)
        missing = np.flatnonzero(np.isnan(F))
        if len(missing):
            first = backend.fetch(
                f"SELECT COUNT(*) AS before FROM coded WHERE rid <= (SELECT MIN(rid) FROM coded WHERE cid IN "
                f"({', '.join(str(int(c)) for c in missing[:1000])}))")["before"].iloc[0]
            rows = int(sizes[missing].sum())
            raise InputError(f"{rows} published record(s) have quasi-identifier values that no record of "
                             f"the population has (the first is record {int(first)}); the population "
                             f"must contain the published records", file=population_name)
        measures.journalist, measures.marketer = journalist_risk_by_class(sizes, F.astype(np.int64), risk_threshold)
    if sampling_fraction is not None:
        measures.population_uniques = population_uniques(sizes, sampling_fraction)
    report(0.6)
    if sample_weight:
        records = backend.fetch("SELECT c.cid, s.sw FROM coded AS c JOIN scope AS s ON s.rid = c.rid ORDER BY c.rid")
        ids = records["cid"].to_numpy(dtype=np.int64)
        Fk = np.bincount(ids, weights=records["sw"].to_numpy(dtype=np.float64), minlength=len(sizes))
        measures.individual_risk = individual_risk_of_classes(ids, sizes.astype(np.float64), Fk)
    if qi_importance:
        measures.qi_importance = _qi_importance(backend, plan, list(roles.qi), n,
                                                lambda f: report(0.7 + 0.3 * f))
    report(1.0)
    return measures


def _qi_importance(backend: Backend, plan: Plan, names: list[str], n: int, progress) -> list[QiImportance]:
    """α-distinction and α-separation of every non-empty subset of the QIs (as
    :func:`tklscore.core.risk.qi_importance.qi_importance`, in its order), each subset's
    groups counted from the classes' sizes."""
    subsets = sorted((tuple(j for j in range(len(names)) if mask >> j & 1) for mask in range(1, 2 ** len(names))),
                     key=lambda s: (len(s), s))
    pairs_total = n * (n - 1) / 2.0
    out: list[QiImportance] = []
    for start in range(0, len(subsets), SUBSETS_PER_STATEMENT):
        batch = subsets[start:start + SUBSETS_PER_STATEMENT]
        rows = backend.fetch(plan.subset_groups(batch)).sort_values("subset")
        for subset, groups, same in zip(batch, rows["groups"].to_numpy(dtype=np.int64),
                                        rows["same"].to_numpy(dtype=np.int64)):
            separation = 1.0 - (int(same) / 2.0) / pairs_total if pairs_total else 0.0
            out.append(QiImportance(tuple(names[j] for j in subset), int(groups) / n, separation))
        progress(min(1.0, (start + len(batch)) / len(subsets)))
    return out


def _check_numbers(sampling_fraction, risk_threshold) -> None:
    if sampling_fraction is not None:
        f = float(sampling_fraction)
        if not (math.isfinite(f) and 0.0 < f <= 1.0):
            raise InputError(f"sampling fraction {sampling_fraction!r} is outside (0, 1]",
                             column="sampling fraction", hint="the share of the population the table holds, e.g. 0.1")
    r = float(risk_threshold)
    if not (math.isfinite(r) and 0.0 <= r <= 1.0):
        raise InputError(f"risk threshold {risk_threshold!r} is outside [0, 1]", column="risk threshold")


def measure_files(engine: str, table: str, roles: Roles, *, identifying=(), population: str | None = None,
                  sampling_fraction: float | None = None, risk_threshold: float = DEFAULT_RISK_THRESHOLD,
                  suppressed_marker: str = SUPPRESSION_MARKER, exclude_suppressed: bool = False,
                  sample_weight: str | None = None, qi_importance: bool = False,
                  memory_limit: str | None = None, master: str | None = None, delimiter: str | None = None,
                  encoding: str | None = None, backend: Backend | None = None, keep_spaces: bool = False) -> Measures:
    """``tklscore measures TABLE --engine duckdb|spark``: the measures of a table file."""
    from tklscore.core.engines import open_backend

    own = backend is None
    backend = open_backend(engine, memory_limit, master, keep_spaces) if own else backend
    try:
        if sample_weight is not None and sample_weight in set(roles.qi) | set(roles.sa):
            raise InputError("is the sample weight column and also a quasi-identifier or sensitive attribute; "
                             "a column has one role", file=str(table), column=sample_weight)
        backend.open_source(table, roles, delimiter, encoding, identifying, sample_weight=sample_weight)
        if population is not None:
            backend.open_population(population, roles.qi, delimiter, encoding)
        return measure_in_engine(backend, roles, population="population" if population else None,
                                 n_identifying=len(identifying), sampling_fraction=sampling_fraction,
                                 risk_threshold=risk_threshold, suppressed_marker=suppressed_marker,
                                 exclude_suppressed=exclude_suppressed, name=str(table),
                                 population_name=str(population), sample_weight=sample_weight is not None,
                                 qi_importance=qi_importance)
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
