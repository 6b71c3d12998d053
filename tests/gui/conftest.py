"""The GUI tests (pytest-qt): Qt draws offscreen, QStandardPaths writes to its test folders, and
the fixtures a GUI test starts from — a Workbench, the main window, each with the thesis example
loaded and scored — with the user's folders in the test's tmp_path and every task ended."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before Qt is imported

import pytest  # noqa: E402
from PySide6.QtCore import QCoreApplication, QSettings, QStandardPaths  # noqa: E402

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
