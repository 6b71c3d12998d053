"""Score every release of a project — its candidate releases (ids, files, filters) and
the releases saved from the Design view — on one source, in memory or out of core alike:
what the application shows in the Release, Scores and Risk views after each change."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from tklscore.core.errors import InputError
from tklscore.core.release.filters import FilterError
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.scoring.weights import Weights, WeightsPerScore
from tklscore.core.source.base import Source


@dataclass
class ProjectScores:
    """Each release's report and measures (by name), the releases that could not be
    scored with the reason (``refused``: those whose filter was refused,
    :mod:`tklscore.core.release.filters`), and the reports of the designed releases among them."""

    reports: dict = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    refused: set[str] = field(default_factory=set)
    measures: dict = field(default_factory=dict)
    designed: dict = field(default_factory=dict)


def score_project(source: Source, definitions: list[ReleaseDefinition], weights: Weights, x: float = 1.0, *,
                  per_score: WeightsPerScore | None = None, design_settings: dict | None = None, elements=None,
                  progress: Callable[[int, str], None] | None = None, stream: bool = True,
                  measure: bool = True) -> ProjectScores:
    """Score each release of ``definitions`` with ``weights`` (or each score with its own
    model, ``per_score``: the values another score's model lacks count 0) and x; measure it (privacy models and risk against the source, when there are
    quasi-identifiers; kept by the source across weights); evaluate the designs saved in
    ``design_settings``. A release that cannot be located is reported in ``errors``; a
    source, roles or weights that cannot be scored raise (every release fails alike).
    ``progress(percent, text)`` is called before each release. Out of core each release's
    records stay on disk (``stream``: ``report.stored``, what the views page through).
    ``measure=False``: the candidate releases are scored only (with the measures the source
    kept from an earlier scoring), and measured afterwards by :func:`measure_project` (the
    scores are shown first)."""
    report = progress or (lambda _percent, _text: None)
    out = ProjectScores()
    roles = source.roles
    where = " out of core" if source.out_of_core else ""
    with source.session() as session:
        report(2, f"Checking the roles against the source{where}")
        session.check_roles()
        for i, definition in enumerate(definitions):
            report(int(5 + 95 * i / max(1, len(definitions))), f"Scoring {definition.name}{where}")
            try:
                opened = session.open_release(definition)
            except InputError as error:   # one bad release must not hide the others' scores
                out.errors[definition.name] = str(error)
                if isinstance(error, FilterError):
                    out.refused.add(definition.name)
                continue
            scored = (session.score(opened, weights, x, skip_unlocated=True, stream=stream) if per_score is None else
                      session.score(opened, per_score, x, missing_weight_zero=True, skip_unlocated=True,
                                    stream=stream))
            out.reports[definition.name] = scored
            if roles.qi and scored.published_rows:
                if measure:
                    out.measures[definition.name] = session.measure(opened)
                elif definition in session.measured:   # kept from an earlier scoring: nothing to take
                    out.measures[definition.name] = session.measured[definition]
        designed = session.evaluate_saved_designs(dict(design_settings or {}), weights, x, elements)
    out.errors.update(designed.errors)
    for name, result in designed.results.items():
        out.reports[name] = out.designed[name] = result.report
        if result.risk is not None:
            out.measures[name] = result.risk
    return out


def measure_project(source: Source, definitions: list[ReleaseDefinition], reports: dict,
                    progress: Callable[[int, str], None] | None = None) -> dict:
    """The measures (privacy models and risk against the source) of each release of
    ``definitions`` that :func:`score_project` scored with ``measure=False`` (``reports``, by
    name) and that publishes records, when the roles have quasi-identifiers: name → measures."""
    report = progress or (lambda _percent, _text: None)
    measured = {}
    if not source.roles.qi:
        return measured
    scored = [d for d in definitions if d.name in reports and reports[d.name].published_rows]
    with source.session() as session:
        for i, definition in enumerate(scored):
            report(int(100 * i / max(1, len(scored))), f"Measuring the risk of {definition.name}")
            measured[definition.name] = session.measure(session.open_release(definition))
    return measured
