"""The Risk view (pytest-qt, offscreen): the thesis example's Scenario 1 measured in the
background, its tables and charts, editing D(r)'s parameters, switching releases, and the
riskiest records opening in the Scores view."""

from __future__ import annotations

import numpy as np
import pytest

from tklscore.core.examples import write_thesis_example
from tklscore.core.numbers import number
from tklscore.core.risk.measures import measure_release


@pytest.fixture
def window(qtbot, tmp_path, thesis_window):
    """The thesis example with the weights of Table 4.2 at the Risk view, 1400 × 900."""
    window = thesis_window
    window.resize(1400, 900)
    files = {p.name: p for p in write_thesis_example(tmp_path / "example")}
    window.workbench.use_weights_file(str(files["weights_table_4_2.csv"]))
    window.show_view("risk")
    view = window.views["risk"]
    qtbot.waitUntil(lambda: view.measures is not None and view.disclosure is not None
                    and not window.workbench.runner.current, timeout=20000)
    return window


def cell(table, row, column) -> str:
    return table.item(row, column).text()


def test_scenario_1_measured_in_the_background(window):
    view = window.views["risk"]
    m = view.measures
    assert m.k == 2 and m.rows == 4 and m.classes.count == 2
    assert cell(view.models_table, 0, 0) == "k-anonymity" and cell(view.models_table, 0, 1) == "2"
    assert "at least k−1 others" in cell(view.models_table, 0, 2)
    assert cell(view.attackers_table, 0, 0) == "50 %"            # prosecutor: highest 1/k, as the verdict says it
    assert cell(view.attackers_table, 1, 0) == "50 %"            # journalist against Table 3.1
    assert "k = 2" in view.verdict_label.text()
    # QI importance of every non-empty subset of Job, City, Gender
    assert view.importance_table.rowCount() == 7
    # the distribution chart: every record in the 33.4–50 % band
    shares = view.distribution_chart.shares["prosecutor"]
    assert shares.sum() == pytest.approx(1.0) and shares[-2] == pytest.approx(1.0)
    # the same numbers as the core computes for the release
    workbench = window.workbench
    expected = measure_release(workbench.table, workbench.project.roles, workbench.current_release().positions,
                               qi_importance=True)
    assert m.to_json_dict() == expected.to_json_dict()
    # riskiest records: the four records of Table 3.6 with their D(r)
    assert view.riskiest_table.rowCount() == 4
    assert {cell(view.riskiest_table, r, 0) for r in range(4)} == {"3", "4", "5", "6"}


def test_disclosure_parameters_are_editable(window, qtbot):
    view = window.views["risk"]
    before = view.disclosure.d.copy()
    assert [p.attribute for p in view.parameters()] == ["Job", "City", "Gender", "Disease", "Medication", "Age",
                                                        "Initial Diagnosis"]
    assert view.parameters_table.rowCount() == 7
    assert len(view.disclosure.known_sets) == 8  # the subsets of the three QIs (PK 0.5); SAs 0.005 < ε
    view.parameters_table.item(3, 1).setText("0.5")  # Disease: PK 0.005 → 0.5
    qtbot.waitUntil(lambda: len(view.disclosure.known_sets) == 16 and not window.workbench.runner.current,
                    timeout=20000)
    assert not np.allclose(view.disclosure.d, before)
    view.parameters_table.item(0, 2).setText("2")  # W(A) outside [0, 1]: refused, value kept
    assert "not a number in [0, 1]" in view.disclosure_label.text()
    assert view.parameters_table.item(0, 2).text() == "0"
    view.threshold_spin.setValue(0.5)
    qtbot.waitUntil(lambda: view.disclosure.threshold == 0.5 and not window.workbench.runner.current,
                    timeout=20000)
    assert view.disclosure.above_threshold == int((view.disclosure.d > 0.5).sum())
    # the D(r) chart is drawn when its tab is shown
    assert "disclosure" in view._stale_charts
    view.tabs.setCurrentIndex(1)
    assert not view._stale_charts
    assert view.disclosure_chart.threshold_line is not None
    assert view.disclosure_chart.counts.sum() + view.disclosure_chart.zero == 4


