"""A source loaded in memory: a :class:`~tklscore.core.tables.loading.Table`, its roles and
the :class:`~tklscore.core.scoring.scores.Scorer` that holds its codes and distinguishing
factors; every verb runs on the shared group-by engine."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tklscore.core.release.selection import ReleaseDefinition, resolve_release
from tklscore.core.scoring.scores import Scorer
from tklscore.core.scoring.weights import WeightsPerScore
from tklscore.core.source.base import OpenedRelease, Source
from tklscore.core.tables.loading import Table, load_table
from tklscore.core.tables.published import Release, source_ids
from tklscore.core.tables.roles import Roles


QUICK_CHECK_ROWS = 200_000   # a release of a table this small is located at once when it is defined


class MemorySource(Source):
    """``table`` under ``roles``; ``scorer``: one already built for them (with its factors),
    else one is built when first needed. ``releases``: releases located before, kept."""

    engine = "memory"

    def __init__(self, table: Table, roles: Roles, scorer: Scorer | None = None,
                 releases: dict[ReleaseDefinition, Release] | None = None, options: dict | None = None):
        self.table, self.roles, self.name = table, roles, table.name
        self.options = dict(options or {})   # how the table was read (delimiter, encoding, sheet)
        self._scorer = scorer if scorer is not None and scorer.source is table and scorer.roles == roles else None
        self.releases: dict[ReleaseDefinition, Release] = dict(releases or {})
        self.measured: dict[ReleaseDefinition, object] = {}   # a release's measures (they need no weights)

    def with_roles(self, roles: Roles) -> "MemorySource":
        return MemorySource(self.table, roles, options=self.options)

    @property
    def scorer(self) -> Scorer:
        if self._scorer is None:
            self._scorer = Scorer(self.table, self.roles)
        return self._scorer

    @property
    def has_scorer(self) -> bool:
        return self._scorer is not None

    def __len__(self) -> int:
        return len(self.table)

    def check_roles(self) -> None:
        if self.roles.sa:
            self.scorer   # built (and the roles checked) once

    def prepare(self, progress=None) -> None:
        if self.roles.sa:
            self.scorer.compute_factors(progress)

    def check_release(self, definition: ReleaseDefinition, summary=None) -> None:
        if len(self.table) <= QUICK_CHECK_ROWS:
            self.open_release(definition)
        elif definition.kind == "filter":   # a large table's filter is read and its columns checked all the same
            from tklscore.core.release.filters import parse_filter

            parse_filter(definition.expression).require_columns(self.table.columns)

    # ------------------------------------------------------------------ releases

    def open_release(self, definition: ReleaseDefinition) -> OpenedRelease:
        release = self.releases.get(definition)
        if release is None:
            release = self.releases[definition] = resolve_release(definition, self.table, self.roles)
        return OpenedRelease(definition, definition.name, len(release), list(release.unlocated), release)

    def located(self, definition: ReleaseDefinition) -> OpenedRelease:
        return self.open_release(definition)

    def _release(self, release) -> OpenedRelease:
        if isinstance(release, OpenedRelease):
            return release
        if isinstance(release, Release):
            return OpenedRelease(ReleaseDefinition(release.name or "published"), release.name, len(release),
                                 list(release.unlocated), release)
        return self.open_release(release)

    def score(self, release, weights, x: float = 1.0, missing_weight_zero: bool = False, *,
              skip_unlocated: bool = True, strict: bool = False, records_path: str | None = None,
              stream: bool = False):
        scorer = self.scorer      # the source and roles are checked first; ``stream`` is an engine's
        located = self._release(release).release
        if strict:
            located.require_consistent()
        if not skip_unlocated:
            located.require_all_located()
        if isinstance(weights, WeightsPerScore):
            report = scorer.score_with_own_weights(located, weights, x, missing_weight_zero)
        else:
            report = scorer.score(located, weights, x, missing_weight_zero)
        if records_path is not None:
            _write_parquet(report.records, records_path, self.table.name)
            report.records_path = records_path
        return report

    # ------------------------------------------------------------------ risk

    def _measure_release(self, release, **options):
        from tklscore.core.risk.measures import measure_release

        located = self._release(release).release
        return measure_release(self.table, self.roles, located.positions, self.scorer if self.roles.sa else None,
                               **options)

    def _measure_table(self, *, identifying=(), population: str | None = None, sample_weight: str | None = None,
                       **options):
        from tklscore.core.risk.measures import check_identifier_columns, measure_table

        check_identifier_columns(identifying, self.roles.qi, self.roles.sa, self.name, id_column=self.roles.identifier,
                                 sample_weight=sample_weight)
        if self.roles.identifier is not None:
            self.table.require_columns([self.roles.identifier])
        loaded = (load_table(population, **{k: v for k, v in self.options.items()
                                            if k in ("delimiter", "encoding", "keep_spaces")})
                  if population is not None else None)
        return measure_table(self.table, qi=self.roles.qi, sa=self.roles.sa, continuous=self.roles.continuous,
                             identifier_columns=identifying, population=loaded, sample_weight=sample_weight,
                             **options)

    def risk_lens(self, release, *, measures=None, weights=None, parameters=None, alpha=None, epsilon=None,
                  threshold=None, progress=None):
        from tklscore.core.risk.disclosure_risk import DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD
        from tklscore.core.risk.lens import risk_lens

        opened = self._release(release)
        located = opened.release
        scorer = self.scorer if self.roles.sa else None
        measured = measures if measures is not None else self.measured.get(opened.definition)
        return risk_lens(self.table, self.roles, located.positions, ids=np.asarray(located.ids, dtype=object),
                         release=opened.name, scorer=scorer, measures=measured, weights=weights,
                         parameters=parameters, alpha=_or(alpha, DEFAULT_ALPHA), epsilon=_or(epsilon, DEFAULT_EPSILON),
                         threshold=_or(threshold, DEFAULT_THRESHOLD), progress=progress)

    def disclosure_risk(self, attributes, value_weights=None, *, alpha=None, epsilon=None, threshold=None,
                        parameters_name: str | None = None, records_path: str | None = None, progress=None):
        from tklscore.core.risk.disclosure_risk import DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD, disclosure_risk

        risk = disclosure_risk(self.table, attributes, value_weights, alpha=_or(alpha, DEFAULT_ALPHA),
                               epsilon=_or(epsilon, DEFAULT_EPSILON), threshold=_or(threshold, DEFAULT_THRESHOLD),
                               parameters_name=parameters_name, progress=progress)
        if self.roles.identifier:
            risk.ids = source_ids(self.table, self.roles.identifier).to_numpy(dtype=object)
        if records_path is not None:
            named = {"id": risk.ids} if risk.ids is not None else {"row": np.arange(risk.n, dtype=np.int64)}
            _write_parquet(pd.DataFrame({**named, "l_sum": risk.l_sum, "d": risk.d}), records_path, self.table.name)
            risk.records_path = records_path
        return risk

    # ------------------------------------------------------------------ designs

    def designer(self, hierarchies=None, elements=None, *, drop_absent_hierarchies: bool = False):
        from tklscore.core.release.designer import ReleaseDesigner

        hierarchies = dict(hierarchies or {})
        if drop_absent_hierarchies:
            hierarchies = {c: h for c, h in hierarchies.items() if c in self.table.columns}
        return ReleaseDesigner(self.table, self.roles, hierarchies, scorer=self._scorer, elements=elements)

    # ------------------------------------------------------------------ the table itself

    def describe(self, preview_rows: int | None = None, progress=None):
        from tklscore.core.engines.source import PREVIEW_ROWS, SourceSummary

        table = self.table
        shown = table.frame.iloc[:PREVIEW_ROWS if preview_rows is None else preview_rows]
        kind = {"parquet": "Parquet", "csv": "CSV"}.get(table.kind, table.kind)
        return SourceSummary(table.name, table.name.rsplit("/", 1)[-1], list(table.columns), len(table),
                             shown.reset_index(drop=True), kind, table.delimiter, table.encoding, dict(self.options),
                             table.spaces_stripped)

    def spaces_stripped(self):
        return self.table.spaces_stripped

    def profile(self):
        from tklscore.core.tables.role_guesses import profile_table

        return profile_table(self.table)

    def column_values(self, column: str, limit: int | None = None) -> pd.DataFrame:
        self.table.require_columns([column])
        codes = self.table.codes(column)
        counts = np.bincount(codes.codes, minlength=codes.cardinality)
        shown = slice(None) if limit is None else slice(0, max(0, int(limit)))
        frame = pd.DataFrame({"value": pd.Series(np.asarray(codes.uniques, dtype=object)[shown], dtype=object),
                              "count": counts[shown].astype(np.int64)})
        frame.attrs["distinct"] = codes.cardinality
        frame.attrs["beyond"] = codes.cardinality - len(frame)
        return frame


def _write_parquet(records: pd.DataFrame, path: str, source: str) -> None:
    """Per-record results as Parquet, atomically and never over the source."""
    from tklscore.core.files.atomic import atomic_path
    from tklscore.core.files.records import write_records_parquet

    with atomic_path(path, [source]) as temporary:
        write_records_parquet(records, temporary)


def _or(value, default):
    return default if value is None else value

