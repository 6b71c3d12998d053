"""The task runner: a result that arrives after the runner's owner has closed is dropped quietly."""

import shiboken6
from PySide6.QtCore import QCoreApplication

from tklscore.gui.tasks import TaskRunner, write_cancelled


def test_a_result_queued_for_a_deleted_runner_is_dropped(qtbot):
    runner = TaskRunner()
    done = []
    runner.start("work", lambda control: 42, done.append, done.append)
    assert runner.wait(5000)                  # the result is now queued for the UI thread
    task = runner.current[0]
    shiboken6.delete(runner)                  # the owner closes before the event loop delivers it
    with qtbot.captureExceptions() as exceptions:
        for _ in range(5):
            QCoreApplication.processEvents()
    assert exceptions == [] and done == []
    del task


def test_a_result_is_delivered_to_a_live_runner(qtbot):
    runner = TaskRunner()
    done = []
    runner.start("work", lambda control: 42, done.append, done.append)
    qtbot.waitUntil(lambda: done == [42], timeout=5000)
    assert not runner.current


def test_a_task_whose_owner_is_deleted_while_it_runs_is_cancelled_and_calls_nothing(qtbot):
    import threading

    from PySide6.QtWidgets import QLabel

    runner = TaskRunner()
    owner = QLabel("view")
    started, release, calls, seen = threading.Event(), threading.Event(), [], []

    def work(control):
        started.set()
        release.wait(5)
        seen.append(control.cancelled)
        control.progress(50, "half")  # raises Cancelled once the owner is gone
        return 42

    runner.start("work", work, lambda r: calls.append(("done", owner.text())),
                 lambda m: calls.append(("failed", owner.text())), owner=owner)
    progress = []
    runner.progress.connect(lambda p, t: progress.append(p))
    qtbot.waitUntil(started.is_set, timeout=5000)   # its thread begins once the event loop has run
    shiboken6.delete(owner)                   # the view closes while its task runs
    release.set()
    qtbot.waitUntil(lambda: not runner.current, timeout=5000)
    assert seen == [True] and calls == [] and progress == []


def test_a_result_queued_for_a_deleted_owner_is_dropped_but_others_arrive(qtbot):
    from PySide6.QtCore import SIGNAL, QObject

    runner = TaskRunner()
    gone, kept = QObject(), QObject()
    calls = []
    runner.start("a", lambda control: 1, calls.append, calls.append, owner=gone)
    runner.start("b", lambda control: 2, calls.append, calls.append, owner=kept)
    assert runner.wait(5000)                  # both results are queued for the UI thread
    shiboken6.delete(gone)
    qtbot.waitUntil(lambda: not runner.current, timeout=5000)
    assert calls == [2]
    connected = kept.receivers(SIGNAL("destroyed(QObject*)"))
    for i in range(5):
        runner.start("more", lambda control, i=i: i, calls.append, calls.append, owner=kept)
    qtbot.waitUntil(lambda: not runner.current, timeout=5000)
    assert calls == [2, 0, 1, 2, 3, 4]
    assert kept.receivers(SIGNAL("destroyed(QObject*)")) == connected  # settled tasks let go of their owner


def test_the_side_lane_never_makes_the_main_lane_wait(qtbot):
    import threading

    from tklscore.gui.tasks import SIDE

    runner = TaskRunner()
    side_may_finish = threading.Event()
    order = []
    runner.start("sweep", lambda control: side_may_finish.wait(10) and "side", order.append, order.append,
                 lane=SIDE)
    runner.start("scores", lambda control: "main", order.append, order.append)
    qtbot.waitUntil(lambda: order == ["main"], timeout=5000)  # while the side task still runs
    assert len(runner.current) == 1
    side_may_finish.set()
    qtbot.waitUntil(lambda: order == ["main", "side"], timeout=5000)
    assert not runner.current


