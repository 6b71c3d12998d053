"""Charts of the Risk view (pyqtgraph, exportable like the Scores view's charts):

- :class:`RiskDistributionChart`: share of records per re-identification risk band, prosecutor
  and journalist side by side (ARX's "distribution of risks");
- :class:`DisclosureRiskChart`: histogram of D(r) on a logarithmic axis with the threshold
  as a vertical line (Orooji & Knapp's Fig. 2).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from tklscore.core.report.charts import ATTACKER_COLORS
from tklscore.core.risk.lens import (DisclosureHistogram, disclosure_histogram, risk_band_labels,
                                    risk_band_shares)
from tklscore.gui.charts import PowerOfTenAxis, ScoreChart



class RiskDistributionChart(ScoreChart):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.shares: dict[str, np.ndarray] = {}
        self.set_data({})

    def set_data(self, risks: dict[str, np.ndarray]) -> None:
        """``risks``: attacker → per-record risk in [0, 1]."""
        self.set_shares({name: risk_band_shares(r) for name, r in risks.items() if r is not None})

    def set_shares(self, shares: dict[str, np.ndarray]) -> None:
        """``shares``: attacker → share of records per risk band (core.risk.lens)."""
        self.clear_chart()
        self.shares = dict(shares)
        self.set_title("Records by re-identification risk")
        self.plot_item.setLabel("left", "Share of records (%)")
        self.plot_item.setLabel("bottom", "Risk of re-identification (%)")
        labels = risk_band_labels()
        positions = np.arange(len(labels), dtype=np.float64)
        width = 0.8 / max(len(self.shares), 1)
        for i, (name, shares) in enumerate(self.shares.items()):
            item = pg.BarGraphItem(x=positions - 0.4 + width * (i + 0.5), height=100.0 * np.asarray(shares),
                                   width=width * 0.95,
                                   brush=pg.mkBrush(ATTACKER_COLORS.get(name, (120, 120, 120))),
                                   pen=pg.mkPen("k", width=0.5), name=name.capitalize())
            self.plot_item.addItem(item)
        self.plot_item.getAxis("bottom").setTicks([[(float(p), l) for p, l in zip(positions, labels)]])
        self.plot_item.setXRange(-0.6, len(labels) - 0.4)
        self.plot_item.setYRange(0, 105)


class DisclosureRiskChart(ScoreChart):
    def __init__(self, parent=None):
        super().__init__(parent, bottom_axis=PowerOfTenAxis("bottom"))
        self.legend.setOffset((-10, 10))  # top right, clear of the threshold's label
        self.counts = np.zeros(0)
        self.zero = 0
        self.threshold_line: pg.InfiniteLine | None = None
        self.set_data(None, 0.01)

    def set_data(self, d: np.ndarray | None, threshold: float, bins: int = 40) -> None:
        """Histogram of log10 D over the records with D > 0; the threshold as a red line."""
        self.set_histogram(None if d is None else disclosure_histogram(d, threshold, bins), threshold)

    def set_histogram(self, histogram: DisclosureHistogram | None, threshold: float | None = None) -> None:
        self.clear_chart()
        self.set_title("Disclosure risk D(r)")
        self.plot_item.setLabel("left", "Records")
        self.plot_item.setLabel("bottom", "D(r) (logarithmic axis)")
        self.threshold_line = None
        if histogram is None:
            self.counts = np.zeros(0)
            return
        threshold = histogram.threshold if threshold is None else threshold
        self.counts, self.zero = histogram.counts, histogram.zero
        if len(histogram.counts):
            self.plot_item.addItem(pg.BarGraphItem(x0=histogram.edges[:-1], x1=histogram.edges[1:],
                                                   height=histogram.counts, brush=pg.mkBrush(44, 160, 44),
                                                   pen=pg.mkPen("k", width=0.3), name="records"))
        if threshold > 0:
            self.threshold_line = pg.InfiniteLine(pos=float(np.log10(threshold)), angle=90,
                                                  pen=pg.mkPen((214, 39, 40), width=2),
                                                  label=f"threshold {threshold:g}",
                                                  labelOpts={"color": (214, 39, 40), "position": 0.6,
                                                             "fill": (255, 255, 255, 200)})
            self.plot_item.addItem(self.threshold_line)
