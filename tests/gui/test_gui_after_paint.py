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


def test_the_function_also_waits_for_the_repaint_that_the_first_one_s_layout_change_asks_for(qtbot):
    """A view's first paint often changes its layout (a chart's axis fits its tick labels):
    the repaint that asks for comes before the function too."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    log = []

    class Fitting(Painted):
        def paintEvent(self, event):
            super().paintEvent(event)
            if self.minimumHeight() < 120:   # as an axis does once it has measured its labels
                self.setMinimumHeight(120)

    window = QWidget()
    qtbot.addWidget(window)
    QVBoxLayout(window).addWidget(QLabel("above"))
    window.show()
    qtbot.waitExposed(window)
    fitting = Fitting(log)
    window.layout().addWidget(fitting)
    fitting.show()                      # a view put on show: its first paint is pending
    after_pending_paints(window, lambda: log.append("work"))
    qtbot.waitUntil(lambda: "work" in log, timeout=5000)
    assert log[:2] == ["paint", "paint"] and log[-1] == "work"   # its first paint, then the one refitted


def test_steps_split_over_turns_let_the_timers_due_run_between_them(qtbot):
    """A step of work started with next_turn runs after the timers already due (the window's
    own, a block meter's): two long steps in a row are two blocks, not one."""
    import time

    from tklscore.gui.after_paint import next_turn

    seen = []
    ticker = QTimer()
    ticker.setInterval(5)
    ticker.timeout.connect(lambda: seen.append("tick"))

    def step(name, then=None):
        seen.append(name)
        time.sleep(0.02)   # longer than the ticker's interval: its tick is due when the step ends
        if then is not None:
            next_turn(then)

    ticker.start()
    next_turn(lambda: step("first", lambda: step("second")))
    qtbot.waitUntil(lambda: "second" in seen, timeout=2000)
    ticker.stop()
    assert "tick" in seen[seen.index("first"):seen.index("second")]
