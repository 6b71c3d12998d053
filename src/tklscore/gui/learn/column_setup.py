"""The Learn view's column set-up: one row per column of the task's table, with its type, its
action and the action's parameter; the recipe they make is core's
(:func:`tklscore.core.learn.tasks.recipe_from_columns`)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHeaderView, QLabel, QLineEdit, QTableWidget

from tklscore.core.learn import tasks

TYPE_NAMES = {"": "Not defined", "id": "ID", "qid": "QID", "sensitive": "Sensitive", "nonsensitive": "Nonsensitive"}


class ColumnSetup(QTableWidget):
    """One row per column: its type, its action and the action's parameter."""

    def __init__(self, parent=None):
        super().__init__(0, 4, parent)
        self.setHorizontalHeaderLabels(["Column", "Type", "Action", "Parameter"])
        self.horizontalHeaderItem(3).setToolTip("Generalise: an interval size (e.g. 10) or value rules "
                                                "(a,b->General; c,d->Other). Add noise: ε in %.")
        self.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.verticalHeader().hide()

    def set_columns(self, columns: list[str]) -> None:
        self.setRowCount(len(columns))
        for row, column in enumerate(columns):
            label = QLabel(f" {column} ")
            self.setCellWidget(row, 0, label)
            kind = QComboBox()
            for key, name in TYPE_NAMES.items():
                kind.addItem(name, key)
            self.setCellWidget(row, 1, kind)
            action = QComboBox()
            action.addItems(tasks.ACTIONS)
            self.setCellWidget(row, 2, action)
            parameter = QLineEdit()
            parameter.setPlaceholderText("size, rules a,b->General; … or ε %")
            self.setCellWidget(row, 3, parameter)
        self.resizeColumnsToContents()
        self.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)

    def columns(self) -> list[str]:
        return [self.cellWidget(r, 0).text().strip() for r in range(self.rowCount())]

    def _row(self, column: str) -> int:
        return self.columns().index(column)

    def set_type(self, column: str, kind: str) -> None:
        combo = self.cellWidget(self._row(column), 1)
        combo.setCurrentIndex(combo.findData(kind))

    def set_action(self, column: str, action: str, parameter: str = "") -> None:
        row = self._row(column)
        self.cellWidget(row, 2).setCurrentText(action)
        self.cellWidget(row, 3).setText(parameter)

    def fill(self, recipe: tasks.Recipe) -> None:
        """Show a recipe (the task's, when the student asks for it)."""
        for column in self.columns():
            self.set_type(column, "")
            self.set_action(column, tasks.KEEP)
        for column in recipe.identifiers:
            self.set_type(column, "id")
            self.set_action(column, tasks.REMOVE)
        for column in recipe.qi:
            self.set_type(column, "qid")
        if recipe.sensitive:
            self.set_type(recipe.sensitive, "sensitive")
        for column, size in recipe.intervals:
            self.set_action(column, tasks.GENERALISE, str(size))
        for column, text in recipe.rules:
            self.set_action(column, tasks.GENERALISE, "; ".join(text.splitlines()))
        for column, epsilon in recipe.noise:
            self.set_action(column, tasks.NOISE, f"{epsilon:g}")
        for column in recipe.removed:
            self.set_action(column, tasks.REMOVE)

    def recipe(self, join_rule: str | None = None) -> tasks.Recipe:
        """The student's recipe; errors in plain words (which column, what to do)."""
        return tasks.recipe_from_columns(
            [(column, self.cellWidget(row, 1).currentData(), self.cellWidget(row, 2).currentText(),
              self.cellWidget(row, 3).text()) for row, column in enumerate(self.columns())], join_rule)
