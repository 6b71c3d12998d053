"""Generalisation hierarchies (privacy-models.md §5; ppdp-prototype.md §1.3, §1.5).

A hierarchy maps each distinct value of one column to its ancestor at every level
0..height: level 0 is the value itself, the top level is ``*``. Kinds:

- ``table``: ARX's CSV format (one row per value: the value, then each level up to
  ``*``; ``;`` or ``,`` separated), loaded or written with :func:`load_arx_csv` /
  :meth:`Hierarchy.to_arx_csv`;
- ``intervals``: numbers into ``[lo, hi)`` bands, each level a width (``lo = ⌊v/w⌋·w``, the
  prototype's labels, e.g. ``[50, 60)`` for 54 with width 10) or a list of cut points;
- ``groups``: value groups per level, written as the prototype's ``a,b->General`` rules
  (trimmed; a value without a rule is an error unless ``keep_others``);
- ``masking``: level h replaces the last h characters by ``*`` (keeps a prefix);
- ``dates``: day → month (``YYYY-MM``) → year (``YYYY``) → ``*``.

Every kind materialises, for the distinct values of a column, one label array per level
(:meth:`Hierarchy.labels`), validated: every value covered, each level a coarsening of the
one below (a group never splits), ``*`` on top. Errors name the value or level at fault.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tklscore.core.tables.spaces import quote_value, split_listed
from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.atomic import atomic_write
from tklscore.core.files.text import read_text

TOP = "*"
KINDS = ("table", "intervals", "groups", "masking", "dates")


@dataclass(frozen=True)
class Hierarchy:
    """A named hierarchy of one column. ``spec`` holds what the kind needs:
    table: ``rows`` (tuple of tuples, value first); intervals: ``levels`` (each a width or a
    tuple of cut points); groups: ``levels`` (each a tuple of (group, members) pairs) and
    ``keep_others``; masking: nothing; dates: nothing."""

    column: str
    kind: str
    spec: dict = field(default_factory=dict, hash=False, compare=True)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"unknown hierarchy kind '{self.kind}' (one of {', '.join(KINDS)})",
                             column=self.column)

    # -------------------------------------------------------------- constructors
    @classmethod
    def table(cls, column: str, rows) -> "Hierarchy":
        rows = tuple(tuple(str(c) for c in row) for row in rows)
        return cls(column, "table", {"rows": rows})

    @classmethod
    def intervals(cls, column: str, levels) -> "Hierarchy":
        """``levels``: each a positive width or a sequence of increasing cut points."""
        parsed = []
        for number, level in enumerate(levels, start=1):
            if isinstance(level, (int, float)) and not isinstance(level, bool):
                if not (math.isfinite(level) and level > 0):
                    raise InputError(f"level {number}: interval width {level!r} must be a positive number",
                                     column=column)
                parsed.append(float(level))
            else:
                cuts = tuple(float(c) for c in level)
                if not cuts or any(not math.isfinite(c) for c in cuts) or any(
                        b <= a for a, b in zip(cuts, cuts[1:])):
                    raise InputError(f"level {number}: cut points {list(level)} must be finite and increasing",
                                     column=column)
                parsed.append(cuts)
        if not parsed:
            raise InputError("an interval hierarchy needs at least one level (a width or cut points)",
                             column=column)
        return cls(column, "intervals", {"levels": tuple(parsed)})

    @classmethod
    def groups(cls, column: str, levels, keep_others: bool = False) -> "Hierarchy":
        """``levels``: for each level a mapping group → members (members are values of the
        level below)."""
        out = []
        for level in levels:
            items = level.items() if isinstance(level, dict) else level
            out.append(tuple((str(g), tuple(str(m) for m in members)) for g, members in items))
        if not out:
            raise InputError("a value-group hierarchy needs at least one level", column=column)
        return cls(column, "groups", {"levels": tuple(out), "keep_others": bool(keep_others)})

    @classmethod
    def from_rules(cls, column: str, levels_text, keep_others: bool = False) -> "Hierarchy":
        """Value groups from the prototype's rule text, one string per level, one
        ``v1,v2->General`` rule per line (values and names trimmed)."""
        if isinstance(levels_text, str):
            levels_text = [levels_text]
        return cls.groups(column, [parse_rules(text, column, number)
                                   for number, text in enumerate(levels_text, start=1)], keep_others)

    @classmethod
    def masking(cls, column: str) -> "Hierarchy":
        return cls(column, "masking", {})

    @classmethod
    def dates(cls, column: str) -> "Hierarchy":
        return cls(column, "dates", {})

    # -------------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        spec: dict = {}
        if self.kind == "table":
            spec = {"rows": [list(r) for r in self.spec["rows"]]}
        elif self.kind == "intervals":
            spec = {"levels": [list(l) if isinstance(l, tuple) else l for l in self.spec["levels"]]}
        elif self.kind == "groups":
            spec = {"levels": [[[g, list(m)] for g, m in level] for level in self.spec["levels"]],
                    "keep_others": self.spec.get("keep_others", False)}
        return {"column": self.column, "kind": self.kind, **spec}

    @classmethod
    def from_dict(cls, data: dict) -> "Hierarchy":
        try:
            column, kind = str(data["column"]), str(data["kind"])
        except KeyError as missing:
            raise InputError(f"a hierarchy lacks its {missing.args[0]}") from None
        try:
            if kind == "table":
                return cls.table(column, data.get("rows", []))
            if kind == "intervals":
                return cls.intervals(column, data.get("levels", []))
            if kind == "groups":
                return cls.groups(column, [[(g, m) for g, m in level] for level in data.get("levels", [])],
                                  data.get("keep_others", False))
        except InputError:
            raise
        except (TypeError, ValueError) as error:  # a hand-edited or damaged definition
            raise InputError(f"the {kind} hierarchy is malformed ({error})", column=column) from None
        if kind not in ("masking", "dates"):
            raise InputError(f"unknown hierarchy kind '{kind}' (one of table, intervals, groups, masking, dates)",
                             column=column)
        return cls(column, kind, {})

    # -------------------------------------------------------------- levels
    def labels(self, values) -> list[np.ndarray]:
        """For the distinct ``values`` of the column (strings as written), one object array
        of labels per level 0..height, validated."""
        values = np.asarray([str(v) for v in values], dtype=object)
        if self.kind == "table":
            levels = self._table_levels(values)
        elif self.kind == "intervals":
            levels = self._interval_levels(values)
        elif self.kind == "groups":
            levels = self._group_levels(values)
        elif self.kind == "masking":
            levels = _masking_levels(values)
        else:
            levels = self._date_levels(values)
        if len(values) and not (levels[-1] == TOP).all():
            levels.append(np.full(len(values), TOP, dtype=object))
        check_coarsening(self.column, levels)
        return levels

    def height(self, values) -> int:
        return len(self.labels(values)) - 1

    def to_arx_csv(self, values, delimiter: str = ";") -> str:
        """ARX's CSV (one row per distinct value, levels up to ``*``)."""
        levels = self.labels(values)
        buffer = io.StringIO()
        writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
        for i in range(len(levels[0])):
            writer.writerow([level[i] for level in levels])
        return buffer.getvalue()

    def save_arx_csv(self, path: str | os.PathLike, values, delimiter: str = ";") -> None:
        text = self.to_arx_csv(values, delimiter)
        with atomic_write(path) as handle:
            handle.write(text)

    def _table_levels(self, values: np.ndarray) -> list[np.ndarray]:
        rows = self.spec["rows"]
        if not rows:
            raise InputError("the hierarchy has no rows", column=self.column)
        width = len(rows[0])
        by_value: dict[str, tuple] = {}
        for number, row in enumerate(rows, start=1):
            if len(row) != width:
                raise InputError(f"hierarchy row {number} ('{row[0]}') has {len(row)} level(s); the first row "
                                 f"has {width}", column=self.column, row=number)
            if row[0] in by_value and by_value[row[0]] != row:
                raise InputError(f"value '{row[0]}' appears twice with different ancestors",
                                 column=self.column, row=number)
            by_value[row[0]] = row
        missing = [v for v in values if v not in by_value]
        if missing:
            raise InputError(f"the hierarchy does not cover value(s) {_listed(missing)}", column=self.column,
                             hint="add a row for each value of the column")
        chosen = [by_value[v] for v in values]
        return [np.asarray([row[h] for row in chosen], dtype=object) for h in range(width)]

    def _interval_levels(self, values: np.ndarray) -> list[np.ndarray]:
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(numbers)
        if bad.any():
            raise InputError(f"value(s) {_listed(values[bad])} are not numbers; an interval hierarchy needs a "
                             f"numeric column", column=self.column,
                             hint="use value groups or masking for a text column")
        levels = [values]
        for level in self.spec["levels"]:
            if isinstance(level, float):
                low = np.floor(numbers / level) * level
                high = low + level
            else:
                cuts = np.asarray(level)
                index = np.searchsorted(cuts, numbers, side="right")
                edges = np.concatenate(([-np.inf], cuts, [np.inf]))
                low, high = edges[index], edges[index + 1]
            levels.append(interval_labels(low, high))
        return levels

    def _group_levels(self, values: np.ndarray) -> list[np.ndarray]:
        levels = [values]
        keep = self.spec.get("keep_others", False)
        for number, level in enumerate(self.spec["levels"], start=1):
            mapping: dict[str, str] = {}
            for group, members in level:
                if not group:
                    raise InputError(f"level {number}: a group has no name", column=self.column)
                for member in members:
                    if member in mapping and mapping[member] != group:
                        raise InputError(f"level {number}: '{member}' is in two groups, '{mapping[member]}' and "
                                         f"'{group}'", column=self.column)
                    mapping[member] = group
            below = levels[-1]
            unmapped = sorted({v for v in below if v not in mapping})
            if unmapped and not keep:
                spaced = [v for v in unmapped if v != v.strip(" ")]
                hint = ("these values keep the spaces around them (the source is read with its spaces kept): "
                        f"write them in quotes in the rule, e.g. {quote_value(spaced[0])}" if spaced else
                        "add them to a rule (a,b->General) or keep values without a rule as they are")
                raise InputError(f"level {number}: value(s) {_listed(unmapped)} have no group",
                                 column=self.column, hint=hint)
            levels.append(np.asarray([mapping.get(v, v) for v in below], dtype=object))
        return levels

    def _date_levels(self, values: np.ndarray) -> list[np.ndarray]:
        dates = pd.to_datetime(pd.Series(values, dtype=object), errors="coerce", format="ISO8601")
        bad = dates.isna().to_numpy()
        if bad.any():
            raise InputError(f"value(s) {_listed(values[bad])} are not dates (YYYY-MM-DD)", column=self.column)
        return [values, dates.dt.strftime("%Y-%m").to_numpy(dtype=object),
                dates.dt.strftime("%Y").to_numpy(dtype=object)]


