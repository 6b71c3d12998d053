"""What every engine back-end shares: the inputs of the plan made from files, in SQL that
DuckDB and Spark SQL both run. A back-end (:mod:`.duckdb_engine`, :mod:`.spark_engine`)
provides only the primitives — :meth:`Backend.scan` (a file as a relation with ``__rid``,
its 0-based record position), :meth:`~Backend.fetch` (and :meth:`~Backend.fetch_arrow`), :meth:`~Backend.materialize`,
:meth:`~Backend.register`, :meth:`~Backend.write_parquet` — and this class builds from them

- ``src(rid, id, q0.., s0..)``: the source's roles (categorical values as text, missing:
  the empty text; continuous ones as numbers, an error naming the first record that holds
  no number);
- ``published(pos, id)``: the published records in published order, from an identifier
  column, from ids, or — without an identifier — by matching every column of the
  published file as a multiset, each published row taking a distinct source row with the
  same values (the k-th occurrence of a row takes the k-th such source row), as
  :func:`tklscore.core.tables.published.locate_table` does in memory.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import pandas as pd

from tklscore.core.engines.columns import ColumnRules
from tklscore.core.errors import InputError
from tklscore.core.tables.roles import Roles


@dataclass(frozen=True)
class Scan:
    """A file registered as the relation ``relation`` (its columns and ``__rid``)."""

    relation: str
    columns: list[str]
    kind: str           # "Parquet" or "CSV"
    path: str
    raw_relation: str = ""   # the cells as the file holds them (a CSV's spaces around values kept)
    # each column's type, whether an integer column holds a missing cell and how a float column's first
    # zero is written, each read once (Backend.column_text)
    kinds: dict = field(default_factory=dict, compare=False, repr=False)
    missing: dict = field(default_factory=dict, compare=False, repr=False)
    zeros: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def header_rows(self) -> int:
        """Rows before the first record, for the row number a user sees (as ``Table.row_number``)."""
        return 2 if self.kind == "CSV" else 1


def memory_bytes(limit: int | None) -> int:
    """A memory limit in bytes: ``limit``, or without one the engines' default, 80 % of the
    machine's memory (DuckDB's; on a machine without ``sysconf`` that of 8 GB)."""
    if limit is not None:
        return int(limit)
    try:
        return int(0.8 * os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        return int(0.8 * (8 << 30))


ENGINE_SHARE = 0.125
"""The share of a memory limit kept free of what the process holds and of the engine's own
limit: the engine's overshoot beyond that limit (what its allocator keeps), the interpreter's
growth while a statement runs; and, while the out-of-core search holds its arrays, the least
the engine is given (:mod:`.lattice`)."""


IDLE_ENGINE_BYTES = 1 << 20
"""The engine's limit for a moment before it is idle a long while (:meth:`Backend.idle_engine`):
every buffer it keeps but the pinned ones given back."""


def resident_bytes() -> int | None:
    """The process's resident memory (Linux's ``/proc/self/statm``; None elsewhere)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def beyond_engine(memory_limit: int, resident: int) -> int:
    """The bytes of a memory limit left beyond :data:`ENGINE_SHARE` of it and what the process
    holds (``resident``)."""
    return int((1.0 - ENGINE_SHARE) * memory_limit) - resident


def engine_limit(memory_limit: int, held: int) -> int:
    """The engine's own limit for its next statements while the process holds ``held`` bytes
    beside it: the rest of the memory limit (:func:`beyond_engine`), at least
    :data:`ENGINE_SHARE` of it (where the process holds nearly all, the engine still works,
    spilling more)."""
    return max(beyond_engine(memory_limit, held), int(ENGINE_SHARE * memory_limit))


@contextlib.contextmanager
def engine_bounded(backend: "Backend", holding: int = 0):
    """The statements inside within what the process leaves the engine beside ``holding`` bytes
    more (:meth:`Backend.bound_engine`), its limit as opened again afterwards, also after an error."""
    bounded = backend.bound_engine(holding)
    try:
        yield bounded
    finally:
        if bounded:
            backend.engine_memory(None)


