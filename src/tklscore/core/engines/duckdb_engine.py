"""The out-of-core back-end: the plan's group-bys run by DuckDB over Parquet/CSV files,
under a memory limit (DuckDB spills to a temporary folder), never loaded into pandas.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from tklscore.core.engines.backend import Backend, Scan, first_line
from tklscore.core.errors import InputError
from tklscore.core.tables.spaces import split_delimiter, sql_trim

_PARQUET = {".parquet", ".pq"}


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

    def interrupt(self) -> None:
        self.con.interrupt()

    def close(self) -> None:
        self.con.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # ------------------------------------------------------------------ primitives

    def fetch(self, sql: str) -> pd.DataFrame:
        return self.con.execute(sql).df()

    def fetch_arrow(self, sql: str):
        relation = self.con.sql(sql)
        return relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()

    def materialize(self, name: str, sql: str) -> None:
        self.con.execute(f"CREATE OR REPLACE TABLE {name} AS {sql}")

    def materialize_joined(self, name: str, sql: str) -> None:
        self.con.execute("SET disabled_optimizers = 'join_order'")
        try:
            self.materialize(name, sql)
        finally:
            self.con.execute("RESET disabled_optimizers")

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

    def write_csv(self, sql: str, path: str) -> None:
        """The rows of ``sql`` as CSV (a header line, comma-separated, quoted only where
        needed; NULL as an empty cell), atomically."""
        target = Path(path)
        temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        try:
            self.con.execute(f"COPY ({sql}) TO {_literal(str(temporary))} (FORMAT CSV, HEADER true, "
                             f"DELIMITER ',', QUOTE '\"', ESCAPE '\"')")
            os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)

    def scan(self, path: str, delimiter: str | None = None, encoding: str | None = None,
             relation: str = "__scan", keep_spaces: bool | None = None) -> Scan:
        delimiter = split_delimiter(delimiter)[0]
        file = Path(path)
        if not file.exists():
            raise InputError("file not found", file=str(path))
        kind = "Parquet" if file.suffix.lower() in _PARQUET else "CSV"
        if kind == "Parquet":
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
        raw = relation
        try:
            if kind == "CSV" and not self._keeps_spaces(keep_spaces):
                raw = f"{relation}__raw"
                self.con.execute(f"CREATE OR REPLACE VIEW {raw} AS {select}")
                names = [row[0] for row in self.con.execute(f"DESCRIBE {raw}").fetchall() if row[0] != "__rid"]
                trimmed = ", ".join(f"{sql_trim(self.q(c))} AS {self.q(c)}" for c in names)
                select = f"SELECT {trimmed}, __rid FROM {raw}"
            self.con.execute(f"CREATE OR REPLACE VIEW {relation} AS {select}")
            columns = [row[0] for row in self.con.execute(f"DESCRIBE {relation}").fetchall()]
        except self._duckdb.Error as exc:
            raise InputError(f"not a readable {kind} file ({first_line(exc)})", file=str(path)) from None
        return Scan(relation, [c for c in columns if c != "__rid"], kind, str(path), raw)
