"""The Design view (issue 11 §6): a slider move re-evaluates in the background and the
panels show the core's numbers; suppression lists the rows; save as release reaches the
Scores view's comparison; export; suggested releases load on click; hierarchies persist."""

import time

import pandas as pd
import pytest
from PySide6.QtCore import Qt

from tklscore.core.numbers import number, percent, score
from tklscore.core.release.designer import ReleaseDesigner, element_weights
from tklscore.core.release.hierarchy import Hierarchy, load_arx_csv
from tklscore.gui.design.hierarchy_dialog import HierarchyDialog
from tklscore.gui.design.view import DesignView
from tklscore.gui.workbench import Workbench


@pytest.fixture
def view(qtbot, workbench):
    view = DesignView(workbench)
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.show()
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: view.result is not None and view.designer is not None, timeout=20000)
    return view


def core(view, design):
    wb = view.workbench
    designer = ReleaseDesigner(wb.table, wb.project.roles, view.hierarchies, elements=element_weights(wb.model))
    return designer.evaluate(design, wb.weights, wb.project.x)


def cell(table, row, column):
    return table.item(row, column).text()


def test_a_slider_move_rescores_in_the_background_and_the_panels_match_the_core(view, qtbot):
    assert set(view.sliders) == {"Job", "City", "Gender", "Age"}
    before = view.result
    view.sliders["City"].setValue(1)
    qtbot.waitUntil(lambda: view.result is not before, timeout=20000)
    design = view.design()
    assert design.level("City") == 1 and design.selection.name == "Scenario 1"
    expected = core(view, design)
    assert view.result.report.scores == expected.report.scores
    assert view.result.report.published_rows == 4
    assert cell(view.scores, 0, 1) == score(expected.report.scores.tkl)
    assert cell(view.scores, 0, 2) == number(expected.report.normalized_source.tkl)
    assert cell(view.scores, 4, 1) == score(expected.report.scores.l_severity)
    assert cell(view.utility_table, 0, 1) == number(expected.utility.precision)
    # Scenario 1 (records 3-6) with City → Alberta: the classes are Male {3,4} and Female {5,6}
    assert cell(view.privacy_table, 0, 1) == "2"
    assert "k = 2" in view.headline.text() and "of the 4 records of 'Scenario 1'" in view.headline.text()
    city = list(view.preview_model.frame.columns).index("City")
    assert city in view.preview_model.marked
    assert set(view.preview_model.frame["City"]) == {"Alberta"}
    assert float(cell(view.scores, 0, 1)) < before.report.scores.tkl + 1e-9


def test_suppression_lists_the_rows_and_save_as_release_reaches_the_comparison(view, qtbot):
    before = view.result
    view.workbench.set_current_release("Scenario 2")  # the whole of Table 3.1
    view.budget.setValue(100.0)
    view.suppress_below.setValue(2)
    qtbot.waitUntil(lambda: view.result is not before and len(view.result.transformed.suppressed) == 1,
                    timeout=20000)
    assert view.suppressed_list.item(0).text() == "record 0"  # Calgary, Male: a class of one
    assert len(view.preview_model.frame) == 6
    view.save_as_release("generalised")
    assert "generalised" in view.workbench.reports
    assert view.workbench.designed_reports["generalised"].published_rows == 6
    saved = view.workbench.project.settings["design"]["saved"]
    assert saved[-1]["name"] == "generalised" and saved[-1]["suppress_below"] == 2


def test_export_and_hierarchies_saved_in_the_project(view, qtbot, tmp_path):
    out = tmp_path / "release.parquet"
    view.export_table(str(out))
    qtbot.waitUntil(out.exists, timeout=20000)
    assert len(pd.read_parquet(out)) == 4  # Scenario 1
    view.export_hierarchy("City", str(tmp_path / "city.csv"))
    assert load_arx_csv(tmp_path / "city.csv", "City").labels(["Calgary"])[1][0] == "Alberta"
    view.set_hierarchy("Job", Hierarchy.masking("Job"))
    saved = view.workbench.project.settings["design"]["hierarchies"]
    assert {"column": "Job", "kind": "masking"} in saved


