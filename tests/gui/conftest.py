"""The GUI tests (pytest-qt): Qt draws offscreen, QStandardPaths writes to its test folders, and
the fixtures a GUI test starts from — a Workbench, the main window, each with the thesis example
loaded and scored — with the user's folders in the test's tmp_path and every task ended.

No GUI test can hang on a modal dialog: a blocking one (``exec()`` or a static ``QMessageBox``/
``QFileDialog``/``QInputDialog`` function) that the test did not answer itself (monkeypatch) fails
the test at once, naming the dialog's title; and at teardown the windows the test made have their
tasks ended and their project marked clean before they close, so a test that fails halfway
through an edit is not left waiting on the "Unsaved changes" question."""

import gc
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before Qt is imported

import pytest  # noqa: E402
from PySide6.QtCore import QCoreApplication, QSettings, QStandardPaths  # noqa: E402
from PySide6.QtWidgets import (QApplication, QColorDialog, QDialog, QFileDialog, QFontDialog,  # noqa: E402
                               QInputDialog, QMenu, QMessageBox)

QStandardPaths.setTestModeEnabled(True)


def isolate_home(tmp_path, monkeypatch) -> None:
    """The user's home, data and configuration folders in tmp_path: recovery copies and
    settings never reach the real ones (in test mode Qt writes under $HOME/.qttest)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def end_tasks(workbench) -> None:
    """Cancel the workbench's tasks, wait for them, and leave the project clean (closing asks nothing)."""
    workbench.runner.cancel_all()
    workbench.runner.wait()
    QCoreApplication.processEvents()  # what the ended tasks posted, before the project is marked clean
    workbench.undo_stack.setClean()
    workbench._mark(False)


def wait_idle(qtbot, workbench, names=("Scenario 1", "Scenario 2"), timeout=20_000) -> None:
    qtbot.waitUntil(lambda: all(n in workbench.reports for n in names) and not workbench.runner.current,
                    timeout=timeout)


class UnexpectedModal(BaseException):
    """A blocking dialog the test did not answer. A BaseException, so the application's guards
    (which turn every Exception into a message) cannot swallow it."""


# Every way the application can block on a dialog; each (class, name) is refused unless the test
# answers it itself. The title is the static functions' second argument (parent, title, ...).
BLOCKING_STATICS = {
    QMessageBox: ("question", "information", "warning", "critical", "about", "aboutQt"),
    QFileDialog: ("getOpenFileName", "getOpenFileNames", "getSaveFileName", "getExistingDirectory",
                  "getOpenFileUrl", "getOpenFileUrls", "getSaveFileUrl", "getExistingDirectoryUrl"),
    QInputDialog: ("getText", "getMultiLineText", "getInt", "getDouble", "getItem"),
    QColorDialog: ("getColor",),
    QFontDialog: ("getFont",),
}


class ModalGuard:
    """Refuses blocking dialogs during a test and remembers each one refused."""

    Refused = UnexpectedModal

    def __init__(self):
        self.refused: list[str] = []

    def refuse(self, what: str, title: str, text: str = "") -> None:
        message = f"unexpected modal dialog {title!r} ({what})" + (f": {text}" if text else "") + (
            " — a GUI test answers its dialogs itself (monkeypatch) or must not open them")
        self.refused.append(message)
        raise UnexpectedModal(message)

    def static(self, cls, name):
        def refuse(*args, **kwargs):
            title = kwargs.get("title", kwargs.get("caption", args[1] if len(args) > 1 else ""))
            text = kwargs.get("text", kwargs.get("label", args[2] if len(args) > 2 and cls in
                                                  (QMessageBox, QInputDialog) else ""))
            self.refuse(f"{cls.__name__}.{name}", str(title), str(text))
        return staticmethod(refuse)

    def exec_(self, what):
        def refuse(dialog, *args, **kwargs):
            text = dialog.text() if isinstance(dialog, QMessageBox) else ""
            self.refuse(f"{type(dialog).__name__}.{what}", dialog.windowTitle(), text)
        return refuse

    def install(self, monkeypatch) -> None:
        for cls, names in BLOCKING_STATICS.items():
            for name in names:
                monkeypatch.setattr(cls, name, self.static(cls, name))
        for name in ("exec", "exec_"):
            monkeypatch.setattr(QDialog, name, self.exec_(name))
            monkeypatch.setattr(QMenu, name, self.exec_(name))


