"""The AHP view's judgements: one Saaty slider per pair of criteria (in words), the verdict on
the consistency ratio in a banner right above them with a traffic light, and the reciprocal
matrix (completed cells in grey italics)."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter
from PySide6.QtWidgets import (QAbstractItemView, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QScrollArea,
                               QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from tklscore.core.model.ahp import AHPResult
from tklscore.gui.ahp.saaty_slider import SaatySlider, describe, format_rating

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


class JudgementsPanel(QSplitter):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.sliders: dict[tuple[int, int], SaatySlider] = {}
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
        box = QVBoxLayout(judgements)
        box.addLayout(banner)
        box.addWidget(scroll, 1)
        self.matrix_table = QTableWidget()
        self.matrix_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        matrix_box = QGroupBox("Reciprocal matrix (grey italics: completed, not judged)")
        QVBoxLayout(matrix_box).addWidget(self.matrix_table)
        self.addWidget(judgements)
        self.addWidget(matrix_box)
        self.setStretchFactor(0, 3)
        self.setStretchFactor(1, 2)

    def build_rows(self, labels: list[str], previewed, committed) -> None:
        """A slider per pair (i < j); ``previewed(pair, value)`` while it moves, ``committed``
        once it rests."""
        for slider in self.sliders.values():
            slider.setParent(None)
            slider.deleteLater()
        self.sliders = {}
        n = len(labels)
        for i in range(n):
            for j in range(i + 1, n):
                slider = SaatySlider(labels[i], labels[j], None, self.pairs_box)
                slider.previewed.connect(lambda value, pair=(i, j): previewed(pair, value))
                slider.committed.connect(lambda value, pair=(i, j): committed(pair, value))
                self.pairs_layout.addWidget(slider)
                self.sliders[(i, j)] = slider

    def show_sliders(self, matrix, result: AHPResult | None, moving: tuple[int, int] | None, read_only: bool) -> None:
        completed = result.completed_matrix if result is not None else None
        for (i, j), slider in self.sliders.items():
            if moving == (i, j):
                continue   # the user is moving it
            value = matrix[i, j] if matrix is not None else math.nan
            filled = float(completed[i, j]) if completed is not None else None
            slider.set_value(None if math.isnan(value) else float(value), filled)
            slider.set_read_only(read_only)

    def show_matrix(self, labels: list[str], matrix, result: AHPResult | None) -> None:
        n = len(labels)
        table = self.matrix_table
        table.clear()
        table.setRowCount(n)
        table.setColumnCount(n)
        table.setHorizontalHeaderLabels(labels)
        table.setVerticalHeaderLabels(labels)
        if matrix is None:
            return
        shown = result.completed_matrix if result is not None else matrix
        italic = QFont()
        italic.setItalic(True)
        for i in range(n):
            for j in range(n):
                value = shown[i, j]
                item = QTableWidgetItem("" if math.isnan(value) else format_rating(float(value)))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if math.isnan(matrix[i, j]):
                    item.setFont(italic)
                    item.setForeground(QBrush(QColor("gray")))
                    item.setToolTip("not judged: completed (Harker's method)" if not math.isnan(value)
                                    else "not judged")
                elif i != j:
                    item.setToolTip(describe(labels[i], labels[j], float(value)))
                table.setItem(i, j, item)

    def show_light(self, result: AHPResult | None, group: bool) -> None:
        color, words = light_of(result, group)
        self.light.set_color(color)
        self.light_label.setText(words)
