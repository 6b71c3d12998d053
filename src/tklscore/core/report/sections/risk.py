"""The Risk view's sections of the report (privacy-models.md §2–4): privacy models with
their meanings, the attacker models side by side, the distribution of per-record risk, QI
importance, D(r) with its parameters and histogram, the riskiest records. Risks are
percentages, as the verdict says them."""

from __future__ import annotations

from collections.abc import Iterable

from tklscore.core.numbers import count, number, percent
from tklscore.core.report.html import chart, esc, table
from tklscore.core.report.model import CHART_DISCLOSURE, CHART_RISK_DISTRIBUTION, ReportInput, Section
from tklscore.core.risk.lens import risk_band_labels
from tklscore.core.risk.measures import describe, t_by_attribute_rows
from tklscore.core.risk.measures import verdict as risk_verdict


def risk_section(data: ReportInput) -> Iterable[Section]:
    lens = data.risk
    if lens is None:
        if data.report is not None and not data.roles.qi:
            yield Section("Risk of re-identification", "<p>No quasi-identifiers are chosen, so the privacy models "
                                                       "and the re-identification risk are not measured.</p>")
        return
    m = lens.measures
    rows = [[name, number(value), meaning] for name, value, meaning in describe(m)]
    rows += [[name, number(value), meaning] for name, value, meaning in t_by_attribute_rows(m)]
    c = m.classes
    suppressed = (f" {count(m.suppressed_rows)} record(s) are suppressed (every quasi-identifier is the marker)."
                  if m.suppressed_rows else "")
    body = (f"<p><b>{esc(risk_verdict(m))}</b></p>"
            f"<p>{count(m.rows)} published records fall into {count(c.count)} equivalence classes (records that "
            f"share their quasi-identifiers) of {count(c.min)} to {count(c.max)} records (mean {number(c.mean, 3)}, "
            f"median {number(c.median)}).{suppressed} Measures that need a sensitive attribute are n/a without one."
            f"</p>" + table(["privacy model", "value", "what it means"], rows, text_columns=(2,)))
    yield Section(f"Risk of re-identification of {data.release}", body)

    p, j = m.prosecutor, m.journalist
    attackers = [["Prosecutor (knows the person is in the release)", percent(p.highest), percent(p.average),
                  percent(p.records_at_risk), percent(p.success_rate)]]
    if j is not None:
        attackers.append(["Journalist (links the release to the source table)", percent(j.highest),
                          percent(j.average), percent(j.records_at_risk), percent(j.success_rate)])
        attackers.append(["Marketer (re-identifies as many records as possible)", "", "", "",
                          percent(m.marketer)])
    body = (table(["attacker", "highest risk", "average risk", "records at risk", "success rate"], attackers)
            + f"<p>Records at risk: the share of records whose risk exceeds {percent(m.risk_threshold)}. "
              f"Sample uniques (records alone in their class): {percent(m.sample_uniques)}.")
    if m.population_uniques is not None:
        body += " Population uniques: " + ", ".join(f"{k} {percent(v)}" for k, v in
                                                     m.population_uniques.fractions().items()) + "."
    body += "</p>"
    yield Section("Attacker models side by side", body)

    distribution = lens.risk_distribution()
    labels = risk_band_labels()
    shares = [[label] + [percent(float(distribution[a][i])) for a in distribution] for i, label in enumerate(labels)]
    body = ("<p>The share of records in each band of re-identification risk (as ARX groups it; a record's "
            "prosecutor risk is 1/|its class|, its journalist risk 1/|its class in the source|).</p>"
            + chart(data, CHART_RISK_DISTRIBUTION)
            + table(["risk band (%)"] + [a for a in distribution], [r for r in shares if any(
                x != "0 %" for x in r[1:])]))
    yield Section("Distribution of per-record risk", body)

    if m.qi_importance:
        rows = [[", ".join(q.attributes), number(q.distinction), number(q.separation)] for q in m.qi_importance]
        yield Section("Quasi-identifier importance", (
            "<p>For each set of quasi-identifiers: <i>distinction</i> = distinct value combinations ÷ records "
            "(1: every record is told apart); <i>separation</i> = share of record pairs it tells apart.</p>"
            + table(["quasi-identifiers", "distinction", "separation"], rows)))

    dr = lens.disclosure
    histogram = lens.disclosure_histogram()
    weights = f" from {esc(lens.weights_name)}" if lens.weights_name else " (no value weights were chosen: W(v) = 0)"
    parameters = [[a.attribute, number(a.pk), number(a.weight)] for a in lens.parameters]
    body = ("<p>Orooji and Knapp's record-level risk D(r) = α Σ over the sets of attributes an attacker may "
            "know of (chance of knowing them ÷ records that share them) × (harm of disclosing the rest), with "
            f"α = {number(dr.alpha)}; {count(len(dr.known_sets))} of {count(dr.splits)} known sets are kept (those an "
            f"attacker knows with probability PK > ε = {number(dr.epsilon)}). <b>{count(dr.above_threshold)} of "
            f"{count(dr.n)} records ({percent(dr.above_threshold_share)}) have D above the threshold "
            f"{number(dr.threshold)}</b> (the red line); the largest D is {number(dr.d_max)}"
            + (f"; {count(histogram.zero)} record(s) have D = 0 (not on the logarithmic axis)" if histogram.zero
               else "")
            + ".</p>" + chart(data, CHART_DISCLOSURE))
    yield Section("Disclosure risk D(r)", body)
    yield Section("Parameters of D(r)", (
        "<p>PK: the probability that an attacker knows the attribute; W(A): how much disclosing it harms; "
        f"W(v): the weight of the record's value{weights}.</p>"
        + table(["attribute", "PK", "W(A)"], parameters)), level=3)

    riskiest = lens.riskiest()
    rows = [[r[0], count(int(r[2])), percent(float(r[3])), percent(float(r[4])), number(float(r[5]))]
            for r in riskiest.itertuples(index=False, name=None)]
    yield Section("Riskiest records", (
        f"<p>The {len(rows)} records with the highest prosecutor risk (ties: highest D(r)); "
        + ("the source is too large for memory: every record's D(r) stays in the engine (tklscore "
           "disclosure-risk --engine duckdb --output FILE.parquet writes them).</p>" if lens.out_of_core else
           "the per-record scores above and the CSV export hold every record.</p>")
        + table(["record", "class size", "prosecutor risk", "journalist risk", "D(r)"], rows)))
