"""A release report that a committee can read without the tool (spec gui.md §1.7).

The report is a list of sections, each made by a *section builder* from one
:class:`ReportInput` (``SECTION_BUILDERS``; a new measure appends its own builder with
:func:`add_section_builder`). It says when it was written and from which files (with their
SHA-256), where the weights come from (a weights file, or the tkl-Data Model and the
consistency of its AHP judgements), each score raw and normalised with its meaning and a
verdict in plain words, the candidate releases side by side, the charts, the per-record
scores and the model.

HTML is self-contained (charts as base64 PNG). PDF goes through Qt's own text layout on a
QPdfWriter, page by page, with every heading kept on the page of what it introduces and a
footer naming the release and the page; it is laid out in memory, every step of Qt's
checked, and written by Python (a full disk is an error, never a truncated report renamed
over the previous one). CSV holds the per-record scores of the current
release. :func:`report_input` reads the application's state; ``tklscore report`` builds a
:class:`ReportInput` itself.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from PySide6.QtCore import QBuffer, QIODevice, QMarginsF, QRectF, QSizeF, QUrl, Qt
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QFont,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)

from tklscore import __version__
from tklscore.core.errors import InputError
from tklscore.core.files.atomic import atomic_path
from tklscore.core.files.digest import sha256_of, sha256_of_text
from tklscore.core.model.data_model import TABLE_PART, TklDataModel
from tklscore.core.model.node_names import display_name, inherited_label
from tklscore.core.risk.lens import RiskLens, risk_band_labels
from tklscore.core.risk.measures import describe
from tklscore.core.risk.measures import verdict as risk_verdict
from tklscore.core.scoring.meaning import BANDS_NOTE, MEANINGS, verdict
from tklscore.core.scoring.scores import SCORE_NAMES, ScoreReport, score_label, x_text
from tklscore.core.scoring.weights import Weights
from tklscore.core.scoring.weights_source import MODEL, WeightsSource, file_source, model_source
from tklscore.core.tables.roles import Roles

MAX_REPORT_ROWS = 500
SCORE_ROWS = tuple((key, score_label(key, "{x}")) for key in SCORE_NAMES)
REPORT_FORMATS = "HTML report (*.html);;PDF report (*.pdf);;Per-record scores as CSV (*.csv)"
CHART_RELEASES, CHART_PER_RECORD, CHART_GROWTH = "releases", "per record", "growth"
CHART_RISK_DISTRIBUTION, CHART_DISCLOSURE = "risk distribution", "disclosure risk"
IMAGE_WIDTH = 640            # px on a 96 dpi page: the A4 text width is 680
KEEP_WHOLE = 0.6            # a section up to this share of a page is kept on one page (a chart with its heading)
KEEP_WITH_HEADING = 0.2      # a longer one keeps its heading with this share of a page of its start
PAGE_FOOTER = 28             # px kept free at the bottom of each PDF page for the footer


def fmt(value: float | None, digits: int = 5) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def score_rows(report: ScoreReport) -> list[tuple[str, str, str, str]]:
    """(label, raw, normalised by source, normalised by the theoretical maximum) per score."""
    return [(label.format(x=x_text(report.x)), fmt(getattr(report.scores, key)),
             fmt(getattr(report.normalized_source, key), 4), fmt(getattr(report.normalized_max, key), 4))
            for key, label in SCORE_ROWS]


# --------------------------------------------------------------------------- what a report is made of

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
    charts: dict[str, bytes] = field(default_factory=dict)   # CHART_* → PNG
    design: object | None = None  # a designed release (core.release.designer.DesignResult) from the Design view
    inline_images: bool = True   # HTML: charts as data URIs; PDF: by name, as document resources
    risk: RiskLens | None = None  # the release's privacy models, re-identification risk and D(r)
    # computes ``risk`` (off the UI thread; progress(fraction)) when the Risk view has not
    measure_risk: Callable[[Callable[[float], None]], RiskLens] | None = None
    pseudonymization: object | None = None   # gui.pseudonymization.report_section.PseudonymizationSummary
    release_errors: dict[str, str] = field(default_factory=dict)   # releases not scored, and why

    @property
    def x(self) -> float:
        return self.report.x if self.report is not None else 1.0


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


def report_input(workbench) -> ReportInput:
    """The application's state as a report's input."""
    project = workbench.project
    files = []
    if project.builtin:
        files.append(InputFile("source table", None, text=None, sha256=f"built-in example ({project.builtin})"))
    elif project.source_path:
        files.append(InputFile("source table", project.source_path))
    for definition in project.releases:
        if definition.kind == "file" and definition.path:
            files.append(InputFile(f"published table of release '{definition.name}'", definition.path))
    source = workbench.weights_source() if hasattr(workbench, "weights_source") else None
    if source is None and workbench.weights is not None:
        source = (model_source(workbench.model, "of the project") if workbench.model is not None
                  else file_source(project.weights_path or workbench.weights.name))
    if source is not None and source.kind == MODEL and workbench.model is not None:
        files.append(InputFile("tkl-Data Model as used (Turtle)", None,
                               text=workbench.model.to_graph().serialize(format="turtle")))
    elif source is not None and project.weights_path:
        files.append(InputFile("weights file", project.weights_path))
    table = workbench.table
    data = ReportInput(
        release=project.current_release, report=workbench.current_report(), reports=dict(workbench.reports),
        roles=project.roles, source_name=table.name if table is not None else None,
        source_rows=len(table) if table is not None else None, weights=workbench.weights,
        weights_problem=workbench.weights_problem, weights_source=source,
        model=workbench.model if source is None or source.kind == MODEL else None, files=files,
        pseudonymization=getattr(workbench, "pseudonymization", None),
        release_errors=dict(getattr(workbench, "release_errors", {})))
    name = project.current_release
    measured = getattr(workbench, "measures", {}).get(name)
    lens = getattr(workbench, "risk_lens", None)
    # the Risk view's lens, if it measured this very release (its measures are the workbench's)
    if (lens is not None and lens.release == name and measured is not None
            and lens.measures.models is measured.models):
        data.risk = lens
    elif measured is not None and data.report is not None and getattr(workbench, "source", None) is not None:
        held, definition, weights = workbench.source, project.release(name), workbench.weights

        def measure(progress):
            return held.risk_lens(definition, measures=measured, weights=weights, progress=progress)
        data.measure_risk = measure
    return data


def complete_risk(data: ReportInput, progress: Callable[[float], None] | None = None) -> None:
    """Measure the release's risk for the report if it is not measured yet (off the UI thread)."""
    if data.risk is None and data.measure_risk is not None:
        data.risk = data.measure_risk(progress or (lambda _fraction: None))


