"""Function 2, places your data is sent: the sample table of pia.md §4.9, sortable and
searchable."""

from __future__ import annotations

import csv

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QLineEdit, QTableView, QVBoxLayout, QWidget

from tklscore.core.files.resources import resource_path
from tklscore.gui.patient.words import banner


class PlacesPage(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.addWidget(banner(
            "<b>Sample content.</b> This table shows where one U.S. hospital reported sending health "
            "information (Daniels 2018, Fig. 7.8). It is an example, not a list for your hospital, and "
            "it is not authoritative."))
        intro = QLabel(
            "<b>Accountability of disclosure</b>: a hospital must be able to say where it sent your "
            "information, how and why. You can ask for this <i>accounting of disclosures</i>; it shows "
            "you, for example, that your vaccinations go to the state registry or that a public health "
            "agency was notified of an infection. Click a column title to sort; type to search.")
        intro.setWordWrap(True)
        intro.setStyleSheet("font-size:11pt;")
        layout.addWidget(intro)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search, e.g. DHEC, registry, fax…")
        self.search.setClearButtonEnabled(True)
        self.search.setMaximumWidth(360)
        layout.addWidget(self.search)
        model = QStandardItemModel(self)
        with open(resource_path("patient/places.csv"), newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        model.setHorizontalHeaderLabels(rows[0])
        for row in rows[1:]:
            items = [QStandardItem(cell) for cell in row]
            for item in items:
                item.setEditable(False)
                item.setToolTip(item.text())
            model.appendRow(items)
        self.model = model
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(model)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.proxy.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.search.textChanged.connect(self.proxy.setFilterFixedString)
        table = QTableView()
        table.setModel(self.proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
        table.setAlternatingRowColors(True)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.verticalHeader().hide()
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table = table
        layout.addWidget(table, 1)
