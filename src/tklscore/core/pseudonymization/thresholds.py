"""Per-value thresholds (disclosure-risk.md A3): a record's threshold for the sensitive
field comes from its owner's Westin category and whether the owner regards the field as
sensitive (the policy table; default Table 5), clamped to the system's acceptable range;
or one uniform threshold; or a column of the data. Records map to people through an id
column when a policy is given per person (:class:`PeoplePolicy`).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.text import csv_rows, read_text
from tklscore.core.tables.loading import MISSING, Table

WESTIN = ("unconcerned", "pragmatist", "fundamentalist")
TABLE_5 = {"unconcerned": (1.0, 0.9), "pragmatist": (0.9, 0.8), "fundamentalist": (0.8, 0.7)}
"""Table 5 (§6.2.1): Westin category → (threshold of a normal field, of a sensitive field)."""

DEFAULT_CATEGORY = "pragmatist"
_TRUE = {"1", "true", "yes", "y", "sensitive", "t"}
_FALSE = {"0", "false", "no", "n", "normal", "f", ""}


def check_threshold(value, *, file: str | None = None, row: int | None = None, column: str | None = None) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"threshold '{value}' is not a number", file=file, row=row, column=column) from None
    if not math.isfinite(number) or not 0 <= number <= 1:
        raise InputError(f"threshold {value} is outside [0, 1]", file=file, row=row, column=column,
                         hint="a threshold is the highest acceptable probability of a value being predicted")
    return number


def _category(value) -> str:
    return str(value).strip().lower()


@dataclass
class ThresholdPolicy:
    """The system policy: category → (normal, sensitive) thresholds and the clamp range."""

    table: dict[str, tuple[float, float]] = field(default_factory=lambda: dict(TABLE_5))
    clamp: tuple[float, float] = (0.0, 1.0)
    default_category: str = DEFAULT_CATEGORY
    name: str = "Table 5"

    def __post_init__(self):
        self.table = {_category(k): (check_threshold(v[0]), check_threshold(v[1])) for k, v in self.table.items()}
        low, high = (check_threshold(c) for c in self.clamp)
        if low > high:
            raise InputError(f"clamp range [{low}, {high}] is empty: its lower end is above its upper end")
        self.clamp = (low, high)
        self.default_category = _category(self.default_category)
        if self.default_category not in self.table:
            raise InputError(f"default category '{self.default_category}' is not in the policy table "
                             f"({', '.join(self.table)})", file=self.name)

    @classmethod
    def load(cls, path, **options) -> "ThresholdPolicy":
        """A CSV ``category,normal,sensitive`` (one row per Westin category)."""
        path = existing_file(path, "policy file")
        name = str(path)
        text = read_text(path, "policy file").lstrip("\ufeff")
        rows = [fields for _, fields in csv_rows("\n".join(line for line in text.splitlines()
                                                         if line.strip() and not line.lstrip().startswith("#")),
                                                name, header=False)]
        if not rows:
            raise InputError("policy file is empty", file=name, hint="header category,normal,sensitive")
        header = [h.strip().lower() for h in rows[0]]
        missing = [c for c in ("category", "normal", "sensitive") if c not in header]
        if missing:
            raise InputError(f"policy file lacks the column(s) {', '.join(missing)}; it has {', '.join(header)}",
                             file=name, row=1, hint="header category,normal,sensitive")
        table = {}
        for number, row in enumerate(rows[1:], start=2):
            cells = dict(zip(header, (c.strip() for c in row)))
            category = _category(cells.get("category", ""))
            if not category:
                raise InputError("empty category", file=name, row=number, column="category")
            if category in table:
                raise InputError(f"category '{category}' is listed twice", file=name, row=number, column="category")
            table[category] = tuple(check_threshold(cells.get(c, ""), file=name, row=number, column=c)
                                    for c in ("normal", "sensitive"))
        options.setdefault("default_category", DEFAULT_CATEGORY if DEFAULT_CATEGORY in table else next(iter(table)))
        return cls(table, name=name, **options)

    def threshold(self, category: str, sensitive: bool) -> float:
        normal, special = self.table[_category(category)]
        return float(np.clip(special if sensitive else normal, *self.clamp))

    def thresholds(self, categories, sensitive, *, file: str | None = None, column: str | None = None,
                   row_number=lambda i: i + 1) -> tuple[np.ndarray, list[str]]:
        """Thresholds for arrays of categories and sensitive flags; an unknown category is an
        error naming it and its rows; an empty one gets the default category (a warning says
        how many and which rows)."""
        categories = pd.Series(categories, dtype=object).map(_category)
        sensitive = np.asarray(sensitive, dtype=bool)
        warnings = []
        empty = (categories == "").to_numpy()
        if empty.any():
            rows = np.flatnonzero(empty)
            shown = ", ".join(str(row_number(i)) for i in rows[:10]) + (" …" if len(rows) > 10 else "")
            warnings.append(f"{len(rows)} record(s) have no Westin category (rows {shown}); the default "
                            f"category '{self.default_category}' applied")
            categories = categories.where(~empty, self.default_category)
        known = categories.isin(list(self.table)).to_numpy()
        if not known.all():
            first = int(np.flatnonzero(~known)[0])
            unknown = sorted(set(categories[~known]))
            raise InputError(f"Westin category '{categories.iloc[first]}' is not in the policy table "
                             f"({len(unknown)} unknown: {', '.join(unknown[:10])}; "
                             f"{int((~known).sum())} record(s))", file=file, row=row_number(first), column=column,
                             hint=f"known categories: {', '.join(self.table)}")
        normal = categories.map({k: v[0] for k, v in self.table.items()}).to_numpy(dtype=float)
        special = categories.map({k: v[1] for k, v in self.table.items()}).to_numpy(dtype=float)
        return np.clip(np.where(sensitive, special, normal), *self.clamp), warnings

    def to_dict(self) -> dict:
        return {"table": {k: list(v) for k, v in self.table.items()}, "clamp": list(self.clamp),
                "default_category": self.default_category}


def uniform_thresholds(table: Table, threshold) -> np.ndarray:
    return np.full(len(table), check_threshold(threshold))


def column_thresholds(table: Table, column: str, clamp: tuple[float, float] = (0.0, 1.0)) -> np.ndarray:
    """Thresholds given per record in a column of the data (numbers in [0, 1])."""
    table.require_columns([column], "thresholds column")
    text = table.frame[column]
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raw = text.iloc[first]
        what = "is empty" if raw == MISSING else f"'{raw}' is not a number in [0, 1]"
        raise InputError(f"threshold {what} ({int(bad.sum())} such cell(s))", file=table.name,
                         row=table.row_number(first), column=column)
    return np.clip(values, *clamp)


def parse_flags(table: Table, column: str) -> np.ndarray:
    """A yes/no column (1/0, true/false, yes/no, sensitive/normal; empty = normal)."""
    table.require_columns([column], "sensitive-flag column")
    text = table.frame[column].map(lambda v: str(v).strip().lower())
    truthy, falsy = text.isin(_TRUE).to_numpy(), text.isin(_FALSE).to_numpy()
    bad = ~(truthy | falsy)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(f"'{table.frame[column].iloc[first]}' is not a yes/no flag", file=table.name,
                         row=table.row_number(first), column=column,
                         hint="write 1/0, true/false, yes/no or sensitive/normal")
    return truthy


def policy_thresholds(table: Table, policy: ThresholdPolicy, category_column: str,
                      sensitive_flag_column: str | None = None) -> tuple[np.ndarray, list[str]]:
    """Thresholds from a Westin-category column (and a sensitive-flag column) of the data."""
    table.require_columns([category_column], "category column")
    flags = parse_flags(table, sensitive_flag_column) if sensitive_flag_column else np.zeros(len(table), bool)
    return policy.thresholds(table.frame[category_column], flags, file=table.name, column=category_column,
                             row_number=table.row_number)


@dataclass
class PeoplePolicy:
    """One policy row per person: Westin category and the fields the person regards as
    sensitive. ``source`` says where it came from (a file, the patients' preferences)."""

    categories: dict[str, str]
    sensitive_fields: dict[str, frozenset[str]]
    source: str = "<people>"

    @classmethod
    def load(cls, path) -> "PeoplePolicy":
        """A CSV ``id,category,sensitive_fields`` (fields separated by ``;``)."""
        path = existing_file(path, "people policy file")
        name = str(path)
        text = read_text(path, "people policy file").lstrip("\ufeff")
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, comment="#", skip_blank_lines=True)
        frame.columns = [str(c).strip().lower() for c in frame.columns]
        missing = [c for c in ("id", "category") if c not in frame.columns]
        if missing:
            raise InputError(f"people policy lacks the column(s) {', '.join(missing)}", file=name, row=1,
                             hint="header id,category,sensitive_fields")
        categories, fields = {}, {}
        for position, row in frame.iterrows():
            person = str(row["id"]).strip()
            if not person:
                raise InputError("empty id", file=name, row=position + 2, column="id")
            if person in categories:
                raise InputError(f"person '{person}' has two rows", file=name, row=position + 2, column="id")
            categories[person] = _category(row["category"])
            listed = str(row.get("sensitive_fields", "") or "")
            fields[person] = frozenset(f.strip().lower() for f in listed.split(";") if f.strip())
        return cls(categories, fields, name)

    def thresholds(self, table: Table, id_column: str, sensitive: str,
                   policy: ThresholdPolicy) -> tuple[np.ndarray, list[str]]:
        """Each record's threshold for field ``sensitive`` from its person's row; people
        without a row get the policy's default category with the field normal (a warning
        says how many and which)."""
        table.require_columns([id_column], "id column")
        ids = table.frame[id_column].map(lambda v: str(v).strip())
        known = ids.isin(list(self.categories)).to_numpy()
        warnings = []
        if not known.all():
            missing = list(dict.fromkeys(ids[~known]))
            shown = ", ".join(missing[:10]) + (" …" if len(missing) > 10 else "")
            warnings.append(f"{len(missing)} person(s) ({int((~known).sum())} record(s)) have no policy "
                            f"in {self.source}: {shown}; the default category '{policy.default_category}' "
                            f"with '{sensitive}' as a normal field applied")
        categories = ids.map(self.categories).where(known, policy.default_category)
        field_name = sensitive.strip().lower()
        flags = ids.map(lambda person: field_name in self.sensitive_fields.get(person, ())).to_numpy(dtype=bool)
        unknown = ~categories.isin(list(policy.table)).to_numpy()
        if unknown.any():
            first = int(np.flatnonzero(unknown)[0])
            person = ids.iloc[first]
            raise InputError(f"person '{person}' has Westin category '{categories.iloc[first]}', which is not in "
                             f"the policy table", file=self.source, column="category",
                             hint=f"known categories: {', '.join(policy.table)}")
        values, _ = policy.thresholds(categories, flags)
        return values, warnings
