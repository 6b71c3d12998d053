"""The Learn view: walk a task (types, actions, anonymise, statistics, check) and the quiz."""

import pytest

from tklscore.core.learn import tasks
from tklscore.core.numbers import number, percent, score
from tklscore.gui.learn.view import LearnView

from helpers import cancelled_at_once


@pytest.fixture
def view(qtbot, workbench):
    widget = LearnView(workbench)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    errors = []
    workbench.failed.connect(errors.append)
    widget.errors = errors
    return widget


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
    # each task cancelled is named in plain words; the view says what it still shows
    runner = view.workbench.runner
    task = cancelled_at_once(qtbot, runner, space.apply_button.click)
    assert (task.cancel_text, task.stops) == ("Cancel anonymising", "the anonymisation of the teaching table")
    assert space.check.text() == ("Anonymising was cancelled: the tables and statistics below are those of the last "
                                  "anonymisation, before your latest changes.")
    assert space.result_model.rowCount() == 200
    task = cancelled_at_once(qtbot, runner, lambda: view.import_from("practice.csv"))
    assert (task.cancel_text, task.stops) == ("Cancel the import", "the import of practice.csv")
    assert space.check.text() == ("Importing practice.csv was cancelled: it is not among the practice tables; "
                                  "import it again to practise on it.")
    task = cancelled_at_once(qtbot, runner, view.prepare_quiz)
    assert (task.cancel_text, task.stops) == ("Cancel preparing the quiz", "the preparation of the quiz")
    assert not view.quiz_ready and view.quiz.score.text() == (
        "Preparing the questions was cancelled: no quiz is shown. Open another tab and this one again to prepare it.")
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
    assert "Rows left out: 5 of 20 (25 %)" in stats.text.toPlainText()
    assert "The table is 2-anonymous" in stats.text.toPlainText()
    core = tasks.apply(task.recipe, tasks.source_table(task))
    useful, scored = usefulness(core), scores(core, task.datasets)
    assert view.last_usefulness == useful
    shown = stats.usefulness.toPlainText()
    assert f"Precision: original 1 → yours {number(useful.current.precision)}" in shown
    assert "Rows left out: original 0 % → yours 25 %" in shown
    assert f"Discernibility: original {number(useful.original.discernibility, 6)} → yours " \
           f"{number(useful.current.discernibility, 6)}" in shown
    text = stats.scores.toPlainText()
    assert "teaching weights of 'job'" in text
    for row in scored.rows:
        assert f"{row.name}: original {score(row.original)} → yours {score(row.raw)}" in text
        assert f"= {percent(row.normalised)} of the original's ({row.verdict})" in text
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


def test_single_valued_groups_are_shaded_and_the_table_exports(qtbot, view, tmp_path):
    from PySide6.QtCore import Qt

    space = view.workspace
    space.task_list.setCurrentRow(5)
    assert not space.export_button.isEnabled()
    space.fill_button.click()
    space.apply_button.click()
    idle(qtbot, view)
    model = space.result_model
    shaded = [model.data(model.index(r, 0), Qt.ItemDataRole.BackgroundRole) is not None
              for r in range(model.rowCount())]
    assert sum(shaded) == int(view.last.single_valued_rows.sum()) > 0
    assert "rows are shaded" in space.statistics.text.toPlainText()
    assert space.export_button.isEnabled()
    view.export_to(str(tmp_path / "a.csv"))
    assert (tmp_path / "a.csv").read_text().splitlines()[0] == "age,gender,city,job"
    view.export_to(str(tmp_path / "a.txt"))
    assert "exported as CSV" in view.errors[-1]


def test_repeated_people_are_pointed_to_xy(qtbot, view):
    space = view.workspace
    space.task_list.setCurrentRow(3)
    space.fill_button.click()
    space.apply_button.click()
    idle(qtbot, view)
    assert "k counts rows, so read (X,Y)-anonymity" in space.statistics.text.toPlainText()
    assert view.last.repeated_people


def test_a_rule_missing_a_town_is_explained(qtbot, view):
    space = view.workspace
    space.fill_button.click()
    space.setup.set_action("city", "Generalise", "Tallinn,Tartu,Paide->Large city")
    space.apply_button.click()
    idle(qtbot, view)
    assert view.errors and "no rule; add" in view.errors[-1]


def practise(view):
    space = view.workspace
    space.task_list.setCurrentRow(space.task_list.count() - 1)
    assert space.practising
    return space


