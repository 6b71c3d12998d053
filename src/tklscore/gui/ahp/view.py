"""The AHP editor (gui.md §2.2): pairwise judgements of one criteria group at a time on
the Saaty scale, in words; the reciprocal matrix (completed cells in grey italics); the
priorities with a bar chart, λ_max, CI, CR and a traffic light; the most inconsistent
judgement with a one-click "use suggested value"; several experts and their combined
(geometric-mean) judgements; the current release's tkl-Score, live. The consistency ratio
and its verdict sit in a banner right above the sliders. A sensitivity chart shows, for
the chosen criterion, the current release's normalised tkl/M/L as its priority sweeps
0 … 1 (core.scoring.sensitivity, on the task runner's side lane, beside the scores), with today's
priority marked.

Every committed change is one undoable ``Workbench.edit_model`` (which re-derives the
weights and re-scores); moves of a slider preview the AHP result before they commit."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tklscore.core.model.ahp import AHPResult, aggregate_judgements, ahp
from tklscore.core.scoring.sensitivity import PrioritySweep, priority_sweep
from tklscore.core.scoring.weights_source import MODEL
from tklscore.core.model.data_model import DEFAULT_EXPERT
from tklscore.core.errors import InputError
from tklscore.gui.ahp.saaty_slider import SaatySlider, describe, format_rating
from tklscore.gui.tasks import SIDE
from tklscore.gui.when_shown import WhenShown

COMBINED = "combined (all experts)"
ADD_EXPERT = "Add expert…"

GREEN, AMBER, RED, GREY = "#2e9d3a", "#e8a317", "#d43c2f", "#9e9e9e"
LIGHTS = {"consistent": GREEN, "acceptable": GREEN, "borderline": AMBER, "inconsistent": RED}


def light_of(result: AHPResult | None, group: bool) -> tuple[str, str]:
    """(colour, words) of the traffic light for the core's consistency verdict."""
    if result is None:
        return GREY, "no result"
    verdict = result.verdict(group)
    return LIGHTS[verdict.level], verdict.sentence


