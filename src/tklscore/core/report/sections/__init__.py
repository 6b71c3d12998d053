"""The registry of the report's sections: each view's section builders in the order a
reader takes them in (``SECTION_BUILDERS``); a new measure adds its own with
:func:`add_section_builder`. A builder turns one
:class:`~tklscore.core.report.model.ReportInput` into
:class:`~tklscore.core.report.model.Section`s and may yield none."""

from __future__ import annotations

from tklscore.core.report.model import ReportInput, Section, SectionBuilder
from tklscore.core.report.sections.design import designed_release_section
from tklscore.core.report.sections.model import model_section
from tklscore.core.report.sections.pseudonymization import pseudonymization_section
from tklscore.core.report.sections.risk import risk_section
from tklscore.core.report.sections.scores import (charts_section, overview_section, records_section,
                                                  releases_section, scores_section, weights_list_section,
                                                  weights_section)

SECTION_BUILDERS: list[SectionBuilder] = [
    overview_section,             # Scores view
    scores_section,
    designed_release_section,     # Design view: right after the designed release's scores
    weights_section,
    releases_section,
    charts_section,
    records_section,
    risk_section,                 # Risk view
    pseudonymization_section,     # Pseudonymization view
    model_section,                # tkl-Data Model view
    weights_list_section,
]


def add_section_builder(builder: SectionBuilder, before: SectionBuilder | None = None) -> None:
    """Add a measure's section to every report (at the end, or before ``before``)."""
    if builder in SECTION_BUILDERS:
        return
    index = SECTION_BUILDERS.index(before) if before in SECTION_BUILDERS else len(SECTION_BUILDERS)
    SECTION_BUILDERS.insert(index, builder)


def build_sections(data: ReportInput) -> list[Section]:
    return [section for builder in SECTION_BUILDERS for section in builder(data)]
