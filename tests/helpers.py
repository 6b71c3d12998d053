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