def render_charts(data: ReportInput) -> dict[str, bytes]:
    """The report's charts as PNG, drawn at a fixed size with large text (UI thread)."""
    from tklscore.gui.scores.charts import GrowthChart, PerRecordChart, ReleasesChart, render_png

    charts = {}
    if data.reports:
        chart = ReleasesChart()
        chart.set_data({name: r.normalized_source for name, r in data.reports.items()}, data.x)
        chart.use_report_style()
        charts[CHART_RELEASES] = render_png(chart)
    if data.report is not None and len(data.report.records):
        for key, chart in ((CHART_PER_RECORD, PerRecordChart()), (CHART_GROWTH, GrowthChart())):
            chart.set_data(data.report.records, data.report.source_scores, data.report.x)
            chart.use_report_style()
            charts[key] = render_png(chart)
    if data.risk is not None:
        from tklscore.gui.risk.charts import DisclosureRiskChart, RiskDistributionChart

        distribution = RiskDistributionChart()
        distribution.set_shares(data.risk.risk_distribution())
        distribution.use_report_style(12)
        charts[CHART_RISK_DISTRIBUTION] = render_png(distribution)
        disclosure = DisclosureRiskChart()
        disclosure.set_histogram(data.risk.disclosure_histogram())
        disclosure.use_report_style()
        charts[CHART_DISCLOSURE] = render_png(disclosure)
    return charts


# --------------------------------------------------------------------------- sections

@dataclass
class Section:
    title: str
    body: str        # HTML (already escaped)
    level: int = 2


SectionBuilder = Callable[[ReportInput], Iterable[Section]]


def _esc(value) -> str:
    return html.escape(str(value))