def test_the_report_shows_the_risk_view_s_parameters(window, qtbot):
    from tklscore.core.report import CHART_DISCLOSURE, CHART_RISK_DISTRIBUTION, build_report_html, report_charts
    from tklscore.gui.report import report_input

    view = window.views["risk"]
    view.parameters_table.item(3, 1).setText("0.5")  # Disease: PK 0.005 → 0.5
    qtbot.waitUntil(lambda: len(view.disclosure.known_sets) == 16 and not window.workbench.runner.current,
                    timeout=20000)
    data = report_input(window.workbench)
    assert data.risk is view.lens and data.measure_risk is None
    data.charts = report_charts(data)
    assert {CHART_DISCLOSURE, CHART_RISK_DISTRIBUTION} <= set(data.charts)
    text = build_report_html(data)
    assert "16 of 128 known sets are kept" in text
    plain = text.replace(" class='nowrap' nowrap", "")
    assert "<td align='left'>Disease</td><td align='right'>0.5</td><td align='right'>1</td>" in plain
    riskiest = view.lens.riskiest()
    assert f"<td align='right'>{number(riskiest['D(r)'].iloc[0])}</td>" in plain


def test_switching_the_release_recomputes(window, qtbot):
    view = window.views["risk"]
    window.workbench.set_current_release("Scenario 2")
    qtbot.waitUntil(lambda: view.measures is not None and view.measures.rows == 7
                    and not window.workbench.runner.current, timeout=20000)
    assert view.measures.k == 1  # Table 3.1 whole: record 0 is alone in its class
    assert view.riskiest_table.rowCount() == 7


def test_riskiest_record_opens_in_the_scores_view(window, qtbot):
    view = window.views["risk"]
    window.show_view("risk")
    view.riskiest_table.cellDoubleClicked.emit(0, 0)
    assert window.current_view() is window.views["scores"]
    scores = window.views["scores"]
    row = scores.records_view.currentIndex().row()
    shown = scores.records_model.frame_row(row)
    assert str(window.workbench.current_report().records["id"].iloc[shown]) == cell(view.riskiest_table, 0, 0)


def test_scores_view_compares_releases_with_k_l_t_and_average_risk(window, qtbot):
    scores = window.views["scores"]
    window.show_view("scores")  # its charts and comparison are drawn when it is on screen
    qtbot.waitUntil(lambda: len(window.workbench.measures) == 2 and scores.comparison.rowCount() == 2, timeout=20000)
    scores._draw_releases()
    rows = {r[0]: r for r in scores.comparison_rows()}
    assert rows["Scenario 1"][1:] == ["0.5686", "0.4082", "0.5055", "2", "1", "0.5", "50 %"]
    # Scenario 2 publishes Table 3.1 whole: normalised scores 1; record 0 alone in its class
    assert rows["Scenario 2"][1] == "1" and rows["Scenario 2"][4] == "1"
    assert rows["Scenario 2"][7] == "57.1 %"  # classes {0}, {1,2}, {3,4}, {5,6} of 7 records


def test_measures_are_kept_when_only_weights_or_x_change(window, qtbot):
    workbench = window.workbench
    before = workbench.measures["Scenario 1"]
    reports = workbench.reports
    workbench.set_x(2.0)  # rescores every release; the privacy models do not depend on x or weights
    qtbot.waitUntil(lambda: workbench.reports is not reports and not workbench.runner.current, timeout=20000)
    assert workbench.measures["Scenario 1"] is before
    roles = workbench.project.roles
    workbench.set_roles(type(roles)(qi=roles.qi[:2], sa=roles.sa, continuous=roles.continuous,
                                    identifier=roles.identifier))
    qtbot.waitUntil(lambda: "Scenario 1" in workbench.measures and not workbench.runner.current, timeout=20000)
    assert workbench.measures["Scenario 1"] is not before and workbench.measures["Scenario 1"].k == 4  # Job, City only


def test_the_risk_view_off_screen_waits_until_it_is_shown(window, qtbot):
    view = window.views["risk"]
    window.show_view("scores")
    measured = view.measures
    window.workbench.set_x(2.0)
    qtbot.waitUntil(lambda: not window.workbench.runner.current, timeout=20000)
    assert view.measures is measured               # nothing recomputed for a view nobody looks at
    window.show_view("risk")
    qtbot.waitUntil(lambda: view.measures is not measured and not window.workbench.runner.current, timeout=20000)


def test_the_status_bar_s_cancel_of_a_measurement_says_what_is_still_shown(window, qtbot):
    view, runner = window.views["risk"], window.workbench.runner
    shown = view.measures
    view.recompute()
    assert window.cancel_button.text() == "Cancel measuring the risk" and runner.shown.name.startswith("Measuring")
    window.cancel_button.click()                   # before its thread begins: it never runs
    qtbot.waitUntil(lambda: not runner.current, timeout=20000)
    assert view.measures is shown and view.verdict_label.text() == (
        "Measuring the risk of Scenario 1 again was cancelled: the figures below are its last complete "
        "measurement. Change a parameter to measure again.")
