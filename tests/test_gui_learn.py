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


def test_walk_the_suppression_task_and_read_usefulness_and_scores(qtbot, view):
    from tklscore.core.learn.scores import scores
    from tklscore.core.learn.usefulness import usefulness

    space = view.workspace
    space.task_list.setCurrentRow(9)
    task = space.task
    assert task.number == 10 and not space.suppression.enabled.isChecked()
    space.fill_button.click()
    assert space.suppression.enabled.isChecked() and space.suppression.below.value() == 2
    assert space.suppression.limit.value() == 25.0
    space.apply_button.click()
    idle(qtbot, view)
    assert view.errors == []
    assert "You applied the task's recipe" in space.check.text()
    expected = tasks.answers(task)
    assert space.result_model.rowCount() == expected["published_rows"] == 15
    assert space.suppressed_model.rowCount() == expected["suppressed_rows"] == 5
    assert space.tables.tabText(2) == "Left-out rows (5)"
    stats = space.statistics
    assert "Rows left out: 5 of 20 (25.0%)" in stats.text.toPlainText()
    assert "The table is 2-anonymous" in stats.text.toPlainText()
    core = tasks.apply(task.recipe, tasks.source_table(task))
    useful, scored = usefulness(core), scores(core, task.datasets)
    assert view.last_usefulness == useful
    shown = stats.usefulness.toPlainText()
    assert f"Precision: original 1.000 → yours {useful.current.precision:.3f}" in shown
    assert f"Rows left out: original 0.0 % → yours 25.0 %" in shown
    assert f"Discernibility: original {useful.original.discernibility:,.0f} → yours " \
           f"{useful.current.discernibility:,.0f}" in shown
    text = stats.scores.toPlainText()
    assert "teaching weights of 'job'" in text
    for row in scored.rows:
        assert f"{row.name}: original {row.original:.4f} → yours {row.raw:.4f}" in text
        assert f"= {row.normalised * 100:.1f} % of the original's ({row.verdict})" in text
    assert view.last_scores.raw == scored.raw


def test_suppression_left_out_changes_the_check(qtbot, view):
    space = view.workspace
    space.task_list.setCurrentRow(9)
    space.fill_button.click()
    space.suppression.enabled.setChecked(False)
    space.apply_button.click()
    idle(qtbot, view)
    assert "Suppress the rows of QID groups smaller than 2" in space.check.text()
    assert "Rows left out" not in space.statistics.text.toPlainText()
    assert space.suppressed_model.rowCount() == 0
