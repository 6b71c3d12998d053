"""Orooji–Knapp D(r) with an out-of-core or cluster engine (``tklscore disclosure-risk
--engine duckdb|spark``; the Risk view of a source scored out of core): the grouped count
of every known set and the per-record sums are the :class:`~.plan.DisclosurePlan`'s SQL;
Python receives only the distinct values of the weighted attributes (to look up W(v), as
the in-memory engine does), the summary and the histogram. The per-record results stay in
the engine (``dr_records(rid, id, l_sum, d)``) and are written from there as Parquet, or
fetched when asked for.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from tklscore.core.engines.backend import Backend, Scan
from tklscore.core.engines.plan import DisclosurePlan
from tklscore.core.errors import InputError
from tklscore.core.risk.disclosure_risk import (DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD, HISTOGRAM_BINS,
                                                AttributeParameters, DisclosureHistogram, DisclosureRisk,
                                                DisclosureSummary, check_parameters, empty_histogram,
                                                histogram_range, is_numeric_attribute, known_sets,
                                                value_weights_of)
from tklscore.core.scoring.weights import Weights


def disclosure_in_engine(backend: Backend, relation: str, columns: dict[str, str],
                         attributes: list[AttributeParameters], value_weights: Weights | None = None, *,
                         alpha: float = DEFAULT_ALPHA, epsilon: float = DEFAULT_EPSILON,
                         threshold: float = DEFAULT_THRESHOLD, name: str = "table",
                         parameters_name: str | None = None, records_path: str | None = None,
                         fetch: bool = True, header_rows: int = 1, record_column: str = "id",
                         progress=None) -> DisclosureRisk:
    """D(r) of the records of ``relation`` (with ``rid``, the record's position, and
    ``id``); ``columns`` maps each column a user names to its SQL expression there. The
    records are written to ``records_path`` (Parquet; the record named in ``record_column``:
    ``id``, or ``row`` for its position), or fetched with ``fetch``, or left in
    ``dr_records``. ``progress(fraction)`` may raise to stop."""
    report = progress or (lambda _fraction: None)
    check_parameters(attributes, alpha, epsilon, parameters_name, threshold)
    unknown = [a for a in attributes if a.attribute not in columns]
    if unknown:
        raise InputError(f"attribute '{unknown[0].attribute}' is not a column of {name} (its columns: "
                         f"{', '.join(repr(c) for c in columns)})", file=parameters_name, row=unknown[0].row,
                         column="attribute")
    names = [a.attribute for a in attributes]
    pk = [a.pk for a in attributes]
    sets = known_sets(pk, epsilon)
    counted = sorted({j for s in sets for j in s})
    weighted = [j for j, a in enumerate(attributes)
                if a.weight and value_weights is not None and a.attribute in value_weights.attributes]
    needed = sorted(set(counted) | set(weighted))
    text = ", ".join(f"COALESCE(CAST({columns[names[j]]} AS STRING), '') AS a{j}" for j in needed)
    plan = DisclosurePlan(tuple(sets), tuple(pk), (), (), 1, float(alpha),
                          f"(SELECT rid, id{', ' + text if text else ''} FROM {relation})")
    contributing = [j for j in weighted
                    if _register_weights(backend, plan, j, attributes[j], value_weights, name, header_rows)]
    cardinality = []
    for j in counted:
        backend.run("cannot be read", name, lambda: backend.materialize(f"dr_c{j}", plan.dictionary(j)))
        cardinality.append((j, int(backend.fetch(f"SELECT COUNT(*) AS n FROM dr_c{j}")["n"].iloc[0])))
    plan = replace(plan, contributing=tuple(contributing), cardinality=tuple(cardinality))
    backend.run("cannot be read", name, lambda: backend.materialize_joined("dr_src", plan.coded()))
    n = int(backend.fetch("SELECT COUNT(*) AS n FROM dr_src")["n"].iloc[0])
    if n == 0:
        raise InputError("the table has no records", file=name)
    plan = replace(plan, n=n)
    report(0.1)
    for step, i in enumerate(range(len(sets) - 1, 0, -1)):
        backend.materialize(f"dr_ks{i}", plan.set_counts(i))
        report(0.1 + 0.5 * (step + 1) / max(len(sets) - 1, 1))
    backend.materialize_joined("dr_records", plan.records())
    report(0.85)
    summary = backend.fetch(plan.summary(threshold)).iloc[0]
    zero = int(summary["zero"])
    histogram = _histogram(backend, plan, summary, threshold, zero)
    result = DisclosureRisk(names, [tuple(names[i] for i in s) for s in sets], None, None, float(alpha),
                            float(epsilon), float(threshold),
                            DisclosureSummary(n, int(summary["above"]), zero, float(summary["d_max"]), histogram),
                            records_path=records_path)
    if records_path is not None:
        named = "rid AS row" if record_column == "row" else "id"
        backend.write_parquet(f"SELECT {named}, l_sum, d FROM dr_records ORDER BY rid", records_path)
    elif fetch:
        records = backend.fetch("SELECT id, l_sum, d FROM dr_records ORDER BY rid")
        result.ids = records["id"].to_numpy(dtype=object)
        result.l_sum = records["l_sum"].to_numpy(dtype=np.float64)
        result.d = records["d"].to_numpy(dtype=np.float64)
    report(1.0)
    return result


def _register_weights(backend: Backend, plan: DisclosurePlan, j: int, attribute: AttributeParameters,
                      value_weights: Weights, name: str, header_rows: int) -> bool:
    """``dr_w{j}(v, w)``: W(A)·W(v) of each distinct value of attribute j; False (and no
    table) when every value weighs 0."""
    values = backend.run("cannot be read", name, lambda: backend.fetch(plan.distinct(j)))["v"].to_numpy(dtype=object)
    numbers = None
    if is_numeric_attribute(value_weights, attribute.attribute):
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(numbers)
        if bad.any():
            shown = values[bad][0]
            listed = [str(v) for v in values[bad][:1000]]
            first = backend.fetch(f"SELECT MIN(rid) AS rid, COUNT(*) AS many FROM {plan.text} AS t WHERE a{j} IN ("
                                  + ", ".join("?" for _ in listed) + ")", listed).iloc[0]
            raise InputError(f"holds {'an empty cell' if shown == '' else repr(shown)}, which is not a number "
                             f"({int(first['many'])} such cell(s) in all), but its value weights are intervals",
                             file=name, row=int(first["rid"]) + header_rows, column=attribute.attribute,
                             hint="fix the value, or give the attribute's weights value by value")
    per_value = attribute.weight * value_weights_of(attribute.attribute, values, numbers, value_weights)
    if not per_value.any():
        return False
    backend.register(f"dr_w{j}", pd.DataFrame({"v": pd.Series(values, dtype=object), "w": per_value}))
    return True


def _histogram(backend: Backend, plan: DisclosurePlan, summary: pd.Series, threshold: float,
               zero: int) -> DisclosureHistogram:
    """The histogram of log10 D (:func:`tklscore.core.risk.disclosure_risk.disclosure_histogram`)
    from the smallest positive and the largest D, the records binned in the engine."""
    if pd.isna(summary["d_min"]):
        return empty_histogram(zero, threshold)
    low, high = histogram_range(float(np.log10(float(summary["d_min"]))), float(np.log10(float(summary["d_max"]))),
                                threshold)
    edges = np.linspace(low, high, HISTOGRAM_BINS + 1)
    backend.register("dr_edges", pd.DataFrame({"b": np.arange(len(edges), dtype=np.int64), "e": edges}))
    binned = backend.fetch(plan.histogram(low, high, HISTOGRAM_BINS))
    counts = np.zeros(HISTOGRAM_BINS, dtype=np.int64)
    counts[binned["b"].to_numpy(dtype=np.int64)] = binned["c"].to_numpy(dtype=np.int64)
    return DisclosureHistogram(counts, edges, zero, threshold)


def source_relation(backend: Backend, scan: Scan, id_column: str | None) -> tuple[str, dict[str, str]]:
    """A scanned file's records as a relation with ``rid`` and ``id`` (the identifier
    column, unique and non-empty, or the position), and the columns a user names → their
    SQL there."""
    columns = {c.strip(): f"f{k}" for k, c in enumerate(scan.columns)}
    if id_column is not None:
        if id_column not in columns:
            raise InputError(f"identifier column '{id_column}' not found; the table has columns "
                             f"{', '.join(repr(c) for c in columns)}", file=scan.path)
        ident = f"COALESCE(CAST({backend.q(scan.columns[int(columns[id_column][1:])])} AS STRING), '')"
        empty = backend.fetch(f"SELECT __rid FROM {scan.relation} WHERE {ident} = '' ORDER BY __rid LIMIT 1")
        if len(empty):
            raise InputError("identifier is empty", file=scan.path,
                             row=int(empty["__rid"].iloc[0]) + scan.header_rows, column=id_column)
        twice = backend.fetch(f"SELECT {ident} AS id, COUNT(*) AS times FROM {scan.relation} GROUP BY {ident} "
                              f"HAVING COUNT(*) > 1 ORDER BY id LIMIT 1")
        if len(twice):
            raise InputError(f"identifier '{twice['id'].iloc[0]}' appears {int(twice['times'].iloc[0])} times",
                             file=scan.path, column=id_column, hint="an identifier column must be unique")
    else:
        ident = "CAST(__rid AS STRING)"
    fields = ", ".join(f"{backend.q(c)} AS f{k}" for k, c in enumerate(scan.columns))
    return f"(SELECT __rid AS rid, {ident} AS id, {fields} FROM {scan.relation}) AS records", columns


def disclosure_files(engine: str, table: str, attributes: list[AttributeParameters],
                     value_weights: Weights | None = None, *, id_column: str | None = None,
                     alpha: float = DEFAULT_ALPHA, epsilon: float = DEFAULT_EPSILON,
                     threshold: float = DEFAULT_THRESHOLD, parameters_name: str | None = None,
                     records_path: str | None = None, fetch: bool = True, memory_limit: str | None = None,
                     master: str | None = None, delimiter: str | None = None, encoding: str | None = None,
                     backend: Backend | None = None, keep_spaces: bool = False) -> DisclosureRisk:
    """``tklscore disclosure-risk TABLE --engine duckdb|spark``: D(r) of a table file."""
    from tklscore.core.engines import open_backend

    own = backend is None
    backend = open_backend(engine, memory_limit, master, keep_spaces) if own else backend
    try:
        scan = backend.scan(table, delimiter, encoding, "__table")
        relation, columns = source_relation(backend, scan, id_column)
        return disclosure_in_engine(backend, relation, columns, attributes, value_weights, alpha=alpha,
                                    epsilon=epsilon, threshold=threshold, name=str(table),
                                    parameters_name=parameters_name, records_path=records_path, fetch=fetch,
                                    header_rows=scan.header_rows, record_column="id" if id_column else "row")
    finally:
        if own:
            backend.close()