class Backend(ColumnRules):
    """An engine: the primitives below, and the plan's inputs built from them."""

    name = "engine"
    quote_char = '"'            # how the engine quotes a column name
    float_text_exact = True     # CAST(DOUBLE AS STRING) writes a float as Python does (the loader's text)
    unmatched_rows: list[int] = []
    few_statements = False      # each statement costs a job (Spark): a plan asks for fewer, larger ones
    holds_files = False         # :meth:`held_file` gives a path: a relation may be a view over a file it wrote
    keep_spaces = False         # a CSV's spaces around values kept (core/tables/spaces.py: stripped by default)
    memory_limit: int | None = None   # the --memory-limit in bytes (None: none given)

    # ------------------------------------------------------------------ primitives

    def fetch(self, sql: str, params=None) -> pd.DataFrame:  # pragma: no cover - interface
        """The rows of ``sql``; ``params`` are the values of its ``?`` markers, in order."""
        raise NotImplementedError

    def fetch_arrow(self, sql: str):
        """The rows of ``sql`` as an Arrow table, typed as the engine read them."""
        import pyarrow as pa

        return pa.Table.from_pandas(self.fetch(sql), preserve_index=False)

    def arrow_schema(self, sql: str):
        """The Arrow schema of the rows of ``sql`` (no LIMIT in it) as :meth:`fetch_arrow` types them, no row read."""
        return self.fetch_arrow(f"{sql} LIMIT 0").schema

    def fetch_batches(self, sql: str, rows: int):
        """The rows of ``sql`` as Arrow record batches of about ``rows`` rows, in its order:
        a back-end that can stream them never holds the whole result in Python."""
        yield from self.fetch_arrow(sql).to_batches(max_chunksize=max(1, int(rows)))

    def materialize(self, name: str, sql: str, params=None) -> None:  # pragma: no cover - interface
        """Keep the rows of ``sql`` as the relation ``name``; ``params`` are the values of
        its ``?`` markers, in order (values never enter the SQL text)."""
        raise NotImplementedError

    def register(self, name: str, frame: pd.DataFrame) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def expect_rows(self, rows: int) -> None:
        """The relations the next statements keep hold at most about ``rows`` rows (a
        source's records): a back-end may keep them in a faster form while they fit its
        memory (the default: nothing changes)."""

    def view(self, name: str, sql: str) -> None:
        """``name`` as the rows of ``sql``, computed by the statement that reads it: for a
        relation read once, no table is written (a back-end without lazy relations keeps
        them: :meth:`materialize`)."""
        self.materialize(name, sql)

    def drop(self, name: str) -> bool:
        """Free the relation ``name``, which no later statement reads; False: the back-end
        keeps it (the default)."""
        return False

    def rename(self, name: str, new: str) -> None:
        """Keep the relation ``name`` (a table) as ``new`` (any relation of that name replaced);
        by default copied, then ``name`` dropped."""
        self.materialize(new, f"SELECT * FROM {name}")
        self.drop(name)

    def held_file(self, path: str) -> str | None:
        """A path of the file ``path`` that stays as it is while the back-end is open (a link or
        a copy in its work folder), so that a relation may be a view over it however the file
        is replaced or removed meanwhile; None: the back-end cannot (the default), then the
        relation is kept (:meth:`materialize`)."""
        return None

    def engine_memory(self, limit: int | None) -> bool:
        """Set the engine's own memory limit while it is open (bytes; None: the one it was
        opened with), its buffers above it given back; False: the back-end cannot (the default)."""
        return False

    def bound_engine(self, holding: int = 0) -> bool:
        """Under a memory limit, the engine's limit for the statements to come such that the
        process stays within it: the engine's buffers given back first (it keeps the pages it
        read up to its limit), then its limit set to :func:`engine_limit` of what the process
        holds beside it and ``holding`` bytes more the process will fill while they run (the
        arrays a fetch fills). The engine alone at the limit the user gave, with the
        interpreter and its arrays beside it, would take the process past it. False: no
        limit, the resident memory unknown or a back-end that cannot (its limit as it was)."""
        limit = self.memory_limit
        if limit is None or not self.engine_memory(int(ENGINE_SHARE * limit)):
            return False
        resident = resident_bytes()
        if resident is None:
            self.engine_memory(None)
            return False
        return self.engine_memory(engine_limit(limit, resident + holding))

    def idle_engine(self) -> bool:
        """Under a memory limit, the engine idle a long while (the out-of-core search counts in
        numpy): the pages it keeps up to its limit given back — its limit lowered to
        :data:`IDLE_ENGINE_BYTES` a moment (where its pinned buffers exceed that, as far as it
        can) —, then :data:`ENGINE_SHARE` of the memory limit for what may run meanwhile. At
        20M rows the first search's whole-source totals left 330 MiB held under the latter alone,
        taken from the search's pieces. False: no limit, or a back-end that cannot."""
        if self.memory_limit is None:
            return False
        self.engine_memory(IDLE_ENGINE_BYTES)
        return self.engine_memory(int(ENGINE_SHARE * self.memory_limit))

    def materialize_joined(self, name: str, sql: str) -> None:
        """:meth:`materialize` a statement of many joins to small tables, joined in the
        order written (searching for an order would cost more than the joins)."""
        self.materialize(name, sql)

    def write_parquet(self, sql: str, path: str, reads: str | None = None) -> None:  # pragma: no cover - interface
        """The rows of ``sql`` written as Parquet at ``path``; ``reads``: the file ``sql`` reads,
        named by an error of the reading rather than the file written, where the back-end can
        tell them apart."""
        raise NotImplementedError

    def scan(self, path: str, delimiter: str | None = None, encoding: str | None = None,
             relation: str = "__scan", keep_spaces: bool | None = None) -> Scan:  # pragma: no cover - interface
        """``relation``: the file with ``__rid``; a CSV's cells with the spaces around them
        stripped unless ``keep_spaces`` (default: the back-end's :attr:`keep_spaces`)."""
        raise NotImplementedError

    def _keeps_spaces(self, keep_spaces: bool | None) -> bool:
        return self.keep_spaces if keep_spaces is None else bool(keep_spaces)

    def spaces_stripped(self, scan: Scan, sample_rows: int = 100_000):
        """Where a CSV scan's spaces around values were stripped, seen in its first
        ``sample_rows`` records (a :class:`~tklscore.core.tables.spaces.SpacesStripped`)."""
        from tklscore.core.tables.spaces import SpacesStripped

        if scan.kind != "CSV" or not scan.raw_relation or scan.raw_relation == scan.relation:
            return SpacesStripped()
        parts = []
        for i, c in enumerate(scan.columns):
            text = f"CAST({self.q(c)} AS STRING)"
            parts += [f"SUM(CASE WHEN {text} LIKE ' %' THEN 1 ELSE 0 END) AS l{i}",
                      f"SUM(CASE WHEN {text} LIKE '% ' THEN 1 ELSE 0 END) AS t{i}"]
        counts = self.fetch(f"SELECT {', '.join(parts)} FROM (SELECT * FROM {scan.raw_relation} "
                            f"LIMIT {int(sample_rows)}) AS sample").fillna(0).iloc[0]
        lead = [bool(counts[f"l{i}"]) for i in range(len(scan.columns))]
        trail = [bool(counts[f"t{i}"]) for i in range(len(scan.columns))]
        names = tuple(c.strip() for i, c in enumerate(scan.columns) if lead[i] or trail[i])
        return SpacesStripped(names, any(lead), any(trail))

    def run(self, what: str, path: str, action):
        """Run ``action()``; an engine error becomes an :class:`InputError` naming ``path``."""
        try:
            return action()
        except InputError:
            raise
        except Exception as exc:  # the engines' own errors (DuckDB, Spark's analysis/execution errors)
            line = _NOT_UTF8.search(str(exc))
            if line:  # a line past the part check_engine_file reads
                raise InputError(f"the line is not UTF-8, as the lines before it are; the {self.name} engine "
                                 f"reads a file in one encoding", file=str(path), row=int(line.group(1)),
                                 hint="save the file as UTF-8, give its encoding (--encoding), or read it in "
                                      "memory, which reads each line in its own encoding") from None
            raise InputError(f"{what} ({first_line(exc)})", file=str(path)) from None

    def interrupt(self) -> None:
        """Stop the statement running now (from another thread); it raises in its caller."""

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def count(self, relation: str) -> int:
        """How many rows ``relation`` holds (a back-end may know it without a statement)."""
        return int(self.fetch(f"SELECT COUNT(*) AS n FROM {relation}")["n"].iloc[0])

    # ------------------------------------------------------------------ inputs

    def q(self, name: str) -> str:
        """A column name as the engine's SQL identifier."""
        c = self.quote_char
        return c + name.replace(c, c + c) + c

    def open_source(self, path: str, roles: Roles, delimiter: str | None = None,
                    encoding: str | None = None, identifying=(), raw_continuous: bool = False,
                    sample_weight: str | None = None, read_once: bool = False) -> None:
        """``src(rid, id, q0.., s0.., y0.., sw)`` from the source file (``y``: the
        ``identifying`` columns, Y of (X,Y)-anonymity, as text; with ``raw_continuous``
        also ``r{i}``, a continuous SA i as written, which its hierarchy reads; ``sw``: the
        ``sample_weight`` column as numbers, when given). ``read_once``: the caller reads
        ``src`` once (into the finest aggregate), so a Parquet file's is a :meth:`view` that
        the checks and that statement read column by column, not a copy of the records (at
        10M rows the copy cost 12 of 33 s of CPU of reading the file into the aggregate);
        a CSV file, which each reader would parse again, is still copied."""
        scan = self.scan(path, delimiter, encoding, "__source")
        self.source_scan = scan
        stripped = _columns(scan, list(roles.qi) + list(roles.sa) + list(identifying)
                            + ([roles.identifier] if roles.identifier else [])
                            + ([sample_weight] if sample_weight else []))
        self.run("cannot be read", path, lambda: self._kinds(scan))

        def text(c: str) -> str:
            return self.column_text(scan, stripped[c])

        parts = ["__rid AS rid", f"{self._id_sql(roles, scan, stripped)} AS id"]
        parts += [f"{text(c)} AS q{i}" for i, c in enumerate(roles.qi)]
        for i, c in enumerate(roles.sa):
            if c in roles.continuous:
                parts.append(f"{self.column_number(scan, stripped[c])} AS s{i}")
            else:
                parts.append(f"{text(c)} AS s{i}")
        parts += [f"{text(c)} AS y{j}" for j, c in enumerate(identifying)]
        if raw_continuous:
            parts += [f"{text(c)} AS r{i}" for i, c in enumerate(roles.sa) if c in roles.continuous]
        if sample_weight:
            parts.append(f"{self.column_number(scan, stripped[sample_weight])} AS sw")
        keep = self.view if read_once and scan.kind == "Parquet" else self.materialize
        self.run("cannot be read", path, lambda: keep("src", f"SELECT {', '.join(parts)} FROM {scan.relation}"))
        if sample_weight:
            self._check_sample_weights(scan, stripped[sample_weight], sample_weight)
        # in one statement: the first record (and how many) holding no number in each continuous SA, an empty id
        checks = [(c, f"s{i} IS NULL OR isnan(s{i}) OR ABS(s{i}) = CAST('Infinity' AS DOUBLE)")
                  for i, c in enumerate(roles.sa) if c in roles.continuous]
        if roles.identifier and not self._whole_numbers(scan, stripped[roles.identifier]):
            checks.append((None, "id = ''"))
        if not checks:
            return
        found = self.run("cannot be read", path, lambda: self.fetch("SELECT " + ", ".join(
            f"MIN(CASE WHEN {bad} THEN rid END) AS b{k}, SUM(CASE WHEN {bad} THEN 1 ELSE 0 END) AS n{k}"
            for k, (_, bad) in enumerate(checks)) + " FROM src")).iloc[0]
        for k, (c, _) in enumerate(checks):
            if pd.isna(found[f"b{k}"]):
                continue
            rid = int(found[f"b{k}"])
            if c is None:
                raise InputError("identifier is empty", file=str(path), row=rid + scan.header_rows,
                                 column=roles.identifier)
            raw = self.fetch(f"SELECT {text(c)} AS v FROM {scan.relation} WHERE __rid = {rid}")["v"].iloc[0]
            shown = "an empty cell" if raw is None or raw == "" else f"'{raw}'"
            raise InputError(f"continuous column holds {shown}, which is not a number "
                             f"({int(found[f'n{k}'])} such cell(s) in all)", file=str(path),
                             row=rid + scan.header_rows, column=c,
                             hint="fix the value, or treat the column as categorical")

    def check_unique_ids(self, roles: Roles, name: str) -> None:
        """An identifier column of ``src`` holds each id once (the in-memory rule)."""
        if not roles.identifier:
            return
        duplicate = self.run("cannot be read", name, lambda: self.fetch(self._duplicate_id_sql(roles)))
        if len(duplicate):
            raise InputError(f"identifier '{duplicate['id'].iloc[0]}' appears {int(duplicate['times'].iloc[0])} "
                             f"times", file=name, column=roles.identifier, hint="an identifier column must be unique")

    def _duplicate_id_sql(self, roles: Roles) -> str:
        """The first id of ``src`` (in text order) held by more than one record, and how many:
        grouped by the file's own column where its text is one-to-one with it (integers without
        a missing cell: grouped as numbers, about half the work of grouping their text)."""
        scan = self.source_scan
        raw = _columns(scan, [roles.identifier])[roles.identifier]
        if self._whole_numbers(scan, raw):
            column = self.q(raw)
            return (f"SELECT CAST(v AS STRING) AS id, times FROM (SELECT {column} AS v, COUNT(*) AS times FROM "
                    f"{scan.relation} GROUP BY {column} HAVING COUNT(*) > 1) AS d ORDER BY id LIMIT 1")
        return "SELECT id, COUNT(*) AS times FROM src GROUP BY id HAVING COUNT(*) > 1 ORDER BY id LIMIT 1"

    def _whole_numbers(self, scan: Scan, raw: str) -> bool:
        """A column of integers without a missing cell: its text (``CAST AS STRING``) is one-to-one
        with its numbers and never empty."""
        import pyarrow as pa

        return pa.types.is_integer(self._kinds(scan)[raw]) and not self._holds_missing(scan, raw)

    def _check_sample_weights(self, scan: Scan, raw: str, column: str) -> None:
        """Sampling weights are finite numbers ≥ 0 (as the in-memory engine reads them)."""
        checks = (("sw IS NULL OR isnan(sw) OR ABS(sw) = CAST('Infinity' AS DOUBLE)", "not a number"),
                  ("sw < 0", "negative"))
        for condition, what in checks:
            bad = self.fetch(f"SELECT rid, COUNT(*) OVER () AS many FROM src WHERE {condition} ORDER BY rid LIMIT 1")
            if not len(bad):
                continue
            rid, many = int(bad["rid"].iloc[0]), int(bad["many"].iloc[0])
            if what == "negative":
                value = float(self.fetch(f"SELECT sw FROM src WHERE rid = {rid}")["sw"].iloc[0])
                raise InputError(f"sample weight {value:g} is negative ({many} such cell(s)); a sampling weight is "
                                 f"the number of population records a record stands for", file=scan.path,
                                 row=rid + scan.header_rows, column=column)
            shown = self.fetch(f"SELECT {self.column_text(scan, raw)} AS v FROM {scan.relation} "
                               f"WHERE __rid = {rid}")["v"].iloc[0]
            shown = "(empty)" if shown is None or shown == "" else repr(shown)
            raise InputError(f"sample weight {shown} is not a number ({many} such cell(s))", file=scan.path,
                             row=rid + scan.header_rows, column=column)

    def open_published_file(self, path: str, id_column: str | None, delimiter: str | None = None,
                            encoding: str | None = None, continuous=frozenset()) -> None:
        """``published(pos, id)`` from a published file: by its identifier column, or
        without one by matching all its columns in the source (needs :meth:`open_source`)."""
        scan = self.scan(path, delimiter, encoding, "__published")
        self.unmatched_rows = []
        self.published_scan = None
        stripped = {c.strip(): c for c in scan.columns}
        if id_column is not None:
            self.published_scan = scan
            if id_column not in stripped:
                raise InputError(f"identifier column '{id_column}' not found; the table has columns "
                                 f"{', '.join(repr(c) for c in stripped)}", file=str(path))
            self.run("cannot be read", path, lambda: self.materialize(
                "published", f"SELECT __rid AS pos, TRIM({self.column_text(scan, stripped[id_column])}) AS id "
                             f"FROM {scan.relation}"))
            self._check_published_unique(path)
        else:
            self._match_by_position(scan, continuous)

    def conflicts(self, roles: Roles) -> tuple[int, list[str]]:
        """How many published records (of a file located by id) hold sensitive values that
        contradict the source record with the same id, and the first of them as
        :func:`~tklscore.core.tables.published.conflict_entry` writes them; as
        :func:`~tklscore.core.tables.published.locate_table` finds them in memory."""
        from tklscore.core.tables.published import SHOWN_CONFLICTS, conflict_entry

        scan = getattr(self, "published_scan", None)
        if scan is None:
            return 0, []
        mine = {c.strip(): c for c in scan.columns}
        theirs = {c.strip(): c for c in self.source_scan.columns}
        compared = [(i, c) for i, c in enumerate(roles.sa) if c in mine and c in theirs]
        if not compared:
            return 0, []
        parts, differs = ["pr.pos AS pos", "pr.id AS id"], []
        for k, (i, c) in enumerate(compared):
            published_text = self.column_text(scan, mine[c], "pf.")
            if c in roles.continuous:
                bad = f"NOT COALESCE({self.column_number(scan, mine[c], 'pf.')} = src.s{i}, FALSE)"
            else:
                bad = f"{published_text} <> src.s{i}"
            parts += [f"{bad} AS d{k}", f"{published_text} AS m{k}",
                      f"{self.column_text(self.source_scan, theirs[c], 'sf.')} AS t{k}"]
            differs.append(f"d{k}")
        joined = (f"SELECT {', '.join(parts)} FROM published AS pr JOIN {scan.relation} AS pf ON pf.__rid = pr.pos "
                  f"JOIN src ON src.id = pr.id JOIN {self.source_scan.relation} AS sf ON sf.__rid = src.rid")
        self.run("cannot be compared with the source", scan.path, lambda: self.materialize(
            "conflicts", f"SELECT * FROM ({joined}) AS j WHERE {' OR '.join(differs)}"))
        count = self.count("conflicts")
        first = self.fetch(f"SELECT * FROM conflicts ORDER BY pos LIMIT {SHOWN_CONFLICTS}")
        entries = [conflict_entry(row["id"], int(row["pos"]) + scan.header_rows,
                                  [(c, row[f"m{k}"], row[f"t{k}"]) for k, (_, c) in enumerate(compared)
                                   if bool(row[f"d{k}"])])
                   for _, row in first.iterrows()]
        return count, entries

    def _match_by_position(self, scan: Scan, continuous) -> None:
        """Each published row takes the source row with the same values in every published
        column, the k-th occurrence of a row the k-th such source row; ``unmatched(pos)``
        lists the published rows no source row is left for."""
        source = self.source_scan
        in_source = {c.strip(): c for c in source.columns}
        mine = {c.strip(): c for c in scan.columns}
        extra = [c for c in mine if c not in in_source]
        if extra:
            raise InputError(f"column(s) {', '.join(map(repr, extra))} of the published table are not in "
                             f"the source {source.path}", file=scan.path)
        if self.count(scan.relation) == 0:
            raise InputError("the published table has no records", file=scan.path,
                             hint="a release publishes at least one record")
        names = [f"m{i}" for i in range(len(mine))]

        def keyed(read: Scan, columns: dict[str, str]) -> str:
            keys = []
            for name, column in zip(names, mine):
                keys.append(f"{self.column_number(read, columns[column])} AS {name}"
                            if column in continuous else f"{self.column_text(read, columns[column])} AS {name}")
            return (f"SELECT rowpos, {', '.join(names)}, ROW_NUMBER() OVER (PARTITION BY {', '.join(names)} "
                    f"ORDER BY rowpos) AS occ FROM (SELECT __rid AS rowpos, {', '.join(keys)} FROM {read.relation}) "
                    f"AS k")

        on = [f"p.{name} IS NOT DISTINCT FROM s.{name}" if column in continuous else f"p.{name} = s.{name}"
              for name, column in zip(names, mine)]
        sql = (f"SELECT p.rowpos AS pos, s.rowpos AS rid FROM ({keyed(scan, mine)}) AS p "
               f"LEFT JOIN ({keyed(source, in_source)}) AS s ON {' AND '.join(on)} AND p.occ = s.occ")
        self.run("cannot be matched with the source", scan.path, lambda: self.materialize("matched", sql))
        self.materialize("published", "SELECT pos, CAST(rid AS STRING) AS id FROM matched WHERE rid IS NOT NULL")
        self.unmatched_rows = [int(p) + scan.header_rows for p in
                               self.fetch("SELECT pos FROM matched WHERE rid IS NULL ORDER BY pos")["pos"]]

    def _id_sql(self, roles: Roles, scan: Scan, stripped: dict[str, str], alias: str = "") -> str:
        """A source record's id in ``src``: the identifier's text, or its position (``alias``:
        the scan's, with its dot)."""
        if roles.identifier:
            return self.column_text(scan, stripped[roles.identifier], alias)
        return f"CAST({alias}__rid AS STRING)"

    def open_published_filter(self, expression: str, roles: Roles) -> None:
        """``published(pos, id)``: the source records where a filter holds, in source order
        (needs :meth:`open_source`), as :func:`tklscore.core.release.selection.filter_positions`
        selects them in memory: the one language of :mod:`tklscore.core.release.filters`,
        its values passed as parameters."""
        from tklscore.core.release.filters import ColumnKind, parse_filter
        from tklscore.core.release.selection import nothing_selected

        parsed = parse_filter(expression)
        self.unmatched_rows = []
        scan = self.source_scan
        stripped = {c.strip(): c for c in scan.columns}
        parsed.require_columns(stripped)
        columns = {}
        if parsed.columns:
            schema = self.run("cannot be read", scan.path, lambda: self.arrow_schema(
                f"SELECT {', '.join(self.q(stripped[c]) for c in parsed.columns)} FROM {scan.relation}"))
            for name, kind in zip(parsed.columns, schema.types):
                columns[name] = self._filter_column(scan, stripped[name], kind)
        kinds: dict[str, ColumnKind] = {}
        typed = parsed.kind_columns()
        if typed:
            from tklscore.core.release.filters import kinds_sql

            row = self.run("cannot be read", scan.path, lambda: self.fetch(
                kinds_sql({c: columns[c].number_text for c in typed}, scan.relation))).iloc[0]
            for i, name in enumerate(typed):
                bad = row[f"b{i}"]
                if bad is not None and not pd.isna(bad):
                    shown = self.fetch(f"SELECT {columns[name].number_text} AS v FROM {scan.relation} "
                                       f"WHERE __rid = {int(bad)}")["v"].iloc[0]
                    kinds[name] = ColumnKind(False, str(shown), int(bad) + scan.header_rows)
                else:
                    kinds[name] = ColumnKind(bool(int(row[f"n{i}"])))
        where, params = parsed.to_sql(columns, kinds)
        self.run(f"cannot be filtered by '{expression}'", scan.path, lambda: self.materialize(
            "published", f"SELECT CAST(ROW_NUMBER() OVER (ORDER BY __rid) - 1 AS BIGINT) AS pos, "
                         f"{self._id_sql(roles, scan, stripped)} AS id FROM {scan.relation} WHERE {where}", params))
        if not self.count("published"):
            rows = self.count(scan.relation)
            raise nothing_selected(expression, rows)

    def _filter_column(self, scan: Scan, raw: str, kind):
        """How a filter reads a column: as the text the loader gives it (:meth:`_loader_text`),
        and as a text whose numbers are the loader's."""
        from tklscore.core.release.filters import SqlColumn

        written = self._loader_text(scan, raw, kind)
        if written is None:
            raise InputError(f"a filter on a column of type {kind} is not supported by the {self.name} engine",
                             file=scan.path, column=raw.strip(), hint="filter on another column, or define the "
                                                                      "release by ids or a file")
        text, exact = written
        return SqlColumn(text if exact else None, text)

    def open_population(self, path: str, qi, delimiter: str | None = None, encoding: str | None = None) -> None:
        """``population(q0..)``: the quasi-identifiers of a population file (journalist and
        marketer risk), as text."""
        scan = self.scan(path, delimiter, encoding, "__population")
        stripped = _columns(scan, list(qi))
        parts = [f"{self.column_text(scan, stripped[c])} AS q{i}" for i, c in enumerate(qi)]
        self.run("cannot be read", path,
                 lambda: self.materialize("population", f"SELECT {', '.join(parts)} FROM {scan.relation}"))

    def open_release(self, definition, roles: Roles) -> str:
        """``published(pos, id)`` of a release definition (ids, a published file or a filter)
        on a back-end whose source is open; returns the name messages give it."""
        OPENERS[definition.kind](self, definition, roles)
        if definition.kind == "file":
            return str(definition.path)
        return f"--filter {definition.expression}" if definition.kind == "filter" else "--rows"

    def open_published_ids(self, ids: list[str]) -> None:
        self.unmatched_rows = []
        wanted = pd.Series([str(i).strip() for i in ids], dtype=object)
        twice = wanted[wanted.duplicated()]
        if len(twice):   # the first id listed again, as memory names it (core/tables/published.py)
            raise InputError(f"id '{twice.iloc[0]}' is listed more than once", file="--rows")
        self.register("published", pd.DataFrame({"pos": pd.Series(range(len(ids)), dtype="int64"), "id": wanted}))

    def _check_published_unique(self, name: str) -> None:
        twice = self.fetch("SELECT id FROM published GROUP BY id HAVING COUNT(*) > 1 LIMIT 1")
        if len(twice):
            raise InputError(f"id '{twice['id'].iloc[0]}' is listed more than once", file=str(name))

    def unlocated(self, published: pd.DataFrame | None = None) -> list[str]:
        """The published records not in the source, as the in-memory engine names them:
        ``id '…'`` (by id or ids), ``row N`` (matched by position). ``published``: every
        published record fetched already with ``located``, its source record's id (missing
        where the source has none; :func:`~.scoring.published_values`): no statement."""
        if published is None:
            frame = self.fetch("SELECT p.pos, p.id FROM published AS p LEFT JOIN src ON src.id = p.id "
                               "WHERE src.id IS NULL ORDER BY p.pos")
        else:
            frame = published[published["located"].isna()].sort_values("pos", kind="stable")
        return [f"id '{i}'" for i in frame["id"].tolist()] + [f"row {r}" for r in self.unmatched_rows]


