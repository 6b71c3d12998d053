"""Work that must not compete with the window's next repaint: started once Qt has painted
what the views asked to repaint.

A background task started while the views repaint competes with them for the interpreter
lock and the CPUs (the views call Python once per cell). Qt posts a window's repaint
(``UpdateRequest``) at ``Qt.LowEventPriority``, so ``QTimer.singleShot(0, …)`` still runs
before it; an event posted at a lower priority is delivered after every repaint pending when
it was posted, in the same pass of the event loop. A repaint often changes the layout (a
view's first paint: a chart's axis fits its tick labels, a label wraps) and the repaint that
this asks for is posted during that pass, after this event: the function waits one more pass
of the event loop, so that it also comes after that repaint (a view painted for the first
time paints twice)."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer

AFTER_PAINT_PRIORITY = Qt.EventPriority.LowEventPriority.value - 1
_AFTER_PAINT = QEvent.Type(QEvent.registerEventType())


PASSES = 2   # the repaint pending, then the one that its layout changes ask for


class _AfterPaint(QObject):
    def __init__(self, function: Callable[[], None], parent: QObject):
        super().__init__(parent)
        self.function = function
        self.passes = PASSES

    def event(self, event: QEvent) -> bool:
        if event.type() != _AFTER_PAINT:
            return super().event(event)
        self.passes -= 1
        if self.passes > 0:
            QCoreApplication.postEvent(self, QEvent(_AFTER_PAINT), AFTER_PAINT_PRIORITY)
            return True
        function, self.function = self.function, None
        self.deleteLater()
        if function is not None:
            function()
        return True


def after_pending_paints(parent: QObject, function: Callable[[], None]) -> None:
    """Call ``function`` on this (the UI) thread once the repaints pending now, and those
    their layout changes ask for, are done; never if ``parent`` is deleted first."""
    QCoreApplication.postEvent(_AfterPaint(function, parent), QEvent(_AFTER_PAINT), AFTER_PAINT_PRIORITY)


NEXT_TURN_MS = 1


def next_turn(function: Callable[[], None]) -> None:
    """Call ``function`` in a later turn of the event loop, after the repaints, input and timers
    already due: a step of work split over turns so that none blocks the window for long. A
    timer, not ``QTimer.singleShot(0, …)``: that is a posted call, delivered at the start of the
    next pass before any timer that is due, so two steps posted one after the other ran back to
    back as one block."""
    QTimer.singleShot(NEXT_TURN_MS, function)
