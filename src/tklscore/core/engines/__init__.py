"""Engines that score without loading the tables into memory: the group-by plan
(:mod:`.plan`, SQL written once) run by DuckDB out of core (:mod:`.duckdb_engine`);
:mod:`.scoring` finishes the aggregates with the in-memory engine's functions, so the
engine choice never changes a number. (A Spark back-end of the same plan is not built yet.)"""

from __future__ import annotations

from tklscore.core.engines.scoring import EngineReport, parse_memory_limit, score_in_engine

ENGINES = ("memory", "duckdb")


def open_backend(engine: str, memory_limit: str | None = None):
    """A back-end for ``engine`` ('duckdb')."""
    limit = parse_memory_limit(memory_limit) if memory_limit else None
    if engine == "duckdb":
        from tklscore.core.engines.duckdb_engine import DuckDBBackend

        return DuckDBBackend(limit)
    raise ValueError(f"unknown engine {engine!r}")


def score_files(engine: str, source: str, roles, weights, *, published: str | None = None,
                rows: list[str] | None = None, x: float = 1.0, missing_weight_zero: bool = False,
                records_path: str | None = None, memory_limit: str | None = None, delimiter: str | None = None,
                encoding: str | None = None, skip_unlocated: bool = False) -> EngineReport:
    """Score a published file (located by the identifier column) or ids against a source
    file with the out-of-core engine."""
    from tklscore.core.errors import InputError

    if published is not None and not roles.identifier:
        raise InputError(f"--engine {engine} locates the records of a published file by the identifier column: "
                         f"give --id-column (or publish with --rows)")
    backend = open_backend(engine, memory_limit)
    try:
        backend.open_source(source, roles, delimiter, encoding)
        if published is not None:
            backend.open_published_file(published, roles.identifier, delimiter, encoding)
        else:
            backend.open_published_ids(list(rows or []))
        return score_in_engine(backend, roles, weights, x, missing_weight_zero, records_path,
                               source_name=str(source), published_name=str(published or "--rows"),
                               skip_unlocated=skip_unlocated)
    finally:
        backend.close()


__all__ = ["ENGINES", "EngineReport", "open_backend", "parse_memory_limit", "score_files", "score_in_engine"]
