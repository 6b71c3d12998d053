"""``tklscore gui``: start the application, optionally on the thesis example or a project,
optionally render one view to a PNG and exit (for tests and documentation)."""

from __future__ import annotations

import contextlib
import gc
import sys
import threading

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication
from pyqtgraph.util.garbage_collector import GarbageCollector

from tklscore.core.errors import InputError
from tklscore.core.files.atomic import check_output
from tklscore.core.project import OutsideFolderError
from tklscore.gui.guard import report_uncaught
from tklscore.gui.tasks import run_in_background

# How long a task's Python code may keep the interpreter lock from the UI thread (Python's
# default is 5 ms): painting a view calls Python once per cell and role, and each call waits
# for the lock while a task runs, so at 5 ms a repaint during a task took tens of times longer.
UI_SWITCH_INTERVAL = 0.001
COLLECT_INTERVAL_S = 0.5   # how often Python's cycle collector runs, on the UI thread (see run)
_prepared = False


def prepare_ui_process() -> None:
    """What the application sets for its whole process, once, at start-up, when its window
    is built: the interpreter lock handed to the UI thread within UI_SWITCH_INTERVAL; the
    objects of the start-up (modules, classes, the window) frozen out of the cycle
    collector's reach, so that a full collection visits only what came later (after opening
    a 1M-row project it visited ~150,000 objects for ~100 ms of the UI thread's CPU, 0.2 ms
    frozen); and core's helper threads
    (:data:`~tklscore.core.scoring.distinguishing_factors.BESIDE`) at the tasks' priority
    (:data:`~tklscore.gui.tasks.BACKGROUND_NICE` below the UI thread; Linux), each lowering
    itself. The task runner lowers only its own threads. Memory is taken in small pages,
    Arrow's and numpy's allocators too (:func:`~tklscore.core.memory.set_memory_policy`; Linux):
    in huge pages the first open of a large project paid three times the system time."""
    global _prepared
    if _prepared:
        return
    _prepared = True
    sys.setswitchinterval(min(sys.getswitchinterval(), UI_SWITCH_INTERVAL))
    gc.collect()   # no garbage of the start-up is kept for ever
    gc.freeze()
    if not sys.platform.startswith("linux"):
        return
    from tklscore.core.memory import set_memory_policy
    from tklscore.core.scoring.distinguishing_factors import BESIDE, BESIDE_THREADS

    set_memory_policy(application=True)

    every = threading.Barrier(BESIDE_THREADS)   # one job per thread: each waits until all have one

    def lower() -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            every.wait(timeout=1)
        run_in_background()

    for _ in range(BESIDE_THREADS):
        BESIDE.submit(lower)


def run(example: str | None = None, project: str | None = None, screenshot: str | None = None,
        view: str | None = None, size: tuple[int, int] = (1600, 1000), patient: bool = False) -> int:
    if screenshot:
        check_output(screenshot)  # a missing folder or a read-only file is said before any work
    app = QApplication.instance()
    if app is None:
        QApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(sys.argv[:1])
    app.setApplicationName("tkl-Score Workbench")
    app.setOrganizationName("tklscore")
    # Python's cycle collector runs wherever an allocation triggers it: on a task's thread, or
    # inside a Qt call that holds one of Qt's locks (a disconnect asking PySide for an override),
    # where collecting a dead QObject takes that lock again and the process hangs for good. So
    # it runs only at safe points: on this thread's timer while the window lives, then once
    # after the window is gone (_run_window returns), and only then may allocations trigger it.
    collecting = gc.isenabled()
    collector = GarbageCollector(interval=COLLECT_INTERVAL_S)
    try:
        return _run_window(app, example, project, screenshot, view, size, patient)
    finally:
        collector.timer.stop()
        collector = None   # its timer destroyed, like the window, while the collector is off
        gc.collect()
        if collecting:
            gc.enable()


def _run_window(app: QApplication, example: str | None, project: str | None, screenshot: str | None,
                view: str | None, size: tuple[int, int], patient: bool) -> int:
    from tklscore.gui.main_window import MainWindow

    window = MainWindow(patient_mode=patient)
    prepare_ui_process()
    if not (example or project or screenshot or patient):
        QTimer.singleShot(0, lambda: window.offer_recovery(at_start=True))
    if example:
        window.workbench.load_example(example)
    elif project:
        try:
            window.workbench.open_project(project)
        except OutsideFolderError as outside:  # files outside the project's folder: asked, never with nobody to answer
            if screenshot:
                raise
            if not window.allow_outside(outside):
                raise InputError("was not opened: it names files outside its folder that you did not allow",
                                 file=project) from None
            window.workbench.open_project(project, [p for _, p in outside.paths])
    window.start(view, opened=bool(example or project))
    window.resize(*size)
    window.show()
    if not screenshot:   # the other views' modules, imported off the UI thread once the window is idle
        from tklscore.gui.preload import preload_views

        preload_views(window)
    if screenshot:
        def shoot() -> None:
            if window.workbench.runner.current:
                QTimer.singleShot(100, shoot)
                return
            app.processEvents()
            try:
                saved = _save_image(window.grab(), screenshot)
                if not saved:
                    print(f"tklscore: error: {screenshot}: the screenshot could not be written "
                          f"(use a .png, .jpg or .bmp file name)", file=sys.stderr)
            except InputError as error:  # a full disk, a folder gone meanwhile
                saved = False
                print(f"tklscore: error: {error}", file=sys.stderr)
            window.workbench.undo_stack.setClean()
            window.workbench._mark(False)
            window.close()
            app.exit(0 if saved else 2)

        QTimer.singleShot(300, shoot)
    previous, sys.excepthook = sys.excepthook, report_uncaught(window.show_error)  # a dialog, never a traceback
    try:
        return app.exec()
    finally:
        sys.excepthook = previous


def _save_image(pixmap, path: str) -> bool:
    """Save ``pixmap`` as ``path`` (its format from the extension) through
    :func:`~tklscore.core.files.atomic.atomic_path`; False for a format Qt cannot write."""
    from pathlib import Path

    from PySide6.QtGui import QImageWriter

    from tklscore.core.files.atomic import atomic_path

    kind = Path(path).suffix.lower().lstrip(".")
    if kind.encode() not in [bytes(f.data()) for f in QImageWriter.supportedImageFormats()]:
        return False
    with atomic_path(path) as temporary:
        if not pixmap.save(str(temporary), kind):
            raise InputError("the screenshot could not be written", file=path)
    return True


def main(args) -> int:
    try:
        return run(args.example, args.project, args.screenshot, args.view, patient=args.patient)
    except InputError as error:
        print(f"tklscore: error: {error}", file=sys.stderr)
        return 2
