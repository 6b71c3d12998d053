"""The finest aggregate of a source file, computed once and kept on disk (issue 23 §1:
aggregate once, answer many questions).

Every question a release design asks of a source — the scores of the source generalised to
the design's levels, its classes and their suppression, the privacy models, the utility,
each node of the suggestion lattice — depends on a record only through its quasi-identifier
and sensitive values. So the source's *finest aggregate* — one row per distinct
combination of the QI and SA values (``q0.., s0..``, and ``r{i}``: a continuous SA as
written, which its hierarchy reads), with ``cnt``, the records holding it, and ``rid``, the
first of them — answers them all: a generalisation is the finest rows mapped through the
hierarchies and re-grouped, summing ``cnt`` (:class:`~.plan.Plan` and
:class:`~.plan.DesignPlan` with ``weighted``). The file is read once per (file, roles).

Where it is kept: ``$TKLSCORE_CACHE_DIR``, else ``$XDG_CACHE_HOME/tklscore/aggregates``,
else ``~/.cache/tklscore/aggregates`` (DuckDB's own temporary files live in a work folder
removed when the engine closes; the aggregate outlives it, so it sits in the user's cache).
One Parquet file (a folder of part files with Spark) per (file, roles, reading options,
engine, version), named by a hash of these, and beside it a small JSON file saying which
file it aggregates: its size, modification time and a hash of its first and last 1 MiB.
A cache is used only when all of these still match; one that no longer matches its file is
removed and rebuilt, never used. The Parquet file is written through
:mod:`tklscore.core.files.atomic` (a full disk leaves the source, the earlier outputs and an
earlier cache untouched; the evaluation then goes on with the aggregate kept in the engine,
and its note says what ran out), and the JSON file only after it, so a half-written cache is
never taken for a whole one.

When a cache pays for itself (``score``): the designer always works over the aggregate (a
design's classes, suppression and utility are its roll-ups), but ``score --engine duckdb``
asks one question of the whole source, which one pass over the records answers as fast as
one over an aggregate of about as many rows. So with ``only_if_it_pays`` the aggregate is
built and cached only when its combinations, estimated first in one cheap pass
(HyperLogLog over ``src``), are at most :data:`PAYS_AT` of the records: then a later
question of the same file reads the smaller aggregate. Otherwise the score is answered from
the file in that one pass and the note says so (``skipped``); a cache already kept for the
file (by a designer) is always used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from tklscore.core.engines.backend import Backend, engine_bounded
from tklscore.core.errors import InputError
from tklscore.core.tables.roles import Roles

VERSION = 2           # of the aggregate's layout and text (2: typed columns as Backend.column_text reads them):
                      # a new one never reads an old file
BLOCK = 1 << 20       # the bytes hashed at each end of the file
RELATION = "fin"      # the aggregate in the engine: q0.., s0.., r{i}.., cnt, rid, id ('')
PAYS_AT = 0.5         # a score builds the aggregate when it has at most this share of the records' rows


def cache_folder() -> Path:
    """Where the aggregates are kept (see the module's text)."""
    chosen = os.environ.get("TKLSCORE_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tklscore" / "aggregates"


@dataclass(frozen=True)
class Fingerprint:
    """What identifies a file's contents without reading it whole."""

    path: str
    size: int
    mtime_ns: int
    head: str           # SHA-256 of the first BLOCK bytes
    tail: str           # SHA-256 of the last BLOCK bytes

    @classmethod
    def of(cls, path: str | os.PathLike) -> "Fingerprint":
        file = Path(path).resolve()
        stat = file.stat()
        with open(file, "rb") as handle:
            head = hashlib.sha256(handle.read(BLOCK)).hexdigest()
            handle.seek(max(0, stat.st_size - BLOCK))
            tail = hashlib.sha256(handle.read(BLOCK)).hexdigest()
        return cls(str(file), stat.st_size, stat.st_mtime_ns, head, tail)


@dataclass
class FinestAggregate:
    """The finest aggregate of one source in an engine (the relation :data:`RELATION`)."""

    rows: int           # distinct combinations
    records: int        # records of the source (Σ cnt)
    reused: bool        # read from the cache, not from the file
    path: Path | None   # the cache file (None: not kept on disk)
    note: str           # what happened, in words (the CLI's stderr, the views' notes)
    skipped: bool = False   # not built (it would not pay for itself): no :data:`RELATION`; the records answer

    @property
    def said(self) -> bool:
        """The note is worth saying to the user (reused, not built, or not kept for a reason)."""
        return self.reused or self.skipped or "not cached:" in self.note


def cache_name(fingerprint: Fingerprint, roles: Roles, engine: str, options: dict) -> str:
    """The name of the cache of a (file, roles, reading options, engine)."""
    from tklscore import __version__

    key = {"file": fingerprint.path, "qi": list(roles.qi), "sa": list(roles.sa),
           "continuous": sorted(roles.continuous), "identifier": roles.identifier, "engine": engine,
           "options": {k: options.get(k) for k in ("delimiter", "encoding", "keep_spaces")},
           "version": [VERSION, __version__]}
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32]


def _keys(roles: Roles) -> list[str]:
    keys = [f"q{i}" for i in range(len(roles.qi))] + [f"s{i}" for i in range(len(roles.sa))]
    return keys + [f"r{i}" for i, c in enumerate(roles.sa) if c in roles.continuous]


def finest_sql(roles: Roles) -> str:
    """The finest aggregate of ``src`` (opened with ``raw_continuous``), with an empty ``id``
    (the plans select one; the records' ids are read from the file when asked for)."""
    keys = _keys(roles)
    return (f"SELECT {', '.join(keys)}, CAST(COUNT(*) AS BIGINT) AS cnt, MIN(rid) AS rid, '' AS id FROM src "
            f"GROUP BY {', '.join(keys)}")


def rows_are_combinations(backend: Backend, roles: Roles) -> bool:
    """Whether every row of :data:`RELATION` is a (QI, SA values) combination of its own, so
    that the plans code its rows without grouping them again (:attr:`.plan.Plan.distinct`).
    The aggregate groups by the QIs, the SAs and each continuous SA as written (``r{i}``):
    two rows share their QI and SA values only where two texts of a continuous SA read as one
    number (``1`` and ``1.0`` in a CSV file), which its few distinct (text, number) pairs tell.
    On an engine whose statements cost a job each (:attr:`.Backend.few_statements`) the check
    is not worth its job: False."""
    continuous = [i for i, c in enumerate(roles.sa) if c in roles.continuous]
    if not continuous:
        return True
    if backend.few_statements:
        return False
    checks = ", ".join(f"(SELECT COUNT(*) FROM (SELECT DISTINCT r{i}, s{i} FROM {RELATION}) AS p{i}) "
                       f"- (SELECT COUNT(DISTINCT s{i}) FROM {RELATION}) AS d{i}" for i in continuous)
    return not backend.fetch(f"SELECT {checks}").iloc[0].astype(bool).any()


def _remove(path: Path) -> None:
    import shutil

    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()


def estimate_sql(roles: Roles) -> str:
    """The finest aggregate's rows, estimated (HyperLogLog over a hash of each record's
    combination), and the records of ``src``: one pass, nothing grouped or kept."""
    return (f"SELECT CAST(approx_count_distinct(hash({', '.join(_keys(roles))})) AS BIGINT) AS rows, "
            f"CAST(COUNT(*) AS BIGINT) AS records FROM src")


def pays(rows: int, records: int) -> bool:
    """The rule of a score's aggregate: built and cached when it has at most :data:`PAYS_AT`
    of the records' rows (the records themselves answer a question in as few)."""
    return rows <= PAYS_AT * records


def open_finest(backend: Backend, path: str, roles: Roles, options: dict, open_records, use_cache: bool = True,
                folder: Path | None = None, only_if_it_pays: bool = False) -> FinestAggregate:
    """:data:`RELATION` in ``backend``: the finest aggregate of the source ``path`` under
    ``roles``, read from the cache when it still matches the file, else computed from the
    records (``open_records()`` opens ``src``, with the checks of the records) and kept;
    with ``only_if_it_pays``, computed only when it :func:`pays` (else ``skipped``). Under a
    memory limit the engine's statements take what the process leaves them
    (:meth:`~.backend.Backend.bound_engine`), its own limit as opened again afterwards."""
    with engine_bounded(backend):
        return _open_finest(backend, path, roles, options, open_records, use_cache, folder, only_if_it_pays)


def _open_finest(backend: Backend, path: str, roles: Roles, options: dict, open_records, use_cache: bool,
                 folder: Path | None, only_if_it_pays: bool) -> FinestAggregate:
    local = Path(path)
    fingerprint = None
    if use_cache and local.is_file():
        with contextlib.suppress(OSError):
            fingerprint = Fingerprint.of(local)
    folder = folder or cache_folder()
    target = meta = None
    if fingerprint is not None:
        name = cache_name(fingerprint, roles, backend.name, options)
        target, meta = folder / f"{name}.parquet", folder / f"{name}.json"
        kept = _kept(meta, fingerprint)
        if kept is not None and target.exists():
            try:
                records = _register(backend, target)
            except InputError:
                records = None
            if records is not None and records == kept["records"]:
                rows = backend.count(RELATION)
                return FinestAggregate(rows, records, True, target, f"aggregate of the source reused from the "
                                       f"cache ({rows:,} combinations of {records:,} records; {target})")
        # a cache that no longer matches its file (or half-written) is rebuilt, never used
        _remove(meta)
        _remove(target)
        _remove(_totals_path(target))
    open_records()
    if only_if_it_pays:
        estimate = backend.fetch(estimate_sql(roles)).iloc[0]
        rows, records = int(estimate["rows"]), int(estimate["records"])
        if not pays(rows, records):
            return FinestAggregate(rows, records, False, None, f"aggregate of the source not built: about {rows:,} "
                                   f"combinations of {records:,} records, more than {PAYS_AT:.0%} of them, so a "
                                   f"cache would not pay for itself; scored from the file in one pass", skipped=True)
    direct = target is not None and backend.holds_files    # written to the cache from the records
    unwritten = _written_to_cache(backend, roles, folder, target, path) if direct else None
    records = _register(backend, target) if direct and unwritten is None else None
    if records is None:
        backend.run("cannot be read", path, lambda: backend.materialize(RELATION, finest_sql(roles)))
        records = int(backend.fetch(f"SELECT CAST(COALESCE(SUM(cnt), 0) AS BIGINT) AS n FROM {RELATION}")["n"].iloc[0])
    rows = backend.count(RELATION)
    if target is None:
        return FinestAggregate(rows, records, False, None, f"aggregate of the source computed ({rows:,} "
                                                            f"combinations of {records:,} records; not cached)")
    try:
        if unwritten is not None:
            raise unwritten
        if not direct:
            folder.mkdir(parents=True, exist_ok=True)
            backend.write_parquet(f"SELECT {', '.join(_keys(roles))}, cnt, rid FROM {RELATION}", str(target))
        if Fingerprint.of(local) != fingerprint:      # the file changed while it was read: keep nothing
            raise _Changed()
        text = json.dumps({"source": asdict(fingerprint), "records": records, "version": VERSION})
        temporary = meta.with_name(f".{meta.name}.{os.getpid()}.tmp")
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, meta)
    except (InputError, OSError, _Changed) as error:
        _remove(target)
        with contextlib.suppress(NameError):
            _remove(temporary)
        return FinestAggregate(rows, records, False, None, f"aggregate of the source computed ({rows:,} "
                               f"combinations of {records:,} records) but not cached: {_why(error, folder)}")
    return FinestAggregate(rows, records, False, target, f"aggregate of the source computed and cached "
                                                         f"({rows:,} combinations of {records:,} records; {target})")


