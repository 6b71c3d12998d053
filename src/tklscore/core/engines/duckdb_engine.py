"""The out-of-core back-end: the plan's group-bys run by DuckDB over Parquet/CSV files,
under a memory limit (DuckDB spills to a temporary folder), never loaded into pandas.

Every connection is made by :func:`connect` and is offline: DuckDB never installs or
loads an extension by itself (its auto-install downloads native code) and has no HTTP
file system. A CSV file in an encoding other than UTF-8 is decoded by our own decoder
into a UTF-8 copy in the work folder (DuckDB's own encodings are an extension). The work
folder (``tklscore-duckdb-PID-XXXX`` in the temporary folder: the database, its spill
files, decoded copies) is removed when the back-end closes or the process exits, and one
whose process has gone (killed) is swept by the next back-end. Outputs are written
through :mod:`tklscore.core.files.atomic`. A statement that runs out of memory is said as
such (:meth:`DuckDBBackend.out_of_memory`: the limit, the memory and disk left), never as
a damaged or unreadable file.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
import weakref
from pathlib import Path

import pandas as pd

from tklscore.core.engines.backend import Backend, Scan, check_engine_file, first_line, memory_bytes
from tklscore.core.engines.choice import available_memory
from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.atomic import atomic_path, is_disk_full, write_error
from tklscore.core.tables.loading import binary_size
from tklscore.core.tables.spaces import split_delimiter, sql_trim

_PARQUET = {".parquet", ".pq"}
WORK_PREFIX = "tklscore-duckdb-"
_OWNER = "owner"            # in a work folder: "PID START" of the process that made it
UNCOMPRESSED_ROW_BYTES = 400
"""What a kept relation of a source's rows takes a row as a temporary table (uncompressed):
the generalised source, its combinations and the release's coded combinations live at once,
about 200-250 MB more than compressed at 1M rows (peak RSS of the first design evaluation ≈ 480 →
650-740 MB)."""

UNCOMPRESSED_SHARE = 0.25
"""The share of the memory limit the uncompressed relations may take: beyond it they would
spill to disk, which costs more than compressing (+15 % CPU at 10M rows under 2 GB)."""

# no extension is installed or loaded behind the user's back, none from the community, and no HTTP(S)/S3 reads
STATEMENT_TIMES = bool(os.environ.get("TKLSCORE_STATEMENT_TIMES"))   # profile: each statement's time on stderr
OFFLINE = {"autoinstall_known_extensions": False, "autoload_known_extensions": False,
           "allow_community_extensions": False}


def connect(database: str = ":memory:"):
    """A DuckDB connection that never reaches the network (see the module's text)."""
    import duckdb

    con = duckdb.connect(database, config=dict(OFFLINE))
    con.execute("SET disabled_filesystems = 'HTTPFileSystem'")
    # DuckDB draws a progress bar on stdout (even into a pipe) for a statement of more than 2 s,
    # inside the JSON or CSV a command writes there
    con.execute("SET enable_progress_bar = false")
    # a Parquet writer leaves NaN out of a float column's min/max (the format says so); DuckDB
    # since 1.4 trusts such bounds unless told NaN may be present, and then folds isnan(x) and
    # x <> x to false, so a NaN cell read as a number instead of as an empty one
    # (duckdb/duckdb#25521); 1.3 always assumed NaN present and has no such setting
    if _has_setting(con, "parquet_can_have_nan"):
        con.execute("SET parquet_can_have_nan = true")
    return con


_SETTINGS: dict[str, bool] = {}


def _has_setting(con, name: str) -> bool:
    """Whether this DuckDB has the setting ``name``: asked once a process (the query of its
    settings took 5 ms of CPU, a sixth of a connection's making)."""
    if name not in _SETTINGS:
        _SETTINGS[name] = bool(con.execute("SELECT COUNT(*) FROM duckdb_settings() WHERE name = ?", [name]).fetchone()[0])
    return _SETTINGS[name]


def _started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, Linux), to tell it from a later
    process given the same number; None where unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


STALE_UNOWNED_SECONDS = 24 * 3600


