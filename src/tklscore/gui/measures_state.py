"""The workbench's releases measured after their scores: in memory a project's candidate
releases are scored first, and their privacy models and risk (against the source) taken in
a task of their own right after (:func:`tklscore.core.source.measure_project`), so that the
scores are on screen sooner; out of core they are measured in the scoring's own session,
which reads the file once. ``measuresChanged`` says when they have come."""

from __future__ import annotations

from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.source import ProjectScores, Source, measure_project


class MeasuresAfterScores:
    """Mixed into the Workbench (its ``measures``, ``designed_reports``, ``runner``,
    ``_generation``, ``measuresChanged`` and ``_fail``)."""

    _measuring: int | None = None   # the scores' generation whose releases are being measured

    def measured_with_scores(self, source: Source) -> bool:
        """Whether a scoring of ``source`` measures its releases itself (out of core, or
        without quasi-identifiers: nothing to measure) rather than in a task after it."""
        return source.out_of_core or not source.roles.qi

    def _take_measures(self, scores: ProjectScores, source: Source, definitions: list[ReleaseDefinition],
                       generation: int) -> None:
        """The measures that came with ``scores`` (the designed releases', and those the source
        kept), the designed releases' reports; the others measured next on the main lane."""
        self.measures, self.designed_reports = scores.measures, scores.designed
        reports = {name: report for name, report in scores.reports.items() if name not in scores.designed}
        if self.measured_with_scores(source) or all(name in self.measures or not report.published_rows
                                                   for name, report in reports.items()):
            return
        self._measuring = generation

        def done(measured: dict) -> None:
            if generation == self._generation["scores"]:
                self._measuring = None
                self.measures.update(measured)
                self.measuresChanged.emit()

        def failed(message: str) -> None:
            if generation == self._generation["scores"]:
                self._measuring = None
                self.measuresChanged.emit()
            self._fail(message)

        def stopped(_value) -> None:
            if generation == self._generation["scores"]:
                self._measuring = None
                self.status.emit("Measuring the releases' risk was cancelled: their scores are shown, their "
                                 "privacy models and risk are not. The Risk view measures the release it shows.")
                self.measuresChanged.emit()

        self.runner.start("Measuring the releases' risk",
                          lambda control: measure_project(source, definitions, reports, control.progress),
                          done, failed, on_cancelled=stopped, cancel_text="Cancel measuring the risk")

    def measures_pending(self) -> bool:
        """Whether the current scores' releases are still being measured (``measuresChanged`` follows)."""
        return self._measuring is not None and self._measuring == self._generation["scores"]
