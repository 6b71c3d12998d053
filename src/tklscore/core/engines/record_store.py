"""Per-record results kept on disk: a Parquet file (or a folder of part files written by
Spark) that an engine wrote, and a handle that answers the questions a view or a writer
asks of it — how many records, the first rows, a page in published order or sorted by a
column, the riskiest records, evenly spaced points for a chart, the running scores — and
writes it as CSV, JSON or Parquet batch by batch. No question reads the whole table into
memory: pages in published order are read from the row groups that hold them (Arrow),
sorted ones by a DuckDB query over the file (values and paths as ``?`` parameters; column
names only from :data:`~tklscore.core.scoring.scores.RECORD_COLUMNS`).

A store made by :meth:`RecordStore.in_work_folder` owns its folder (in the temporary folder,
named as the DuckDB back-end's work folders, so that a killed process's is swept): it is
removed when the store is closed or collected, or at the latest when the process exits.
"""

from __future__ import annotations

import math
import shutil
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError
from tklscore.core.scoring.scores import RECORD_COLUMNS, m_score_table, riskiest_count

POSITION = "position"   # the record's 0-based place in the published order, beside every row read
BATCH_ROWS = 65_536     # rows per batch when a store is written out or streamed
QUERY_MEMORY = "256MiB"  # DuckDB's limit for a sorted query over the file (it spills beyond it)


@dataclass(frozen=True)
class RiskiestBorder:
    """The riskiest ``count`` records by tkl record score (ties: the earlier published
    first): a record is among them when its tkl is above ``tkl``, or equal to it and its
    position at most ``position``."""

    count: int
    tkl: float
    position: int

    def mask(self, tkl, positions) -> np.ndarray:
        tkl, positions = np.asarray(tkl, dtype=np.float64), np.asarray(positions, dtype=np.int64)
        if self.count == 0:
            return np.zeros(len(tkl), dtype=bool)
        return (tkl > self.tkl) | ((tkl == self.tkl) & (positions <= self.position))


def _parts(path: Path) -> list[Path]:
    """The Parquet files of ``path``: itself, or a folder's part files in name order (the
    order Spark wrote them: the published order)."""
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix.lower() in (".parquet", ".pq")
                      and not p.name.startswith(("_", ".")) and p.is_file())
    return [path]


