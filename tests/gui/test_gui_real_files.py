"""Adult as the UCI ships it in the application (pytest-qt, offscreen): the spaces around
values removed and said, kept with the checkbox (and in the project), the roles guessed and
marked as guesses, the "Group the selected values" rule matching what the table shows, and
opening Adult after the example asking what to do with the example's work."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from paths import DATA
from tklscore.core.project import Project
from tklscore.core.release.hierarchy import parse_rules
from tklscore.core.tables.roles import Role
from tklscore.gui.design.hierarchy_dialog import HierarchyDialog
from tklscore.gui.release.view import ReleaseView

ADULT = DATA / "adult" / "adult_uci.csv"
TIMEOUT = 30_000


@pytest.fixture
def view(qtbot, workbench):
    widget = ReleaseView(workbench)
    qtbot.addWidget(widget)
    widget.resize(1600, 1000)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def shown(view, row: int, column: str) -> str:
    model = view.frame_model
    return model.data(model.index(row, list(model.frame.columns).index(column)))


def test_adult_as_shipped_in_the_release_view(qtbot, view, workbench, tmp_path):
    assert view.open_source(str(ADULT))
    qtbot.waitUntil(lambda: workbench.table is not None, timeout=TIMEOUT)
    text = view.detected_label.text()
    assert "Leading spaces removed in 14 columns (workclass, fnlwgt" in text and "Keep spaces around values" in text
    assert shown(view, 0, "workclass") == "State-gov" and shown(view, 0, "sex") == "Male"
    # the roles a person would guess, marked as guesses with their reasons
    for column in ("age", "sex", "race"):
        assert view.role_combo(column).currentData() == Role.QUASI_IDENTIFIER, column
    assert view.role_combo("salary").currentData() == Role.SENSITIVE
    assert view.role_combo("fnlwgt").currentData() == Role.INSENSITIVE
    assert "Guessed: its name says sex or gender" in view.role_combo("sex").toolTip()
    assert view.roles_table.item(view.roles._roles_row("salary"), 4).text().startswith(
        "guess: its name says income or salary")
    # keeping the spaces: the same file read again (roles kept), the spaces shown and kept in the project
    old = workbench.table
    view.source.keep_spaces_check.setChecked(True)
    qtbot.waitUntil(lambda: workbench.table is not None and workbench.table is not old, timeout=TIMEOUT)
    assert workbench.project.source_options.get("keep_spaces") is True
    assert shown(view, 0, "workclass") == "␣State-gov"
    tip = view.frame_model.data(view.frame_model.index(0, 9), Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("' Male' (kept with 1 leading space") and '" Male"' in tip
    assert "Spaces around values are <b>kept</b>" in view.detected_label.text()
    path = tmp_path / "adult.tklproj"
    workbench.save_project(str(path))
    assert Project.load(path).source_options["keep_spaces"] is True


def test_the_group_button_writes_a_rule_that_matches(qtbot):
    import pandas as pd

    dialog = HierarchyDialog("sex", pd.Series([" Male", " Female", "x,y", " Male"], dtype=object))
    qtbot.addWidget(dialog)
    assert [dialog.value_list.item(i).text() for i in range(3)] == ["␣Male", "␣Female", "x,y"]
    for i in range(3):
        dialog.value_list.item(i).setSelected(True)
    dialog.group_name.setText("Any")
    dialog.group_selected()
    assert parse_rules(dialog.text.toPlainText()) == [("Any", (" Male", " Female", "x,y"))]
    hierarchy = dialog.build()
    assert hierarchy.labels([" Male", "x,y"])[1].tolist() == ["Any", "Any"]


@pytest.mark.parametrize("answer", ["new", "keep", None])
def test_opening_adult_after_the_example_asks(qtbot, view, workbench, monkeypatch, answer):
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: workbench.table is not None, timeout=TIMEOUT)
    before = workbench.project
    asked = []

    def ask(change):
        asked.append(change)
        return answer

    monkeypatch.setattr(view.source, "ask_source_change", ask)
    opened = view.open_source(str(ADULT))
    assert len(asked) == 1
    question = asked[0].question()
    assert "its 7 ids name records of the other table" in question or "ids name records" in question
    assert "The tkl-Data Model: it weighs" in question
    if answer is None:
        assert not opened and workbench.project is before and workbench.project.builtin == "thesis"
        return
    qtbot.waitUntil(lambda: workbench.table is not None and len(workbench.table) == 30162, timeout=TIMEOUT)
    project = workbench.project
    assert project.source_path == str(ADULT) and project.builtin is None
    assert project.releases == [] and project.model_turtle is None  # the example's ids never read against Adult
    assert not project.roles.qi
    assert view.role_combo("age").currentData() == Role.QUASI_IDENTIFIER  # guessed afresh
    assert workbench.is_dirty()
    # reading the same file again asks nothing
    asked.clear()
    view.source.reload_source()
    assert asked == []
