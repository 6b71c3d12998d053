"""The Risk view's read-only tables: numbers as ``core/numbers.py`` writes them, right-aligned."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem

NUMBER_TEXT = re.compile(r"[<>]? ?-?[\d,]*\.?\d+(e-\d+)?( %)?|∞")   # as core.numbers writes them: right-aligned


def readonly(table: QTableWidget) -> None:
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)


def set_row(table: QTableWidget, row: int, texts: list[str]) -> None:
    """Fill ``row`` with ``texts``; numbers (and n/a) are right-aligned."""
    for column, text in enumerate(texts):
        item = QTableWidgetItem(text)
        if text == "n/a" or NUMBER_TEXT.fullmatch(text):
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        table.setItem(row, column, item)
