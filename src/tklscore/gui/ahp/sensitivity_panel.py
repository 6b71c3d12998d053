"""The AHP view's sensitivity chart: for the chosen criterion, the current release's normalised
tkl/M/L as its priority sweeps 0 … 1 (core.scoring.sensitivity, on the task runner's side
lane, beside the scores), with today's priority marked. A model edit cancels the sweep; a new
one follows the edit's scores."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGroupBox, QHBoxLayout, QLabel, QVBoxLayout

from tklscore.core.scoring.scores import SCORE_COLORS, SCORE_LABELS
from tklscore.core.scoring.sensitivity import PrioritySweep, priority_sweep
from tklscore.core.scoring.weights_source import MODEL
from tklscore.gui.tasks import SIDE
from tklscore.gui.plots import plot_widget


class SensitivityPanel(QGroupBox):
    def __init__(self, workbench, group_of, parent=None):
        super().__init__("Sensitivity of the current release to one priority", parent)
        self.workbench = workbench
        self.group_of = group_of      # () -> (parent iri, [(criterion iri, label)]) of the group shown
        self.sweep: PrioritySweep | None = None
        self._drawn: dict[str, tuple] = {}   # each score's line and today's dot, kept from one sweep to the next
        self._today: pg.InfiniteLine | None = None
        self.generation = 0
        self.task = None
        self.combo = QComboBox()
        self.combo.setObjectName("sensitivityCriterion")
        self.combo.activated.connect(lambda _: self.compute())
        self.chart = plot_widget(background="w")
        self.chart.setObjectName("sensitivityChart")
        self.chart.setMinimumHeight(200)
        plot = self.chart.getPlotItem()
        plot.setLabel("bottom", "priority of the criterion within its group")
        plot.setLabel("left", "release score / source score")
        plot.showGrid(x=True, y=True, alpha=0.2)
        for axis in ("left", "bottom"):
            plot.getAxis(axis).setTextPen("k")
            plot.getAxis(axis).setPen("k")
            plot.getAxis(axis).enableAutoSIPrefix(False)
        plot.hideButtons()
        self.legend = plot.addLegend(offset=(10, 5), colCount=4)
        self.legend.setLabelTextColor("k")
        self.note = QLabel()
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(QLabel("Criterion:"))
        row.addWidget(self.combo, 1)
        layout.addLayout(row)
        layout.addWidget(self.chart, 1)
        layout.addWidget(self.note)

    def fill(self, criteria: list[tuple[str, str]]) -> None:
        """The criteria to choose from; the chosen one stays chosen when it is still there."""
        chosen = self.combo.currentData()
        self.combo.blockSignals(True)
        self.combo.clear()
        for iri, label in criteria:
            self.combo.addItem(label, iri)
        index = self.combo.findData(chosen)
        self.combo.setCurrentIndex(index if index >= 0 else 0)
        self.combo.blockSignals(False)

    def choose(self, iri: str) -> None:
        index = self.combo.findData(iri)
        if index >= 0:
            self.combo.setCurrentIndex(index)
            self.compute()

    def compute(self) -> None:
        """Sweep the chosen criterion's priority in the background and draw the result."""
        self.generation += 1
        generation = self.generation
        workbench = self.workbench
        parent, _ = self.group_of()
        criterion = self.combo.currentData()
        release = workbench.current_release()
        ready = (workbench.model is not None and parent and criterion and release is not None
                 and workbench.scorer is not None and workbench.weights_use() == MODEL)
        if not ready:
            self.draw(None, "Choose a criterion; the chart needs the current release scored with "
                            "the tkl-Data Model's weights." if parent else "")
            return
        model, scorer, x = workbench.model.copy(), workbench.scorer, workbench.project.x
        self.note.setText("Computing…")

        def sweep(control):
            return priority_sweep(model, parent, criterion, scorer, release, x,
                                  progress=lambda f: control.progress(int(100 * f), "Sensitivity of the scores"))

        def done(result: PrioritySweep) -> None:
            if generation == self.generation:  # else a newer sweep was asked for
                self.draw(result)

        def failed(message: str) -> None:
            if generation == self.generation:
                self.draw(None, message)

        def cancelled(_value) -> None:   # by the officer (a superseded sweep is the newer one's business)
            if generation == self.generation:
                self.task = None
                self.note.setText("The sweep was cancelled: " + (
                    "the chart shows the last sweep, made before your latest change." if self.sweep is not None
                    else "no chart is shown. Choose the criterion again to draw it."))

        self.cancel()
        # the side lane: the sweep only reads the Scorer, and the scores of the next edit never wait for it
        self.task = workbench.runner.start("Sensitivity of the scores", sweep, done, failed, owner=self, lane=SIDE,
                                           on_cancelled=cancelled, cancel_text="Cancel the sweep",
                                           stops="the sensitivity sweep of the scores")

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.task = None

    def draw(self, sweep: PrioritySweep | None, note: str = "") -> None:
        self.sweep = sweep
        plot = self.chart.getPlotItem()
        if sweep is None:
            plot.clear()
            self._drawn, self._today = {}, None
            self.note.setText(note)
            return
        if self._today is None:   # the chart's items, made once and given each sweep's data (a tenth of the time)
            for name in sweep.scores:
                self._drawn[name] = (
                    plot.plot([], [], name=SCORE_LABELS[name], pen=pg.mkPen(SCORE_COLORS[name], width=2)),
                    plot.plot([], [], pen=None, symbol="o", symbolSize=9, symbolBrush=SCORE_COLORS[name], symbolPen="k"))
            self._today = pg.InfiniteLine(sweep.current, angle=90, label="today {value:.3f}",
                                          pen=pg.mkPen("#555555", style=Qt.PenStyle.DashLine),
                                          labelOpts={"color": "k", "position": 0.08})
            plot.addItem(self._today)
        highest = 0.0
        for name, values in sweep.scores.items():
            line, dot = self._drawn[name]
            line.setData(sweep.priorities, values)
            today = sweep.current_scores.get(name)
            dot.setData([sweep.current] if today is not None else [], [today] if today is not None else [])
            if np.isfinite(values).any():
                highest = max(highest, float(np.nanmax(values)))
        self._today.setValue(sweep.current)
        plot.setXRange(0, 1, padding=0.02)
        plot.setYRange(0, max(highest, 1e-9) * 1.3, padding=0)
        model = self.workbench.model
        label = model.nodes[sweep.criterion].label if model and sweep.criterion in model.nodes else ""
        spread = {name: float(np.nanmax(v) - np.nanmin(v)) for name, v in sweep.scores.items()}
        most = max(spread, key=spread.get)
        self.note.setText(
            f"As {label}'s priority goes from 0 to 1 (its siblings keep their proportions), the normalised "
            f"{SCORE_LABELS[most]} moves most, by {spread[most]:.4f}; the dots are today's scores.")