def test_suggested_releases_load_on_click(view, qtbot):
    view.k_min.setValue(3)
    view.run_suggest()
    qtbot.waitUntil(lambda: view.suggestions is not None, timeout=30000)
    assert view.suggestions.met and view.front_table.rowCount() == len(view.suggestions.front)
    target = view.suggestions.front[0]
    before = view.result
    view.load_candidate(0)
    qtbot.waitUntil(lambda: view.result is not before, timeout=20000)
    assert {c: view.sliders[c].value() for c in target.levels} == target.levels
    assert view.result.report.normalized_source.tkl == pytest.approx(target.tkl_normalized)


def test_hierarchy_dialog_previews_levels_and_names_the_fault(qtbot):
    values = pd.Series(["54", "50", "61", "61", "44", "46"])
    dialog = HierarchyDialog("age", values)
    qtbot.addWidget(dialog)
    dialog.text.setPlainText("10\n20")
    assert dialog.hierarchy.kind == "intervals"
    rows = {(dialog.preview.item(r, 0).text(), dialog.preview.item(r, 1).text(), dialog.preview.item(r, 2).text())
            for r in range(dialog.preview.rowCount())}
    assert ("1", "[50, 60)", "2") in rows and ("1", "[60, 70)", "2") in rows and ("2", "[40, 60)", "4") in rows
    dialog.text.setPlainText("10\n15")
    assert "level 2 splits the group '[40, 50)'" in dialog.message.text()
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()
    groups = HierarchyDialog("city", pd.Series(["Tallinn", "Paide", "Pärnu"]))
    qtbot.addWidget(groups)
    groups.text.setPlainText("Tallinn, Paide->Large City")
    assert "'Pärnu' have no group" in groups.message.text()
    groups.keep_others.setChecked(True)
    assert list(groups.hierarchy.labels(["Paide", "Pärnu"])[1]) == ["Large City", "Pärnu"]


def test_constraints_no_release_meets_are_said_and_the_closest_shown(view, qtbot):
    view.k_min.setValue(50)           # the thesis example has 7 records
    view.tkl_limited.setChecked(True)
    view.tkl_max.setValue(0.2)
    assert view.constraints().max_tkl == pytest.approx(0.2) and view.constraints().k == 50
    view.run_suggest()
    qtbot.waitUntil(lambda: view.suggestions is not None, timeout=30000)
    found = view.suggestions
    assert not found.met and found.front
    assert "No release meets these constraints" in view.suggest_message.text()
    assert view.front_table.rowCount() == len(found.front)
    headers = [view.front_table.horizontalHeaderItem(c).text() for c in range(view.front_table.columnCount())]
    assert headers[-1] == "levels"       # the long column last, after the verdict
    verdict = cell(view.front_table, 0, headers.index("meets the constraints?"))
    assert verdict.startswith("no: ") and f"k = {found.front[0].k} < 50" in verdict
    assert view.front_table.item(0, 0).toolTip() == "levels: " + ", ".join(
        f"{c}={v}" for c, v in found.front[0].levels.items())


def test_privacy_panel_shows_the_risk_lens_figures_of_the_release(view):
    m = view.result.measures
    table = view.privacy_table
    shown = {cell(table, r, c): cell(table, r, c + 1) for r in range(table.rowCount()) for c in (0, 2)
             if table.item(r, c) is not None}
    assert shown["k-anonymity"] == str(m["k"])
    assert shown["journalist risk (highest), against the source"] == percent(m['risk']['journalist']['highest'])
    assert shown["t-closeness"] == number(m['t'])
    assert view.evaluation.figures.suppressed_rows == 0   # an empty tab says so
    assert [view.suppressed_list.item(i).text() for i in range(view.suppressed_list.count())] == [
        "No record is suppressed: every published class is as large as the suppression asks, or the "
        "suppression is off."]


