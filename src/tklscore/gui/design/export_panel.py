"""The Design view's export panel: what the officer does with a designed release — save it
as a release of the project (it joins the Release chooser and the Scores view's
comparison), copy it as a command (the ``tklscore release`` line and the design JSON that
evaluate it again outside the window), export the published table, a hierarchy (ARX CSV)
or the release's report."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QInputDialog, QPushButton, QWidget

from tklscore.core.errors import InputError
from tklscore.core.files.atomic import atomic_write
from tklscore.core.release.command import DesignRecipe, RecipeInputs, design_recipe
from tklscore.core.release.session import DesignOffer, DesignSession, Evaluation, save_design
from tklscore.gui.tasks import write_cancelled

REPORT_TIP = ("the report of the designed release: how it was made, its scores, privacy models, risk and utility, "
              "and the command that evaluates it again (HTML or PDF)")
COMMAND_TIP = ("the tklscore release command line and the design JSON that evaluate this release again outside "
               "the window, with the same numbers (the command is copied to the clipboard)")


class ExportPanel(QWidget):
    """The buttons under the columns and what they do. ``current()`` is the evaluation on
    screen (None: none yet); ``design(name)`` the design on screen under that name."""

    def __init__(self, workbench, session: DesignSession, current: Callable[[], Evaluation | None],
                 design: Callable[..., object], parent=None):
        super().__init__(parent)
        self.workbench, self.session, self.current, self.design = workbench, session, current, design
        self.selected_column: Callable[[], str | None] = lambda: None
        self.command_dialog = None
        self.offer = DesignOffer()   # what is offered for the source (core's rule)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.save_button = QPushButton("Save as release")
        self.save_button.setToolTip("keep this design as a release of the project: it joins the Release chooser "
                                    "and the Scores view's comparison")
        self.command_button = QPushButton("Copy as command…")
        self.command_button.setToolTip(COMMAND_TIP)
        self.export_button = QPushButton("Export table…")
        self.export_hierarchy_button = QPushButton("Export hierarchy…")
        self.report_button = QPushButton("Export report…")
        self.report_button.setToolTip(REPORT_TIP)
        self.save_button.clicked.connect(lambda: self.save_as_release())
        self.command_button.clicked.connect(lambda: self.copy_as_command())
        self.export_button.clicked.connect(lambda: self.export_table())
        self.export_hierarchy_button.clicked.connect(lambda: self.export_hierarchy())
        self.report_button.clicked.connect(lambda: self.export_report())
        for button in (self.save_button, self.command_button, self.export_button, self.export_hierarchy_button,
                       self.report_button):
            row.addWidget(button)

    def set_offer(self, offer: DesignOffer) -> None:
        """The report offered or not; the copied command evaluates with the view's engine."""
        self.offer = offer
        self.report_button.setEnabled(offer.report_refused is None)
        self.report_button.setToolTip(offer.report_refused or REPORT_TIP)

    def _fail(self, message: str) -> None:
        self.workbench._fail(message)

    # ------------------------------------------------------------------ save as release
    def save_as_release(self, name: str | None = None) -> bool:
        evaluation, workbench = self.current(), self.workbench
        if evaluation is None:
            return False
        if not name:
            name, ok = QInputDialog.getText(self, "Save as release", "Name of the release:")
            if not ok or not name.strip():
                return False
        design = self.design(name.strip())
        project = workbench.project
        try:
            save_design(project.settings.setdefault("design", {}), design, [r.name for r in project.releases])
        except InputError as error:
            self._fail(str(error))
            return False
        report = self.report_with_ids(evaluation)
        workbench.designed_reports[design.name] = report
        workbench.reports[design.name] = report
        if evaluation.result.risk is not None:
            workbench.measures[design.name] = evaluation.result.risk
        workbench._mark(True)
        workbench.scoresChanged.emit()   # the Release chooser and the Scores view's comparison list it
        workbench.status.emit(f"Saved '{design.name}': it is in the Release chooser and the Scores view's comparison")
        return True

    def report_with_ids(self, evaluation: Evaluation, scorer=None):
        """The result's report with the records' ids (the view evaluates by row positions);
        ``scorer``: the workbench's, taken on the UI thread (this may run in a task)."""
        result, scorer = evaluation.result, scorer or self.workbench.scorer
        transformed = getattr(result, "transformed", None)
        if scorer is None or transformed is None:
            return result.report
        records = result.report.records.copy()
        records["id"] = scorer.ids_of(transformed.published)
        return dataclasses.replace(result.report, records=records)

    # ------------------------------------------------------------------ copy as command
    def named(self) -> Evaluation | None:
        """The evaluation on screen, its design named as it was saved (a release is named once)."""
        evaluation = self.current()
        return evaluation.renamed(self.design().name) if evaluation is not None else None

    def recipe(self, folder: str | None = None) -> tuple[DesignRecipe, dict[str, str]]:
        """The command and design JSON of the release on screen (files placed in ``folder``)."""
        evaluation, workbench = self.named(), self.workbench
        project, model = workbench.project, workbench.weights_model()
        inputs = RecipeInputs(
            evaluation.design, dict(self.session.state.hierarchies), project.roles, project.x,
            None if project.builtin else project.source_path, dict(project.source_options or {}), project.builtin,
            weights=None if model is not None else project.weights_path,
            model=model.to_graph().serialize(format="turtle") if model is not None else None,
            engine=self.offer.engine)
        return design_recipe(inputs, folder)

    def copy_as_command(self, folder: str | None = None) -> str | None:
        """Write the design JSON (and the source or model when they are not files) into a
        folder, copy the command that reads them to the clipboard and show both."""
        if self.current() is None:
            return None
        if folder is None:
            start = str(Path(self.workbench.project_path).parent) if self.workbench.project_path else ""
            folder = QFileDialog.getExistingDirectory(self, "Folder for the design file the command reads", start)
            if not folder:
                return None
        project = self.workbench.project
        try:
            recipe, files = self.recipe(folder)
            inputs = [p for p in (project.source_path, project.weights_path) if p]
            for path, text in files.items():
                with atomic_write(path, inputs=inputs) as handle:
                    handle.write(text)
        except (InputError, OSError) as error:
            self._fail(str(error))
            return None
        QGuiApplication.clipboard().setText(recipe.command)
        from tklscore.gui.design.command_dialog import CommandDialog

        self.command_dialog = CommandDialog(recipe, self)
        self.command_dialog.show()
        self.workbench.status.emit(f"Copied the command; it reads {', '.join(recipe.written)}")
        return recipe.command

    # ------------------------------------------------------------------ exports
    def export_table(self, path: str | None = None) -> None:
        evaluation = self.current()
        if evaluation is None:
            return
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, "Export the published table", "release.csv",
                                                  "CSV (*.csv);;Parquet (*.parquet)")
            if not path:
                return
        session = self.session
        self.workbench.runner.start("Exporting the published table",
                                    lambda _control: session.write_release(evaluation, path),
                                    lambda n: self.workbench.status.emit(f"{n:,} rows written to {path}"),
                                    self._fail, cancel_text="Cancel the export", stops="the published table's export",
                                    on_cancelled=write_cancelled(self.workbench.status.emit, "the published table", path))

    def export_report(self, path: str | None = None) -> bool:
        """The report of the designed release (HTML or PDF by the extension), written in the
        background, its records' ids read there too (a whole release's rows)."""
        evaluation = self.named()
        if evaluation is None:
            return False
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, "Export the designed release's report", "design.html",
                                                  "HTML report (*.html);;PDF report (*.pdf)")
            if not path:
                return False
        from tklscore.core.report import check_format
        from tklscore.gui.report import prepare_report, report_input

        name = evaluation.design.name
        data = report_input(self.workbench)
        data.release, data.report, data.design = name, evaluation.result.report, evaluation.result
        # the risk lens of the project's release measures its rows untransformed: the designed
        # release's privacy models and risk are in its own section instead
        data.risk = data.measure_risk = None
        try:
            data.design_recipe = self.recipe()[0]
        except InputError as error:   # a source the command line cannot read: the report says why
            data.design_recipe = str(error)
        try:
            check_format(path)
        except InputError as error:
            self._fail(str(error))
            return False

        def write(_control):
            data.report = self.report_with_ids(evaluation, scorer)
            data.reports = {**data.reports, name: data.report}
            return prepare_report(path, data)()

        scorer = self.workbench.scorer
        self.workbench.runner.start("Exporting the report", write,
                                    lambda written: self.workbench.status.emit(f"Report written to {written}"),
                                    self._fail, cancel_text="Cancel the export", stops="the design report's export",
                                    on_cancelled=write_cancelled(self.workbench.status.emit, "the report", path))
        return True

    def export_hierarchy(self, column: str | None = None, path: str | None = None) -> None:
        hierarchies, workbench = self.session.state.hierarchies, self.workbench
        if column is None:
            column = self.selected_column() or next(iter(hierarchies), None)
        if column not in hierarchies:
            self._fail("Select a column with a hierarchy to export it as ARX CSV")
            return
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, "Export the hierarchy (ARX CSV)", f"{column}.csv",
                                                  "CSV (*.csv)")
            if not path:
                return
        hierarchy = hierarchies[column]
        if workbench.table is not None:
            try:
                hierarchy.save_arx_csv(path, workbench.table.frame[column].unique())
            except InputError as error:
                self._fail(str(error))
            return
        summary = workbench.source_summary
        if summary is None:
            self._fail("Open a source table to export a hierarchy over its values")
            return

        def work(_control):
            from tklscore.core.engines.source import column_values

            values = column_values(summary.path, column, delimiter=summary.options.get("delimiter"),
                                   encoding=summary.options.get("encoding"),
                                   keep_spaces=bool(summary.options.get("keep_spaces")))["value"]
            hierarchy.save_arx_csv(path, values.astype(str).to_numpy(dtype=object))
            return path

        workbench.runner.start("Exporting the hierarchy", work,
                               lambda written: workbench.status.emit(f"Hierarchy written to {written}"), self._fail,
                               cancel_text="Cancel the export", stops=f"the export of the hierarchy of '{column}'",
                               on_cancelled=write_cancelled(workbench.status.emit, f"the hierarchy of '{column}'", path))
