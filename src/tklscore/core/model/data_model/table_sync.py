"""Keeping a tkl-Data Model in line with its source table (data-model.md §6, thesis 4.3.5):
attributes for the sensitive columns, a value per distinct value (bins for continuous
columns), value labels made distinct where two attributes share one (``V-<n>.<value>``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tklscore.core.scoring.weights import Interval

if TYPE_CHECKING:
    from tklscore.core.model.data_model.tree import TklDataModel


@dataclass
class ModelChanges:
    added_attributes: list[str] = field(default_factory=list)
    added_values: list[tuple[str, str]] = field(default_factory=list)
    removed_attributes: list[str] = field(default_factory=list)
    values_not_in_table: list[tuple[str, str]] = field(default_factory=list)


def update_from_table(model: TklDataModel, table, roles, bins: dict[str, list] | None = None,
                      alignment: dict[str, str] | None = None) -> ModelChanges:
    """Bring the table model in line with the source: add new sensitive columns and new
    values (unlabelled: they are what the expert is asked for), remove columns that are no
    longer sensitive. Every existing judgement, label and element is kept."""
    bins, alignment = bins or {}, alignment or {}
    changes = ModelChanges()
    for column in [c for c in model.columns if c not in roles.sa]:
        model.remove(model.attribute(column).iri)
        changes.removed_attributes.append(column)
    new_values: dict[str, list[str]] = {}
    for column in roles.sa:
        continuous = column in roles.continuous
        if column not in model.columns:
            model.add_attribute(column, continuous, alignment.get(column))
            changes.added_attributes.append(column)
        elif column in alignment:
            model.align(column, alignment[column])
        present = {v.value for v in model.values_of(column)}
        if continuous:
            for entry in bins.get(column, []):
                interval, label = (entry, None) if isinstance(entry, str) else entry
                if interval not in present:
                    model.add_value(column, interval, label=label)
                    changes.added_values.append((column, interval))
            new_values[column] = []
        else:
            distinct = list(dict.fromkeys(table.text(column).tolist()))
            new_values[column] = [v for v in distinct if v not in present]
            in_table = set(distinct)
            changes.values_not_in_table += [(column, v) for v in present if v not in in_table]
    shared = shared_value_labels(new_values, model)
    for column, values in new_values.items():
        for value in values:
            label = None
            if column in shared and not model.attribute(column).continuous:
                label = f"V-{shared[column]}.{value.replace(' ', '-')}"
            model.add_value(column, value, label=label)
            changes.added_values.append((column, value))
    return changes


def shared_value_labels(new_values: dict[str, list[str]], model: TklDataModel) -> dict[str, int]:
    """Columns whose values share a label with another column's values, numbered in order."""
    labels: dict[str, set[str]] = {}
    for column in model.columns:
        if model.attribute(column).continuous:
            continue
        labels[column] = {v.value for v in model.values_of(column)} | set(new_values.get(column, []))
    shared = []
    for column, values in labels.items():
        if any(values & other for c, other in labels.items() if c != column):
            shared.append(column)
    return {column: i for i, column in enumerate(shared)}


def bin_name(interval: str) -> str:
    """The node name of a bin: ``[0,30)`` → ``LT-30``, ``[30,inf)`` → ``GEQ-30``."""
    parsed = Interval.parse(interval)
    if parsed.low == parsed.high:
        return f"EQ-{parsed.low:g}"
    if math.isinf(parsed.low):
        return f"{'LEQ' if parsed.high_closed else 'LT'}-{parsed.high:g}"
    if math.isinf(parsed.high):
        return f"{'GEQ' if parsed.low_closed else 'GT'}-{parsed.low:g}"
    return f"{'GEQ' if parsed.low_closed else 'GT'}-{parsed.low:g}-{'LEQ' if parsed.high_closed else 'LT'}-{parsed.high:g}"
