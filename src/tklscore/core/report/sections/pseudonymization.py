"""The pseudonymisation section of the report (disclosure-risk.md A4–A6): the verdict on
the maximum risk transition, the violations of every QI subset as a table and a chart
(Fig. 6), the removal with the exact minimum, the utility deltas, and the blocking rules'
verdicts. Every number is the core analysis's
(:class:`tklscore.core.pseudonymization.analysis.Analysis`); the Pseudonymization view
leaves its latest analysis on the workbench as a :class:`PseudonymizationSummary`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from tklscore.core.numbers import number, percent
from tklscore.core.pseudonymization.utility import LABELS, STATISTICS
from tklscore.core.report import svg
from tklscore.core.report.html import chart, esc, table
from tklscore.core.report.model import ReportInput, Section

CHART_KEY = "pseudonymization"
ALLOWED, REFUSED, MAXIMUM = (198, 40, 40), (109, 76, 65), (127, 0, 0)


@dataclass
class PseudonymizationSummary:
    """What the report needs from the view: the analysis, the rules it was judged by, the
    transition on show and the officer's decision (if any)."""

    analysis: object
    rules: list = field(default_factory=list)
    selected: tuple | None = None
    decision: str = ""


def _share(share: float | None) -> str:
    return "—" if share is None else percent(share)


def _minimum_text(removal) -> str:
    if not removal.classes:
        return "—"
    if removal.minimum is not None:
        return str(removal.minimum)
    bounds = removal.minimum_json()
    return f"{bounds['at_least']}–{bounds['at_most']}"


def violations_chart(rows, blocked: dict, maximum: tuple) -> str:
    """A bar per QI subset (the table's order), N_v high: dark red the maximum transition,
    red allowed, brown refused by a limit."""
    kinds = [("refused by a limit", REFUSED), ("all QIs (maximum risk)", MAXIMUM), ("allowed", ALLOWED)]
    values = {name: np.full(len(rows), np.nan) for name, _ in kinds}
    for index, t in enumerate(rows):
        kind = ("refused by a limit" if blocked.get(t.qi_set, (False,))[0]
                else "all QIs (maximum risk)" if t.qi_set == maximum else "allowed")
        values[kind][index] = t.violations
    series = [svg.Series(name, color, values[name]) for name, color in kinds if not np.isnan(values[name]).all()]
    return svg.stacked_bars([str(i + 1) for i in range(len(rows))], series,
                            title="Violations per set of quasi-identifiers released",
                            x_label="row of the table above (the QIs released)", y_label="violations N_v")