def _written_to_cache(backend: Backend, roles: Roles, folder: Path, target: Path,
                      source: str) -> BaseException | None:
    """The aggregate written from the records straight to the cache file ``target``, which
    :data:`RELATION` is then read from as a reused one is (:func:`_register`, a file the back-end
    holds), not kept in the engine first and copied: at 1M rows 1.1 CPU-s against 1.4-1.8.
    Returns why the file could not be written (a full disk, a folder that cannot be made or
    written in: :func:`~tklscore.core.files.atomic.write_error`'s errors; the aggregate is then
    kept in the engine, and the note says so); the engine's own errors are raised (the records
    cannot be read — a damaged part of ``source`` the checks never read: named, no partial
    file left —, or the statement was interrupted: never run again)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        backend.write_parquet(f"SELECT {', '.join(_keys(roles))}, cnt, rid FROM ({finest_sql(roles)}) AS f",
                              str(target), reads=source)
    except OSError as error:
        return error
    except InputError as error:
        if not error.message.startswith(("disk full", "cannot be written:")):
            raise
        _remove(target)
        return error
    return None


class _Changed(Exception):
    pass


def _why(error: BaseException, folder: Path) -> str:
    from tklscore.core.files.atomic import is_disk_full

    if isinstance(error, _Changed):
        return "the source file changed while it was read"
    if is_disk_full(error) or (isinstance(error, InputError) and str(error).startswith("disk full")):
        return f"disk full in {folder} (no space left on the device); the source and earlier outputs are untouched"
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error).splitlines()[0]
    return f"cannot write in {folder} ({reason})"


def _kept(meta: Path, fingerprint: Fingerprint) -> dict | None:
    """The cache's record of its file, when it is the file as it is now."""
    try:
        kept = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("version") != VERSION or kept.get("source") != asdict(fingerprint):
        return None
    return kept