def _unowned_and_stale(folder: Path) -> bool:
    """A folder an older release made, before folders carried their process id: removed
    once nothing in it has changed for a day (a session that old has ended)."""
    if (folder / _OWNER).exists():
        return False
    try:
        newest = max([folder.stat().st_mtime] + [e.stat(follow_symlinks=False).st_mtime
                                                  for e in os.scandir(folder)])
    except OSError:
        return False
    return time.time() - newest > STALE_UNOWNED_SECONDS


def _owner_gone(folder: Path) -> bool:
    match = re.match(rf"{re.escape(WORK_PREFIX)}(\d+)-", folder.name)
    if match is None:
        return _unowned_and_stale(folder)
    pid = int(match.group(1))
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # somebody else's live process
        return False
    with contextlib.suppress(OSError, ValueError):
        recorded_pid, recorded_start = (folder / _OWNER).read_text(encoding="ascii").split()
        started = _started(pid)
        return int(recorded_pid) == pid and started is not None and started != recorded_start
    return False


def sweep_work_folders(parent: str | os.PathLike | None = None) -> list[Path]:
    """Remove the work folders of back-ends whose process has ended (killed before it
    could remove its own); returns what was removed."""
    parent = Path(parent or tempfile.gettempdir())
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            if entry.name.startswith(WORK_PREFIX) and entry.is_dir(follow_symlinks=False) \
                    and _owner_gone(Path(entry.path)):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(Path(entry.path))
    return removed


def _make_work_folder() -> Path:
    sweep_work_folders()
    folder = Path(tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}-"))
    (folder / _OWNER).write_text(f"{os.getpid()} {_started(os.getpid()) or '-'}\n", encoding="ascii")
    return folder


def _remove_work_folder(con, folder: Path) -> None:
    with contextlib.suppress(Exception):
        con.close()
    shutil.rmtree(folder, ignore_errors=True)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_OUT_OF_MEMORY = ("out of memory error", "could not allocate block", "failed to allocate")


