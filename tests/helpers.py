"""Helpers shared by the test modules."""

import pytest

from tklscore.cli import main


def run_cli(capsys, argv) -> tuple[int, str, str]:
    """``main(argv)``'s exit status, stdout and stderr; main must return, never exit."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def workbench(qtbot, tmp_path, monkeypatch):
    """A Workbench of the application with its own data folder and no autosave; its tasks
    end with the test. A fixture: import it into a test module to use it."""
    from tklscore.gui.workbench import Workbench

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    bench = Workbench()
    bench.autosave_timer.stop()
    yield bench
    bench.runner.cancel_all()
    bench.runner.wait()


def window_with_memory_share(tmp_path, share: float, name: str):
    """A shown MainWindow whose settings (its own file under ``tmp_path``) set the memory
    share: tiny, every source is read out of core; 1.0, loaded. No autosave."""
    from PySide6.QtCore import QSettings, QStandardPaths

    from tklscore.gui.main_window import MainWindow

    QStandardPaths.setTestModeEnabled(True)
    settings = QSettings(str(tmp_path / f"{name}.ini"), QSettings.Format.IniFormat)
    settings.setValue("engines/memory_share", share)
    window = MainWindow(settings=settings)
    window.workbench.autosave_timer.stop()
    window.resize(1400, 900)
    window.show()
    return window


def close_window(window) -> None:
    """End a window's tasks and close it without asking to save."""
    workbench = window.workbench
    workbench.runner.cancel_all()
    workbench.runner.wait()
    workbench.undo_stack.setClean()
    workbench._mark(False)
    window.close()
