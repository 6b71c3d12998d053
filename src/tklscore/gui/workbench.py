"""The application state behind every view: the project, its source (a
:class:`~tklscore.core.source.Source`, loaded or read out of core), the tkl-Data Model with
undo/redo (:mod:`.weights_state`), the candidate releases and their scores; the recovery
copies are :mod:`.recovery`'s.

Views read from the Workbench and call its methods; it tells them what changed through
signals. Long work (loading, distinguishing factors, scoring) runs in a TaskRunner, one
task at a time; a result that an edit has made stale is dropped.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoStack

from tklscore.core.engines.choice import DEFAULT_MEMORY_SHARE, EngineChoice, check_share, choose_engine, moves_source
from tklscore.core.engines.source import SourceSummary
from tklscore.core.errors import InputError, MissingWeightsError
from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.numbers import score as score_text
from tklscore.core.project import Project, check_paths
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.risk.measures import Measures
from tklscore.core.scoring.scores import ScoreReport, Scorer
from tklscore.core.source import KeptSource, ProjectScores, Source, score_project
from tklscore.core.tables.loading import Table, load_table, warm_columns
from tklscore.core.tables.published import Release
from tklscore.core.tables.roles import Roles
from tklscore.gui.measures_state import MeasuresAfterScores
from tklscore.gui.recovery import AUTOSAVE_MS, Recovery
from tklscore.gui.tasks import SIDE, TaskControl, TaskRunner
from tklscore.gui.weights_state import WeightsState


class Workbench(WeightsState, MeasuresAfterScores, Recovery, QObject):
    sourceChanged = Signal()      # a new table, or new roles
    releasesChanged = Signal()    # releases added/removed/renamed, or another one is current
    modelChanged = Signal()       # the tkl-Data Model or the weights changed
    scoresChanged = Signal()      # new score reports
    measuresChanged = Signal()    # the candidate releases' measures, taken after their scores are shown
    status = Signal(str)          # what just happened, for the status bar
    failed = Signal(str)          # a specific error for the user
    dirtyChanged = Signal(bool)
    engineChanged = Signal(str)   # the source is scored out of core (the reason), or in memory ("")

    def __init__(self, parent: QObject | None = None):
        QObject.__init__(self, parent)
        self.runner = TaskRunner(self)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._clean_changed)
        self.project = Project()
        self.project_path: str | None = None
        self.table: Table | None = None            # a source loaded in memory
        self.scorer: Scorer | None = None          # its codes and distinguishing factors (with roles)
        self.reports: dict[str, ScoreReport] = {}
        self.measures: dict[str, Measures] = {}  # each release's privacy models and risk (needs QIs)
        self.risk_lens = None  # the Risk view's latest core.risk.lens.RiskLens (measures + D(r)), for the report
        self.designed_reports: dict[str, ScoreReport] = {}  # releases saved from the Design view
        self.release_errors: dict[str, str] = {}  # releases that could not be resolved, and why
        self.refused_releases: set[str] = set()   # of those, the filters refused (core.release.filters)
        self._sources = KeptSource()
        self._prepared: Source | None = None  # the source once prepared for its roles (scores follow)
        self._generation = {"source": 0, "scorer": 0, "scores": 0}
        self._dirty = False
        self._model_pending = None  # the opened project's model being read (a token)
        self._score_models_cache, self._score_models_reads = {}, set()   # weights_state.py
        self._saves = 0            # explicit saves so far
        self.memory_share = DEFAULT_MEMORY_SHARE   # a source larger than this share of free memory: DuckDB
        self.engine_choice: EngineChoice | None = None
        self.source_summary: SourceSummary | None = None  # an out-of-core source: columns, rows, first rows
        from tklscore.gui.model_follower import ModelFollower

        self.follower = ModelFollower(self)   # the model follows the table (§6); a foreign one is checked
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self.autosave_timer.start()

    # ------------------------------------------------------------------ project

    def new_project(self) -> None:
        self.runner.cancel_all()
        self._model_pending = self._choosing_score_models = None
        self.project = Project()
        self.project_path = None
        self.table = self.scorer = self.model = self.weights = self.weights_per_score = None
        self.model_origin = ""
        self.source_summary = None
        self.weights_problem = None
        self.reports, self.measures, self.designed_reports = {}, {}, {}
        self.release_errors, self.refused_releases = {}, set()
        self._prepared = None
        self._sources.clear()
        if self.engine_choice is not None:
            self.engine_choice = None
            self.engineChanged.emit("")
        self.undo_stack.clear()
        self._mark(False)
        self.sourceChanged.emit()
        self.releasesChanged.emit()
        self.modelChanged.emit()
        self.scoresChanged.emit()

    def load_example(self, name: str = "thesis") -> None:
        if name != "thesis":
            raise InputError(f"there is no built-in example '{name}' (thesis is)")
        example = thesis_example()
        model = thesis_model()
        project = Project(builtin="thesis", roles=example.roles,
                          releases=[ReleaseDefinition("Scenario 1", "ids", ids=tuple(example.published_ids)),
                                    ReleaseDefinition("Scenario 2", "ids",
                                                      ids=tuple(example.source.frame["id"]))],
                          current_release="Scenario 1",
                          model_turtle=model.to_graph().serialize(format="turtle"))
        self._open(project, None, model, origin="the thesis example's model")

    def open_project(self, path: str, allowed=()) -> None:
        """Open the project file ``path``. Files it names outside its folder tree are read
        only when the user chose or allowed them (``allowed``, or earlier for this project
        file: :meth:`allow_paths`, a save); otherwise nothing is read and
        :class:`~tklscore.core.project.OutsideFolderError` names them (the window asks)."""
        project = Project.load(path)
        check_paths(project, path, [*allowed, *self.allowed_paths(path)])
        self._open(project, str(path))

    def _open(self, project: Project, path: str | None, model: TklDataModel | None = None,
              origin: str | None = None) -> None:
        """Open ``project``; its tkl-Data Model (``model``, or read from the project's Turtle on the
        task runner, ahead of the source; from ``origin``, default the project) gives the weights."""
        self.new_project()
        self.project = project
        self.project_path = path
        self.model = model
        self.model_origin = origin or (f"the project {Path(path).name}" if path else "the project")
        reading = model is None and bool(project.model_turtle)
        if not reading:
            self._refresh_weights()
            self.modelChanged.emit()
        self.releasesChanged.emit()
        if reading:   # started once the views hold the project: its work would slow theirs
            self._read_model(project.model_turtle, path)
        self._load_source()
        if project.notes:  # what opening had to change, e.g. a second release of one name renamed
            self._fail(f"{path or 'The project'}: " + "; ".join(project.notes))

    def _read_model(self, turtle: str, path: str | None) -> None:
        """Parse the project's model off the UI thread (Turtle parsing is slow), on the side
        lane while the source loads; until it arrives the project keeps its Turtle, and a newer
        model or project supersedes it."""
        token = self._model_pending = object()

        def read(control: TaskControl) -> TklDataModel:
            from rdflib import Graph

            graph = Graph()
            try:
                graph.parse(data=turtle, format="turtle")
            except Exception as error:  # rdflib raises parser-specific types
                raise InputError(f"the tkl-Data Model inside the project cannot be read: {error}",
                                 file=path) from None
            return TklDataModel.from_graph(graph, path or "project")

        def done(model: TklDataModel) -> None:
            if self._model_pending is token:
                self._model_pending = None
                self._set_model(model)
                if self.table is not None:   # the table was loaded first: the model follows it now
                    self.follower.follow()

        def failed(message: str) -> None:
            if self._model_pending is token:
                self._model_pending = None
                self._refresh_weights()
                self.modelChanged.emit()
                self._fail(message)

        # beside the source being loaded on the main lane: neither needs the other until scoring
        self.runner.start("Reading the tkl-Data Model", read, done, failed, lane=SIDE)

    def model_pending(self) -> bool:
        """Whether the opened project's model is still being read."""
        return self._model_pending is not None

    def save_project(self, path: str | None = None) -> str:
        path = path or self.project_path
        if not path:
            raise InputError("the project has no file yet; choose where to save it")
        self._sync_project()
        self.project.save(path)
        # the files it names outside its folder were chosen (or allowed) in this session
        with contextlib.suppress(InputError, OSError):  # not remembering them costs a question, not the save
            self.allow_paths(str(path), [p for _, p in self.project.paths_outside(Path(path).resolve().parent)])
        self._saves += 1
        self.project_path = str(path)
        self.undo_stack.setClean()
        self._mark(False)
        self.status.emit(f"Saved {path}")
        self._recovery_path().unlink(missing_ok=True)
        return str(path)

    def _sync_project(self) -> None:
        if self._model_pending is None:  # else the project still holds the Turtle being read
            self.project.model_turtle = self.model.to_graph().serialize(format="turtle") if self.model else None

    def _clean_changed(self, clean: bool) -> None:
        self.dirtyChanged.emit(not clean or self._dirty)

    def is_dirty(self) -> bool:
        return self._dirty or not self.undo_stack.isClean()

    def _mark(self, dirty: bool) -> None:
        self._dirty = dirty
        self.dirtyChanged.emit(self.is_dirty())

    # ------------------------------------------------------------------ source and roles

    def open_source(self, path: str, options: dict | None = None, roles: Roles | None = None) -> None:
        """Load another source table. The project names it at once (so that the user can
        retry with other settings); if it fails to load, no table is held, never the old one."""
        self.project.source_path = str(path)
        self.project.builtin = None
        self.project.source_options = dict(options or {})
        self.project.roles = roles or Roles()
        self._mark(True)
        self._load_source()

    def source_change(self, path: str, options: dict | None = None):
        """What of the project's work applies to another source (core/source_change.py)."""
        from tklscore.core.source_change import source_change, table_columns

        attributes = list(self.weights.attributes) if self.weights is not None else None
        try:
            columns = table_columns(path, options)
        except InputError:
            columns = []  # the loader names what is wrong when the file is opened; nothing is known to apply
        return source_change(self.project, path, columns, attributes)

    def open_other_source(self, path: str, options: dict | None, change, keep: bool) -> None:
        """Open another table: in a new project, or keeping the work that still applies
        (``change``: :meth:`source_change`); nothing is re-read against the new table."""
        from tklscore.core.source_change import keep_what_applies, start_new_project

        if keep:
            project = keep_what_applies(self.project, change, path, options)
            model = self.model if project.model_turtle and self.model is not None else None
            self._open(project, self.project_path, model)
        else:
            self._open(start_new_project(path, options), None)
        self._mark(True)

    def set_memory_share(self, share: float) -> None:
        """The share of free memory a source may take before it is scored out of core; the
        open file source is read again when the new share changes where it is scored."""
        self.memory_share = check_share(share)
        path = self.project.source_path
        if self.project.builtin is None and path and moves_source(path, self.memory_share, self.engine_choice):
            self._load_source()

    def _load_source(self) -> None:
        """Open the project's source where the rule says (:mod:`tklscore.core.engines.choice`):
        loaded on the task runner, or described out of core; then prepare it for its roles."""
        project = self.project
        builtin, path, options = project.builtin, project.source_path, dict(project.source_options)
        if builtin is None and not path:
            return
        generation = self._next_generation("source")
        self.source_summary = None
        choice = None if builtin is not None else choose_engine(path, self.memory_share)
        choice = choice if choice is not None and choice.engine != "memory" else None   # the one choice of engine
        if choice != self.engine_choice:
            self.engine_choice = choice
            self.engineChanged.emit(choice.message(Path(path).name) if choice is not None else "")
        if choice is not None:
            self.table = self.scorer = None
            self.status.emit(choice.message(Path(path).name))
            self.sourceChanged.emit()
            self._describe_source(generation)
            self._prepare_source()
            return

        roles = project.roles

        def load(control: TaskControl):
            control.progress(5, "Loading the source table")
            table = thesis_example().source if builtin == "thesis" else load_table(
                path, **options, progress=lambda f: control.progress(int(5 + 90 * f), "Loading the source table"))
            # the sensitive columns' values, read on the UI thread when the model follows the table
            warm_columns(table, [c for c in roles.sa if c not in roles.continuous], roles.continuous)
            return table

        def failed(message: str) -> None:
            if generation == self._generation["source"]:
                self.table = self.scorer = None
                self.reports, self.measures = {}, {}
                self.sourceChanged.emit()
                self.scoresChanged.emit()
            self._fail(message)

        def done(table: Table) -> None:
            if generation != self._generation["source"]:
                return
            self.table = table
            self.status.emit(f"Loaded {table.name}: {len(table):,} records, {len(table.columns)} columns")
            self.sourceChanged.emit()
            self._prepare_source()

        self.runner.start("Loading the source table", load, done, failed, **cancelling(self, "source", generation, LOADING))

    @property
    def out_of_core(self) -> bool:
        """Whether the source is scored out of core (not loaded: ``table`` is None and
        ``source_summary`` describes it once read)."""
        return self.engine_choice is not None

    @property
    def source(self) -> Source | None:
        """The open source under the project's roles, as the core answers about it — the
        loaded table, or the file an engine reads (None before either)."""
        project = self.project
        return self._sources.get(project.source_path, project.source_options, project.roles, self.table,
                                 self.engine_choice)

    @property
    def resolved(self) -> dict[ReleaseDefinition, Release]:
        """The releases the source has located (in memory; an engine locates them as it scores)."""
        source = self.source
        return source.releases if source is not None else {}

    def _describe_source(self, generation: int) -> None:
        """Read the out-of-core source's columns, record count and first rows on the task
        runner (``source_summary``, announced by ``sourceChanged``)."""
        source = self.source
        text = f"Reading the source out of core ({source.engine_name})"

        def describe(control: TaskControl) -> SourceSummary:
            control.progress(5, text)
            return source.describe(progress=lambda f: control.progress(int(5 + 90 * f), text))

        def done(summary: SourceSummary) -> None:
            if generation != self._generation["source"]:
                return
            self.source_summary = summary
            self.status.emit(f"{summary.name}: {summary.rows:,} records, {len(summary.columns)} columns "
                             f"(out of core, {source.engine_name})")
            self.sourceChanged.emit()

        self.runner.start(text, describe, done, self._fail, **cancelling(self, "source", generation, READING))

    @property
    def has_source(self) -> bool:
        """A source to work on: loaded, or described out of core."""
        return self.table is not None or self.source_summary is not None

    def source_columns(self) -> list[str]:
        if self.table is not None:
            return list(self.table.columns)
        return list(self.source_summary.columns) if self.source_summary is not None else []

    def source_rows(self) -> int:
        if self.table is not None:
            return len(self.table)
        return self.source_summary.rows if self.source_summary is not None else 0

    def set_roles(self, roles: Roles) -> None:
        if self.table is not None:
            roles.validate(self.table)
        elif self.source_summary is not None:
            roles.validate(self.source_summary)
        self.project.roles = roles
        self._mark(True)
        self.sourceChanged.emit()
        self._prepare_source()

    def _prepare_source(self) -> None:
        """Prepare the source for its roles on the task runner (in memory: its codes and
        distinguishing factors, ``scorer``), then score every release."""
        self.scorer, self._prepared = None, None
        self.reports, self.measures, self.release_errors = {}, {}, {}
        self.scoresChanged.emit()
        source = self.source
        if source is None:
            return
        if not self.project.roles.sa:
            self.status.emit("Choose the quasi-identifiers and sensitive attributes to see scores")
            return
        generation = self._next_generation("scorer")

        def build(control: TaskControl) -> Source:
            control.progress(5, "Computing the distinguishing factors")
            source.prepare(lambda f: control.progress(int(10 + 90 * f), "Computing the distinguishing factors"))
            return source

        def done(prepared: Source) -> None:
            if generation != self._generation["scorer"]:
                return
            self._prepared = prepared
            self.scorer = prepared.scorer
            self.rescore()

        self.runner.start("Computing the distinguishing factors", build, done, self._fail,
                          **cancelling(self, "scorer", generation, FACTORS))

    # ------------------------------------------------------------------ releases

    def release_names(self) -> list[str]:
        """The releases of the Release chooser: those defined, then those designed."""
        return [r.name for r in self.project.releases] + self.project.designed_names()

    def _check_release(self, definition: ReleaseDefinition) -> None:
        """Check a new definition at once where that is quick (so a mistake is refused before
        it is added); the others are located while scoring, in the background."""
        source = self.source
        if source is not None:
            source.check_release(definition, self.source_summary)

    def add_release(self, definition: ReleaseDefinition, make_current: bool = True) -> None:
        if definition.name in self.release_names():
            raise InputError(f"there is already a release named '{definition.name}'")
        self._check_release(definition)
        self.project.releases.append(definition)
        if make_current or self.project.current_release is None:
            self.project.current_release = definition.name
        self._mark(True)
        self.releasesChanged.emit()
        self.rescore()

    def replace_release(self, name: str, definition: ReleaseDefinition) -> None:
        index = self.release_names().index(name)
        self._check_release(definition)
        self.project.releases[index] = definition
        if self.project.current_release == name:
            self.project.current_release = definition.name
        self._mark(True)
        self.releasesChanged.emit()
        self.rescore()

    def remove_release(self, name: str) -> None:
        self.project.releases = [r for r in self.project.releases if r.name != name]
        if self.project.remove_designed(name):
            self.designed_reports.pop(name, None)
            self.measures.pop(name, None)
        self.reports.pop(name, None)
        if self.project.current_release == name:
            self.project.current_release = self.project.releases[0].name if self.project.releases else None
        self._mark(True)
        self.releasesChanged.emit()
        self.scoresChanged.emit()

    def set_current_release(self, name: str) -> None:
        self.project.make_current(name)
        self.releasesChanged.emit()
        self.scoresChanged.emit()

    def current_report(self) -> ScoreReport | None:
        name = self.project.current_release
        return self.reports.get(name) if name else None

    def current_release(self) -> Release | None:
        """The current release's source records (None: none, or a designed release: transformed records)."""
        name = self.project.current_release
        if not name or name in self.project.designed_names():
            return None
        definition = self.project.release(name)
        return self.resolved.get(definition)

    # ------------------------------------------------------------------ scoring

    def rescore(self) -> None:
        """Score every release in the background with the current weights and x
        (:func:`tklscore.core.source.score_project`, in memory or out of core alike)."""
        source = self.source
        if source is None or source is not self._prepared:
            return   # no source yet, or it is being prepared (it rescores when ready)
        if self.weights is None or not source.can_score():
            self.reports, self.measures = {}, {}
            self.scoresChanged.emit()
            return
        weights, per_score, x = self.weights, self.weights_per_score, self.project.x
        definitions = list(self.project.releases)
        design_settings, model = dict(self.project.settings.get("design") or {}), self.weights_model()
        generation = self._next_generation("scores")
        where = f" (out of core, {source.engine_name})" if source.out_of_core else ""

        def score(control: TaskControl) -> ProjectScores | MissingWeightsError:
            from tklscore.core.release.designer import element_weights

            elements = element_weights(model) if model is not None and design_settings.get("saved") else None
            try:
                scores = score_project(source, definitions, weights, x, per_score=per_score,
                                       design_settings=design_settings, elements=elements, progress=control.progress,
                                       measure=self.measured_with_scores(source))
            except MissingWeightsError as error:   # weights that leave sensitive values without a weight
                return error
            for report in scores.reports.values():
                report.riskiest()   # what the Scores view highlights, found here rather than on the UI thread
            return scores

        def done(scores: ProjectScores | MissingWeightsError) -> None:
            if generation != self._generation["scores"]:
                return
            if isinstance(scores, MissingWeightsError):
                self._refuse_weights(scores)
                return
            previous = self.release_errors
            self.reports, self.release_errors, self.refused_releases = scores.reports, scores.errors, scores.refused
            self._take_measures(scores, source, definitions, generation)   # and the designed releases'
            for name, message in self.release_errors.items():
                if previous.get(name) != message:  # said once, not again at every rescoring
                    self._fail(f"Release '{name}': {message}")
            current = self.current_report()
            if current is not None:
                self.status.emit(f"{self.project.current_release}: tkl-Score {score_text(current.scores.tkl)}, "
                                 f"{current.published_rows:,} of {current.source_rows:,} records{where}")
            self.scoresChanged.emit()

        def failed(message: str) -> None:  # the source, roles or weights: every release is left without scores
            if generation == self._generation["scores"]:
                self.release_errors = {d.name: message for d in definitions}
                self.refused_releases = set()
                self.scoresChanged.emit()
            self._fail(message)

        self.runner.start(f"Scoring{where}", score, done, failed, **cancelling(self, "scores", generation, SCORING))

    def _next_generation(self, stage: str) -> int:
        """A new generation of ``stage``; later stages' pending results become stale too."""
        stages = list(self._generation)
        for later in stages[stages.index(stage):]:
            self._generation[later] += 1
        return self._generation[stage]

    def _fail(self, message: str) -> None:
        self.status.emit(message)
        self.failed.emit(message)



