"""The task workspace of the Learn view: the task's table, the student's types and actions,
and the statistics of the anonymised table (computed by core/learn in the background)."""

from __future__ import annotations

import html
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QListWidget, QListWidgetItem, QPushButton, QSpinBox, QSplitter,
                               QTableView, QTableWidget, QTabWidget, QTextBrowser, QVBoxLayout, QWidget)

from tklscore.core.errors import InputError
from tklscore.core.learn import tasks
from tklscore.core.learn.scores import NORMALISED_MEANING, LearnScores
from tklscore.core.learn.usefulness import Usefulness
from tklscore.core.numbers import number, percent, score
from tklscore.gui.frame_model import FrameModel

TYPE_NAMES = {"": "Not defined", "id": "ID", "qid": "QID", "sensitive": "Sensitive", "nonsensitive": "Nonsensitive"}
ACTIONS = ("Keep as is", "Remove column", "Generalise", "Add noise")


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
            action.addItems(ACTIONS)
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
            self.set_action(column, "Keep as is")
        for column in recipe.identifiers:
            self.set_type(column, "id")
            self.set_action(column, "Remove column")
        for column in recipe.qi:
            self.set_type(column, "qid")
        if recipe.sensitive:
            self.set_type(recipe.sensitive, "sensitive")
        for column, size in recipe.intervals:
            self.set_action(column, "Generalise", str(size))
        for column, text in recipe.rules:
            self.set_action(column, "Generalise", "; ".join(text.splitlines()))
        for column, epsilon in recipe.noise:
            self.set_action(column, "Add noise", f"{epsilon:g}")
        for column in recipe.removed:
            self.set_action(column, "Remove column")

    def recipe(self, join_rule: str | None = None) -> tasks.Recipe:
        """The student's recipe; errors in plain words (which column, what to do)."""
        kinds, intervals, rules, noise, removed = {}, [], [], [], []
        for row, column in enumerate(self.columns()):
            kinds[column] = self.cellWidget(row, 1).currentData()
            action = self.cellWidget(row, 2).currentText()
            parameter = self.cellWidget(row, 3).text().strip()
            if kinds[column] == "id" and action != "Remove column":
                raise InputError(f"{column} is an ID: identifiers are always removed; set its action "
                                       f"to 'Remove column'")
            if action == "Remove column" and kinds[column] != "id":
                removed.append(column)
            elif action == "Generalise":
                if not parameter:
                    raise InputError(f"{column}: type an interval size (a whole number) or rules such as "
                                           f"a,b->General to generalise it")
                if parameter.isdigit():
                    if int(parameter) <= 0:
                        raise InputError(f"{column}: the interval size must be a positive whole number")
                    intervals.append((column, int(parameter)))
                else:
                    rules.append((column, "\n".join(p.strip() for p in parameter.split(";") if p.strip())))
            elif action == "Add noise":
                try:
                    epsilon = float(parameter)
                except ValueError:
                    raise InputError(f"{column}: type the noise ε as a percentage, e.g. 10") from None
                if not 0 < epsilon < 100:
                    raise InputError(f"{column}: the noise ε must lie between 0 and 100 %")
                noise.append((column, epsilon))
        sensitive = [c for c, k in kinds.items() if k == "sensitive"]
        if len(sensitive) > 1:
            raise InputError("Mark only one column as Sensitive (you marked " + ", ".join(sensitive) + ")")
        return tasks.Recipe(qi=tuple(c for c, k in kinds.items() if k == "qid"),
                            sensitive=sensitive[0] if sensitive else None,
                            identifiers=tuple(c for c, k in kinds.items() if k == "id"),
                            intervals=tuple(intervals), rules=tuple(rules), noise=tuple(noise),
                            removed=tuple(removed), join_rule=join_rule)


