"""Defects a new user met in the application (issue 9 §3), with pytest-qt, offscreen."""

import os

import pytest

from tklscore.core.examples import write_thesis_example
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.gui.scores.view import ScoresView


def test_the_scores_view_shows_published_rows_that_contradict_the_source(qtbot, workbench, tmp_path):
    view = ScoresView(workbench)
    qtbot.addWidget(view)
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: bool(workbench.reports), timeout=15000)
    files = {p.name: p for p in write_thesis_example(tmp_path / "example")}
    published = tmp_path / "published.csv"
    published.write_text(files["table_3_6.csv"].read_text().replace(
        "4,Lawyer,Edmonton,Male,Hypertension,Statin,70,Hypertension",
        "4,Lawyer,Edmonton,Male,Flu,Statin,70,Hypertension"))
    workbench.add_release(ReleaseDefinition("Contradicting", "file", path=str(published)))
    qtbot.waitUntil(lambda: "Contradicting" in workbench.reports and not workbench.runner.current, timeout=15000)
    report = workbench.current_report()
    assert report is workbench.reports["Contradicting"]
    expected = ("1 published record(s) hold sensitive values that contradict the source record with the same id, "
                "and are scored with the source's values: id '4' (row 3): Disease 'Flu' (source 'Hypertension')")
    assert expected in report.warnings
    qtbot.waitUntil(lambda: expected in view.info_label.text(), timeout=5000)


# ----------------------------------------------------------------- project files

BAD_VERSION = '{"format": "tklscore-project", "version": "1", "source": {"builtin": "thesis"}}'


def test_file_open_of_a_wrong_typed_project_shows_a_clear_message(qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QMessageBox

    from tklscore.gui.main_window import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    window = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    bad = tmp_path / "bad.tklproj"
    bad.write_text(BAD_VERSION)
    assert not window.open_project(str(bad))
    dialog = window.findChild(QMessageBox, "errorDialog")
    assert dialog is not None
    assert dialog.text() == (f"{bad}: 'version' must be a whole number, not text (\"1\") (the project file is "
                             f"damaged; fix the field or save the project again)")
    dialog.close()


@pytest.mark.parametrize("text, message", [
    (BAD_VERSION, "'version' must be a whole number, not text (\"1\")"),
    ('{"format": "tklscore-project", "version": true, "source": {}}', "'version' must be a whole number, not true/false"),
    ('{"format": "tklscore-project", "version": 1, "source": {}, "roles": {"qi": "Job"}}',
     "'roles.qi' must be a list of column names, not text (\"Job\")"),
    ('{"format": "tklscore-project", "version": 1, "source": {}, "x": "big"}', "'x' must be a number or \"inf\""),
    ('{"format": "tklscore-project", "version": 1, "source": [], "x": 1}', "'source' must be an object ({...}), not a list"),
    ('{"format": "tklscore-project", "version": 1, "source": {}, "releases": ["a"]}', "release 1 must be an object"),
    ('{"format": "tklscore-project", "version": 1, "source": {"options": {"delimiter": 5}, "path": "s.csv"}}',
     "'source.options.delimiter' must be text, not a number (5)"),
])
def test_wrong_typed_project_fields_are_named(tmp_path, text, message):
    from tklscore.core.errors import InputError
    from tklscore.core.project import Project

    path = tmp_path / "p.tklproj"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        Project.load(path)
    assert str(caught.value).startswith(f"{path}: {message}")


def run_gui(tmp_path, *argv):
    import subprocess
    import sys

    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    return subprocess.run([sys.executable, "-m", "tklscore", "gui", *map(str, argv)], env=env,
                          capture_output=True, text=True, timeout=120)


def test_gui_project_option_with_a_wrong_typed_project(tmp_path):
    bad = tmp_path / "bad.tklproj"
    bad.write_text(BAD_VERSION)
    done = run_gui(tmp_path, "--project", bad)
    assert done.returncode == 2
    assert done.stderr.startswith(f"tklscore: error: {bad}: 'version' must be a whole number, not text")
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_screenshot_into_a_missing_folder_is_an_error(tmp_path):
    out = tmp_path / "missing" / "shot.png"
    done = run_gui(tmp_path, "--example", "thesis", "--screenshot", out)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"tklscore: error: {out}: the folder {out.parent} does not exist "
                                   f"(create it first, or choose another output file)")
    assert not out.parent.exists()


def test_recovery_copies_of_projects_with_the_same_file_name_do_not_collide(qtbot, workbench, tmp_path):
    first, second = tmp_path / "a" / "release.tklproj", tmp_path / "b" / "release.tklproj"
    copies = []
    for path in (first, second):
        path.parent.mkdir()
        workbench.load_example("thesis")
        qtbot.waitUntil(lambda: bool(workbench.reports) and not workbench.runner.current, timeout=15000)
        workbench.save_project(str(path))
        workbench.set_x(2.0 if path is first else 3.0)
        copies.append(workbench.autosave())
        qtbot.waitUntil(lambda: not workbench.saving(), timeout=10000)  # written in the background
    assert copies[0] != copies[1] and all(c.exists() for c in copies)
    assert set(copies) <= set(workbench.recovery_copies())
    from tklscore.core.project import Project

    assert sorted(Project.load(c).x for c in copies) == [2.0, 3.0]
    assert all(c.name.startswith("recovery-release-") for c in copies)
    for copy in copies:
        copy.unlink()
    workbench.undo_stack.setClean()
    workbench._mark(False)


def test_reports_get_the_mode_a_plain_write_gives_and_keep_an_existing_mode(qtbot, workbench, tmp_path):
    import stat

    from tklscore.gui.report import export_report, report_input

    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: workbench.current_report() is not None and not workbench.runner.current, timeout=15000)
    previous = os.umask(0o022)
    try:
        for name in ("report.html", "records.csv"):
            path = export_report(tmp_path / name, report_input(workbench))
            assert stat.S_IMODE(path.stat().st_mode) == 0o644 and path.stat().st_size > 0
        (tmp_path / "records.csv").chmod(0o600)
        export_report(tmp_path / "records.csv", report_input(workbench))
        assert stat.S_IMODE((tmp_path / "records.csv").stat().st_mode) == 0o600
    finally:
        os.umask(previous)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
