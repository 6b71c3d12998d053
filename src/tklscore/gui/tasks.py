"""Long work off the UI thread: a task runs a function in a thread pool, reports progress,
can be cancelled, and delivers its result (or a specific error) back on the UI thread,
to its owner while the owner exists."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import traceback
from typing import Callable

import shiboken6
from PySide6.QtCore import QObject, QThreadPool, Signal

from tklscore.core.errors import Cancelled
from tklscore.gui.after_paint import after_pending_paints
from tklscore.gui.guard import error_text, is_bad_input

__all__ = ["Cancelled", "TaskControl", "TaskRunner"]   # Cancelled: the core's, raised inside a task's function


class TaskControl:
    """Handed to the task's function: ``progress(percent, text)`` and ``check()`` (raises
    :class:`Cancelled` once the task is cancelled)."""

    def __init__(self, task: "Task"):
        self._task = task
        self._cancelled = threading.Event()
        self._last_progress: tuple[int, str, float] | None = None   # passed on last: percent, text, when

    def progress(self, percent: int, text: str = "") -> None:
        """Passed on to the UI thread when it says something new: another text, or another
        percentage at most every PROGRESS_INTERVAL seconds (the status bar repaints on each)."""
        self.check()
        percent, now, last = int(percent), time.monotonic(), self._last_progress
        if last is not None and last[1] == text and (last[0] == percent or now - last[2] < PROGRESS_INTERVAL):
            return
        self._last_progress = (percent, text, now)
        self._task.signals.progress.emit(percent, text)

    def check(self) -> None:
        if self._cancelled.is_set():
            raise Cancelled()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()


class TaskSignals(QObject):
    progress = Signal(int, str)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    stopped = Signal(object)     # beside ``cancelled``: what the function returned anyway (None: it raised)
    begun = Signal()             # the function began on its lane's thread (it no longer waits its turn)


class Task:
    """One function run on a lane's thread (the pool runs :meth:`run`, a plain callable: a
    QRunnable that is not deleted after its run would be kept by the pool's wrapper for the
    pool's life, and with it the function and everything it reads)."""

    def __init__(self, name: str, function: Callable[[TaskControl], object]):
        self.name = name
        self.function: Callable[[TaskControl], object] | None = function
        self.signals = TaskSignals()
        self.control = TaskControl(self)
        self.owner: QObject | None = None
        self.owner_connection = None
        self.connections: list = []   # the runner's own, to its signals: broken once it settles
        self.always_runs = False      # a file being written (the save lane) is written even if cancelled
        self.cancel_text = "Cancel"   # the status bar's button while it shows this task ("Cancel the search")
        self.stops = name[:1].lower() + name[1:]   # the work in plain words: "Cancelled: the search"
        self.text = name              # what the status bar says of it: its last progress text, or its name
        self.percent = 0
        self.begun = False            # on the UI thread: its function has begun (it is running, not waiting)

    def cancel(self) -> None:
        self.control._cancelled.set()

    def run(self) -> None:
        run_in_background()
        try:
            # cancelled while it waited for its thread (a view's sweep that the next edit
            # replaced): it never begins, so it takes no CPU from the task that replaced it
            if not self.always_runs:
                self.control.check()
            self.signals.begun.emit()
            result = self.function(self.control)
        except Cancelled:
            self.signals.stopped.emit(None)
            self.signals.cancelled.emit()
            return
        except Exception as error:  # bad input: its message (gui/guard.py); a bug: said as one, kept alive
            if not is_bad_input(error):
                traceback.print_exc()
            self.signals.failed.emit(error_text(error, self.name))
            return
        if self.control.cancelled:
            self.signals.stopped.emit(result)
            self.signals.cancelled.emit()
        else:
            self.signals.finished.emit(result)


PROGRESS_INTERVAL = 0.1  # seconds between two progress updates of one task with the same text