def _table(header: list[str], rows: list[list[str]], align_left: int = 1, text_columns: tuple[int, ...] = ()) -> str:
    """An HTML table of plain-text cells (escaped here, once); the first ``align_left``
    columns and ``text_columns`` are left-aligned, the others (numbers) right-aligned."""
    head = "".join(f"<th>{_esc(h)}</th>" for h in header)
    left = set(range(align_left)) | set(text_columns)
    body = "".join(
        "<tr>" + "".join(f"<td align='{'left' if i in left else 'right'}'>{_esc(c)}</td>"
                         for i, c in enumerate(row)) + "</tr>" for row in rows)
    return (f"<table border='1' cellspacing='0' cellpadding='3' width='100%'>"
            f"<thead><tr>{head}</tr></thead>{body}</table>")


def _image(data: ReportInput, key: str) -> str:
    png = data.charts.get(key)
    if png is None:
        return ""
    source = (f"data:image/png;base64,{base64.b64encode(png).decode('ascii')}" if data.inline_images
              else f"{key}.png")
    return f"<p align='center'><img src='{source}' width='{IMAGE_WIDTH}'></p>"


def overview_section(data: ReportInput) -> Iterable[Section]:
    roles = data.roles
    sensitive = ", ".join(f"{c} (continuous)" if c in roles.continuous else c for c in roles.sa) or "none"
    lines = [f"Written {data.written:%Y-%m-%d %H:%M %Z} by tkl-Score Workbench {_esc(__version__)}."]
    if data.source_name is not None:
        lines.append(f"Source table: {_esc(data.source_name)} ({data.source_rows:,} records).")
    if data.report is not None:
        lines.append(f"Release <b>{_esc(data.release)}</b> publishes {data.report.published_rows:,} of "
                     f"{data.report.source_rows:,} source records; M-Score's x = {x_text(data.report.x)}.")
    lines.append(f"Quasi-identifiers (what an outsider may know): {_esc(', '.join(roles.qi) or 'none')}. "
                 f"Sensitive attributes: {_esc(sensitive)}.")
    body = "".join(f"<p>{line}</p>" for line in lines)
    if data.files:
        rows = [[f.what, f.path or "—", f.sha256 or "—"] for f in data.files]
        body += "<p>Made from these inputs:</p>" + _table(["input", "file", "SHA-256"], rows, align_left=3)
    yield Section("What this report covers", body)


def weights_section(data: ReportInput) -> Iterable[Section]:
    source = data.weights_source
    if source is None:
        yield Section("Where the weights come from",
                      f"<p>{_esc(data.weights_problem or 'No weights are chosen, so nothing is scored.')}</p>")
        return
    body = f"<p>{_esc(source.sentence())}</p>"
    body += ("<p>A weight says how sensitive a value is (0 to 1); a record's weight W is the sum over its "
             "sensitive attributes. Different weights give different scores: the thesis' Table 4.2 and the "
             "weights its own tkl-Data Model derives differ slightly, so the same release can score "
             "differently with each.</p>")
    if source.kind == MODEL:
        if source.groups:
            rows = [[g.group, ", ".join(g.criteria), str(g.n), fmt(g.lambda_max, 4), fmt(g.ci, 4),
                     fmt(g.cr, 4), g.verdict] for g in source.groups]
            body += ("<p>The model's priorities come from domain experts' pairwise (AHP) judgements; their "
                     "consistency ratio CR says how far the judgements contradict each other:</p>"
                     + _table(["criteria group", "criteria", "n", "λ_max", "CI", "CR", "verdict"], rows,
                              align_left=2, text_columns=(6,)))
        else:
            body += "<p>The model has no pairwise judgements (its priorities are assigned or labelled).</p>"
    if source.problems:
        body += "<p>The model still lacks:</p><ul>" + "".join(f"<li>{_esc(p)}</li>" for p in source.problems) \
            + "</ul>"
    yield Section("Where the weights come from", body)


