"""Sensitive-value weights and the record weight sum W(r) (spec scoring.md, "Weights").

A weights file is a CSV ``attribute,value,weight``. For a categorical SA ``value`` is a
value as written in the table (the empty value is the empty string). For a continuous SA
``value`` is an interval such as ``[0,30)`` or ``[30,inf)`` (a single number is the
interval holding just that number); a raw value takes the weight of the interval it
falls in. Weights lie in [0, 1]. Entries for attributes that are not sensitive in the
table at hand are ignored, so one file can serve several tables.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass

import numpy as np

from tklscore.core.tables.spaces import split_listed, strip_value
from tklscore.core.errors import InputError, MissingWeightsError, existing_file, shorten
from tklscore.core.files.text import csv_rows, read_text

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_INTERVAL = re.compile(
    rf"^\s*([\[(])\s*(-?inf|{_NUMBER})\s*[,;]\s*(\+?inf|{_NUMBER})\s*([\])])\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    low_closed: bool
    high_closed: bool

    @classmethod
    def parse(cls, text: str) -> "Interval | None":
        match = _INTERVAL.match(text)
        if match:
            low, high = float(match.group(2)), float(match.group(3))
            return cls(low, high, match.group(1) == "[" and math.isfinite(low),
                       match.group(4) == "]" and math.isfinite(high))
        try:
            value = float(text)
        except ValueError:
            return None
        return cls(value, value, True, True) if math.isfinite(value) else None

    def is_empty(self) -> bool:
        return self.low > self.high or (self.low == self.high and not (self.low_closed and self.high_closed))

    def overlaps(self, other: "Interval") -> bool:
        first, second = sorted((self, other), key=lambda i: (i.low, not i.low_closed))
        return first.high > second.low or (first.high == second.low and first.high_closed and second.low_closed)

    def positions_in(self, sorted_values: np.ndarray) -> slice:
        """The slice of ``sorted_values`` that lies in the interval."""
        start = np.searchsorted(sorted_values, self.low, side="left" if self.low_closed else "right")
        stop = np.searchsorted(sorted_values, self.high, side="right" if self.high_closed else "left")
        return slice(int(start), int(max(start, stop)))

    def __str__(self) -> str:
        def num(x: float) -> str:
            return "inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:g}"
        return f"{'[' if self.low_closed else '('}{num(self.low)},{num(self.high)}{']' if self.high_closed else ')'}"


@dataclass(frozen=True)
class WeightEntry:
    attribute: str
    value: str
    weight: float
    row: int | None = None  # row of the weights file, for error messages


class Weights:
    """An immutable set of (attribute, value) → weight entries."""

    def __init__(self, entries, name: str = "<weights>"):
        self.name = name
        self._columns = None   # of derived weights (see derived()), until their entries are asked for
        self._entries_made = None
        self._build(tuple(e if isinstance(e, WeightEntry) else WeightEntry(*e) for e in entries))
        self.fingerprint = hash(tuple((e.attribute, e.value, e.weight) for e in self._entries))
        self._intervals: dict[str, list[tuple[Interval, WeightEntry]]] = {}

    @classmethod
    def derived(cls, attributes, values, weights, name: str = "<weights>") -> "Weights":
        """Weights a model derived: distinct (attribute, value) pairs and a weight each (in
        [0, 1], checked at once). The entries are made when first used — on the scoring's
        thread, not in the edit that derived them."""
        numbers = np.asarray(weights, dtype=np.float64)
        bad = ~(np.isfinite(numbers) & (numbers >= 0.0) & (numbers <= 1.0))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise InputError(f"the weight {numbers[k]!r} of ({shorten(attributes[k])!r}, {shorten(values[k])!r}) "
                             f"is outside [0, 1]", file=name)
        made = cls.__new__(cls)
        made.name = name
        made._columns = (list(attributes), list(values), numbers)
        made._entries_made = None
        made.fingerprint = hash((tuple(made._columns[0]), tuple(made._columns[1]), numbers.tobytes()))
        made._intervals = {}
        return made

    @property
    def _entries(self) -> tuple[WeightEntry, ...]:
        if self._entries_made is None:
            attributes, values, numbers = self._columns
            self._build(tuple(map(WeightEntry, attributes, values, numbers.tolist())))
        return self._entries_made

    @property
    def _by_attribute(self) -> dict[str, dict[str, WeightEntry]]:
        if self._entries_made is None:
            self._entries
        return self._by_attribute_made

    def _build(self, entries: tuple[WeightEntry, ...]) -> None:
        name = self.name
        by_attribute: dict[str, dict[str, WeightEntry]] = {}
        for entry in entries:
            _check_weight(entry, name)
            seen = by_attribute.setdefault(entry.attribute, {})
            if entry.value in seen and seen[entry.value].weight != entry.weight:
                raise InputError(
                    f"({shorten(entry.attribute)!r}, {shorten(entry.value)!r}) has two weights: {seen[entry.value].weight:g} "
                    f"(row {seen[entry.value].row}) and {entry.weight:g}", file=name, row=entry.row)
            seen[entry.value] = entry
        # the index first, the entries last: another thread that sees the entries sees the index
        self._by_attribute_made = by_attribute
        self._entries_made = entries

    @property
    def entries(self) -> tuple[WeightEntry, ...]:
        return self._entries

    @property
    def attributes(self) -> list[str]:
        return list(self._by_attribute)

    def has_intervals(self, attribute: str) -> bool:
        """Whether the entries of ``attribute`` are written as intervals such as [0,30)."""
        return any(_INTERVAL.match(value) for value in self._by_attribute.get(attribute, {}))

    def weights_of(self, attribute: str, uniques: np.ndarray, continuous: bool) -> np.ndarray:
        """The weight of each distinct value of ``attribute`` (NaN where none is given);
        ``uniques`` of a continuous attribute are sorted numbers."""
        if continuous:
            out = np.full(len(uniques), np.nan)
            for interval, entry in self._interval_entries(attribute):
                out[interval.positions_in(uniques)] = entry.weight
            return out
        table = self._by_attribute.get(attribute, {})
        return np.array([table[v].weight if v in table else np.nan for v in uniques], dtype=np.float64)

    def _interval_entries(self, attribute: str) -> list[tuple[Interval, WeightEntry]]:
        if attribute not in self._intervals:
            parsed = []
            for entry in self._by_attribute.get(attribute, {}).values():
                interval = Interval.parse(entry.value)
                if interval is None or interval.is_empty():
                    raise InputError(
                        f"'{shorten(entry.value)}' is not an interval such as [0,30) or [30,inf) "
                        f"(or a single number), but '{shorten(attribute)}' is continuous",
                        file=self.name, row=entry.row, column="value")
                for other, other_entry in parsed:
                    if interval.overlaps(other):
                        raise InputError(
                            f"intervals {other} (row {other_entry.row}) and {interval} of "
                            f"'{attribute}' overlap; a value must fall in one interval only",
                            file=self.name, row=entry.row, column="value")
                parsed.append((interval, entry))
            self._intervals[attribute] = parsed
        return self._intervals[attribute]


def missing_weights_notes(missing: list[tuple[str, str]], weights: Weights, missing_weight_zero: bool,
                          continuous=frozenset()) -> list[str]:
    """What sensitive values without a weight mean (every engine): an error naming them, or
    with ``missing_weight_zero`` a warning that they count as 0."""
    if missing and not missing_weight_zero:
        intervals = [a for a in dict.fromkeys(a for a, _ in missing)
                     if a not in continuous and weights.has_intervals(a)]
        raise MissingWeightsError(missing, file=weights.name, interval_attributes=intervals)
    if not missing:
        return []
    return [f"{len(missing)} sensitive value(s) have no weight and count as 0: "
            + ", ".join(f"({shorten(a, 40)!r}, {shorten(v, 40)!r})" for a, v in missing[:20])
            + (" ..." if len(missing) > 20 else "")]


def weights_above_one_note(records: int, largest: float) -> str:
    """The warning of record weight sums W(r) above 1 (every engine)."""
    return (f"the weights sum above 1 for {records} source record(s) (largest W(r) = {largest:.5g}); tkl and L "
            f"use W(r) as it is, M caps it at 1, and normalisation against the theoretical maximum is no longer "
            f"bounded by 1")


def _check_weight(entry: WeightEntry, name: str) -> None:
    if not entry.attribute:
        raise InputError("the attribute is empty", file=name, row=entry.row, column="attribute")
    if not (isinstance(entry.weight, (int, float)) and math.isfinite(entry.weight)):
        raise InputError(f"weight {entry.weight!r} is not a number", file=name, row=entry.row, column="weight")
    if not 0.0 <= entry.weight <= 1.0:
        raise InputError(f"weight {entry.weight:g} is outside [0, 1]", file=name, row=entry.row, column="weight")


def load_weights(path: str | os.PathLike) -> Weights:
    """Read a weights CSV with the columns attribute, value, weight (in any order)."""
    path = existing_file(path, "weights file")
    name = str(path)
    text = read_text(path, "weights file")
    from tklscore.core.tables.loading import detect_delimiter

    delimiter = detect_delimiter(text, path.suffix.lower())
    rows = list(csv_rows(text, name, delimiter))
    if not rows:
        raise InputError("the weights file is empty", file=name)
    header_row, first = rows[0]
    header = [h.strip().lower() for h in first]
    missing = [c for c in ("attribute", "value", "weight") if c not in header]
    if missing:
        model = text.lstrip().startswith(("@prefix", "@base", "PREFIX", "<")) or path.suffix.lower() == ".ttl"
        raise InputError(f"the header lacks column(s) {', '.join(missing)}; expected attribute,value,weight",
                         file=name, row=header_row,
                         hint="this looks like RDF: give a tkl-Data Model with --model" if model else None)
    ia, iv, iw = (header.index(c) for c in ("attribute", "value", "weight"))
    lines = text.splitlines()
    entries = []
    for number, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(ia, iv, iw):
            raise InputError(f"has {len(row)} field(s); expected {len(header)}", file=name, row=number)
        if any(cell.strip() for cell in row[len(header):]):
            raise InputError(f"has {len(row)} field(s); expected {len(header)}", file=name, row=number,
                             hint="quote a value holding the delimiter, e.g. \"[0,30)\"")
        raw = row[iw].strip()
        try:
            weight = float(raw)
        except ValueError:
            raise InputError(f"weight '{shorten(raw)}' is not a number", file=name, row=number,
                             column="weight") from None
        entries.append(WeightEntry(row[ia].strip(), _value_as_meant(row[iv], iv, lines, number, delimiter),
                                   weight, number))
    return Weights(entries, name=name)


def _value_as_meant(value: str, index: int, lines: list[str], number: int, delimiter: str) -> str:
    """A value cell under the rule of core/tables/spaces.py: the spaces around it are not
    part of it, unless it is written in double quotes (``" <=50K"`` keeps its space)."""
    if value == strip_value(value):
        return value
    line = lines[number - 1] if 0 < number <= len(lines) else ""
    try:
        cells = split_listed(line, delimiter)
    except ValueError:
        cells = []
    if index < len(cells) and cells[index][1] and cells[index][0] == value:
        return value
    return strip_value(value)


@dataclass(frozen=True)
class WeightsPerScore:
    """The weights each score uses (data-model.md §5): tkl-Score and tkl-Score_max,
    M-Score, L-Severity — each score's own model, or one set shared by all three."""

    tkl: "Weights"
    m_score: "Weights"
    l_severity: "Weights"

    @classmethod
    def shared(cls, weights: "Weights") -> "WeightsPerScore":
        """The same weights for all three scores (the thesis' like-for-like comparison)."""
        return cls(weights, weights, weights)
