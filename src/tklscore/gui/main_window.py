"""The main window: a sidebar of views grouped by the person who uses them (gui.md §5, built
from the registry in :mod:`tklscore.gui.navigation`) over one Workbench, with menus,
undo/redo, a project file with recent files, a recovery copy, a first-run welcome page and
a status bar that names the current release, where its weights come from, and shows long
work with its progress and a cancel button. In patient mode only the patient view is shown."""

from __future__ import annotations

import contextlib
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QSettings, Qt
from PySide6.QtGui import QAction, QFont, QKeySequence
from PySide6.QtWidgets import (QComboBox, QFileDialog, QFrame, QInputDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QMainWindow,
                               QMessageBox, QStackedWidget, QVBoxLayout, QWidget)

from tklscore import __version__
from tklscore.core.errors import InputError
from tklscore.core.project import OutsideFolderError
from tklscore.core.scoring.weights_source import FILE, MODEL
from tklscore.gui.after_paint import next_turn
from tklscore.gui.guard import run_guarded
from tklscore.gui.navigation import OFFICER, PATIENT, WELCOME, ViewEntry, Views, ordered
from tklscore.gui.welcome import WelcomePage
from tklscore.gui.task_status import TaskStatus
from tklscore.gui.workbench import Workbench, score_again

PROJECT_FILTER = "tkl-Score projects (*.tklproj);;All files (*)"
MAX_RECENT = 8
KEY_ROLE = Qt.ItemDataRole.UserRole
WELCOME_SEEN = "welcome/seen"
# A view put on show for the first time asks for its layout a few times over (a word-wrapped
# label's height once its width is known, a chart's axes): laid out before its first paint, that
# paint is its only one (else the whole view paints twice, the second time against the work it started)
LAYOUT_PASSES = 3


def weights_source(workbench: Workbench) -> str:
    """Where the current weights come from, in a few words (the Scores view can switch)."""
    source = workbench.weights_source()
    if source is None:
        return "weights not used (see the Scores view)" if workbench.project.weights_path and \
            workbench.weights_problem else "no weights yet"
    if source.kind == MODEL:
        return "weights from the tkl-Data Model"
    if source.kind == FILE:
        return f"weights from {Path(source.name).name}"
    return "weights from each score's own model"


def release_records(workbench: Workbench) -> str:
    report = workbench.current_report()
    name = workbench.project.current_release
    if report is None and name in workbench.release_errors:
        return ("(filter refused, not scored: see the Release view)" if name in workbench.refused_releases
                else "(not scored: see the Release view)")
    return f"({report.published_rows:,} of {report.source_rows:,} records)" if report is not None else ""


def release_summary(workbench: Workbench) -> str:
    name = workbench.project.current_release
    if not name:
        return "No release yet"
    return " ".join(filter(None, [f"Release: {name}", release_records(workbench)]))


class ViewPage(QWidget):
    """A view's page in the window: the view's purpose line atop it and the view below, built
    (through the window's :class:`Views`) the first time the page is shown."""

    def __init__(self, entry: ViewEntry, views: Views):
        super().__init__()
        self.key, self.views = entry.key, views
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        purpose = QLabel(entry.purpose)
        purpose.setObjectName("purpose")
        purpose.setWordWrap(True)
        purpose.setStyleSheet("#purpose { padding: 6px 10px; background: palette(alternate-base); }")
        layout.addWidget(purpose)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.views[self.key]


