"""The GUI tests' guard against modal dialogs (tests/gui/conftest.py): a blocking dialog fails
the test at once with its title, and a window left with unsaved changes closes at teardown
without asking — checked in-process and, for the teardown, in a pytest run of its own."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox

from tklscore.gui.guard import run_guarded


def test_a_message_box_fails_with_its_title_and_text(modal_guard):
    with pytest.raises(modal_guard.Refused, match="'Unsaved changes'.*QMessageBox.question.*Save them first"):
        QMessageBox.question(None, "Unsaved changes", "Save them first?")
    assert len(modal_guard.refused) == 1
    modal_guard.refused.clear()


@pytest.mark.parametrize("open_dialog, title", [
    (lambda: QFileDialog.getOpenFileName(None, "Open project", "", "*.tklproj"), "Open project"),
    (lambda: QInputDialog.getText(None, "Name the release", "Name:"), "Name the release"),
    (lambda: QMessageBox(QMessageBox.Icon.Warning, "Files outside", "Read them?").exec(), "Files outside"),
])
def test_every_blocking_dialog_is_refused(modal_guard, open_dialog, title):
    with pytest.raises(modal_guard.Refused, match=title):
        open_dialog()
    modal_guard.refused.clear()


def test_exec_of_a_dialog_is_refused(qtbot, modal_guard):
    dialog = QDialog()
    qtbot.addWidget(dialog)
    dialog.setWindowTitle("Value groups")
    with pytest.raises(modal_guard.Refused, match="'Value groups' \\(QDialog.exec\\)"):
        dialog.exec()
    modal_guard.refused.clear()


def test_the_applications_own_guard_cannot_swallow_it(modal_guard):
    """run_guarded turns every Exception into a message; the refusal goes through it."""
    said = []
    with pytest.raises(modal_guard.Refused, match="About"):
        run_guarded(said.append, QMessageBox.about, None, "About", "text")
    assert said == []
    modal_guard.refused.clear()


def test_a_test_answers_its_own_dialogs(qtbot, window, monkeypatch):
    asked = []
    monkeypatch.setattr(QMessageBox, "question",
                        staticmethod(lambda *a: asked.append(a[1]) or QMessageBox.StandardButton.Discard))
    window.workbench._mark(True)
    window.new_project()
    assert asked == ["Unsaved changes"] and not window.workbench.is_dirty()


SCENARIOS = '''
import pytest
from PySide6.QtCore import QSettings
from tklscore.gui.main_window import MainWindow


def dirty_window(qtbot, tmp_path, register):
    window = MainWindow(settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    window.workbench.autosave_timer.stop()
    if register:
        qtbot.addWidget(window)          # pytest-qt closes it at teardown: closeEvent asks
    window.show()
    window.workbench._mark(True)
    return window


def test_fails_with_a_registered_dirty_window(qtbot, tmp_path):
    dirty_window(qtbot, tmp_path, register=True)
    assert False, "failed halfway through an edit"


def test_fails_with_a_dirty_window_it_never_registered(qtbot, tmp_path):
    dirty_window(qtbot, tmp_path, register=False)
    assert False, "failed halfway through another edit"


def test_passes_and_leaves_a_dirty_window(qtbot, tmp_path):
    dirty_window(qtbot, tmp_path, register=True)


def test_closing_asks_the_unsaved_changes_question(qtbot, tmp_path):
    dirty_window(qtbot, tmp_path, register=True).close()


def test_a_new_project_asks_it(qtbot, tmp_path):
    dirty_window(qtbot, tmp_path, register=False).new_project()
'''


def test_a_run_with_dirty_windows_and_unexpected_dialogs_ends_and_names_them(tmp_path):
    """Without the guard this run waits forever on "Unsaved changes" (the first test's teardown
    closes its window, which asks); with it every test ends:
    the two that fail by assertion fail only by it, the one that passes passes, and the two
    that open the question fail with its title."""
    (tmp_path / "conftest.py").write_text(Path(__file__).with_name("conftest.py").read_text())
    (tmp_path / "test_scenarios.py").write_text(textwrap.dedent(SCENARIOS))
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
                          "-rA", "-vv", "-o", "addopts=", "test_scenarios.py"], cwd=tmp_path, text=True,
                         capture_output=True, timeout=180,   # a hang fails here (TimeoutExpired)
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)})
    out = run.stdout + run.stderr
    assert "4 failed, 1 passed in" in out, out
    assert " error" not in out.split("short test summary")[-1], out
    summary = {line.split(" - ")[0].split("::")[-1]: line for line in out.splitlines()
               if line.startswith(("FAILED", "PASSED"))}
    assert "failed halfway through an edit" in summary["test_fails_with_a_registered_dirty_window"]
    assert "another edit" in summary["test_fails_with_a_dirty_window_it_never_registered"]
    assert summary["test_passes_and_leaves_a_dirty_window"].startswith("PASSED")
    for name in ("test_closing_asks_the_unsaved_changes_question", "test_a_new_project_asks_it"):
        assert "'Unsaved changes' (QMessageBox.question)" in summary[name], out
