"""The status bar's part for long work: what the task it follows says, its progress, and a
Cancel that names the work it stops (:attr:`~tklscore.gui.tasks.TaskRunner.shown`) and stops
only that; none for a file being written (it is always written to the end)."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar

from tklscore.gui.tasks import TaskRunner


class TaskStatus(QObject):
    def __init__(self, bar: QStatusBar, runner: TaskRunner):
        super().__init__(bar)
        self.bar, self.runner = bar, runner
        self.label = QLabel("")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(200)
        self.progress.setRange(0, 100)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_shown)
        for widget in (self.label, self.progress, self.cancel_button):
            bar.addPermanentWidget(widget)
            widget.hide()
        runner.busy.connect(self.busy)
        runner.shownChanged.connect(self.show_task)
        runner.progress.connect(lambda value, text: (self.set_progress(value), self.label.setText(text)))

    def show_task(self) -> None:
        """The task the status bar follows: its words, its progress, its Cancel."""
        task = self.runner.shown
        if task is None:
            return
        self.label.setText(task.text)
        self.set_progress(task.percent)
        self.cancel_button.setText(task.cancel_text)
        self.cancel_button.setToolTip(f"Stops {task.stops} only; other work goes on")
        self.cancel_button.setVisible(not task.always_runs)

    def cancel_shown(self) -> None:
        """Stop the work the status bar shows (its view says what was cancelled), nothing else."""
        task = self.runner.cancel_shown()
        if task is not None and not task.always_runs:
            self.bar.showMessage(f"Cancelled: {task.stops}")

    def set_progress(self, value: int) -> None:
        """A new percentage, painted with the next repaint of the window: QProgressBar repaints
        at once on a new value (the whole window's pending paints with it), on the UI thread
        that a running task competes with."""
        self.progress.setUpdatesEnabled(False)
        self.progress.setValue(value)
        self.progress.setUpdatesEnabled(True)   # asks for a repaint (an update) instead

    def busy(self, busy: bool, text: str) -> None:
        for widget in (self.label, self.progress, self.cancel_button):
            widget.setVisible(busy)
        self.label.setText(text)
        self.set_progress(0)
        if busy:
            self.show_task()
