"""The Learn view: walk a task (types, actions, anonymise, statistics, check) and the quiz."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

from tklscore.core.learn import tasks
from tklscore.gui.learn.view import LearnView
from tklscore.gui.workbench import Workbench


@pytest.fixture
def view(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    bench = Workbench()
    widget = LearnView(bench)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    errors = []
    bench.failed.connect(errors.append)
    widget.errors = errors
    yield widget
    bench.runner.cancel_all()
    bench.runner.wait()


def idle(qtbot, view):
    qtbot.waitUntil(lambda: not view.workbench.runner.current, timeout=20000)


def test_walk_task_1(qtbot, view):
    space = view.workspace
    assert space.task.number == 1
    assert space.setup.columns() == ["name", "last name", "age", "gender", "city", "job"]
    assert space.source_model.rowCount() == 200
    space.fill_button.click()
    space.apply_button.click()
    idle(qtbot, view)
    expected = tasks.answers(tasks.task(1))
    text = space.statistics.text.toPlainText()
    assert f"The table is {expected['k']}-anonymous" in text
    assert f"Unique QID groups: {expected['groups']}" in text
    assert "You applied the task's recipe" in space.check.text()
    assert space.result_model.rowCount() == 200
    assert "name" not in list(space.result_model.frame.columns)        # identifiers removed
    assert view.errors == []


def test_a_different_recipe_is_pointed_out(qtbot, view):
    space = view.workspace
    space.fill_button.click()
    space.setup.set_action("city", "Keep as is")
    space.apply_button.click()
    idle(qtbot, view)
    assert "Not the task's recipe yet" in space.check.text()
    assert "Generalise city with the rules" in space.check.text()


def test_errors_in_plain_words(qtbot, view):
    space = view.workspace
    space.setup.set_type("name", "id")
    space.setup.set_action("name", "Keep as is")
    space.apply_button.click()
    assert view.errors and "identifiers are always removed" in view.errors[-1]
    space.setup.set_action("name", "Remove column")
    space.apply_button.click()
    idle(qtbot, view)
    assert "QID not defined" in view.errors[-1]


def test_two_tables_are_joined_by_the_students_rule(qtbot, view):
    space = view.workspace
    space.task_list.setCurrentRow(4)
    assert space.task.number == 5 and space.join_rule.isVisible() is not None
    space.join_rule.setText("Job_Relational.id = Person_Relational.id")
    space.join_rule.editingFinished.emit()
    assert list(space.source_model.frame.columns) == ["id", "name", "last name", "age", "gender", "job"]
    space.fill_button.click()
    space.apply_button.click()
    idle(qtbot, view)
    assert "You applied the task's recipe" in space.check.text()
    assert f"at least {tasks.answers(tasks.task(5))['persons_k']}" in space.statistics.text.toPlainText()


def test_quiz(qtbot, view, tmp_path):
    view.tabs.setCurrentWidget(view.quiz)
    qtbot.waitUntil(lambda: view.quiz_ready, timeout=30000)
    boxes = view.quiz.boxes
    assert [b.question.task for b in boxes] == list(range(1, 11))
    assert not view.quiz.submit_button.isEnabled()
    for box in boxes[:-1]:
        box.choose(box.question.correct)
    last = boxes[-1]
    last.choose((last.question.correct + 1) % len(last.question.options))
    assert view.quiz.submit_button.isEnabled()
    view.quiz.submit_button.click()
    assert view.quiz.score.text() == "Your score: 9 / 10"
    assert last.feedback.text().startswith("Wrong. The right answer:")
    assert boxes[0].feedback.text().startswith("Right.")
    view.save_results_to(str(tmp_path / "r.html"))
    assert "PPDP quiz: 9 / 10" in (tmp_path / "r.html").read_text()
    view.quiz.again_button.click()
    assert view.quiz.result is None and all(b.answer is None for b in view.quiz.boxes)


def test_definitions_pages(view):
    browser = view.definitions.browser
    assert "k-anonymous" in browser.toPlainText()
    view.definitions.pages.setCurrentRow(3)
    assert "1.8899" in browser.toPlainText()
