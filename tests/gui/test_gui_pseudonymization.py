"""The Pseudonymization view on the §6.2-shaped example (real widgets, offscreen)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt
from rdflib import URIRef

from tklscore.core.numbers import number
from tklscore.core.pia.preferences import save_preferences
from tklscore.core.project import Project
from tklscore.core.pseudonymization.analysis import ThresholdChoice, analyse
from tklscore.core.pseudonymization.blocking import BlockingRule
from tklscore.core.pseudonymization.data_flow import DataFlowModel
from tklscore.core.files.resources import resource_path
from tklscore.core.tables.loading import Table
from tklscore.gui.pseudonymization.view import PseudonymizationView, example_tables

from helpers import cancelled_at_once


@pytest.fixture
def view(qtbot, workbench):
    view = PseudonymizationView(workbench)
    qtbot.addWidget(view)
    view.resize(1600, 1000)
    view.show()
    view.load_example()
    qtbot.waitUntil(lambda: view.analysis is not None and not workbench.runner.current, timeout=30_000)
    return view


def expected():
    original, pseudonymised = example_tables()
    return analyse(original, pseudonymised, "weight", ["sex", "age", "race", "height"],
                   ThresholdChoice(category_column="category", sensitive_flag_column="weight_sensitive"),
                   margin=5, id_column="id", model=DataFlowModel.load(resource_path("pseudonymization/health_survey.json")))


def test_the_example_shows_the_maximum_transition_its_lts_and_report(view, qtbot):
    core = expected()
    assert view.selected == ("sex", "age", "race", "height")
    assert view.analysis.maximum.violations == core.maximum.violations == 107
    assert "107 of 1,103 people (9.7 %)" in view.verdict.text()
    assert "the maximum risk transition" in view.verdict.text()
    assert len(view.graph.risk_items) == 15
    assert view.graph.risk_items[("sex", "age", "race", "height")].pen().style() == Qt.PenStyle.DotLine
    assert "N_v = 107" in view.graph.labels[("sex", "age", "race", "height")].text()
    assert "N_v = 69" in view.graph.labels[("sex", "age", "height")].text()
    table = view.report_table
    assert table.item(0, 1).text() == "107"
    report = core.reports[core.maximum.qi_set]
    assert table.item(1, 2).text() == str(report.removal.removed)
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount())}
    assert table.item(rows["Mean"], 1).text() == number(report.statistics["original"]["mean"])
    assert table.item(rows["Mean"], 3).text() == number(report.statistics["delta"]["mean"])
    assert table.item(rows["Exact minimum removal"], 2).text() == str(report.removal.minimum)
    # a new check cancelled: named in plain words, and the view says that the last check's results stay
    task = cancelled_at_once(qtbot, view.workbench.runner, view.run_analysis)
    assert (task.cancel_text, task.stops) == ("Cancel the check", "the pseudonymised data's check")
    assert view.verdict.text().startswith("<i class='stopped'>The check of the pseudonymised data was cancelled: the "
                                          "graph and the report below are the last check's.</i><br>")
    assert "107 of 1,103 people (9.7 %)" in view.verdict.text() and view.analyse_button.isEnabled()
    cancelled_at_once(qtbot, view.workbench.runner, view.run_analysis)    # said once, not once a cancel
    assert view.verdict.text().count("was cancelled") == 1 and "107 of 1,103 people" in view.verdict.text()

    view.graph.riskSelected.emit(("sex", "height"))
    assert view.selected == ("sex", "height")
    assert view.verdict.text().startswith("<b>Releasing sex, height</b>:")
    assert view.report_table.item(0, 1).text() == str(view.analysis.transition(("sex", "height")).violations)


def test_try_removing_fields_lists_every_subset_with_a_chart(view, qtbot):
    dialog = view.try_removing_fields()
    assert dialog.table.rowCount() == 15
    assert [dialog.table.item(0, c).text() for c in range(3)] == ["sex, age, race, height", "—", "107"]
    assert dialog.table.item(1, 1).text() == "age" and dialog.table.item(1, 2).text() == "3"   # Fig. 6's least
    row = next(r for r in range(15) if dialog.table.item(r, 1).text() == "sex")
    assert dialog.table.item(row, 2).text() == "96"
    dialog.table.selectRow(row)
    dialog.accept_row()
    qtbot.waitUntil(lambda: view.selected == ("age", "race", "height"))


def test_limits_refuse_a_transition_with_the_reason_and_are_saved_in_the_project(view, tmp_path):
    dialog = view.impose_limits()
    dialog.edit.setText("block whenever")
    assert not dialog.add_rule() and "not understood" in dialog.error.text()
    dialog.edit.setText("IF violations > 5% THEN block")
    assert dialog.add_rule()
    dialog.accept()
    assert view.workbench.project.settings["pseudonymization"]["rules"] == ["IF violations > 5% THEN block"]
    assert view.workbench.is_dirty()
    assert "Refused by a limit" in view.verdict.text() and "107 violations (10% of 1103) > 5%" in view.verdict.text()
    view.accept_with_violations()
    assert view.decision.startswith("✕ Not released: sex, age, race, height is refused")
    view.select(("sex", "height"))
    view.accept_with_violations()
    assert view.decision == "Accepted: sex, height released with 2 violation(s) remaining."
    path = tmp_path / "project.tklproj"
    view.workbench.save_project(str(path))
    assert Project.load(path).settings["pseudonymization"]["rules"] == ["IF violations > 5% THEN block"]


def test_accept_with_violations_removed_writes_the_trimmed_data(view, tmp_path):
    path = tmp_path / "trimmed.csv"
    view.accept_with_removal(str(path))
    trimmed = pd.read_csv(path, dtype=str, keep_default_na=False)
    removed = view.analysis.reports[view.selected].removal.removed_rows
    assert (trimmed["weight"].iloc[removed] == "").all()
    kept = np.setdiff1d(np.arange(len(trimmed)), removed)
    original, _ = example_tables()
    assert list(trimmed["weight"].iloc[kept]) == list(original.frame["weight"].iloc[kept])
    assert view.decision.startswith(f"Accepted with violations removed: {len(removed)} value(s) emptied")


def test_another_pseudonymisation_needs_the_designer(view, qtbot):
    assert not view.design_button.isEnabled()
    assert "outside the application window" in view.design_button.toolTip()
    view.set_design_available(True)
    with qtbot.waitSignal(view.designRequested):
        view.design_button.click()


def test_try_another_pseudonymisation_opens_the_design_view(qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    from tklscore.gui.main_window import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    window = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.show()
    window.show_view("pseudonymization")
    view = window.views["pseudonymization"]
    assert view.design_button.isEnabled() and "Design view" in view.design_button.toolTip()
    view.design_button.click()
    assert window.current_key() == "design"
    assert "another pseudonymisation" in view.decision


def test_patients_preferences_set_the_thresholds(view, qtbot, tmp_path):
    ex = "http://example.org/pia#"
    prefs = {(URIRef(ex + "p1"), URIRef(ex + "weight"), URIRef(ex + "Heavy")): 3,
             (URIRef(ex + "p2"), URIRef(ex + "weight"), URIRef(ex + "Light")): 0}
    path = save_preferences(tmp_path / "preferences.csv", prefs)
    from tklscore.core.pseudonymization.preferences import load_people_from_preferences

    view._set_people(load_people_from_preferences(path), view.preferences_edit, str(path))
    view.mode_combo.setCurrentIndex(4)
    assert view.preferences_edit.text() == "preferences.csv (2 people)"
    view.analysis = None
    view.run_analysis()
    qtbot.waitUntil(lambda: view.analysis is not None and not view.workbench.runner.current, timeout=30_000)
    thresholds = view.analysis.thresholds
    assert (thresholds[0], thresholds[1]) == (0.7, 1.0) and (thresholds[2:] == 0.9).all()
    assert any("1101 person(s)" in w for w in view.analysis.warnings)
    assert "1101 person(s)" in view.notes.text()
    assert "marked 3 \"Must Not Be Released\" counts as sensitive" in view.notes.text()
    assert "below 1 unconcerned, 1 to below 2 pragmatist, 2 or more fundamentalist" in view.notes.text()


def test_a_missing_id_column_is_reported_not_raised(view, qtbot):
    errors = []
    view.workbench.failed.connect(errors.append)
    view.people = None
    view.mode_combo.setCurrentIndex(3)
    view.run_analysis()
    assert errors == ["open the policy file first"]


def test_the_report_has_a_pseudonymisation_section_with_table_chart_removal_and_limits(view, tmp_path):
    import pypdf

    from tklscore.core.report import build_report_html
    from tklscore.core.report.sections.pseudonymization import CHART_KEY
    from tklscore.gui.report import export_report, report_input

    view.set_rules([BlockingRule.parse("IF violations > 5% THEN block")])
    view.accept_with_violations()
    data = report_input(view.workbench)
    assert data.pseudonymization.analysis is view.analysis
    text = build_report_html(data)
    core = view.analysis
    report = core.reports[core.maximum.qi_set]
    assert "Pseudonymisation risk: can the sensitive value be predicted?" in text
    assert "for <b>107 of 1,103 people (9.7 %)</b>" in text and "refused by a limit" in text
    assert ("<td align='left'>sex, age, race, height</td><td align='left'>—</td>"
            "<td align='right' class='nowrap' nowrap>107</td>") in text
    assert text.count("<tr><td align='left'>") >= 15 + 7
    assert f"removed <b>{report.removal.removed}</b> value(s)" in text
    assert f"The exact minimum is <b>{report.removal.minimum}</b> value(s)" in text
    assert "δ = trimmed − original" in text and "IF violations &gt; 5% THEN block" in text
    assert "Decision:</b> ✕ Not released" in text
    assert data.charts[CHART_KEY].startswith("<svg") and data.charts[CHART_KEY] in text   # inline: it stands alone
    path = export_report(tmp_path / "report.pdf", report_input(view.workbench))
    pages = " ".join(" ".join(page.extract_text().split()) for page in pypdf.PdfReader(str(path)).pages)
    assert "Pseudonymisation risk" in pages and "107 of 1,103 people" in pages and "Limits (blocking rules)" in pages


def test_the_report_table_says_where_the_minimum_was_not_searched(view, qtbot):
    values = [str(50 + i % 7) for i in range(60)] + ["90", "91"]
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(62)], "set": ["a"] * 60 + ["b"] * 2, "w": values})
    view.set_tables(Table.from_frame(frame, name="original"), Table.from_frame(frame.drop(columns="w"), name="release"))
    view._choose(view.sensitive_combo, "w")
    view._choose(view.id_combo, "id")
    for index in range(view.qi_list.count()):
        item = view.qi_list.item(index)
        item.setCheckState(Qt.CheckState.Checked if item.text() == "set" else Qt.CheckState.Unchecked)
    view.mode_combo.setCurrentIndex(0)
    view.uniform_spin.setValue(0.5)
    view.margin_spin.setValue(3)
    view.analysis = None
    view.run_analysis()
    qtbot.waitUntil(lambda: view.analysis is not None and not view.workbench.runner.current, timeout=30_000)
    table = view.report_table
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount())}
    row = rows["Exact minimum removal"]
    removal = view.analysis.reports[("set",)].removal
    bounds = removal.minimum_json()
    assert table.item(row, 2).text() == f"{bounds['at_least']}–{bounds['at_most']}"
    assert table.item(row, 3).text() == "1 of 2 sets searched"
    assert table.item(row, 2).toolTip().startswith("Look-alike set of rows 0, 1, 2, 3, 4, 5, 6, 7, … (60 rows): "
                                                   "not searched: a set of 60 values")
