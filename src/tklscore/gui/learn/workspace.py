"""The task workspace of the Learn view: the task's table, the student's types and actions
(``column_setup.py``, ``controls.py``), and the statistics of the anonymised table
(``statistics.py``, computed by core/learn in the background)."""

from __future__ import annotations

import html
from dataclasses import replace

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem, QPushButton, QSplitter,
                               QTableView, QTabWidget, QVBoxLayout, QWidget)

from tklscore.core.learn import tasks
from tklscore.core.learn.scores import LearnScores
from tklscore.core.learn.usefulness import Usefulness
from tklscore.gui.frame_model import FrameModel
from tklscore.gui.learn.column_setup import ColumnSetup
from tklscore.gui.learn.controls import SuppressionControl, TablePicker
from tklscore.gui.learn.statistics import Statistics


class Workspace(QWidget):
    """Pick a task, set types and actions, apply, read the statistics and the check."""

    apply_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.task_list = QListWidget()
        for task in tasks.TASKS:
            item = QListWidgetItem(f"{task.number}. {task.title}")
            item.setData(Qt.ItemDataRole.UserRole, task.number)
            self.task_list.addItem(item)
        practice = QListWidgetItem("Practice: open your own tables")
        practice.setData(Qt.ItemDataRole.UserRole, tasks.PRACTICE)
        self.task_list.addItem(practice)
        self.task_list.setMaximumWidth(300)
        self.task_list.setWordWrap(True)
        self.statistics = Statistics()
        splitter = QSplitter()
        splitter.addWidget(self.task_list)
        splitter.addWidget(self._middle())
        splitter.addWidget(self.statistics)
        splitter.setStretchFactor(1, 3)
        splitter.setStretchFactor(2, 2)
        splitter.setSizes([230, 760, 560])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self.fill_button.clicked.connect(self.fill_recipe)
        self.apply_button.clicked.connect(self.apply_requested)

    def _middle(self) -> QWidget:
        """The task, the tables to practise on, the join rule, the columns' types and actions,
        the suppression, the buttons, the check and the tables."""
        self.explanation = QLabel()
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.RichText)
        self.picker = TablePicker(list(tasks.bundled()))
        self.join_rule = QLineEdit()
        self.join_rule.setPlaceholderText("Join rule, e.g. Job_Relational.id = Person_Relational.id")
        self.setup = ColumnSetup()
        self.suppression = SuppressionControl()
        self.fill_button = QPushButton("Show me the recipe")
        self.export_button = QPushButton("Export to CSV…")
        self.export_button.setEnabled(False)
        self.apply_button = QPushButton("Anonymise")
        self.apply_button.setDefault(True)
        self.check = QLabel()
        self.check.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.fill_button)
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.apply_button)
        middle = QWidget()
        middle_layout = QVBoxLayout(middle)
        middle_layout.setContentsMargins(0, 0, 0, 0)
        middle_layout.addWidget(self.explanation)
        middle_layout.addWidget(self.picker)
        middle_layout.addWidget(self.join_rule)
        middle_layout.addWidget(self.setup, 2)
        middle_layout.addWidget(self.suppression)
        middle_layout.addLayout(buttons)
        middle_layout.addWidget(self.check)
        middle_layout.addWidget(self._tables(), 3)
        return middle

    def _tables(self) -> QTabWidget:
        """The task's table, the anonymised table and the rows left out."""
        self.source_view, self.result_view, self.suppressed_view = QTableView(), QTableView(), QTableView()
        self.source_model, self.result_model, self.suppressed_model = FrameModel(), FrameModel(), FrameModel()
        self.source_view.setModel(self.source_model)
        self.result_view.setModel(self.result_model)
        self.suppressed_view.setModel(self.suppressed_model)
        for view in (self.source_view, self.result_view):
            view.setSortingEnabled(True)
        self.tables = QTabWidget()
        self.tables.addTab(self.source_view, "Table")
        self.tables.addTab(self.result_view, "Anonymised table")
        self.tables.addTab(self.suppressed_view, "Left-out rows")
        return self.tables

    @property
    def practising(self) -> bool:
        item = self.task_list.currentItem()
        return item is not None and item.data(Qt.ItemDataRole.UserRole) == tasks.PRACTICE

    @property
    def task(self) -> tasks.Task:
        """The chosen task; for practice, over the ticked tables (an error in plain words when
        none or more than two are ticked)."""
        if self.practising:
            return tasks.practice(self.picker.checked())
        item = self.task_list.currentItem()
        return tasks.task(item.data(Qt.ItemDataRole.UserRole) if item else 1)

    def show_picker_only(self, message: str) -> None:
        """Practice with no usable choice of tables yet: say what to do."""
        self.explanation.setText("<b>Practice</b> — open one table, or two to join (MultiRelational "
                                 "k-anonymity), and try anything.")
        self.picker.show()
        self.join_rule.hide()
        self.setup.set_columns([])
        self.source_model.set_frame(self.source_model.frame.iloc[0:0, 0:0])
        self.result_model.set_frame(self.result_model.frame.iloc[0:0, 0:0])
        self.suppressed_model.set_frame(self.suppressed_model.frame.iloc[0:0, 0:0])
        self.export_button.setEnabled(False)
        self.apply_button.setEnabled(False)
        self.fill_button.setEnabled(False)
        self.check.setStyleSheet("color:#a11")
        self.check.setText(message)
        self.statistics.clear("<p>Tick a table above to practise on.</p>")

    def show_task(self, task: tasks.Task, table) -> None:
        if task.practice:
            self.explanation.setText(f"<b>Practice</b> — {html.escape(task.model)} on <i>{html.escape(task.dataset)}"
                                     f"</i><br>{html.escape(task.explanation)}")
        else:
            steps = "".join(f"<li>{html.escape(s)}</li>" for s in task.recipe.steps())
            self.explanation.setText(f"<b>Task {task.number}: {html.escape(task.title)}</b> — "
                                     f"{html.escape(task.model)} on <i>{html.escape(task.dataset)}</i><br>"
                                     f"{html.escape(task.explanation)}<br><b>Recipe</b>"
                                     f"<ol style='margin:0'>{steps}</ol>")
        self.picker.setVisible(task.practice)
        self.fill_button.setEnabled(not task.practice)
        self.apply_button.setEnabled(True)
        self.join_rule.setVisible(task.joins)
        self.join_rule.setPlaceholderText(f"Join rule, e.g. {task.datasets[-1]}.id = {task.datasets[0]}.id "
                                          f"(several rules: separate them with ;)")
        self.join_rule.clear()
        self.setup.set_columns(list(table.columns))
        self.source_model.set_frame(table)
        self.result_model.set_frame(table.iloc[0:0])
        self.export_button.setEnabled(False)
        self.tables.setCurrentIndex(0)
        self.suppressed_model.set_frame(table.iloc[0:0])
        self.suppression.set_from(tasks.Recipe(qi=()))
        self.check.clear()
        self.statistics.clear("<p>Set the types and actions, then press <b>Anonymise</b>. "
                              "The statistics of the anonymised table appear here.</p>")

    def recipe(self, join_rule: str | None = None) -> tasks.Recipe:
        """The student's recipe: the columns' types and actions and the suppression."""
        below, limit = self.suppression.values()
        return replace(self.setup.recipe(join_rule), suppress_below=below, suppression_limit=limit)

    def fill_recipe(self) -> None:
        self.setup.fill(self.task.recipe)
        self.suppression.set_from(self.task.recipe)
        if self.task.recipe.join_rule:
            self.join_rule.setText(self.task.recipe.join_rule)

    def show_result(self, applied: tasks.Applied, legacy_failures: int, problems: list[str] | None,
                    useful: Usefulness | None = None, scored: LearnScores | None = None) -> None:
        self.result_model.set_frame(applied.published, applied.single_valued_rows)
        self.export_button.setEnabled(True)
        self.suppressed_model.set_frame(applied.suppressed)
        self.tables.setTabText(2, f"Left-out rows ({len(applied.suppressed)})")
        self.tables.setCurrentIndex(1)
        self.statistics.show_applied(applied, legacy_failures, useful, scored)
        if problems is None:
            self.check.setStyleSheet("color:#1b6e1b")
            self.check.setText("Practice: nothing to check. Read the Privacy, Usefulness and Misuse tabs; change "
                               "an action and anonymise again to see what it does.")
        elif problems:
            self.check.setStyleSheet("color:#a11")
            self.check.setText("Not the task's recipe yet: " + " ".join(problems))
        else:
            self.check.setStyleSheet("color:#1b6e1b")
            self.check.setText("✔ You applied the task's recipe. Now answer the task's question in the Quiz tab.")
