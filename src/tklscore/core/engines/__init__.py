"""Engines that score without loading the tables into memory: the group-by plan
(:mod:`.plan`, SQL written once) run by DuckDB out of core (:mod:`.duckdb_engine`) or by
Spark on a cluster (:mod:`.spark_engine`), their inputs built alike (:mod:`.backend`);
:mod:`.scoring` finishes the aggregates with the in-memory engine's functions, so the
engine choice never changes a number. The application and the command line reach them
through :class:`tklscore.core.source.Source`; the functions here are the engines' own verbs."""

from __future__ import annotations

from tklscore.core.engines.scoring import parse_memory_limit, score_in_engine

ENGINES = ("memory", "duckdb", "spark")


def open_backend(engine: str, memory_limit: str | None = None, master: str | None = None,
                 keep_spaces: bool = False, spark_conf: dict[str, str] | None = None,
                 spark_timeout: float | None = None):
    """A back-end for ``engine`` ('duckdb' or 'spark'; ``master``: Spark's master URL,
    ``spark_conf``: settings for its session, ``spark_timeout``: seconds a cluster has to
    accept it) that strips the spaces around CSV values unless ``keep_spaces``
    (core/tables/spaces.py)."""
    backend = _open_backend(engine, memory_limit, master, spark_conf, spark_timeout)
    backend.keep_spaces = bool(keep_spaces)
    if memory_limit:
        backend.memory_limit = int(parse_memory_limit(memory_limit).removesuffix("MiB")) << 20
    return backend


def _open_backend(engine: str, memory_limit: str | None, master: str | None, spark_conf=None, spark_timeout=None):
    limit = parse_memory_limit(memory_limit) if memory_limit else None
    if engine != "spark":
        given = [name for name, value in (("--spark-master", master), ("--spark-conf", spark_conf or None),
                                          ("--spark-timeout", spark_timeout)) if value is not None]
        if given:
            from tklscore.core.errors import InputError

            raise InputError(f"{' and '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to --engine spark")
    if engine == "duckdb":
        from tklscore.core.engines.duckdb_engine import DuckDBBackend

        return DuckDBBackend(limit)
    if engine == "spark":
        from tklscore.core.engines.spark_engine import SparkBackend

        return SparkBackend(limit, master, conf=spark_conf, timeout=spark_timeout)
    raise ValueError(f"unknown engine {engine!r}")


def score_files(engine: str, source: str, roles, weights, *, published: str | None = None,
                rows: list[str] | None = None, filter: str | None = None, x: float = 1.0,
                missing_weight_zero: bool = False, records_path: str | None = None, memory_limit: str | None = None,
                delimiter: str | None = None, encoding: str | None = None, skip_unlocated: bool = False,
                master: str | None = None, backend=None, published_options: dict | None = None,
                keep_spaces: bool = False):
    """Score a published file (located by the identifier column, or without one by
    matching its rows in the source), ids, or the records where a ``filter`` expression
    holds, against a source file with an engine (``backend``: one already open, which is
    left open; ``published_options``: the published file's delimiter/encoding when they
    differ from the source's): :meth:`tklscore.core.source.Source.score` out of core."""
    from tklscore.core.release.selection import definition_of

    options = published_options if published_options is not None else {"delimiter": delimiter, "encoding": encoding}
    definition = definition_of(published=published, rows=rows, filter=filter, options=options)
    own = backend is None
    backend = open_backend(engine, memory_limit, master, keep_spaces) if own else backend
    try:
        backend.open_source(source, roles, delimiter, encoding)
        name = backend.open_release(definition, roles)
        return score_in_engine(backend, roles, weights, x, missing_weight_zero, records_path,
                               source_name=str(source), published_name=name, skip_unlocated=skip_unlocated)
    finally:
        if own:
            backend.close()


__all__ = ["ENGINES", "open_backend", "parse_memory_limit", "score_files", "score_in_engine"]