MAIN = "main"   # the scores and everything that uses the workbench's state: one task at a time, in order
SIDE = "side"   # work that only reads that state and must never delay the main lane (the AHP sweep)
SAVE = "save"   # files written from a snapshot (the recovery copy): always completed, even on closing
LANES = (MAIN, SIDE, SAVE)
# How much nicer than the UI thread the tasks' threads run (Linux, where a thread has its own
# priority, and a thread started by a task inherits it): a task and core's two helper threads
# would otherwise take both cores of a small machine while the UI thread waits to paint.
# The process-wide settings beside it (the switch interval, core's helper threads) are the
# application's, set once at start-up: :func:`tklscore.gui.app.prepare_ui_process`.
BACKGROUND_NICE = 5


def run_in_background() -> None:
    """Give the calling thread the tasks' priority: BACKGROUND_NICE below the process's main
    (the UI) thread; nothing where threads have no priority of their own."""
    if not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):
        background = os.getpriority(os.PRIO_PROCESS, os.getpid()) + BACKGROUND_NICE
        if os.getpriority(os.PRIO_PROCESS, thread) < background:
            os.setpriority(os.PRIO_PROCESS, thread, background)


def write_cancelled(say: Callable[[str], object], what: str, path: str) -> Callable[[object], None]:
    """``on_cancelled`` of a task that writes the file ``path`` (``what``: "the report"): a file
    is written whole or not at all, so the cancel came before it was written — the file there
    before, if any, unchanged — or after (the function's value: not None): it is written."""
    def cancelled(written) -> None:
        if written is None:
            say(f"Cancelled: {what} was not written to {path} (a file already there is unchanged)")
        else:
            say(f"The cancel came after {what} was written: {path} is complete")
    return cancelled