class MainWindow(QMainWindow):
    def __init__(self, workbench: Workbench | None = None, settings: QSettings | None = None,
                 patient_mode: bool = False):
        super().__init__()
        self.workbench = workbench or Workbench(self)
        self.settings = settings or QSettings("tklscore", "tkl-Score Workbench")
        self.patient_mode = patient_mode
        self.resize(1600, 1000)
        self.entries: list[ViewEntry] = [e for e in ordered() if not patient_mode or e.group == PATIENT]
        # each view is built when its page is first shown or the view first asked for (views[key]):
        # a window starts with the view on show only
        self.views = Views([entry.key for entry in self.entries], self._build_view)
        self._shown: set[str] = set()          # the views put on show at least once
        self._opening: str | None = None       # a view asked for by a click, built, shown at the next turn
        self.pages: dict[str, ViewPage] = {}
        self.stack = QStackedWidget()
        self.stack.setObjectName("views")
        for entry in self.entries:
            self.pages[entry.key] = ViewPage(entry, self.views)
            self.stack.addWidget(self.pages[entry.key])
        self.welcome = WelcomePage(can_learn="learn" in self.views)
        self.welcome.chosen.connect(self._welcome_choice)
        self.stack.addWidget(self.welcome)
        self.release_header = self._build_release_header()
        self.sidebar = self._build_sidebar()
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.setSpacing(0)
        right_layout.addWidget(self.release_header)
        self.engine_banner = QLabel()  # shown while the source is scored out of core (the rule is in core)
        self.engine_banner.setObjectName("engineBanner")
        self.engine_banner.setWordWrap(True)
        self.engine_banner.setStyleSheet("#engineBanner { background: #fff4d6; border-bottom: 1px solid #e0c060; "
                                         "padding: 6px 12px; }")
        self.engine_banner.hide()
        self.workbench.engineChanged.connect(lambda text: (self.engine_banner.setText(text),
                                                           self.engine_banner.setVisible(bool(text))))
        self.workbench.memory_share = float(self.settings.value("engines/memory_share", self.workbench.memory_share))
        right_layout.addWidget(self.engine_banner)
        right_layout.addWidget(self.stack, 1)
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.sidebar)
        layout.addWidget(right, 1)
        self.setCentralWidget(central)
        self._build_status_bar()
        self._build_menus()
        self.workbench.status.connect(self.statusBar().showMessage)
        self.workbench.failed.connect(self.show_error)
        self.workbench.dirtyChanged.connect(lambda _: self._update_title())
        self.workbench.releasesChanged.connect(self._update_title)
        for signal in (self.workbench.releasesChanged, self.workbench.scoresChanged, self.workbench.modelChanged,
                       self.workbench.sourceChanged):
            signal.connect(self._update_release_info)
        if patient_mode:
            self.sidebar.hide()
            self.statusBar().hide()
        self._select(self.entries[0].key)   # built when the window is shown on it, if start() shows no other
        self._update_title()
        self._update_release_info()
        geometry = self.settings.value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)

    # ------------------------------------------------------------------ navigation

    def _build_view(self, key: str) -> QWidget:
        """Build a view into its page (Views calls this once, at its first use). A view brings
        itself up to date with the workbench as it is built and follows its signals from then on."""
        entry = next(e for e in self.entries if e.key == key)
        view = entry.create(self.workbench, self)
        page = self.pages[key]
        page.layout().addWidget(view, 1)
        view.show()   # with its page: at once if the page is on show, not at the next turn of the event loop
        if entry.group == OFFICER and hasattr(view, "hide_own_release_chooser"):
            view.hide_own_release_chooser()
        if key == "risk" and "scores" in self.views:
            view.recordActivated.connect(self._open_record_in_scores)
        return view

    def _build_sidebar(self) -> QListWidget:
        sidebar = QListWidget()
        sidebar.setObjectName("sidebar")
        sidebar.setFixedWidth(230)
        sidebar.setFrameShape(QFrame.Shape.NoFrame)
        sidebar.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Ctrl+1… reach the views from the keyboard
        sidebar.setStyleSheet("#sidebar { background: palette(window); border-right: 1px solid palette(mid); }"
                              "#sidebar::item { padding: 5px 8px; }")
        group = None
        for number, entry in enumerate(self.entries, start=1):
            if entry.group != group:
                group = entry.group
                header = QListWidgetItem(group)
                header.setFlags(Qt.ItemFlag.ItemIsEnabled)
                font = QFont(header.font())
                font.setBold(True)
                header.setFont(font)
                sidebar.addItem(header)
            item = QListWidgetItem(f"    {entry.title}")
            item.setData(KEY_ROLE, entry.key)
            item.setToolTip(f"{entry.purpose}\n({self._shortcut(number)})" if number <= 9 else entry.purpose)
            sidebar.addItem(item)
        sidebar.currentItemChanged.connect(self._sidebar_changed)
        return sidebar

    @staticmethod
    def _shortcut(number: int) -> str:
        return f"Ctrl+{number}"

    def _sidebar_changed(self, item: QListWidgetItem | None, _previous=None) -> None:
        key = item.data(KEY_ROLE) if item is not None else None
        if key and self.current_key() != key:
            self.open_view(key)

    def open_view(self, key: str) -> None:
        """Show a view as a click (the sidebar, Ctrl+1…, the View menu) asks for it: one not
        built yet is built in this turn of the event loop, off screen, and shown, laid out and
        painted in the next (so that neither turn blocks the window for as long as both would:
        the click's sidebar row is painted in between), unless another view was asked for meanwhile."""
        if key == WELCOME or not self.isVisible() or self.views.is_built(key) or key not in self.pages:
            self.show_view(key)
            return
        self._opening = key
        self.sidebar.blockSignals(True)   # the row marked at once (Ctrl+1…); the view follows
        self._select_row(key)
        self.sidebar.blockSignals(False)
        self.views[key]
        next_turn(lambda: self.show_view(key) if self._opening == key else None)

    def sidebar_keys(self) -> list[str]:
        """The views in the sidebar, top to bottom."""
        return [self.sidebar.item(i).data(KEY_ROLE) for i in range(self.sidebar.count())
                if self.sidebar.item(i).data(KEY_ROLE)]

    def _open_record_in_scores(self, frame_row: int) -> None:
        self.show_view("scores")
        self.views["scores"].select_record(frame_row)

    def show_view(self, key: str) -> None:
        if key == WELCOME:
            self.show_welcome()
            return
        if key not in self.pages:
            raise InputError(f"there is no view '{key}' here (views: {', '.join(self.pages)})")
        self._opening = None
        first = key not in self._shown
        self._shown.add(key)
        self.views[key]
        self._select(key)
        if first and self.isVisible():   # laid out now, before its first paint
            for _ in range(LAYOUT_PASSES):
                QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)

    def _select(self, key: str) -> None:
        """Put the page of ``key`` on show and mark it in the sidebar (the page builds its view when shown)."""
        self.stack.setCurrentWidget(self.pages[key])
        self._select_row(key)
        self._update_release_info()

    def _select_row(self, key: str) -> None:
        for i in range(self.sidebar.count()):
            if self.sidebar.item(i).data(KEY_ROLE) == key:
                self.sidebar.setCurrentRow(i)

    def show_welcome(self) -> None:
        self.stack.setCurrentWidget(self.welcome)
        self.sidebar.setCurrentRow(-1)
        self.settings.setValue(WELCOME_SEEN, True)
        self._update_release_info()

    def start(self, view: str | None, opened: bool) -> str:
        """Show the view asked for; else, on the first run with nothing opened, the welcome page."""
        if view is None and not opened and not self.patient_mode and not self.welcome_seen():
            view = WELCOME
        self.show_view(view or self.entries[0].key)
        return self.current_key()

    def welcome_seen(self) -> bool:
        return self.settings.value(WELCOME_SEEN, False, bool)

    def current_key(self) -> str:
        page = self.stack.currentWidget()
        if page is self.welcome:
            return WELCOME
        return next(key for key, candidate in self.pages.items() if candidate is page)

    def current_view(self) -> QWidget:
        key = self.current_key()
        return self.welcome if key == WELCOME else self.views[key]

    def _welcome_choice(self, choice: str) -> None:
        if choice == "example":
            if self.confirm_discard() and self.guard(self.workbench.load_example, "thesis"):
                self.show_view("scores")
        elif choice == "open":
            self.show_view("release")
            self.views["release"].open_source_dialog()
        elif choice == "learn":
            self.show_view("learn")

    def _build_release_header(self) -> QFrame:
        """The current release, once, above the officer's views: a chooser, its records, its weights."""
        header = QFrame()
        header.setObjectName("releaseHeader")
        header.setStyleSheet("#releaseHeader { border-bottom: 1px solid palette(mid); }"
                             "#releaseHeader QLabel, #releaseHeader QComboBox { font-size: 12pt; }")
        layout = QHBoxLayout(header)
        layout.setContentsMargins(10, 6, 10, 6)
        self.release_title = QLabel("<b>Release:</b>")
        self.release_chooser = QComboBox()
        self.release_chooser.setObjectName("releaseChooser")
        self.release_chooser.setMinimumContentsLength(14)
        self.release_chooser.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.release_chooser.setToolTip("The release the officer's views work on; define releases in the Release view")
        self.release_chooser.activated.connect(
            lambda index: self.guard(self.workbench.set_current_release, self.release_chooser.itemText(index)))
        self.release_details = QLabel()
        for widget in (self.release_title, self.release_chooser, self.release_details):
            layout.addWidget(widget)
        layout.addStretch(1)
        return header

    def _update_release_info(self) -> None:
        workbench = self.workbench
        text = f"{release_summary(workbench)} · {weights_source(workbench)}"
        # at most a third of the status bar, elided in the middle: a long release name leaves room for messages
        self.release_info.setText(self.release_info.fontMetrics().elidedText(
            text, Qt.TextElideMode.ElideMiddle, max(self.width() // 3, 300)))
        self.release_info.setToolTip(text)
        names, current = workbench.release_names(), workbench.project.current_release
        self.release_chooser.blockSignals(True)
        if [self.release_chooser.itemText(i) for i in range(self.release_chooser.count())] != names:
            self.release_chooser.clear()
            self.release_chooser.addItems(names)
        self.release_chooser.setCurrentIndex(names.index(current) if current in names else -1)
        self.release_chooser.blockSignals(False)
        self.release_chooser.setVisible(bool(names))
        self.release_title.setText("<b>Release:</b>" if names else "<b>No release yet</b> ·")
        self.release_details.setText(" · ".join(filter(None, [release_records(workbench) if current else "",
                                                              weights_source(workbench)])))
        officer = self.current_key() != WELCOME and any(
            e.key == self.current_key() and e.group == OFFICER for e in self.entries)
        self.release_header.setVisible(officer)

    # ------------------------------------------------------------------ chrome

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.release_info = QLabel("")
        self.release_info.setObjectName("releaseInfo")
        bar.addPermanentWidget(self.release_info)
        self.task_status = TaskStatus(bar, self.workbench.runner)
        self.busy_label, self.progress = self.task_status.label, self.task_status.progress
        self.cancel_button = self.task_status.cancel_button

    def _action(self, menu, text, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.recent_menu = None
        if not self.patient_mode:
            self._action(file_menu, "&New project", self.new_project, QKeySequence.StandardKey.New)
            self._action(file_menu, "&Open project…", self.open_project_dialog, QKeySequence.StandardKey.Open)
            self.recent_menu = file_menu.addMenu("Open &recent")
            self._action(file_menu, "Open the thesis &example", lambda: self.guard(self.workbench.load_example))
            self._action(file_menu, "Recover &unsaved work…", self.offer_recovery)
            file_menu.addSeparator()
            self._action(file_menu, "&Save project", self.save_project, QKeySequence.StandardKey.Save)
            self._action(file_menu, "Save project &as…", self.save_project_as, QKeySequence.StandardKey.SaveAs)
            file_menu.addSeparator()
            if "model" in self.views:   # the domain expert's tkl-Data Model (the Model view does the work)
                self._action(file_menu, "New &model from source…", lambda: self._model_file("new_model_dialog"))
                self._action(file_menu, "Open mo&del…", lambda: self._model_file("open_model_dialog"))
                self._action(file_menu, "Save model as…", lambda: self._model_file("save_model_dialog"))
                file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)
        if not self.patient_mode:
            edit_menu = self.menuBar().addMenu("&Edit")
            undo = self.workbench.undo_stack.createUndoAction(self, "&Undo")
            undo.setShortcut(QKeySequence.StandardKey.Undo)
            redo = self.workbench.undo_stack.createRedoAction(self, "&Redo")
            redo.setShortcut(QKeySequence.StandardKey.Redo)
            edit_menu.addAction(undo)
            edit_menu.addAction(redo)
            edit_menu.addSeparator()
            self._action(edit_menu, "&Memory for sources…", self.choose_memory_share)
            self._action(edit_menu, "&Score again", lambda: score_again(self.workbench), QKeySequence(Qt.Key.Key_F5))
            view_menu = self.menuBar().addMenu("&View")
            self.view_actions: dict[str, QAction] = {}
            for number, entry in enumerate(self.entries, start=1):
                self.view_actions[entry.key] = self._action(
                    view_menu, entry.title, lambda _=False, k=entry.key: self.open_view(k),
                    self._shortcut(number) if number <= 9 else None)
        help_menu = self.menuBar().addMenu("&Help")
        if not self.patient_mode:
            self._action(help_menu, "&Welcome page", self.show_welcome)
        self._action(help_menu, "&About", self.about)
        self._refresh_recent()

    def _model_file(self, action: str) -> None:
        self.show_view("model")
        getattr(self.views["model"], action)()

    def _update_title(self) -> None:
        if self.patient_mode:
            self.setWindowTitle("Patient Data Visualizer — tkl-Score Workbench")
            return
        name = Path(self.workbench.project_path).name if self.workbench.project_path else (
            "thesis example" if self.workbench.project.builtin == "thesis" else "untitled")
        star = "*" if self.workbench.is_dirty() else ""
        self.setWindowTitle(f"{name}{star} — tkl-Score Workbench")

    # ------------------------------------------------------------------ errors

    def show_error(self, message: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, "tkl-Score Workbench", message, parent=self)
        box.setObjectName("errorDialog")
        box.open()

    def guard(self, function, *args) -> bool:
        """Run an action; bad input becomes a specific dialog, never a traceback."""
        return run_guarded(self.show_error, function, *args)

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
        """Open a project file; files it names outside its folder are read only if the user
        says so (a project file can come from anyone)."""
        asked: list[OutsideFolderError] = []

        def attempt() -> None:
            try:
                self.workbench.open_project(path)
            except OutsideFolderError as outside:  # a question, not an error
                asked.append(outside)

        opened = self.guard(attempt)
        if opened and asked:
            if not self.allow_outside(asked[0]):
                self.workbench.status.emit(f"Did not open {path}: it names files outside its folder")
                return False
            opened = self.guard(self.workbench.open_project, path, [p for _, p in asked[0].paths])
        if opened:
            self._remember(path)
        return opened

    def allow_outside(self, outside: OutsideFolderError) -> bool:
        """Ask whether to read the files a project names outside its folder."""
        listed = "\n".join(f"  • {what}: {path}" for what, path in outside.paths[:15])
        more = f"\n  … and {len(outside.paths) - 15} more" if len(outside.paths) > 15 else ""
        box = QMessageBox(QMessageBox.Icon.Question, "Files outside the project's folder",
                          f"The project {Path(outside.project_file).name} reads files outside its folder:\n\n"
                          f"{listed}{more}\n\nA project file can come from anyone. Read these files only if you "
                          f"expect this project to use them.", parent=self)
        box.setObjectName("outsideFolderQuestion")
        read = box.addButton("Read them and open", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Do not open", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(box.buttons()[-1])
        box.exec()
        if box.clickedButton() is not read:
            return False
        with contextlib.suppress(InputError, OSError):  # not remembering costs a question next time
            self.workbench.allow_paths(outside.project_file, [p for _, p in outside.paths])
        return True

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
        if self.recent_menu is None:
            return
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

    def choose_memory_share(self) -> None:
        percent, ok = QInputDialog.getInt(
            self, "Memory for sources",
            "A source whose size in memory would exceed this share of the memory available is not "
            "loaded: it is scored out of core by DuckDB, reading the file as it goes. The numbers are "
            "the same either way; out of core is slower but needs little memory.\n\n"
            "Share of the available memory (%):", round(100 * self.workbench.memory_share), 0, 100, 5)
        if ok:
            self.set_memory_share(percent / 100)

    def set_memory_share(self, share: float) -> None:
        """Keep the share (a setting) and apply it to the open source."""
        if self.guard(self.workbench.set_memory_share, share):
            self.settings.setValue("engines/memory_share", self.workbench.memory_share)

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
