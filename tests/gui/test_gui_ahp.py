"""The AHP editor on the thesis example (real widgets, offscreen)."""

import math

import numpy as np
import pyqtgraph as pg
import pytest

from tklscore.core.model.ahp import AHPResult, ahp
from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.release.selection import resolve_release
from tklscore.core.scoring.scores import Scorer
from tklscore.gui.ahp.view import AMBER, COMBINED, GREEN, RED, AhpView
from tklscore.gui.ahp.saaty_slider import SaatySlider, describe, position_of, value_of
from tklscore.gui.ahp.result_panel import PRIORITY_COLUMN
from tklscore.gui.workbench import Workbench

TABLE_4_1 = (0.5396, 0.2970, 0.1634)


def entries(weights):
    return sorted((e.attribute, str(e.value), round(e.weight, 12)) for e in weights.entries)


def expected_for(edit):
    """Weights, the MedicalHealth AHP result and Scenario 1's tkl-Score of the thesis model
    after ``edit(model, iri_of)``, computed with the core alone."""
    model = thesis_model()
    edit(model, lambda label: model.find(label).iri)
    mh = model.find("MedicalHealth").iri
    result = ahp(model.judgement_matrix(mh))
    weights = model.to_weights()
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)
    from tklscore.core.release.selection import ReleaseDefinition

    release = resolve_release(ReleaseDefinition("Scenario 1", "ids", ids=tuple(example.published_ids)),
                              example.source, example.roles)
    return weights, result, scorer.score(release, weights, 1.0).scores.tkl


@pytest.fixture
def view(qtbot, workbench):
    view = AhpView(workbench)
    qtbot.addWidget(view)
    view.resize(1200, 800)
    view.show()
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: workbench.current_report() is not None, timeout=10_000)
    index = next(k for k in range(view.group_combo.count()) if view.group_combo.itemText(k).startswith("Under MedicalHealth"))
    view.group_combo.setCurrentIndex(index)
    return view


def shown_priorities(view):
    return [float(view.priority_table.item(k, PRIORITY_COLUMN).text()) for k in range(view.priority_table.rowCount())]


def wait_rescored(qtbot, workbench, old_tkl):
    qtbot.waitUntil(lambda: workbench.current_report() is not None
                    and workbench.current_report().scores.tkl != old_tkl, timeout=10_000)


# ---------------------------------------------------------------------- the slider alone

def test_slider_positions_and_words(qtbot):
    assert [value_of(p) for p in (-8, -1, 0, 1, 8)] == [1 / 9, 1 / 2, 1, 2, 9]
    assert all(position_of(value_of(p)) == p for p in range(-8, 9))
    assert describe("Health", "Prescription", 3) == "Health is moderately more important than Prescription (3)"
    assert describe("Health", "Prescription", 1 / 3) == \
        "Prescription is moderately more important than Health (1/3)"
    assert describe("A", "B", 1) == "A and B are equally important (1)"
    slider = SaatySlider("A", "B", 2)
    qtbot.addWidget(slider)
    commits = []
    slider.committed.connect(commits.append)
    for position in (2, 3, 4):   # rapid steps: one commit after the idle time
        slider.slider.setValue(position)
    assert commits == [] and slider.pending()
    qtbot.waitUntil(lambda: commits == [5.0], timeout=2000)
    slider.clear_button.click()
    assert commits == [5.0, None] and "not judged" in slider.reading.text()


# ---------------------------------------------------------------------- the editor

def test_thesis_group_shown(view):
    assert view.group_combo.currentText() == "Under MedicalHealth: Health, HealthRecord, Prescription"
    assert shown_priorities(view) == list(TABLE_4_1)
    assert view.cr_label.text() == "0.0088"
    assert view.lambda_label.text() == "3.0092"
    assert view.light.color == GREEN
    assert view.matrix_table.item(0, 2).text() == "3" and view.matrix_table.item(2, 0).text() == "1/3"
    assert view.sliders[(0, 2)].reading.text() == "Health is moderately more important than Prescription (3)"
    assert "tkl-Score" in view.score_label.text()
    assert f"{view.workbench.current_report().scores.tkl:.5f}" in view.score_label.text()
    # built before the example was opened, the view names where the model came from, not "the project"
    assert "— the thesis example's model." in view.model_label.text(), view.model_label.text()


