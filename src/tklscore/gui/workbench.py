"""The application state behind every view: the project, the loaded source table, its
Scorer, the tkl-Data Model with undo/redo, the candidate releases and their scores.

Views read from the Workbench and call its methods; it tells them what changed through
signals. Long work (loading, distinguishing factors, scoring) runs in a TaskRunner, one
task at a time; a result that an edit has made stale is dropped.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import hashlib
import json
import os
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from tklscore.core.model.data_model import TklDataModel
from tklscore.core.errors import InputError, MissingWeightsError
from tklscore.core.numbers import score as score_text
from tklscore.core.risk.measures import Measures, measure_release
from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.project import Project, check_paths
from tklscore.core.tables.published import Release
from tklscore.core.files.rdf import parse_rdf_file
from tklscore.core.release.filters import FilterError
from tklscore.core.release.selection import ReleaseDefinition, resolve_release
from tklscore.core.tables.roles import Roles
from tklscore.core.scoring.scores import ScoreReport, Scorer, parse_x
from tklscore.core.engines.choice import DEFAULT_MEMORY_SHARE, EngineChoice, choose_engine
from tklscore.core.engines.source import SourceSummary
from tklscore.core.tables.loading import Table, load_table
from tklscore.core.model.lseverity_model import thesis_lseverity_model
from tklscore.core.model.mscore_model import thesis_example_model as thesis_mscore_model
from tklscore.core.model.weight_models import LSEVERITY_MODEL, MSCORE_MODEL, load_weight_model
from tklscore.core.scoring.weights import Weights, WeightsPerScore, load_weights
from tklscore.core.scoring.weights_source import (
    FILE,
    KINDS,
    MODEL,
    SCORE_MODELS,
    WeightsSource,
    file_source,
    model_source,
    score_models_source,
)
from tklscore.gui.tasks import SAVE, TaskControl, TaskRunner

AUTOSAVE_MS = 30_000
SYNC_RESOLVE_ROWS = 200_000


class ModelEdit(QUndoCommand):
    """One edit of the tkl-Data Model, undone and redone by swapping whole model copies (a new
    or opened model replaces the one before it, or none, and says where it came from)."""

    def __init__(self, workbench: "Workbench", text: str, before: TklDataModel | None, after: TklDataModel,
                 origins: tuple[str, str] | None = None):
        super().__init__(text)
        self.workbench = workbench
        self.before = before
        self.after = after
        self.origins = origins

    def redo(self) -> None:
        if self.origins is not None:
            self.workbench.model_origin = self.origins[1]
        self.workbench._set_model(self.after.copy())

    def undo(self) -> None:
        if self.origins is not None:
            self.workbench.model_origin = self.origins[0]
        self.workbench._set_model(self.before.copy() if self.before is not None else None)


class Workbench(QObject):
    sourceChanged = Signal()      # a new table, or new roles
    releasesChanged = Signal()    # releases added/removed/renamed, or another one is current
    modelChanged = Signal()       # the tkl-Data Model or the weights changed
    scoresChanged = Signal()      # new score reports
    status = Signal(str)          # what just happened, for the status bar
    failed = Signal(str)          # a specific error for the user
    dirtyChanged = Signal(bool)
    engineChanged = Signal(str)   # the source is scored out of core (the reason), or in memory ("")

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.runner = TaskRunner(self)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._clean_changed)
        self.project = Project()
        self.project_path: str | None = None
        self.table: Table | None = None
        self.scorer: Scorer | None = None
        self.model: TklDataModel | None = None
        self.model_origin = ""   # where the model came from, in words (the AHP view says it)
        self.weights: Weights | None = None        # tkl-Score's weights (and every score's, but with score models)
        self.weights_per_score: WeightsPerScore | None = None  # each score's own model
        self.weights_problem: str | None = None
        self.reports: dict[str, ScoreReport] = {}
        self.measures: dict[str, Measures] = {}  # each release's privacy models and risk (needs QIs)
        self.risk_lens = None  # the Risk view's latest core.risk.lens.RiskLens (measures + D(r)), for the report
        self._measured: dict = {}  # definition → (scorer, Measures): measures do not depend on weights or x
        self._measured_out_of_core: dict = {}  # (source, definition, roles) → Measures of an out-of-core source
        self.designed_reports: dict[str, ScoreReport] = {}  # releases saved from the Design view
        self.release_errors: dict[str, str] = {}  # releases that could not be resolved, and why
        self.refused_releases: set[str] = set()   # of those, the filters refused (core.release.filters)
        self.resolved: dict[ReleaseDefinition, Release] = {}
        self._generation = {"source": 0, "scorer": 0, "scores": 0}
        self._dirty = False
        self._autosaving = False   # a recovery copy is being written
        self._model_pending = None  # the opened project's model being read (a token)
        self._saves = 0            # explicit saves so far
        self.memory_share = DEFAULT_MEMORY_SHARE   # a source larger than this share of free memory: DuckDB
        self.engine_choice: EngineChoice | None = None
        self.source_summary: SourceSummary | None = None  # an out-of-core source: columns, rows, first rows
        from tklscore.gui.model.follower import ModelFollower

        self.follower = ModelFollower(self)   # the model follows the table (§6); a foreign one is checked
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_MS)
        self.autosave_timer.timeout.connect(self.autosave)
        self.autosave_timer.start()

    # ------------------------------------------------------------------ project

    def new_project(self) -> None:
        self.runner.cancel_all()
        self._model_pending = None
        self.project = Project()
        self.project_path = None
        self.table = self.scorer = self.model = self.weights = self.weights_per_score = None
        self.model_origin = ""
        self.source_summary = None
        self.weights_problem = None
        self.reports, self.measures = {}, {}
        self.designed_reports = {}
        self.resolved = {}
        self.release_errors, self.refused_releases = {}, set()
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
        self._open(project, None, model)
        self.model_origin = "the thesis example's model"

    def open_project(self, path: str, allowed=()) -> None:
        """Open the project file ``path``. Files it names outside its folder tree are read
        only when the user chose or allowed them (``allowed``, or earlier for this project
        file: :meth:`allow_paths`, a save); otherwise nothing is read and
        :class:`~tklscore.core.project.OutsideFolderError` names them (the window asks)."""
        project = Project.load(path)
        check_paths(project, path, [*allowed, *self.allowed_paths(path)])
        self._open(project, str(path))

    # the files outside a project's folder that the user allowed (or chose and saved), per project file
    ALLOWED_FILE = "allowed-paths.json"
    ALLOWED_PROJECTS = 500

    def _allowed_store(self) -> tuple[Path, dict]:
        store = self._recovery_path().parent / self.ALLOWED_FILE
        try:
            data = json.loads(store.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict):
            data = {}
        return store, {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, list)}

    def allowed_paths(self, project_file: str) -> list[str]:
        """The files outside ``project_file``'s folder that the user allowed for it."""
        return [p for p in self._allowed_store()[1].get(os.path.realpath(project_file), []) if isinstance(p, str)]

    def allow_paths(self, project_file: str, paths) -> None:
        """Remember that the user allowed (or chose) ``paths`` for the project file ``project_file``."""
        from tklscore.core.files.atomic import atomic_write

        paths = sorted({os.path.realpath(p) for p in paths})
        key = os.path.realpath(project_file)
        store, data = self._allowed_store()
        known = set(data.pop(key, []))
        if not paths or known >= set(paths):
            if known:
                data[key] = sorted(known)
            return
        data[key] = sorted(known | set(paths))
        data = dict(list(data.items())[-self.ALLOWED_PROJECTS:])  # the newest last
        with atomic_write(store) as handle:
            json.dump(data, handle, indent=1)

    def _open(self, project: Project, path: str | None, model: TklDataModel | None = None) -> None:
        """Open ``project``; its tkl-Data Model (``model``, or read from the project's Turtle
        on the task runner, ahead of the source) gives the weights."""
        self.new_project()
        self.project = project
        self.project_path = path
        self.model = model
        self.model_origin = f"the project {Path(path).name}" if path else "the project"
        if model is None and project.model_turtle:
            self._read_model(project.model_turtle, path)
        else:
            self._refresh_weights()
            self.modelChanged.emit()
        self.releasesChanged.emit()
        self._load_source()
        if project.notes:  # what opening had to change, e.g. a second release of one name renamed
            self._fail(f"{path or 'The project'}: " + "; ".join(project.notes))

    def _read_model(self, turtle: str, path: str | None) -> None:
        """Parse the project's model off the UI thread (Turtle parsing is slow); until it
        arrives the project keeps its Turtle, and a newer model or project supersedes it."""
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

        def failed(message: str) -> None:
            if self._model_pending is token:
                self._model_pending = None
                self._refresh_weights()
                self.modelChanged.emit()
                self._fail(message)

        self.runner.start("Reading the tkl-Data Model", read, done, failed)

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

    def _recovery_path(self) -> Path:
        folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
                      or Path.home() / ".tklscore")
        folder.mkdir(parents=True, exist_ok=True)
        if not self.project_path:
            return folder / "recovery-untitled.tklproj"
        # keyed by the full path: two projects with the same file name keep their own copies
        path = Path(self.project_path).resolve()
        key = hashlib.sha256(str(path).encode("utf-8")).hexdigest()[:12]
        return folder / f"recovery-{path.stem}-{key}{path.suffix or '.tklproj'}"

    def autosave(self) -> Path | None:
        """Write a recovery copy of an unsaved project (the real file is only written on save)
        in the background: the UI thread takes a snapshot of the project and the model, the
        save lane serialises and writes it atomically. Returns the copy's path (None: nothing
        to save, or a copy is being written still); a failed write says so in the status bar."""
        if not self.is_dirty() or self._autosaving:
            return None
        path = self._recovery_path()
        snapshot, model, saved = self._snapshot(), self.model.copy() if self.model else None, self._saves

        pending = self._model_pending is not None  # the snapshot keeps the Turtle being read

        def write(control: TaskControl) -> Path:
            if not pending:
                snapshot.model_turtle = model.to_graph().serialize(format="turtle") if model is not None else None
            try:
                snapshot.save(path)
            except OSError as error:
                raise InputError(f"it cannot be written ({error.strerror or error})", file=str(path)) from None
            return path

        def done(written: Path) -> None:
            self._autosaving = False
            if self._saves != saved and not self.is_dirty():  # saved meanwhile: nothing to recover
                written.unlink(missing_ok=True)

        def failed(message: str) -> None:
            self._autosaving = False
            self.status.emit(f"Could not write the recovery copy: {message}")

        self._autosaving = True
        self.runner.start("Writing the recovery copy", write, done, failed, lane=SAVE)
        return path

    def _snapshot(self) -> Project:
        """The project as it is now, sharing nothing that an edit changes in place."""
        project = self.project
        return dataclasses.replace(project, source_options=copy.deepcopy(project.source_options),
                                   releases=list(project.releases), score_model_paths=list(project.score_model_paths),
                                   settings=copy.deepcopy(project.settings))

    def saving(self) -> bool:
        """Whether a recovery copy is being written."""
        return self._autosaving

    def _clean_changed(self, clean: bool) -> None:
        self.dirtyChanged.emit(not clean or self._dirty)

    def recovery_copies(self) -> list[Path]:
        """Recovery copies left by sessions that ended with unsaved changes, newest first."""
        folder = self._recovery_path().parent
        return sorted(folder.glob("recovery-*"), key=lambda p: p.stat().st_mtime, reverse=True)

    def open_recovery(self, path: str | Path) -> None:
        """Reopen a recovery copy as unsaved work (Save asks where to keep it); it is this
        application's copy of the user's own session, whose files the user chose then."""
        self._open(Project.load(path), None)
        Path(path).unlink(missing_ok=True)
        self._mark(True)

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
        self.resolved.clear()
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
        share = float(share)
        if not 0.0 <= share <= 1.0:
            raise InputError(f"a share of memory is between 0 % and 100 % (not {share:.0%})")
        self.memory_share = share
        path = self.project.source_path
        if self.project.builtin is None and path and Path(path).is_file():
            if choose_engine(path, share).out_of_core != self.out_of_core:
                self.resolved.clear()
                self._load_source()

    def _load_source(self) -> None:
        project = self.project
        builtin, path, options = project.builtin, project.source_path, dict(project.source_options)
        if builtin is None and not path:
            return
        generation = self._next_generation("source")
        choice = None if builtin is not None else choose_engine(path, self.memory_share)
        if choice is not None and choice.out_of_core:
            self.table = self.scorer = self.source_summary = None
            self.engine_choice = choice
            message = choice.message(Path(path).name)
            self.status.emit(message)
            self.engineChanged.emit(message)
            self.sourceChanged.emit()
            self._describe_source(generation, path, options)
            self.rescore()
            return
        self.source_summary = None
        if self.engine_choice is not None:
            self.engine_choice = None
            self.engineChanged.emit("")

        def load(control: TaskControl):
            control.progress(5, "Loading the source table")
            if builtin == "thesis":
                return thesis_example().source
            return load_table(path, **options,
                              progress=lambda f: control.progress(int(5 + 90 * f), "Loading the source table"))

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
            self.scorer = None
            self.table = table
            self.status.emit(f"Loaded {table.name}: {len(table):,} records, {len(table.columns)} columns")
            self.sourceChanged.emit()
            self._rebuild_scorer()

        self.runner.start("Loading the source table", load, done, failed)

    @property
    def out_of_core(self) -> bool:
        """Whether the source is scored out of core (not loaded: ``table`` is None and
        ``source_summary`` describes it once read)."""
        return self.engine_choice is not None and self.engine_choice.out_of_core

    def _describe_source(self, generation: int, path: str, options: dict) -> None:
        """Read the out-of-core source's columns, record count and first rows on the task
        runner (``source_summary``, announced by ``sourceChanged``)."""
        def describe(control: TaskControl) -> SourceSummary:
            from tklscore.core.engines.source import describe_source

            control.progress(5, "Reading the source out of core")
            return describe_source(path, delimiter=options.get("delimiter"), encoding=options.get("encoding"),
                                   keep_spaces=bool(options.get("keep_spaces")),
                                   progress=lambda f: control.progress(int(5 + 90 * f),
                                                                       "Reading the source out of core"))

        def done(summary: SourceSummary) -> None:
            if generation != self._generation["source"]:
                return
            self.source_summary = summary
            self.status.emit(f"{summary.name}: {summary.rows:,} records, {len(summary.columns)} columns "
                             f"(out of core, DuckDB)")
            self.sourceChanged.emit()

        self.runner.start("Reading the source out of core", describe, done, self._fail)

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
        self.resolved.clear()
        self._mark(True)
        self.sourceChanged.emit()
        if self.out_of_core:
            self.rescore()
            return
        self._rebuild_scorer()

    def _rebuild_scorer(self) -> None:
        self.scorer = None
        self.reports, self.measures = {}, {}
        self.scoresChanged.emit()
        if self.table is None or not self.project.roles.sa:
            self.status.emit("Choose the quasi-identifiers and sensitive attributes to see scores")
            return
        table, roles = self.table, self.project.roles
        generation = self._next_generation("scorer")

        def build(control: TaskControl) -> Scorer:
            control.progress(5, "Computing the distinguishing factors")
            scorer = Scorer(table, roles)
            scorer.compute_factors(lambda f: control.progress(int(10 + 90 * f), "Computing the distinguishing factors"))
            return scorer

        def done(scorer: Scorer) -> None:
            if generation != self._generation["scorer"]:
                return
            self.scorer = scorer
            self.rescore()

        self.runner.start("Computing the distinguishing factors", build, done, self._fail)

    # ------------------------------------------------------------------ releases

    def release_names(self) -> list[str]:
        """The releases of the Release chooser: those defined, then those designed."""
        return [r.name for r in self.project.releases] + self.project.designed_names()

    def _check_release(self, definition: ReleaseDefinition) -> None:
        """Resolve a new definition at once on a small table (so a mistake is refused before
        it is added); a large table's releases are resolved while scoring, in the background
        (a filter is read and its columns checked at once all the same)."""
        if self.table is not None and len(self.table) <= SYNC_RESOLVE_ROWS:
            self.resolved[definition] = resolve_release(definition, self.table, self.project.roles)
        elif definition.kind == "filter" and (self.table is not None or self.source_summary is not None):
            from tklscore.core.release.filters import parse_filter

            columns = self.table.columns if self.table is not None else self.source_summary.columns
            parse_filter(definition.expression).require_columns(columns)

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
        if name in self.project.designed_names():
            design = self.project.settings["design"]
            design["saved"] = [d for d in design.get("saved") or [] if d.get("name") != name]
            self.designed_reports.pop(name, None)
            self.measures.pop(name, None)
        self.reports.pop(name, None)
        if self.project.current_release == name:
            self.project.current_release = self.project.releases[0].name if self.project.releases else None
        self._mark(True)
        self.releasesChanged.emit()
        self.scoresChanged.emit()

    def set_current_release(self, name: str) -> None:
        if name not in self.project.designed_names():
            self.project.release(name)
        self.project.current_release = name
        self.releasesChanged.emit()
        self.scoresChanged.emit()

    def current_report(self) -> ScoreReport | None:
        name = self.project.current_release
        return self.reports.get(name) if name else None

    def current_release(self) -> Release | None:
        """The current release's source records (None: none, or a designed release, whose
        published records are transformed: its scores and measures are in ``reports``/``measures``)."""
        name = self.project.current_release
        if not name or name in self.project.designed_names():
            return None
        definition = self.project.release(name)
        return self.resolved.get(definition)

    # ------------------------------------------------------------------ weights and model

    def set_x(self, x: float) -> None:
        self.project.x = parse_x(x)
        self._mark(True)
        self.rescore()

    def set_model(self, model: TklDataModel | None) -> None:
        self._model_pending = None
        self.undo_stack.clear()
        self._set_model(model)
        self._mark(True)

    def use_weights_file(self, path: str) -> None:
        """Score with a weights file (the model, if any, stays in the project to switch back to)."""
        load_weights(path)
        self.project.weights_path = str(path)
        self.set_weights_use(FILE)

    def use_score_models(self, paths: list[str]) -> None:
        """Score M-Score and L-Severity with their own models (two files, in either order)."""
        kinds = sorted(load_weight_model(p).kind for p in paths)
        if kinds != sorted([MSCORE_MODEL, LSEVERITY_MODEL]):
            raise InputError(f"choose one M-Score model and one L-Severity model (these files hold: "
                             f"{', '.join(kinds) or 'nothing'})")
        self.project.score_model_paths = [str(p) for p in paths]
        self.set_weights_use(SCORE_MODELS)

    def weights_choices(self) -> list[str]:
        """The sources of weights this project can score with (weights_source.KINDS)."""
        choices = []
        if self.model is not None:
            choices.append(MODEL)
        if self.project.weights_path:
            choices.append(FILE)
        if self.project.score_model_paths or self.project.builtin == "thesis":
            choices.append(SCORE_MODELS)
        return choices

    def weights_model(self) -> TklDataModel | None:
        """The tkl-Data Model when it gives the tkl weights: its elements then weigh the
        generalised values of a designed release (with a weights file, the largest weight of
        the values a group covers does)."""
        if self.model is None or (self.weights_use() == FILE and self.project.weights_path):
            return None
        return self.model

    def weights_use(self) -> str:
        use = self.project.weights_use
        if use in self.weights_choices():
            return use
        return MODEL if self.model is not None else FILE

    def set_weights_use(self, use: str) -> None:
        if use not in KINDS:
            raise InputError(f"weights come from {', '.join(KINDS)}, not '{use}'")
        self.project.weights_use = use
        self._mark(True)
        self._refresh_weights()
        self.modelChanged.emit()
        self.rescore()

    def weights_source(self) -> WeightsSource | None:
        """Where the current scores' weights come from (None: no weights yet)."""
        if self.weights is None:
            return None
        use = self.weights_use()
        if use == SCORE_MODELS:
            tkl = "the tkl-Data Model" if self.model is not None else f"the weights file {self.project.weights_path}"
            models = (" and ".join(self.project.score_model_paths) if self.project.score_model_paths
                      else "the thesis' Figure 3.1 and Table 3.7")
            return score_models_source(f"tkl-Score from {tkl}; M-Score and L-Severity from {models}")
        if use == MODEL and self.model is not None:
            name = Path(self.project_path).name if self.project_path else "of the project"
            return model_source(self.model, name)
        return file_source(self.project.weights_path or self.weights.name)

    def open_model(self, path: str) -> None:
        """Read a tkl-Data Model file off the UI thread; it replaces the current model as one
        undoable edit (a model built for another table is checked, not refused)."""
        def read(control: TaskControl) -> TklDataModel:
            control.progress(10, f"Reading the tkl-Data Model {Path(path).name}")
            return TklDataModel.from_graph(parse_rdf_file(path, what="model file"), str(path))

        def done(model: TklDataModel) -> None:
            self.replace_model(f"Open model {Path(path).name}", model, f"opened from {path}")

        self.runner.start("Reading the tkl-Data Model", read, done, self._fail)

    def replace_model(self, text: str, model: TklDataModel, origin: str) -> None:
        """A new or opened model in place of the current one (or of none): one undoable edit."""
        self._model_pending = None
        self.follower.changes = None
        before = self.model.copy() if self.model is not None else None
        self.undo_stack.push(ModelEdit(self, text, before, model.copy(), (self.model_origin, origin)))
        self.status.emit(f"{text}: {len(model.columns)} sensitive column(s), {origin}")

    def save_model(self, path: str) -> str:
        """Write the model as Turtle (atomically); the project keeps its own copy on save."""
        if self.model is None:
            raise InputError("there is no tkl-Data Model to save")
        inputs = [self.project.source_path] if self.project.source_path else []
        self.model.save(path, inputs=inputs)
        self.model_origin = f"saved as {path}"
        self.status.emit(f"Saved the tkl-Data Model as {path}")
        self.modelChanged.emit()
        return str(path)

    def edit_model(self, text: str, change, keep=None):
        """Apply ``change(model)`` as one undoable edit; a bad edit changes nothing. With
        ``keep``, the edit is made only when ``keep(result of change)`` holds. Returns that result."""
        if self.model is None:
            raise InputError("there is no tkl-Data Model to edit")
        before = self.model.copy()
        after = self.model.copy()
        result = change(after)
        if keep is None or keep(result):
            self.undo_stack.push(ModelEdit(self, text, before, after))
        return result

    def _set_model(self, model: TklDataModel | None) -> None:
        self.model = model
        self._refresh_weights()
        self.modelChanged.emit()
        self.rescore()

    def _refresh_weights(self) -> None:
        self.weights, self.weights_per_score, self.weights_problem = None, None, None
        use = self.weights_use()
        try:
            if use == FILE and self.project.weights_path:
                self.weights = load_weights(self.project.weights_path)
            elif self.model is not None:
                self.weights = self.model.to_weights()
            elif self.project.weights_path:
                self.weights = load_weights(self.project.weights_path)
            else:
                self.weights_problem = "Choose weights: a tkl-Data Model or a weights file"
            if use == SCORE_MODELS and self.weights is not None:
                self.weights_per_score = self._score_models(self.weights)
        except InputError as error:
            self.weights, self.weights_per_score = None, None
            self.weights_problem = str(error)
        if self.weights_problem:
            self.status.emit(self.weights_problem)

    def _refuse_weights(self, error: MissingWeightsError) -> None:
        """Weights that leave sensitive values without a weight are not in use: the scores
        they replaced go, the header and the Scores view say so, and the message names the
        application's remedy (not a command-line flag)."""
        if error.interval_attributes:
            names = ", ".join(f"'{a}'" for a in error.interval_attributes)
            remedy = (f"the weights file gives intervals for {names}: make the column continuous in the Release "
                      f"view's roles and apply them")
        else:
            remedy = ("add them to the weights file and choose it again with Weights file… in the Scores view, "
                      "or choose the tkl-Data Model under Weights from")
        self.weights = self.weights_per_score = None
        self.weights_problem = f"These weights are not used: {error.with_hint(remedy)}"
        self.reports, self.measures, self.designed_reports = {}, {}, {}
        self.modelChanged.emit()
        self.scoresChanged.emit()
        self._fail(self.weights_problem)

    def _score_models(self, tkl: Weights) -> WeightsPerScore:
        if self.project.score_model_paths:
            models = {m.kind: m.to_weights() for m in map(load_weight_model, self.project.score_model_paths)}
            return WeightsPerScore(tkl, models[MSCORE_MODEL], models[LSEVERITY_MODEL])
        return WeightsPerScore(tkl, Weights(thesis_mscore_model().weights(), name="thesis Figure 3.1"),
                               thesis_lseverity_model().to_weights("thesis Table 3.7"))

    # ------------------------------------------------------------------ scoring

    def rescore(self) -> None:
        """Score every release in the background with the current weights and x."""
        if self.out_of_core:
            self._score_out_of_core()
            return
        if self.scorer is None or self.table is None:
            return
        if self.weights is None:
            self.reports, self.measures = {}, {}
            self.scoresChanged.emit()
            return
        scorer, weights, x = self.scorer, self.weights, self.project.x
        per_score = self.weights_per_score
        table, roles = self.table, self.project.roles
        definitions = list(self.project.releases)
        resolved = dict(self.resolved)
        measured = {d: m for d, (owner, m) in self._measured.items() if owner is scorer}
        design_settings, model = dict(self.project.settings.get("design") or {}), self.weights_model()
        generation = self._next_generation("scores")
        refused: set[str] = set()

        def score(control: TaskControl):
            if per_score is None:
                try:  # weights that leave sensitive values without a weight score nothing
                    scorer.record_weights(weights)
                except MissingWeightsError as error:
                    return error
            reports, releases, errors, measures = {}, {}, {}, {}
            for i, definition in enumerate(definitions):
                control.progress(int(100 * i / max(1, len(definitions))), f"Scoring {definition.name}")
                try:
                    release = resolved.get(definition) or resolve_release(definition, table, roles)
                except InputError as error:  # one bad release must not hide the others' scores
                    errors[definition.name] = str(error)
                    if isinstance(error, FilterError):
                        refused.add(definition.name)
                    continue
                releases[definition] = release
                # each score's own model weighs only its own attributes: the others count 0 (warned)
                reports[definition.name] = (scorer.score(release, weights, x) if per_score is None else
                                            scorer.score_with_own_weights(release, per_score, x, True))
                if roles.qi and len(release.positions):
                    if definition not in measured:
                        measured[definition] = measure_release(table, roles, release.positions, scorer)
                    measures[definition.name] = measured[definition]
            designed = self._designed(table, roles, design_settings, weights, x, scorer, model)
            errors.update(designed.errors)
            for name, result in designed.results.items():
                reports[name] = result.report
                if result.risk is not None:
                    measures[name] = result.risk
            return reports, releases, errors, measures, {n: r.report for n, r in designed.results.items()}

        def done(result) -> None:
            if generation != self._generation["scores"]:
                return
            if isinstance(result, MissingWeightsError):
                self._refuse_weights(result)
                return
            previous = self.release_errors
            self.reports, self.resolved, self.release_errors, self.measures, self.designed_reports = result
            self.refused_releases = refused
            self._measured = {d: (scorer, measured[d]) for d in self.resolved if d in measured}
            for name, message in self.release_errors.items():
                if previous.get(name) != message:  # said once, not again at every rescoring
                    self._fail(f"Release '{name}': {message}")
            current = self.current_report()
            if current is not None:
                self.status.emit(f"{self.project.current_release}: tkl-Score {score_text(current.scores.tkl)}, "
                                 f"{current.published_rows:,} of {current.source_rows:,} records")
            self.scoresChanged.emit()

        self.runner.start("Scoring", score, done, self._fail)

    def _score_out_of_core(self) -> None:
        """Score the releases of a source too large for memory with the DuckDB engine
        (releases by ids, by file or by filter); roles that do not fit the source (a
        continuous column holding text, say) are reported once, by file, row and column."""
        roles, weights, x = self.project.roles, self.weights, self.project.x
        self.reports, self.measures = {}, {}
        if not roles.sa or not roles.qi or weights is None:
            self.scoresChanged.emit()
            return
        source, definitions = self.project.source_path, list(self.project.releases)
        options = dict(self.project.source_options or {})
        delimiter, encoding = options.get("delimiter"), options.get("encoding")
        keep_spaces = bool(options.get("keep_spaces"))
        design_settings, model = dict(self.project.settings.get("design") or {}), self.weights_model()
        generation = self._next_generation("scores")

        measured = dict(self._measured_out_of_core)
        refused: set[str] = set()

        def score(control: TaskControl):
            from tklscore.core.engines import open_backend, open_release, score_in_engine
            from tklscore.core.engines.measures import measure_published

            reports, errors, own_measures = {}, {}, {}
            with open_backend("duckdb", keep_spaces=keep_spaces) as backend:
                control.progress(2, "Checking the roles against the source out of core")
                backend.open_source(source, roles, delimiter, encoding)  # a bad role fails here, once
                for i, definition in enumerate(definitions):
                    control.progress(int(5 + 95 * i / max(1, len(definitions))),
                                     f"Scoring {definition.name} out of core")
                    try:
                        if definition.kind == "ids":
                            name = open_release(backend, roles, rows=list(definition.ids))
                        elif definition.kind == "file":
                            name = open_release(backend, roles, published=definition.path,
                                                delimiter=definition.options.get("delimiter"),
                                                encoding=definition.options.get("encoding"))
                        else:
                            name = open_release(backend, roles, filter=definition.expression or "")
                        reports[definition.name] = score_in_engine(backend, roles, weights, x, source_name=source,
                                                                   published_name=name, skip_unlocated=True)
                        # the measures do not depend on the weights or x: measured once per release and roles
                        key = (source, definition, roles)
                        if key not in measured and reports[definition.name].published_rows:
                            measured[key] = measure_published(backend, roles, definition.name)
                        if key in measured:
                            own_measures[definition.name] = measured[key]
                    except InputError as error:
                        errors[definition.name] = str(error)
                        if isinstance(error, FilterError):
                            refused.add(definition.name)
            # the releases saved from the Design view, re-evaluated out of core as well
            designed = self._designed_out_of_core(source, options, roles, design_settings, weights, x, model)
            errors.update(designed.errors)
            reports.update({name: r.report for name, r in designed.results.items()})
            measures = own_measures | {name: r.risk for name, r in designed.results.items() if r.risk is not None}
            return reports, errors, measures, {name: r.report for name, r in designed.results.items()}

        def done(result) -> None:
            if generation != self._generation["scores"]:
                return
            previous = self.release_errors
            self.reports, self.release_errors, self.measures, self.designed_reports = result
            self.refused_releases = refused
            self._measured_out_of_core = measured
            for name, message in self.release_errors.items():
                if previous.get(name) != message:  # said once, not again at every rescoring
                    self._fail(f"Release '{name}': {message}")
            current = self.reports.get(self.project.current_release or "")
            if current is not None:
                self.status.emit(f"{self.project.current_release}: tkl-Score {score_text(current.scores.tkl)}, "
                                 f"{current.published_rows:,} of {current.source_rows:,} records (out of core, DuckDB)")
            self.scoresChanged.emit()

        def failed(message: str) -> None:  # the source or the roles: every release is left without scores
            if generation == self._generation["scores"]:
                self.release_errors = {d.name: message for d in definitions}
                self.refused_releases = set()
                self.scoresChanged.emit()
            self._fail(message)

        self.runner.start("Scoring out of core", score, done, failed)

    @staticmethod
    def _designed(table, roles, settings, weights, x, scorer, model):
        """The releases saved from the Design view, re-evaluated (core.release.designer)."""
        from tklscore.core.release.designer import element_weights, evaluate_saved_designs

        elements = element_weights(model) if model is not None and settings.get("saved") else None
        return evaluate_saved_designs(table, roles, settings, weights, x, scorer, elements)

    @staticmethod
    def _designed_out_of_core(source, options, roles, settings, weights, x, model):
        """:meth:`_designed` for a source evaluated out of core (core.engines.design)."""
        from tklscore.core.engines.design import evaluate_saved_designs_in_engine
        from tklscore.core.release.designer import element_weights

        elements = element_weights(model) if model is not None and settings.get("saved") else None
        return evaluate_saved_designs_in_engine(source, roles, settings, weights, x, elements, options)

    def _next_generation(self, stage: str) -> int:
        """A new generation of ``stage``; later stages' pending results become stale too."""
        stages = list(self._generation)
        for later in stages[stages.index(stage):]:
            self._generation[later] += 1
        return self._generation[stage]

    def _fail(self, message: str) -> None:
        self.status.emit(message)
        self.failed.emit(message)