def scores_section(data: ReportInput) -> Iterable[Section]:
    report = data.report
    if report is None:
        yield Section("Scores", "<p><b>There are no scores yet</b> (load a source, choose roles, weights and a "
                                "release).</p>")
        return
    rows = []
    for key in SCORE_NAMES:
        by_source = getattr(report.normalized_source, key)
        rows.append([score_label(key, report.x), fmt(getattr(report.scores, key)), fmt(by_source, 4),
                     fmt(getattr(report.normalized_max, key), 4), verdict(by_source).level])
    body = _table(["score", "raw", "÷ whole source", "÷ theoretical max", "verdict"], rows, text_columns=(4,))
    body += ("<p><i>÷ whole source</i>: the score divided by what publishing the entire source table would "
             "score (1 = as misuseable as the whole table). <i>÷ theoretical max</i>: divided by the score "
             "of the same number of records if every one scored its maximum.</p>")
    items = []
    for key in SCORE_NAMES:
        by_source = getattr(report.normalized_source, key)
        judged = verdict(by_source)
        value = "" if by_source is None else f"{fmt(by_source, 4)}, "
        items.append(f"<li><b>{_esc(score_label(key, report.x))}</b> = {fmt(getattr(report.scores, key))}. "
                     f"{_esc(MEANINGS[key])} <b>Verdict: {_esc(judged.level)}</b> ({value}{_esc(judged.words)}).</li>")
    body += "<p>What each score means:</p><ul>" + "".join(items) + f"</ul><p><i>{_esc(BANDS_NOTE)}</i></p>"
    if report.warnings:
        body += "<p>Warnings:</p><ul>" + "".join(f"<li>{_esc(w)}</li>" for w in report.warnings) + "</ul>"
    yield Section(f"Scores of {data.release}", body)


def releases_section(data: ReportInput) -> Iterable[Section]:
    refused = "".join(f"<li><b>{_esc(name)}</b>: {_esc(why)}</li>" for name, why in data.release_errors.items())
    if refused and not data.reports:
        yield Section("Candidate releases side by side", f"<p>Releases not scored:</p><ul>{refused}</ul>")
    if not data.reports:
        return
    rows = []
    for release, r in data.reports.items():
        rows.append([release, f"{r.published_rows:,}", fmt(r.scores.tkl)]
                    + [fmt(getattr(r.normalized_source, k), 4) for k in SCORE_NAMES])
    header = ["release", "records", "tkl raw"] + [score_label(k, data.x) for k in SCORE_NAMES]
    body = ("<p>Every candidate release, each score divided by the whole source table's score "
            "(undefined values are shown as n/a in the table and as 0 in the chart).</p>"
            + _table(header, rows) + _image(data, CHART_RELEASES))
    if refused:
        body += f"<p>Releases not scored (refused or not resolved):</p><ul>{refused}</ul>"
    yield Section("Candidate releases side by side", body)


def charts_section(data: ReportInput) -> Iterable[Section]:
    if data.report is None:
        return
    if CHART_PER_RECORD in data.charts:
        yield Section("Per-record scores", "<p>Each published record's tkl, M and L record scores, divided by the "
                      "whole source table's score, in the order of the thesis' Figures 5.1/5.2 (ascending "
                      "L-Severity); the labels are the records' ids.</p>"
                      + _image(data, CHART_PER_RECORD))
    if CHART_GROWTH in data.charts:
        yield Section("How the scores grow as records are added", "<p>The scores of the first 1, 2, … "
                      "published records (in published order), divided by the whole source table's score; "
                      "the last point is the release's score.</p>" + _image(data, CHART_GROWTH))


def records_section(data: ReportInput) -> Iterable[Section]:
    report = data.report
    if report is None:
        return
    records = report.records.sort_values("tkl", ascending=False, kind="stable")
    shown = records.head(MAX_REPORT_ROWS)
    body = ("<p>k: records in the source that share the record's quasi-identifiers; l: distinct sensitive "
            "values among them; t: how far their sensitive values stand out from the whole table; W: the "
            "record's weight; RS: its record scores.</p>")
    if len(records) > len(shown):
        body += (f"<p>The {len(shown):,} riskiest of {len(records):,} records; the CSV export holds all of "
                 f"them.</p>")
    body += _table(["id", "k", "l", "t", "W", "RS tkl", "RS M", "RS L"], [[str(r[0]), str(r[1]), str(r[2])] + [fmt(v) for v in r[3:]]
                                          for r in shown.itertuples(index=False, name=None)])
    yield Section("Per-record scores (riskiest by tkl first)", body)


def _risk_number(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) >= 1):
        return f"{int(value):,}"
    return f"{value:.4f}"


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f} %"


