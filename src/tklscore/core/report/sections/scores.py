"""The Scores view's sections of the report: what it covers (inputs with their SHA-256),
the release's scores with their meanings and verdicts, where the weights come from, the
candidate releases side by side, the charts, the per-record scores and the weights."""

from __future__ import annotations

from collections.abc import Iterable

from tklscore import __version__
from tklscore.core.numbers import count, number, score
from tklscore.core.report.html import chart, esc, table
from tklscore.core.report.model import (CHART_GROWTH, CHART_PER_RECORD, CHART_RELEASES, MAX_REPORT_ROWS, ReportInput,
                                        Section)
from tklscore.core.scoring.meaning import BANDS_NOTE, MEANINGS, verdict
from tklscore.core.scoring.scores import RECORD_COLUMNS, SCORE_NAMES, ScoreReport, score_label, x_text
from tklscore.core.scoring.weights_source import MODEL


def normalised(value) -> str:
    """A score divided by the source's or the theoretical maximum (0.5686)."""
    return number(value, 4)


def score_rows(report: ScoreReport) -> list[tuple[str, str, str, str]]:
    """(label, raw, normalised by source, normalised by the theoretical maximum) per score."""
    return [(score_label(key, report.x), score(getattr(report.scores, key)),
             normalised(getattr(report.normalized_source, key)), normalised(getattr(report.normalized_max, key)))
            for key in SCORE_NAMES]


def overview_section(data: ReportInput) -> Iterable[Section]:
    roles = data.roles
    sensitive = ", ".join(f"{c} (continuous)" if c in roles.continuous else c for c in roles.sa) or "none"
    lines = [f"Written {data.written:%Y-%m-%d %H:%M %Z} by tkl-Score Workbench {esc(__version__)}."]
    if data.source_name is not None:
        lines.append(f"Source table: {esc(data.source_name)} ({count(data.source_rows)} records).")
    if data.report is not None:
        lines.append(f"Release <b>{esc(data.release)}</b> publishes {count(data.report.published_rows)} of "
                     f"{count(data.report.source_rows)} source records; M-Score's x = {x_text(data.report.x)}.")
    lines.append(f"Quasi-identifiers (what an outsider may know): {esc(', '.join(roles.qi) or 'none')}. "
                 f"Sensitive attributes: {esc(sensitive)}.")
    body = "".join(f"<p>{line}</p>" for line in lines)
    if data.files:
        # the digest under its file, in a column wide enough for its 64 characters on one line
        rows = "".join(f"<tr><td align='left'>{esc(f.what)}</td><td align='left'>{esc(f.path or '—')}<br>"
                       f"<span style='font-family:monospace;font-size:8pt'>{esc(f.sha256 or '—')}</span></td></tr>"
                       for f in data.files)
        body += ("<p>Made from these inputs (each file's SHA-256 under it):</p>"
                 "<table border='1' cellspacing='0' cellpadding='3' width='100%'><thead><tr><th>input</th>"
                 f"<th>file and SHA-256</th></tr></thead>{rows}</table>")
    yield Section("What this report covers", body)


def weights_section(data: ReportInput) -> Iterable[Section]:
    source = data.weights_source
    if source is None:
        yield Section("Where the weights come from",
                      f"<p>{esc(data.weights_problem or 'No weights are chosen, so nothing is scored.')}</p>")
        return
    body = f"<p>{esc(source.sentence())}</p>"
    body += ("<p>A weight says how sensitive a value is (0 to 1); a record's weight W is the sum over its "
             "sensitive attributes. Different weights give different scores: the thesis' Table 4.2 and the "
             "weights its own tkl-Data Model derives differ slightly, so the same release can score "
             "differently with each.</p>")
    if source.kind == MODEL:
        if source.groups:
            ahp = lambda v: number(v, 4, max_decimals=4)  # noqa: E731  (as the AHP verdict prints CR)
            rows = [[g.group, ", ".join(g.criteria), str(g.n), ahp(g.lambda_max), ahp(g.ci), ahp(g.cr), g.verdict]
                    for g in source.groups]
            body += ("<p>The model's priorities come from domain experts' pairwise (AHP) judgements; their "
                     "consistency ratio CR says how far the judgements contradict each other:</p>"
                     + table(["criteria group", "criteria", "n", "λ_max", "CI", "CR", "verdict"], rows,
                             align_left=2, text_columns=(6,)))
        else:
            body += "<p>The model has no pairwise judgements (its priorities are assigned or labelled).</p>"
    if source.problems:
        body += "<p>The model still lacks:</p><ul>" + "".join(f"<li>{esc(p)}</li>" for p in source.problems) \
            + "</ul>"
    yield Section("Where the weights come from", body)


