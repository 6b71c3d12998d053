"""A source read by an engine — DuckDB out of core, or Spark on a cluster — never loaded:
each verb runs the engines' plans (:mod:`tklscore.core.engines`) on a back-end over the
file and brings back only aggregates, the results' summaries and the rows asked for.

A verb called on :class:`EngineSource` opens a back-end for itself; ``with
source.session() as s:`` keeps one open for the verbs inside (the source's relation, a
release opened once for its scores, measures and risk lens)."""

from __future__ import annotations

import contextlib

from tklscore.core.engines import open_backend, score_in_engine
from tklscore.core.errors import InputError
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.scoring.scores import merge_reports
from tklscore.core.scoring.weights import WeightsPerScore
from tklscore.core.source.base import OpenedRelease, Source
from tklscore.core.tables.roles import Roles


class EngineSource(Source):
    """The file ``path`` (Parquet or CSV; ``options``: its delimiter, encoding and
    ``keep_spaces``, core/tables/spaces.py) under ``roles``, read by ``engine`` ('duckdb' or 'spark'; ``memory_limit``, ``master``,
    ``spark_conf``, ``spark_timeout``: the engine's settings). ``measured``: each release's measures, kept (they need no weights)."""

    def __init__(self, path, roles: Roles, engine: str = "duckdb", options: dict | None = None,
                 memory_limit: str | None = None, master: str | None = None, reason: str | None = None,
                 spark_conf: dict[str, str] | None = None, spark_timeout: float | None = None):
        if engine not in ("duckdb", "spark"):
            raise ValueError(f"unknown engine {engine!r}")
        self.path, self.roles, self.engine = str(path), roles, engine
        self.name = self.path
        self.options = {k: v for k, v in dict(options or {}).items() if k in ("delimiter", "encoding", "keep_spaces")
                        and v}
        self.memory_limit, self.master = memory_limit, master
        self.spark_conf, self.spark_timeout = dict(spark_conf or {}), spark_timeout
        self.reason = reason      # why the application reads it out of core (the engine choice's words)
        self.measured: dict[ReleaseDefinition, object] = {}
        self.releases: dict = {}  # the engine locates a release as it scores it

    def check_release(self, definition: ReleaseDefinition, summary=None) -> None:
        if definition.kind == "filter" and summary is not None:
            from tklscore.core.release.filters import parse_filter

            parse_filter(definition.expression).require_columns(summary.columns)

    def with_roles(self, roles: Roles) -> "EngineSource":
        return EngineSource(self.path, roles, self.engine, self.options, self.memory_limit, self.master, self.reason,
                            self.spark_conf, self.spark_timeout)

    def open_backend(self):
        """A back-end for this source's engine with its settings (close it)."""
        return open_backend(self.engine, self.memory_limit, self.master, self.keep_spaces,
                            spark_conf=self.spark_conf or None, spark_timeout=self.spark_timeout)

    @property
    def delimiter(self) -> str | None:
        return self.options.get("delimiter")

    @property
    def encoding(self) -> str | None:
        return self.options.get("encoding")

    @property
    def keep_spaces(self) -> bool:
        return bool(self.options.get("keep_spaces"))

    @contextlib.contextmanager
    def session(self, backend=None):
        own = backend is None
        backend = self.open_backend() if own else backend
        try:
            yield EngineSession(self, backend)
        finally:
            if own:
                backend.close()

    def _run(self, verb: str, *args, **kwargs):
        with self.session() as session:
            return getattr(session, verb)(*args, **kwargs)

    def check_roles(self) -> None:
        self._run("check_roles")

    def open_release(self, definition: ReleaseDefinition) -> OpenedRelease:
        return self._run("open_release", definition)

    def score(self, release, weights, x: float = 1.0, missing_weight_zero: bool = False, **options):
        return self._run("score", release, weights, x, missing_weight_zero, **options)

    def measure(self, release=None, **options):
        return self._run("measure", release, **options)

    def risk_lens(self, release, **options):
        return self._run("risk_lens", release, **options)

    def disclosure_risk(self, attributes, value_weights=None, **options):
        return self._run("disclosure_risk", attributes, value_weights, **options)

    def designer(self, hierarchies=None, elements=None, *, drop_absent_hierarchies: bool = False):
        """A designer with a back-end of its own (``close()`` it), kept between evaluations."""
        backend = self.open_backend()
        try:
            return EngineSession(self, backend).designer(hierarchies, elements,
                                                         drop_absent_hierarchies=drop_absent_hierarchies,
                                                         own_backend=True)
        except BaseException:
            backend.close()
            raise

    def evaluate_saved_designs(self, settings: dict, weights, x: float = 1.0, elements=None, progress=None):
        if not settings.get("saved"):
            return super().evaluate_saved_designs(settings, weights, x, elements, progress)
        with self.session() as session:
            return session.evaluate_saved_designs(settings, weights, x, elements, progress)

    def describe(self, preview_rows: int | None = None, progress=None):
        return self._run("describe", preview_rows, progress)

    def column_values(self, column: str, limit: int | None = None):
        return self._run("column_values", column, limit)

    def spaces_stripped(self):
        return self._run("spaces_stripped")

    def profile(self):
        return self._run("profile")