def _open_file(backend: Backend, definition, roles: Roles) -> None:
    if not definition.path:
        raise InputError(f"release '{definition.name}' has no file")
    options = definition.options or {}
    if options.get("sheet") is not None:
        raise InputError("an engine reads Parquet and CSV files; convert the workbook first", file=definition.path)
    backend.open_published_file(definition.path, roles.identifier, options.get("delimiter"), options.get("encoding"),
                                roles.continuous)


# each release kind: how an engine registers its records (the in-memory counterpart is
# core/release/selection.py RESOLVERS)
OPENERS = {"ids": lambda backend, definition, roles: backend.open_published_ids(list(definition.ids)),
           "file": _open_file,
           "filter": lambda backend, definition, roles: backend.open_published_filter(definition.expression or "",
                                                                                       roles)}


def _columns(scan: Scan, named: list[str]) -> dict[str, str]:
    stripped = {c.strip(): c for c in scan.columns}
    absent = [c for c in named if c not in stripped]
    if absent:
        raise InputError(f"column {', '.join(repr(c) for c in absent)} not found; the table has columns "
                         f"{', '.join(repr(c) for c in stripped)}", file=scan.path)
    return stripped


_NOT_UTF8 = re.compile(r"CSV Error on Line: (\d+)\b.*\bInvalid unicode", re.S)  # DuckDB's words