def scores_section(data: ReportInput) -> Iterable[Section]:
    report = data.report
    if report is None:
        yield Section("Scores", "<p><b>There are no scores yet</b> (load a source, choose roles, weights and a "
                                "release).</p>")
        return
    rows = []
    for (label, raw, by_source, by_max), key in zip(score_rows(report), SCORE_NAMES):
        rows.append([label, raw, by_source, by_max, verdict(getattr(report.normalized_source, key)).level])
    body = table(["score", "raw", "÷ whole source", "÷ theoretical max", "verdict"], rows, text_columns=(4,))
    body += ("<p><i>÷ whole source</i>: the score divided by what publishing the entire source table would "
             "score (1 = as misuseable as the whole table). <i>÷ theoretical max</i>: divided by the score "
             "of the same number of records if every one scored its maximum.</p>")
    items = []
    for key in SCORE_NAMES:
        by_source = getattr(report.normalized_source, key)
        judged = verdict(by_source)
        value = "" if by_source is None else f"{normalised(by_source)}, "
        items.append(f"<li><b>{esc(score_label(key, report.x))}</b> = {score(getattr(report.scores, key))}. "
                     f"{esc(MEANINGS[key])} <b>Verdict: {esc(judged.level)}</b> ({value}{esc(judged.words)}).</li>")
    body += "<p>What each score means:</p><ul>" + "".join(items) + f"</ul><p><i>{esc(BANDS_NOTE)}</i></p>"
    if report.warnings:
        body += "<p>Warnings:</p><ul>" + "".join(f"<li>{esc(w)}</li>" for w in report.warnings) + "</ul>"
    yield Section(f"Scores of {data.release}", body)


def releases_section(data: ReportInput) -> Iterable[Section]:
    refused = "".join(f"<li><b>{esc(name)}</b>: {esc(why)}</li>" for name, why in data.release_errors.items())
    if refused and not data.reports:
        yield Section("Candidate releases side by side", f"<p>Releases not scored:</p><ul>{refused}</ul>")
    if not data.reports:
        return
    rows = []
    for release, r in data.reports.items():
        rows.append([release, count(r.published_rows), score(r.scores.tkl)]
                    + [normalised(getattr(r.normalized_source, k)) for k in SCORE_NAMES])
    header = ["release", "records", "tkl raw"] + [score_label(k, data.x) for k in SCORE_NAMES]
    body = ("<p>Every candidate release, each score divided by the whole source table's score "
            "(undefined values are shown as n/a in the table and as 0 in the chart).</p>"
            + chart(data, CHART_RELEASES) + table(header, rows, widths={0: 140}))
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
                      + chart(data, CHART_PER_RECORD))
    if CHART_GROWTH in data.charts:
        yield Section("How the scores grow as records are added", "<p>The scores of the first 1, 2, … "
                      "published records (in published order), divided by the whole source table's score; "
                      "the last point is the release's score.</p>" + chart(data, CHART_GROWTH))


def records_section(data: ReportInput) -> Iterable[Section]:
    report = data.report
    if report is None:
        return
    if report.stored is not None:   # records on disk: the riskiest read by a query, never all of them
        records_count = report.published_rows
        shown = report.stored.top(MAX_REPORT_ROWS)[list(RECORD_COLUMNS)]
    else:
        records = report.records.sort_values("tkl", ascending=False, kind="stable")
        records_count, shown = len(records), records.head(MAX_REPORT_ROWS)
    body = ("<p>k: records in the source that share the record's quasi-identifiers; l: distinct sensitive "
            "values among them; t: how far their sensitive values stand out from the whole table; W: the "
            "record's weight; RS: its record scores.</p>")
    if records_count > len(shown):
        body += (f"<p>The {count(len(shown))} riskiest of {count(records_count)} records; the CSV export holds all "
                 f"of them.</p>")
    body += table(["id", "k", "l", "t", "W", "RS tkl", "RS M", "RS L"],
                  [[str(r[0]), count(r[1]), count(r[2])] + [score(v) for v in r[3:]]
                   for r in shown.itertuples(index=False, name=None)])
    yield Section("Per-record scores (riskiest by tkl first)", body)


def weights_list_section(data: ReportInput) -> Iterable[Section]:
    if data.weights is None:
        return
    rows = [[e.attribute, e.value, score(e.weight)] for e in data.weights.entries]
    yield Section("Weights of the sensitive values", table(["sensitive attribute", "value / bin", "weight"], rows, 2))