# each workbench task's Cancel button, and what the status bar says once it is cancelled (a text,
# or a function of the workbench)
LOADING = ("Cancel loading", "Loading the source table was cancelled: no source is loaded, so no scores are shown. "
                             "Open the source again to load it.")
READING = ("Cancel reading", "Reading the source out of core was cancelled: its columns and records are not shown. "
                             "Open the source again to read it.")
FACTORS = ("Cancel the scoring", "Computing the distinguishing factors was cancelled: no scores are shown. "
                                 "Edit ▸ Score again (F5) computes them.")
SCORING = ("Cancel the scoring", lambda workbench: "The scoring was cancelled: " + (
    "the Scores view shows the last complete scores, from before the latest change." if workbench.reports else
    "no scores are shown.") + " Edit ▸ Score again (F5) scores them again.")


def cancelling(workbench: Workbench, stage: str, generation: int, said: tuple) -> dict:
    """A workbench task's ``cancel_text`` and ``on_cancelled`` (``said``: one of the above): what
    the status bar says, unless a newer ``stage`` has superseded the task."""
    button, text = said

    def stopped(_value) -> None:
        if generation == workbench._generation[stage]:
            workbench.status.emit(text(workbench) if callable(text) else text)
    return {"cancel_text": button, "on_cancelled": stopped}

def score_again(workbench: Workbench) -> None:
    """Edit ▸ Score again: the source prepared for its roles if that was cancelled, then every
    release scored."""
    if workbench.source is not None and workbench.source is not workbench._prepared:
        workbench._prepare_source()
    else:
        workbench.rescore()