class RecordStore:
    """The per-record results at ``path`` (see the module's text); ``folder``: a folder the
    store owns and removes when closed."""

    def __init__(self, path, folder: Path | None = None, memory_limit: str = QUERY_MEMORY):
        import pyarrow.parquet as pq

        self.path = Path(path)
        self.folder = folder
        self.memory_limit = memory_limit
        self._lock = threading.Lock()
        self._con = None
        self._finalizer = weakref.finalize(self, _remove, None, folder)
        try:
            self.files = _parts(self.path)
            groups = []   # (file, row group, first position, rows)
            start = 0
            for file in self.files:
                meta = pq.ParquetFile(file).metadata
                for g in range(meta.num_row_groups):
                    rows = meta.row_group(g).num_rows
                    groups.append((file, g, start, rows))
                    start += rows
            self.columns = list(pq.ParquetFile(self.files[0]).schema_arrow.names) if self.files else list(RECORD_COLUMNS)
        except (OSError, ValueError) as error:
            raise InputError(f"the per-record results cannot be read ({error})", file=str(path)) from None
        self._groups = groups
        self.rows = start

    @classmethod
    def in_work_folder(cls, write, name: str = "records.parquet") -> "RecordStore":
        """A store in a folder of its own: ``write(path)`` fills ``path`` (an engine's
        ``write_parquet``); the folder is removed if that fails."""
        from tklscore.core.engines.duckdb_engine import _make_work_folder

        from tklscore.core.files.atomic import is_disk_full

        folder = _make_work_folder()
        try:
            write(str(folder / name))
            return cls(folder / name, folder)
        except BaseException as error:
            shutil.rmtree(folder, ignore_errors=True)
            if is_disk_full(error) or (isinstance(error, InputError) and error.message.startswith("disk full")):
                raise InputError(f"disk full keeping the per-record results in the temporary folder {folder.parent} "
                                 f"(no space left on the device); the source and the earlier outputs are untouched",
                                 hint="free some space there, or point TMPDIR to a larger disk") from None
            raise

    @classmethod
    def merged(cls, tkl: "RecordStore", m_score: "RecordStore", l_severity: "RecordStore") -> "RecordStore":
        """One store of a release scored three times, each score with its own weights
        (:func:`~tklscore.core.scoring.scores.merge_reports`): ``tkl``'s records with
        M-Score's and L-Severity's record scores from the other two, batch by batch."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        def write(path: str) -> None:
            writer = None
            try:
                start = 0
                for batch in tkl.batches():
                    n = len(batch)
                    batch["m_score"] = m_score.page(start, n)["m_score"].to_numpy()
                    batch["l_severity"] = l_severity.page(start, n)["l_severity"].to_numpy()
                    table = pa.Table.from_pandas(batch, preserve_index=False)
                    writer = writer or pq.ParquetWriter(path, table.schema)
                    writer.write_table(table)
                    start += n
                if writer is None:
                    pq.write_table(pa.Table.from_pandas(tkl.read_all(), preserve_index=False), path)
            finally:
                if writer is not None:
                    writer.close()
        return cls.in_work_folder(write)

    def __len__(self) -> int:
        return self.rows

    def close(self) -> None:
        with self._lock:
            con, self._con = self._con, None
        if con is not None:
            con.close()
        self._finalizer()

    # ------------------------------------------------------------------ published order

    def batches(self, columns: list[str] | None = None, batch_rows: int | None = None) -> Iterator[pd.DataFrame]:
        """Every record in published order, ``batch_rows`` (:data:`BATCH_ROWS`) at a time, as frames."""
        import pyarrow.parquet as pq

        columns = list(columns or self.columns)
        for file in self.files:
            for batch in pq.ParquetFile(file).iter_batches(batch_size=batch_rows or BATCH_ROWS, columns=columns):
                yield _frame(batch)

    def page(self, offset: int, limit: int, order: str | None = None, descending: bool = False) -> pd.DataFrame:
        """``limit`` records from ``offset`` (0-based) in published order, or sorted by the
        column ``order`` (ties: the earlier published first), with their :data:`POSITION`."""
        offset, limit = max(0, int(offset)), max(0, int(limit))
        if order is not None:
            return self.sorted_page(((order, descending),), offset, limit)
        import pyarrow as pa
        import pyarrow.parquet as pq

        end = min(self.rows, offset + limit)
        pieces, first = [], None
        for file, g, start, rows in self._groups:
            if start + rows <= offset or start >= end:
                continue
            first = start if first is None else first
            pieces.append(pq.ParquetFile(file).read_row_group(g, columns=self.columns))
        if not pieces:
            return self._empty()
        table = pa.concat_tables(pieces).slice(offset - first, end - offset)
        frame = _frame(table)
        frame[POSITION] = np.arange(offset, end, dtype=np.int64)
        return frame

    def head(self, n: int) -> pd.DataFrame:
        return self.page(0, n)

    # ------------------------------------------------------------------ sorted (DuckDB over the file)

    def sorted_page(self, keys, offset: int, limit: int, columns: list[str] | None = None) -> pd.DataFrame:
        """``limit`` records from ``offset`` in the order of ``keys`` ((column, descending)
        pairs), ties by position."""
        order = self._order_sql(keys)
        names = self._names(columns)
        return self._query(f"SELECT {names}, {POSITION} FROM __records ORDER BY {order} LIMIT ? OFFSET ?",
                           [int(limit), int(offset)])

    def top(self, n: int, by: str = "tkl") -> pd.DataFrame:
        """The ``n`` records with the highest ``by`` (ties: the earlier published first)."""
        return self.sorted_page(((by, True),), 0, n)

    def riskiest(self, share: float | None = None) -> RiskiestBorder:
        """Where the riskiest records by tkl end (:func:`~tklscore.core.scoring.scores.riskiest_count`)."""
        count = riskiest_count(self.rows) if share is None else riskiest_count(self.rows, share)
        if count == 0:
            return RiskiestBorder(0, math.inf, -1)
        last = self.sorted_page((("tkl", True),), count - 1, 1, ["tkl"]).iloc[0]
        return RiskiestBorder(count, float(last["tkl"]), int(last[POSITION]))

    def at_ranks(self, keys, ranks, columns: list[str] | None = None) -> pd.DataFrame:
        """The records at 0-based ``ranks`` of the order of ``keys`` (a chart's evenly spaced
        points), in rank order, with their ``rank``. Only the sort keys and positions are
        ranked (a narrow sort that spills under the limit); the rows are joined back."""
        ranks = pd.DataFrame({"rank": np.asarray(ranks, dtype=np.int64)})
        order = self._order_sql(keys)
        sort_columns = ", ".join(dict.fromkeys([_column(c) for c, _descending in keys] + [POSITION]))
        names = ", ".join(f"r.{_column(c)}" for c in (columns or self.columns))
        sql = (f"SELECT {names}, r.{POSITION}, k.rank FROM (SELECT {POSITION}, ROW_NUMBER() OVER (ORDER BY {order}) "
               f"- 1 AS rank FROM (SELECT {sort_columns} FROM __records) AS s) AS k JOIN __ranks USING (rank) "
               f"JOIN __records AS r USING ({POSITION}) ORDER BY k.rank")
        return self._query(sql, [], {"__ranks": ranks})

    def cumulative_at(self, positions, x: float) -> dict[str, np.ndarray]:
        """tkl-Score, M-Score and L-Severity of the first p+1 published records for each
        ``p`` of ``positions`` (ascending): :func:`~tklscore.core.scoring.scores.cumulative_table_scores`
        at those points, read batch by batch (the same sums, added in the same order)."""
        positions = np.asarray(positions, dtype=np.int64)
        out = {k: np.empty(len(positions)) for k in ("tkl", "m_score_max", "l_severity")}
        carry = {"tkl": 0.0, "l_severity": 0.0, "m_score_max": -math.inf}
        start = 0
        for batch in self.batches(["tkl", "m_score", "l_severity"]):
            n = len(batch)
            running = {
                "tkl": np.cumsum(np.concatenate(([carry["tkl"]], batch["tkl"].to_numpy(np.float64))))[1:],
                "l_severity": np.cumsum(np.concatenate(([carry["l_severity"]],
                                                        batch["l_severity"].to_numpy(np.float64))))[1:],
                "m_score_max": np.maximum.accumulate(np.concatenate(([carry["m_score_max"]],
                                                                     batch["m_score"].to_numpy(np.float64))))[1:],
            }
            inside = (positions >= start) & (positions < start + n)
            for key, values in running.items():
                out[key][inside] = values[positions[inside] - start]
                carry[key] = values[-1] if n else carry[key]
            start += n
        count = (positions + 1).astype(np.float64)
        return {"tkl": out["tkl"], "m_score": m_score_table(count, out["m_score_max"], x),
                "l_severity": out["l_severity"]}

    def _names(self, columns) -> str:
        chosen = list(columns or [c for c in self.columns])
        return ", ".join(_column(c) for c in chosen)

    def _order_sql(self, keys) -> str:
        parts = [f"{_column(c)} {'DESC' if descending else 'ASC'}" for c, descending in keys]
        return ", ".join(parts + [f"{POSITION} ASC"])

    def _connection(self):
        if self._con is None:
            from tklscore.core.engines.duckdb_engine import _literal as sql_text, _make_work_folder, connect

            if self.folder is None:   # a store over a user's file: spills go to a folder of its own
                self.folder = _make_work_folder()
                self._finalizer.detach()
                self._finalizer = weakref.finalize(self, _remove, None, self.folder)
            con = connect()
            con.execute(f"SET temp_directory = {sql_text(str(self.folder / 'spill'))}")
            con.execute(f"SET memory_limit = {sql_text(self.memory_limit)}")
            con.execute("SET threads = 2")
            offsets, start = [], 0
            for file in self.files:
                offsets.append((str(file), start))
                start += sum(rows for f, _g, _s, rows in self._groups if f == file)
            con.register("__offsets_frame", pd.DataFrame(offsets, columns=["filename", "start"]))
            con.execute("CREATE TABLE __offsets AS SELECT * FROM __offsets_frame")
            con.unregister("__offsets_frame")
            self._con = con
        return self._con

    def _query(self, sql: str, params: list, frames: dict | None = None) -> pd.DataFrame:
        """``sql`` over ``__records`` (the records with their position); the files are the
        first parameter, ``params`` the others."""
        names = ", ".join(f"p.{_column(c)}" for c in self.columns)
        records = (f"WITH __records AS (SELECT {names}, o.start + p.file_row_number AS {POSITION} "
                   f"FROM read_parquet(?, filename = true, file_row_number = true) AS p "
                   f"JOIN __offsets AS o ON p.filename = o.filename) ")
        with self._lock:
            cursor = self._connection().cursor()
            try:
                for name, frame in (frames or {}).items():
                    cursor.register(name, frame)
                return _frame(cursor.sql(records + sql, params=[[str(f) for f in self.files]] + list(params)).to_arrow_table())
            finally:
                cursor.close()

    def _empty(self) -> pd.DataFrame:
        frame = pd.DataFrame({c: pd.Series(dtype=np.float64) for c in self.columns})
        frame[POSITION] = pd.Series(dtype=np.int64)
        return frame

    # ------------------------------------------------------------------ written out

    def read_all(self) -> pd.DataFrame:
        """Every record as one frame (small releases only: tests, the in-memory comparisons)."""
        frames = list(self.batches())
        return pd.concat(frames, ignore_index=True) if frames else self._empty().drop(columns=[POSITION])


def _frame(table) -> pd.DataFrame:
    """An Arrow table or batch as the records' frame: ids as text objects, k and l integers."""
    frame = table.to_pandas()
    if "id" in frame.columns:
        frame["id"] = frame["id"].astype(object)
    return frame


def _column(name: str) -> str:
    if name not in RECORD_COLUMNS and name != POSITION:
        raise ValueError(f"no per-record column {name!r}")
    return '"' + name + '"'


def _remove(con, folder: Path | None) -> None:
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
