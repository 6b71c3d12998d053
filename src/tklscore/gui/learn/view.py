"""The Learn view (seed 003): the PPDP teaching prototype's tasks, the quiz and the definitions,
on the workbench's own engine (core/learn over core/release and core/risk)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QListWidget, QTabWidget, QTextBrowser,
                               QVBoxLayout, QWidget)

from tklscore.core.errors import InputError
from tklscore.core.files.resources import resource_path
from tklscore.core.learn import questions, quiz, tasks
from tklscore.core.learn.scores import scores
from tklscore.core.learn.usefulness import usefulness
from tklscore.gui.learn.quiz_panel import QuizPanel
from tklscore.gui.learn.workspace import Workspace

DEFINITIONS = (
    ("k-anonymity", "k_anonymity.html"),
    ("(X,Y)-anonymity", "xy_anonymity.html"),
    ("MultiRelational k-anonymity", "multirelational.html"),
    ("l-diversity", "l_diversity.html"),
    ("t-closeness", "t_closeness.html"),
    ("Noise and ε-differential privacy", "noise.html"),
    ("Operations and usefulness", "operations.html"),
)


class Definitions(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.pages = QListWidget()
        self.pages.addItems([title for title, _ in DEFINITIONS])
        self.pages.setMaximumWidth(260)
        self.browser = QTextBrowser()
        layout = QHBoxLayout(self)
        layout.addWidget(self.pages)
        layout.addWidget(self.browser, 1)
        self.pages.currentRowChanged.connect(self.show_page)
        self.pages.setCurrentRow(0)

    def show_page(self, row: int) -> None:
        if row >= 0:
            self.browser.setSource(QUrl.fromLocalFile(str(resource_path(f"learn/definitions/{DEFINITIONS[row][1]}"))))


class LearnView(QWidget):
    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self.workspace = Workspace()
        self.quiz = QuizPanel(questions.templates)
        self.definitions = Definitions()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.workspace, "Tasks")
        self.tabs.addTab(self.quiz, "Quiz")
        self.tabs.addTab(self.definitions, "Definitions")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)
        self.tables = dict(tasks.bundled())    # the teaching tables and any the student imports
        self.quiz_ready = False
        self.last: tasks.Applied | None = None
        self.last_usefulness = None
        self.last_scores = None
        self.workspace.task_list.currentRowChanged.connect(lambda _: self.open_task())
        self.workspace.apply_requested.connect(self.apply)
        self.workspace.export_button.clicked.connect(self.export)
        self.workspace.join_rule.editingFinished.connect(self.preview_join)
        self.workspace.picker.changed.connect(self.open_task)
        self.workspace.picker.import_requested.connect(self.import_table)
        self.quiz.save_requested.connect(self.save_results)
        self.tabs.currentChanged.connect(self._tab_changed)
        self.workspace.task_list.setCurrentRow(0)

    def _report(self, message: str) -> None:
        self.workbench.failed.emit(message)

    def _say_stopped(self, sentence: str) -> None:
        """What a cancelled import or anonymisation left on show, where the check is said."""
        self.workspace.check.setStyleSheet("color:#555")
        self.workspace.check.setText(sentence)

    def open_task(self) -> None:
        try:
            task = self.workspace.task
            table = _first_table(task, self.tables) if task.joins else tasks.source_table(task, self.tables)
        except InputError as error:
            if self.workspace.practising:
                self.workspace.show_picker_only(str(error))
            else:
                self._report(str(error))
            return
        self.workspace.show_task(task, table)

    def import_table(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import a table to practise on", str(Path.home()),
                                              "Tables (*.csv *.tsv *.txt)")
        if path:
            self.import_from(path)

    def import_from(self, path: str) -> None:
        """Load a CSV file in the background and add it to the practice tables (ticked)."""
        from tklscore.core.tables.loading import load_table

        def run(control):
            table = load_table(path, progress=lambda _f: control.check())
            return table.frame.astype(object)

        def done(frame) -> None:
            name = Path(path).stem
            while name in self.tables:
                name += "_"
            self.tables[name] = frame
            self.workspace.picker.add(name, checked=True)
            self.open_task()
            self.workbench.status.emit(f"Imported {path} as {name}")

        def cancelled(_frame) -> None:
            self._say_stopped(f"Importing {Path(path).name} was cancelled: it is not among the practice tables; "
                              f"import it again to practise on it.")

        self.workbench.runner.start(f"Importing {Path(path).name}", run, done, self._report, owner=self,
                                    on_cancelled=cancelled, cancel_text="Cancel the import",
                                    stops=f"the import of {Path(path).name}")

    def preview_join(self) -> None:
        """Show the joined table as soon as the student's join rule is right."""
        try:
            task = self.workspace.task
        except InputError:
            return
        rule = self.workspace.join_rule.text().strip()
        if not task.joins or not rule:
            return
        try:
            joined = _joined(task, tasks.Recipe(qi=(), join_rule=rule), self.tables)
        except InputError as error:
            self.workspace.check.setStyleSheet("color:#a11")
            self.workspace.check.setText(str(error))
            return
        self.workspace.check.clear()
        self.workspace.source_model.set_frame(joined)
        if list(joined.columns) != self.workspace.setup.columns():
            self.workspace.setup.set_columns(list(joined.columns))

    def apply(self) -> None:
        try:
            task = self.workspace.task
            rule = (self.workspace.join_rule.text().strip() or None) if task.joins else None
            recipe = self.workspace.recipe(rule)
        except InputError as error:
            self._report(str(error))
            return
        tables = self.tables

        def run(control):
            table = _joined(task, recipe, tables) if task.joins else tasks.source_table(task, tables)
            control.check()
            applied = tasks.apply(recipe, table)
            failures = len(tasks.legacy_t_failures(applied)) if recipe.sensitive else 0
            control.check()
            useful = usefulness(applied)
            control.check()
            problems = None if task.practice else tasks.check_applied(task, recipe)
            return applied, failures, problems, useful, scores(applied, task.datasets)

        def done(result) -> None:
            applied, failures, problems, useful, scored = result
            self.last = applied
            self.last_usefulness, self.last_scores = useful, scored
            self.workspace.show_result(applied, failures, problems, useful, scored)

        def cancelled(_result) -> None:
            self._say_stopped("Anonymising was cancelled: " + (
                "the tables and statistics below are those of the last anonymisation, before your latest changes."
                if self.last is not None else "no anonymised table is shown. Press Anonymise to try again."))

        self.workbench.runner.start("Anonymising the teaching table", run, done, self._report, owner=self,
                                    on_cancelled=cancelled, cancel_text="Cancel anonymising",
                                    stops="the anonymisation of the teaching table")

    def export(self) -> None:
        if self.last is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export the anonymised table",
                                              str(Path.home() / "anonymised.csv"), "CSV (*.csv)")
        if path:
            self.export_to(path)

    def export_to(self, path: str) -> None:
        try:
            tasks.export(self.last, path)
        except (InputError, OSError) as error:
            self._report(f"{path}: {error}")
        else:
            self.workbench.status.emit(f"Anonymised table exported to {path}")

    def _tab_changed(self, index: int) -> None:
        if self.tabs.widget(index) is self.quiz and not self.quiz_ready:
            self.prepare_quiz()

    def prepare_quiz(self, seed: int | None = None) -> None:
        """Compute every task's answers in the background, then draw the questions."""
        self.quiz.score.setText("Preparing the questions from the data…")

        def run(control):
            for task in tasks.TASKS:
                control.check()
                questions.prepare(task.number)
            return True

        def done(_) -> None:
            self.quiz_ready = True
            self.quiz.new_quiz(seed)

        def cancelled(_value) -> None:
            self.quiz.score.setText("Preparing the questions was cancelled: no quiz is shown. Open another tab and "
                                    "this one again to prepare it.")

        self.workbench.runner.start("Preparing the quiz", run, done, self._report, owner=self,
                                    on_cancelled=cancelled, cancel_text="Cancel preparing the quiz",
                                    stops="the preparation of the quiz")

    def save_results(self) -> None:
        if self.quiz.result is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save quiz results", str(Path.home() / "quiz-results.html"),
                                              "HTML (*.html)")
        if path:
            self.save_results_to(path)

    def save_results_to(self, path: str) -> None:
        try:
            quiz.save_results(self.quiz.result, path)
        except (InputError, OSError) as error:
            self._report(f"{path}: {error}")
        else:
            self.workbench.status.emit(f"Quiz results saved to {path}")


def _first_table(task: tasks.Task, tables):
    """Until the student joins them, the person table with the other table's columns beside it."""
    left, right = (tables[name] for name in task.datasets)
    return left.join(right.drop(columns=[c for c in right.columns if c in left.columns]).iloc[0:0], how="left")


def _joined(task: tasks.Task, recipe: tasks.Recipe, tables):
    if not recipe.join_rule:
        raise InputError("No rules defined: type a join rule such as "
                         f"{task.datasets[1]}.id = {task.datasets[0]}.id")
    from tklscore.core.learn.join import join, parse_rule

    left, right = task.datasets
    rules = [parse_rule(text, left, right) for text in recipe.join_rule.split(";") if text.strip()]
    return join(tables[left], tables[right], rules, left, right)
