"""A release report that a committee can read without the tool (spec gui.md §1.7):
the scores of the current release (raw and both normalisations), every candidate release
side by side, the charts, the per-record scores, the weights / tkl-Data Model and the AHP
judgements' consistency.

HTML is self-contained (charts as base64 PNG); PDF goes through Qt's own printing
(QTextDocument → QPdfWriter, charts added as document resources); CSV holds the
per-record scores of the current release.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import math
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QMarginsF, QUrl
from PySide6.QtGui import QImage, QPageLayout, QPageSize, QPdfWriter, QTextDocument

from tklscore import __version__
from tklscore.core.errors import InputError
from tklscore.core.files.atomic import atomic_path
from tklscore.core.scoring.scores import RECORD_COLUMNS, SCORE_NAMES, ScoreReport, ScoreSet, score_label, x_text

MAX_REPORT_ROWS = 500
SCORE_ROWS = tuple((key, score_label(key, "{x}")) for key in SCORE_NAMES)
REPORT_FORMATS = "HTML report (*.html);;PDF report (*.pdf);;Per-record scores as CSV (*.csv)"


def fmt(value: float | None, digits: int = 5) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.{digits}f}"


def score_rows(report: ScoreReport) -> list[tuple[str, str, str, str]]:
    """(label, raw, normalised by source, normalised by the theoretical maximum) per score."""
    return [(label.format(x=x_text(report.x)), fmt(getattr(report.scores, key)),
             fmt(getattr(report.normalized_source, key), 4), fmt(getattr(report.normalized_max, key), 4))
            for key, label in SCORE_ROWS]


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table border="1" cellspacing="0" cellpadding="3"><tr>{head}</tr>{body}</table>'


def _consistency(workbench) -> str:
    model = workbench.model
    if model is None:
        if workbench.project.weights_path:
            return (f"<p>Weights come from the file {html.escape(str(workbench.project.weights_path))}; "
                    f"there are no AHP judgements to check.</p>")
        return "<p>No tkl-Data Model: there are no AHP judgements to check.</p>"
    try:
        derivation = model.derive()
    except (InputError, ValueError) as error:  # a half-edited model must not stop the report
        return f"<p>The judgements could not be evaluated: {html.escape(str(error))}</p>"
    rows = []
    for iri, result in derivation.groups.items():
        node = model.nodes.get(iri)
        label = node.label if node is not None else iri
        criteria = ", ".join(result.criteria or ())
        rows.append([label, criteria, str(result.n), fmt(result.lambda_max, 4), fmt(result.ci, 4),
                     fmt(result.cr, 4), result.verdict(len(derivation.experts.get(iri, {})) > 1).sentence])
    text = _table(["criteria group", "criteria", "n", "λ_max", "CI", "CR", "consistency"], rows) if rows else \
        "<p>The model has no pairwise judgements (priorities are assigned or labelled).</p>"
    if derivation.problems:
        text += "<p>The model still lacks:</p><ul>" + "".join(
            f"<li>{html.escape(p)}</li>" for p in derivation.problems) + "</ul>"
    return text


def _model_tree(workbench) -> str:
    """The model as an indented table: every node with its kind, label, priority and weight."""
    model = workbench.model
    if model is None or model.root is None:
        return "<p>No tkl-Data Model: the weights come from a weights file.</p>"
    derivation = model.derive()
    rows = []

    def visit(iri: str, depth: int) -> None:
        node = model.nodes[iri]
        priority = derivation.priorities.get(iri)
        weight = derivation.weights.get(iri)
        rows.append(["&nbsp;&nbsp;&nbsp;" * depth + html.escape(node.label), node.kind.value,
                     html.escape(node.qualitative or ""), fmt(priority) if priority is not None else "",
                     fmt(weight) if weight is not None else ""])
        for child in model.children(iri):
            visit(child, depth + 1)

    visit(model.root, 0)
    problems = "".join(f"<li>{html.escape(p)}</li>" for p in derivation.problems)
    return _table(["node", "kind", "label", "priority", "weight"], rows) + (
        f"<p>Still missing:</p><ul>{problems}</ul>" if problems else "")


def _weights(workbench) -> str:
    weights = workbench.weights
    if weights is None:
        return f"<p>{html.escape(workbench.weights_problem or 'No weights are chosen.')}</p>"
    rows = [[e.attribute, e.value, fmt(e.weight)] for e in weights.entries]
    source = "the tkl-Data Model" if workbench.model is not None else html.escape(weights.name)
    return f"<p>Weights from {source}.</p>" + _table(["sensitive attribute", "value / bin", "weight"], rows)


def build_report_html(workbench, images: dict[str, bytes] | None = None, inline_images: bool = True) -> str:
    """The report as HTML. ``images``: chart title → PNG bytes; inline as base64 data URIs,
    else referenced as ``chart<i>.png`` (see :func:`prepare_report`)."""
    project = workbench.project
    name = project.current_release
    report = workbench.current_report()
    parts = [("<html><head><meta charset='utf-8'><title>tkl-Score release report</title>"
              "<style>body{font-family:sans-serif} table{border-collapse:collapse} "
              "th{background:#eee} td{text-align:right}</style></head><body>"),
             f"<h1>tkl-Score release report{': ' + html.escape(name) if name else ''}</h1>",
             f"<p>Written {_dt.datetime.now():%Y-%m-%d %H:%M} by tkl-Score Workbench {html.escape(__version__)}."]
    if workbench.table is not None:
        parts.append(f" Source table: {html.escape(workbench.table.name)} "
                     f"({len(workbench.table):,} records).")
    roles = project.roles
    parts.append("</p><p>Quasi-identifiers: " + html.escape(", ".join(roles.qi) or "none")
                 + "; sensitive attributes: " + html.escape(
                     ", ".join(f"{c} (continuous)" if c in roles.continuous else c for c in roles.sa) or "none")
                 + "</p>")
    if report is None:
        parts.append("<p><b>There are no scores yet</b> (load a source, choose roles, weights and a release).</p>")
    else:
        parts.append(f"<h2>Scores of {html.escape(name)}</h2><p>{report.published_rows:,} of "
                     f"{report.source_rows:,} source records are published; x = {x_text(report.x)}.</p>")
        parts.append(_table(["score", "raw", "normalised by source", "normalised by theoretical max"],
                            [list(r) for r in score_rows(report)]))
        if report.warnings:
            parts.append("<p>Warnings:</p><ul>" + "".join(f"<li>{html.escape(w)}</li>" for w in report.warnings)
                         + "</ul>")
    if workbench.reports:
        parts.append("<h2>Candidate releases (normalised against the source)</h2>")
        rows = []
        for release, r in workbench.reports.items():
            n: ScoreSet = r.normalized_source
            rows.append([release, f"{r.published_rows:,}", fmt(r.scores.tkl)]
                        + [fmt(getattr(n, k), 4) for k, _ in SCORE_ROWS])
        parts.append(_table(["release", "records", "tkl raw"] + [label.format(x="x") for _, label in SCORE_ROWS],
                            rows))
    for i, (title, png) in enumerate((images or {}).items()):
        source = f"data:image/png;base64,{base64.b64encode(png).decode('ascii')}" if inline_images \
            else f"chart{i}.png"
        parts.append(f"<h2>{html.escape(title)}</h2><p><img src='{source}' width='640'></p>")
    if report is not None:
        records = report.records.sort_values("tkl", ascending=False, kind="stable")
        shown = records.head(MAX_REPORT_ROWS)
        parts.append("<h2>Per-record scores (riskiest by tkl first)</h2>")
        if len(records) > len(shown):
            parts.append(f"<p>The {len(shown):,} riskiest of {len(records):,} records; the CSV export holds "
                         f"all of them.</p>")
        parts.append(_table(list(RECORD_COLUMNS), [
            [str(r[0]), str(r[1]), str(r[2])] + [fmt(v) for v in r[3:]]
            for r in shown.itertuples(index=False, name=None)]))
    parts.append("<h2>The tkl-Data Model</h2>" + _model_tree(workbench))
    parts.append("<h2>Weights</h2>" + _weights(workbench))
    parts.append("<h2>Consistency of the AHP judgements</h2>" + _consistency(workbench))
    parts.append("</body></html>")
    return "\n".join(parts)


def prepare_report(path: str | Path, workbench, images: dict[str, bytes] | None = None) -> Callable[[], Path]:
    """Read what the report needs now (on the UI thread) and return the function that
    writes the file; that one touches no widget and may run in a background thread.
    Every format is written to a temporary file and renamed over ``path`` (atomic)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm"):
        text = build_report_html(workbench, images, inline_images=True)
        return lambda: _write_atomic(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))
    if suffix == ".pdf":
        text = build_report_html(workbench, images, inline_images=False)
        pngs = list((images or {}).values())
        return lambda: _write_atomic(path, lambda temporary: _print_pdf(temporary, text, pngs))
    if suffix == ".csv":
        report = workbench.current_report()
        if report is None:
            raise InputError("there are no per-record scores to export yet")
        records = report.records
        return lambda: _write_atomic(path, lambda temporary: records.to_csv(temporary, index=False))
    raise InputError(f"a report can be written as .html, .pdf or .csv, not '{suffix or path.name}'",
                     file=str(path))


def export_report(path: str | Path, workbench, images: dict[str, bytes] | None = None) -> Path:
    """Write the report as HTML, PDF or CSV, chosen by the file's extension."""
    return prepare_report(path, workbench, images)()


def _write_atomic(path: Path, write: Callable[[Path], object]) -> Path:
    with atomic_path(path) as temporary:
        write(temporary)
        if temporary.stat().st_size == 0:
            raise InputError("nothing could be written", file=str(path))
    return path


def _print_pdf(path: Path, text: str, pngs: list[bytes]) -> None:
    """The report as PDF through Qt's own printing (QTextDocument on a QPdfWriter)."""
    document = QTextDocument()
    for i, png in enumerate(pngs):
        document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"chart{i}.png"),
                             QImage.fromData(png, "PNG"))
    document.setHtml(text)
    writer = QPdfWriter(str(path))
    writer.setTitle("tkl-Score release report")
    writer.setCreator(f"tkl-Score Workbench {__version__}")
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                     QMarginsF(15, 15, 15, 15), QPageLayout.Unit.Millimeter))
    document.print_(writer)
    del writer  # finishes the file
