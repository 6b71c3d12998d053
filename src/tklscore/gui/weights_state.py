"""The workbench's weights and model state: where the scores' weights come from (a
tkl-Data Model, a weights file, or each score its own model), the model's undoable edits
and M-Score's x. A part of :class:`~tklscore.gui.workbench.Workbench` (it uses its
project, undo stack and signals, and rescoring)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QUndoCommand

from tklscore.core.errors import InputError
from tklscore.core.files.rdf import parse_rdf_file
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.model.lseverity_model import thesis_lseverity_model
from tklscore.core.model.mscore_model import thesis_example_model as thesis_mscore_model
from tklscore.core.model.weight_models import LSEVERITY_MODEL, MSCORE_MODEL, load_weight_model
from tklscore.core.scoring.scores import parse_x
from tklscore.core.scoring.weights import Weights, WeightsPerScore, load_weights
from tklscore.core.scoring.weights_source import (FILE, KINDS, MODEL, SCORE_MODELS, WeightsSource, file_source,
                                                  model_source, score_models_source)


class ModelEdit(QUndoCommand):
    """One edit of the tkl-Data Model, undone and redone by swapping whole model copies."""

    def __init__(self, workbench: "WeightsState", text: str, before: TklDataModel, after: TklDataModel):
        super().__init__(text)
        self.workbench = workbench
        self.before = before
        self.after = after

    def redo(self) -> None:
        self.workbench._set_model(self.after.copy())

    def undo(self) -> None:
        self.workbench._set_model(self.before.copy())



class WeightsState:
    """The weights and model verbs of the workbench (mixed into it): ``model``,
    ``weights`` (tkl-Score's, and every score's but with score models),
    ``weights_per_score`` (each score's own model) and ``weights_problem`` (why there are
    none)."""

    model: TklDataModel | None = None
    weights: Weights | None = None
    weights_per_score: WeightsPerScore | None = None
    weights_problem: str | None = None

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
        self.set_model(TklDataModel.from_graph(parse_rdf_file(path, what="model file"), str(path)))

    def edit_model(self, text: str, change) -> None:
        """Apply ``change(model)`` as one undoable edit; a bad edit changes nothing."""
        if self.model is None:
            raise InputError("there is no tkl-Data Model to edit")
        before = self.model.copy()
        after = self.model.copy()
        change(after)
        self.undo_stack.push(ModelEdit(self, text, before, after))

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

    def _score_models(self, tkl: Weights) -> WeightsPerScore:
        if self.project.score_model_paths:
            models = {m.kind: m.to_weights() for m in map(load_weight_model, self.project.score_model_paths)}
            return WeightsPerScore(tkl, models[MSCORE_MODEL], models[LSEVERITY_MODEL])
        return WeightsPerScore(tkl, Weights(thesis_mscore_model().weights(), name="thesis Figure 3.1"),
                               thesis_lseverity_model().to_weights("thesis Table 3.7"))