def is_out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is DuckDB running out of its memory limit (``OutOfMemoryException``,
    or another error class whose text says it could not allocate), not a fault of a file."""
    import duckdb

    kind = getattr(duckdb, "OutOfMemoryException", None)
    return (kind is not None and isinstance(error, kind)) or any(t in str(error).lower() for t in _OUT_OF_MEMORY)


class DuckDBBackend(Backend):
    name = "duckdb"
    holds_files = True

    def __init__(self, memory_limit: str | None = None, threads: int | None = None):
        try:
            import duckdb
        except ImportError:
            raise InputError("the out-of-core engine needs DuckDB: pip install duckdb "
                             "(or pip install 'tklscore[duckdb]')") from None
        self._duckdb = duckdb
        self.folder = _make_work_folder()
        try:
            self.con = connect(str(self.folder / "work.duckdb"))
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        # removed on close, when the back-end is collected, or at the latest when the process exits
        self._finalizer = weakref.finalize(self, _remove_work_folder, self.con, self.folder)
        self.inputs: list[str] = []   # every file scanned: an output never replaces one
        # each relation made here and its kind ('TABLE', 'TEMP TABLE', 'TEMP VIEW'): a temporary
        # relation shadows a table of its name, so a name changing kind drops the other one
        self._made: dict[str, str] = {}
        self._uncompressed = False    # :meth:`materialize` writes temporary tables (:meth:`expect_rows`)
        self._catalog = self.con.execute("SELECT current_database()").fetchone()[0]
        self._decoded = 0
        self.con.execute(f"SET temp_directory = {_literal(str(self.folder / 'spill'))}")
        self.con.execute("SET preserve_insertion_order = false")
        # memory a finished statement freed is given back to the system while the process works
        # in Python (jemalloc purges only from DuckDB's own threads otherwise: after an
        # out-of-core suggest's statements at 2M rows, 371 MB resident against 241 MB)
        self.con.execute("SET allocator_background_threads = true")
        self._memory_limit = memory_limit
        self._lowered: int | None = None    # the limit engine_memory set, in bytes (None: as opened)
        if memory_limit:
            self.con.execute(f"SET memory_limit = {_literal(memory_limit)}")
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")

    def interrupt(self) -> None:
        self.con.interrupt()

    def engine_memory(self, limit: int | None) -> bool:
        try:
            if limit is not None:
                mib = max(int(limit) >> 20, 1)
                self.con.execute(f"SET memory_limit = {_literal(f'{mib}MiB')}")
            elif self._memory_limit:
                self.con.execute(f"SET memory_limit = {_literal(self._memory_limit)}")
            else:
                self.con.execute("RESET memory_limit")
        except self._duckdb.Error:     # buffers that cannot be given back (pinned): the limit as it was
            return False
        self._lowered = None if limit is None else mib << 20
        return True

    def close(self) -> None:
        self._finalizer()

    # ------------------------------------------------------------------ primitives

    @contextlib.contextmanager
    def _memory_said(self, doing: str | None = None):
        """Out of memory in the statements run within: :meth:`out_of_memory` (``doing``: what
        the statement does, in words; else it works on the files scanned)."""
        try:
            yield
        except self._duckdb.Error as exc:
            if is_out_of_memory(exc):
                raise self.out_of_memory(exc, doing) from None
            raise

    def out_of_memory(self, error: BaseException, doing: str | None = None) -> InputError:
        """The error for DuckDB running out of memory while ``doing``: the limit it ran out under
        (the engine's share of ``--memory-limit`` while a search holds the rest, or DuckDB's
        default), the memory the machine has available and the disk free for its spill: the
        files are fine, the limit or the machine too small for the work."""
        files = [f for f in dict.fromkeys(self.inputs) if not Path(f).is_relative_to(self.folder)]
        doing = doing or (f"working on {' and '.join(files)}" if files else "working")
        if self._memory_limit:
            given = int(self._memory_limit.removesuffix("MiB")) << 20
            limit = f"{binary_size(self._lowered)} (the engine's share of --memory-limit {binary_size(given)})" \
                if self._lowered not in (None, given) else f"{binary_size(given)} (--memory-limit)"
        else:
            try:
                now = self.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
            except self._duckdb.Error:
                now = None
            limit = f"{now} (DuckDB's default: 80 % of the machine's memory)" if now else "DuckDB's default"
        spill = self.folder.parent
        try:
            free = f" ({binary_size(shutil.disk_usage(spill).free)} free)"
        except OSError:
            free = ""
        return InputError(f"DuckDB ran out of memory while {doing}, under its memory limit of {limit}: nothing is "
                          f"wrong with the files, the limit is too small for this work ({first_line(error)})",
                          hint=f"give a larger --memory-limit (this machine has {binary_size(available_memory())} of "
                               f"memory available now), or free disk in {spill} for DuckDB's spill{free}")

    def _timed(self, what: str, sql: str, run, doing: str | None = None):
        """``run()``, its running out of memory said (:meth:`_memory_said`); with
        ``$TKLSCORE_STATEMENT_TIMES`` set, its wall and CPU seconds and the statement's start
        written to stderr (a profile of the plan, statement by statement)."""
        with self._memory_said(doing):
            if not STATEMENT_TIMES:
                return run()
            import sys

            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return run()
            finally:
                shown = " ".join(sql.split())
                print(f"[statement] {time.perf_counter() - wall:7.3f} s wall {time.process_time() - cpu:7.3f} s CPU "
                      f"{what}: {shown[:160]}", file=sys.stderr, flush=True)

    def fetch(self, sql: str, params=None) -> pd.DataFrame:
        return self._timed("fetch", sql, lambda: self.con.execute(sql, list(params) if params else None).df())

    def fetch_arrow(self, sql: str):
        def run():
            relation = self.con.sql(sql)
            return relation.to_arrow_table() if hasattr(relation, "to_arrow_table") else relation.arrow()
        return self._timed("fetch_arrow", sql, run)

    def fetch_batches(self, sql: str, rows: int):
        with self._memory_said():
            reader = self.con.sql(sql).to_arrow_reader(max(1, int(rows)))
            try:
                yield from reader
            finally:
                reader.close()

    def expect_rows(self, rows: int) -> None:
        """Relations of a source of ``rows`` rows kept as temporary tables when they fit
        :data:`UNCOMPRESSED_SHARE` of the memory limit (DuckDB's default: 80 % of the machine's
        memory), else as compressed tables of the work database. A temporary table is written
        for about half the CPU and read a little slower: the first design evaluation of 1M rows
        took 7-8 % less CPU (the aggregate itself stays compressed: read by many statements, and
        copied to the cache; as a temporary table at 1M rows it was written for 0.6 CPU-s less, and
        its readers took about as much more)."""
        self._uncompressed = rows * UNCOMPRESSED_ROW_BYTES <= UNCOMPRESSED_SHARE * memory_bytes(self.memory_limit)

    def materialize(self, name: str, sql: str, params=None) -> None:
        # a table of the work database, compressed, unless :meth:`expect_rows` found the relations
        # small: then a temporary one (not compressed; 2-3x less CPU to write, spills when large)
        kind = self._making(name, "TEMP TABLE" if self._uncompressed else "TABLE")
        self._timed(name, sql, lambda: self.con.execute(f"CREATE OR REPLACE {kind} {name} AS {sql}",
                                                        list(params) if params else None))

    def _making(self, name: str, kind: str) -> str:
        """``kind``, once the relation of ``name`` of another kind is dropped."""
        if self._made.get(name, kind) != kind:
            self.drop(name)
        self._made[name] = kind
        return kind

    def materialize_joined(self, name: str, sql: str) -> None:
        self.con.execute("SET disabled_optimizers = 'join_order'")
        try:
            self.materialize(name, sql)
        finally:
            self.con.execute("RESET disabled_optimizers")

    def view(self, name: str, sql: str) -> None:
        self.drop(name)    # a table, or a view, of the name
        self.con.execute(f"CREATE TEMP VIEW {name} AS {sql}")
        self._made[name] = "TEMP VIEW"

    def rename(self, name: str, new: str) -> None:
        """No copy: the table renamed in its catalog."""
        self.drop(new)
        kind = self._made.pop(name, "TABLE")
        self.con.execute(f"ALTER TABLE {name} RENAME TO {new}")
        self._made[new] = kind

    def drop(self, name: str) -> bool:
        kind = self._made.pop(name, "TABLE")
        where = f'"{self._catalog}"' if kind == "TABLE" else "temp"
        self.con.execute(f"DROP {'VIEW' if kind == 'TEMP VIEW' else 'TABLE'} IF EXISTS {where}.main.{name}")
        return True

    def held_file(self, path: str) -> str | None:
        """A hard link in the work folder (the same file system), else a copy (a file of a
        cache: ~12 bytes a combination, ~0.2 s per 100 MB); None where neither can be made."""
        source = Path(path)
        held = self.folder / f"held-{len(list(self.folder.glob('held-*')))}{source.suffix}"
        try:
            os.link(source, held)
        except OSError:
            try:
                shutil.copyfile(source, held)
            except OSError:
                held.unlink(missing_ok=True)
                return None
        return str(held)

    def register(self, name: str, frame: pd.DataFrame) -> None:
        self.con.register(f"{name}_frame", frame)
        with self._memory_said():
            self.con.execute(f"CREATE OR REPLACE {self._making(name, 'TABLE')} {name} AS SELECT * FROM {name}_frame")
        self.con.unregister(f"{name}_frame")

    def write_parquet(self, sql: str, path: str, reads: str | None = None) -> None:
        self._copy(sql, path, "FORMAT PARQUET", reads)

    def spreadsheet_safe_sql(self, text: str) -> str:
        """The SQL of :func:`tklscore.core.files.records.spreadsheet_safe` on the text ``text``."""
        from tklscore.core.files.records import FORMULA_STARTS, PLAIN_NUMBER

        starts = "^[" + re.escape(FORMULA_STARTS) + "]"
        return (f"CASE WHEN regexp_matches({text}, {_literal(starts)}) AND NOT "
                f"regexp_full_match({text}, {_literal(PLAIN_NUMBER)}) THEN concat(chr(39), {text}) ELSE {text} END")

    def write_csv(self, sql: str, path: str) -> None:
        """The rows of ``sql`` as CSV (a header line, comma-separated, quoted only where
        needed; NULL as an empty cell), atomically."""
        self._copy(sql, path, "FORMAT CSV, HEADER true, DELIMITER ',', QUOTE '\"', ESCAPE '\"'")

    def _copy(self, sql: str, path: str, options: str, reads: str | None = None) -> None:
        """``COPY`` the rows of ``sql`` to ``path`` through :func:`~tklscore.core.files.atomic.atomic_path`
        (never over an input; the mode kept; a full disk said as such, the old file kept; the
        partial file never left). ``reads``: the file ``sql`` reads, which an error that is the
        file's (DuckDB's reader failing on it: not a full disk, not naming the file written, not
        memory running out) names as damaged."""
        doing = f"reading {reads} and writing {path}" if reads is not None else f"writing {path}"
        with atomic_path(path, self.inputs) as temporary:
            try:
                self._timed("copy", sql, lambda: self.con.execute(
                    f"COPY ({sql}) TO {_literal(str(temporary))} ({options}, USE_TMP_FILE false)"), doing)
            except self._duckdb.Error as exc:
                if is_disk_full(exc):
                    raise write_error(exc, str(path)) from None
                if reads is not None and str(temporary) not in str(exc):
                    raise InputError(f"cannot be read: a part of the file is damaged ({first_line(exc)})",
                                     file=str(reads), hint="write the file again from its origin") from None
                raise InputError(f"cannot be written ({first_line(exc).replace(str(temporary), str(path))})",
                                 file=str(path)) from None

    def _decoded_copy(self, file: Path, encoding: str, given: str) -> Path:
        """A UTF-8 copy of the CSV ``file`` in the work folder, decoded by our decoder."""
        from tklscore.core.files.text import transcode_to_utf8

        self._decoded += 1
        copy = self.folder / f"decoded-{self._decoded}.csv"
        try:
            transcode_to_utf8(file, copy, encoding, given)
        except OSError as error:
            copy.unlink(missing_ok=True)
            if is_disk_full(error):
                raise InputError(f"disk full writing the decoded copy of the file in {self.folder.parent} "
                                 f"(no space left on the device)", file=given,
                                 hint="free some space in the temporary folder, or save the file as UTF-8") from None
            raise InputError(f"cannot be read: {error.strerror or error}", file=given) from None
        return copy

    def scan(self, path: str, delimiter: str | None = None, encoding: str | None = None,
             relation: str = "__scan", keep_spaces: bool | None = None) -> Scan:
        delimiter = split_delimiter(delimiter)[0]
        file = existing_file(path, "table file")
        kind = "Parquet" if file.suffix.lower() in _PARQUET else "CSV"
        check_engine_file(str(path), kind, delimiter, encoding, self.name)
        self.inputs.append(str(path))
        read = file
        if kind == "Parquet":
            scan = f"read_parquet({_literal(str(file))}, file_row_number = true)"
            select = f"SELECT * EXCLUDE (file_row_number), file_row_number AS __rid FROM {scan}"
        else:
            options = ["header = true", "all_varchar = true", "quote = '\"'", "escape = '\"'"]
            if delimiter:
                options.append(f"delim = {_literal(delimiter)}")
            if encoding and encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
                read = self._decoded_copy(file, encoding, str(path))
            scan = f"read_csv({_literal(str(read))}, {', '.join(options)})"
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
            if is_out_of_memory(exc):
                raise self.out_of_memory(exc, f"reading {path}") from None
            reason = first_line(exc).replace(str(read), str(path)).replace(str(self.folder), "(work folder)")
            raise InputError(f"not a readable {kind} file ({reason})", file=str(path)) from None
        return Scan(relation, [c for c in columns if c != "__rid"], kind, str(path), raw)
