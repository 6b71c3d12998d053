"""A source file described without loading it: its columns, record count, first rows and
each column's distinct values with their counts, read through an engine's
:meth:`~tklscore.core.engines.backend.Backend.scan` (DuckDB out of core, or Spark).

The text is the in-memory loader's (:func:`tklscore.core.tables.loading.load_table`): the
few rows and distinct values that come back are turned into text by the loader's own
functions, so a Parquet integer, float, date or missing cell reads as it does in memory;
the distinct values are grouped as :meth:`Table.codes` groups them (a missing cell with
the empty text, a missing float with NaN) and ordered by first appearance, as
:func:`tklscore.core.tables.codes.factorize` orders them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pyarrow as pa

from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.text import csv_rows
from tklscore.core.tables.loading import (MISSING, PARQUET_SUFFIXES, _check_header, _column_text, _is_text,
                                          _typed_column, sniff_text_file)
from tklscore.core.tables.spaces import SpacesStripped, check_keep, split_delimiter

PREVIEW_ROWS = 200


@dataclass(frozen=True, eq=False)
class SourceSummary:
    """What the application shows of a source it does not load."""

    path: str
    name: str
    columns: list[str]
    rows: int
    preview: pd.DataFrame                 # the first rows, text as the loader writes it
    kind: str = "CSV"                     # "CSV" or "Parquet"
    delimiter: str | None = None          # CSV: as given or detected
    encoding: str | None = None
    options: dict = field(default_factory=dict)  # the delimiter/encoding/keep_spaces to read it again with
    spaces_stripped: SpacesStripped = field(default_factory=SpacesStripped)  # where spaces around values were

    @property
    def preview_rows(self) -> int:
        return len(self.preview)


def describe_source(path, *, delimiter: str | None = None, encoding: str | None = None,
                    preview_rows: int = PREVIEW_ROWS, backend=None,
                    progress: Callable[[float], None] | None = None, keep_spaces: bool = False) -> SourceSummary:
    """The columns, the number of records and the first ``preview_rows`` records of a CSV
    or Parquet file, read by ``backend`` (default: DuckDB, opened and closed here), with
    the spaces around CSV values stripped unless ``keep_spaces`` (and where they were).
    ``progress(fraction)`` is called between the steps; it may raise to stop."""
    progress = progress or (lambda _fraction: None)
    with _Reader(path, delimiter, encoding, backend, keep_spaces) as reader:
        progress(0.1)
        selected = ", ".join(f"{reader.q(c)} AS {reader.q(name)}" for c, name in zip(reader.raw, reader.columns))
        arrow = reader.fetch_arrow(f"SELECT {selected} FROM {reader.relation} WHERE __rid < {max(0, int(preview_rows))} "
                                   f"ORDER BY __rid")
        progress(0.4)
        integers = [i for i, f in enumerate(arrow.schema) if pa.types.is_integer(f.type)]
        counted = ["COUNT(*) AS n"] + [f"COUNT(*) - COUNT({reader.q(reader.raw[i])}) AS m{i}" for i in integers]
        stripping = reader.kind == "CSV" and reader.raw_relation != reader.relation
        if stripping:  # where the spaces were, counted on the cells as the file holds them
            for i, c in enumerate(reader.raw):
                counted += [f"SUM(CASE WHEN {reader.q(c)} LIKE ' %' THEN 1 ELSE 0 END) AS l{i}",
                            f"SUM(CASE WHEN {reader.q(c)} LIKE '% ' THEN 1 ELSE 0 END) AS t{i}"]
        counts = reader.fetch(f"SELECT {', '.join(counted)} FROM {reader.raw_relation}")
        rows = int(counts["n"].iloc[0])
        stripped = SpacesStripped()
        if stripping:
            lead = [bool(counts[f"l{i}"].fillna(0).iloc[0]) for i in range(len(reader.raw))]
            trail = [bool(counts[f"t{i}"].fillna(0).iloc[0]) for i in range(len(reader.raw))]
            names = tuple(name for i, name in enumerate(reader.columns) if lead[i] or trail[i])
            stripped = SpacesStripped(names, any(lead), any(trail))
        progress(0.9)
        preview = pd.DataFrame({name: _text(arrow.column(i), name, bool(i in integers and counts[f"m{i}"].iloc[0]))
                                for i, name in enumerate(reader.columns)},
                               columns=reader.columns, index=pd.RangeIndex(arrow.num_rows))
        return SourceSummary(str(path), Path(path).name, list(reader.columns), rows, preview, reader.kind,
                             reader.delimiter, reader.encoding, reader.options, stripped)


def column_values(path, column: str, *, delimiter: str | None = None, encoding: str | None = None,
                  limit: int | None = None, backend=None, keep_spaces: bool = False) -> pd.DataFrame:
    """The distinct values of ``column`` (``value``: text as written) and how many records
    hold each (``count``), in order of first appearance. With ``limit`` only the first
    ``limit`` values are listed; ``frame.attrs["distinct"]`` is how many there are in all
    and ``frame.attrs["beyond"]`` how many are not listed."""
    with _Reader(path, delimiter, encoding, backend, keep_spaces) as reader:
        if column not in reader.columns:
            raise InputError(f"column '{column}' not found; the table has columns "
                             f"{', '.join(repr(c) for c in reader.columns)}", file=str(path))
        raw = reader.q(reader.raw[reader.columns.index(column)])
        kind = reader.arrow_schema(f"SELECT {raw} AS v FROM {reader.relation}").field(0).type
        key = raw
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            key = f"COALESCE({raw}, '')"
        elif pa.types.is_floating(kind):
            key = f"CASE WHEN isnan({raw}) THEN NULL ELSE {raw} END"
        grouped = (f"SELECT {key} AS v, COUNT(*) AS c, MIN(__rid) AS first FROM {reader.relation} "
                   f"GROUP BY {key}")
        reader.materialize("__values", grouped)
        distinct = int(reader.fetch("SELECT COUNT(*) AS n FROM __values")["n"].iloc[0])
        shown = f" LIMIT {max(0, int(limit))}" if limit is not None else ""
        arrow = reader.fetch_arrow(f"SELECT v, c, first FROM __values ORDER BY first{shown}")
        missing = pa.types.is_integer(kind) and len(reader.fetch("SELECT c FROM __values WHERE v IS NULL"))
        values = _text(arrow.column(0), column, bool(missing))
        if pa.types.is_floating(kind):
            values = _signed_zero(reader, raw, arrow, values)
        frame = pd.DataFrame({"value": pd.Series(values.to_numpy(dtype=object), dtype=object),
                              "count": arrow.column(1).to_numpy().astype(np.int64)})
        frame.attrs["distinct"] = distinct
        frame.attrs["beyond"] = distinct - len(frame)
        return frame


def _signed_zero(reader: "_Reader", raw: str, arrow: pa.Table, values: pd.Series) -> pd.Series:
    """0.0 and -0.0 are one value (as in memory), written as its first occurrence."""
    zero = np.flatnonzero(values.to_numpy(dtype=object) == "0.0")
    if not len(zero):
        zero = np.flatnonzero(values.to_numpy(dtype=object) == "-0.0")
    if not len(zero):
        return values
    first = int(arrow.column(2)[int(zero[0])].as_py())
    written = reader.fetch_arrow(f"SELECT {raw} AS v FROM {reader.relation} WHERE __rid = {first}")
    values = values.copy()
    values.iloc[int(zero[0])] = _text(written.column(0), "v").iloc[0]
    return values


def _text(column: pa.ChunkedArray, name: str, holds_missing: bool = False) -> pd.Series:
    """Fetched values of a column as the loader's text (values as written, missing: the
    empty text); ``holds_missing``: the whole integer column holds a missing cell, so the
    loader reads it as floats (``31.0``) even where these values hold none."""
    if holds_missing and pa.types.is_integer(column.type):
        column = column.cast(pa.float64())
    typed = _typed_column(column, name)
    if _is_text(typed):
        return typed.astype(object).where(typed.notna(), MISSING).reset_index(drop=True)
    return _column_text(typed).astype(object).reset_index(drop=True)


def _csv_header(file: Path, delimiter: str, encoding: str) -> list[str]:
    """The header's fields as the loader reads them (the engine renames duplicate or empty
    names, which the loader refuses)."""
    with open(file, "rb") as handle:
        sample = handle.read(256 * 1024)
    try:
        text = sample.decode(encoding, errors="ignore")
    except LookupError:
        raise InputError(f"unknown encoding '{encoding}'", file=str(file)) from None
    first = next(csv_rows(text.lstrip("\ufeff"), str(file), delimiter), None)
    return first[1] if first else []


class _Reader:
    """A scan of the file on a back-end (its own DuckDB one unless given), with the column
    names stripped and checked as the loader checks them."""

    def __init__(self, path, delimiter, encoding, backend, keep_spaces: bool = False):
        check_keep(delimiter, keep_spaces)
        delimiter = split_delimiter(delimiter)[0]
        self.keep_spaces = bool(keep_spaces)
        self.path = str(path)
        file = existing_file(path, "table file", folder=backend is not None)
        self.kind = "Parquet" if file.suffix.lower() in PARQUET_SUFFIXES else "CSV"
        self.delimiter, self.encoding = delimiter, encoding
        self.options = {k: v for k, v in (("delimiter", delimiter), ("encoding", encoding),
                                          ("keep_spaces", self.keep_spaces)) if v}
        if self.kind == "CSV" and file.is_file():
            if file.stat().st_size == 0:
                raise InputError("the file is empty", file=self.path)
            detected_delimiter, detected_encoding = sniff_text_file(file)
            self.delimiter = delimiter or detected_delimiter
            self.encoding = encoding or detected_encoding
            self.header = _csv_header(file, self.delimiter, self.encoding)
        else:
            self.header = None
        self.own = backend is None
        if self.own:
            from tklscore.core.engines import open_backend

            backend = open_backend("duckdb")
        self.backend = backend

    def __enter__(self) -> "_Reader":
        try:
            engine_encoding = self.encoding
            if engine_encoding and engine_encoding.lower().replace("_", "-") in ("utf-8", "utf8", "utf-8-sig", "ascii"):
                engine_encoding = None
            scan = self.backend.scan(self.path, self.delimiter if self.kind == "CSV" else None, engine_encoding,
                                     "__describe", keep_spaces=self.keep_spaces)
            self.scan, self.relation = scan, scan.relation
            self.raw_relation = scan.raw_relation or scan.relation
            self.raw = list(scan.columns)
            self.columns = [str(c).strip() for c in (self.header if self.header is not None else self.raw)]
            _check_header(self.columns, self.path)
            if len(self.columns) != len(self.raw):
                raise InputError(f"the engine reads {len(self.raw)} column(s) but the header names "
                                 f"{len(self.columns)}", file=self.path, row=1,
                                 hint="check the delimiter and encoding")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.own:
            self.backend.close()

    def q(self, name: str) -> str:
        return self.backend.q(name)

    def fetch(self, sql: str) -> pd.DataFrame:
        return self.backend.run("cannot be read", self.path, lambda: self.backend.fetch(sql))

    def fetch_arrow(self, sql: str) -> pa.Table:
        return self.backend.run("cannot be read", self.path, lambda: self.backend.fetch_arrow(sql))

    def arrow_schema(self, sql: str) -> pa.Schema:
        return self.backend.run("cannot be read", self.path, lambda: self.backend.arrow_schema(sql))

    def materialize(self, name: str, sql: str) -> None:
        self.backend.run("cannot be read", self.path, lambda: self.backend.materialize(name, sql))


def profile_source(path, *, delimiter: str | None = None, encoding: str | None = None, backend=None,
                   keep_spaces: bool = False) -> list:
    """Each column's :class:`~tklscore.core.tables.role_guesses.ColumnProfile` (distinct
    values, numbers, empty cells, value lengths) counted by the engine in one pass, for the
    role guesses of a source not loaded."""
    from tklscore.core.tables.role_guesses import ColumnProfile

    with _Reader(path, delimiter, encoding, backend, keep_spaces) as reader:
        parts = ["COUNT(*) AS n"]
        for i, c in enumerate(reader.raw):
            text = reader.backend.column_text(reader.scan, c)
            number = f"TRY_CAST({text} AS DOUBLE)"
            bad = f"{number} IS NULL OR isnan({number}) OR ABS({number}) = CAST('Infinity' AS DOUBLE)"
            parts += [f"COUNT(DISTINCT {text}) AS d{i}",
                      f"SUM(CASE WHEN {text} = '' THEN 1 ELSE 0 END) AS e{i}",
                      f"SUM(CASE WHEN {bad} THEN 1 ELSE 0 END) AS b{i}",
                      f"SUM(CASE WHEN NOT ({bad}) AND {number} <> FLOOR({number}) THEN 1 ELSE 0 END) AS f{i}",
                      f"AVG(CAST(LENGTH({text}) AS DOUBLE)) AS l{i}",
                      f"AVG(CASE WHEN {text} LIKE '% %' THEN 1.0 ELSE 0.0 END) AS s{i}"]
        counts = reader.fetch(f"SELECT {', '.join(parts)} FROM {reader.relation}").iloc[0]
        rows = int(counts["n"])

        def value(key: str) -> float:
            v = counts[key]
            return 0.0 if v is None or pd.isna(v) else float(v)

        profiles = []
        for i, name in enumerate(reader.columns):
            numeric = rows > 0 and value(f"b{i}") == 0
            profiles.append(ColumnProfile(name, rows, int(value(f"d{i}")), bool(numeric), int(value(f"e{i}")),
                                          value(f"l{i}"), value(f"s{i}"), bool(numeric and value(f"f{i}") == 0)))
        return profiles
