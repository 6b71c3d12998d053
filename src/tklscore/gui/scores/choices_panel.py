"""The Scores view's two rows of choices: the release, M-Score's x (∞ allowed) and the export
buttons; where the weights come from, with the switch between the sources the project has."""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QFileDialog, QHBoxLayout, QLabel, QPushButton, \
    QVBoxLayout, QWidget

from tklscore.gui.number_spin import NumberSpinBox
from tklscore.core.scoring.weights_source import FILE, MODEL, SCORE_MODELS


class ChoicesPanel(QWidget):
    def __init__(self, workbench, guard, parent=None):
        super().__init__(parent)
        self.workbench, self.guard = workbench, guard
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._top_row())
        layout.addLayout(self._weights_row())

    def _top_row(self) -> QHBoxLayout:
        self.release_combo = QComboBox()
        self.release_combo.setObjectName("releaseCombo")
        self.release_combo.setMinimumWidth(160)
        self.release_combo.currentTextChanged.connect(self._release_chosen)
        self.x_spin = NumberSpinBox()
        self.x_spin.setObjectName("xSpin")
        self.x_spin.setRange(1.0, 1e6)
        self.x_spin.setDecimals(2)
        self.x_spin.setValue(1.0)
        self.x_spin.setKeyboardTracking(False)
        self.x_spin.setToolTip("M-Score = n^(1/x) · max RS_M; x ≥ 1")
        self.x_spin.valueChanged.connect(lambda _: self._apply_x())
        self.x_infinite = QCheckBox("∞")
        self.x_infinite.setObjectName("xInfinite")
        self.x_infinite.setToolTip("x → ∞: M-Score is the largest record score")
        self.x_infinite.toggled.connect(lambda _: self._apply_x())
        self.export_chart_button = QPushButton("Export chart…")
        self.export_report_button = QPushButton("Export report…")
        top = QHBoxLayout()
        self.release_label = QLabel("Release:")
        for widget in (self.release_label, self.release_combo, QLabel("M-Score x:"), self.x_spin, self.x_infinite):
            top.addWidget(widget)
        top.addStretch(1)
        top.addWidget(self.export_chart_button)
        top.addWidget(self.export_report_button)
        return top

    def _weights_row(self) -> QHBoxLayout:
        self.weights_combo = QComboBox()
        self.weights_combo.setObjectName("weightsCombo")
        self.weights_combo.setToolTip("The weights the scores use: the project's tkl-Data Model, a weights file, "
                                      "or each score's own model (tkl-Score: the tkl-Data Model; M-Score and "
                                      "L-Severity: their own models)")
        self.weights_combo.activated.connect(self._weights_chosen)
        self.weights_file_button = QPushButton("Weights file…")
        self.weights_file_button.clicked.connect(self.open_weights_file_dialog)
        self.score_models_button = QPushButton("Score models…")
        self.score_models_button.setToolTip("Open an M-Score model and an L-Severity model (Turtle)")
        self.score_models_button.clicked.connect(self.open_score_models_dialog)
        self.weights_label = QLabel()
        self.weights_label.setObjectName("weightsSource")
        self.weights_label.setWordWrap(True)
        self.weights_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        weights_row = QHBoxLayout()
        weights_row.addWidget(QLabel("Weights from:"))
        weights_row.addWidget(self.weights_combo)
        weights_row.addWidget(self.weights_file_button)
        weights_row.addWidget(self.score_models_button)
        weights_row.addWidget(self.weights_label, 1)
        return weights_row

    # ------------------------------------------------------------------ state

    def refresh(self) -> None:
        self.refresh_releases()
        self.show_weights_source()
        self.sync_x()

    def refresh_releases(self) -> None:
        names = self.workbench.release_names()
        current = self.workbench.project.current_release
        self.release_combo.blockSignals(True)
        self.release_combo.clear()
        self.release_combo.addItems(names)
        if current in names:
            self.release_combo.setCurrentIndex(names.index(current))
        self.release_combo.blockSignals(False)

    def hide_own_release_chooser(self) -> None:
        """In the main window the release is chosen once, above the officer's views."""
        self.release_label.hide()
        self.release_combo.hide()

    def show_weights_source(self) -> None:
        workbench = self.workbench
        self.weights_combo.blockSignals(True)
        self.weights_combo.clear()
        for kind in workbench.weights_choices():
            text = {MODEL: "the tkl-Data Model", FILE: f"weights file {Path(workbench.project.weights_path or '').name}",
                    SCORE_MODELS: "each score's own model"}[kind]
            self.weights_combo.addItem(text, kind)
        index = self.weights_combo.findData(workbench.weights_use())
        self.weights_combo.setCurrentIndex(max(0, index))
        self.weights_combo.setEnabled(self.weights_combo.count() > 1)
        self.weights_combo.blockSignals(False)
        source = workbench.weights_source()
        self.weights_label.setText(source.sentence() if source is not None
                                   else (workbench.weights_problem or "No weights chosen yet."))

    def _weights_chosen(self, index: int) -> None:
        kind = self.weights_combo.itemData(index)
        if kind and kind != self.workbench.weights_use():
            self.guard(self.workbench.set_weights_use, kind)

    def open_weights_file_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Weights file", "", "Weights (*.csv *.tsv *.txt);;All files (*)")
        if path:
            self.guard(self.workbench.use_weights_file, path)

    def open_score_models_dialog(self) -> None:
        paths, _ = QFileDialog.getOpenFileNames(self, "An M-Score model and an L-Severity model", "",
                                                "Turtle models (*.ttl);;All files (*)")
        if paths:
            self.guard(self.workbench.use_score_models, paths)

    def _release_chosen(self, name: str) -> None:
        if name and name != self.workbench.project.current_release:
            self.guard(self.workbench.set_current_release, name)

    def sync_x(self) -> None:
        x = float(self.workbench.project.x)
        for widget in (self.x_spin, self.x_infinite):
            widget.blockSignals(True)
        self.x_infinite.setChecked(math.isinf(x))
        self.x_spin.setEnabled(not math.isinf(x))
        if not math.isinf(x):
            self.x_spin.setValue(x)
        for widget in (self.x_spin, self.x_infinite):
            widget.blockSignals(False)

    def _apply_x(self) -> None:
        x = math.inf if self.x_infinite.isChecked() else float(self.x_spin.value())
        self.x_spin.setEnabled(not math.isinf(x))
        if x != self.workbench.project.x:
            self.guard(self.workbench.set_x, x)
