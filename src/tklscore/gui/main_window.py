"""The main window: the four views (Release, Scores, Model, AHP) over one Workbench and the
patient view (PIA's Patient Data Visualizer, independent of the Workbench), with
menus, undo/redo, a project file with recent files, a recovery copy and a status bar that
shows long work with its progress and a cancel button."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QFileDialog, QLabel, QMainWindow, QMessageBox, QProgressBar, QPushButton,
                               QTabWidget)

from tklscore import __version__
from tklscore.core.errors import InputError
from tklscore.gui.ahp.view import AhpView
from tklscore.gui.model.view import ModelView
from tklscore.gui.patient.view import PatientView
from tklscore.gui.release.view import ReleaseView
from tklscore.gui.risk.view import RiskView
from tklscore.gui.scores.view import ScoresView
from tklscore.gui.workbench import Workbench

VIEWS = ("release", "scores", "model", "ahp", "patient", "risk")
PROJECT_FILTER = "tkl-Score projects (*.tklproj);;All files (*)"
MAX_RECENT = 8


class MainWindow(QMainWindow):
    def __init__(self, workbench: Workbench | None = None, settings: QSettings | None = None):
        super().__init__()
        self.workbench = workbench or Workbench(self)
        self.settings = settings or QSettings("tklscore", "tkl-Score Workbench")
        self.resize(1600, 1000)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)
        self.views = {
            "release": ReleaseView(self.workbench, self),
            "scores": ScoresView(self.workbench, self),
            "model": ModelView(self.workbench, self),
            "ahp": AhpView(self.workbench, self),
        }
        self.views["patient"] = PatientView(self)
        self.views["risk"] = RiskView(self.workbench, self)
        self.views["risk"].recordActivated.connect(self._open_record_in_scores)
        titles = {"release": "&1 Release", "scores": "&2 Scores", "model": "&3 tkl-Data Model", "ahp": "&4 AHP",
                  "patient": "&5 Patient", "risk": "&6 Risk"}
        for key, view in self.views.items():
            self.tabs.addTab(view, titles[key])
        self.setCentralWidget(self.tabs)
        self._build_status_bar()
        self._build_menus()
        self.workbench.status.connect(self.statusBar().showMessage)
        self.workbench.failed.connect(self.show_error)
        self.workbench.dirtyChanged.connect(lambda _: self._update_title())
        self.workbench.releasesChanged.connect(self._update_title)
        self._update_title()
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)

    # ------------------------------------------------------------------ chrome

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.busy_label = QLabel("")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(200)
        self.progress.setRange(0, 100)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.workbench.runner.cancel_all)
        for widget in (self.busy_label, self.progress, self.cancel_button):
            bar.addPermanentWidget(widget)
            widget.hide()
        self.workbench.runner.busy.connect(self._busy)
        self.workbench.runner.progress.connect(lambda value, text: (self.progress.setValue(value),
                                                                     self.busy_label.setText(text)))

    def _busy(self, busy: bool, text: str) -> None:
        for widget in (self.busy_label, self.progress, self.cancel_button):
            widget.setVisible(busy)
        self.busy_label.setText(text)
        self.progress.setValue(0)

    def _action(self, menu, text, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "&New project", self.new_project, QKeySequence.StandardKey.New)
        self._action(file_menu, "&Open project…", self.open_project_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self._action(file_menu, "Open the thesis &example", lambda: self.guard(self.workbench.load_example))
        self._action(file_menu, "Recover &unsaved work…", self.offer_recovery)
        file_menu.addSeparator()
        self._action(file_menu, "&Save project", self.save_project, QKeySequence.StandardKey.Save)
        self._action(file_menu, "Save project &as…", self.save_project_as, QKeySequence.StandardKey.SaveAs)
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        edit_menu = self.menuBar().addMenu("&Edit")
        undo = self.workbench.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.workbench.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcut(QKeySequence.StandardKey.Redo)
        edit_menu.addAction(undo)
        edit_menu.addAction(redo)
        view_menu = self.menuBar().addMenu("&View")
        for index, key in enumerate(VIEWS):
            self._action(view_menu, self.tabs.tabText(index).replace("&", ""),
                         lambda _=False, i=index: self.tabs.setCurrentIndex(i), f"Ctrl+{index + 1}")
        help_menu = self.menuBar().addMenu("&Help")
        self._action(help_menu, "&About", self.about)
        self._refresh_recent()

    def _update_title(self) -> None:
        name = Path(self.workbench.project_path).name if self.workbench.project_path else (
            "thesis example" if self.workbench.project.builtin == "thesis" else "untitled")
        star = "*" if self.workbench.is_dirty() else ""
        self.setWindowTitle(f"{name}{star} — tkl-Score Workbench")

    def show_view(self, key: str) -> None:
        self.tabs.setCurrentIndex(VIEWS.index(key))

    # ------------------------------------------------------------------ errors

    def _open_record_in_scores(self, frame_row: int) -> None:
        self.show_view("scores")
        self.views["scores"].select_record(frame_row)

    def show_error(self, message: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, "tkl-Score Workbench", message, parent=self)
        box.setObjectName("errorDialog")
        box.open()

    def guard(self, function, *args) -> bool:
        """Run an action; bad input becomes a specific dialog, never a traceback."""
        try:
            function(*args)
            return True
        except InputError as error:
            self.show_error(str(error))
            return False
        except OSError as error:
            self.show_error(f"{error.filename or ''}: {error.strerror or error}")
            return False

    # ------------------------------------------------------------------ project files

    def new_project(self) -> None:
        if self.confirm_discard():
            self.workbench.new_project()

    def open_project_dialog(self) -> None:
        if not self.confirm_discard():
            return
        path, _ = QFileDialog.getOpenFileName(self, "Open project", "", PROJECT_FILTER)
        if path:
            self.open_project(path)

    def open_project(self, path: str) -> bool:
        if self.guard(self.workbench.open_project, path):
            self._remember(path)
            return True
        return False

    def save_project(self) -> bool:
        if not self.workbench.project_path:
            return self.save_project_as()
        return self.guard(self.workbench.save_project)

    def save_project_as(self) -> bool:
        path, _ = QFileDialog.getSaveFileName(self, "Save project", "release.tklproj", PROJECT_FILTER)
        if not path:
            return False
        if not path.endswith(".tklproj"):
            path += ".tklproj"
        if self.guard(self.workbench.save_project, path):
            self._remember(path)
            return True
        return False

    def confirm_discard(self) -> bool:
        if not self.workbench.is_dirty():
            return True
        answer = QMessageBox.question(
            self, "Unsaved changes", "The project has unsaved changes. Save them first?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel)
        if answer == QMessageBox.StandardButton.Save:
            return self.save_project()
        return answer == QMessageBox.StandardButton.Discard

    def _remember(self, path: str) -> None:
        recent = [p for p in self.settings.value("recent", [], list) if p != path]
        self.settings.setValue("recent", [path] + recent[:MAX_RECENT - 1])
        self._refresh_recent()
        self._update_title()

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.value("recent", [], list)
        for path in recent:
            self._action(self.recent_menu, path, lambda _=False, p=path: self.confirm_discard() and self.open_project(p))
        self.recent_menu.setEnabled(bool(recent))

    def offer_recovery(self, at_start: bool = False) -> None:
        """Offer the newest recovery copy left by a session that did not save."""
        copies = self.workbench.recovery_copies()
        if not copies:
            if not at_start:
                QMessageBox.information(self, "Recover unsaved work", "There is no unsaved work to recover.")
            return
        newest = copies[0]
        answer = QMessageBox.question(
            self, "Recover unsaved work",
            f"An earlier session ended with unsaved changes ({newest.name}). Open them now?\n\n"
            "Yes opens them as an unsaved project; No keeps the copy for later (File ▸ Recover unsaved work).")
        if answer == QMessageBox.StandardButton.Yes and self.confirm_discard():
            self.guard(self.workbench.open_recovery, str(newest))

    def about(self) -> None:
        QMessageBox.about(self, "About tkl-Score Workbench",
                          f"tkl-Score Workbench {__version__}\n\nHow misuseable is a data release? "
                          "tkl-Score, tkl-Score_max, M-Score and L-Severity, with weights from a "
                          "tkl-Data Model. Everything runs on this computer; nothing goes over the network.")

    def closeEvent(self, event) -> None:
        if not self.confirm_discard():
            event.ignore()
            return
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.workbench.runner.cancel_all()
        self.workbench.runner.wait(5000)
        event.accept()
