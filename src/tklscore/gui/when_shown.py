"""Recomputation a view does for its own panels waits until the view is on screen.

Every view listens to the workbench's signals; a view the officer is not looking at would
otherwise queue background work (a Design evaluation, an AHP sweep, a Risk lens) ahead of
the scores of the next edit on the one task thread."""

from __future__ import annotations

import sys
from typing import Callable

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

from tklscore.gui.guard import run_guarded


def off_screen(widget: QWidget) -> bool:
    """True when the widget's window is shown but the widget is not (another view is current).
    A view outside a shown window (a test, a screenshot being set up) is never deferred."""
    window = widget.window()
    return window is not widget and window.isVisible() and not widget.isVisible()


class WhenShown(QObject):
    """Calls ``function`` at once when ``widget`` is on screen, else the next time it is shown."""

    def __init__(self, widget: QWidget, function: Callable[[], None]):
        super().__init__(widget)
        self.widget, self.function, self.stale = widget, function, False
        widget.installEventFilter(self)

    def request(self, *_args) -> None:
        if off_screen(self.widget):
            self.stale = True
            return
        self.stale = False
        self._run()

    def eventFilter(self, watched, event) -> bool:
        if watched is self.widget and event.type() == QEvent.Type.Show and self.stale:
            self.stale = False
            self._run()  # an exception must not escape an event filter: it is said, as everywhere
        return False

    def _run(self) -> None:
        failed = getattr(getattr(self.widget, "workbench", None), "failed", None)
        run_guarded(failed.emit if failed is not None else _print_error, self.function)


def _print_error(message: str) -> None:
    print(f"tklscore: error: {message}", file=sys.stderr)
