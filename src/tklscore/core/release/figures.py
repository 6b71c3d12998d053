"""What a designed release shows beside its scores (privacy-models.md §5), in memory and
out of core alike: its rows (selected, published, suppressed), its smallest class k, its
distinct l-diversity and t-closeness, the highest prosecutor risk 1/k, the columns it
publishes generalised, and the privacy models and risk named for the officer. The Design
view, its report section and the command line read them from here."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tklscore.core.numbers import count, number, percent
from tklscore.core.risk.measures import measure_rows


@dataclass(frozen=True)
class DesignFigures:
    """The rows and privacy models of one evaluated design."""

    k: int                        # the smallest published class (0: nothing published)
    l: int                        # distinct l-diversity (min over classes and SAs)
    t: float                      # t-closeness (max over classes and SAs; NaN: not measured)
    selected_rows: int            # the rows designed (the release's rows, or every source record)
    published_rows: int
    suppressed_rows: int
    selection: str | None         # the release whose rows were designed (None: every source record)
    generalised: frozenset[str]   # the columns published at a level above 0

    @property
    def prosecutor_risk(self) -> float | None:
        """The highest prosecutor risk: 1/k, a record of the smallest class (None: nothing published)."""
        return 1.0 / self.k if self.k else None

    def rows_sentence(self) -> str:
        """E.g. "4 of the 4 records of 'Scenario 1' published, 0 suppressed"."""
        of = (f"the {self.selected_rows:,} records of '{self.selection}'" if self.selection is not None
              else f"all {self.selected_rows:,} source records")
        return f"{self.published_rows:,} of {of} published, {self.suppressed_rows:,} suppressed"


def design_figures(result, designer=None) -> DesignFigures:
    """The figures of a design result: in memory (``result.transformed``; l and t from the
    risk lens' measures, else computed on ``designer``), or an engine's (its measures)."""
    measures = result.measures
    transformed = getattr(result, "transformed", None)
    if transformed is not None:
        t = transformed
        k = int(np.bincount(t.published_class_ids).min()) if len(t.published) else 0
        if measures:
            l, closeness = measures["l_distinct"], measures["t"]
        else:
            from tklscore.core.release.suggest import privacy_models

            l, closeness = privacy_models(designer, t.design, t, t.published_class_ids)
        rows = (len(t.selected), len(t.published), len(t.suppressed))
        generalised = frozenset(c for c in t.generalised if t.generalised_cells(c))
        design = t.design
    else:
        k = int(measures["k"]) if measures else 0
        l, closeness = (measures["l_distinct"], measures["t"]) if measures else (0, math.nan)
        rows = (result.selected_rows, result.published_rows, result.suppressed_rows)
        generalised = frozenset(c for c, level in result.generalised_levels.items() if level)
        design = result.design
    selection = design.selection.name if design.selection is not None else None
    return DesignFigures(k, int(l), float(closeness), *rows, selection, generalised)


def privacy_rows(figures: DesignFigures, measures: dict | None) -> list[tuple[str, str]]:
    """The privacy models and risk of the release, named for the officer and shown by the one
    formatter: the risk lens' figures (:func:`tklscore.core.risk.measures.measure_rows`) when
    it measured the release, else k, l, t and the prosecutor risk 1/k."""
    if measures:
        return measure_rows(measures)
    return [("k-anonymity", count(figures.k)), ("distinct l-diversity", count(figures.l)),
            ("t-closeness", number(figures.t)), ("prosecutor risk (highest)", percent(figures.prosecutor_risk))]