def test_slider_edit_rescoring_suggestion_and_undo(view, qtbot):
    workbench = view.workbench
    old_tkl = workbench.current_report().scores.tkl
    view.sliders[(0, 1)].slider.setValue(8)        # Health extremely more important than HealthRecord
    qtbot.waitUntil(lambda: workbench.undo_stack.count() == 1, timeout=2000)
    assert workbench.undo_stack.text(0) == "Judgement Health vs HealthRecord"

    weights, result, tkl = expected_for(
        lambda m, iri: m.set_judgement(iri("MedicalHealth"), iri("Health"), iri("HealthRecord"), 9))
    assert result.cr > 0.10
    assert view.cr_label.text() == f"{result.cr:.4f}"
    assert view.result.cr == pytest.approx(result.cr, abs=1e-12)
    assert shown_priorities(view) == [round(float(p), 4) for p in result.priorities]
    assert view.light.color in (AMBER, RED)
    assert view.light.color == (AMBER if result.cr <= 0.15 else RED)
    assert entries(workbench.weights) == entries(weights)
    wait_rescored(qtbot, workbench, old_tkl)
    assert workbench.current_report().scores.tkl == pytest.approx(tkl, rel=1e-12)
    assert f"{tkl:.5f}" in view.score_label.text()

    # the most inconsistent judgement, and its suggested value in one click
    worst = result.most_inconsistent
    assert worst is not None and view.suggest_button.isEnabled()
    assert "Most inconsistent judgement" in view.inconsistent_label.text()
    view.suggest_button.click()
    assert workbench.undo_stack.count() == 2
    labels = ["Health", "HealthRecord", "Prescription"]
    _, suggested, _ = expected_for(lambda m, iri: (
        m.set_judgement(iri("MedicalHealth"), iri("Health"), iri("HealthRecord"), 9),
        m.set_judgement(iri("MedicalHealth"), iri(labels[worst.row]), iri(labels[worst.column]), worst.suggested)))
    mh = workbench.model.find("MedicalHealth").iri
    assert workbench.model.judgement_matrix(mh)[worst.row, worst.column] == worst.suggested
    assert view.result.cr == pytest.approx(suggested.cr, abs=1e-12)
    assert view.cr_label.text() == f"{suggested.cr:.4f}"

    # undo twice: back to Table 4.1
    workbench.undo_stack.undo()
    workbench.undo_stack.undo()
    assert view.cr_label.text() == "0.0088"
    assert shown_priorities(view) == list(TABLE_4_1)
    assert view.light.color == GREEN
    assert view.sliders[(0, 1)].value() == 2
    qtbot.waitUntil(lambda: workbench.current_report() is not None
                    and workbench.current_report().scores.tkl == pytest.approx(old_tkl, rel=1e-12),
                    timeout=10_000)


def test_clear_shows_harker_completion(view, qtbot):
    workbench = view.workbench
    view.sliders[(1, 2)].clear_button.click()        # HealthRecord vs Prescription: not judged
    assert workbench.undo_stack.text(0) == "Clear judgement HealthRecord vs Prescription"
    _, result, _ = expected_for(
        lambda m, iri: m.set_judgement(iri("MedicalHealth"), iri("HealthRecord"), iri("Prescription"), None))
    completed = result.completed_matrix[1, 2]
    assert not math.isclose(completed, 2.0)
    item = view.matrix_table.item(1, 2)
    assert item.font().italic() and item.text() == f"{completed:.3g}"
    assert not view.matrix_table.item(0, 1).font().italic()
    assert "not judged" in view.sliders[(1, 2)].reading.text()
    assert f"completed as {completed:.3g}" in view.sliders[(1, 2)].reading.text()
    assert shown_priorities(view) == [round(float(p), 4) for p in result.priorities]
    workbench.undo_stack.undo()
    assert view.sliders[(1, 2)].value() == 2 and not view.matrix_table.item(1, 2).font().italic()


def test_second_expert_and_combined(view, qtbot):
    workbench = view.workbench
    view.add_expert("expert 2")
    assert view.expert_combo.currentText() == "expert 2"
    assert view.result is None                       # nothing judged yet
    for pair, position in (((0, 1), 2), ((0, 2), 4), ((1, 2), 0)):   # 3, 5, 1
        view.sliders[pair].slider.setValue(position)
        view.sliders[pair].commit()
    assert workbench.undo_stack.count() == 3
    mh = workbench.model.find("MedicalHealth").iri
    assert workbench.model.experts(mh) == ["expert 1", "expert 2"]
    own = ahp([[1, 3, 5], [1 / 3, 1, 1], [1 / 5, 1, 1]])
    assert view.result.cr == pytest.approx(own.cr, abs=1e-12)

    view.expert_combo.setCurrentIndex(view.expert_combo.findText(COMBINED))
    view.set_expert(None)
    combined = ahp(np.array([[1, math.sqrt(6), math.sqrt(15)],
                             [1 / math.sqrt(6), 1, math.sqrt(2)],
                             [1 / math.sqrt(15), 1 / math.sqrt(2), 1]]))
    assert view.result.priorities == pytest.approx(combined.priorities, abs=1e-12)
    assert shown_priorities(view) == [round(float(p), 4) for p in combined.priorities]
    derived = workbench.model.derive().groups[mh]
    assert derived.priorities == pytest.approx(combined.priorities, abs=1e-12)
    assert not view.sliders[(0, 1)].slider.isEnabled() and not view.suggest_button.isEnabled()
    assert view.matrix_table.item(0, 1).text() == f"{math.sqrt(6):.3g}"


