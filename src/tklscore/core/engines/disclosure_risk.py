"""Orooji–Knapp D(r) with an out-of-core or cluster engine (``tklscore disclosure-risk
--engine duckdb|spark``; the Risk view of a source scored out of core): the aggregates of
the one orchestration (:func:`tklscore.core.risk.disclosure_risk.disclosure_over`) from the
:class:`~.plan.DisclosurePlan`'s SQL. Python receives only the distinct values of the
weighted attributes (to look up W(v), as in memory), the summary and the records per bin.
The per-record results stay in the engine (``dr_records(rid, id, l_sum, d)``) and are
written from there as Parquet, or fetched when asked for.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tklscore.core.engines.backend import Backend, Scan
from tklscore.core.engines.columns import ColumnTexts
from tklscore.core.engines.plan import DisclosurePlan
from tklscore.core.errors import InputError
from tklscore.core.risk.disclosure_risk import (DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD,
                                                AttributeParameters, DisclosureAggregates, DisclosureRisk,
                                                disclosure_over)
from tklscore.core.scoring.weights import Weights


class EngineDisclosureAggregates(DisclosureAggregates):
    """D(r)'s aggregates of ``relation`` (with ``rid``, the record's position, and ``id``)
    in ``backend``; ``columns`` maps each column a user names to its text there, as the
    loader reads it (:class:`~.columns.ColumnTexts`)."""

    def __init__(self, backend: Backend, relation: str, columns, *, name: str = "table",
                 header_rows: int = 1):
        self.backend, self.relation, self.sql_of = backend, relation, columns
        self.name, self.columns, self.header_rows = name, list(columns), header_rows
        self._n: int | None = None

    def _text(self, attribute: str) -> str:
        return self.sql_of[attribute]

    def values(self, attribute: str) -> np.ndarray:
        query = f"SELECT DISTINCT {self._text(attribute)} AS v FROM {self.relation}"
        return self.backend.run("cannot be read", self.name,
                                lambda: self.backend.fetch(query))["v"].to_numpy(dtype=object)

    def numbers(self, attribute: str, values: np.ndarray) -> np.ndarray:
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(numbers)
        if bad.any():
            shown = values[bad][0]
            listed = [str(v) for v in values[bad][:1000]]
            first = self.backend.fetch(f"SELECT MIN(rid) AS rid, COUNT(*) AS many FROM {self.relation} WHERE "
                                       f"{self._text(attribute)} IN (" + ", ".join("?" for _ in listed) + ")",
                                       listed).iloc[0]
            raise InputError(f"holds {'an empty cell' if shown == '' else repr(shown)}, which is not a number "
                             f"({int(first['many'])} such cell(s) in all), but its value weights are intervals",
                             file=self.name, row=int(first["rid"]) + self.header_rows, column=attribute,
                             hint="fix the value, or give the attribute's weights value by value")
        return numbers

    def count(self) -> int:
        if self._n is None:
            query = f"SELECT COUNT(*) AS n FROM {self.relation}"
            self._n = int(self.backend.run("cannot be read", self.name,
                                           lambda: self.backend.fetch(query))["n"].iloc[0])
        return self._n

    def sums(self, attributes, sets, pk, weighted, alpha, progress) -> None:
        backend = self.backend
        counted = sorted({j for s in sets for j in s})
        needed = sorted(set(counted) | set(weighted))
        text = ", ".join(f"{self._text(attributes[j])} AS a{j}" for j in needed)
        plan = DisclosurePlan(tuple(sets), tuple(pk), tuple(sorted(weighted)), (), self.count(), alpha,
                              f"(SELECT rid, id{', ' + text if text else ''} FROM {self.relation})")
        for j, (values, per_value) in weighted.items():
            backend.register(f"dr_w{j}", pd.DataFrame({"v": pd.Series(values, dtype=object), "w": per_value}))
        for j in counted:
            backend.run("cannot be read", self.name, lambda: backend.materialize(f"dr_c{j}", plan.dictionary(j)))
        cardinality = []
        if counted:   # every dictionary's size in one statement
            sizes = backend.fetch(" UNION ALL ".join(f"SELECT {j} AS j, COUNT(*) AS n FROM dr_c{j}" for j in counted))
            size_of = dict(zip(sizes["j"].astype(int), sizes["n"].astype(int)))
            cardinality = [(j, size_of[j]) for j in counted]
        plan = DisclosurePlan(plan.sets, plan.pk, plan.contributing, tuple(cardinality), plan.n, alpha, plan.text)
        backend.run("cannot be read", self.name, lambda: backend.materialize_joined("dr_src", plan.coded()))
        progress(0.1)
        if backend.few_statements and len(sets) > 1 and plan.keys_fit():
            backend.materialize("dr_ks", plan.all_set_counts())
            progress(0.8)
            backend.materialize("dr_records", plan.records_in_order())
            progress(1.0)
            return
        for step, i in enumerate(plan.count_order()):
            backend.materialize(f"dr_ks{i}", plan.set_counts(i))
            progress(0.1 + 0.7 * (step + 1) / max(len(sets) - 1, 1))
        backend.materialize_joined("dr_records", plan.records())
        progress(1.0)

    def summary(self, threshold: float) -> tuple[int, int, float | None, float]:
        row = self.backend.fetch(DisclosurePlan.summary(threshold)).iloc[0]
        d_min = None if pd.isna(row["d_min"]) else float(row["d_min"])
        return int(row["above"]), int(row["zero"]), d_min, float(row["d_max"])

    def bin_counts(self, bounds: np.ndarray) -> np.ndarray:
        binned = self.backend.fetch(DisclosurePlan.histogram(bounds))
        counts = np.zeros(len(bounds) + 1, dtype=np.int64)
        counts[binned["b"].to_numpy(dtype=np.int64)] = binned["c"].to_numpy(dtype=np.int64)
        return counts


def disclosure_in_engine(backend: Backend, relation: str, columns,
                         attributes: list[AttributeParameters], value_weights: Weights | None = None, *,
                         alpha: float = DEFAULT_ALPHA, epsilon: float = DEFAULT_EPSILON,
                         threshold: float = DEFAULT_THRESHOLD, name: str = "table",
                         parameters_name: str | None = None, records_path: str | None = None,
                         fetch: bool = True, header_rows: int = 1, record_column: str = "id",
                         progress=None) -> DisclosureRisk:
    """D(r) of the records of ``relation`` (:func:`disclosure_over` on
    :class:`EngineDisclosureAggregates`). The records are written to ``records_path``
    (Parquet; the record named in ``record_column``: ``id``, or ``row`` for its position),
    or fetched with ``fetch``, or left in ``dr_records``. ``progress(fraction)`` may raise
    to stop."""
    aggregates = EngineDisclosureAggregates(backend, relation, columns, name=name, header_rows=header_rows)
    result = disclosure_over(aggregates, attributes, value_weights, alpha=alpha, epsilon=epsilon, threshold=threshold,
                             parameters_name=parameters_name, progress=progress)
    if records_path is not None:
        named = "rid AS row" if record_column == "row" else "id"
        backend.write_parquet(f"SELECT {named}, l_sum, d FROM dr_records ORDER BY rid", records_path)
        result.records_path = records_path
    elif fetch:
        records = backend.fetch("SELECT id, l_sum, d FROM dr_records ORDER BY rid")
        result.ids = records["id"].to_numpy(dtype=object)
        result.l_sum = records["l_sum"].to_numpy(dtype=np.float64)
        result.d = records["d"].to_numpy(dtype=np.float64)
    return result


def source_relation(backend: Backend, scan: Scan, id_column: str | None) -> tuple[str, ColumnTexts]:
    """A scanned file's records as a relation with ``rid`` and ``id`` (the identifier
    column, unique and non-empty, or the position), and the columns a user names → their
    text there (the loader's)."""
    columns = {c.strip(): f"f{k}" for k, c in enumerate(scan.columns)}
    if id_column is not None:
        if id_column not in columns:
            raise InputError(f"identifier column '{id_column}' not found; the table has columns "
                             f"{', '.join(repr(c) for c in columns)}", file=scan.path)
        ident = backend.column_text(scan, scan.columns[int(columns[id_column][1:])])
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
    return (f"(SELECT __rid AS rid, {ident} AS id, {fields} FROM {scan.relation}) AS records",
            ColumnTexts(backend, scan, lambda k, _raw: f"f{k}"))


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
