"""The AHP editor (gui.md §2.2): pairwise judgements of one criteria group at a time of the
tkl-Data Model the expert works on — whichever table it was built for — composed of panels:
the judgements (Saaty sliders in words, the consistency verdict in a banner above them, the
reciprocal matrix), the result (priorities, λ_max, CI, CR, the most inconsistent judgement
with a one-click fix) and the sensitivity of the current release's scores to one priority.
A status line says which model is judged and where it came from; several experts judge
apart and their combined (geometric-mean) judgements are shown read-only.

Every committed change is one undoable ``Workbench.edit_model`` (which re-derives the
weights and re-scores); moves of a slider preview the AHP result before they commit."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QInputDialog, QLabel, QSplitter, QVBoxLayout, QWidget

from tklscore.core.errors import InputError
from tklscore.core.model.ahp import AHPResult, aggregate_judgements, ahp, with_judgement
from tklscore.core.model.data_model import DEFAULT_EXPERT
from tklscore.core.model.data_model.derivation import criterion_effects
from tklscore.core.scoring.weights_source import MODEL
from tklscore.gui.ahp.judgements_panel import AMBER, GREEN, GREY, RED, JudgementsPanel, TrafficLight, light_of
from tklscore.gui.ahp.result_panel import ResultPanel
from tklscore.gui.ahp.saaty_slider import describe
from tklscore.gui.ahp.sensitivity_panel import SensitivityPanel
from tklscore.gui.when_shown import WhenShown

COMBINED = "combined (all experts)"
ADD_EXPERT = "Add expert…"
__all__ = ["ADD_EXPERT", "AMBER", "COMBINED", "GREEN", "GREY", "RED", "AhpView", "TrafficLight", "light_of"]


class AhpView(QWidget):
    def __init__(self, workbench, parent: QWidget | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.parent_iri: str | None = None
        self.expert: str | None = DEFAULT_EXPERT   # None: combined (all experts)
        self.added_experts: dict[str, list[str]] = {}   # added in this view, no judgements yet
        self.result: AHPResult | None = None
        self.matrix: np.ndarray | None = None        # the input matrix shown (NaN = not judged)
        self._rows_key = None
        self._preview: tuple[tuple[int, int], float | None] | None = None
        self._updating = False
        self._model_changing = False   # the model changed: its scores (and then the sweep) follow
        # the effect of a judgement: the group's priorities before the judgement being moved or
        # last kept, and the current release's tkl-Score before the last one kept
        self._before: tuple[tuple, np.ndarray] | None = None
        self._score_before: tuple | None = None   # (release, its report, judgement, undo index after it)
        self.judgements = JudgementsPanel()
        self.results = ResultPanel(self.use_suggested)
        self.sensitivity = SensitivityPanel(workbench, lambda: (self.parent_iri, self._criteria()))
        self._lay_out()
        for name in ("light", "light_label", "matrix_table", "pairs_box"):
            setattr(self, name, getattr(self.judgements, name))
        for name in ("priority_table", "chart", "lambda_label", "ci_label", "cr_label", "inconsistent_label",
                     "suggest_button"):
            setattr(self, name, getattr(self.results, name))
        self.sensitivity_combo, self.sensitivity_chart = self.sensitivity.combo, self.sensitivity.chart
        self.sensitivity_note = self.sensitivity.note
        self._sweep_when_shown = WhenShown(self, self.compute_sensitivity)
        workbench.modelChanged.connect(self.sensitivity.cancel)  # the edit's scores go first; a new sweep follows
        workbench.modelChanged.connect(self._model_changed)
        workbench.scoresChanged.connect(self.show_score)
        workbench.scoresChanged.connect(self._sweep_when_shown.request)
        workbench.releasesChanged.connect(self.show_score)
        self.refresh()
        self.show_score()
        self._sweep_when_shown.request()

    def _lay_out(self) -> None:
        self.group_combo = QComboBox()
        self.group_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.expert_combo = QComboBox()
        self.group_combo.currentIndexChanged.connect(self._group_chosen)
        self.expert_combo.activated.connect(self._expert_chosen)
        top = QHBoxLayout()
        top.addWidget(QLabel("Criteria group:"))
        top.addWidget(self.group_combo, 1)
        top.addWidget(QLabel("Expert:"))
        top.addWidget(self.expert_combo)
        self.model_label = QLabel()
        self.model_label.setObjectName("ahpModel")
        self.model_label.setWordWrap(True)
        self.score_label = QLabel()
        self.score_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {RED}")
        self.message.hide()
        self.note = QLabel()
        self.note.setWordWrap(True)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.results)
        right.addWidget(self.sensitivity)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.judgements)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.model_label)
        layout.addLayout(top)
        layout.addWidget(self.score_label)
        layout.addWidget(self.note)
        layout.addWidget(self.message)
        layout.addWidget(splitter, 1)

    # ------------------------------------------------------------------ parts kept by their old names

    @property
    def sliders(self):
        return self.judgements.sliders

    @property
    def sweep(self):
        return self.sensitivity.sweep

    @property
    def _sweep_task(self):
        return self.sensitivity.task

    def compute_sensitivity(self) -> None:
        self.sensitivity.compute()

    def set_sensitivity_criterion(self, iri: str) -> None:
        self.sensitivity.choose(iri)

    # ------------------------------------------------------------------ model → view

    @property
    def model(self):
        return self.workbench.model

    def group(self) -> list[str]:
        return self.model.criteria_group(self.parent_iri) if self.model and self.parent_iri else []

    def labels(self) -> list[str]:
        return [self.model.nodes[c].label for c in self.group()]

    def _criteria(self) -> list[tuple[str, str]]:
        return list(zip(self.group(), self.labels()))

    def experts(self) -> list[str]:
        if not self.model or not self.parent_iri:
            return []
        names = list(self.model.experts(self.parent_iri))
        for name in self.added_experts.get(self.parent_iri, []):
            if name not in names:
                names.append(name)
        return names or [DEFAULT_EXPERT]

    def combined(self) -> bool:
        return self.expert is None

    def _model_changed(self) -> None:
        """After an edit, undo or redo: re-read the model; the sweep waits for the new scores."""
        self._model_changing = True
        try:
            self.refresh()
        finally:
            self._model_changing = False
        if self.parent_iri and self.workbench.scorer is not None and self.workbench.weights_use() == MODEL:
            self.sensitivity_note.setText("Waiting for the new scores…")

    def show_model(self) -> None:
        """Which model is judged, for which table, where it came from, and what is left to judge."""
        model, workbench = self.model, self.workbench
        if model is None:
            self.model_label.setText("<b>No tkl-Data Model.</b> Build one from the source (File ▸ New model from "
                                     "source…), open one (File ▸ Open model…), or open the thesis example.")
            return
        groups = model.groups()
        results = model.judged_groups()
        judged = sum(1 for g in groups if g in results)
        table = f" of <b>{model.source}</b>" if model.source else ""
        self.model_label.setText(f"Judging the tkl-Data Model{table} ({len(model.columns)} sensitive column(s)) — "
                                 f"{workbench.model_origin or 'unsaved'}. {judged} of {len(groups)} criteria "
                                 f"group(s) judged.")

    def refresh(self) -> None:
        """Re-read everything from the model (after an edit, undo or redo)."""
        self.show_model()
        self._updating = True
        try:
            model = self.model
            groups = model.groups() if model else []
            self.group_combo.blockSignals(True)
            self.group_combo.clear()
            for iri in groups:
                labels = ", ".join(model.nodes[c].label for c in model.criteria_group(iri))
                self.group_combo.addItem(f"Under {model.nodes[iri].label}: {labels}", iri)
            if self.parent_iri not in groups:  # start with the largest group: it needs the most care
                self.parent_iri = max(groups, key=lambda g: len(model.criteria_group(g))) if groups else None
            if self.parent_iri:
                self.group_combo.setCurrentIndex(groups.index(self.parent_iri))
            self.group_combo.blockSignals(False)
            self._fill_experts()
        finally:
            self._updating = False
        self._preview = None
        self._show_group()

    def _fill_experts(self) -> None:
        experts = self.experts()
        if self.expert is not None and experts and self.expert not in experts:
            self.expert = experts[0]
        self.expert_combo.blockSignals(True)
        self.expert_combo.clear()
        for name in experts:
            self.expert_combo.addItem(name, name)
        if self.parent_iri:
            self.expert_combo.addItem(COMBINED, None)
            self.expert_combo.addItem(ADD_EXPERT, ADD_EXPERT)
        index = self.expert_combo.findData(self.expert) if self.expert is not None else len(experts)
        self.expert_combo.setCurrentIndex(max(0, index))
        self.expert_combo.setEnabled(bool(self.parent_iri))
        self.expert_combo.blockSignals(False)

    def _group_chosen(self, index: int) -> None:
        if self._updating or index < 0:
            return
        self.parent_iri = self.group_combo.itemData(index)
        self._fill_experts()
        self._preview = None
        self._before = None
        self._show_group()

    def _expert_chosen(self, index: int) -> None:
        data = self.expert_combo.itemData(index)
        if data == ADD_EXPERT:
            name, ok = QInputDialog.getText(self, "Add expert", "Name of the expert:")
            if ok and name.strip():
                self.add_expert(name.strip())
            else:
                self._fill_experts()
            return
        self.set_expert(data)

    def add_expert(self, name: str) -> None:
        """A new expert for the current group; their judgements start empty."""
        if not self.parent_iri:
            return
        if name in (COMBINED, ADD_EXPERT) or not name:
            self._error(f"'{name}' cannot be an expert's name")
            return
        added = self.added_experts.setdefault(self.parent_iri, [])
        if name not in self.experts():
            added.append(name)
        self.set_expert(name)

    def set_expert(self, name: str | None) -> None:
        """Show one expert's judgements, or (None) the combined judgements, read-only."""
        self.expert = name
        self._fill_experts()
        self._preview = None
        self._before = None
        self._show_group()

    def _show_group(self) -> None:
        self._error(None)
        group, labels = self.group(), self.labels()
        key = (self.parent_iri, tuple(group), tuple(labels), self.expert)
        if key != self._rows_key:
            self.judgements.build_rows(labels, self._previewed, self.set_judgement)
            self._rows_key = key
        if not self.parent_iri:
            self.note.setText("The model has no criteria group with two or more criteria to judge."
                              if self.model else "")
        else:
            note = ""
            if all(self.model.nodes[c].assigned is not None for c in group):
                note = ("These criteria have priorities assigned directly; the judgements below do not "
                        "count until the assigned priorities are removed. ")
            if self.combined():
                note += (f"Combined judgements of {len(self.model.experts(self.parent_iri))} expert(s) "
                         f"(geometric mean), read-only; choose an expert to edit.")
            self.note.setText(note)
        self._recompute()
        self.sensitivity.fill(self._criteria())
        if not self._model_changing:
            self._sweep_when_shown.request()

    # ------------------------------------------------------------------ computation

    def _input_matrix(self) -> np.ndarray | None:
        if self.combined():
            matrices = [self.model.judgement_matrix(self.parent_iri, e) for e in self.model.experts(self.parent_iri)]
        else:
            matrices = [self.model.judgement_matrix(self.parent_iri, self.expert)]
        if not matrices:
            return None
        matrix = matrices[0] if len(matrices) == 1 else aggregate_judgements(matrices)
        if self._preview is not None:
            (i, j), value = self._preview
            matrix = with_judgement(matrix, i, j, value)
        return matrix

    def _recompute(self) -> None:
        self.result, self.matrix, problem = None, None, None
        if self.model and self.parent_iri:
            try:
                self.matrix = self._input_matrix()
                if self.matrix is None or np.isnan(self.matrix[np.triu_indices(len(self.matrix), 1)]).all():
                    problem = "No judgements yet: move the sliders to compare the criteria."
                else:
                    self.result = ahp(self.matrix, method=self.model.method, ri=self.model.random_index,
                                      criteria=self.labels())
            except InputError as error:
                problem = str(error)
        moving = self._preview[0] if self._preview is not None else None
        self.judgements.show_sliders(self.matrix, self.result, moving, self.combined())
        self.judgements.show_matrix(self.labels(), self.matrix, self.result)
        if problem:
            self._error(problem)
        group = self.combined() and self.model is not None and len(self.model.experts(self.parent_iri)) > 1
        self.judgements.show_light(self.result, group)
        effects = criterion_effects(self.model, self.parent_iri, self.result.priorities) if self.result else []
        before = self._before[1] if self._before is not None and self._before[0] == self._rows_key else None
        self.results.show_result(self.result, self.labels(), not self.combined() and self._preview is None,
                                 effects, before)

    def _keep_before(self) -> None:
        """Remember the priorities shown now, before a judgement changes them."""
        if self._preview is None:
            self._before = ((self._rows_key, np.asarray(self.result.priorities, dtype=float))
                            if self.result is not None else None)

    def show_score(self) -> None:
        workbench = self.workbench
        name = workbench.project.current_release
        report = workbench.current_report()
        if not name:
            self.score_label.setText("No current release to score.")
        elif report is None or report.scores.tkl is None:
            problem = workbench.weights_problem
            self.score_label.setText(f"Current release ({name}): tkl-Score —"
                                     + (f" ({problem})" if problem else " (scoring…)"))
        else:
            text = f"Current release ({name}): tkl-Score <b>{report.scores.tkl:.5f}</b>"
            before = self._score_before
            if before is not None and before[0] == name and before[3] == self.workbench.undo_stack.index():
                old = before[1].scores.tkl
                change = report.scores.tkl - old
                moved = ("scoring…" if report is before[1] else
                         f"{change:+.5f} from {old:.5f}" if abs(change) >= 5e-6 else "unchanged")
                text += f" — {moved} by the last judgement kept: {before[2]}"
            self.score_label.setText(text)

    # ------------------------------------------------------------------ view → model

    def _previewed(self, pair: tuple[int, int], value: float | None) -> None:
        self._keep_before()
        self._preview = (pair, value)
        self._error(None)
        self._recompute()

    def set_judgement(self, pair: tuple[int, int], value: float | None) -> None:
        """Commit the judgement of criterion ``pair[0]`` over ``pair[1]`` (indices in the
        group) for the current expert: one undoable edit."""
        moved = self._preview is not None   # the priorities before it were kept when it started moving
        self._preview = None
        if self.combined() or not self.parent_iri:
            self._recompute()
            return
        group, labels = self.group(), self.labels()
        i, j = pair
        parent, expert = self.parent_iri, self.expert
        text = (f"Judgement {labels[i]} vs {labels[j]}" if value is not None
                else f"Clear judgement {labels[i]} vs {labels[j]}")
        if not moved:
            self._keep_before()
        report = self.workbench.current_report()
        try:
            self.workbench.edit_model(text, lambda m: m.set_judgement(parent, group[i], group[j], value, expert))
            scored = report is not None and report.scores.tkl is not None and self.workbench.weights_use() == MODEL
            self._score_before = (None if not scored else
                                  (self.workbench.project.current_release, report, describe(labels[i], labels[j], value),
                                   self.workbench.undo_stack.index()))
            self.show_score()
        except InputError as error:
            self._recompute()
            self._error(str(error))

    def use_suggested(self) -> None:
        worst = self.result.most_inconsistent if self.result is not None else None
        if worst is None or self.combined():
            return
        self.set_judgement((worst.row, worst.column), worst.suggested)

    def _error(self, text: str | None) -> None:
        self.message.setText(text or "")
        self.message.setVisible(bool(text))
