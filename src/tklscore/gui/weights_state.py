"""The workbench's weights and model state: where the scores' weights come from (a
tkl-Data Model, a weights file, or each score its own model), the model's undoable edits
and M-Score's x. A part of :class:`~tklscore.gui.workbench.Workbench` (it uses its
project, undo stack and signals, and rescoring)."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtGui import QUndoCommand

from tklscore.core.errors import InputError, MissingWeightsError
from tklscore.core.files.rdf import parse_rdf_file
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.model.lseverity_model import thesis_lseverity_model
from tklscore.core.model.mscore_model import thesis_example_model as thesis_mscore_model
from tklscore.core.model.weight_models import load_score_models
from tklscore.core.scoring.scores import parse_x
from tklscore.core.scoring.weights import Weights, WeightsPerScore, load_weights
from tklscore.gui.tasks import SIDE, TaskControl
from tklscore.core.scoring.weights_source import (FILE, KINDS, MODEL, SCORE_MODELS, WeightsSource, file_source,
                                                  model_source, score_models_source)


class ModelEdit(QUndoCommand):
    """One edit of the tkl-Data Model, undone and redone by swapping whole model copies (a new
    or opened model replaces the one before it, or none, and says where it came from)."""

    def __init__(self, workbench: "WeightsState", text: str, before: TklDataModel | None, after: TklDataModel,
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



class WeightsState:
    """The weights and model verbs of the workbench (mixed into it): ``model``,
    ``weights`` (tkl-Score's, and every score's but with score models),
    ``weights_per_score`` (each score's own model) and ``weights_problem`` (why there are
    none)."""

    model: TklDataModel | None = None
    model_origin = ""   # where the model came from, in words (the AHP view says it)
    weights: Weights | None = None
    weights_per_score: WeightsPerScore | None = None
    weights_problem: str | None = None
    # M-Score's and L-Severity's model files read (their weights) or why not, by _files_key: at
    # most two, the project's files as they are now and the files read last (_keep_score_models)
    _score_models_cache: dict[tuple, tuple[Weights, Weights] | str]
    _score_models_reads: set[tuple]            # those being read
    _choosing_score_models: tuple | None = None   # the files the officer chose, until read

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
        """Score M-Score and L-Severity with their own models (two files, in either order),
        once both are read off the UI thread (until then the weights in use stay; a file that
        cannot be read changes nothing and is said)."""
        paths = [str(p) for p in paths]
        key = _files_key(paths)
        self._score_models_cache.pop(key, None)   # chosen again: read again
        self._choosing_score_models = key
        self._read_score_models(paths, key)

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
                if self.weights_per_score is None:   # being read: no scores until then
                    self.weights = None
                    self.weights_problem = f"Reading the score models {_file_names(self.project.score_model_paths)}…"
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

    def _score_models(self, tkl: Weights) -> WeightsPerScore | None:
        """Each score's own weights; None while their model files are read (off the UI thread:
        the scores then wait for them, never shown with models these files no longer hold)."""
        paths = self.project.score_model_paths
        if not paths:
            return WeightsPerScore(tkl, Weights(thesis_mscore_model().weights(), name="thesis Figure 3.1"),
                                   thesis_lseverity_model().to_weights("thesis Table 3.7"))
        key = _files_key(paths)
        read = self._score_models_cache.get(key)
        if isinstance(read, str):
            raise InputError(read)
        if read is None:
            self._read_score_models(paths, key)
            return None
        return WeightsPerScore(tkl, *read)

    def _read_score_models(self, paths: list[str], key: tuple) -> None:
        """Read M-Score's and L-Severity's model files on the side lane (large ones in a process
        of their own: :func:`~tklscore.core.model.weight_models.load_score_models`); what they
        give (or why not) is kept for as long as the files are unchanged."""
        if key in self._score_models_reads:
            return
        self._score_models_reads.add(key)
        names = _file_names(paths)

        def settle(read) -> None:
            self._score_models_reads.discard(key)
            self._keep_score_models(key, read)
            if self._choosing_score_models == key:
                self._choosing_score_models = None
                if isinstance(read, str):
                    self._fail(read)   # the weights in use stay
                    return
                self.project.score_model_paths = list(paths)
                self.set_weights_use(SCORE_MODELS)
            elif self._score_models_wanted() == key:
                self._refresh_weights()
                self.modelChanged.emit()
                self.rescore()

        def cancelled(_value) -> None:
            self._score_models_reads.discard(key)
            if self._choosing_score_models == key:
                self._choosing_score_models = None
            elif self._score_models_wanted() == key:
                self.weights = self.weights_per_score = None
                self.weights_problem = (f"The score models {names} were not read (cancelled): choose them again "
                                        f"with Score models… in the Scores view")
                self.modelChanged.emit()
                self.rescore()

        self.runner.start(f"Reading the score models {names}",
                          lambda control: load_score_models(paths, cancelled=lambda: control.cancelled),
                          settle, settle, lane=SIDE, on_cancelled=cancelled)

    def _keep_score_models(self, key: tuple, read) -> None:
        """Keep what the files ``key`` gave (their weights or why not) and, of what was kept,
        only the project's score model files as they are now (switching back to them reads
        nothing): a file edited or a pair chosen before is let go."""
        paths = self.project.score_model_paths
        current = _files_key(paths) if paths else None
        self._score_models_cache = {k: v for k, v in self._score_models_cache.items() if k == current}
        self._score_models_cache[key] = read

    def _score_models_wanted(self) -> tuple | None:
        """The score model files the current weights wait for (their key), if any."""
        if self.weights_use() != SCORE_MODELS or not self.project.score_model_paths:
            return None
        return _files_key(self.project.score_model_paths)


def _file_names(paths: list[str]) -> str:
    """The files' names as a message says them: "a.ttl and b.ttl"."""
    return " and ".join(Path(p).name for p in paths)


def _files_key(paths: list[str]) -> tuple:
    """Files as read: each path with its size and change time (an edited file is read again)."""
    def stat(path: str) -> tuple:
        try:
            found = os.stat(path)
        except OSError:
            return (path,)   # the read says what is wrong with it
        return path, found.st_size, found.st_mtime_ns

    return tuple(map(stat, map(str, paths)))
