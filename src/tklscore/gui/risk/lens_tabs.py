"""The Risk view's tabs: the distribution of per-record risk (as ARX shows it), D(r) with its
parameters (:class:`~tklscore.gui.risk.disclosure_panel.DisclosurePanel`) and QI importance.
A chart is drawn when its tab is on show (drawing costs the event loop tens of ms)."""

from __future__ import annotations

from PySide6.QtWidgets import QHeaderView, QTableWidget, QTabWidget

from tklscore.core.numbers import number
from tklscore.core.risk.lens import RiskLens, qi_importance_skipped
from tklscore.gui.risk.charts import RiskDistributionChart
from tklscore.gui.risk.disclosure_panel import DisclosurePanel
from tklscore.gui.risk.tables import readonly, set_row


class LensTabs(QTabWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("riskTabs")
        self.lens: RiskLens | None = None
        self.stale: set[str] = set()
        self.distribution_chart = RiskDistributionChart()
        self.disclosure = DisclosurePanel()
        self.importance_table = QTableWidget(0, 3)
        self.importance_table.setObjectName("qiImportance")
        self.importance_table.setHorizontalHeaderLabels(["quasi-identifiers", "distinction", "separation"])
        readonly(self.importance_table)
        self.importance_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.addTab(self.distribution_chart, "Risk distribution")
        self.addTab(self.disclosure, "Disclosure risk D(r)")
        self.addTab(self.importance_table, "QI importance")
        self.currentChanged.connect(lambda _index: self.draw_charts())

    def clear(self) -> None:
        self.lens = None
        self.importance_table.setRowCount(0)
        self.stale = set()
        self.distribution_chart.set_data({})
        self.disclosure.clear()

    def show_lens(self, lens: RiskLens, qi_count: int) -> None:
        """The lens's QI importance (or why it was not measured: ``qi_count`` QIs) and, when
        their tabs are on show, its charts."""
        self.lens = lens
        importance = lens.measures.qi_importance or []
        self.importance_table.setRowCount(max(len(importance), 1))
        for i, q in enumerate(importance):
            set_row(self.importance_table, i, [", ".join(q.attributes), number(q.distinction),
                                               number(q.separation)])
        if not importance:
            set_row(self.importance_table, 0, [qi_importance_skipped(qi_count) or "", "", ""])
        self.stale = {"distribution", "disclosure"}
        self.draw_charts()

    def draw_charts(self) -> None:
        """Draw the chart on show; the other waits until its tab is chosen."""
        lens = self.lens
        if lens is None:
            return
        current = self.currentIndex()
        if "distribution" in self.stale and current == 0:
            self.distribution_chart.set_shares(lens.risk_distribution())
            self.stale.discard("distribution")
        if "disclosure" in self.stale and current == 1:
            self.disclosure.disclosure_chart.set_histogram(lens.disclosure_histogram())
            self.stale.discard("disclosure")
