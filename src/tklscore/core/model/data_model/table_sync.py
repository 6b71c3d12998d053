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
    if math.isinf(parsed.low) or (parsed.low == 0 and parsed.low_closed and not math.isinf(parsed.high)):
        # [0,30) is V.LT-30 as in data-model.md §1: a first bin from 0 holds everything below its end
        return f"{'LEQ' if parsed.high_closed else 'LT'}-{parsed.high:g}"
    if math.isinf(parsed.high):
        return f"{'GEQ' if parsed.low_closed else 'GT'}-{parsed.low:g}"
    return f"{'GEQ' if parsed.low_closed else 'GT'}-{parsed.low:g}-{'LEQ' if parsed.high_closed else 'LT'}-{parsed.high:g}"


# ---------------------------------------------------------------------------- bins


@dataclass
class BinChanges:
    """What :func:`set_bins` did to a continuous attribute's bins."""

    column: str
    kept: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)      # new bins: a label carried over, not yet judged
    removed: list[tuple[str, str | None]] = field(default_factory=list)  # (bin, its label)


def set_bins(model: TklDataModel, column: str, bins, carry: dict[str, str] | None = None,
             default_label: str | None = None) -> BinChanges:
    """Give continuous ``column`` the bins ``bins`` (interval texts), sorted. A bin that
    already exists keeps its node and label; ``carry`` maps a new bin to an old one whose
    label (and judged state) it takes over as it is (a bin edited in place). Any other new
    bin takes the label of the old bin it overlaps most, marked not yet judged (the default
    label when there was none). Bins that overlap or leave gaps are refused, changing nothing."""
    from dataclasses import replace

    from tklscore.core.errors import InputError
    from tklscore.core.model.bins import check_bins, overlap_length

    attribute = model.attribute(column)
    if not attribute.continuous:
        raise InputError(f"'{column}' is not continuous: only a continuous column has bins", column=column)
    intervals = check_bins(list(bins), column)
    carry = carry or {}
    default_label = default_label or model.scale.default
    old = {str(Interval.parse(n.value)): n for n in model.values_of(column)}
    changes = BinChanges(column)
    old_intervals = {text: Interval.parse(text) for text in old}
    plan = []
    for interval in intervals:
        text = str(interval)
        source = carry.get(text, text if text in old else None)
        if source is not None and source in old:
            node = old[source]
            plan.append((text, node.parent, node.qualitative, node.provisional))
            (changes.kept if source == text else changes.added).append(text)
            continue
        best = max(old_intervals, key=lambda o: overlap_length(old_intervals[o], interval), default=None)
        label = old[best].qualitative if best is not None and overlap_length(old_intervals[best], interval) > 0 \
            else None
        plan.append((text, attribute.iri, label or default_label, True))
        changes.added.append(text)
    kept_sources = {carry.get(t, t) for t in changes.kept + changes.added}
    changes.removed = [(text, node.qualitative) for text, node in old.items() if text not in kept_sources]
    for node in old.values():
        model.remove(node.iri)
    for text, parent, label, provisional in plan:
        iri = model.add_value(column, text, parent=parent if parent in model.nodes else attribute.iri)
        model.nodes[iri] = replace(model.nodes[iri], qualitative=label, provisional=provisional and label is not None)
    return changes


def edit_bin(model: TklDataModel, iri: str, interval: str) -> BinChanges:
    """Change one bin of a continuous attribute in place (its label goes with it); the bins
    must still neither overlap nor leave gaps."""
    from tklscore.core.errors import InputError
    from tklscore.core.model.data_model.nodes import Kind

    node = model.node(iri)
    if node.kind != Kind.VALUE or not model.attribute(node.column).continuous:
        raise InputError(f"'{node.label}' is not a bin of a continuous attribute")
    parsed = Interval.parse(str(interval))
    if parsed is None:
        raise InputError(f"'{interval}' is not a bin such as [0,30) or [30,inf)", column=node.column)
    old_interval = Interval.parse(node.value)
    others = sorted((Interval.parse(n.value) for n in model.values_of(node.column)
                     if Interval.parse(n.value) != old_interval), key=lambda i: (i.low, not i.low_closed))
    carry = {str(parsed): str(old_interval)}
    bins = [parsed]
    for other in others:  # a neighbour that shared an edge with the bin follows the edge
        moved = other
        if other.low == old_interval.high and other.low_closed != old_interval.high_closed:
            moved = Interval(parsed.high, other.high, not parsed.high_closed, other.high_closed)
        elif other.high == old_interval.low and other.high_closed != old_interval.low_closed:
            moved = Interval(other.low, parsed.low, other.low_closed, not parsed.low_closed)
        if moved != other and not moved.is_empty():
            carry[str(moved)] = str(other)
            bins.append(moved)
        else:
            bins.append(other)
    return set_bins(model, node.column, [str(b) for b in bins], carry=carry)