class EngineSession(EngineSource):
    """An :class:`EngineSource` with one back-end open: the verbs share its relations (the
    source as ``src``, the release opened last as ``published``)."""

    def __init__(self, source: EngineSource, backend):
        self.__dict__.update(source.__dict__)    # the same file, roles, settings and kept measures
        self.backend = backend
        self._src = None          # how ``src`` was opened last ("roles": for releases)
        self._published = None    # the definition ``published`` holds
        self.finest = None        # the source's finest aggregate as ``fin`` (.finest), once a score asked for it

    @contextlib.contextmanager
    def session(self, backend=None):
        yield self

    def _run(self, verb: str, *args, **kwargs):   # a session's verbs run on its own back-end
        raise AssertionError("EngineSession defines every verb")

    def _source_open(self) -> None:
        if self._src != "roles":
            self._src, self._published, self.finest = None, None, None
            self.backend.open_source(self.path, self.roles, self.delimiter, self.encoding,
                                     raw_continuous=self.engine == "duckdb")
            self._src = "roles"

    def check_roles(self) -> None:
        self._source_open()

    def _touched(self) -> None:
        """``src`` was opened otherwise (a design, a whole-table measure): open it again when needed."""
        self._src, self._published, self.finest = None, None, None

    def _finest(self):
        """DuckDB: the source's finest aggregate as ``fin`` — from the cache the designer
        shares (:mod:`tklscore.core.engines.finest`) when it still matches the file, else
        from ``src`` and kept there when it pays for itself (``finest.pays``) — which the
        whole source is scored over; None: the records are scored (an aggregate about as
        large as the file, or Spark: its paths may be remote and its statements are jobs)."""
        if self.engine != "duckdb":
            return None
        if self.finest is None:
            from tklscore.core.engines.finest import open_finest

            options = {"delimiter": self.delimiter, "encoding": self.encoding,
                       "keep_spaces": self.backend.keep_spaces}
            self.finest = open_finest(self.backend, self.path, self.roles, options, lambda: None,
                                      only_if_it_pays=True)
        return None if self.finest.skipped else self.finest

    # ------------------------------------------------------------------ releases

    def open_release(self, definition: ReleaseDefinition) -> OpenedRelease:
        self._source_open()
        self._published = None
        name = self.backend.open_release(definition, self.roles)
        self._published = definition
        self._name = name
        return OpenedRelease(definition, name, -1, self.backend.unlocated())

    def _opened(self, release) -> ReleaseDefinition:
        definition = release.definition if isinstance(release, OpenedRelease) else release
        if not isinstance(definition, ReleaseDefinition):
            raise TypeError(f"out of core a release is a ReleaseDefinition, not {type(definition).__name__}")
        if self._src != "roles" or self._published != definition:
            self.open_release(definition)
        return definition

    def score(self, release, weights, x: float = 1.0, missing_weight_zero: bool = False, *,
              skip_unlocated: bool = True, strict: bool = False, records_path: str | None = None,
              stream: bool = False):
        if strict:
            raise InputError(f"--strict (the published file's sensitive values against the source's) is checked by "
                             f"the in-memory engine; drop --engine {self.engine} or --strict")
        self._opened(release)
        finest = self._finest()

        def score(w, path=records_path):
            return score_in_engine(self.backend, self.roles, w, x, missing_weight_zero, path, source_name=self.path,
                                   published_name=self._name, skip_unlocated=skip_unlocated, stream=stream,
                                   finest=finest)
        if isinstance(weights, WeightsPerScore):
            if weights.m_score is weights.tkl and weights.l_severity is weights.tkl:
                return score(weights.tkl)
            if records_path is not None or stream:
                if records_path is not None:
                    raise InputError("each score with its own weights is written as JSON, not as a records file")
                from tklscore.core.engines.record_store import RecordStore

                parts = (score(weights.tkl, None), score(weights.m_score, None), score(weights.l_severity, None))
                merged = merge_reports(*parts)
                merged.stored = RecordStore.merged(*(part.stored for part in parts))
                for part in parts:
                    part.stored.close()
                return merged
            return merge_reports(score(weights.tkl), score(weights.m_score), score(weights.l_severity))
        return score(weights)

    # ------------------------------------------------------------------ risk

    def measure(self, release=None, **options):
        return Source.measure(self, release, **options)

    def _measure_release(self, release, **options):
        from tklscore.core.engines.measures import measure_published

        definition = self._opened(release)
        return measure_published(self.backend, self.roles, definition.name, **options)

    def _measure_table(self, *, identifying=(), population: str | None = None, **options):
        from tklscore.core.engines.measures import measure_files

        self._touched()
        return measure_files(self.engine, self.path, self.roles, identifying=identifying, population=population,
                             delimiter=self.delimiter, encoding=self.encoding, backend=self.backend, **options)

    def risk_lens(self, release, *, measures=None, weights=None, parameters=None, alpha=None, epsilon=None,
                  threshold=None, progress=None):
        from tklscore.core.engines.lens import release_risk_lens
        from tklscore.core.risk.disclosure_risk import DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD

        definition = self._opened(release)
        measured = measures if measures is not None else self.measured.get(definition)
        return release_risk_lens(self.backend, self.roles, parameters, weights, alpha=_or(alpha, DEFAULT_ALPHA),
                                 epsilon=_or(epsilon, DEFAULT_EPSILON), threshold=_or(threshold, DEFAULT_THRESHOLD),
                                 measures=measured, name=definition.name, progress=progress)

    def disclosure_risk(self, attributes, value_weights=None, *, alpha=None, epsilon=None, threshold=None,
                        parameters_name: str | None = None, records_path: str | None = None, progress=None):
        from tklscore.core.engines.disclosure_risk import disclosure_files
        from tklscore.core.risk.disclosure_risk import DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD

        return disclosure_files(self.engine, self.path, attributes, value_weights, id_column=self.roles.identifier,
                                alpha=_or(alpha, DEFAULT_ALPHA), epsilon=_or(epsilon, DEFAULT_EPSILON),
                                threshold=_or(threshold, DEFAULT_THRESHOLD), parameters_name=parameters_name,
                                records_path=records_path, delimiter=self.delimiter, encoding=self.encoding,
                                backend=self.backend)

    # ------------------------------------------------------------------ designs

    def designer(self, hierarchies=None, elements=None, *, drop_absent_hierarchies: bool = False,
                 own_backend: bool = False):
        from tklscore.core.engines.design import EngineDesigner

        self._touched()
        return EngineDesigner(self.backend, self.path, self.roles, hierarchies, elements, self.delimiter,
                              self.encoding, drop_absent_hierarchies=drop_absent_hierarchies,
                              own_backend=own_backend)

    def evaluate_saved_designs(self, settings: dict, weights, x: float = 1.0, elements=None, progress=None):
        return Source.evaluate_saved_designs(self, settings, weights, x, elements, progress)

    # ------------------------------------------------------------------ the file itself

    def describe(self, preview_rows: int | None = None, progress=None):
        from tklscore.core.engines.source import PREVIEW_ROWS, describe_source

        return describe_source(self.path, delimiter=self.delimiter, encoding=self.encoding,
                               preview_rows=PREVIEW_ROWS if preview_rows is None else preview_rows,
                               backend=self.backend, progress=progress, keep_spaces=self.keep_spaces)

    def column_values(self, column: str, limit: int | None = None):
        from tklscore.core.engines.source import column_values

        return column_values(self.path, column, delimiter=self.delimiter, encoding=self.encoding, limit=limit,
                             backend=self.backend, keep_spaces=self.keep_spaces)

    def profile(self):
        from tklscore.core.engines.source import profile_source

        return profile_source(self.path, delimiter=self.delimiter, encoding=self.encoding, backend=self.backend,
                              keep_spaces=self.keep_spaces)

    def spaces_stripped(self):
        """Where the spaces around the source's values were removed (from its first records)."""
        scan = getattr(self.backend, "source_scan", None)
        if scan is None:
            scan = self.backend.scan(self.path, self.delimiter, self.encoding, "__spaces")
        return self.backend.spaces_stripped(scan)


def _or(value, default):
    return default if value is None else value
