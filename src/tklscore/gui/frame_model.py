"""A Qt table model over a pandas DataFrame: rows are fetched from the frame on demand
(nothing is copied into item widgets), sorting reorders an index, not the frame.

Painting asks for every visible cell and role, one Python call each, and each call waits for
the interpreter lock that a background task may hold; so a call must be a lookup. The rows
are read from the frame a block at a time (one slice per column), their texts made then and
kept for the blocks last shown: a repaint, a tooltip or a scroll back costs a lookup."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from tklscore.core.numbers import number
from tklscore.core.tables.spaces import spaces_tip, visible_spaces

BLOCK_ROWS = 64     # view rows read from the frame at a time
KEPT_BLOCKS = 32    # blocks kept (a few screens of rows)
_DISPLAY, _TOOLTIP, _USER = Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.UserRole
_ALIGNMENT, _BACKGROUND = Qt.ItemDataRole.TextAlignmentRole, Qt.ItemDataRole.BackgroundRole
_RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


class _Block:
    """Rows of the view read from the frame: per column the values and their shown texts."""

    __slots__ = ("values", "texts")

    def __init__(self, values: list[list], texts: list[list[str]]):
        self.values, self.texts = values, texts


class FrameModel(QAbstractTableModel):
    def __init__(self, frame: pd.DataFrame | None = None, parent=None, float_digits: int = 5,
                 headers: dict[str, str] | None = None):
        super().__init__(parent)
        self.float_digits = float_digits
        self.headers = dict(headers or {})   # column → the name shown (tooltip: the column itself)
        self._frame = pd.DataFrame()
        self._columns: list = []   # the frame's columns as arrays
        self._names: list[str] = []   # the frame's column names as text
        self._rows = 0
        self._numeric: list[bool] = []
        self._order: np.ndarray | None = None   # view row → frame row (None: the frame's order)
        self._highlight: np.ndarray | None = None  # per frame row: True to highlight
        self._blocks: OrderedDict[int, _Block] = OrderedDict()
        if frame is not None:
            self.set_frame(frame)

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    def set_frame(self, frame: pd.DataFrame, highlight: np.ndarray | None = None) -> None:
        self.beginResetModel()
        self._frame = frame
        # pandas arrays, not numpy: Arrow-backed text is read a block of visible rows at a
        # time instead of being converted to Python objects up front
        self._columns = [frame.iloc[:, i].array for i in range(len(frame.columns))]
        self._names = [str(c) for c in frame.columns]
        self._rows = len(frame)
        self._numeric = [pd.api.types.is_numeric_dtype(a.dtype) for a in self._columns]
        self._order = None
        self._highlight = highlight
        self._blocks.clear()
        self.endResetModel()

    def frame_row(self, row: int) -> int:
        """The frame's row position shown at view row ``row``."""
        return row if self._order is None else int(self._order[row])

    def view_row(self, frame_row: int) -> int:
        """The view row showing the frame's row position ``frame_row``."""
        return frame_row if self._order is None else int(np.flatnonzero(self._order == frame_row)[0])

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._names)

    def _block(self, number_: int) -> _Block:
        block = self._blocks.get(number_)
        if block is not None:
            self._blocks.move_to_end(number_)
            return block
        start, stop = number_ * BLOCK_ROWS, min((number_ + 1) * BLOCK_ROWS, self._rows)
        rows = slice(start, stop) if self._order is None else self._order[start:stop]
        values = [column[rows].tolist() for column in self._columns]
        texts = [[self._text(v) for v in column] for column in values]
        block = self._blocks[number_] = _Block(values, texts)
        if len(self._blocks) > KEPT_BLOCKS:
            self._blocks.popitem(last=False)
        return block

    def _text(self, value) -> str:
        if isinstance(value, (float, np.floating)) or value is None or value is pd.NA:
            return number(value, 6, max_decimals=self.float_digits)
        # a value kept with spaces around it shows them (␣): what is shown is what a rule matches
        return "(empty)" if value == "" else visible_spaces(str(value))

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role == _DISPLAY or role == _TOOLTIP or role == _USER:
            block = self._block(row // BLOCK_ROWS)
            if role == _DISPLAY:
                return block.texts[column][row % BLOCK_ROWS]
            value = block.values[column][row % BLOCK_ROWS]
            if role == _USER:
                return value
            return block.texts[column][row % BLOCK_ROWS] if isinstance(value, (float, np.floating)) \
                else spaces_tip(str(value))
        if role == _ALIGNMENT:
            return _RIGHT if self._numeric[column] else None
        if role == _BACKGROUND and self._highlight is not None and self._highlight[self.frame_row(row)]:
            return QBrush(QColor(255, 120, 90, 90))
        return None

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and section >= len(self._names):
            return None   # a header still sized for the model shown before
        if orientation == Qt.Orientation.Horizontal and role == _TOOLTIP:
            column = self._names[section]
            return column if column in self.headers else None
        if role != _DISPLAY:
            return None
        if orientation == Qt.Orientation.Horizontal:
            column = self._names[section]
            return self.headers.get(column, column)
        return str(section + 1)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if not len(self._frame):
            return
        if column < 0:   # no sort column (the indicator cleared): the frame's own order
            self.layoutAboutToBeChanged.emit()
            self._order = None
            self._blocks.clear()
            self.layoutChanged.emit()
            return
        self.layoutAboutToBeChanged.emit()
        values = self._frame.iloc[:, column]
        if not pd.api.types.is_numeric_dtype(values):
            numbers = pd.to_numeric(values, errors="coerce")
            values = numbers if numbers.notna().all() else values.astype(str)
        self._order = np.argsort(values.to_numpy(), kind="stable")
        if order == Qt.SortOrder.DescendingOrder:
            self._order = self._order[::-1]
        self._blocks.clear()
        self.layoutChanged.emit()
