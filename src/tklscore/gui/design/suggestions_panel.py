"""The Design view's suggestions: the officer's constraints (k, l, t, the largest tkl) and
the Suggest button (``constraints_box``, on the left), and the suggested releases
(``tab``, among the results' tabs): what the search found — or that it was cancelled,
failed; out of core, worked out from the source's aggregate — as a Pareto chart to click and a table to
double-click, each loading the release's levels."""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QGroupBox, QHBoxLayout, QLabel, QPushButton, QSpinBox,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from tklscore.gui.number_spin import NumberSpinBox
from tklscore.core.numbers import count, number, percent
from tklscore.core.release.suggest import Constraints, Suggestions
from tklscore.core.release.utility import UTILITY_LOSS_MEANING
from tklscore.gui.charts import PlainAxis
from tklscore.gui.design.columns_panel import table
from tklscore.gui.plots import plot_widget

MET, MISSED = "#1f77b4", "#d62728"
ERROR_STYLE = "color: #b00020;"


class SuggestionsPanel(QObject):
    """``suggestRequested``: the officer pressed Suggest; ``releaseChosen(release)``: a
    suggested release was clicked (chart) or double-clicked (table): its ``levels``, and the
    suppression that made it (``suppress_below`` k, within ``suppression_limit``)."""

    suggestRequested = Signal()
    releaseChosen = Signal(dict)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.suggestions: Suggestions | None = None
        self.offered = True   # a search is offered for the source (core's DesignOffer)
        self.constraints_box = QGroupBox("Suggest releases (constraints)")
        row = QHBoxLayout(self.constraints_box)
        self.k_min, self.l_min = QSpinBox(), QSpinBox()
        for label, box in (("k ≥", self.k_min), ("l ≥", self.l_min)):
            box.setRange(1, 1_000_000)
            row.addWidget(QLabel(label))
            row.addWidget(box)
        self.k_min.setValue(2)
        self.t_max = NumberSpinBox()
        self.t_max.setRange(0.0, 1.0)
        self.t_max.setSingleStep(0.05)
        self.t_max.setValue(1.0)
        self.tkl_limited = QCheckBox("tkl / source ≤")
        self.tkl_limited.setToolTip("the largest tkl-Score of a suggested release, divided by the whole "
                                    "source's (unticked: no limit)")
        self.tkl_max = NumberSpinBox()
        self.tkl_max.setRange(0.0, 100.0)
        self.tkl_max.setDecimals(3)
        self.tkl_max.setSingleStep(0.05)
        self.tkl_max.setValue(0.5)
        self.tkl_max.setEnabled(False)
        self.tkl_limited.toggled.connect(self.tkl_max.setEnabled)
        self.suggest_button = QPushButton("Suggest")
        self.suggest_button.clicked.connect(self.suggestRequested.emit)
        for widget in (QLabel("t ≤"), self.t_max, self.tkl_limited, self.tkl_max, self.suggest_button):
            row.addWidget(widget)
        self.tab = self._build_tab()

    def _build_tab(self) -> QWidget:
        tab = QWidget()
        layout = QVBoxLayout(tab)
        self.suggest_message = QLabel("Press Suggest to search the lattice of levels.")
        self.suggest_message.setWordWrap(True)
        self.suggest_message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.suggest_message)
        self.chart = plot_widget(background="w", axisItems={"left": PlainAxis("left"), "bottom": PlainAxis("bottom")})
        self.chart.setTitle("Suggested releases: misuseability against lost detail (lower left is better)",
                            color="k", size="10pt")
        self.chart.setLabel("bottom", "utility loss = 1 − precision (0: nothing generalised)")
        self.chart.setLabel("left", "tkl-Score ÷ the source's")
        self.chart.showGrid(x=True, y=True, alpha=0.3)
        for axis in ("left", "bottom"):   # the table's own units, never a ×0.001 scale
            self.chart.getAxis(axis).enableAutoSIPrefix(False)
            self.chart.getAxis(axis).setTextPen("k")
        self.chart.getAxis("bottom").setToolTip(UTILITY_LOSS_MEANING)
        self.points = pg.ScatterPlotItem(size=11, brush=pg.mkBrush(MET), pen=pg.mkPen("#0b3d66"))
        self.points.sigClicked.connect(self._point_clicked)
        self.chart.addItem(self.points)
        self.chart.setMinimumHeight(150)
        layout.addWidget(self.chart, 1)
        # the levels last: they are long (one per quasi-identifier) and the full list is in each tooltip
        self.front_table = table(0, ["tkl / source", "utility loss", "k", "l", "t", "suppressed",
                                     "meets the constraints?", "levels"])
        self.front_table.setWordWrap(False)
        self.front_table.cellDoubleClicked.connect(lambda r, _c: self.load_candidate(r))
        layout.addWidget(self.front_table, 1)
        return tab

    def constraints(self, suppression_limit: float) -> Constraints:
        """The officer's constraints on a suggested release, as set in the panel."""
        return Constraints(self.k_min.value(), self.l_min.value(), self.t_max.value(),
                           self.tkl_max.value() if self.tkl_limited.isChecked() else math.inf, suppression_limit)

    def offer(self, refused: str | None, note: str | None = None) -> None:
        """Suggestions offered, or not (``refused``: why, core's ``DesignOffer.suggest_refused``):
        then the button is off and the tab says why; ``note``: where offered suggestions come
        from (out of core: the source's aggregate)."""
        self.offered = refused is None
        self.suggest_button.setEnabled(self.offered)
        self.chart.setVisible(self.offered)
        self.front_table.setVisible(self.offered)
        if refused is not None:
            self.suggest_button.setToolTip("not offered out of core: see the Suggested releases tab")
            self._say(refused)
        else:
            self.suggest_button.setToolTip("worked out from the source's aggregate, read once from the file"
                                           if note else "")
            if note:
                self._say(note)

    def _say(self, text: str, error: bool = False) -> None:
        self.suggest_message.setText(text)
        self.suggest_message.setStyleSheet(ERROR_STYLE if error else "")

    def searching(self) -> None:
        self.suggest_button.setEnabled(False)
        self._say("Searching the lattice of levels… (Cancel in the status bar stops the search and shows the "
                  "releases found so far.)")

    def failed(self, message: str) -> None:
        self.suggest_button.setEnabled(True)
        self._say(f"<b>The search failed.</b> {message}", error=True)

    def stopped(self, found: Suggestions | None) -> None:
        """A cancelled search: what it found until then (None, or no release evaluated: nothing)."""
        if found is None or not found.evaluated:
            self.suggest_button.setEnabled(True)
            shown = (" The releases shown are the previous search's." if self.suggestions is not None
                     else "")
            self._say(f"<b>The search was cancelled</b> before any release was evaluated.{shown} "
                      "Press Suggest to search again.")
            return
        self.show(found)

    def show(self, found: Suggestions) -> None:
        self.suggestions = found
        self.suggest_button.setEnabled(True)
        searched = found.searched()
        if found.cancelled:
            self._say(f"<b>{searched}</b> {found.message[0].upper()}{found.message[1:]}. Press Suggest "
                      f"to search the whole lattice.")
        elif found.met:
            self._say(f"{found.message}. {searched} Click a point or double-click a row to load it.")
        else:
            self._say(f"<b>No release meets these constraints.</b> The {len(found.front)} closest are shown in red, "
                      f"with what each misses; relax k, l, t, the largest tkl or the suppression budget. {searched}",
                      error=True)
        self.points.setData([{"pos": (c.utility_loss, c.tkl_normalized), "data": i}
                             for i, c in enumerate(found.front)
                             if not (math.isnan(c.utility_loss) or math.isnan(c.tkl_normalized))])
        self.points.setBrush(pg.mkBrush(MET if found.met else MISSED))
        self.front_table.setRowCount(len(found.front))
        for r, c in enumerate(found.front):
            misses = c.misses(found.constraints) if found.constraints is not None else []
            levels = ", ".join(f"{k}={v}" for k, v in c.levels.items())
            values = [number(c.tkl_normalized), number(c.utility_loss), count(c.k), count(c.l), number(c.t),
                      percent(c.suppressed_share), "yes" if not misses else "no: " + "; ".join(misses), levels]
            for col, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setToolTip(f"levels: {levels}")
                self.front_table.setItem(r, col, item)

    def _point_clicked(self, _item, points, *_):
        if points is not None and len(points):
            self.load_candidate(int(points[0].data()))

    def load_candidate(self, index: int) -> None:
        found = self.suggestions
        if found is not None and 0 <= index < len(found.front):
            chosen = {"levels": dict(found.front[index].levels)}
            if found.constraints is not None:
                chosen.update(suppress_below=found.constraints.k,
                              suppression_limit=found.constraints.suppression_limit)
            self.releaseChosen.emit(chosen)