def test_traffic_light_thresholds():
    from tklscore.gui.ahp.view import light_of

    def at(cr, n=3):
        return AHPResult(priorities=np.ones(n) / n, lambda_max=3, ci=0, cr=cr, random_index=0.52,
            completed_matrix=np.ones((n, n)), most_inconsistent=None)
    assert light_of(at(0.10), group=False)[0] == GREEN
    assert light_of(at(0.12), group=False)[0] == AMBER
    assert light_of(at(0.18), group=False)[0] == RED
    assert light_of(at(0.18), group=True)[0] == AMBER
    assert light_of(at(0.25), group=True)[0] == RED
    assert light_of(at(0.9, n=2), group=False)[0] == GREEN


def test_drag_previews_then_commits_once(view, qtbot):
    workbench = view.workbench
    handle = view.sliders[(0, 2)].slider
    handle.setSliderDown(True)
    for position in (3, 5, 7):                      # dragging: previews only
        handle.setValue(position)
    qtbot.wait(250)
    assert workbench.undo_stack.count() == 0
    preview = ahp([[1, 2, 8], [1 / 2, 1, 2], [1 / 8, 1 / 2, 1]])
    assert view.result.cr == pytest.approx(preview.cr, abs=1e-12)
    assert view.sliders[(0, 2)].reading.text() == \
        "Health is very strongly to extremely more important than Prescription (8)"
    handle.setSliderDown(False)                     # release: one undoable edit
    handle.sliderReleased.emit()
    assert workbench.undo_stack.count() == 1
    mh = workbench.model.find("MedicalHealth").iri
    assert workbench.model.judgement_matrix(mh)[0, 2] == 8


def test_two_criteria_group_always_consistent(view):
    index = next(k for k in range(view.group_combo.count())
                 if view.group_combo.itemText(k).startswith("Under External"))
    view.group_combo.setCurrentIndex(index)
    assert len(view.sliders) == 1 and view.light.color == GREEN
    assert view.cr_label.text().startswith("0.0000")
    assert shown_priorities(view) == [0.8, 0.2]     # Table A.5, in group order


def test_consistency_verdict_sits_above_the_sliders(view):
    from PySide6.QtWidgets import QGroupBox

    box = view.light_label.parentWidget()
    assert isinstance(box, QGroupBox) and box.title().startswith("Judgements")
    assert view.pairs_box.isAncestorOf(next(iter(view.sliders.values())))
    assert box.isAncestorOf(view.pairs_box)  # the verdict and the sliders share one box
    assert view.light_label.text() == "acceptable (CR 0.0088 ≤ 0.10)" and view.light.color == GREEN
    assert view.light_label.font().bold()
    assert view.light_label.mapTo(box, view.light_label.rect().bottomLeft()).y() < \
        view.pairs_box.mapTo(box, view.pairs_box.rect().topLeft()).y()  # above the sliders