def test_the_main_lane_runs_its_tasks_one_at_a_time_in_order(qtbot):
    import threading
    import time

    runner = TaskRunner()
    active, most, order = [0], [0], []
    lock = threading.Lock()

    def work(i):
        def run(control):
            with lock:
                active[0] += 1
                most[0] = max(most[0], active[0])
            time.sleep(0.01)
            with lock:
                active[0] -= 1
            return i
        return run

    for i in range(5):
        runner.start(f"task {i}", work(i), order.append, order.append)
    qtbot.waitUntil(lambda: len(order) == 5, timeout=5000)
    assert order == [0, 1, 2, 3, 4] and most[0] == 1


def test_progress_is_passed_on_only_when_it_changes(qtbot, monkeypatch):
    import tklscore.gui.tasks as tasks

    clock = [0.0]
    monkeypatch.setattr(tasks.time, "monotonic", lambda: clock[0])
    runner = TaskRunner()
    shown = []
    runner.progress.connect(lambda percent, text: shown.append((percent, text)))

    def work(control):
        for percent, at in ((10, 0.0), (10, 0.5), (10, 0.6), (20, 0.65), (30, 0.7), (40, 0.8)):
            clock[0] = at
            control.progress(percent, "Working")
        control.progress(40, "Almost")
        return None

    done = []
    runner.start("work", work, done.append, done.append)
    qtbot.waitUntil(lambda: done == [None], timeout=5000)
    # the same: never; another percentage: 0.1 s after the last one shown; another text: at once
    assert shown == [(10, "Working"), (20, "Working"), (40, "Working"), (40, "Almost")]


def test_a_task_runner_leaves_the_process_s_switch_interval_alone(qtbot):
    import sys

    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)   # Python's default
    try:
        TaskRunner()
        assert sys.getswitchinterval() == 0.005   # the application's start-up sets it (gui/app.py)
    finally:
        sys.setswitchinterval(before)


def test_a_task_runs_at_a_lower_priority_than_the_ui_thread(qtbot):
    import os
    import sys
    import threading

    import pytest

    from tklscore.gui.tasks import BACKGROUND_NICE

    if not sys.platform.startswith("linux"):
        pytest.skip("threads have a priority of their own on Linux only")

    def nice() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    background = min(19, nice() + BACKGROUND_NICE)
    runner = TaskRunner()
    results = []
    runner.start("nice", lambda control: nice(), results.append, results.append)
    qtbot.waitUntil(lambda: bool(results), timeout=5000)
    assert results == [background] and nice() == background - BACKGROUND_NICE   # the UI thread keeps its own
    runner.wait()


def test_a_task_s_thread_begins_after_the_window_s_pending_repaint(qtbot):
    from PySide6.QtWidgets import QLabel

    log = []

    class Painted(QLabel):
        def paintEvent(self, event):
            log.append("paint")
            super().paintEvent(event)

    label = Painted("before")
    qtbot.addWidget(label)
    label.show()
    qtbot.waitExposed(label)
    qtbot.waitUntil(lambda: "paint" in log, timeout=5000)
    log.clear()
    runner = TaskRunner()
    done = []
    label.setText("after")                 # the change that starts the task asks for a repaint
    runner.start("work", lambda control: log.append("work") or 42, done.append, done.append)
    assert [t.name for t in runner.current] == ["work"]   # started: busy at once
    qtbot.waitUntil(lambda: done == [42], timeout=5000)
    assert log == ["paint", "work"]


def test_wait_begins_the_waiting_tasks_and_waits_for_them(qtbot):
    from tklscore.gui.tasks import SAVE

    runner = TaskRunner()
    written = []
    runner.start("save", lambda control: written.append("file"), lambda _: None, lambda _: None, lane=SAVE)
    assert runner.wait() and written == ["file"]   # no event loop ran: a file is never left unwritten