def risk_section(data: ReportInput) -> Iterable[Section]:
    """The risk lens (privacy-models.md §2–4): privacy models with their meanings, the
    attacker models side by side, the distribution of per-record risk, QI importance, D(r)
    with its parameters and histogram, the riskiest records."""
    lens = data.risk
    if lens is None:
        if data.report is not None and not data.roles.qi:
            yield Section("Risk of re-identification", "<p>No quasi-identifiers are chosen, so the privacy models "
                                                       "and the re-identification risk are not measured.</p>")
        return
    m = lens.measures
    rows = [[name, _risk_number(value), meaning] for name, value, meaning in describe(m)]
    if len(m.models.t_by_attribute) > 1:
        rows += [[f"t of {attribute}", _risk_number(t), "distance of the classes' distribution of this attribute "
                  "from the whole table's"] for attribute, t in m.models.t_by_attribute.items()]
    c = m.classes
    suppressed = (f" {m.suppressed_rows:,} record(s) are suppressed (every quasi-identifier is the marker)."
                  if m.suppressed_rows else "")
    body = (f"<p><b>{_esc(risk_verdict(m))}</b></p>"
            f"<p>{m.rows:,} published records fall into {c.count:,} equivalence classes (records that share "
            f"their quasi-identifiers) of {c.min:,} to {c.max:,} records (mean {c.mean:.2f}, median "
            f"{c.median:g}).{suppressed} Measures that need a sensitive attribute are n/a without one.</p>"
            + _table(["privacy model", "value", "what it means"], rows, text_columns=(2,)))
    yield Section(f"Risk of re-identification of {data.release}", body)

    p, j = m.prosecutor, m.journalist
    attackers = [["Prosecutor (knows the person is in the release)", _percent(p.highest), _percent(p.average),
                  _percent(p.records_at_risk), _percent(p.success_rate)]]
    if j is not None:
        attackers.append(["Journalist (links the release to the source table)", _percent(j.highest),
                          _percent(j.average), _percent(j.records_at_risk), _percent(j.success_rate)])
        attackers.append(["Marketer (re-identifies as many records as possible)", "", "", "",
                          _percent(m.marketer)])
    body = (_table(["attacker", "highest risk", "average risk", "records at risk", "success rate"], attackers)
            + f"<p>Records at risk: the share of records whose risk exceeds {100 * m.risk_threshold:g} %. "
              f"Sample uniques (records alone in their class): {_percent(m.sample_uniques)}.")
    if m.population_uniques is not None:
        body += " Population uniques: " + ", ".join(f"{k} {_percent(v)}" for k, v in
                                                     m.population_uniques.fractions().items()) + "."
    body += "</p>"
    yield Section("Attacker models side by side", body)

    distribution = lens.risk_distribution()
    labels = risk_band_labels()
    shares = [[label] + [_percent(float(distribution[a][i])) for a in distribution] for i, label in enumerate(labels)]
    body = ("<p>The share of records in each band of re-identification risk (as ARX groups it; a record's "
            "prosecutor risk is 1/|its class|, its journalist risk 1/|its class in the source|).</p>"
            + _image(data, CHART_RISK_DISTRIBUTION)
            + _table(["risk band (%)"] + [a for a in distribution], [r for r in shares if any(
                x != "0.00 %" for x in r[1:])]))
    yield Section("Distribution of per-record risk", body)

    if m.qi_importance:
        rows = [[", ".join(q.attributes), f"{q.distinction:.4f}", f"{q.separation:.4f}"] for q in m.qi_importance]
        yield Section("Quasi-identifier importance", (
            "<p>For each set of quasi-identifiers: <i>distinction</i> = distinct value combinations ÷ records "
            "(1: every record is told apart); <i>separation</i> = share of record pairs it tells apart.</p>"
            + _table(["quasi-identifiers", "distinction", "separation"], rows)))

    dr = lens.disclosure
    histogram = lens.disclosure_histogram()
    weights = f" from {_esc(lens.weights_name)}" if lens.weights_name else " (no value weights were chosen: W(v) = 0)"
    parameters = [[a.attribute, f"{a.pk:g}", f"{a.weight:g}"] for a in lens.parameters]
    body = ("<p>Orooji and Knapp's record-level risk D(r) = α Σ over the sets of attributes an attacker may "
            "know of (chance of knowing them ÷ records that share them) × (harm of disclosing the rest), with "
            f"α = {dr.alpha:g}; {len(dr.known_sets):,} of {dr.splits:,} known sets are kept (those an attacker "
            f"knows with probability PK > ε = {dr.epsilon:g}). <b>{dr.above_threshold:,} of {dr.n:,} records "
            f"({100 * dr.above_threshold_share:.2f} %) have D above the threshold "
            f"{dr.threshold:g}</b> (the red line); the largest D is {dr.d_max:.4g}"
            + (f"; {histogram.zero:,} record(s) have D = 0 (not on the logarithmic axis)" if histogram.zero else "")
            + ".</p>" + _image(data, CHART_DISCLOSURE))
    yield Section("Disclosure risk D(r)", body)
    yield Section("Parameters of D(r)", (
        "<p>PK: the probability that an attacker knows the attribute; W(A): how much disclosing it harms; "
        f"W(v): the weight of the record's value{weights}.</p>"
        + _table(["attribute", "PK", "W(A)"], parameters)), level=3)

    riskiest = lens.riskiest()
    rows = [[r[0], f"{int(r[2]):,}", _risk_number(float(r[3])), _risk_number(float(r[4])), f"{float(r[5]):.4g}"]
            for r in riskiest.itertuples(index=False, name=None)]
    yield Section("Riskiest records", (
        f"<p>The {len(rows)} records with the highest prosecutor risk (ties: highest D(r)); "
        + ("the source is too large for memory: every record's D(r) stays in the engine (tklscore "
           "disclosure-risk --engine duckdb --output FILE.parquet writes them).</p>" if lens.out_of_core else
           "the per-record scores above and the CSV export hold every record.</p>")
        + _table(["record", "class size", "prosecutor risk", "journalist risk", "D(r)"], rows)))


