"""What a report is made of: its input (:class:`ReportInput`, read once from the
application or built by ``tklscore report``), the files it names with their SHA-256 and
the sections its builders make."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from tklscore.core.files.digest import sha256_of, sha256_of_text
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.risk.lens import RiskLens
from tklscore.core.scoring.scores import ScoreReport
from tklscore.core.scoring.weights import Weights
from tklscore.core.scoring.weights_source import WeightsSource
from tklscore.core.tables.roles import Roles

MAX_REPORT_ROWS = 500
# the charts a report draws (core/report/charts.py), by key
CHART_RELEASES, CHART_PER_RECORD, CHART_GROWTH = "releases", "per record", "growth"
CHART_RISK_DISTRIBUTION, CHART_DISCLOSURE = "risk distribution", "disclosure risk"


@dataclass
class InputFile:
    what: str                    # e.g. "source table"
    path: str | None             # None: built in, or held inside the project
    text: str | None = None      # content hashed instead of a file (a model as it was used)
    sha256: str | None = None    # filled by :func:`hash_files`


@dataclass
class ReportInput:
    """Everything a report shows, read once (on the UI thread in the application)."""

    release: str | None
    report: ScoreReport | None
    reports: dict[str, ScoreReport]
    roles: Roles
    source_name: str | None = None
    source_rows: int | None = None
    weights: Weights | None = None
    weights_problem: str | None = None
    weights_source: WeightsSource | None = None
    model: TklDataModel | None = None
    files: list[InputFile] = field(default_factory=list)
    written: _dt.datetime = field(default_factory=lambda: _dt.datetime.now().astimezone())
    # key → the chart as SVG (core/report/charts.py; a section may add its own while it is built)
    charts: dict[str, str] = field(default_factory=dict)
    design: object | None = None  # a designed release (core.release.designer.DesignResult) from the Design view
    design_recipe: object | None = None   # how to evaluate it again (core.release.command.DesignRecipe)
    # HTML: charts inline as SVG; False (the PDF): each chart an <img> named KEY.png that the
    # PDF adapter draws from ``charts``
    inline_images: bool = True
    risk: RiskLens | None = None  # the release's privacy models, re-identification risk and D(r)
    # computes ``risk`` (off the UI thread; progress(fraction)) when the Risk view has not
    measure_risk: Callable[[Callable[[float], None]], RiskLens] | None = None
    pseudonymization: object | None = None   # core.report.sections.pseudonymization.PseudonymizationSummary
    release_errors: dict[str, str] = field(default_factory=dict)   # releases not scored, and why

    @property
    def x(self) -> float:
        return self.report.x if self.report is not None else 1.0


@dataclass
class Section:
    title: str
    body: str        # HTML (already escaped)
    level: int = 2


SectionBuilder = Callable[[ReportInput], Iterable[Section]]


def hash_files(data: ReportInput) -> None:
    """SHA-256 of every input (files may be large: call it off the UI thread)."""
    for item in data.files:
        if item.sha256 is not None:
            continue
        if item.text is not None:
            item.sha256 = sha256_of_text(item.text)
        elif item.path is not None:
            try:
                item.sha256 = sha256_of(item.path)
            except OSError as error:
                item.sha256 = f"(could not be read: {error.strerror or error})"


def complete_risk(data: ReportInput, progress: Callable[[float], None] | None = None) -> None:
    """Measure the release's risk for the report if it is not measured yet (off the UI thread)."""
    if data.risk is None and data.measure_risk is not None:
        data.risk = data.measure_risk(progress or (lambda _fraction: None))


def report_title(data: ReportInput) -> str:
    return "tkl-Score release report" + (f": {data.release}" if data.release else "")