def test_a_finished_task_its_function_and_what_it_read_are_freed(qtbot):
    """A task settled (done, failed or cancelled) is no longer held by its lane's pool or by
    the runner's connections to its signals: its function, what the function captured (a
    release's frames) and its callbacks are freed."""
    import gc
    import weakref

    from tklscore.core.errors import Cancelled

    class Frames:   # what a task's function reads: a whole release
        pass

    runner = TaskRunner()
    settled, kept = [], []

    def fails(_control):
        raise ValueError("bad input")

    def cancels(_control):
        raise Cancelled()

    for i in range(20):
        frames, callback_reads = Frames(), Frames()
        kept.append((weakref.ref(frames), weakref.ref(callback_reads)))
        function = (fails if i % 3 == 1 else cancels if i % 3 == 2 else
                    (lambda control, frames=frames: len(vars(frames))))
        on_done = lambda value, reads=callback_reads: settled.append(value)  # noqa: E731
        task = runner.start(f"task {i}", function, on_done, settled.append, on_cancelled=on_done)
        if i % 3:    # its function does not read the frames: the task itself holds them
            task.frames = frames
        kept[-1] += (weakref.ref(task),)
        del frames, callback_reads, task, function, on_done
    qtbot.waitUntil(lambda: len(settled) == 20 and not runner.current, timeout=20000)
    gc.collect()
    alive = [i for i, refs in enumerate(kept) if any(ref() is not None for ref in refs)]
    assert alive == []


def test_a_task_cancelled_before_its_thread_begins_never_runs_its_function(qtbot):
    runner = TaskRunner()
    ran, stopped, done = [], [], []
    task = runner.start("sweep", lambda control: ran.append(True) or 42, done.append, done.append,
                        on_cancelled=stopped.append)
    task.cancel()                      # the next edit replaces it before the event loop begins it
    qtbot.waitUntil(lambda: not runner.current, timeout=5000)
    assert ran == [] and done == [] and stopped == [None]
    assert (task.stops, task.cancel_text) == ("sweep", "Cancel")    # the name, unless the work is named


def test_a_cancelled_write_says_whether_the_file_was_written():
    said = []
    write_cancelled(said.append, "the report", "r.html")(None)          # cancelled before it was written
    write_cancelled(said.append, "the report", "r.html")("r.html")      # the cancel came after
    assert said == ["Cancelled: the report was not written to r.html (a file already there is unchanged)",
                    "The cancel came after the report was written: r.html is complete"]


def test_a_file_being_written_is_written_even_when_cancelled_before_its_thread_begins(qtbot):
    from tklscore.gui.tasks import SAVE

    runner = TaskRunner()
    written = []
    task = runner.start("save", lambda control: written.append("file"), lambda _: None, lambda _: None, lane=SAVE)
    runner.cancel_all()                # the window closes: its recovery copy is still written
    assert runner.wait() and written == ["file"] and task.control.cancelled


def test_the_status_bar_s_cancel_stops_the_running_task_it_shows_and_no_other(qtbot):
    import threading

    from tklscore.gui.tasks import SAVE

    runner = TaskRunner()
    release, results = threading.Event(), []

    def search(control):
        release.wait(5)
        control.check()
        return "front"

    runner.start("Writing the recovery copy", lambda control: "saved", results.append, results.append, lane=SAVE)
    runner.start("Suggesting releases", search, results.append, results.append,
                 on_cancelled=lambda value: results.append(("cancelled", value)), cancel_text="Cancel the search")
    runner.start("Designing the release", lambda control: "figures", results.append, results.append,
                 cancel_text="Cancel the evaluation")   # waits behind the search on the main lane
    assert runner.shown.name == "Designing the release"   # nothing has begun: the latest started
    qtbot.waitUntil(lambda: runner.shown.name == "Suggesting releases" and runner.shown.begun, timeout=5000)
    assert runner.cancel_shown().cancel_text == "Cancel the search"
    release.set()
    qtbot.waitUntil(lambda: not runner.current, timeout=5000)
    assert sorted(map(str, results)) == ["('cancelled', None)", "figures", "saved"] and runner.shown is None
