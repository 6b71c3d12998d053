"""Bins of a continuous column (data-model.md §1): proposed as quantile or round-number bins,
typed as edges, or edited in place in the tree (a bin's neighbour follows a shared edge).
Bins that overlap or leave a gap are refused with the bins named; every change is one
undoable edit that keeps the labels of the bins that stay."""

from __future__ import annotations

from PySide6.QtWidgets import (QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSpinBox,
                               QVBoxLayout, QWidget)

from tklscore.core.errors import InputError
from tklscore.core.model.bins import bins_from_edges, parse_edges, quantile_bins, round_number_bins, round_width
from tklscore.core.scoring.weights import Interval


class BinsPanel(QWidget):
    def __init__(self, workbench, edits, parent: QWidget | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.edits = edits
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.column_combo = QComboBox()
        self.column_combo.setObjectName("binsColumn")
        self.column_combo.currentIndexChanged.connect(lambda _: self.show_bins())
        form.addRow("Continuous column:", self.column_combo)
        self.current_label = QLabel()
        self.current_label.setObjectName("currentBins")
        self.current_label.setWordWrap(True)
        form.addRow("Bins now:", self.current_label)
        edges = QHBoxLayout()
        self.edges_edit = QLineEdit()
        self.edges_edit.setObjectName("binEdges")
        self.edges_edit.setPlaceholderText("edges, e.g. 0, 30, 50, inf")
        self.apply_button = QPushButton("Use these edges")
        self.apply_button.clicked.connect(self.apply_edges)
        edges.addWidget(self.edges_edit, 1)
        edges.addWidget(self.apply_button)
        form.addRow("Edges:", edges)
        quantiles = QHBoxLayout()
        self.quantile_spin = QSpinBox()
        self.quantile_spin.setRange(2, 20)
        self.quantile_spin.setValue(4)
        self.quantile_button = QPushButton("Quantile bins")
        self.quantile_button.setToolTip("Edges at the quantiles: each bin holds about as many records")
        self.quantile_button.clicked.connect(lambda: self.propose("quantile"))
        quantiles.addWidget(self.quantile_spin)
        quantiles.addWidget(self.quantile_button)
        quantiles.addStretch(1)
        form.addRow("Bins:", quantiles)
        widths = QHBoxLayout()
        self.width_edit = QLineEdit()
        self.width_edit.setPlaceholderText("width (empty: a round width for about 5 bins)")
        self.round_button = QPushButton("Round-number bins")
        self.round_button.setToolTip("Edges at multiples of a round width (1, 2, 2.5 or 5 × 10ⁿ)")
        self.round_button.clicked.connect(lambda: self.propose("round"))
        widths.addWidget(self.width_edit, 1)
        widths.addWidget(self.round_button)
        form.addRow("Width:", widths)
        layout.addLayout(form)
        hint = QLabel("Double-click a bin in the tree to edit it in place. A bin that changes takes the label of "
                      "the bin it overlaps most, marked not yet judged.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(mid);")
        layout.addWidget(hint)
        layout.addStretch(1)

    def refresh(self) -> None:
        model = self.workbench.model
        columns = [c for c in model.columns if model.attribute(c).continuous] if model is not None else []
        chosen = self.column_combo.currentText()
        self.column_combo.blockSignals(True)
        self.column_combo.clear()
        self.column_combo.addItems(columns)
        if chosen in columns:
            self.column_combo.setCurrentText(chosen)
        self.column_combo.blockSignals(False)
        for widget in (self.edges_edit, self.apply_button, self.quantile_button, self.round_button):
            widget.setEnabled(bool(columns))
        self.show_bins()

    def choose(self, column: str) -> None:
        if self.column_combo.findText(column) >= 0:
            self.column_combo.setCurrentText(column)

    def column(self) -> str | None:
        return self.column_combo.currentText() or None

    def show_bins(self) -> None:
        model, column = self.workbench.model, self.column()
        if model is None or column is None:
            self.current_label.setText("The model has no continuous column." if model is not None else "")
            return
        bins = [n.value for n in model.values_of(column)]
        self.current_label.setText("  ".join(bins) or "none yet")
        edges = []
        for text in bins:
            interval = Interval.parse(text)
            edges += [interval.low] if not edges else []
            edges.append(interval.high)
        self.edges_edit.setText(", ".join("inf" if e == float("inf") else "-inf" if e == float("-inf") else f"{e:g}"
                                          for e in edges))

    def _numbers(self, column: str):
        table = self.workbench.table
        if table is None or column not in table.columns:
            raise InputError(f"the source table is not loaded, so '{column}' has no values to bin",
                             hint="open the source in the Release view first, or type the edges")
        return table.numeric(column)

    def apply_edges(self) -> bool:
        column = self.column()
        try:
            bins = bins_from_edges(parse_edges(self.edges_edit.text(), column))
        except InputError as error:
            self.edits.show_error(str(error))
            return False
        return self.edits.set_bins(column, bins, "Bins from edges")

    def propose(self, method: str) -> bool:
        column = self.column()
        if column is None:
            return False
        try:
            numbers = self._numbers(column)
            if method == "quantile":
                bins, how = quantile_bins(numbers, self.quantile_spin.value()), f"{self.quantile_spin.value()} quantile bins"
            else:
                text = self.width_edit.text().strip()
                width = float(text) if text else round_width(numbers)
                bins, how = round_number_bins(numbers, width), f"Round-number bins of width {width:g}"
        except ValueError:
            self.edits.show_error(f"the width '{self.width_edit.text()}' is not a number")
            return False
        except InputError as error:
            self.edits.show_error(str(error))
            return False
        return self.edits.set_bins(column, bins, how)