def pseudonymization_section(data: ReportInput) -> Iterable[Section]:
    summary = getattr(data, "pseudonymization", None)
    if summary is None:
        return
    analysis = summary.analysis
    engine = analysis.engine
    qi = list(engine.qi)
    records = analysis.records
    maximum = analysis.maximum
    reason = analysis.blocked_reason(maximum.qi_set)
    verdict = (f"An actor who learns all the quasi-identifiers ({esc(', '.join(qi))}) could predict "
               f"<b>{esc(engine.sensitive)}</b> above its owner's own threshold for <b>{maximum.violations:,} of "
               f"{records:,} people ({_share(analysis.share(maximum))})</b>.")
    if reason:
        verdict += f" <b>This release is refused by a limit:</b> {esc(reason)}."
    settings = (f"Margin {engine.margin:g} (two values at most this far apart count as equal); a violation is a "
                f"risk {'&gt;' if engine.operator == 'gt' else '≥'} the owner's threshold.")
    notes = "".join(f"<p><i>{esc(w)}</i></p>" for w in analysis.warnings)
    decision = f"<p><b>Decision:</b> {esc(summary.decision)}</p>" if summary.decision else ""
    yield Section("Pseudonymisation risk: can the sensitive value be predicted?",
                  f"<p>{verdict}</p><p>{settings}</p>{notes}{decision}")

    rows = analysis.largest_first()
    listed = []
    for index, t in enumerate(rows, start=1):
        report = analysis.reports.get(t.qi_set)
        refused = analysis.blocked_reason(t.qi_set) is not None
        listed.append([str(index), ", ".join(t.qi_set), ", ".join(q for q in qi if q not in t.qi_set) or "—",
                      f"{t.violations:,}", _share(analysis.share(t)),
                      "—" if report is None else f"{report.removal.removed:,}",
                      "—" if report is None else _minimum_text(report.removal),
                      "refused" if refused else "allowed"])
    data.charts[CHART_KEY] = violations_chart(rows, analysis.blocked, maximum.qi_set)
    yield Section("Violations per set of quasi-identifiers the actor knows (“try removing fields”)",
                  "<p>Each row is one risk transition: what an actor could predict if only these QIs were "
                  "released. N_v: people whose value could be predicted above their threshold; R_v: values "
                  "Algorithm 2 removed to clear them (seeded); minimum: the fewest values that clear them, "
                  "searched exactly per look-alike set (a range where a set was too large to search); rule: "
                  "whether a limit refuses the release (the reasons are under Limits).</p>"
                  + table(["#", "QIs released", "left out", "N_v", "share", "R_v", "minimum", "rule"], listed,
                           align_left=3, text_columns=(7,))
                  + chart(data, CHART_KEY)
                  + "<p>Dark red: all QIs (the maximum risk transition); red: allowed; brown: refused by a "
                    "limit.</p>", level=3)

    chosen = summary.selected if summary.selected in analysis.reports else maximum.qi_set
    report = analysis.reports.get(chosen)
    if report is not None:
        removal = report.removal
        lines = [f"Risk transition <b>{esc(', '.join(chosen))}</b>: {removal.violations_before:,} violation(s); "
                 f"Algorithm 2 (seed {removal.seed}) removed <b>{removal.removed:,}</b> value(s) in "
                 f"{removal.passes} pass(es), leaving {report.violations_after} violation(s). A removed value is "
                 f"emptied; the rest of its record is kept."]
        if removal.classes:
            if removal.minimum is not None:
                excess = removal.heuristic_excess
                lines.append(f"The exact minimum is <b>{removal.minimum:,}</b> value(s): "
                             + (f"the heuristic removed {excess:,} more than needed." if excess
                                else "the heuristic's removal is minimal here."))
            else:
                bounds = removal.minimum_json()
                lines.append(f"The exact minimum lies between {bounds['at_least']:,} and {bounds['at_most']:,}: "
                             f"{bounds['searched']} of {bounds['sets']} look-alike sets were searched "
                             f"({esc(removal.unsearched[0].note)}).")
        stats = report.statistics
        rows = [[LABELS[k]] + [number(stats[part][k]) for part in ("original", "trimmed", "delta")]
                for k in STATISTICS]
        yield Section("Removing the violations: what it costs the data (utility report)",
                      "".join(f"<p>{line}</p>" for line in lines)
                      + table(["statistic", "original", "trimmed", "δ = trimmed − original"], rows)
                      + "<p>A negative δ means the statistic went down when the values were removed.</p>", level=3)

    if summary.rules:
        refused = [t for t in analysis.transitions if analysis.blocked.get(t.qi_set, (False,))[0]]
        rule_rows = [[str(rule)] for rule in summary.rules]
        verdicts = [[", ".join(t.qi_set), analysis.blocked[t.qi_set][1]] for t in refused]
        body = ("<p>Limits imposed (a transition a rule matches is refused — the data is not sent):</p>"
                + table(["rule"], rule_rows)
                + (f"<p>{len(refused)} of {len(analysis.transitions)} risk transitions are refused:</p>"
                   + table(["QIs released", "why"], verdicts, align_left=2) if refused
                   else "<p>No risk transition is refused by these limits.</p>"))
        yield Section("Limits (blocking rules)", body, level=3)