# ---------------------------------------------------------------------------- following the table


@dataclass
class TableChanges:
    """What :func:`follow_table` changed (data-model.md §6) and what the expert must now do."""

    added_attributes: list[str] = field(default_factory=list)
    removed_attributes: list[str] = field(default_factory=list)
    kind_changed: list[str] = field(default_factory=list)          # continuous <-> categorical: rebuilt
    added_values: list[tuple[str, str]] = field(default_factory=list)     # default label, not yet judged
    dropped_values: list[tuple[str, str, str | None]] = field(default_factory=list)  # (column, value, label)
    rebinned: list[BinChanges] = field(default_factory=list)
    uncovered: list[tuple[str, int, float, float]] = field(default_factory=list)  # values in no bin
    aligned: dict[str, str] = field(default_factory=dict)          # new column -> suggested class (label)
    needs_alignment: list[str] = field(default_factory=list)
    needs_judgement: list[str] = field(default_factory=list)       # criteria groups, by their parent's label
    forgotten: list[tuple[str, str, str]] = field(default_factory=list)   # judgements that no longer apply
    notes: list[str] = field(default_factory=list)
    adopted: bool = False   # the model was built for another table and now follows this one

    @property
    def changed(self) -> bool:
        return bool(self.added_attributes or self.removed_attributes or self.kind_changed or self.added_values
                    or self.dropped_values or self.rebinned)

    def lines(self) -> list[str]:
        """The changes and what is left to do, one sentence each."""
        out = []
        for column in self.added_attributes:
            cls = self.aligned.get(column)
            out.append(f"new sensitive column {column}" + (f", aligned with {cls} (suggested)" if cls else ""))
        out += [f"column {c} is no longer sensitive: its attribute, labels and judgements were dropped"
                for c in self.removed_attributes]
        out += [f"column {c} changed between continuous and categorical: its attribute was rebuilt"
                for c in self.kind_changed]
        for column, values in _by_column(self.added_values).items():
            out.append(f"{len(values)} new value(s) of {column} start with the default label, not yet judged: "
                       + _few(values))
        for column, values in _by_column([(c, v) for c, v, _ in self.dropped_values]).items():
            out.append(f"{len(values)} value(s) of {column} no longer in the table were dropped with their "
                       f"labels: " + _few(values))
        for change in self.rebinned:
            out.append(f"bins of {change.column}: {len(change.added)} new (not yet judged), "
                       f"{len(change.removed)} dropped, {len(change.kept)} kept")
        out += [f"{count} value(s) of {column} ({low:g} … {high:g}) fall in no bin: add or widen a bin"
                for column, count, low, high in self.uncovered]
        out += [f"column {c} needs a class: drag one onto its attribute" for c in self.needs_alignment]
        out += [f"the criteria group under {g} needs judgements" for g in self.needs_judgement]
        if self.forgotten:
            out.append(f"{len(self.forgotten)} judgement(s) no longer apply and were dropped")
        return out + self.notes


def _by_column(pairs) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for column, value in pairs:
        grouped.setdefault(column, []).append(value)
    return grouped


def _few(values: list[str], shown: int = 5) -> str:
    return ", ".join(values[:shown]) + (f" and {len(values) - shown} more" if len(values) > shown else "")


