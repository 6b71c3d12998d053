"""One seam for every engine: a :class:`Source` is a source table under one assignment of
roles — loaded in memory (:class:`MemorySource`) or read by an engine out of core or on a
cluster (:class:`EngineSource`) — chosen once (:func:`open_source`, by the application's
rule in :mod:`tklscore.core.engines.choice` or the command line's ``--engine``), and
asked the same questions with the same result types whatever the engine:

| verb                          | result                                               |
|-------------------------------|------------------------------------------------------|
| ``open_release(definition)``  | :class:`OpenedRelease` (ids, a file, a filter)       |
| ``score(release, weights, x)``| :class:`~tklscore.core.scoring.scores.ScoreReport`   |
| ``measure(release=None)``     | :class:`~tklscore.core.risk.measures.Measures`       |
| ``risk_lens(release)``        | :class:`~tklscore.core.risk.lens.RiskLens`           |
| ``disclosure_risk(params)``   | :class:`~tklscore.core.risk.disclosure_risk.DisclosureRisk` |
| ``designer()``/``evaluate()`` | :class:`~tklscore.core.release.designer.DesignResult` |
| ``describe()``                | :class:`~tklscore.core.engines.source.SourceSummary` |
| ``column_values(column)``     | each value with its count                            |
| ``profile()``                 | each column's profile, for the role guesses          |

:func:`score_project` scores every release of a project (and its designed releases)."""

from __future__ import annotations

from pathlib import Path

from tklscore.core.engines.choice import DEFAULT_MEMORY_SHARE, EngineChoice, choose_engine
from tklscore.core.source.base import OpenedRelease, Source
from tklscore.core.source.engine import EngineSource
from tklscore.core.source.memory import MemorySource
from tklscore.core.source.project import ProjectScores, measure_project, score_project
from tklscore.core.tables.roles import Roles


def open_source(path, roles: Roles, *, engine: str | None = None, options: dict | None = None,
                memory_limit: str | None = None, master: str | None = None,
                memory_share: float = DEFAULT_MEMORY_SHARE, progress=None,
                spark_conf: dict[str, str] | None = None, spark_timeout: float | None = None) -> Source:
    """The source file ``path`` under ``roles``: loaded (``engine`` 'memory'), or read by
    'duckdb' or 'spark'; without ``engine`` the application's rule chooses
    (:func:`~tklscore.core.engines.choice.choose_engine`: DuckDB when the file would take
    more than ``memory_share`` of the free memory). ``options``: delimiter, encoding (and
    an Excel sheet, loaded only)."""
    options = {k: v for k, v in dict(options or {}).items() if v is not None}
    choice = None
    if engine is None:
        choice = choose_engine(path, memory_share)
        engine = choice.engine
    if engine == "memory":
        given = [name for name, value in (("--memory-limit", memory_limit), ("--spark-master", master),
                                          ("--spark-conf", spark_conf), ("--spark-timeout", spark_timeout)) if value]
        if given:
            from tklscore.core.errors import InputError

            only_spark = " (--spark-* to spark only)" if any(g.startswith("--spark") for g in given) else ""
            raise InputError(f"the in-memory engine takes no {' or '.join(given)}: engine options apply to "
                             f"--engine duckdb or spark{only_spark}")
        from tklscore.core.tables.loading import load_table

        return MemorySource(load_table(path, **options, progress=progress), roles, options=options)
    if options.get("sheet") is not None:
        from tklscore.core.errors import InputError

        raise InputError(f"--engine {engine} reads Parquet and CSV files; convert the workbook first")
    return EngineSource(path, roles, engine, options, memory_limit, master,
                        choice.reason() if choice is not None else None, spark_conf, spark_timeout)


class KeptSource:
    """The one :class:`Source` of an open project, kept while what it is of stays the same:
    the file, its reading options, the roles and the engine chosen (out of core), or the
    loaded table and the roles (in memory)."""

    def __init__(self):
        self._kept: tuple | None = None   # (what it is of, the Source)

    def clear(self) -> None:
        self._kept = None

    def get(self, path, options: dict, roles: Roles, table=None, choice: EngineChoice | None = None) -> Source | None:
        """The source the project reads (None before a table is loaded or a file chosen)."""
        if choice is not None:
            key = ("file", path, repr(options), roles, choice.engine)
            make = (lambda: EngineSource(path, roles, choice.engine, options, memory_limit=choice.memory_limit(),
                                         reason=choice.reason()))
        elif table is not None:
            key = ("table", id(table), roles)
            make = (lambda: MemorySource(table, roles, options=options))
        else:
            return None
        if self._kept is None or self._kept[0] != key:
            self._kept = (key, make())
        return self._kept[1]


def chosen_engine(path, memory_share: float = DEFAULT_MEMORY_SHARE) -> EngineChoice:
    """Where the application scores the file ``path`` (the rule of :mod:`~tklscore.core.engines.choice`)."""
    return choose_engine(Path(path), memory_share)


__all__ = ["EngineSource", "KeptSource", "MemorySource", "OpenedRelease", "ProjectScores", "Source", "chosen_engine",
           "measure_project", "open_source", "score_project"]