def model_section(data: ReportInput) -> Iterable[Section]:
    model = data.model
    if model is None or model.root is None:
        return
    try:
        derivation = model.derive()
    except (InputError, ValueError) as error:
        yield Section("The tkl-Data Model", f"<p>The model cannot be derived: {_esc(error)}</p>")
        return
    rows = []

    def visit(iri: str, depth: int) -> None:
        node = model.nodes[iri]
        tag, name = display_name(node)
        priority = derivation.priorities.get(iri)
        weight = derivation.weights.get(iri)
        label_score = node.kind in TABLE_PART
        inherited = inherited_label(model, iri) if label_score else None
        label = node.qualitative or (f"({inherited})" if inherited else "")
        rows.append(["\u00a0\u00a0\u00a0\u00a0" * depth + name, tag, node.kind.value, label,
                     "" if priority is None or label_score else fmt(priority, 4),
                     "" if priority is None or not label_score else fmt(priority, 2),
                     "" if weight is None else fmt(weight)])
        for child in model.children(iri):
            visit(child, depth + 1)

    visit(model.root, 0)
    body = ("<p>The DPV taxonomy on top, the table's sensitive attributes, elements and values below. "
            "<i>AHP priority</i>: a criterion's share among its siblings, from the experts' judgements; "
            "<i>label</i>: a value's qualitative label; in brackets, e.g. (restricted), when the value has "
            "none of its own and inherits that of the nearest labelled element above it; <i>label score</i>: "
            "the label's score on the model's scale; <i>weight</i>: what scoring uses.</p>"
            + _table(["node", "code", "kind", "label", "AHP priority", "label score", "weight"], rows, 4))
    if derivation.problems:
        body += "<p>Still missing:</p><ul>" + "".join(f"<li>{_esc(p)}</li>" for p in derivation.problems) + "</ul>"
    yield Section("The tkl-Data Model", body)


def weights_list_section(data: ReportInput) -> Iterable[Section]:
    if data.weights is None:
        return
    rows = [[e.attribute, e.value, fmt(e.weight)] for e in data.weights.entries]
    yield Section("Weights of the sensitive values", _table(["sensitive attribute", "value / bin", "weight"], rows, 2))


SECTION_BUILDERS: list[SectionBuilder] = [
    overview_section, scores_section, weights_section, releases_section, charts_section, records_section,
    risk_section, model_section, weights_list_section,
]


def add_section_builder(builder: SectionBuilder, before: SectionBuilder | None = None) -> None:
    """Add a measure's section to every report (at the end, or before ``before``)."""
    if builder in SECTION_BUILDERS:
        return
    index = SECTION_BUILDERS.index(before) if before in SECTION_BUILDERS else len(SECTION_BUILDERS)
    SECTION_BUILDERS.insert(index, builder)


def build_sections(data: ReportInput) -> list[Section]:
    return [section for builder in SECTION_BUILDERS for section in builder(data)]


def report_title(data: ReportInput) -> str:
    return "tkl-Score release report" + (f": {data.release}" if data.release else "")