def follow_table(model: TklDataModel, table, roles, vocabulary=None, bins: dict[str, list[str]] | None = None,
                 default_label: str | None = None) -> TableChanges:
    """Bring the model in line with the table and its roles (data-model.md §6, thesis 4.3.5):

    - a column no longer sensitive loses its attribute (and the judgements naming it); one
      that changed between continuous and categorical is rebuilt;
    - a new sensitive column gets an attribute aligned with its suggested class (marked a
      suggestion; with ``vocabulary`` the taxonomy is re-extracted, keeping every judgement
      that still applies) and values (bins: ``bins`` or quantile bins) with the default label,
      not yet judged;
    - new values of a column get the default label, not yet judged; values that left the
      table are dropped (listed with their labels);
    - every other label, element, alignment and judgement is kept.
    """
    from dataclasses import replace

    from tklscore.core.model.bins import check_bins, quantile_bins, uncovered
    from tklscore.core.model.class_suggestions import suggest_class

    bins, default_label = bins or {}, default_label or model.scale.default
    changes = TableChanges()
    for column in list(model.columns):
        attribute = model.attribute(column)
        if column not in roles.sa:
            model.remove(attribute.iri)
            changes.removed_attributes.append(column)
        elif (column in roles.continuous) != attribute.continuous:
            model.remove(attribute.iri)
            changes.kind_changed.append(column)
    suggested: dict[str, str] = {}
    for column in roles.sa:
        if column in model.columns:
            continue
        continuous = column in roles.continuous
        model.add_attribute(column, continuous)
        if column not in changes.kind_changed:
            changes.added_attributes.append(column)
        if vocabulary is not None:
            suggestion = suggest_class(column, table.codes(column).uniques[:2000].tolist(), vocabulary)
            if suggestion:
                suggested[column] = suggestion.iri
        if column not in suggested:
            changes.needs_alignment.append(column)
    new_values: dict[str, list[str]] = {}
    for column in roles.sa:
        attribute = model.attribute(column)
        if attribute.continuous:
            numbers = table.numeric(column)
            wanted = bins.get(column)
            if wanted is None and not model.values_of(column):
                wanted = quantile_bins(numbers)
            if wanted is not None:
                change = set_bins(model, column, wanted, default_label=default_label)
                if change.added or change.removed:
                    changes.rebinned.append(change)
            intervals = check_bins([v.value for v in model.values_of(column)], column)
            outside = uncovered(intervals, *table.numeric_counts(column))
            if outside is not None:
                changes.uncovered.append((column, *outside))
            continue
        distinct = table.codes(column).uniques.tolist()
        in_table = set(distinct)
        for node in model.values_of(column):
            if node.value not in in_table:
                changes.dropped_values.append((column, node.value, node.qualitative))
                model.remove(node.iri)
        new_values[column] = [v for v in distinct if model.nodes.value_of(column, v) is None]
    shared = shared_value_labels(new_values, model)
    for column, values in new_values.items():
        for value in values:
            label = f"V-{shared[column]}.{value.replace(' ', '-')}" if column in shared else None
            model.add_value(column, value, label=label, qualitative=default_label, provisional=True)
            changes.added_values.append((column, value))
    if vocabulary is not None and (suggested or changes.removed_attributes or changes.kind_changed):
        _realign_after_follow(model, vocabulary, suggested, changes)
    else:
        _prune_empty_classes(model)
    for column, iri in suggested.items():
        node = model.attribute(column)
        if node.parent is not None:
            model.nodes[node.iri] = replace(node, provisional=True)
            changes.aligned[column] = model.nodes[node.parent].label
    derived = model.derive()
    changes.needs_judgement = [model.nodes[p].label for p in model.groups()
                               if p not in derived.groups
                               and not all(model.nodes[c].assigned is not None for c in model.criteria_group(p))]
    return changes


def _realign_after_follow(model: TklDataModel, vocabulary, suggested: dict[str, str], changes: TableChanges) -> None:
    """Re-extract the taxonomy for the new alignment; a vocabulary that cannot hold the
    model's classes leaves the new columns unaligned (listed) rather than failing the update."""
    from tklscore.core.errors import InputError

    if not model.alignment() and not suggested:
        _prune_empty_classes(model)
        return
    try:
        if suggested:
            for column, iri in list(suggested.items()):
                changes.forgotten += model.realign(vocabulary, column, iri).forgotten
        else:
            changes.forgotten += model.realign(vocabulary).forgotten
    except InputError as error:
        changes.notes.append(f"the taxonomy was not re-extracted: {error}")
        changes.needs_alignment += [c for c in suggested if model.attribute(c).parent is None]
        for column in list(suggested):
            if model.attribute(column).parent is None:
                del suggested[column]
        _prune_empty_classes(model)


def _prune_empty_classes(model: TklDataModel) -> None:
    """Remove taxonomy classes left with nothing below them (not the root), repeatedly."""
    from tklscore.core.model.data_model.nodes import Kind

    while True:
        empty = [iri for iri, n in model.nodes.items() if n.kind == Kind.TAXONOMY and not model.children(iri)]
        if not empty:
            return
        for iri in empty:
            model.remove(iri)
