"""What every source answers, in memory or out of core alike: the verbs of :class:`Source`
and the release handle they share (:class:`OpenedRelease`)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.tables.roles import Roles

ENGINE_NAMES = {"memory": "memory", "duckdb": "DuckDB", "spark": "Spark"}


@dataclass
class OpenedRelease:
    """A release definition opened in a source: its name, how many records it publishes
    and those the source lacks; ``release`` holds the located rows in memory (an engine
    keeps them)."""

    definition: ReleaseDefinition
    name: str
    rows: int
    unlocated: list[str] = field(default_factory=list)
    release: object | None = None     # core.tables.published.Release, in memory

    def __len__(self) -> int:
        return self.rows


class Source:
    """A source table under one assignment of roles, and what can be asked of it — scores,
    measures, a design's evaluation, D(r), the risk lens, its description and a column's
    values — with one result type per question whatever the engine. Implementations:
    :class:`~tklscore.core.source.memory.MemorySource` (a loaded table and its codes) and
    :class:`~tklscore.core.source.engine.EngineSource` (a back-end over the file); the
    application chooses between them once (:func:`tklscore.core.source.open_source`)."""

    engine: str = "memory"
    name: str
    roles: Roles
    scorer = None    # in memory: the Scorer with the source's codes and distinguishing factors
    releases: dict   # the releases located so far (in memory; an engine locates them as it scores)
    measured: dict   # each release's measures (by definition), kept

    @property
    def out_of_core(self) -> bool:
        """Whether an engine reads the file (the table is never loaded)."""
        return self.engine != "memory"

    @property
    def engine_name(self) -> str:
        """The engine as people name it."""
        return ENGINE_NAMES[self.engine]

    def can_score(self) -> bool:
        """Whether the roles allow scores: a sensitive attribute (and out of core a
        quasi-identifier, :func:`~tklscore.core.scoring.scores.check_roles`)."""
        from tklscore.core.scoring.scores import check_roles

        try:
            check_roles(self.roles, self.out_of_core)
        except Exception:
            return False
        return True

    def prepare(self, progress=None) -> None:
        """Compute now what every later question reuses (in memory the codes and the
        distinguishing factors); ``progress(fraction)`` may raise to stop."""

    def located(self, definition: ReleaseDefinition) -> OpenedRelease | None:
        """The release located now, where the source does that at once (in memory); None
        where its records are counted as it is scored (an engine)."""
        return None

    def check_release(self, definition: ReleaseDefinition, summary=None) -> None:
        """Refuse a release definition that cannot apply, where that is quick to tell (a
        small table's release located; a filter checked against the columns of ``summary``);
        the others are located while they are scored."""

    @contextlib.contextmanager
    def session(self, backend=None):
        """The source with one engine kept open for the verbs inside (an engine's
        back-end; ``backend``: one already open, left open); in memory the source itself."""
        yield self

    def with_roles(self, roles: Roles) -> "Source":  # pragma: no cover - interface
        """The same source under other roles (a loaded table is not read again)."""
        raise NotImplementedError

    # the verbs; each implementation answers every one of them
    def check_roles(self) -> None:
        """Check the roles against the source now (an engine reads the file), so that a role
        that does not fit fails once, by file, row and column."""

    def open_release(self, definition: ReleaseDefinition) -> OpenedRelease:  # pragma: no cover - interface
        raise NotImplementedError

    def score(self, release, weights, x: float = 1.0, missing_weight_zero: bool = False, *,
              skip_unlocated: bool = True, strict: bool = False, records_path: str | None = None,
              stream: bool = False):
        """The :class:`~tklscore.core.scoring.scores.ScoreReport` of a release (a definition
        or an opened release); ``weights`` are a ``Weights``, or a ``WeightsPerScore`` (each
        score its own). Unlocated records are left out with a warning, or with
        ``skip_unlocated=False`` an error; ``strict`` refuses published values that
        contradict the source; ``records_path``: the records written there (Parquet) by an
        engine instead of fetched; ``stream``: an engine keeps them on disk in a
        :class:`~tklscore.core.engines.record_store.RecordStore` (``report.stored``) and the
        report holds the totals (in memory the records stay in the report)."""
        raise NotImplementedError  # pragma: no cover - interface

    def measure(self, release=None, *, qi_importance: bool = False, progress=None, risk_threshold=None,
                suppressed_marker=None, **options):
        """The :class:`~tklscore.core.risk.measures.Measures` of a release (journalist and
        marketer risk against the source; kept per release, as they need no weights), or of
        the whole table (``release`` None; options as ``tklscore measures``: identifying,
        population (a path), sampling_fraction, exclude_suppressed, sample_weight)."""
        given = {k: v for k, v in (("risk_threshold", risk_threshold), ("suppressed_marker", suppressed_marker))
                 if v is not None}
        if release is None:
            return self._measure_table(qi_importance=qi_importance, progress=progress, **given, **options)
        definition = release.definition if isinstance(release, OpenedRelease) else release
        if not qi_importance and not given and definition in self.measured:
            return self.measured[definition]
        measures = self._measure_release(release, qi_importance=qi_importance, progress=progress, **given)
        if not qi_importance and not given:
            self.measured[definition] = measures
        return measures

    def _measure_release(self, release, **options):  # pragma: no cover - interface
        raise NotImplementedError

    def _measure_table(self, **options):  # pragma: no cover - interface
        raise NotImplementedError

    def risk_lens(self, release, *, measures=None, weights=None, parameters=None, alpha=None, epsilon=None,
                  threshold=None, progress=None):  # pragma: no cover - interface
        """The :class:`~tklscore.core.risk.lens.RiskLens` of a release."""
        raise NotImplementedError

    def disclosure_risk(self, attributes, value_weights=None, *, alpha=None, epsilon=None, threshold=None,
                        parameters_name: str | None = None, records_path: str | None = None,
                        progress=None):  # pragma: no cover - interface
        """Orooji–Knapp D(r) of every record of the table
        (:class:`~tklscore.core.risk.disclosure_risk.DisclosureRisk`; records written to
        ``records_path`` by an engine instead of fetched); ``roles.identifier`` names them."""
        raise NotImplementedError

    def designer(self, hierarchies=None, elements=None, *, drop_absent_hierarchies: bool = False):
        """A designer of releases of this source whose ``evaluate(design, weights, x, …)``
        gives a :class:`~tklscore.core.release.designer.DesignResult` (close it when done)."""
        raise NotImplementedError  # pragma: no cover - interface

    def evaluate(self, design, weights, x: float = 1.0, hierarchies=None, elements=None, **options):
        """One design's :class:`~tklscore.core.release.designer.DesignResult`."""
        designer = self.designer(hierarchies, elements)
        try:
            return designer.evaluate(design, weights, x, **options)
        finally:
            close = getattr(designer, "close", None)
            if close is not None:
                close()

    def evaluate_saved_designs(self, settings: dict, weights, x: float = 1.0, elements=None, progress=None):
        """The releases saved from the Design view (``settings``: the project's design
        settings) re-evaluated, each failure kept with its reason
        (:class:`~tklscore.core.release.designer.SavedDesigns`)."""
        from tklscore.core.release.designer import SavedDesigns, evaluate_designs

        if not settings.get("saved"):
            return SavedDesigns({}, {})
        designers = []

        def designer_of(hierarchies):
            designers.append(self.designer(hierarchies, elements, drop_absent_hierarchies=True))
            return designers[-1]

        try:
            return evaluate_designs(settings, designer_of, weights, x, progress)
        finally:
            for designer in designers:
                close = getattr(designer, "close", None)
                if close is not None:
                    close()

    def describe(self, preview_rows: int | None = None, progress=None):  # pragma: no cover - interface
        """The source's columns, records and first rows
        (:class:`~tklscore.core.engines.source.SourceSummary`)."""
        raise NotImplementedError

    def profile(self):  # pragma: no cover - interface
        """Each column's :class:`~tklscore.core.tables.role_guesses.ColumnProfile` (distinct
        values, numbers, empty cells), what the role guesses read."""
        raise NotImplementedError

    def spaces_stripped(self):  # pragma: no cover - interface
        """Where the spaces around CSV values were removed as the source was read
        (:class:`~tklscore.core.tables.spaces.SpacesStripped`; empty when kept or none)."""
        raise NotImplementedError

    def column_values(self, column: str, limit: int | None = None):  # pragma: no cover - interface
        """A column's distinct values as text, each with its count, in first-appearance order."""
        raise NotImplementedError