def test_designed_releases_are_rescored_when_the_project_is_reopened(view, qtbot, tmp_path):
    before = view.result
    view.sliders["City"].setValue(1)
    qtbot.waitUntil(lambda: view.result is not before, timeout=20000)
    view.save_as_release("City generalised")
    saved_scores = view.workbench.reports["City generalised"].scores
    assert view.workbench.measures["City generalised"].k == 2
    path = tmp_path / "designed.tklproj"
    view.workbench.save_project(str(path))
    reopened = Workbench()
    reopened.autosave_timer.stop()
    try:
        reopened.open_project(str(path))
        qtbot.waitUntil(lambda: "City generalised" in reopened.reports, timeout=30000)
        assert reopened.reports["City generalised"].scores == saved_scores
        assert list(reopened.reports["City generalised"].records["id"]) == ["3", "4", "5", "6"]
        assert reopened.designed_reports["City generalised"].scores == saved_scores
        assert reopened.measures["City generalised"].k == 2   # the Scores view's comparison has k, l, t, risk
        assert {"Scenario 1", "Scenario 2", "City generalised"} <= set(reopened.reports)
    finally:
        reopened.runner.cancel_all()
        reopened.runner.wait()


def test_the_designed_release_report_says_how_it_was_made(view, qtbot, tmp_path):
    before = view.result
    view.sliders["Age"].setValue(1)
    qtbot.waitUntil(lambda: view.result is not before, timeout=20000)
    out = tmp_path / "design.html"
    assert view.export_report(str(out))
    qtbot.waitUntil(out.exists, timeout=30000)
    text = out.read_text(encoding="utf-8")
    assert "How &#x27;designed release&#x27; was designed" in text or "How 'designed release' was designed" in text
    assert "<td align='left'>Age</td><td align='left'>sensitive</td><td align='left'>1 of 3</td>" in text
    assert f">{number(view.result.utility.precision)}<" in text.replace(" class='nowrap' nowrap", "")
    assert "journalist risk (highest), against the source" in text
    assert score(view.result.report.scores.tkl) in text   # the scores section is the designed release's
    assert "Risk of re-identification" not in text           # not the untransformed rows' risk lens


def test_microaggregation_and_noise_from_the_columns_table(view, qtbot):
    """A numeric non-QI column can be published as its class mean or with seeded noise;
    the figures are the core's for the same design, and noise on a text column is refused
    with the column named."""
    how, epsilon = view.perturb_boxes["Age"]       # Age is a (continuous) sensitive attribute of the example
    assert "Job" not in view.perturb_boxes         # a quasi-identifier is generalised, not perturbed
    before = view.result
    how.setCurrentIndex(how.findData("mean"))
    qtbot.waitUntil(lambda: view.result is not before, timeout=20000)
    design = view.design()
    assert dict(design.microaggregate) == {"Age": "mean"}
    expected = core(view, design)
    assert view.result.report.scores == expected.report.scores
    assert list(view.preview_model.frame["Age"]) == list(expected.transformed.published_table()["Age"])
    before = view.result
    how.setCurrentIndex(how.findData("noise"))
    epsilon.setValue(5.0)
    qtbot.waitUntil(lambda: view.result is not before and dict(view.result.transformed.design.noise) == {"Age": 5.0},
                    timeout=20000)
    assert view.workbench.project.settings["design"]["current"]["noise"] == {"Age": 5.0}
    failures = []
    view.workbench.failed.connect(failures.append)
    text_how, _ = view.perturb_boxes["Disease"]
    text_how.setCurrentIndex(text_how.findData("noise"))
    qtbot.waitUntil(lambda: "noise needs numbers" in view.headline.text(), timeout=20000)
    assert "Disease" in view.headline.text()