def _local_file(path: str) -> Path | None:
    """The local file an engine reads for ``path`` (the first part file of a folder), or
    None for a remote path (hdfs://, s3a://) or a folder without data files."""
    scheme = urlparse(path).scheme
    if scheme not in ("", "file") and len(scheme) != 1:  # one letter: a Windows drive
        return None
    file = Path(urlparse(path).path if scheme == "file" else path)
    if file.is_dir():
        parts = sorted(p for p in file.iterdir() if p.is_file() and not p.name.startswith((".", "_")))
        return parts[0] if parts else None
    return file if file.is_file() else None


def check_engine_file(path: str, kind: str, delimiter: str | None, encoding: str | None, engine: str,
                      late_lines_checked: bool = False) -> str | None:
    """What the in-memory loader refuses, refused before an engine reads a file (``kind``:
    CSV or Parquet), which would otherwise rename a repeated column name, cast a nested
    column to text, or read a file whose lines disagree on the encoding in one of them.
    Checked on the file itself when it is local (a file, or the first part file of a folder);
    every back-end's ``scan`` calls it. ``late_lines_checked``: also every line past the
    sample, for an engine that would decode a line that is not UTF-8 silently (Spark).
    Returns a local CSV's delimiter (the one given, or the one the in-memory loader would
    detect), for an engine that does not detect it itself (Spark)."""
    from tklscore.core.files.text import csv_rows, refuse_mixed_lines, unicode_encoding
    from tklscore.core.tables.loading import (_SAMPLE_BYTES, _check_header, detect_delimiter, detect_encoding,
                                              refuse_nested)

    file = _local_file(path)
    if file is None:
        return
    if kind == "Parquet":
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(file)
        except Exception:  # noqa: BLE001 - not a Parquet file: the engine says what is wrong
            return
        _check_header([str(name).strip() for name in schema.names], path)
        refuse_nested(schema, path)
        return
    with open(file, "rb") as handle:
        sample = handle.read(_SAMPLE_BYTES)
    if encoding is None and unicode_encoding(sample) is None:
        refuse_mixed_lines(sample, path, f"the {engine} engine")
    try:
        text = sample.decode(encoding or detect_encoding(sample), errors="ignore")
    except LookupError:
        return  # an unknown encoding: the engine says so
    if len(sample) == _SAMPLE_BYTES:
        text = text[:text.rfind("\n") + 1] or text
    text = text.lstrip("\ufeff")
    if encoding is None and late_lines_checked and detect_encoding(sample) == "utf-8":
        _refuse_late_non_utf8(path, engine)
    delimiter = delimiter or detect_delimiter(text, file.suffix.lower())
    first = next(csv_rows(text, path, delimiter), None)
    if first:
        _check_header([field.strip() for field in first[1]], path)
    return delimiter


def _refuse_late_non_utf8(path: str, engine: str) -> None:
    from tklscore.core.files.text import first_non_utf8_line

    local = Path(urlparse(path).path if urlparse(path).scheme == "file" else path)
    files = sorted(p for p in local.iterdir() if p.is_file() and not p.name.startswith((".", "_"))) \
        if local.is_dir() else [local]
    for file in files:
        line = first_non_utf8_line(file)
        if line is not None:
            raise InputError(f"the line is not UTF-8, as the lines before it are; the {engine} engine "
                             f"reads a file in one encoding", file=str(file), row=line,
                             hint="save the file as UTF-8, give its encoding (--encoding), or read it in "
                                  "memory, which reads each line in its own encoding")


def first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__