def test_sensitivity_chart_sweeps_the_chosen_priority(view, qtbot):
    from tklscore.core.scoring.sensitivity import priority_sweep

    model = view.model
    health = model.find("Health").iri
    view.set_sensitivity_criterion(health)
    qtbot.waitUntil(lambda: view.sweep is not None and view.sweep.criterion == health
                    and not view.workbench.runner.current, timeout=15_000)
    sweep = view.sweep
    expected = priority_sweep(model, model.find("MedicalHealth").iri, health, view.workbench.scorer,
                              view.workbench.current_release())
    assert sweep.current == pytest.approx(TABLE_4_1[0], abs=5e-5)
    for name in ("tkl", "m_score", "l_severity"):
        assert np.allclose(sweep.scores[name], expected.scores[name])
    items = view.sensitivity_chart.getPlotItem().listDataItems()
    assert len(items) == 6  # three lines and today's three dots
    assert "Health's priority goes from 0 to 1" in view.sensitivity_note.text()
    assert "M-Score moves most" in view.sensitivity_note.text()
    prescription = model.find("Prescription").iri
    view.set_sensitivity_criterion(prescription)
    qtbot.waitUntil(lambda: view.sweep is not None and view.sweep.criterion == prescription, timeout=15_000)
    assert view.sweep.current == pytest.approx(TABLE_4_1[2], abs=5e-5)
    items = view.sensitivity_chart.getPlotItem().listDataItems()   # the same items, given the new sweep
    assert len(items) == 6 and np.array_equal(items[0].getData()[1], view.sweep.scores["tkl"])
    assert list(items[1].getData()[0]) == [view.sweep.current]
    line = [i for i in view.sensitivity_chart.getPlotItem().items if isinstance(i, pg.InfiniteLine)]
    assert len(line) == 1 and line[0].value() == view.sweep.current and line[0].label.toPlainText() == "today 0.163"
    # a new sweep cancelled: named in plain words; the note says the chart is the last sweep's
    from helpers import cancelled_at_once

    shown = view.sweep
    task = cancelled_at_once(qtbot, view.workbench.runner, lambda: view.set_sensitivity_criterion(health))
    assert (task.cancel_text, task.stops) == ("Cancel the sweep", "the sensitivity sweep of the scores")
    assert view.sensitivity_note.text() == ("The sweep was cancelled: the chart shows the last sweep, made before your "
                                            "latest change.")
    assert view.sweep is shown


def test_a_sweep_whose_view_closed_while_it_ran_calls_nothing(qtbot, monkeypatch):
    """TaskRunner.start(..., owner=view): the closed view's sweep is cancelled and neither
    its result nor its progress reaches the deleted widgets."""
    import threading

    import shiboken6

    import tklscore.gui.ahp.sensitivity_panel as ahp_view
    from tklscore.gui.ahp.sensitivity_panel import SensitivityPanel

    workbench = Workbench()
    workbench.autosave_timer.stop()
    view = AhpView(workbench)               # closed by the test itself, so not handed to qtbot
    view.show()
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: workbench.current_report() is not None and not workbench.runner.current,
                    timeout=15_000)
    running, finish, cancelled = threading.Event(), threading.Event(), []
    real_sweep = ahp_view.priority_sweep

    def slow_sweep(*args, progress=None, **kwargs):
        running.set()
        finish.wait(10)
        try:
            return real_sweep(*args, progress=progress, **kwargs)
        except BaseException:
            cancelled.append(True)
            raise

    drawn = []
    monkeypatch.setattr(ahp_view, "priority_sweep", slow_sweep)
    monkeypatch.setattr(SensitivityPanel, "draw", lambda self, *args: drawn.append(args))
    view.compute_sensitivity()
    task = view._sweep_task
    qtbot.waitUntil(running.is_set, timeout=10_000)   # the sweep's thread begins once the event loop has run
    with qtbot.captureExceptions() as exceptions:
        view.close()
        shiboken6.delete(view)              # the view closes while its sweep runs
        finish.set()
        qtbot.waitUntil(lambda: task not in workbench.runner.current, timeout=10_000)
    assert task.control.cancelled and cancelled == [True]
    assert drawn == [] and exceptions == []


def test_an_edit_sweeps_once_after_its_new_scores(view, qtbot):
    workbench = view.workbench
    qtbot.waitUntil(lambda: view.sweep is not None and not workbench.runner.current, timeout=15_000)
    events = []
    start = workbench.runner.start

    old_report = workbench.current_report()

    def logged(name, *args, **kwargs):
        events.append((name, "old scores" if workbench.current_report() is old_report else "new scores"))
        return start(name, *args, **kwargs)

    workbench.runner.start = logged
    before = view.sweep
    health, record = workbench.model.find("Health").iri, workbench.model.find("HealthRecord").iri
    workbench.edit_model("judgement", lambda m: m.set_judgement(workbench.model.find("MedicalHealth").iri,
                                                                health, record, 5))
    assert view.sensitivity_note.text() == "Waiting for the new scores…"
    qtbot.waitUntil(lambda: view.sweep is not before and not workbench.runner.current, timeout=15_000)
    assert events == [("Scoring", "old scores"), ("Sensitivity of the scores", "new scores")]
    expected = __import__("tklscore.core.scoring.sensitivity", fromlist=["priority_sweep"]).priority_sweep(
        workbench.model, view.sweep.parent, view.sweep.criterion, workbench.scorer, workbench.current_release())
    for name in ("tkl", "m_score", "l_severity"):  # the sweep of the edited model
        assert np.allclose(view.sweep.scores[name], expected.scores[name], equal_nan=True)
    assert view.sweep.current == pytest.approx(expected.current)