def test_value_groups_are_built_by_selecting_values_and_naming_the_group(qtbot):
    dialog = HierarchyDialog("city", pd.Series(["Tallinn", "Paide", "Pärnu", "Tallinn"]))
    qtbot.addWidget(dialog)
    dialog.kind.setCurrentIndex(dialog.kind.findData("groups"))
    for item in dialog.value_list.findItems("Paide", Qt.MatchFlag.MatchExactly) + \
            dialog.value_list.findItems("Pärnu", Qt.MatchFlag.MatchExactly):
        item.setSelected(True)
    dialog.group_name.setText("Small towns")
    dialog.group_button.click()
    dialog.group_selected(["Tallinn"], "Capital")
    assert dialog.text.toPlainText() == "Paide,Pärnu->Small towns\nTallinn->Capital"
    assert dialog.hierarchy is not None
    assert list(dialog.hierarchy.labels(["Paide", "Tallinn"])[1]) == ["Small towns", "Capital"]
    rows = {(dialog.preview.item(r, 1).text(), dialog.preview.item(r, 2).text()) for r in range(dialog.preview.rowCount())}
    assert ("Small towns", "2") in rows and ("Capital", "2") in rows


def test_a_newer_design_supersedes_the_one_being_evaluated(view, qtbot):
    view.sliders["City"].setValue(1)
    view.evaluate()
    first = view._task
    view.sliders["Age"].setValue(1)
    view.evaluate()
    assert first.control.cancelled and view._task is not first
    qtbot.waitUntil(lambda: view.result.transformed.design.level("Age") == 1, timeout=20000)
    assert view.result.transformed.design.level("City") == 1
    assert view.result.report.scores == core(view, view.design()).report.scores


def test_each_quasi_identifiers_precision_stands_beside_its_level(view, qtbot):
    before = view.result
    view.sliders["City"].setValue(2)
    qtbot.waitUntil(lambda: view.result is not before, timeout=20000)
    table = view.columns
    from tklscore.gui.design.columns_panel import LEVEL, PRECISION

    assert PRECISION == LEVEL + 1    # beside its level, in view without scrolling (the screenshots)
    shown = {cell(table, r, 0): cell(table, r, PRECISION) for r in range(table.rowCount())}
    assert shown["City"] == "0" and shown["Job"] == "1" and shown["Disease"] == ""
    assert cell(view.utility_table, 0, 1) == number(view.result.utility.precision)


def test_slider_ranges_come_from_the_designer_built_off_the_ui_thread(view, qtbot):
    assert {c: s.maximum() for c, s in view.sliders.items()} == {"Job": 2, "City": 2, "Gender": 2, "Age": 3}
    assert all(s.isEnabled() for s in view.sliders.values())
    view.set_hierarchy("Job", Hierarchy.masking("Job"))   # a new hierarchy: the range waits for the designer
    assert not view.sliders["Job"].isEnabled()
    qtbot.waitUntil(lambda: view.sliders["Job"].isEnabled(), timeout=20000)
    assert view.sliders["Job"].maximum() == view.designer.height("Job") > 2


def test_a_set_slider_value_evaluates_at_once_and_a_drag_waits_to_rest(view, qtbot):
    slider = view.sliders["City"]
    before = view._task
    slider.setValue(1)                       # a click or a key: no debounce
    assert not view._timer.isActive() and view._task is not before
    qtbot.waitUntil(lambda: view.result.transformed.design.level("City") == 1, timeout=20000)
    slider.setSliderDown(True)               # dragging: wait for the slider to rest
    started = view._task
    slider.setValue(0)
    assert view._timer.isActive() and view._task is started
    slider.setSliderDown(False)              # released: evaluated at once
    assert not view._timer.isActive()
    qtbot.waitUntil(lambda: view.result.transformed.design.level("City") == 0, timeout=20000)


def test_a_result_that_arrives_after_the_view_closed_is_dropped(qtbot):
    workbench = Workbench()
    workbench.autosave_timer.stop()
    view = DesignView(workbench)
    view.show()
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: view.result is not None and view.designer is not None, timeout=20000)
    view.sliders["City"].setValue(1)          # evaluated at once, in the background
    task = view._task
    view.close()
    view.deleteLater()
    qtbot.waitUntil(lambda: task not in workbench.runner.current, timeout=20000)  # settled: no error raised
    workbench.runner.wait()