def test_practice_on_one_table(qtbot, view):
    space = practise(view)
    assert not space.picker.isHidden() and not space.apply_button.isEnabled()
    assert "Tick a table" in space.check.text()
    space.picker.set_checked(["Job_Large_Salary"])
    assert space.setup.columns() == ["id", "age", "gender", "city", "job", "salary"]
    assert space.join_rule.isHidden() and not space.fill_button.isEnabled()
    space.setup.set_type("id", "id")
    space.setup.set_action("id", "Remove column")
    space.setup.set_type("age", "qid")
    space.setup.set_action("age", "Generalise", "20")
    space.setup.set_type("gender", "qid")
    space.setup.set_type("salary", "sensitive")
    space.setup.set_action("salary", "Add noise", "5")
    space.apply_button.click()
    idle(qtbot, view)
    assert view.errors == []
    assert space.check.text().startswith("Practice: nothing to check")
    recipe = tasks.Recipe(qi=("age", "gender"), sensitive="salary", identifiers=("id",), intervals=(("age", 20),),
                          noise=(("salary", 5.0),))
    expected = tasks.apply(recipe, tasks.bundled()["Job_Large_Salary"])
    assert f"The table is {expected.measures.k}-anonymous" in space.statistics.text.toPlainText()
    assert "teaching weights of 'salary'" in space.statistics.scores.toPlainText()


def test_practice_gates_the_number_of_tables_and_joins_two(qtbot, view):
    space = practise(view)
    space.picker.set_checked(["Job", "Job_Large", "Disease_xy"])
    assert "only 2 tables are supported" in space.check.text()
    space.picker.set_checked(["Person_Relational", "Job_Relational"])
    assert not space.join_rule.isHidden() and "MultiRelational" in space.explanation.text()
    space.join_rule.setText("Job_Relational.id = Person_Relational.id")
    space.join_rule.editingFinished.emit()
    assert space.source_model.rowCount() == 20
    space.setup.set_type("id", "id")
    space.setup.set_action("id", "Remove column")
    for column in ("name", "last name"):
        space.setup.set_action(column, "Remove column")
    space.setup.set_type("age", "qid")
    space.setup.set_action("age", "Generalise", "10")
    space.setup.set_type("gender", "qid")
    space.setup.set_type("job", "sensitive")
    space.apply_button.click()
    idle(qtbot, view)
    assert view.errors == []
    assert f"at least {tasks.answers(tasks.task(5))['persons_k']}" in space.statistics.text.toPlainText()


def test_practice_on_an_imported_csv(qtbot, view, tmp_path):
    space = practise(view)
    path = tmp_path / "mine.csv"
    path.write_text("zip,age,illness\n1000,31,Flu\n1000,35,Asthma\n2000,52,Flu\n2000,58,Angina\n")
    view.import_from(str(path))
    idle(qtbot, view)
    assert space.picker.checked() == ["mine"] and space.setup.columns() == ["zip", "age", "illness"]
    space.setup.set_type("zip", "qid")
    space.setup.set_type("age", "qid")
    space.setup.set_action("age", "Generalise", "10")
    space.setup.set_type("illness", "sensitive")
    space.apply_button.click()
    idle(qtbot, view)
    assert view.errors == []
    assert "The table is 2-anonymous" in space.statistics.text.toPlainText()
    assert "no teaching weights exist for 'illness'" in space.statistics.scores.toPlainText()
    view.import_from(str(tmp_path / "missing.csv"))
    idle(qtbot, view)
    assert view.errors and "missing.csv" in view.errors[-1]


def test_several_join_rules(qtbot, view):
    space = practise(view)
    space.picker.set_checked(["Person_Relational", "Job_Relational"])
    space.join_rule.setText("Job_Relational.id = Person_Relational.id; Job_Relational.id = Person_Relational.id")
    space.join_rule.editingFinished.emit()
    assert space.source_model.rowCount() == 20
    space.join_rule.setText("Job_Relational.job = Person_Relational.name")
    space.join_rule.editingFinished.emit()
    assert "no rows match" in space.check.text()


def test_xy_range_and_the_table_distribution(qtbot, view):
    space = view.workspace
    space.task_list.setCurrentRow(3)
    space.fill_button.click()
    space.apply_button.click()
    idle(qtbot, view)
    text = space.statistics.text.toPlainText()
    groups = view.last.groups
    assert f"at least {groups['persons'].min()} different people (name, last name); the largest holds " \
           f"{groups['persons'].max()}." in text
    shares = view.last.full["disease"].value_counts(normalize=True)
    assert f"In the whole table: {percent(shares.iloc[0])} {shares.index[0]}" in text
