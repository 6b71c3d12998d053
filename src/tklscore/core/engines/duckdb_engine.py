"""The out-of-core engine: the plan's group-bys run by DuckDB over Parquet/CSV files,
under a memory limit (DuckDB spills to a temporary folder), never loaded into pandas.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from tklscore.core.engines.scoring import Backend
from tklscore.core.errors import InputError
from tklscore.core.tables.roles import Roles

_PARQUET = {".parquet", ".pq"}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DuckDBBackend(Backend):
    name = "duckdb"

    def __init__(self, memory_limit: str | None = None, threads: int | None = None):
        try:
            import duckdb
        except ImportError:
            raise InputError("the out-of-core engine needs DuckDB: pip install duckdb "
                             "(or pip install 'tklscore[duckdb]')") from None
        self._duckdb = duckdb
        self.folder = Path(tempfile.mkdtemp(prefix="tklscore-duckdb-"))
        self.con = duckdb.connect(str(self.folder / "work.duckdb"))
        self.con.execute(f"SET temp_directory = {_literal(str(self.folder / 'spill'))}")
        self.con.execute("SET preserve_insertion_order = false")
        if memory_limit:
            self.con.execute(f"SET memory_limit = {_literal(memory_limit)}")
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")

    def close(self) -> None:
        self.con.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ Backend

    def fetch(self, sql: str) -> pd.DataFrame:
        return self.con.execute(sql).df()

    def materialize(self, name: str, sql: str) -> None:
        self.con.execute(f"CREATE OR REPLACE TABLE {name} AS {sql}")

    def register(self, name: str, frame: pd.DataFrame) -> None:
        self.con.register(f"{name}_frame", frame)
        self.con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM {name}_frame")
        self.con.unregister(f"{name}_frame")

    def write_parquet(self, sql: str, path: str) -> None:
        target = Path(path)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            self.con.execute(f"COPY ({sql}) TO {_literal(str(temporary))} (FORMAT PARQUET)")
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)

    # ------------------------------------------------------------------ inputs

    def _scan(self, path: str, delimiter: str | None = None, encoding: str | None = None) -> str:
        """A SELECT reading a file, with ``__rid`` its 0-based record position."""
        file = Path(path)
        if not file.exists():
            raise InputError("file not found", file=str(path))
        if file.suffix.lower() in _PARQUET:
            scan = f"read_parquet({_literal(str(file))}, file_row_number = true)"
            select = f"SELECT * EXCLUDE (file_row_number), file_row_number AS __rid FROM {scan}"
        else:
            options = ["header = true", "all_varchar = true", "quote = '\"'", "escape = '\"'"]
            if delimiter:
                options.append(f"delim = {_literal(delimiter)}")
            if encoding and encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
                options.append(f"encoding = {_literal(encoding)}")
            scan = f"read_csv({_literal(str(file))}, {', '.join(options)})"
            select = f"SELECT *, CAST(ROW_NUMBER() OVER () - 1 AS BIGINT) AS __rid FROM {scan}"
        try:
            self.con.execute(f"CREATE OR REPLACE VIEW __probe AS {select}")
            columns = [row[0] for row in self.con.execute("DESCRIBE __probe").fetchall()]
        except self._duckdb.Error as exc:
            kind = "Parquet" if file.suffix.lower() in _PARQUET else "CSV"
            raise InputError(f"not a readable {kind} file ({_first_line(exc)})", file=str(path)) from None
        return select, [c for c in columns if c != "__rid"]

    def open_source(self, path: str, roles: Roles, delimiter: str | None = None,
                    encoding: str | None = None) -> None:
        """``src(rid, id, q0.., s0..)`` from the source file: categorical values as text
        (missing: the empty text), continuous ones as numbers (an error names the first
        record that holds no number)."""
        select, columns = self._scan(path, delimiter, encoding)
        stripped = {c.strip(): c for c in columns}
        named = list(roles.qi) + list(roles.sa) + ([roles.identifier] if roles.identifier else [])
        absent = [c for c in named if c not in stripped]
        if absent:
            raise InputError(f"column {', '.join(repr(c) for c in absent)} not found; the table has columns "
                             f"{', '.join(repr(c) for c in stripped)}", file=str(path))
        text = (lambda c: f"COALESCE(CAST({_quote(stripped[c])} AS VARCHAR), '')")
        parts = ["__rid AS rid",
                 (f"{text(roles.identifier)} AS id" if roles.identifier else "CAST(__rid AS VARCHAR) AS id")]
        parts += [f"{text(c)} AS q{i}" for i, c in enumerate(roles.qi)]
        for i, c in enumerate(roles.sa):
            if c in roles.continuous:
                parts.append(f"TRY_CAST(TRIM(CAST({_quote(stripped[c])} AS VARCHAR)) AS DOUBLE) AS s{i}")
            else:
                parts.append(f"{text(c)} AS s{i}")
        try:
            self.con.execute(f"CREATE OR REPLACE TABLE src AS SELECT {', '.join(parts)} FROM ({select}) AS f")
        except self._duckdb.Error as exc:
            raise InputError(f"cannot be read ({_first_line(exc)})", file=str(path)) from None
        is_parquet = Path(path).suffix.lower() in _PARQUET
        for i, c in enumerate(roles.sa):
            if c not in roles.continuous:
                continue
            bad = self.con.execute(
                f"SELECT rid, COUNT(*) OVER () AS many FROM src WHERE s{i} IS NULL OR NOT isfinite(s{i}) "
                f"ORDER BY rid LIMIT 1").fetchall()
            if bad:
                rid, many = bad[0]
                raw = self.con.execute(f"SELECT CAST({_quote(stripped[c])} AS VARCHAR) FROM ({select}) AS f "
                                       f"WHERE __rid = {int(rid)}").fetchone()[0]
                shown = "an empty cell" if raw in (None, "") else f"'{raw}'"
                raise InputError(f"continuous column holds {shown}, which is not a number "
                                 f"({int(many)} such cell(s) in all)", file=str(path),
                                 row=int(rid) + (1 if is_parquet else 2), column=c,
                                 hint="fix the value, or treat the column as categorical")
        if roles.identifier:
            empty = self.con.execute("SELECT rid FROM src WHERE id = '' ORDER BY rid LIMIT 1").fetchall()
            if empty:
                raise InputError("identifier is empty", file=str(path),
                                 row=int(empty[0][0]) + (1 if is_parquet else 2), column=roles.identifier)

    def open_published_file(self, path: str, id_column: str, delimiter: str | None = None,
                            encoding: str | None = None) -> None:
        select, columns = self._scan(path, delimiter, encoding)
        stripped = {c.strip(): c for c in columns}
        if id_column not in stripped:
            raise InputError(f"identifier column '{id_column}' not found; the table has columns "
                             f"{', '.join(repr(c) for c in stripped)}", file=str(path))
        self.con.execute(f"CREATE OR REPLACE TABLE published AS SELECT __rid AS pos, "
                         f"TRIM(COALESCE(CAST({_quote(stripped[id_column])} AS VARCHAR), '')) AS id "
                         f"FROM ({select}) AS f")
        self._check_published_unique(path)

    def open_published_ids(self, ids: list[str]) -> None:
        self.register("published", pd.DataFrame({"pos": range(len(ids)), "id": [str(i).strip() for i in ids]}))
        self._check_published_unique("--rows")

    def _check_published_unique(self, name: str) -> None:
        twice = self.con.execute("SELECT id FROM published GROUP BY id HAVING COUNT(*) > 1 LIMIT 1").fetchall()
        if twice:
            raise InputError(f"id '{twice[0][0]}' is listed more than once", file=str(name))


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