class TaskRunner(QObject):
    """Runs tasks off the UI thread in lanes of one thread each: the main lane runs its
    tasks one at a time in order (scoring state is not shared between threads); the side
    lane runs beside it, so a view's secondary computation never makes the scores wait;
    the save lane writes files from snapshots, and :meth:`wait` always lets it finish.
    A task's thread begins after the window's pending repaint (:mod:`.after_paint`): the
    change that started it has asked the views to repaint, and they go first.
    Each lane's thread runs at the tasks' priority (:func:`run_in_background`); the runner
    changes nothing else in the process.

    A task started with an ``owner`` (a view or widget) delivers its result, failure and
    progress only while the owner exists; a deleted owner's task is cancelled and its
    callbacks dropped (a view closed while its task ran)."""

    busy = Signal(bool, str)
    progress = Signal(int, str)   # the shown task's (:attr:`shown`): the status bar follows one task
    shownChanged = Signal()       # another task is shown, or none

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.pools: dict[str, QThreadPool] = {}
        for lane in LANES:
            self.pools[lane] = QThreadPool(self)
            self.pools[lane].setMaxThreadCount(1)
        self.pool = self.pools[MAIN]
        self.current: list[Task] = []
        self._waiting: list[tuple[str, Task]] = []   # started, their threads not yet: the repaint goes first
        self._shown: Task | None = None

    def start(self, name: str, function: Callable[[TaskControl], object],
              on_done: Callable[[object], None], on_failed: Callable[[str], None], *,
              owner: QObject | None = None, lane: str = MAIN,
              on_cancelled: Callable[[object], None] | None = None, cancel_text: str = "Cancel",
              stops: str | None = None) -> Task:
        """Run ``function(control)`` in ``lane``; its value goes to ``on_done``, a specific
        error to ``on_failed``; once cancelled, ``on_cancelled`` (if given) gets what the
        function returned anyway (a search's partial result, a file written before the cancel
        came) or None. ``cancel_text``: the status bar's button while it shows the task, naming
        the work it stops; ``stops``: that work in plain words, which the status bar says once
        it is cancelled ("Cancelled: the search"; else the task's name, "loading the source table")."""
        if lane not in self.pools:
            raise ValueError(f"no task lane '{lane}' ({', '.join(LANES)})")
        task = Task(name, function)
        task.owner = owner
        task.always_runs = lane == SAVE
        task.cancel_text = cancel_text
        task.stops = stops or task.stops
        # these lambdas and the task's signals hold each other through Qt, where the garbage
        # collector cannot see: _settle breaks the connections, so that a finished task, its
        # function and what that read (a whole release's frames) are freed
        signals = task.signals
        task.connections = [
            signals.progress.connect(lambda percent, text: self._progress(task, percent, text)),
            signals.begun.connect(lambda: self._begun(task)),
            signals.finished.connect(lambda result: self._settle(task, on_done, result)),
            signals.failed.connect(lambda message: self._settle(task, on_failed, message)),
            signals.stopped.connect(lambda value: self._settle(task, on_cancelled, value))]
        if owner is not None:
            task.owner_connection = owner.destroyed.connect(task.cancel)
        self.current.append(task)
        self.busy.emit(True, name)
        self._show()
        # the change that started the task has asked the views to repaint: the task's thread
        # begins once they have, so that it does not compete with them for the interpreter lock
        if not self._waiting:
            after_pending_paints(self, self._start_waiting)
        self._waiting.append((lane, task))
        return task

    def _start_waiting(self) -> None:
        """The tasks started since the last repaint, on their lanes' threads, in order."""
        waiting, self._waiting = self._waiting, []
        for lane, task in waiting:
            self.pools[lane].start(task.run)

    @staticmethod
    def _owned(task: Task) -> bool:
        """Whether the task's owner (if it has one) still exists."""
        return task.owner is None or shiboken6.isValid(task.owner)

    def _progress(self, task: Task, percent: int, text: str) -> None:
        if shiboken6.isValid(self) and self._owned(task):
            task.percent, task.text = percent, text or task.name
            if task is self._shown:
                self.progress.emit(percent, task.text)

    def _begun(self, task: Task) -> None:
        task.begun = True
        if shiboken6.isValid(self):
            self._show()

    @property
    def shown(self) -> Task | None:
        """The task the status bar shows and its Cancel stops (None: none runs)."""
        return self._shown

    def _show(self) -> None:
        """Show the latest started of the tasks running, else of those waiting their turn (a
        design evaluated while a search runs waits behind it) — a file being written (the save
        lane, never cancelled) only when nothing else is under way."""
        ranked = sorted(enumerate(self.current), key=lambda it: (not it[1].always_runs, it[1].begun, it[0]))
        shown = ranked[-1][1] if ranked else None
        if shown is not self._shown:
            self._shown = shown
            self.shownChanged.emit()

    def cancel_shown(self) -> Task | None:
        """The status bar's Cancel: stop the task it shows, and only that one (the others go on)."""
        task = self._shown
        if task is not None and not task.always_runs:
            task.cancel()
        return task

    def _settle(self, task: Task, callback, value) -> None:
        connections, task.connections, task.function = task.connections, [], None
        for connection in connections:
            QObject.disconnect(connection)
        if not shiboken6.isValid(self):  # the runner's owner closed while the task's result was queued
            return
        if task in self.current:
            self.current.remove(task)
        if task.owner_connection is not None and self._owned(task):
            QObject.disconnect(task.owner_connection)
        task.owner_connection = None
        if not self.current:
            self.busy.emit(False, "")
        self._show()
        if callback is not None and self._owned(task):
            callback(value)

    def cancel_all(self) -> None:
        """Stop every task (the window closing, a new project): not the status bar's Cancel."""
        for task in list(self.current):
            task.cancel()

    def wait(self, msecs: int = 30000) -> bool:
        """Wait until every lane is idle (at most ``msecs`` each; a file being written is
        always written to the end)."""
        self._start_waiting()
        return all([pool.waitForDone(-1 if lane == SAVE else msecs) for lane, pool in self.pools.items()])