class TrafficLight(QWidget):
    """A coloured circle; ``color`` is its name (#rrggbb)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.color = GREY
        self.setFixedSize(22, 22)

    def set_color(self, color: str) -> None:
        self.color = color
        self.update()

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setBrush(QColor(self.color))
        painter.setPen(QColor("#555555"))
        painter.drawEllipse(2, 2, self.width() - 4, self.height() - 4)


class AhpView(QWidget):
    def __init__(self, workbench, parent: QWidget | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.parent_iri: str | None = None
        self.expert: str | None = DEFAULT_EXPERT   # None: combined (all experts)
        self.added_experts: dict[str, list[str]] = {}   # added in this view, no judgements yet
        self.sliders: dict[tuple[int, int], SaatySlider] = {}
        self.sweep: PrioritySweep | None = None
        self._sweep_generation = 0
        self._sweep_task = None
        self.result: AHPResult | None = None
        self.matrix: np.ndarray | None = None        # the input matrix shown (NaN = not judged)
        self._rows_key = None
        self._preview: tuple[tuple[int, int], float | None] | None = None
        self._updating = False
        self._model_changing = False   # the model changed: its scores (and then the sweep) follow
        self._build()
        self._sweep_when_shown = WhenShown(self, self.compute_sensitivity)
        workbench.modelChanged.connect(self._cancel_sweep)  # the edit's scores go first; a new sweep follows them
        workbench.modelChanged.connect(self._model_changed)
        workbench.scoresChanged.connect(self.show_score)
        workbench.scoresChanged.connect(self._sweep_when_shown.request)
        workbench.releasesChanged.connect(self.show_score)
        self.refresh()
        self.show_score()
        self._sweep_when_shown.request()

    # ------------------------------------------------------------------ layout

    def _build(self) -> None:
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
        self.score_label = QLabel()
        self.score_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {RED}")
        self.message.hide()
        self.note = QLabel()
        self.note.setWordWrap(True)

        # judgements
        self.pairs_box = QWidget()
        self.pairs_layout = QVBoxLayout(self.pairs_box)
        self.pairs_layout.setAlignment(Qt.AlignmentFlag.AlignTop)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.pairs_box)
        judgements = QGroupBox("Judgements (move towards the more important criterion)")
        self.light = TrafficLight()
        self.light_label = QLabel()
        self.light_label.setObjectName("consistencyVerdict")
        self.light_label.setWordWrap(True)
        font = self.light_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.light_label.setFont(font)
        banner = QHBoxLayout()
        banner.addWidget(self.light, 0, Qt.AlignmentFlag.AlignTop)
        banner.addWidget(self.light_label, 1)
        judgements_layout = QVBoxLayout(judgements)
        judgements_layout.addLayout(banner)
        judgements_layout.addWidget(scroll, 1)

        self.matrix_table = QTableWidget()
        self.matrix_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        matrix_box = QGroupBox("Reciprocal matrix (grey italics: completed, not judged)")
        QVBoxLayout(matrix_box).addWidget(self.matrix_table)

        left = QSplitter(Qt.Orientation.Vertical)
        left.addWidget(judgements)
        left.addWidget(matrix_box)
        left.setStretchFactor(0, 3)
        left.setStretchFactor(1, 2)

        # results
        self.priority_table = QTableWidget(0, 2)
        self.priority_table.setHorizontalHeaderLabels(["Criterion", "Priority"])
        self.priority_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.priority_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.priority_table.verticalHeader().hide()
        self.priority_table.setMaximumHeight(220)
        self.chart = pg.PlotWidget()
        self.chart.setBackground("w")
        self.chart.setMinimumHeight(160)
        self.chart.setYRange(0, 1)
        self.chart.setMouseEnabled(x=False, y=False)
        self.chart.getPlotItem().hideButtons()
        self.chart.getPlotItem().setMenuEnabled(False)
        self.bars: pg.BarGraphItem | None = None
        self.lambda_label = QLabel()
        self.ci_label = QLabel()
        self.cr_label = QLabel()
        numbers = QFormLayout()
        numbers.addRow("λ_max:", self.lambda_label)
        numbers.addRow("CI:", self.ci_label)
        numbers.addRow("CR:", self.cr_label)
        self.inconsistent_label = QLabel()
        self.inconsistent_label.setWordWrap(True)
        self.suggest_button = QPushButton("Use suggested value")
        self.suggest_button.clicked.connect(self.use_suggested)
        results = QGroupBox("Result")
        box = QVBoxLayout(results)
        box.addWidget(self.priority_table)
        box.addWidget(self.chart, 1)
        box.addLayout(numbers)
        box.addWidget(self.inconsistent_label)
        box.addWidget(self.suggest_button, 0, Qt.AlignmentFlag.AlignLeft)

        # sensitivity of the current release's scores to one criterion's priority
        self.sensitivity_combo = QComboBox()
        self.sensitivity_combo.setObjectName("sensitivityCriterion")
        self.sensitivity_combo.activated.connect(lambda _: self.compute_sensitivity())
        self.sensitivity_chart = pg.PlotWidget(background="w")
        self.sensitivity_chart.setObjectName("sensitivityChart")
        self.sensitivity_chart.setMinimumHeight(200)
        plot = self.sensitivity_chart.getPlotItem()
        plot.setLabel("bottom", "priority of the criterion within its group")
        plot.setLabel("left", "release score / source score")
        plot.showGrid(x=True, y=True, alpha=0.2)
        for axis in ("left", "bottom"):
            plot.getAxis(axis).setTextPen("k")
            plot.getAxis(axis).setPen("k")
            plot.getAxis(axis).enableAutoSIPrefix(False)
        plot.hideButtons()
        self.sensitivity_legend = plot.addLegend(offset=(10, 5), colCount=4)
        self.sensitivity_legend.setLabelTextColor("k")
        self.sensitivity_note = QLabel()
        self.sensitivity_note.setWordWrap(True)
        sensitivity = QGroupBox("Sensitivity of the current release to one priority")
        sensitivity_layout = QVBoxLayout(sensitivity)
        criterion_row = QHBoxLayout()
        criterion_row.addWidget(QLabel("Criterion:"))
        criterion_row.addWidget(self.sensitivity_combo, 1)
        sensitivity_layout.addLayout(criterion_row)
        sensitivity_layout.addWidget(self.sensitivity_chart, 1)
        sensitivity_layout.addWidget(self.sensitivity_note)
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(results)
        right.addWidget(sensitivity)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.score_label)
        layout.addWidget(self.note)
        layout.addWidget(self.message)
        layout.addWidget(splitter, 1)

    # ------------------------------------------------------------------ model → view

    @property
    def model(self):
        return self.workbench.model

    def group(self) -> list[str]:
        return self.model.criteria_group(self.parent_iri) if self.model and self.parent_iri else []

    def labels(self) -> list[str]:
        return [self.model.nodes[c].label for c in self.group()]

    def experts(self) -> list[str]:
        if not self.model or not self.parent_iri:
            return []
        names = list(self.model.experts(self.parent_iri))
        for name in self.added_experts.get(self.parent_iri, []):
            if name not in names:
                names.append(name)
        return names or [DEFAULT_EXPERT]

    def _model_changed(self) -> None:
        """After an edit, undo or redo: re-read the model; the sweep waits for the new scores."""
        self._model_changing = True
        try:
            self.refresh()
        finally:
            self._model_changing = False
        if self.parent_iri and self.workbench.scorer is not None and self.workbench.weights_use() == MODEL:
            self.sensitivity_note.setText("Waiting for the new scores…")

    def refresh(self) -> None:
        """Re-read everything from the model (after an edit, undo or redo)."""
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
        self._show_group()

    def combined(self) -> bool:
        return self.expert is None

    def _show_group(self) -> None:
        self._error(None)
        group, labels = self.group(), self.labels()
        key = (self.parent_iri, tuple(group), tuple(labels), self.expert)
        if key != self._rows_key:
            self._build_rows(labels)
            self._rows_key = key
        if not self.parent_iri:
            self.note.setText("The model has no criteria group with two or more criteria to judge."
                              if self.model else "Open a project or a tkl-Data Model to judge its criteria.")
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
        self._fill_sensitivity_criteria()

    def _build_rows(self, labels: list[str]) -> None:
        for slider in self.sliders.values():
            slider.setParent(None)
            slider.deleteLater()
        self.sliders = {}
        n = len(labels)
        for i in range(n):
            for j in range(i + 1, n):
                slider = SaatySlider(labels[i], labels[j], None, self.pairs_box)
                slider.previewed.connect(lambda value, pair=(i, j): self._previewed(pair, value))
                slider.committed.connect(lambda value, pair=(i, j): self.set_judgement(pair, value))
                self.pairs_layout.addWidget(slider)
                self.sliders[(i, j)] = slider

    # ------------------------------------------------------------------ computation

    def _matrices(self) -> list[np.ndarray]:
        if self.combined():
            return [self.model.judgement_matrix(self.parent_iri, e) for e in self.model.experts(self.parent_iri)]
        return [self.model.judgement_matrix(self.parent_iri, self.expert)]

    def _input_matrix(self) -> np.ndarray | None:
        matrices = self._matrices()
        if not matrices:
            return None
        matrix = matrices[0] if len(matrices) == 1 else aggregate_judgements(matrices)
        if self._preview is not None:
            (i, j), value = self._preview
            matrix = matrix.copy()
            matrix[i, j] = np.nan if value is None else value
            matrix[j, i] = np.nan if value is None else 1.0 / value
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
        self._show_sliders()
        self._show_matrix()
        self._show_result(problem)

    def _show_sliders(self) -> None:
        completed = self.result.completed_matrix if self.result is not None else None
        for (i, j), slider in self.sliders.items():
            if self._preview is not None and self._preview[0] == (i, j):
                continue   # the user is moving it
            value = self.matrix[i, j] if self.matrix is not None else math.nan
            filled = float(completed[i, j]) if completed is not None else None
            slider.set_value(None if math.isnan(value) else float(value), filled)
            slider.set_read_only(self.combined())

    def _show_matrix(self) -> None:
        labels = self.labels()
        n = len(labels)
        table = self.matrix_table
        table.clear()
        table.setRowCount(n)
        table.setColumnCount(n)
        table.setHorizontalHeaderLabels(labels)
        table.setVerticalHeaderLabels(labels)
        if self.matrix is None:
            return
        shown = self.result.completed_matrix if self.result is not None else self.matrix
        italic = QFont()
        italic.setItalic(True)
        for i in range(n):
            for j in range(n):
                value = shown[i, j]
                item = QTableWidgetItem("" if math.isnan(value) else format_rating(float(value)))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if math.isnan(self.matrix[i, j]):
                    item.setFont(italic)
                    item.setForeground(QBrush(QColor("gray")))
                    item.setToolTip("not judged: completed (Harker's method)" if not math.isnan(value)
                                    else "not judged")
                elif i != j:
                    item.setToolTip(describe(labels[i], labels[j], float(value)))
                table.setItem(i, j, item)

    def _show_result(self, problem: str | None) -> None:
        result, labels = self.result, self.labels()
        self.priority_table.setRowCount(0)
        if self.bars is not None:
            self.chart.removeItem(self.bars)
            self.bars = None
        if problem:
            self.message.setText(problem)
            self.message.show()
        if result is None:
            for label in (self.lambda_label, self.ci_label, self.cr_label):
                label.setText("—")
            self.light.set_color(GREY)
            self.light_label.setText("no result")
            self.inconsistent_label.setText("")
            self.suggest_button.setEnabled(False)
            return
        self.priority_table.setRowCount(len(labels))
        for k, (label, p) in enumerate(zip(labels, result.priorities)):
            self.priority_table.setItem(k, 0, QTableWidgetItem(label))
            item = QTableWidgetItem(f"{p:.4f}")
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.priority_table.setItem(k, 1, item)
        x = np.arange(len(labels))
        self.bars = pg.BarGraphItem(x=x, height=np.asarray(result.priorities, dtype=float), width=0.6,
                                    brush="#4a7ebb")
        self.chart.addItem(self.bars)
        self.chart.getAxis("bottom").setTicks([list(zip(x.tolist(), labels))])
        self.chart.setXRange(-0.6, len(labels) - 0.4, padding=0)
        self.chart.setYRange(0, max(1e-9, float(max(result.priorities))) * 1.1, padding=0)
        self.lambda_label.setText(f"{result.lambda_max:.4f}")
        self.ci_label.setText(f"{result.ci:.4f}")
        self.cr_label.setText(f"{result.cr:.4f}" + (" (n ≤ 2: always consistent)" if result.n <= 2 else ""))
        group = self.combined() and len(self.model.experts(self.parent_iri)) > 1
        color, words = light_of(result, group)
        self.light.set_color(color)
        self.light_label.setText(words)
        worst = result.most_inconsistent
        if worst is None:
            self.inconsistent_label.setText("No judgement stands out as inconsistent."
                                            if result.n > 2 else "")
            self.suggest_button.setEnabled(False)
        elif math.isclose(worst.suggested, worst.value, rel_tol=1e-9):
            a, b = labels[worst.row], labels[worst.column]
            self.inconsistent_label.setText(
                f"The judgement deviating most is {describe(a, b, worst.value)}; the Saaty scale has "
                f"no value closer to the priorities, so there is nothing to change.")
            self.suggest_button.setEnabled(False)
        else:
            a, b = labels[worst.row], labels[worst.column]
            self.inconsistent_label.setText(
                f"Most inconsistent judgement: {describe(a, b, worst.value)}. "
                f"Consistent with the priorities would be {format_rating(worst.suggested)}: "
                f"{describe(a, b, worst.suggested)}.")
            self.suggest_button.setEnabled(not self.combined() and self._preview is None)

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
            self.score_label.setText(f"Current release ({name}): tkl-Score <b>{report.scores.tkl:.5f}</b>")

    # ------------------------------------------------------------------ sensitivity

    def _fill_sensitivity_criteria(self) -> None:
        group = self.group()
        chosen = self.sensitivity_combo.currentData()
        self.sensitivity_combo.blockSignals(True)
        self.sensitivity_combo.clear()
        for iri, label in zip(group, self.labels()):
            self.sensitivity_combo.addItem(label, iri)
        index = self.sensitivity_combo.findData(chosen)
        self.sensitivity_combo.setCurrentIndex(index if index >= 0 else 0)
        self.sensitivity_combo.blockSignals(False)
        if not self._model_changing:
            self._sweep_when_shown.request()

    def set_sensitivity_criterion(self, iri: str) -> None:
        index = self.sensitivity_combo.findData(iri)
        if index >= 0:
            self.sensitivity_combo.setCurrentIndex(index)
            self.compute_sensitivity()

    def compute_sensitivity(self) -> None:
        """Sweep the chosen criterion's priority in the background and draw the result."""
        self._sweep_generation += 1
        generation = self._sweep_generation
        workbench = self.workbench
        criterion = self.sensitivity_combo.currentData()
        release = workbench.current_release()
        ready = (self.model is not None and self.parent_iri and criterion and release is not None
                 and workbench.scorer is not None and workbench.weights_use() == MODEL)
        if not ready:
            self._draw_sweep(None, "Choose a criterion; the chart needs the current release scored with "
                                   "the tkl-Data Model's weights." if self.parent_iri else "")
            return
        model, parent, scorer, x = self.model.copy(), self.parent_iri, workbench.scorer, workbench.project.x
        self.sensitivity_note.setText("Computing…")

        def sweep(control):
            return priority_sweep(model, parent, criterion, scorer, release, x,
                                  progress=lambda f: control.progress(int(100 * f), "Sensitivity of the scores"))

        def done(result: PrioritySweep) -> None:
            if generation == self._sweep_generation:  # else a newer sweep was asked for
                self._draw_sweep(result)

        def failed(message: str) -> None:
            if generation == self._sweep_generation:
                self._draw_sweep(None, message)

        self._cancel_sweep()
        # the side lane: the sweep only reads the Scorer, and the scores of the next edit never wait for it
        self._sweep_task = workbench.runner.start("Sensitivity of the scores", sweep, done, failed,
                                                  owner=self, lane=SIDE)

    def _cancel_sweep(self) -> None:
        if self._sweep_task is not None:
            self._sweep_task.cancel()
            self._sweep_task = None

    def _draw_sweep(self, sweep: PrioritySweep | None, note: str = "") -> None:
        from tklscore.gui.scores.charts import COLORS, LABELS

        self.sweep = sweep
        plot = self.sensitivity_chart.getPlotItem()
        plot.clear()
        if sweep is None:
            self.sensitivity_note.setText(note)
            return
        highest = 0.0
        for name, values in sweep.scores.items():
            plot.plot(sweep.priorities, values, name=LABELS[name], pen=pg.mkPen(COLORS[name], width=2))
            today = sweep.current_scores.get(name)
            if today is not None:
                plot.plot([sweep.current], [today], pen=None, symbol="o", symbolSize=9,
                          symbolBrush=COLORS[name], symbolPen="k")
            if np.isfinite(values).any():
                highest = max(highest, float(np.nanmax(values)))
        plot.addItem(pg.InfiniteLine(sweep.current, angle=90, pen=pg.mkPen("#555555", style=Qt.PenStyle.DashLine),
                                     label=f"today {sweep.current:.3f}", labelOpts={"color": "k", "position": 0.9}))
        plot.setXRange(0, 1, padding=0.02)
        plot.setYRange(0, max(highest, 1e-9) * 1.3, padding=0)
        label = self.model.nodes[sweep.criterion].label if self.model and sweep.criterion in self.model.nodes else ""
        spread = {name: float(np.nanmax(v) - np.nanmin(v)) for name, v in sweep.scores.items()}
        most = max(spread, key=spread.get)
        self.sensitivity_note.setText(
            f"As {label}'s priority goes from 0 to 1 (its siblings keep their proportions), the normalised "
            f"{LABELS[most]} moves most, by {spread[most]:.4f}; the dots are today's scores.")

    # ------------------------------------------------------------------ view → model

    def _previewed(self, pair: tuple[int, int], value: float | None) -> None:
        self._preview = (pair, value)
        self._error(None)
        self._recompute()

    def set_judgement(self, pair: tuple[int, int], value: float | None) -> None:
        """Commit the judgement of criterion ``pair[0]`` over ``pair[1]`` (indices in the
        group) for the current expert: one undoable edit."""
        self._preview = None
        if self.combined() or not self.parent_iri:
            self._recompute()
            return
        group, labels = self.group(), self.labels()
        i, j = pair
        parent, expert = self.parent_iri, self.expert
        text = (f"Judgement {labels[i]} vs {labels[j]}" if value is not None
                else f"Clear judgement {labels[i]} vs {labels[j]}")
        try:
            self.workbench.edit_model(text, lambda m: m.set_judgement(parent, group[i], group[j], value, expert))
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
