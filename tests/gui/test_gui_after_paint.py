"""after_pending_paints: work started once the window has painted what is pending."""

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QTimer
from PySide6.QtWidgets import QLabel

from tklscore.gui.after_paint import after_pending_paints


class Painted(QLabel):
    def __init__(self, log):
        super().__init__("before")
        self.log = log

    def paintEvent(self, event):
        self.log.append("paint")
        super().paintEvent(event)


def test_the_function_runs_after_the_pending_repaint_and_after_a_zero_timer(qtbot):
    log = []
    label = Painted(log)
    qtbot.addWidget(label)
    label.show()
    qtbot.waitExposed(label)
    qtbot.waitUntil(lambda: "paint" in log, timeout=5000)
    log.clear()
    label.setText("after")                    # a repaint is pending
    after_pending_paints(label, lambda: log.append("work"))
    QTimer.singleShot(0, lambda: log.append("zero timer"))   # runs before the repaint
    qtbot.waitUntil(lambda: "work" in log, timeout=5000)
    assert log == ["zero timer", "paint", "work"]


def test_the_function_never_runs_once_its_parent_is_deleted(qtbot):
    calls = []
    parent = QObject()
    after_pending_paints(parent, lambda: calls.append(1))
    shiboken6.delete(parent)              # before the event loop delivers the call
    for _ in range(5):
        QCoreApplication.processEvents()
    kept = QObject()
    after_pending_paints(kept, lambda: calls.append(2))
    qtbot.waitUntil(lambda: calls == [2], timeout=5000)
    for _ in range(5):
        QCoreApplication.processEvents()
    assert calls == [2]   # once
