"""Defects a new user met in the application (issue 9 §3), with pytest-qt, offscreen."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from PySide6.QtCore import QStandardPaths

from tklscore.core.examples import write_thesis_example
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.gui.scores.view import ScoresView
from tklscore.gui.workbench import Workbench


@pytest.fixture
def workbench(qtbot, tmp_path, monkeypatch):
    QStandardPaths.setTestModeEnabled(True)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    bench = Workbench()
    bench.autosave_timer.stop()
    yield bench
    bench.runner.cancel_all()
    bench.runner.wait()


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
