"""The Scores view's records when they are kept on disk (an out-of-core release,
:class:`~tklscore.core.engines.record_store.RecordStore`): a Qt table model that holds the
pages read so far and reads the next one when the view scrolls to the end
(``canFetchMore``/``fetchMore``), each page on the task runner's side lane; sorting by a
column starts again from that order's first page. The riskiest records (core's rule, found
by the store) are highlighted."""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor

from tklscore.core.engines.record_store import POSITION
from tklscore.core.numbers import number
from tklscore.core.scoring.scores import RECORD_COLUMNS
from tklscore.gui.tasks import SIDE

PAGE_ROWS = 2_000   # records read per page


class PagedRecordsModel(QAbstractTableModel):
    pageLoaded = Signal(int)     # rows held after a page arrived

    def __init__(self, runner, parent=None, float_digits: int = 5, headers: dict[str, str] | None = None,
                 failed=None):
        super().__init__(parent)
        self.runner, self.float_digits, self.headers = runner, float_digits, dict(headers or {})
        self.failed = failed or (lambda message: None)
        self.store = None
        self.order: tuple[str, bool] | None = None   # (column, descending), None: published order
        self.border = None          # RiskiestBorder, once found
        self._frames: list[pd.DataFrame] = []
        self._columns: list[np.ndarray] = [np.empty(0, dtype=object) for _ in RECORD_COLUMNS]
        self._positions = np.empty(0, dtype=np.int64)
        self._highlight = np.empty(0, dtype=bool)
        self._loading = None
        self._generation = 0

    # ------------------------------------------------------------------ what it shows

    def set_store(self, store) -> None:
        """Show ``store``'s records from the first page (None: none)."""
        self.beginResetModel()
        self.store, self.order, self.border = store, None, None
        self._clear()
        self.endResetModel()
        if store is not None:
            self._fetch(with_border=True)

    @property
    def total_rows(self) -> int:
        return 0 if self.store is None else len(self.store)

    @property
    def loading(self) -> bool:
        return self._loading is not None

    def position(self, row: int) -> int:
        """The published position of the record at ``row``."""
        return int(self._positions[row])

    def record(self, row: int) -> pd.Series:
        return pd.Series({c: self._columns[i][row] for i, c in enumerate(RECORD_COLUMNS)})

    def _clear(self) -> None:
        self._generation += 1
        if self._loading is not None:
            self._loading.cancel()
            self._loading = None
        self._frames = []
        self._columns = [np.empty(0, dtype=object) for _ in RECORD_COLUMNS]
        self._positions = np.empty(0, dtype=np.int64)
        self._highlight = np.empty(0, dtype=bool)

    # ------------------------------------------------------------------ paging

    def canFetchMore(self, parent=QModelIndex()) -> bool:
        return (not parent.isValid() and self.store is not None and self._loading is None
                and len(self._positions) < len(self.store))

    def fetchMore(self, parent=QModelIndex()) -> None:
        if self.canFetchMore(parent):
            self._fetch()

    def _fetch(self, with_border: bool = False) -> None:
        store, order, offset, generation = self.store, self.order, len(self._positions), self._generation

        def read(control):
            column, descending = order if order is not None else (None, False)
            page = store.page(offset, PAGE_ROWS, column, descending)
            control.check()
            return page, store.riskiest() if with_border else None

        def done(result) -> None:
            if generation != self._generation:
                return
            self._loading = None
            page, border = result
            if border is not None:
                self.border = border
                if len(self._positions):
                    self._highlight = border.mask(self._column("tkl"), self._positions)
                    self.dataChanged.emit(self.index(0, 0), self.index(len(self._positions) - 1,
                                                                       len(RECORD_COLUMNS) - 1))
            self._append(page)

        def failed(message: str) -> None:
            if generation == self._generation:
                self._loading = None
            self.failed(message)

        self._loading = self.runner.start("Reading the per-record results", read, done, failed, owner=self,
                                          lane=SIDE)

    def _column(self, name: str) -> np.ndarray:
        return self._columns[RECORD_COLUMNS.index(name)]

    def _append(self, page: pd.DataFrame) -> None:
        if not len(page):
            self.pageLoaded.emit(len(self._positions))
            return
        first = len(self._positions)
        self.beginInsertRows(QModelIndex(), first, first + len(page) - 1)
        self._columns = [np.concatenate([old, page[c].to_numpy()]) for old, c in zip(self._columns, RECORD_COLUMNS)]
        positions = page[POSITION].to_numpy(dtype=np.int64)
        self._positions = np.concatenate([self._positions, positions])
        mask = (self.border.mask(page["tkl"].to_numpy(), positions) if self.border is not None
                else np.zeros(len(page), dtype=bool))
        self._highlight = np.concatenate([self._highlight, mask])
        self.endInsertRows()
        self.pageLoaded.emit(len(self._positions))

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        """The records from the first page of their order by ``column`` (ties: published order)."""
        if self.store is None:
            return
        self.beginResetModel()
        self.order = (None if column < 0 else
                      (RECORD_COLUMNS[column], order == Qt.SortOrder.DescendingOrder))
        border = self.border
        self._clear()
        self.border = border
        self.endResetModel()
        self._fetch(with_border=border is None)

    # ------------------------------------------------------------------ Qt's questions

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._positions)

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(RECORD_COLUMNS)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            value = self._columns[column][row]
            if isinstance(value, (float, np.floating)):
                return number(value, 6, max_decimals=self.float_digits)
            return str(value)
        if role == Qt.ItemDataRole.UserRole:
            return self._columns[column][row]
        if role == Qt.ItemDataRole.TextAlignmentRole and column > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and self._highlight[row]:
            return QBrush(QColor(255, 120, 90, 90))
        return None

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal:
            if section >= len(RECORD_COLUMNS):
                return None
            column = RECORD_COLUMNS[section]
            if role == Qt.ItemDataRole.ToolTipRole:
                return column if column in self.headers else None
            if role == Qt.ItemDataRole.DisplayRole:
                return self.headers.get(column, column)
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return f"{section + 1:,}"
        return None