def build_report_html(data: ReportInput, inline_images: bool = True) -> str:
    """The report as HTML; charts inline as data URIs, or (``inline_images=False``, for
    the PDF) referenced by name and added to the document as resources."""
    parts = [("<html><head><meta charset='utf-8'>"
              f"<title>{_esc(report_title(data))}</title>"
              "<style>body{font-family:sans-serif;max-width:60em} table{border-collapse:collapse} "
              "th{background-color:#e8e8e8} h1{font-size:16pt} h2{font-size:13pt}</style></head><body>"),
             f"<h1>{_esc(report_title(data))}</h1>"]
    data.inline_images = inline_images
    for section in build_sections(data):
        parts.append(f"<h{section.level}>{_esc(section.title)}</h{section.level}>{section.body}")
    parts.append("</body></html>")
    return "\n".join(parts)


# --------------------------------------------------------------------------- files

def prepare_report(path: str | Path, data: ReportInput) -> Callable[[], Path]:
    """Return the function that writes the report (HTML, PDF or CSV by the extension). It
    touches no widget and may run in a background thread: it hashes the input files,
    builds the document and writes it to a temporary file renamed over ``path``."""
    path = Path(path)
    suffix = path.suffix.lower()
    inputs = [f.path for f in data.files if f.path]
    if suffix in (".html", ".htm"):
        def write_html() -> Path:
            hash_files(data)
            complete_risk(data)
            text = build_report_html(data, inline_images=True)
            return _write_atomic(path, lambda temporary: temporary.write_text(text, encoding="utf-8"), inputs)
        return write_html
    if suffix == ".pdf":
        def write_pdf() -> Path:
            hash_files(data)
            complete_risk(data)
            text = build_report_html(data, inline_images=False)
            return _write_atomic(path, lambda temporary: print_pdf(temporary, text, data, name=str(path)), inputs)
        return write_pdf
    if suffix == ".csv":
        if data.report is None:
            raise InputError("there are no per-record scores to export yet")
        report = data.report

        def write_csv() -> Path:
            complete_risk(data)
            records = report.records
            if data.risk is not None and data.risk.disclosure.has_records and len(data.risk.disclosure.d) == len(records):
                records = pd.concat([records.reset_index(drop=True), data.risk.per_record()], axis=1)
            return _write_atomic(path, lambda temporary: records.to_csv(temporary, index=False), inputs)
        return write_csv
    raise InputError(f"a report can be written as .html, .pdf or .csv, not '{suffix or path.name}'",
                     file=str(path))


def export_report(path: str | Path, data: ReportInput) -> Path:
    """Write the report as HTML, PDF or CSV, chosen by the file's extension."""
    return prepare_report(path, data)()


def _write_atomic(path: Path, write: Callable[[Path], object], inputs: Iterable[str] = ()) -> Path:
    """Write through a temporary file renamed over ``path``; never over one of ``inputs``."""
    with atomic_path(path, inputs) as temporary:
        write(temporary)
        if temporary.stat().st_size == 0:
            raise InputError("nothing could be written", file=str(path))
    return path


# --------------------------------------------------------------------------- PDF

def _page_writer(device: QIODevice) -> QPdfWriter:
    writer = QPdfWriter(device)
    writer.setResolution(96)  # one document pixel = one device pixel; text stays vector, images keep their pixels
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                     QMarginsF(15, 15, 15, 12), QPageLayout.Unit.Millimeter))
    return writer


def paginated_document(text: str, data: ReportInput, page: QSizeF) -> QTextDocument:
    """The report laid out on pages of ``page`` (px at 96 dpi), headings kept with what follows."""
    document = QTextDocument()
    font = QFont()
    font.setPointSize(10)
    document.setDefaultFont(font)
    for key, png in data.charts.items():
        document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"{key}.png"),
                             QImage.fromData(png, "PNG"))
    document.setHtml(text)
    document.setPageSize(page)
    keep_headings_with_content(document)
    return document


