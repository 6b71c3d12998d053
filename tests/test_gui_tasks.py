"""The task runner: a result that arrives after the runner's owner has closed is dropped quietly."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import shiboken6
from PySide6.QtCore import QCoreApplication

from tklscore.gui.tasks import TaskRunner


def test_a_result_queued_for_a_deleted_runner_is_dropped(qtbot):
    runner = TaskRunner()
    done = []
    runner.start("work", lambda control: 42, done.append, done.append)
    assert runner.pool.waitForDone(5000)      # the result is now queued for the UI thread
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