def test_the_designed_release_report_reads_its_records_ids_off_the_ui_thread(view, qtbot, tmp_path):
    import threading

    before = view.result
    view.sliders["Age"].setValue(1)
    qtbot.waitUntil(lambda: view.result is not before, timeout=20000)
    scorer = view.workbench.scorer
    ids_of, on_ui_thread = scorer.ids_of, []

    def watched(*args, **kwargs):
        on_ui_thread.append(threading.current_thread() is threading.main_thread())
        return ids_of(*args, **kwargs)
    scorer.ids_of = watched
    out = tmp_path / "design.html"
    assert view.export_report(str(out))
    assert on_ui_thread == [] and not out.exists()
    qtbot.waitUntil(lambda: out.exists() and not view.workbench.runner.current, timeout=30000)
    assert on_ui_thread == [False]
    assert not view.export_report(str(tmp_path / "design.gif")) and not (tmp_path / "design.gif").exists()
    # an export cancelled before it was written: named in plain words, and said not written
    from helpers import cancelled_at_once

    said = []
    view.workbench.status.connect(said.append)
    other = tmp_path / "other.html"
    task = cancelled_at_once(qtbot, view.workbench.runner, lambda: view.export_report(str(other)))
    assert (task.cancel_text, task.stops) == ("Cancel the export", "the design report's export")
    assert said == [f"Cancelled: the report was not written to {other} (a file already there is unchanged)"]
    assert not other.exists()


def test_the_status_bar_s_cancel_stops_the_search_it_names_and_nothing_else(thesis_window, qtbot, monkeypatch):
    window, workbench = thesis_window, thesis_window.workbench
    window.show_view("design")
    view = window.views["design"]
    qtbot.waitUntil(lambda: view.result is not None and not workbench.runner.current, timeout=20000)
    search = view.session.suggest

    def held(source, weights, constraints, base, x, progress, cancelled):   # the search waits for the Cancel
        def stop() -> bool:
            for _ in range(1000):
                if cancelled():
                    break
                time.sleep(0.01)
            return cancelled()
        return search(source, weights, constraints, base, x, progress, stop)

    monkeypatch.setattr(view.session, "suggest", held)
    seen, waiting = [], []

    def press_cancel() -> None:
        shown = workbench.runner.shown
        if shown is not None and shown.name == "Suggesting releases" and shown.begun and not seen:
            seen.append((window.cancel_button.text(), window.busy_label.text(), window.cancel_button.isVisibleTo(window),
                         window.cancel_button.toolTip()))
            waiting.append(view.headline.text())
            window.cancel_button.click()

    workbench.runner.shownChanged.connect(press_cancel)
    view.run_suggest()
    view.sliders["City"].setValue(1)   # a new design, evaluated after the search on the main lane
    view._evaluate_now()
    qtbot.waitUntil(lambda: not workbench.runner.current and view.result.transformed.design.level("City") == 1,
                    timeout=20000)
    workbench.runner.shownChanged.disconnect(press_cancel)
    assert seen == [("Cancel the search", "Suggesting releases", True, "Stops the search only; other work goes on")]
    # the new design waited behind the search, and its headline said so (the last design's figures on show)
    assert waiting == ["4 of the 4 records of 'Scenario 1' published, 0 suppressed — tkl-Score 4.92534 (56.7 % of the "
                       "untransformed source), k = 2, precision 1 (the new design is waiting for the search to finish: "
                       "these are the last design's figures)"]
    assert view.suggestions is None and view.suggest_message.text() == (
        "<b>The search was cancelled</b> before any release was evaluated. Press Suggest to search again.")
    assert "cancelled" not in view.headline.text() and "k = 2" in view.headline.text()   # the evaluation ran
    assert window.statusBar().currentMessage() == "Cancelled: the search"
