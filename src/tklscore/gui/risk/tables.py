"""The Risk view's read-only tables: numbers as they are shown, right-aligned."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem


def number_text(value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    return f"{value:.4f}"


def readonly(table: QTableWidget) -> None:
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)


def set_row(table: QTableWidget, row: int, texts: list[str]) -> None:
    """Fill ``row`` with ``texts``; numbers (and n/a) are right-aligned."""
    for column, text in enumerate(texts):
        item = QTableWidgetItem(text)
        if text == "n/a" or text.replace(",", "").replace(".", "", 1).replace("e-", "").lstrip("-").isdigit():
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        table.setItem(row, column, item)
