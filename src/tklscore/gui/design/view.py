"""The Design view (issue 11 §6): design a release and watch every score move.

Left: the columns with their role, hierarchy and a level slider per column with a
hierarchy, whether each column is published, and record suppression. Right: tkl/M/L raw
and normalised, the privacy models, utility, the notes (e.g. when a generalised sensitive
value took the conservative weight), the transformed table with generalised cells marked,
the suppressed rows, and the suggested releases as a Pareto chart the officer clicks to
load. Every change re-evaluates in the background (the workbench's task runner); the
hierarchies and saved designs are kept in the project file."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pyqtgraph as pg
from PySide6.QtCore import QTimer, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QListWidget,
    QPushButton,
    QSlider,
    QSpinBox,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from tklscore.core.errors import InputError
from tklscore.core.examples import THESIS_HIERARCHIES
from tklscore.core.release.designer import DesignResult, ReleaseDesigner, element_weights
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.suggest import Constraints, privacy_models, suggest
from tklscore.core.release.transform import ReleaseDesign, export_published
from tklscore.gui.design.hierarchy_dialog import HierarchyDialog
from tklscore.gui.frame_model import FrameModel
from tklscore.gui.when_shown import WhenShown

PREVIEW_ROWS = 200
SCORE_ROWS = (("tkl", "tkl-Score"), ("tkl_max", "tkl-Score_max"), ("m_score", "M-Score"),
              ("m_score_inf", "M-Score (x=∞)"), ("l_severity", "L-Severity"))
UTILITY_ROWS = (("precision", "precision", "{:.4f}"), ("discernibility", "discernibility", "{:,.0f}"),
                ("average_class_size", "average class size / k", "{:.3f}"),
                ("non_uniform_entropy", "non-uniform entropy (bits)", "{:,.1f}"),
                ("suppressed_share", "suppressed share", "{:.2%}"))
GENERALISED = QColor("#fff3c4")


def _shown(value, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}" if isinstance(value, float) else f"{value:,}" if isinstance(value, int) else str(value)


def _share(value) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def privacy_rows(k: int, privacy: tuple[int, float], measures: dict | None) -> list[tuple[str, str]]:
    """The privacy models and risk of the release, named for the officer (the risk lens'
    figures when it measured the release)."""
    l, t = privacy
    if not measures:
        return [("k-anonymity", f"{k}"), ("distinct l-diversity", f"{l}"), ("t-closeness", f"{t:.4f}"),
                ("prosecutor risk (highest)", f"{1 / k:.4f}" if k else "n/a")]
    risk = measures["risk"]
    journalist = risk.get("journalist") or {}
    classes = measures.get("classes") or {}
    return [("k-anonymity", _shown(measures["k"])),
            ("(α,k)-anonymity: α", _shown(measures["alpha_k"]["alpha"])),
            ("distinct l-diversity", _shown(measures["l_distinct"])),
            ("entropy l-diversity", _shown(measures["l_entropy"], 3)),
            ("recursive (c,l)-diversity: c", _shown(measures["recursive_cl"]["c"])),
            ("t-closeness", _shown(measures["t"])),
            ("basic β-likeness", _shown(measures["beta_basic"])),
            ("δ-disclosure", _shown(measures["delta"])),
            ("classes", _shown(classes.get("count"))),
            ("prosecutor risk (highest)", _shown(risk["prosecutor"]["highest"])),
            ("prosecutor risk (average)", _shown(risk["prosecutor"]["average"])),
            ("records above the risk threshold", _share(risk["prosecutor"]["records_at_risk"])),
            ("journalist risk (highest), against the source", _shown(journalist.get("highest"))),
            ("marketer risk", _shown(risk.get("marketer"))),
            ("sample uniques", _share(risk.get("sample_uniques")))]


def _fit_rows(table: QTableWidget) -> None:
    """Show every row without a scroll bar: the height of the rows and the header."""
    table.resizeRowsToContents()
    table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    height = table.horizontalHeader().height() + 2 * table.frameWidth() + sum(
        table.rowHeight(r) for r in range(table.rowCount()))
    table.setFixedHeight(max(height, 60))


class MarkedFrameModel(FrameModel):
    """A FrameModel whose cells in ``marked`` columns are shaded (generalised cells)."""

    marked: set[int] = set()

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.BackgroundRole and index.isValid() and index.column() in self.marked:
            return QBrush(GENERALISED)
        return super().data(index, role)


def _table(rows: int, headers: list[str]) -> QTableWidget:
    table = QTableWidget(rows, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


class DesignView(QWidget):
    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self.hierarchies: dict[str, Hierarchy] = {}
        self.levels: dict[str, int] = {}
        self.removed: set[str] = set()
        self.sliders: dict[str, QSlider] = {}
        self._slider_labels: dict[str, QLabel] = {}
        self.perturbed: dict[str, tuple[str, float]] = {}   # column → (mean | median | noise, ε %)
        self.perturb_boxes: dict = {}
        self.seed = 0
        self.designer: ReleaseDesigner | None = None
        self._designer_key = None
        # a source too large for memory: designs evaluated by DuckDB (core/engines/design.py), on
        # the task runner's thread, which owns the engine (held here, closed when replaced)
        self._engine = {"designer": None, "key": None}
        self.result: DesignResult | None = None
        self.privacy: tuple[int, float] | None = None
        self.suggestions = None
        self._generation = 0
        self._task = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(120)
        self._timer.timeout.connect(self.evaluate)
        self._when_shown = WhenShown(self, self._start_timer)

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        columns_box = QGroupBox("Columns: role, hierarchy, level, published")
        box_layout = QVBoxLayout(columns_box)
        self.columns = _table(0, ["column", "role", "hierarchy", "level", "publish", "perturb", "precision"])
        self.columns.horizontalHeaderItem(5).setToolTip(
            "numeric columns that are not quasi-identifiers: publish each class's mean or median "
            "(microaggregation) or add seeded noise of ± ε % of the value")
        box_layout.addWidget(self.columns)
        left_layout.addWidget(columns_box, 1)
        suppression = QGroupBox("Record suppression")
        row = QHBoxLayout(suppression)
        row.addWidget(QLabel("classes smaller than"))
        self.suppress_below = QSpinBox()
        self.suppress_below.setRange(0, 1_000_000)
        row.addWidget(self.suppress_below)
        row.addWidget(QLabel("within a budget of"))
        self.budget = QDoubleSpinBox()
        self.budget.setRange(0.0, 100.0)
        self.budget.setSuffix(" %")
        self.budget.setValue(5.0)
        row.addWidget(self.budget)
        row.addStretch(1)
        left_layout.addWidget(suppression)
        search = QGroupBox("Suggest releases (constraints)")
        srow = QHBoxLayout(search)
        self.k_min, self.l_min = QSpinBox(), QSpinBox()
        for label, box in (("k ≥", self.k_min), ("l ≥", self.l_min)):
            box.setRange(1, 1_000_000)
            srow.addWidget(QLabel(label))
            srow.addWidget(box)
        self.k_min.setValue(2)
        self.t_max = QDoubleSpinBox()
        self.t_max.setRange(0.0, 1.0)
        self.t_max.setSingleStep(0.05)
        self.t_max.setValue(1.0)
        srow.addWidget(QLabel("t ≤"))
        srow.addWidget(self.t_max)
        self.tkl_limited = QCheckBox("tkl / source ≤")
        self.tkl_limited.setToolTip("the largest tkl-Score of a suggested release, divided by the whole "
                                    "source's (unticked: no limit)")
        self.tkl_max = QDoubleSpinBox()
        self.tkl_max.setRange(0.0, 100.0)
        self.tkl_max.setDecimals(3)
        self.tkl_max.setSingleStep(0.05)
        self.tkl_max.setValue(0.5)
        self.tkl_max.setEnabled(False)
        self.tkl_limited.toggled.connect(self.tkl_max.setEnabled)
        srow.addWidget(self.tkl_limited)
        srow.addWidget(self.tkl_max)
        self.suggest_button = QPushButton("Suggest")
        self.suggest_button.clicked.connect(self.run_suggest)
        srow.addWidget(self.suggest_button)
        left_layout.addWidget(search)
        buttons = QHBoxLayout()
        self.save_button = QPushButton("Save as release")
        self.save_button.clicked.connect(self.save_as_release)
        self.export_button = QPushButton("Export table…")
        self.export_button.clicked.connect(self.export_table)
        self.export_hierarchy_button = QPushButton("Export hierarchy…")
        self.export_hierarchy_button.clicked.connect(self.export_hierarchy)
        self.report_button = QPushButton("Export report…")
        self.report_button.setToolTip("the report of the designed release: how it was made, its scores, "
                                      "privacy models, risk and utility (HTML or PDF)")
        self.report_button.clicked.connect(lambda: self.export_report())
        for b in (self.save_button, self.export_button, self.export_hierarchy_button, self.report_button):
            buttons.addWidget(b)
        left_layout.addLayout(buttons)
        splitter.addWidget(left)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        self.headline = QLabel("Open a source table and choose its roles to design a release.")
        self.headline.setWordWrap(True)
        self.headline.setStyleSheet("font-size: 14px; font-weight: 600;")
        right_layout.addWidget(self.headline)
        self.engine_note = QLabel()
        self.engine_note.setWordWrap(True)
        self.engine_note.setStyleSheet("background: #e8f0fe; color: #0b3d66; padding: 6px; border-radius: 4px;")
        self.engine_note.setVisible(False)
        right_layout.addWidget(self.engine_note)
        panels = QHBoxLayout()
        self.scores = _table(len(SCORE_ROWS), ["score", "raw", "/ source", "/ max"])
        self.utility_table = _table(len(UTILITY_ROWS), ["utility", "value"])
        # the privacy models and risk in two pairs of columns, the full width of the view
        self.privacy_table = _table(4, ["privacy model or risk", "value", "privacy model or risk", "value"])
        for table in (self.scores, self.utility_table, self.privacy_table):
            _fit_rows(table)
        for title, widget, stretch in (("Misuseability", self.scores, 4), ("Utility", self.utility_table, 3)):
            group = QGroupBox(title)
            QVBoxLayout(group).addWidget(widget)
            panels.addWidget(group, stretch)
        right_layout.addLayout(panels)
        privacy_group = QGroupBox("Privacy models and risk (the published table, linked against the source)")
        QVBoxLayout(privacy_group).addWidget(self.privacy_table)
        right_layout.addWidget(privacy_group)
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet("color: #7a5300;")
        right_layout.addWidget(self.notes)
        self.tabs = QTabWidget()
        self.preview_model = MarkedFrameModel()
        self.preview = QTableView()
        self.preview.setModel(self.preview_model)
        self.tabs.addTab(self.preview, "Published table")
        self.suppressed_list = QListWidget()
        self.tabs.addTab(self.suppressed_list, "Suppressed rows")
        suggest_tab = QWidget()
        suggest_layout = QVBoxLayout(suggest_tab)
        self.suggest_message = QLabel("Press Suggest to search the lattice of levels.")
        self.suggest_message.setWordWrap(True)
        self.suggest_message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        suggest_layout.addWidget(self.suggest_message)
        self.chart = pg.PlotWidget(background="w")
        self.chart.setLabel("bottom", "utility loss (1 − precision)")
        self.chart.setLabel("left", "tkl-Score / source")
        self.chart.showGrid(x=True, y=True, alpha=0.3)
        self.points = pg.ScatterPlotItem(size=11, brush=pg.mkBrush("#1f77b4"), pen=pg.mkPen("#0b3d66"))
        self.points.sigClicked.connect(self._point_clicked)
        self.chart.addItem(self.points)
        suggest_layout.addWidget(self.chart, 1)
        self.front_table = _table(0, ["tkl / source", "utility loss", "k", "l", "t", "suppressed", "levels",
                                      "meets the constraints?"])
        self.front_table.cellDoubleClicked.connect(lambda r, _c: self.load_candidate(r))
        suggest_layout.addWidget(self.front_table)
        self.tabs.addTab(suggest_tab, "Suggested releases")
        right_layout.addWidget(self.tabs, 1)
        splitter.addWidget(right)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([680, 920])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

        self.suppress_below.valueChanged.connect(self.schedule)
        self.budget.valueChanged.connect(self.schedule)
        workbench.sourceChanged.connect(self.reload)
        workbench.modelChanged.connect(self.schedule)
        workbench.releasesChanged.connect(self.schedule)
        engine = self._engine
        self.destroyed.connect(lambda *_: _close_engine(workbench, engine))
        self.reload()

    # ------------------------------------------------------------------ state
    def _settings(self) -> dict:
        return self.workbench.project.settings.setdefault("design", {})

    def _save_settings(self) -> None:
        self._settings()["hierarchies"] = [h.to_dict() for h in self.hierarchies.values()]
        self._settings()["current"] = self.design().to_dict()

    def reload(self) -> None:
        """Columns and hierarchies of the workbench's table and roles."""
        table, roles = self.workbench.table, self.workbench.project.roles
        saved = self._settings().get("hierarchies")
        if saved is not None:
            self.hierarchies = {h["column"]: Hierarchy.from_dict(h) for h in saved}
        elif self.workbench.project.builtin == "thesis":
            self.hierarchies = {h.column: h for h in THESIS_HIERARCHIES}
        current = self._settings().get("current")
        if current:
            design = ReleaseDesign.from_dict(current)
            self.levels, self.removed = dict(design.levels), set(design.removed)
            self.perturbed = {**{c: (m, 0.0) for c, m in design.microaggregate},
                              **{c: ("noise", e) for c, e in design.noise}}
            self.seed = design.seed
            for box, value in ((self.suppress_below, design.suppress_below),
                               (self.budget, design.suppression_limit * 100.0)):
                box.blockSignals(True)
                box.setValue(value)
                box.blockSignals(False)
        self.designer = None
        self.sliders = {}
        self._slider_labels = {}
        self.perturb_boxes = {}
        self.columns.setRowCount(0)
        out_of_core = self._out_of_core()
        self._show_engine_mode(out_of_core)
        names = list(table.columns) if table is not None else \
            list(self.workbench.source_summary.columns) if out_of_core and self.workbench.source_summary else None
        if names is None:
            return
        self.hierarchies = {c: h for c, h in self.hierarchies.items() if c in names}
        self.perturbed = {c: p for c, p in self.perturbed.items() if c in names and c not in roles.qi
                          and not (out_of_core and p[0] == "noise")}
        self.columns.setRowCount(len(names))
        for r, column in enumerate(names):
            self.columns.setItem(r, 0, QTableWidgetItem(column))
            self.columns.setItem(r, 1, QTableWidgetItem(roles.role_of(column).value))
            button = QPushButton(self._hierarchy_text(column))
            button.clicked.connect(lambda _=False, c=column: self.edit_hierarchy(c))
            self.columns.setCellWidget(r, 2, button)
            self.columns.setCellWidget(r, 3, self._slider_cell(column))
            publish = QCheckBox()
            publish.setChecked(column not in self.removed)
            publish.toggled.connect(lambda on, c=column: self.set_published(c, on))
            self.columns.setCellWidget(r, 4, publish)
            if column not in roles.qi and column != roles.identifier:
                self.columns.setCellWidget(r, 5, self._perturb_cell(column, noise=not out_of_core))
        self.schedule()

    def _hierarchy_text(self, column: str) -> str:
        h = self.hierarchies.get(column)
        return "Build…" if h is None else f"{h.kind} ✎"

    def _slider_cell(self, column: str) -> QWidget:
        cell = QWidget()
        row = QHBoxLayout(cell)
        row.setContentsMargins(4, 0, 4, 0)
        if column not in self.hierarchies:
            row.addWidget(QLabel("—"))
            return cell
        # the height comes from the designer's level cache, built off the UI thread with the
        # first evaluation (factorising a large column here would block the window)
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(0, self.levels.get(column, 0))
        slider.setValue(self.levels.get(column, 0))
        slider.setEnabled(False)
        slider.setMinimumWidth(55)
        label = QLabel("…")
        slider.valueChanged.connect(lambda value, c=column, l=label, s=slider:
                                    self._slid(c, value, l, s.maximum(), s.isSliderDown()))
        slider.sliderReleased.connect(self._released)
        row.addWidget(slider)
        row.addWidget(label)
        self.sliders[column] = slider
        self._slider_labels[column] = label
        return cell

    def _set_heights(self, designer) -> None:
        """Each slider's range: its column's hierarchy height (cached by the designer, or
        given as column → height or the error reading it)."""
        for column, slider in self.sliders.items():
            label = self._slider_labels[column]
            try:
                height = designer[column] if isinstance(designer, dict) else designer.height(column)
                if isinstance(height, InputError):
                    raise height
            except KeyError:
                continue
            except InputError as error:
                label.setText(f"invalid: {error.message}")
                continue
            slider.blockSignals(True)
            slider.setRange(0, height)
            slider.setValue(min(self.levels.get(column, 0), height))
            slider.blockSignals(False)
            slider.setEnabled(True)
            label.setText(f"{slider.value()}/{height}")

    def _perturb_cell(self, column: str, noise: bool = True) -> QWidget:
        cell = QWidget()
        row = QHBoxLayout(cell)
        row.setContentsMargins(4, 0, 4, 0)
        how = QComboBox()
        for text, key in (("—", None), ("class mean", "mean"), ("class median", "median"), ("± noise", "noise")):
            if key != "noise" or noise:
                how.addItem(text, key)
        if not noise:
            how.setToolTip("noise is drawn in memory (a seeded stream over the rows); out of core a numeric "
                           "column can be published as its class mean or median")
        epsilon = QDoubleSpinBox()
        epsilon.setRange(0.0, 1000.0)
        epsilon.setSuffix(" %")
        kind, value = self.perturbed.get(column, (None, 10.0))
        how.setCurrentIndex(how.findData(kind))
        epsilon.setValue(value if kind == "noise" else 10.0)
        epsilon.setVisible(kind == "noise")

        def changed(*_):
            chosen = how.currentData()
            epsilon.setVisible(chosen == "noise")
            self.set_perturbed(column, chosen, epsilon.value())

        how.currentIndexChanged.connect(changed)
        epsilon.valueChanged.connect(changed)
        row.addWidget(how)
        row.addWidget(epsilon)
        self.perturb_boxes[column] = (how, epsilon)
        return cell

    def set_perturbed(self, column: str, how: str | None, epsilon: float = 10.0) -> None:
        """Publish a numeric column as its class mean/median or with ± ε % noise (None: as it is)."""
        if how is None:
            self.perturbed.pop(column, None)
        else:
            self.perturbed[column] = (how, float(epsilon))
        self.schedule()

    def _slid(self, column: str, value: int, label: QLabel, height: int, dragging: bool = False) -> None:
        label.setText(f"{value}/{height}")
        self.levels[column] = value
        if dragging:  # wait for the drag to rest (or end) before evaluating
            self.schedule()
        else:  # a click, a key or a set value: evaluate at once (a newer design cancels an older one)
            self._timer.stop()
            self.evaluate()

    def _released(self) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self.evaluate()

    def set_published(self, column: str, published: bool) -> None:
        (self.removed.discard if published else self.removed.add)(column)
        self.schedule()

    def set_hierarchy(self, column: str, hierarchy: Hierarchy | None) -> None:
        if hierarchy is None:
            self.hierarchies.pop(column, None)
        else:
            self.hierarchies[column] = hierarchy
        self.levels.pop(column, None)
        self._settings()["hierarchies"] = [h.to_dict() for h in self.hierarchies.values()]
        self.workbench._mark(True)
        self.reload()

    def edit_hierarchy(self, column: str) -> None:
        if self.workbench.table is None and self._out_of_core():
            self._edit_hierarchy_out_of_core(column)
            return
        dialog = HierarchyDialog(column, self.workbench.table.frame[column], self.hierarchies.get(column), self)
        if dialog.exec() and dialog.hierarchy is not None:
            self.set_hierarchy(column, dialog.hierarchy)

    def _edit_hierarchy_out_of_core(self, column: str, open_dialog: bool = True) -> None:
        """The hierarchy builder over the column's distinct values and their counts, read out
        of core on the task runner (the builder opens when they arrive)."""
        from tklscore.core.engines.source import column_values

        summary = self.workbench.source_summary
        path, options = summary.path, dict(summary.options)

        def work(control):
            control.progress(10, f"Reading the values of '{column}' out of core")
            return column_values(path, column, delimiter=options.get("delimiter"), encoding=options.get("encoding"),
                                 keep_spaces=bool(options.get("keep_spaces")))

        def done(frame) -> None:
            counts = pd.Series(frame["count"].to_numpy(), index=pd.Index(frame["value"].astype(str), dtype=object))
            self.value_counts = counts
            if open_dialog:
                dialog = HierarchyDialog(column, None, self.hierarchies.get(column), self, counts=counts)
                if dialog.exec() and dialog.hierarchy is not None:
                    self.set_hierarchy(column, dialog.hierarchy)

        self.workbench.status.emit(f"Reading the distinct values of '{column}' out of core…")
        self.workbench.runner.start(f"Reading the values of '{column}'", work, done, self.workbench._fail,
                                    owner=self)

    def design(self, name: str = "designed release") -> ReleaseDesign:
        """The release on screen: the current release's rows, transformed as set here."""
        levels = {c: v for c, v in self.levels.items() if c in self.hierarchies}
        project = self.workbench.project
        selection = project.release(project.current_release) if project.current_release else None
        microaggregate = {c: how for c, (how, _) in self.perturbed.items() if how in ("mean", "median")}
        noise = {c: epsilon for c, (how, epsilon) in self.perturbed.items() if how == "noise"}
        return ReleaseDesign(name, levels, self.suppress_below.value(), self.budget.value() / 100.0,
                             self.removed, microaggregate, noise, self.seed, selection=selection)

    def load_levels(self, levels: dict[str, int]) -> None:
        for column, value in levels.items():
            self.levels[column] = value
            if column in self.sliders:
                self.sliders[column].blockSignals(True)
                self.sliders[column].setValue(value)
                self.sliders[column].blockSignals(False)
                label = self.sliders[column].parent().findChildren(QLabel)[0]
                label.setText(f"{value}/{self.sliders[column].maximum()}")
        self.schedule()

    # ------------------------------------------------------------------ evaluation
    def schedule(self) -> None:
        self._when_shown.request()

    def _start_timer(self) -> None:
        self._timer.start()

    def _ensure_designer(self):
        wb = self.workbench
        key = (id(wb.table), wb.project.roles, tuple(sorted((c, repr(h.to_dict())) for c, h in self.hierarchies.items())),
               id(wb.model))
        return key

    def _out_of_core(self) -> bool:
        return self.workbench.table is None and bool(getattr(self.workbench, "out_of_core", False))

    def _show_engine_mode(self, out_of_core: bool) -> None:
        summary = self.workbench.source_summary if out_of_core else None
        rows = f"{summary.rows:,} records" if summary is not None else "a source too large for memory"
        self.engine_note.setVisible(out_of_core)
        self.engine_note.setText(
            f"<b>Out of core.</b> This source ({rows}) is larger than the memory share, so each change is "
            f"evaluated by DuckDB reading the file: that takes seconds to minutes. The figures below stay those "
            f"of the last evaluation until the new one arrives; the progress is in the status bar.")
        self.suggest_button.setEnabled(not out_of_core)
        self.chart.setVisible(not out_of_core)
        self.front_table.setVisible(not out_of_core)
        self.report_button.setEnabled(not out_of_core)
        self.report_button.setToolTip("the report of a designed release needs the table in memory" if out_of_core
                                      else "the report of the designed release: how it was made, its scores, "
                                           "privacy models, risk and utility (HTML or PDF)")
        if out_of_core:
            self.suggest_button.setToolTip("not offered out of core: see the Suggested releases tab")
            self.suggest_message.setText(
                "Suggestions are not offered for this source. To suggest releases the workbench tries many "
                "combinations of levels, and each one means reading the whole file again: for a source too large "
                "for memory that takes far too long. Move the level sliders to design the release here (each change "
                "is evaluated on the whole file), or open a sample of the source that fits in memory and ask "
                "for suggestions there.")

    def evaluate(self) -> None:
        wb = self.workbench
        if self._out_of_core():
            self._evaluate_out_of_core()
            return
        if wb.table is None or not wb.project.roles.sa:
            self.headline.setText("Open a source table and choose its quasi-identifiers and sensitive attributes.")
            return
        if wb.weights is None:
            self.headline.setText(wb.weights_problem or "Choose weights: a tkl-Data Model or a weights file.")
            return
        self._save_settings()
        self._generation += 1
        generation = self._generation
        key = self._ensure_designer()
        designer = self.designer if self._designer_key == key else None
        table, roles, hierarchies = wb.table, wb.project.roles, dict(self.hierarchies)
        scorer, model = wb.scorer, wb.model
        design, weights, x = self.design(), wb.weights, wb.project.x

        def work(control):
            built = designer or ReleaseDesigner(table, roles, hierarchies, scorer=scorer,
                                                elements=element_weights(model) if model is not None else None)
            control.check()
            result = built.evaluate(design, weights, x, record_ids=False, progress=lambda _f: control.check())
            m = result.measures
            privacy = ((m["l_distinct"], m["t"]) if m else
                       privacy_models(built, design, result.transformed, result.transformed.published_class_ids))
            preview = result.transformed.published_table(limit=PREVIEW_ROWS)
            return built, result, privacy, preview

        def current() -> bool:  # a newer design may have been asked for (a closed view's task calls nothing)
            return generation == self._generation

        def done(value) -> None:
            if not current():
                return
            self.designer, self._designer_key = value[0], key
            self._set_heights(self.designer)
            self.show_result(*value[1:])

        def failed(message: str) -> None:
            if current():
                self.headline.setText(f"<span style='color:#b00020'>{message}</span>")

        if self._task is not None:  # a newer design supersedes the one still being evaluated
            self._task.cancel()
        self._task = wb.runner.start("Designing the release", work, done, failed, owner=self)

    def _evaluate_out_of_core(self) -> None:
        """The design evaluated by DuckDB over the source file (core/engines/design.py) on the
        task runner, with progress and cancel; the last result stays shown until then."""
        wb = self.workbench
        summary, roles = wb.source_summary, wb.project.roles
        if summary is None:
            self.headline.setText("Reading the source out of core…")
            return
        if not roles.sa or not roles.qi:
            self.headline.setText("Choose the quasi-identifiers and sensitive attributes (Release view) to design "
                                  "a release of this source.")
            return
        if wb.weights is None:
            self.headline.setText(wb.weights_problem or "Choose weights: a tkl-Data Model or a weights file.")
            return
        self._save_settings()
        self._generation += 1
        generation = self._generation
        hierarchies, model = dict(self.hierarchies), wb.model
        key = (summary.path, repr(summary.options), roles,
               tuple(sorted((c, repr(h.to_dict())) for c, h in hierarchies.items())), id(model))
        engine, design, weights, x = self._engine, self.design(), wb.weights, wb.project.x
        sliders = list(self.sliders)

        def work(control):
            from tklscore.core.engines import open_backend
            from tklscore.core.engines.design import EngineDesigner

            control.progress(2, "Designing the release out of core")
            if engine["key"] != key:
                _close(engine)
                backend = open_backend("duckdb", keep_spaces=bool(summary.options.get("keep_spaces")))
                try:
                    engine["designer"] = EngineDesigner(
                        backend, summary.path, roles, hierarchies,
                        element_weights(model) if model is not None else None,
                        summary.options.get("delimiter"), summary.options.get("encoding"))
                except BaseException:
                    backend.close()
                    raise
                engine["key"] = key
            designer = engine["designer"]

            def progress(fraction: float) -> None:
                control.check()
                control.progress(int(5 + 90 * fraction), "Designing the release out of core")

            result = _interruptible(control, designer.backend,
                                    lambda: designer.evaluate(design, weights, x, progress=progress,
                                                              preview=PREVIEW_ROWS))
            heights = {}
            for column in sliders:
                try:
                    heights[column] = designer.height(column)
                except InputError as error:
                    heights[column] = error
            return result, heights, designer.suppressed_ids(500)

        def current() -> bool:  # a newer design may have been asked for (a closed view's task calls nothing)
            return generation == self._generation

        def done(value) -> None:
            if current():
                result, heights, suppressed = value
                self._set_heights(heights)
                self.show_engine_result(result, suppressed)

        def failed(message: str) -> None:
            if current():
                self.headline.setText(f"<span style='color:#b00020'>{message}</span>")

        if self._task is not None:
            self._task.cancel()
        self.engine_note.setText(self.engine_note.text().split(" Evaluating")[0]
                                 + " Evaluating the new design…")
        self._task = wb.runner.start("Designing the release out of core", work, done, failed, owner=self)

    def show_engine_result(self, result, suppressed: list[str]) -> None:
        """An out-of-core evaluation (a ``DesignResult`` without ``transformed``) on screen, as :meth:`show_result`."""
        self.result = result
        measures = result.measures
        self.privacy = (measures["l_distinct"], measures["t"]) if measures else (0, float("nan"))
        k = int(measures["k"]) if measures else 0
        selection = result.design.selection
        of = f"the {result.selected_rows:,} records of '{selection.name}'" if selection else \
            f"all {result.selected_rows:,} source records"
        self._show_figures(result.report, result.utility, result.measures, result.notes, k, self.privacy,
                           f"{result.published_rows:,} of {of} published, {result.suppressed_rows:,} suppressed")
        preview = result.preview if result.preview is not None else pd.DataFrame()
        self.preview_model.marked = {i for i, c in enumerate(preview.columns) if result.generalised_levels.get(c)}
        self.preview_model.set_frame(preview)
        self.suppressed_list.clear()
        self.suppressed_list.addItems([f"record {i}" for i in suppressed])
        if result.suppressed_rows > len(suppressed):
            self.suppressed_list.addItem(f"… and {result.suppressed_rows - len(suppressed):,} more")
        self.tabs.setTabText(0, f"Published table (first {len(preview):,} of {result.published_rows:,} rows)")
        self.tabs.setTabText(1, f"Suppressed rows ({result.suppressed_rows:,})")
        self.engine_note.setText(self.engine_note.text().split(" Evaluating")[0])

    def show_result(self, result: DesignResult, privacy: tuple[int, float], preview) -> None:
        self.result, self.privacy = result, privacy
        report, t = result.report, result.transformed
        k = int(np.bincount(t.published_class_ids).min()) if len(t.published) else 0
        of = f"the {len(t.selected):,} records of '{t.design.selection.name}'" if t.design.selection else \
            f"all {len(t.selected):,} source records"
        self._show_figures(report, result.utility, result.measures, result.notes, k, privacy,
                           f"{len(t.published):,} of {of} published, {len(t.suppressed):,} suppressed")
        self.preview_model.marked = {i for i, c in enumerate(preview.columns) if t.generalised_cells(c)}
        self.preview_model.set_frame(preview)
        self.suppressed_list.clear()
        ids = self.workbench.scorer.ids_of(t.suppressed[:500]) if self.workbench.scorer is not None else \
            t.suppressed[:500]
        self.suppressed_list.addItems([f"record {i}" for i in ids])
        if len(t.suppressed) > 500:
            self.suppressed_list.addItem(f"… and {len(t.suppressed) - 500:,} more")
        self.tabs.setTabText(1, f"Suppressed rows ({len(t.suppressed):,})")

    def _show_figures(self, report, utility, measures, notes, k: int, privacy, rows: str) -> None:
        """The headline, scores, privacy models, utility and notes of an evaluation."""
        tkl_norm = report.normalized_source.tkl
        self.headline.setText(
            f"{rows} — "
            f"tkl-Score {report.scores.tkl:.5f} ({'n/a' if tkl_norm is None else f'{tkl_norm:.1%}'} of the "
            f"untransformed source), k = {k}, precision {utility.precision:.1%}")
        for r, (key, label) in enumerate(SCORE_ROWS):
            values = (report.scores.as_dict()[key], report.normalized_source.as_dict()[key],
                      report.normalized_max.as_dict()[key])
            self.scores.setItem(r, 0, QTableWidgetItem(label))
            for c, (v, digits) in enumerate(zip(values, (5, 4, 4)), start=1):
                self.scores.setItem(r, c, QTableWidgetItem("n/a" if v is None else f"{v:.{digits}f}"))
        rows = privacy_rows(k, privacy, measures)
        half = (len(rows) + 1) // 2
        self.privacy_table.setRowCount(half)
        for i, (name, value) in enumerate(rows):
            r, c = (i, 0) if i < half else (i - half, 2)
            self.privacy_table.setItem(r, c, QTableWidgetItem(name))
            self.privacy_table.setItem(r, c + 1, QTableWidgetItem(value))
        _fit_rows(self.privacy_table)
        figures = utility.as_dict()
        for r, (key, label, fmt) in enumerate(UTILITY_ROWS):
            self.utility_table.setItem(r, 0, QTableWidgetItem(label))
            self.utility_table.setItem(r, 1, QTableWidgetItem(fmt.format(figures[key])))
        for r in range(self.columns.rowCount()):  # each QI's own precision beside its level
            column = self.columns.item(r, 0).text()
            values = utility.per_attribute.get(column)
            self.columns.setItem(r, 6, QTableWidgetItem("" if values is None else f"{values['precision']:.2f}"))
        _fit_rows(self.scores)
        _fit_rows(self.utility_table)
        self.notes.setText("\n".join(notes))

    # ------------------------------------------------------------------ actions
    def save_as_release(self, name: str | None = None) -> None:
        if self.result is None:
            return
        if not name:
            name, ok = QInputDialog.getText(self, "Save as release", "Name of the release:")
            if not ok or not name.strip():
                return
        design = self.design(name.strip())
        self._settings().setdefault("saved", [])
        self._settings()["saved"] = [d for d in self._settings()["saved"] if d.get("name") != design.name]
        self._settings()["saved"].append(design.to_dict())
        report = self._report_with_ids()
        self.workbench.designed_reports[design.name] = report
        self.workbench.reports[design.name] = report
        if self.result.risk is not None:
            self.workbench.measures[design.name] = self.result.risk
        self.workbench._mark(True)
        self.workbench.scoresChanged.emit()
        self.workbench.status.emit(f"Saved '{design.name}' beside the other releases in the Scores view's comparison")

    def export_table(self, path: str | None = None) -> None:
        if self.result is None:
            return
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, "Export the published table", "release.csv",
                                                  "CSV (*.csv);;Parquet (*.parquet)")
            if not path:
                return
        if self.result.transformed is None:   # out of core: the engine writes it
            engine, design = self._engine, self.result.design
            rows = self.result.published_rows

            def work(_control):
                engine["designer"].write_release(design, path)
                return rows
        else:
            transformed = self.result.transformed

            def work(_control):
                return export_published(transformed, path)

        self.workbench.runner.start("Exporting the published table", work,
                                    lambda n: self.workbench.status.emit(f"{n:,} rows written to {path}"),
                                    self.workbench._fail)

    def _report_with_ids(self):
        """The result's report with the records' ids (the view evaluates by row positions)."""
        report, scorer = self.result.report, self.workbench.scorer
        if scorer is None:
            return report
        records = report.records.copy()
        records["id"] = scorer.ids_of(self.result.transformed.published)
        return dataclasses.replace(report, records=records)

    def export_report(self, path: str | None = None) -> bool:
        """The report of the designed release (HTML or PDF by the extension), written in the
        background; its charts are drawn here."""
        if self.result is None:
            return False
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, "Export the designed release's report", "design.html",
                                                  "HTML report (*.html);;PDF report (*.pdf)")
            if not path:
                return False
        from tklscore.gui.design.report_section import designed_release_section  # noqa: F401 (registers it)
        from tklscore.gui.report import prepare_report, render_charts, report_input

        name = self.result.transformed.design.name
        report = self._report_with_ids()
        data = report_input(self.workbench)
        data.release, data.report, data.design = name, report, self.result
        data.reports = {**data.reports, name: report}
        # the risk lens of the project's release measures its rows untransformed: the designed
        # release's privacy models and risk are in its own section instead
        data.risk = data.measure_risk = None
        try:
            data.charts = render_charts(data)
            write = prepare_report(path, data)
        except InputError as error:
            self.workbench._fail(str(error))
            return False
        self.workbench.runner.start("Exporting the report", lambda _control: write(),
                                    lambda written: self.workbench.status.emit(f"Report written to {written}"),
                                    self.workbench._fail)
        return True

    def export_hierarchy(self, column: str | None = None, path: str | None = None) -> None:
        if column is None:
            row = self.columns.currentRow()
            column = self.columns.item(row, 0).text() if row >= 0 else next(iter(self.hierarchies), None)
        if column not in self.hierarchies:
            self.workbench._fail("Select a column with a hierarchy to export it as ARX CSV")
            return
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, "Export the hierarchy (ARX CSV)", f"{column}.csv", "CSV (*.csv)")
            if not path:
                return
        if self.workbench.table is None and self._out_of_core():
            hierarchy, summary = self.hierarchies[column], self.workbench.source_summary

            def work(_control):
                from tklscore.core.engines.source import column_values

                values = column_values(summary.path, column, delimiter=summary.options.get("delimiter"),
                                       encoding=summary.options.get("encoding"),
                                       keep_spaces=bool(summary.options.get("keep_spaces")))["value"]
                hierarchy.save_arx_csv(path, values.astype(str).to_numpy(dtype=object))
                return path

            self.workbench.runner.start("Exporting the hierarchy", work,
                                        lambda written: self.workbench.status.emit(f"Hierarchy written to {written}"),
                                        self.workbench._fail)
            return
        try:
            self.hierarchies[column].save_arx_csv(path, self.workbench.table.frame[column].unique())
        except InputError as error:
            self.workbench._fail(str(error))

    def constraints(self) -> Constraints:
        """The officer's constraints on a suggested release, as set in the panel."""
        return Constraints(self.k_min.value(), self.l_min.value(), self.t_max.value(),
                           self.tkl_max.value() if self.tkl_limited.isChecked() else math.inf,
                           self.budget.value() / 100.0)

    def run_suggest(self) -> None:
        if self._out_of_core():
            self.tabs.setCurrentIndex(2)
            return
        if self.designer is None or self.workbench.weights is None:
            return
        designer, weights, x = self.designer, self.workbench.weights, self.workbench.project.x
        try:
            constraints = self.constraints()
        except InputError as error:
            self.workbench._fail(str(error))
            return
        base = ReleaseDesign(removed=self.removed, selection=self.design().selection)

        def work(control):
            return suggest(designer, weights, constraints, base, x,
                           progress=lambda f: control.progress(int(100 * f), "Searching the lattice"),
                           cancelled=lambda: control.cancelled)

        self.suggest_message.setText("Searching the lattice of levels…")
        self.tabs.setCurrentIndex(2)
        self.workbench.runner.start(
            "Suggesting releases", work, self.show_suggestions, self.workbench._fail, owner=self)

    def show_suggestions(self, found) -> None:
        self.suggestions = found
        searched = (f"Lattice of {found.lattice_size} releases, {found.evaluated} evaluated (the rest skipped by "
                    f"k-anonymity's monotonicity).")
        if found.met:
            self.suggest_message.setText(f"{found.message}. {searched} Click a point or double-click a row to "
                                         f"load it.")
            self.suggest_message.setStyleSheet("")
        else:
            self.suggest_message.setText(
                f"<b>No release meets these constraints.</b> The {len(found.front)} closest are shown in red, with "
                f"what each misses; relax k, l, t, the largest tkl or the suppression budget. {searched}")
            self.suggest_message.setStyleSheet("color: #b00020;")
        self.points.setData([{"pos": (c.utility_loss, c.tkl_normalized), "data": i}
                             for i, c in enumerate(found.front)
                             if not (math.isnan(c.utility_loss) or math.isnan(c.tkl_normalized))])
        self.points.setBrush(pg.mkBrush("#1f77b4" if found.met else "#d62728"))
        self.front_table.setRowCount(len(found.front))
        for r, c in enumerate(found.front):
            misses = c.misses(found.constraints) if found.constraints is not None else []
            values = [f"{c.tkl_normalized:.4f}", f"{c.utility_loss:.4f}", str(c.k), str(c.l), f"{c.t:.4f}",
                      f"{c.suppressed_share:.2%}", ", ".join(f"{k}={v}" for k, v in c.levels.items()),
                      "yes" if not misses else "no: " + "; ".join(misses)]
            for col, value in enumerate(values):
                self.front_table.setItem(r, col, QTableWidgetItem(value))

    def _point_clicked(self, _item, points, *_):
        if points is not None and len(points):
            self.load_candidate(int(points[0].data()))

    def load_candidate(self, index: int) -> None:
        if self.suggestions is not None and 0 <= index < len(self.suggestions.front):
            self.load_levels(self.suggestions.front[index].levels)


def _interruptible(control, backend, work):
    """``work()`` on the engine, its running statement interrupted as soon as the task is
    cancelled (a newer design supersedes it): a statement over a large file can take minutes."""
    import threading

    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.05):
            if control.cancelled:
                backend.interrupt()
                return

    watcher = threading.Thread(target=watch, name="tklscore-design-interrupt", daemon=True)
    watcher.start()
    try:
        return work()
    except Exception:
        control.check()   # interrupted because cancelled: Cancelled, not an error
        raise
    finally:
        stop.set()
        watcher.join()


def _close(engine: dict) -> None:
    """Close the engine a view holds (on the task runner's thread, which uses it)."""
    designer, engine["designer"], engine["key"] = engine["designer"], None, None
    if designer is not None:
        designer.close()


def _close_engine(workbench, engine: dict) -> None:
    if engine.get("designer") is not None:
        try:
            workbench.runner.start("Closing the out-of-core engine", lambda _control: _close(engine),
                                   lambda _value: None, lambda _message: None)
        except RuntimeError:   # the workbench is gone as well
            _close(engine)