def keep_headings_with_content(document: QTextDocument, share: float = KEEP_WITH_HEADING) -> int:
    """Start a section on the next page when it would be split across pages: a section of
    up to :data:`KEEP_WHOLE` of a page is kept whole (a heading with its chart), a longer one
    keeps its heading with ``share`` of a page of what follows (a table's first rows).
    Returns the number of page breaks added."""
    layout = document.documentLayout()
    height = document.pageSize().height()
    added = 0
    for _ in range(200):  # one break per pass: each moves everything below it
        moved = False
        layout.documentSize()  # lays out the whole document (the layout is otherwise lazy)
        block = document.begin()
        while block.isValid() and not moved:
            policy = block.blockFormat().pageBreakPolicy()
            if block.blockFormat().headingLevel() > 0 and policy != QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore:
                top = layout.blockBoundingRect(block).top()
                bottom = _section_bottom(document, block)
                if bottom - top > KEEP_WHOLE * height:  # long: keep the heading with its start
                    bottom = min(bottom, top + share * height)
                if int(top // height) != int((bottom - 1) // height):
                    cursor = QTextCursor(block)
                    fmt = QTextBlockFormat(block.blockFormat())
                    fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
                    cursor.setBlockFormat(fmt)
                    added += 1
                    moved = True
            block = block.next()
        if not moved:
            break
    return added


def _section_bottom(document: QTextDocument, heading) -> float:
    """The bottom of the blocks from ``heading`` to the next heading that follows content."""
    layout = document.documentLayout()
    bottom = layout.blockBoundingRect(heading).bottom()
    following, content = heading.next(), False
    while following.isValid():
        is_heading = following.blockFormat().headingLevel() > 0
        if content and is_heading:
            break
        bottom = max(bottom, layout.blockBoundingRect(following).bottom())
        content = content or not is_heading
        following = following.next()
    return bottom


def print_pdf(path: Path, text: str, data: ReportInput, name: str | None = None) -> int:
    """The report as PDF written to ``path`` (``name``: the file as the user named it, for
    messages); returns the number of pages. Every byte is checked as written: a write that
    fails (a full disk) raises, never leaving a shorter file that looks whole."""
    pdf, pages = render_pdf(text, data, name or str(path))
    with open(path, "wb") as handle:
        written = handle.write(pdf)
        handle.flush()
        os.fsync(handle.fileno())
    size = os.path.getsize(path)
    if written != len(pdf) or size != len(pdf):
        raise InputError(f"only {size:,} of the report's {len(pdf):,} bytes could be written", file=name or str(path))
    return pages


def render_pdf(text: str, data: ReportInput, name: str = "the report") -> tuple[bytes, int]:
    """The report as the bytes of a PDF file, and its number of pages; an error when Qt
    fails at any step (the PDF would be incomplete)."""
    buffer = QBuffer()
    if not buffer.open(QIODevice.OpenModeFlag.WriteOnly):
        raise InputError("the PDF cannot be laid out (no memory for it)", file=name)
    writer = _page_writer(buffer)
    writer.setTitle(report_title(data))
    writer.setCreator(f"tkl-Score Workbench {__version__}")
    width, height = float(writer.width()), float(writer.height())
    page = QSizeF(width, height - PAGE_FOOTER)
    document = paginated_document(text, data, page)
    pages = document.pageCount()
    painter = QPainter()
    if not painter.begin(writer):
        raise InputError("the PDF writer could not start", file=name)
    complete = True
    try:
        footer_font = QFont()
        footer_font.setPointSize(8)
        for number in range(pages):
            if number and not writer.newPage():
                complete = False
                break
            painter.save()
            painter.setClipRect(QRectF(0, 0, width, page.height()))
            painter.translate(0, -number * page.height())
            context = QAbstractTextDocumentLayout.PaintContext()
            context.clip = QRectF(0, number * page.height(), width, page.height())
            document.documentLayout().draw(painter, context)
            painter.restore()
            painter.setFont(footer_font)
            painter.setPen(Qt.GlobalColor.darkGray)
            painter.drawText(QRectF(0, height - PAGE_FOOTER + 8, width, PAGE_FOOTER - 8),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             f"{report_title(data)} · {data.written:%Y-%m-%d %H:%M}")
            painter.drawText(QRectF(0, height - PAGE_FOOTER + 8, width, PAGE_FOOTER - 8),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             f"page {number + 1} of {pages}")
    finally:
        ended = painter.end()
    buffer.close()
    pdf = bytes(buffer.data())
    if not (complete and ended) or not pdf.startswith(b"%PDF-") or b"%%EOF" not in pdf[-64:]:
        raise InputError(f"the PDF came out incomplete ({len(pdf):,} bytes, {pages} page(s) laid out)", file=name)
    return pdf, pages
