"""pyqtgraph plots as the views build them: the context menu built on demand.

Kept apart from :mod:`tklscore.gui.charts` (which draws with the report's chart helpers), so
that a view with plots of its own (AHP, Design's suggestions) does not import the report."""

from __future__ import annotations

import pyqtgraph as pg


class MenuOnDemandViewBox(pg.ViewBox):
    """A plot's view box whose context menu (View All, the axes, Export…) is built the first
    time it is asked for, at a right-click: pyqtgraph builds it with every plot, a widget tree
    of its own that made up a sixth of building a chart while a view was first shown."""

    def __init__(self, **options):
        super().__init__(enableMenu=False, **options)
        self.state["enableMenu"] = True   # offered as ever; built by getMenu

    def getMenu(self, ev):
        if self.menu is None:
            self._applyMenuEnabled()
        return self.menu

    def getContextMenus(self, event):
        self.getMenu(event)
        return super().getContextMenus(event)


def plot_widget(parent=None, **options) -> pg.PlotWidget:
    """A pyqtgraph plot whose context menu is built when first asked for (:class:`MenuOnDemandViewBox`)."""
    return pg.PlotWidget(parent, viewBox=MenuOnDemandViewBox(), **options)
