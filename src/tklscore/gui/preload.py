"""The views' modules imported on a thread of their own once the window is idle, so that a
view shown for the first time is built, not also imported: a view's modules and what they
bring from core (the Design view's suggestion search and designer, the report package, the
Pseudonymization view's analysis) took 10–100 ms of the UI thread at its first show.

Importing a view's module makes no QObject (the modules define classes, functions and plain
values: colours, brushes, texts), so it may run off the UI thread. It begins once the window
has painted and no task runs (never beside the open's loading and scoring), at the tasks'
priority; a view shown while its module is being imported waits for that import (Python's
import lock) instead of making it. Once per process: later windows find the modules loaded.

The thread is a daemon and stops between modules once the application quits: closing the
window never waits for an import it no longer needs."""

from __future__ import annotations

import contextlib
import threading
import time
from importlib import import_module

from PySide6.QtCore import QCoreApplication

from tklscore.gui.after_paint import after_pending_paints
from tklscore.gui.tasks import run_in_background

_started = threading.Event()
_quitting = threading.Event()     # the application is quitting: no further module is imported
done = threading.Event()          # set once every module asked for is imported (or failed to)
took: dict[str, float] = {}       # wall and CPU seconds of the preload thread, once done


def view_modules(window) -> list[str]:
    """The modules of the window's views, in sidebar order."""
    return [entry.factory.partition(":")[0] for entry in window.entries]


def preload_views(window) -> None:
    """Import the window's views' modules on a background thread once the window has painted
    and its task runner is idle (once per process)."""
    if _started.is_set():
        return
    runner = window.workbench.runner
    listening = []

    def idle(busy: bool, _text: str = "") -> None:
        if not busy:   # a task's result may start the next task (the scores, then the measures): look again later
            after_pending_paints(window, begin)

    def begin() -> None:
        if _started.is_set():
            return
        if runner.current:   # the open's tasks first
            if not listening:
                listening.append(runner.busy.connect(idle))
            return
        _started.set()
        if listening:
            runner.busy.disconnect(idle)
        start(view_modules(window))

    after_pending_paints(window, begin)


def start(names: list[str]) -> threading.Thread:
    """The thread importing ``names``: a daemon, so that the interpreter's exit does not join it,
    importing no further module once the application quits."""
    application = QCoreApplication.instance()
    if application is not None:
        application.aboutToQuit.connect(_quitting.set)
    thread = threading.Thread(target=_import_all, args=(names,), name="tklscore-preload-views", daemon=True)
    thread.start()
    return thread


def _import_all(names: list[str]) -> None:
    run_in_background()
    wall, cpu = time.perf_counter(), time.thread_time()
    try:
        for name in names:
            if _quitting.is_set():
                break
            # a module that fails to import is imported again when its view is built, and says why there
            with contextlib.suppress(Exception):
                import_module(name)   # at once where it is loaded already
    finally:
        took.update(wall=time.perf_counter() - wall, cpu=time.thread_time() - cpu)
        done.set()