@pytest.fixture(autouse=True)
def modal_guard(qapp, monkeypatch, request):
    """Blocking dialogs fail the test with their title instead of hanging the run. A test that
    means to open one patches it after this fixture (its monkeypatch wins); one that provokes a
    refusal on purpose clears ``modal_guard.refused``."""
    guard = ModalGuard()
    guard.install(monkeypatch)
    yield guard
    call = request.node.stash.get(CALL_REPORT, None)
    if guard.refused and not (call is not None and call.failed):   # refused, and the failure swallowed
        pytest.fail("\n".join(guard.refused), pytrace=False)


CALL_REPORT = pytest.StashKey[pytest.TestReport]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.when == "call":
        item.stash[CALL_REPORT] = report
    return report


@pytest.fixture(autouse=True)
def collect_on_the_main_thread():
    """Python's cycle collector is off while a GUI test runs and collects at its teardown, on the
    main thread: run on a task's thread (whichever thread allocates when it triggers), it once
    deleted a dead window's QMenu there while the main thread was deleting another — a deadlock
    that held an xdist worker for good."""
    gc.disable()
    yield


GUI_TESTS_RUN = [0]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    """Before pytest-qt closes the test's widgets (its teardown hook runs inside this one), the
    main windows end their tasks and forget their unsaved changes, then those still shown are
    closed (asking nothing) and dialogs left open are rejected. (No window outlives its test:
    every one alive now is the test's or already closed.) After all of the test's teardown, its
    garbage is collected here on the main thread: the young generations always (what the test
    made, the collector being off during it), everything every 25 tests."""
    settle_windows()
    try:
        return (yield)
    finally:
        GUI_TESTS_RUN[0] += 1
        gc.collect() if GUI_TESTS_RUN[0] % 25 == 0 else gc.collect(1)
        gc.enable()


def settle_windows() -> None:
    import sys

    if "tklscore.gui.main_window" not in sys.modules:
        return
    from tklscore.gui.main_window import MainWindow

    widgets = QApplication.topLevelWidgets()
    for widget in widgets:
        if isinstance(widget, MainWindow):
            end_tasks(widget.workbench)
    for widget in widgets:
        if isinstance(widget, QDialog) and widget.isVisible():
            widget.reject()
        elif isinstance(widget, MainWindow) and widget.isVisible():
            widget.close()


@pytest.fixture
def workbench(qtbot, tmp_path, monkeypatch):
    """A Workbench with its own home and data folders and no autosave timer; its tasks end with the test."""
    from tklscore.gui.workbench import Workbench

    isolate_home(tmp_path, monkeypatch)
    bench = Workbench()
    bench.autosave_timer.stop()
    yield bench
    end_tasks(bench)


@pytest.fixture
def thesis_workbench(qtbot, workbench):
    """The workbench with the thesis example loaded and both scenarios scored, nothing running."""
    workbench.load_example("thesis")
    wait_idle(qtbot, workbench)
    return workbench


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    """The main window with its settings in tmp_path, its own home and data folders and no
    autosave timer; closed at the end without the unsaved-changes question."""
    from tklscore.gui.main_window import MainWindow

    isolate_home(tmp_path, monkeypatch)
    win = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    win.workbench.autosave_timer.stop()
    qtbot.addWidget(win, before_close_func=lambda w: end_tasks(w.workbench))
    return win


@pytest.fixture
def thesis_window(qtbot, window):
    """The main window shown at 1600 × 1000 with the thesis example loaded and scored."""
    window.resize(1600, 1000)
    window.show()
    window.workbench.load_example("thesis")
    wait_idle(qtbot, window.workbench)
    return window