def _masking_levels(values: np.ndarray) -> list[np.ndarray]:
    longest = max((len(v) for v in values), default=0)
    levels = [values]
    for h in range(1, longest + 1):
        levels.append(np.asarray([v[:max(len(v) - h, 0)] + TOP * min(h, len(v)) for v in values], dtype=object))
    return levels


def _number(value: float) -> str:
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def interval_labels(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``[lo, hi)`` labels as the prototype writes them (integers without a decimal point)."""
    pairs, inverse = np.unique(np.stack([low, high], axis=1), axis=0, return_inverse=True)
    text = np.asarray([f"[{_number(a)}, {_number(b)})" for a, b in pairs], dtype=object)
    return text[inverse.reshape(-1)]


def check_coarsening(column: str, levels: list[np.ndarray]) -> None:
    """Each level maps every group of the level below to one group (no group splits)."""
    for h in range(1, len(levels)):
        below, above = levels[h - 1], levels[h]
        pairs = pd.DataFrame({"below": below, "above": above}).drop_duplicates()
        split = pairs[pairs["below"].duplicated(keep=False)]
        if len(split):
            group = split["below"].iloc[0]
            parents = sorted(split.loc[split["below"] == group, "above"].astype(str))
            raise InputError(f"level {h} splits the group '{group}' of level {h - 1} into {_listed(parents)}; "
                             f"each level must coarsen the one below", column=column)
    if levels and len(levels[0]) and not (levels[-1] == TOP).all():
        raise InputError(f"the top level {len(levels) - 1} is not '{TOP}'", column=column)


def parse_rules(text: str, column: str = "", level: int = 1) -> list[tuple[str, tuple[str, ...]]]:
    """The prototype's ``v1,v2->General`` rules (one per line). Spaces around a value or a
    name are not part of it (core/tables/spaces.py); a value written in double quotes is
    kept exactly (``" Female"``, ``"a,b"``; ``""`` inside is one quote)."""
    rules: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        arrow = _arrow_outside_quotes(line)
        if arrow < 0:
            raise InputError(f"level {level}, rule line {number} '{line.strip()}' has no '->'",
                             column=column or None, hint="write rules as a,b->General")
        try:
            members = [value for value, _quoted in split_listed(line[:arrow])]
            named = split_listed(line[arrow + 2:], separator="\n")
        except ValueError as error:
            raise InputError(f"level {level}, rule line {number} '{line.strip()}': {error}",
                             column=column or None, hint='write a value with spaces or commas as "a, b"') from None
        group = named[0][0]
        if not group:
            raise InputError(f"level {level}, rule line {number}: the group name after '->' is empty",
                             column=column or None)
        if any(not m for m in members):
            raise InputError(f"level {level}, rule line {number}: an empty value before '->'",
                             column=column or None)
        rules.setdefault(group, []).extend(members)
    return [(g, tuple(m)) for g, m in rules.items()]


def _arrow_outside_quotes(line: str) -> int:
    """Where the last ``->`` outside double quotes starts, or -1."""
    quoted, found, i = False, -1, 0
    while i < len(line):
        if line[i] == '"':
            quoted = not quoted
        elif not quoted and line.startswith("->", i):
            found = i
            i += 1
        i += 1
    return found


def rules_text(level: list[tuple[str, tuple[str, ...]]]) -> str:
    """Rules that :func:`parse_rules` reads back as ``level`` (values quoted where needed)."""
    return "\n".join(rule_line(members, group) for group, members in level)


def rule_line(members, group: str) -> str:
    """The rule ``a,b->Group`` grouping ``members`` (quoted where the text would not read
    back as the value: spaces around it, a comma, a quote, ``->``)."""
    return f"{','.join(quote_value(str(m)) for m in members)}->{quote_value(str(group).strip())}"


def load_arx_csv(path: str | os.PathLike, column: str | None = None) -> Hierarchy:
    """An ARX hierarchy CSV (``;`` or ``,`` separated, no header)."""
    path = existing_file(path, "hierarchy file")
    text = read_text(path, "hierarchy file").lstrip("\ufeff")  # the shared reader: encodings, binary files
    return parse_arx_csv(text, column or path.stem.replace("adult_hierarchy_", ""), str(path))


def parse_arx_csv(text: str, column: str, name: str = "<hierarchy>") -> Hierarchy:
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise InputError("the hierarchy file is empty", file=name)
    delimiter = ";" if lines[0].count(";") >= lines[0].count(",") else ","
    rows = list(csv.reader(lines, delimiter=delimiter))
    width = len(rows[0])
    for number, row in enumerate(rows, start=1):
        if len(row) != width:
            raise InputError(f"has {len(row)} level(s) for value '{row[0]}'; the first row has {width}",
                             file=name, row=number)
        if row[-1] != TOP:
            raise InputError(f"the top level of value '{row[0]}' is '{row[-1]}', not '{TOP}'", file=name, row=number)
    return Hierarchy.table(column, rows)


def _listed(values, limit: int = 10) -> str:
    values = [str(v) for v in values]
    shown = ", ".join(f"'{v}'" for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")
