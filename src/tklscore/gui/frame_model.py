"""A Qt table model over a pandas DataFrame: rows are fetched from the frame on demand
(nothing is copied into item widgets), sorting reorders an index, not the frame."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

from tklscore.core.numbers import number
from tklscore.core.tables.spaces import spaces_tip, visible_spaces


class FrameModel(QAbstractTableModel):
    def __init__(self, frame: pd.DataFrame | None = None, parent=None, float_digits: int = 5,
                 headers: dict[str, str] | None = None):
        super().__init__(parent)
        self.float_digits = float_digits
        self.headers = dict(headers or {})   # column → the name shown (tooltip: the column itself)
        self._frame = pd.DataFrame()
        self._columns: list = []   # the frame's columns as arrays: data() must be cheap
        self._numeric: list[bool] = []
        self._order = np.arange(0)
        self._highlight: np.ndarray | None = None  # per frame row: True to highlight
        if frame is not None:
            self.set_frame(frame)

    @property
    def frame(self) -> pd.DataFrame:
        return self._frame

    def set_frame(self, frame: pd.DataFrame, highlight: np.ndarray | None = None) -> None:
        self.beginResetModel()
        self._frame = frame
        # pandas arrays, not numpy: Arrow-backed text is read a visible cell at a time instead
        # of being converted to Python objects up front
        self._columns = [frame.iloc[:, i].array for i in range(len(frame.columns))]
        self._numeric = [pd.api.types.is_numeric_dtype(t) for t in frame.dtypes]
        self._order = np.arange(len(frame))
        self._highlight = highlight
        self.endResetModel()

    def frame_row(self, row: int) -> int:
        """The frame's row position shown at view row ``row``."""
        return int(self._order[row])

    def view_row(self, frame_row: int) -> int:
        """The view row showing the frame's row position ``frame_row``."""
        return int(np.flatnonzero(self._order == frame_row)[0])

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._frame)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._frame.columns)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row = self._order[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = self._columns[index.column()][row]
            if isinstance(value, (float, np.floating)):
                return number(value, 6, max_decimals=self.float_digits)
            if role == Qt.ItemDataRole.DisplayRole:
                # a value kept with spaces around it shows them (␣): what is shown is what a rule matches
                return "(empty)" if value == "" else visible_spaces(str(value))
            return spaces_tip(str(value))
        if role == Qt.ItemDataRole.UserRole:
            return self._columns[index.column()][row]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if self._numeric[index.column()]:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and self._highlight is not None and self._highlight[row]:
            return QBrush(QColor(255, 120, 90, 90))
        return None

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and section >= len(self._frame.columns):
            return None   # a header still sized for the model shown before
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            column = str(self._frame.columns[section])
            return column if column in self.headers else None
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            column = str(self._frame.columns[section])
            return self.headers.get(column, column)
        return str(section + 1)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        if not len(self._frame):
            return
        if column < 0:   # no sort column (the indicator cleared): the frame's own order
            self.layoutAboutToBeChanged.emit()
            self._order = np.arange(len(self._frame))
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
        self.layoutChanged.emit()
