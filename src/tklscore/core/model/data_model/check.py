"""Checking a tkl-Data Model against a source table (issue 20: "a model built for another table
is checked against the source's columns and values, and the mismatches are listed — not a
failure on first use").

Each :class:`Mismatch` names the column and says what does not fit and what it means for
scoring: ``blocking`` ones leave sensitive values of the table without a weight (scoring
refuses them unless missing weights count as 0); the others are informative (a value the
model knows but the table lacks weighs nothing and harms nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

from tklscore.core.errors import InputError
from tklscore.core.model.bins import check_bins, uncovered
from tklscore.core.model.data_model.tree import TklDataModel

SHOWN = 8


@dataclass(frozen=True)
class Mismatch:
    column: str
    kind: str
    """``missing column``, ``not sensitive``, ``no attribute``, ``continuous``, ``categorical``,
    ``values without a node``, ``values not in the table``, ``values in no bin``, ``bins``."""
    message: str
    values: tuple[str, ...] = ()
    blocking: bool = False

    def __str__(self) -> str:
        return f"{self.column}: {self.message}"


def _few(values, shown: int = SHOWN) -> str:
    values = list(values)
    return ", ".join(repr(v) for v in values[:shown]) + (f" and {len(values) - shown:,} more"
                                                         if len(values) > shown else "")


def check_model(model: TklDataModel, table=None, sa=None, continuous=None, columns=None) -> list[Mismatch]:
    """What in ``model`` does not fit ``table`` with sensitive columns ``sa`` (default: the
    model's own) of which ``continuous`` are continuous (default: as the model has them).
    Without a table, ``columns`` (the source's column names, an out-of-core source) allows the
    column checks only."""
    present = list(table.columns) if table is not None else list(columns or [])
    sa = list(model.columns if sa is None else sa)
    found: list[Mismatch] = []
    for column in model.columns:
        if column not in present:
            found.append(Mismatch(column, "missing column",
                                  "the model has an attribute for this column, but the table has no such column"))
        elif column not in sa:
            found.append(Mismatch(column, "not sensitive",
                                  "the model has an attribute for this column, but it is not a sensitive column "
                                  "here: its weights are not used"))
    for column in sa:
        if column not in present:
            if column not in model.columns:
                found.append(Mismatch(column, "missing column", "is not a column of the table", blocking=True))
            continue
        if column not in model.columns:
            found.append(Mismatch(column, "no attribute", "is sensitive but the model has no attribute for it: its "
                                                          "values have no weight", blocking=True))
            continue
        attribute = model.attribute(column)
        wanted = attribute.continuous if continuous is None else column in continuous
        if wanted != attribute.continuous:
            found.append(Mismatch(column, "continuous" if attribute.continuous else "categorical",
                                  f"is {'continuous' if wanted else 'categorical'} here but "
                                  f"{'continuous' if attribute.continuous else 'categorical'} in the model",
                                  blocking=True))
            continue
        if table is not None:
            found += _values(model, table, column, attribute.continuous)
    return found


def _values(model: TklDataModel, table, column: str, continuous: bool) -> list[Mismatch]:
    nodes = model.values_of(column)
    if continuous:
        try:
            intervals = check_bins([n.value for n in nodes], column)
        except InputError as error:
            return [Mismatch(column, "bins", f"the model's bins do not fit: {error.message}", blocking=True)]
        try:
            numbers, counts = table.numeric_counts(column)
        except InputError as error:
            return [Mismatch(column, "categorical", f"the model bins it as numbers, but {error.message}",
                             blocking=True)]
        outside = uncovered(intervals, numbers, counts)
        if outside is None:
            return []
        count, low, high = outside
        return [Mismatch(column, "values in no bin", f"{count:,} value(s) from {low:g} to {high:g} fall in no bin "
                                                     f"of the model: they have no weight",
                         (f"{low:g}", f"{high:g}"), blocking=True)]
    distinct = table.codes(column).uniques.tolist()
    known = {n.value for n in nodes}
    unknown = [v for v in distinct if v not in known]
    absent = sorted(known - set(distinct))
    found = []
    if unknown:
        found.append(Mismatch(column, "values without a node",
                              f"{len(unknown):,} value(s) of the table are not in the model, so they have no "
                              f"weight: {_few(unknown)}", tuple(unknown), blocking=True))
    if absent:
        found.append(Mismatch(column, "values not in the table",
                              f"{len(absent):,} value(s) of the model do not occur in the table (harmless): "
                              f"{_few(absent)}", tuple(absent)))
    return found
