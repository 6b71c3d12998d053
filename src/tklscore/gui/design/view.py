"""The Design view (issue 11 §6): design a release and watch every score move.

Composed panels over one Qt-free design session (:mod:`tklscore.core.release.session`):
left, the columns (role, hierarchy, level slider, published, perturbed; record
suppression; ``columns_panel.py``), the constraints of a search for suggested releases
(``suggestions_panel.py``) and the export buttons (``export_panel.py``); right, the results
(``results_panel.py``): scores, utility, privacy models and risk, notes, the published
table and the suppressed rows, and the suggested releases as a Pareto chart to click.

Every change re-evaluates in the background (the workbench's task runner); a newer design
cancels the one still being evaluated. The session owns the designer (in memory, or an
engine over a file too large for memory) and its life; the hierarchies, the design on
screen and the saved designs are kept in the project file."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Qt
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from tklscore.core.errors import Cancelled, InputError
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.session import (DESIGNED, DesignOffer, DesignSession, DesignSource, Evaluation,
                                           design_source, named_as_saved)
from tklscore.core.release.transform import ReleaseDesign
from tklscore.gui.design.columns_panel import ColumnsPanel
from tklscore.gui.design.export_panel import ExportPanel
from tklscore.gui.design.hierarchy_dialog import HierarchyDialog
from tklscore.gui.design.results_panel import ResultsPanel
from tklscore.gui.design.suggestions_panel import SuggestionsPanel
from tklscore.gui.when_shown import WhenShown

SUGGESTIONS_TAB = 2
DEBOUNCE_MS = 120


class DesignView(QWidget):
    def __init__(self, workbench, parent=None):
        super().__init__(parent)
        self.workbench = workbench
        self.session = DesignSession()
        self.evaluation: Evaluation | None = None
        self._current_release = workbench.project.current_release
        self._generation = 0
        self._task = None
        self._search = None   # the search under way (an evaluation started meanwhile waits behind it)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self.evaluate)
        self._when_shown = WhenShown(self, self._timer.start)
        self.columns_panel = ColumnsPanel(self.session.state)
        self.suggestions_panel = SuggestionsPanel(self)
        self.export = ExportPanel(workbench, self.session, lambda: self.evaluation, self.design)
        self.export.selected_column = self.columns_panel.selected_column
        self.results = ResultsPanel()
        self.results.tabs.addTab(self.suggestions_panel.tab, "Suggested releases")
        self._lay_out()
        self._alias_panels()

        self.columns_panel.changed.connect(self.schedule)
        self.columns_panel.settled.connect(self._evaluate_now)
        self.columns_panel.released.connect(self._released)
        self.columns_panel.hierarchyRequested.connect(self.edit_hierarchy)
        self.suggestions_panel.suggestRequested.connect(self.run_suggest)
        self.suggestions_panel.releaseChosen.connect(self.load_release)
        workbench.sourceChanged.connect(self.reload)
        workbench.modelChanged.connect(self.schedule)
        workbench.releasesChanged.connect(self._release_chosen)
        session = self.session
        self.destroyed.connect(lambda *_: _close_engine(workbench, session))
        self.reload()

    def _lay_out(self) -> None:
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.addWidget(self.columns_panel, 1)
        left_layout.addWidget(self.suggestions_panel.constraints_box)
        left_layout.addWidget(self.export)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(self.results)
        splitter.setStretchFactor(1, 2)
        splitter.setSizes([680, 920])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    def _alias_panels(self) -> None:
        """The panels' parts that the application, its scripts and tests work with."""
        for name in ("columns", "sliders", "perturb_boxes", "suppress_below", "budget"):
            setattr(self, name, getattr(self.columns_panel, name))
        for name in ("headline", "engine_note", "scores", "utility_table", "privacy_table", "notes", "tabs",
                     "preview_model", "suppressed_list"):
            setattr(self, name, getattr(self.results, name))
        for name in ("k_min", "l_min", "t_max", "tkl_limited", "tkl_max", "suggest_button", "suggest_message",
                     "chart", "points", "front_table", "load_candidate"):
            setattr(self, name, getattr(self.suggestions_panel, name))
        for name in ("save_button", "command_button", "export_button", "export_hierarchy_button", "report_button",
                     "save_as_release", "copy_as_command", "export_table", "export_report", "export_hierarchy"):
            setattr(self, name, getattr(self.export, name))

    # ------------------------------------------------------------------ what the view shows
    @property
    def result(self):
        """The evaluated design on screen (a design result of either engine)."""
        return self.evaluation.result if self.evaluation is not None else None

    @property
    def designer(self):
        return self.session.designer

    @property
    def hierarchies(self) -> dict[str, Hierarchy]:
        return self.session.state.hierarchies

    @property
    def suggestions(self):
        return self.suggestions_panel.suggestions

    def _settings(self) -> dict:
        return self.workbench.project.settings.setdefault("design", {})

    def _columns(self) -> list[str] | None:
        """The source's columns: the loaded table's, or those an engine read (None: not yet)."""
        wb = self.workbench
        if wb.table is not None:
            return list(wb.table.columns)
        summary = wb.source_summary if wb.source is not None else None
        return list(summary.columns) if summary is not None else None

    def reload(self) -> None:
        """Columns and hierarchies of the workbench's source and roles, and what the view
        offers for it (core's :class:`DesignOffer`)."""
        wb, state = self.workbench, self.session.state
        state.load(self._settings(), wb.project.builtin)
        summary = wb.source_summary
        offer = DesignOffer.of(wb.source, summary.rows if summary is not None else None)
        self.results.show_engine_note(offer.note)
        self.suggestions_panel.offer(offer.suggest_refused, offer.suggest_note)
        self.export.set_offer(offer)
        names = self._columns()
        if names is not None:
            state.restrict(names, wb.project.roles, offer.noise)
        self.columns_panel.fill(names, wb.project.roles, offer.noise)
        if names is not None:
            self.schedule()

    def _designed_release(self) -> dict | None:
        """The saved design the Release chooser made current (None: a defined release is)."""
        project = self.workbench.project
        return project.designed(project.current_release)

    def _release_chosen(self) -> None:
        """Another release is current: a designed one is loaded onto the sliders (the workbench
        made its design the one being built: core's ``take_up_designed``); a defined one is
        designed on its rows."""
        current = self.workbench.project.current_release
        chosen, self._current_release = current != self._current_release, current
        if chosen and self._designed_release() is not None:
            self.reload()
        else:
            self.schedule()

    def design(self, name: str | None = None) -> ReleaseDesign:
        """The release on screen: the current release's rows (a designed release: the rows it
        was designed from), transformed as set here; named as saved when it was."""
        project = self.workbench.project
        designed = self._designed_release()
        if designed is not None:
            selection = ReleaseDesign.from_dict(designed).selection
        else:
            selection = project.release(project.current_release) if project.current_release else None
        design = self.session.state.design(name or DESIGNED, selection)
        return design if name else named_as_saved(design, self._settings().get("saved") or [])

    def constraints(self):
        return self.suggestions_panel.constraints(self.session.state.suppression_limit)

    # ------------------------------------------------------------------ the officer's changes
    def set_perturbed(self, column: str, how: str | None, epsilon: float = 10.0) -> None:
        self.session.state.set_perturbed(column, how, epsilon)
        self.schedule()

    def set_published(self, column: str, published: bool) -> None:
        self.session.state.set_published(column, published)
        self.schedule()

    def set_hierarchy(self, column: str, hierarchy: Hierarchy | None) -> None:
        self.session.state.set_hierarchy(column, hierarchy)
        self._settings()["hierarchies"] = [h.to_dict() for h in self.hierarchies.values()]
        self.workbench._mark(True)
        self.reload()

    def load_levels(self, levels: dict[str, int]) -> None:
        self.columns_panel.show_levels(levels)
        self.schedule()

    def load_release(self, release: dict) -> None:
        """A suggested release on the sliders, with the suppression that made it."""
        state = self.session.state
        if "suppress_below" in release:
            state.suppress_below, state.suppression_limit = release["suppress_below"], release["suppression_limit"]
            self.columns_panel.show_suppression()
        self.load_levels(release["levels"])

    def edit_hierarchy(self, column: str, open_dialog: bool = True) -> None:
        """The hierarchy builder over the column's distinct values and their counts, asked of
        the source on the task runner (an engine reads the file); it opens when they arrive."""
        import pandas as pd

        source = self.workbench.source
        if source is None:
            return

        def work(control):
            control.progress(10, f"Reading the values of '{column}'")
            return source.column_values(column)

        def done(frame) -> None:
            counts = pd.Series(frame["count"].to_numpy(), index=pd.Index(frame["value"].astype(str), dtype=object))
            self.value_counts = counts
            if open_dialog:
                dialog = HierarchyDialog(column, None, self.hierarchies.get(column), self, counts=counts)
                if dialog.exec() and dialog.hierarchy is not None:
                    self.set_hierarchy(column, dialog.hierarchy)

        self.workbench.status.emit(f"Reading the distinct values of '{column}'…")
        def stopped(_value) -> None:
            self.workbench.status.emit(f"Reading the values of '{column}' was cancelled: its hierarchy "
                                       "builder did not open. Ask for it again to open it.")

        self.workbench.runner.start(f"Reading the values of '{column}'", work, done, self.workbench._fail,
                                    owner=self, on_cancelled=stopped, cancel_text="Cancel reading the values")

    # ------------------------------------------------------------------ evaluation
    def schedule(self) -> None:
        self._when_shown.request()

    def _evaluate_now(self) -> None:
        self._timer.stop()
        self.evaluate()

    def _released(self) -> None:
        if self._timer.isActive():
            self._evaluate_now()

    def _source(self) -> DesignSource | str:
        """What the session designs over, or what is missing, in words."""
        wb = self.workbench
        source = design_source(wb.source, self._columns() is not None, self.hierarchies, wb.weights_model())
        if not isinstance(source, str) and wb.weights is None:
            return wb.weights_problem or "Choose weights: a tkl-Data Model or a weights file."
        return source

    def evaluate(self) -> None:
        source = self._source()
        if isinstance(source, str):
            self.results.say(source)
            return
        self.session.state.save(self._settings(), self.design().selection)
        session, design, weights, x = self.session, self.design(), self.workbench.weights, self.workbench.project.x
        title = source.title

        def progress(control, fraction: float) -> None:
            if source.reports_progress:
                control.progress(int(5 + 90 * fraction), title)
            else:   # in memory an evaluation takes a moment: only a cancel is checked
                control.check()

        def work(control):
            if source.reports_progress:
                control.progress(2, title)
            return session.evaluate(source, design, weights, x, lambda f: progress(control, f),
                                    lambda: control.cancelled)

        self.results.evaluating()
        self._run(title, work, self.show_evaluation)

    def _run(self, title: str, work, show) -> None:
        """``work`` on the task runner, superseding the evaluation still running; ``show``
        gets its value unless a newer one was asked for meanwhile (a closed view's task
        calls nothing)."""
        self._generation += 1
        generation = self._generation

        def done(value) -> None:
            if generation == self._generation:
                show(value)

        def failed(message: str) -> None:
            if generation == self._generation:
                self.results.fail(message)

        def cancelled(_value) -> None:   # by the officer (a superseded one is newer's business)
            if generation == self._generation:
                self.results.stopped()

        def begun() -> None:
            if generation == self._generation:
                self.results.begun()

        if self._task is not None:   # a newer design supersedes the one still being evaluated
            self._task.cancel()
        self._task = self.workbench.runner.start(title, work, done, failed, owner=self, on_cancelled=cancelled,
                                                 cancel_text="Cancel the evaluation", stops="the design's evaluation")
        if self._search is not None and self._search in self.workbench.runner.current:
            self.results.waiting()   # the main lane runs one task at a time: this one after the search
            self._task.signals.begun.connect(begun)

    def show_evaluation(self, evaluation: Evaluation) -> None:
        self.evaluation = evaluation
        self.columns_panel.set_heights(evaluation.heights)
        self.results.show(evaluation)
        self.columns_panel.show_precision(evaluation.result.utility)

    # ------------------------------------------------------------------ suggested releases
    def run_suggest(self) -> None:
        source = self._source()
        if isinstance(source, str) or not self.suggestions_panel.offered:
            self.results.tabs.setCurrentIndex(SUGGESTIONS_TAB)
            if isinstance(source, str):
                self.results.say(source)
            return
        try:
            constraints = self.constraints()
        except InputError as error:
            self.workbench._fail(str(error))
            return
        session, weights, x = self.session, self.workbench.weights, self.workbench.project.x
        state = self.session.state
        base = ReleaseDesign(removed=state.removed, selection=self.design().selection)

        def work(control):
            def progress(fraction: float) -> None:
                try:
                    control.progress(int(100 * fraction), "Searching the lattice")
                except Cancelled:   # the search stops at its next release and returns what it found
                    pass
            return session.suggest(source, weights, constraints, base, x, progress, lambda: control.cancelled)

        panel = self.suggestions_panel
        panel.searching()
        self.results.tabs.setCurrentIndex(SUGGESTIONS_TAB)
        self._search = self.workbench.runner.start("Suggesting releases", work, panel.show, self._suggest_failed,
                                                   owner=self, on_cancelled=panel.stopped,
                                                   cancel_text="Cancel the search", stops="the search")

    def show_suggestions(self, found) -> None:
        self.suggestions_panel.show(found)

    def _suggest_failed(self, message: str) -> None:
        self.suggestions_panel.failed(message)
        self.workbench._fail(message)


def _close_engine(workbench, session: DesignSession) -> None:
    """Close the session's engine on the task runner's thread, which uses it."""
    if session.designer is None or not hasattr(session.designer, "backend"):
        return
    try:
        workbench.runner.start("Closing the out-of-core engine", lambda _control: session.close(),
                               lambda _value: None, lambda _message: None)
    except RuntimeError:   # the workbench is gone as well
        session.close()
