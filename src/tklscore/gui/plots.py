"""pyqtgraph plots as the views build them: the context menu built on demand, and a few
plots made ahead, while the window is idle, for the first views that ask for one.

Kept apart from :mod:`tklscore.gui.charts` (which draws with the report's chart helpers), so
that a view with plots of its own (AHP, Design's suggestions) does not import the report."""

from __future__ import annotations

import pyqtgraph as pg
import shiboken6
from PySide6.QtWidgets import QWidget

from tklscore.gui.after_paint import next_turn

SPARES = 2   # plots made ahead: the AHP view's two (a plot is some 15 ms of the UI thread to make)
_spares: list[tuple[QWidget, pg.PlotWidget]] = []   # (the window they were made for, the plot)


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
    """A pyqtgraph plot whose context menu is built when first asked for (:class:`MenuOnDemandViewBox`);
    one made ahead (:func:`make_spares`) when the plot asks for nothing but a background."""
    if _live() and parent is None and set(options) <= {"background"}:
        _, plot = _spares.pop()
        plot.setBackground(options.get("background", "default"))
        return plot
    return pg.PlotWidget(parent, viewBox=MenuOnDemandViewBox(), **options)


def make_spares(window: QWidget) -> None:
    """Make :data:`SPARES` plots ahead for the views' first :func:`plot_widget` calls, one per turn
    of the event loop; made as :func:`plot_widget` makes one (no parent: a child's first size
    would size the view's splitters otherwise), they are dropped once ``window`` is gone."""
    def one(left: int) -> None:
        if left and shiboken6.isValid(window) and _live() < SPARES:
            _spares.append((window, pg.PlotWidget(viewBox=MenuOnDemandViewBox())))
            next_turn(lambda: one(left - 1))

    next_turn(lambda: one(SPARES))


def _live() -> int:
    """How many spares are left once those of closed windows are dropped."""
    _spares[:] = [(window, plot) for window, plot in _spares if shiboken6.isValid(window) and shiboken6.isValid(plot)]
    return len(_spares)