class SuppressionControl(QWidget):
    """Record suppression: leave out the rows of QID groups smaller than k, within a budget."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.enabled = QCheckBox("Suppress: leave out the rows of QID groups smaller than")
        self.below = QSpinBox()
        self.below.setRange(2, 1000)
        self.below.setValue(2)
        self.limit = QDoubleSpinBox()
        self.limit.setRange(0.0, 100.0)
        self.limit.setDecimals(1)
        self.limit.setSuffix(" %")
        self.limit.setValue(100.0)
        tip = ("Record suppression: rows whose QID group is smaller than this size are not published, the "
               "smallest groups first, as long as at most this share of the rows is left out.")
        for widget in (self.enabled, self.below, self.limit):
            widget.setToolTip(tip)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.enabled)
        layout.addWidget(self.below)
        layout.addWidget(QLabel("rows, at most"))
        layout.addWidget(self.limit)
        layout.addWidget(QLabel("of the rows"))
        layout.addStretch(1)
        self.enabled.toggled.connect(self._enable)
        self._enable(False)

    def _enable(self, on: bool) -> None:
        self.below.setEnabled(on)
        self.limit.setEnabled(on)

    def set_from(self, recipe: tasks.Recipe) -> None:
        self.enabled.setChecked(recipe.suppress_below > 1)
        if recipe.suppress_below > 1:
            self.below.setValue(recipe.suppress_below)
            self.limit.setValue(recipe.suppression_limit * 100)

    def values(self) -> tuple[int, float]:
        if not self.enabled.isChecked():
            return 0, 1.0
        return self.below.value(), round(self.limit.value(), 1) / 100


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


UTILITY_FORMAT = {"precision": number, "discernibility": lambda v: number(v, 6),
                  "average_class_size": number, "non_uniform_entropy": lambda v: number(v, 6),
                  "suppressed_share": percent}


def usefulness_html(useful: Usefulness) -> str:
    e = html.escape
    blocks = ["<p>How useful your table still is, next to the original table (its QID columns as they are, "
              "every row published). The release designer's measures.</p>"]
    for row in useful.rows:
        shown = UTILITY_FORMAT[row.key]
        change = ""
        if abs(row.current - row.original) > 1e-12:
            worse = (row.current < row.original) == row.higher_is_better
            change = (f" <span style='color:{'#a11' if worse else '#1b6e1b'}'>"
                      f"({'less' if worse else 'more'} useful)</span>")
        blocks.append(f"<p><b>{e(row.name)}</b>: original {shown(row.original)} → yours "
                      f"<b>{shown(row.current)}</b>{change}<br><span style='color:#555'>{e(row.meaning)}</span></p>")
    return "".join(blocks)


def scores_html(scored: LearnScores | None) -> str:
    e = html.escape
    if scored is None:
        return ("<p>Mark one column as <b>Sensitive</b> to see how much your table leaves to misuse "
                "(tkl-Score, M-Score, L-Severity).</p>")
    blocks = [f"<p>How much your table leaves to misuse, as a release of the original table. "
              f"<i>{e(scored.weights_source)}</i></p>"]
    for row in scored.rows:
        ratio = "—" if row.normalised is None else percent(row.normalised)
        blocks.append(f"<p><b>{e(row.name)}</b>: original {score(row.original)} → yours "
                      f"<b>{score(row.raw)}</b> = <b>{ratio}</b> of the original's ({e(row.verdict)})<br>"
                      f"<span style='color:#555'>{e(row.meaning)}</span></p>")
    blocks.append(f"<p style='color:#555'>{e(NORMALISED_MEANING)} Low ≤ 25 % &lt; moderate ≤ 50 % &lt; high ≤ 75 % "
                  f"&lt; very high.</p>")
    if scored.notes:
        blocks.append("<p style='color:#555'>" + "<br>".join(e(n) for n in scored.notes) + "</p>")
    return "".join(blocks)


class Statistics(QWidget):
    """The statistics of the anonymised table, as the prototype's right-hand panel, plus the
    models it lacked."""

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        privacy = QWidget()
        privacy_layout = QVBoxLayout(privacy)
        privacy_layout.setContentsMargins(0, 0, 0, 0)
        self.usefulness = QTextBrowser()
        self.scores = QTextBrowser()
        self.tabs.addTab(privacy, "Privacy")
        self.tabs.addTab(self.usefulness, "Usefulness")
        self.tabs.addTab(self.scores, "Misuse: tkl, M, L")
        layout.addWidget(self.tabs)
        self.text = QTextBrowser()
        self.chart = pg.PlotWidget(background="w")
        self.chart.setMinimumHeight(170)
        self.chart.setLabel("bottom", "QID group size (rows)")
        self.chart.setLabel("left", "groups")
        self.chart.setTitle("Distribution of QID groups", color="#333")
        self.chart.setMouseEnabled(False, False)
        privacy_layout.addWidget(self.text, 3)
        privacy_layout.addWidget(self.chart, 2)

    def clear(self, message: str) -> None:
        self.text.setHtml(message)
        self.usefulness.setHtml("<p>The usefulness of the anonymised table appears here.</p>")
        self.scores.setHtml("<p>The tkl-Score, M-Score and L-Severity of the anonymised table appear here.</p>")
        self.chart.clear()
        self.chart.hide()

    def show_applied(self, applied: tasks.Applied, legacy_failures: int, useful: Usefulness | None = None,
                     scored: LearnScores | None = None) -> None:
        m = applied.measures
        models = m.models
        e = html.escape
        lines = []
        suppressed = len(applied.transformed.suppressed)
        if applied.recipe.suppress_below > 1:
            total = len(applied.table)
            lines.append(f"<h3>Suppression</h3><p>Rows left out: <b>{suppressed}</b> of {total} "
                         f"({percent(suppressed / total)}), because their QID group had fewer than "
                         f"{applied.recipe.suppress_below} rows.")
            if applied.transformed.below_limit_left:
                lines.append(f"<br><span style='color:#a11'>The limit of {percent(applied.recipe.suppression_limit)} "
                             f"is too small: {applied.transformed.below_limit_left} row(s) in smaller groups are "
                             f"still published.</span>")
            lines.append("</p>")
        if applied.repeated_people:
            lines.append(f"<p style='color:#a11'>Some rows of a QID group share their ID values "
                         f"({e(', '.join(applied.recipe.identifiers))}). If they are one person with several "
                         f"rows, k counts rows, so read (X,Y)-anonymity below, which counts people; if they are "
                         f"different people, mark more columns as ID.</p>")
        lines += [f"<h3>k-anonymity</h3><p>Unique QID groups: <b>{m.classes.count}</b><br>"
                 f"Smallest QID group: <b>{m.classes.min}</b> rows &nbsp; Largest: <b>{m.classes.max}</b> rows<br>"
                 f"The table is <b>{m.k}-anonymous</b>: a person's row is one of at least {m.k}.</p>"]
        if models.xy_anonymity is not None:
            lines.append(f"<h3>(X,Y)-anonymity</h3><p>Each QID group holds at least <b>{models.xy_anonymity}</b> "
                         f"different people ({e(', '.join(applied.recipe.identifiers))}); the largest holds "
                         f"{int(applied.groups['persons'].max())}.</p>")
        if models.l_distinct is not None:
            single = int((applied.groups["distinct"] == 1).sum())
            recursive = (f"Recursive: (c,{models.l_distinct})-diverse for every whole c ≥ {models.recursive_c} "
                         f"(in every group the commonest value occurs less than c times as often as all values "
                         f"from the {_ordinal(models.l_distinct)} commonest on together)"
                         if models.recursive_c else "Recursive (c,l)-diversity needs l ≥ 2.")
            lines.append(f"<h3>l-diversity ({e(applied.recipe.sensitive)})</h3><p>Least diverse group: "
                         f"<b>{models.l_distinct}</b> distinct value(s); most diverse: "
                         f"{int(applied.groups['distinct'].max())}<br>"
                         f"Entropy l: <b>{number(models.l_entropy)}</b> (the least mixed group is as mixed as "
                         f"{number(models.l_entropy, 3)} equally common values)<br>{recursive}<br>"
                         + (f"<span style='color:#a11'>{single} group(s) hold a single value: anyone in them "
                            f"has it (their rows are shaded in the anonymised table).</span>"
                            if single else "No group holds a single value.") + "</p>")
            lines.append(f"<h3>t-closeness</h3><p>Largest distance of a group from the table (EMD): "
                         f"<b>{number(models.t)}</b>, so the table is {number(models.t)}-close (0 = every group's values "
                         f"are spread as in the whole table, 1 = as far from it as can be).<br>"
                         f"<i>Teaching prototype's check (legacy):</i> {legacy_failures} of {m.classes.count} "
                         f"groups have a value whose share differs from the table's by more than 0.1.<br>"
                         f"In the whole table: " + ", ".join(f"{percent(share)} {e(value)}" for value, share
                                                             in applied.sensitive_shares().head(8).items())
                         + (" …" if len(applied.sensitive_shares()) > 8 else "") + "</p>")
        lines.append(f"<p>Rows published: {len(applied.published)} of {len(applied.table)}. "
                     f"Usefulness and misuse scores: see the other tabs.</p>")
        self.text.setHtml("".join(lines))
        if useful is not None:
            self.usefulness.setHtml(usefulness_html(useful))
        self.scores.setHtml(scores_html(scored))
        histogram = applied.size_histogram()
        self.chart.clear()
        self.chart.show()
        self.chart.addItem(pg.BarGraphItem(x=np.array(list(histogram), dtype=float),
                                           height=np.array(list(histogram.values()), dtype=float),
                                           width=0.8, brush=QColor("#4a7ebb")))
        self.chart.getAxis("bottom").setTickSpacing(major=max(1, int(np.ceil(max(histogram) / 10))), minor=1)
        self.chart.getAxis("left").setTickSpacing(major=max(1, int(np.ceil(max(histogram.values()) / 8))), minor=1)


class TablePicker(QWidget):
    """Practice: tick one or two tables (the teaching tables, or a CSV the student imports)."""

    changed = Signal()
    import_requested = Signal()

    def __init__(self, names, parent=None):
        super().__init__(parent)
        self.list = QListWidget()
        self.list.setMaximumHeight(64)
        self.list.setFlow(QListWidget.Flow.LeftToRight)
        self.list.setWrapping(True)
        self.import_button = QPushButton("Import CSV…")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel("Tables (tick one, or two to join):")
        layout.addWidget(label)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.import_button)
        for name in names:
            self.add(name, checked=False)
        self.list.itemChanged.connect(lambda _: self.changed.emit())
        self.import_button.clicked.connect(self.import_requested)

    def add(self, name: str, checked: bool = True) -> None:
        self.list.blockSignals(True)
        item = QListWidgetItem(name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        self.list.addItem(item)
        self.list.blockSignals(False)

    def set_checked(self, names) -> None:
        self.list.blockSignals(True)
        for row in range(self.list.count()):
            item = self.list.item(row)
            item.setCheckState(Qt.CheckState.Checked if item.text() in names else Qt.CheckState.Unchecked)
        self.list.blockSignals(False)
        self.changed.emit()

    def checked(self) -> list[str]:
        return [self.list.item(r).text() for r in range(self.list.count())
                if self.list.item(r).checkState() == Qt.CheckState.Checked]


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
        self.source_view = QTableView()
        self.result_view = QTableView()
        self.source_model, self.result_model = FrameModel(), FrameModel()
        self.source_view.setModel(self.source_model)
        self.result_view.setModel(self.result_model)
        for view in (self.source_view, self.result_view):
            view.setSortingEnabled(True)
        self.tables = QTabWidget()
        self.tables.addTab(self.source_view, "Table")
        self.tables.addTab(self.result_view, "Anonymised table")
        self.suppressed_view = QTableView()
        self.suppressed_model = FrameModel()
        self.suppressed_view.setModel(self.suppressed_model)
        self.tables.addTab(self.suppressed_view, "Left-out rows")
        self.statistics = Statistics()

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
        middle_layout.addWidget(self.tables, 3)
        splitter = QSplitter()
        splitter.addWidget(self.task_list)
        splitter.addWidget(middle)
        splitter.addWidget(self.statistics)
        splitter.setStretchFactor(1, 3)
        splitter.setStretchFactor(2, 2)
        splitter.setSizes([230, 760, 560])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        self.fill_button.clicked.connect(self.fill_recipe)
        self.apply_button.clicked.connect(self.apply_requested)

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