def _register(backend: Backend, target: Path) -> int | None:
    """The cached aggregate as :data:`RELATION`; its records (None: not the layout written).
    A view over the cache file held by the back-end (:meth:`.Backend.held_file`) where it can:
    copying it into a table of the engine took more CPU than every later read of the file
    (at 5M combinations, 4.6 s of CPU against 0.2 s a scan of every column)."""
    held = backend.held_file(str(target))
    scan = backend.scan(held or str(target), relation="__finest")
    if "cnt" not in scan.columns or "rid" not in scan.columns:
        return None
    (backend.view if held else backend.materialize)(
        RELATION, f"SELECT {', '.join(backend.q(c) for c in scan.columns)}, '' AS id FROM {scan.relation}")
    return int(backend.fetch(f"SELECT CAST(COALESCE(SUM(cnt), 0) AS BIGINT) AS n FROM {RELATION}")["n"].iloc[0])


def _totals_path(target: Path) -> Path:
    return target.with_name(target.name.replace(".parquet", ".totals.json"))


def weights_digest(weights, missing_weight_zero: bool) -> str:
    """A key of a weights file's entries that holds across processes (``Weights.fingerprint``
    is Python's hash, salted per process)."""
    entries = tuple((str(e.attribute), str(e.value), float(e.weight)) for e in weights.entries)
    return hashlib.sha256(repr((entries, bool(missing_weight_zero))).encode()).hexdigest()[:32]


def kept_totals(finest: FinestAggregate, key: str) -> tuple[dict, list[str]] | None:
    """The whole source's score totals under the weights ``key``, kept beside a cached aggregate."""
    if finest.path is None:
        return None
    try:
        kept = json.loads(_totals_path(finest.path).read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return (kept["totals"], list(kept["notes"])) if isinstance(kept, dict) else None


def keep_totals(finest: FinestAggregate, key: str, totals: dict, notes: list[str]) -> None:
    """Keep the whole source's totals beside the aggregate (a cache: a failure keeps nothing)."""
    if finest.path is None:
        return
    path = _totals_path(finest.path)
    with contextlib.suppress(OSError, ValueError):
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            kept = {}
        kept = kept if isinstance(kept, dict) and len(kept) < 64 else {}
        kept[key] = {"totals": totals, "notes": list(notes)}
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(json.dumps(kept), encoding="utf-8")
            os.replace(temporary, path)
        finally:
            _remove(temporary)
