"""Transformations of a release (privacy-models.md §5) as pure functions.

A :class:`ReleaseDesign` is a named definition: the generalisation level of each column
with a hierarchy, record suppression below a class size within a budget, removed
columns, microaggregation and seeded ±ε % noise of numeric non-QI columns, and an
optional row selection (a :class:`~tklscore.core.release.selection.ReleaseDefinition`).
:func:`transform` turns (source, design) into a :class:`Transformed`: the published
rows, the suppressed rows, the generalised codes of each column (the mapping the scores
need) and, on demand, the published table itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError, check_seed
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.selection import ReleaseDefinition, resolve_release
from tklscore.core.tables.codes import Codes, compact, factorize, group_ids, run_starts
from tklscore.core.tables.loading import Table
from tklscore.core.tables.roles import Roles

AGGREGATES = ("mean", "median")


@dataclass(frozen=True)
class ReleaseDesign:
    name: str = "designed release"
    levels: tuple[tuple[str, int], ...] = ()
    suppress_below: int = 0                  # rows in published classes smaller than this are not published
    suppression_limit: float = 1.0           # at most this share of the selected rows is suppressed
    removed: frozenset[str] = frozenset()
    microaggregate: tuple[tuple[str, str], ...] = ()
    noise: tuple[tuple[str, float], ...] = ()
    seed: int = 0
    selection: ReleaseDefinition | None = None

    def __init__(self, name="designed release", levels=(), suppress_below=0, suppression_limit=1.0,
                 removed=(), microaggregate=(), noise=(), seed=0, selection=None):
        def pairs(value, what: str):
            if isinstance(value, dict):
                return tuple(sorted(value.items()))
            try:
                return tuple(sorted(dict(value).items()))
            except (TypeError, ValueError):
                raise InputError(f"the {what} of a design must map each column to its value "
                                 f"({{column: value}}), not {value!r:.60}") from None
        def whole(value, what: str) -> int:  # never truncated: a level of 2.7 is refused, not read as 2
            try:
                number = float(value) if isinstance(value, str) else value
                if isinstance(number, bool) or not isinstance(number, (int, float)) or number != int(number):
                    raise ValueError
                return int(number)
            except (TypeError, ValueError, OverflowError):
                raise InputError(f"the {what} of a design must be a whole number, not {value!r:.60}") from None

        object.__setattr__(self, "name", str(name))
        try:
            object.__setattr__(self, "levels", tuple((str(c), whole(h, f"level of column '{c}'"))
                                                     for c, h in pairs(levels, "levels")))
            object.__setattr__(self, "suppress_below", whole(suppress_below or 0, "suppression class size"))
            object.__setattr__(self, "suppression_limit", float(suppression_limit))
            object.__setattr__(self, "noise", tuple((str(c), float(e)) for c, e in pairs(noise, "noise")))
        except InputError:
            raise
        except (TypeError, ValueError, OverflowError) as error:
            raise InputError(f"a design holds something that is not a number where a number belongs ({error})") \
                from None
        if isinstance(removed, (str, bytes)) or not all(isinstance(c, str) for c in removed):
            raise InputError(f"the removed columns of a design must be a list of column names, not {removed!r:.60}")
        object.__setattr__(self, "removed", frozenset(removed))
        object.__setattr__(self, "microaggregate", pairs(microaggregate, "microaggregation"))
        object.__setattr__(self, "seed", check_seed(seed, "noise seed"))
        object.__setattr__(self, "selection", selection)
        if not (0.0 <= self.suppression_limit <= 1.0) or math.isnan(self.suppression_limit):
            raise InputError(f"suppression limit {suppression_limit!r} is outside [0, 1] (a share of the rows)")
        if self.suppress_below < 0:
            raise InputError(f"suppress below {suppress_below!r}: a class size is at least 0")
        for column, method in self.microaggregate:
            if method not in AGGREGATES:
                raise InputError(f"microaggregation '{method}' is not one of {', '.join(AGGREGATES)}",
                                 column=column)
        for column, epsilon in self.noise:
            if not (math.isfinite(epsilon) and epsilon >= 0):
                raise InputError(f"noise ε = {epsilon!r} % must be a number ≥ 0", column=column)

    def level(self, column: str) -> int:
        return dict(self.levels).get(column, 0)

    def with_levels(self, levels: dict[str, int]) -> "ReleaseDesign":
        return ReleaseDesign(self.name, {**dict(self.levels), **levels}, self.suppress_below,
                             self.suppression_limit, self.removed, self.microaggregate, self.noise,
                             self.seed, self.selection)

    def to_dict(self) -> dict:
        data = {"name": self.name, "levels": dict(self.levels), "suppress_below": self.suppress_below,
                "suppression_limit": self.suppression_limit, "removed": sorted(self.removed),
                "microaggregate": dict(self.microaggregate), "noise": dict(self.noise), "seed": self.seed}
        if self.selection is not None:
            data["selection"] = self.selection.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "ReleaseDesign":
        selection = data.get("selection")
        return cls(data.get("name", "designed release"), data.get("levels", {}), data.get("suppress_below", 0),
                   data.get("suppression_limit", 1.0), data.get("removed", ()), data.get("microaggregate", {}),
                   data.get("noise", {}), data.get("seed", 0),
                   ReleaseDefinition.from_dict(selection) if selection else None)


@dataclass(frozen=True)
class Generalised:
    """One column at one level: ``codes`` (per source row) index ``labels``; ``ordered``
    codes follow the numeric order of the groups (for a continuous attribute)."""

    codes: np.ndarray
    labels: np.ndarray
    level: int
    height: int

    @property
    def as_codes(self) -> Codes:
        return Codes(self.codes, self.labels)


class ColumnLevels:
    """Per-column cache: the column's source codes and, per level of its hierarchy, the
    generalised codes of every source row (one gather each, computed on first use)."""

    def __init__(self, source: Table, column: str, hierarchy: Hierarchy | None, codes: Codes | None = None,
                 numeric_order: bool = False):
        self.column = column
        self.hierarchy = hierarchy
        self.text = codes if codes is not None and codes.uniques.dtype == object else factorize(source.frame[column])
        self._source = source
        self._numeric_order = numeric_order
        if hierarchy is not None:
            self._labels = hierarchy.labels(self.text.uniques)
        else:
            self._labels = [np.asarray(self.text.uniques, dtype=object), np.full(self.text.cardinality, "*", object)]
        self.height = len(self._labels) - 1 if hierarchy is not None else 0
        self._cache: dict[int, Generalised] = {}

    @cached_property
    def value_counts(self) -> np.ndarray:
        """How many source rows hold each distinct value."""
        return np.bincount(self.text.codes, minlength=self.text.cardinality)

    def value_groups(self, level: int) -> tuple[np.ndarray, np.ndarray]:
        """For the distinct source values: their group index at ``level`` and the group labels
        (groups of a numeric column numbered in increasing order of their smallest value)."""
        labels = self._labels[level]
        group_of_value, groups = pd.factorize(labels, sort=False)
        groups = np.asarray(groups, dtype=object)
        if self._numeric_order:
            numbers = pd.to_numeric(pd.Series(self.text.uniques, dtype=object), errors="coerce").to_numpy(float)
            smallest = np.full(len(groups), np.inf)
            np.minimum.at(smallest, group_of_value, numbers)
            order = np.argsort(smallest, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            group_of_value, groups = rank[group_of_value], groups[order]
        return group_of_value.astype(np.int64), groups

    def at(self, level: int) -> Generalised:
        if level not in self._cache:
            top = len(self._labels) - 1
            if not 0 <= level <= top:
                raise InputError(f"level {level} is out of range: the hierarchy has levels 0 to {self.height}",
                                 column=self.column)
            group_of_value, groups = self.value_groups(level)
            self._cache[level] = Generalised(group_of_value[self.text.codes], groups, level, self.height)
        return self._cache[level]

    def top(self) -> Generalised:
        return self.at(len(self._labels) - 1)


@dataclass
class Transformed:
    """A transformed release: ``selected`` source rows (after the row selection), of which
    ``published`` are released and ``suppressed`` are not (whole classes: ``dropped``, found
    from the classes' sizes; the rows are gathered when first asked for — a search asks only
    for those of the nodes it scores); ``generalised``: each column's generalised codes."""

    source: Table
    roles: Roles
    design: ReleaseDesign
    selected: np.ndarray
    generalised: dict[str, Generalised]
    qi_levels: dict[str, int]
    selected_classes: np.ndarray        # class of each selected row on the published QIs
    class_sizes: np.ndarray             # rows of each of those classes among the selected
    dropped: np.ndarray | None = None   # the suppressed classes (a mask over them); None: none
    unlocated: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    below_limit_left: int = 0     # rows of classes below the suppression size that the budget kept

    @cached_property
    def suppressed_mask(self) -> np.ndarray:
        """Whether each selected row is suppressed."""
        if self.dropped is None:
            return np.zeros(len(self.selected), dtype=bool)
        return self.dropped[self.selected_classes]

    @cached_property
    def published(self) -> np.ndarray:
        """The published source rows (every selected row when nothing is suppressed)."""
        return self.selected if self.dropped is None else self.selected[~self.suppressed_mask]

    @cached_property
    def suppressed(self) -> np.ndarray:
        return self.selected[:0] if self.dropped is None else self.selected[self.suppressed_mask]

    @cached_property
    def suppressed_count(self) -> int:
        """How many selected rows are suppressed (from the classes' sizes, without the rows)."""
        return 0 if self.dropped is None else int(self.class_sizes[self.dropped].sum())

    @property
    def published_count(self) -> int:
        return len(self.selected) - self.suppressed_count

    @cached_property
    def columns(self) -> list[str]:
        return [c for c in self.source.columns if c not in self.design.removed]

    def published_table(self, limit: int | None = None) -> pd.DataFrame:
        """The published table (strings; generalised cells as their labels), optionally only
        its first ``limit`` rows."""
        rows = self.published if limit is None else self.published[:limit]
        out = {}
        for column in self.columns:
            if column in self.generalised and self.generalised[column].level > 0:
                g = self.generalised[column]
                out[column] = pd.Series(g.labels[g.codes[rows]], dtype=object)
            else:
                out[column] = self.source.frame[column].iloc[rows].reset_index(drop=True).astype(object)
        frame = pd.DataFrame(out, columns=self.columns)
        for column, method in self.design.microaggregate:
            if column in frame.columns:   # a removed column stays unpublished
                frame[column] = _shown_numbers(self._microaggregated(column, method)[:len(rows)])
        rng = np.random.default_rng(self.design.seed)
        for column, epsilon in self.design.noise:
            values = self.source.numeric(column)[self.published]
            noisy = values * (1 + (rng.random(len(values)) * 2 - 1) * epsilon / 100.0)
            if np.all(np.mod(values, 1) == 0):
                noisy = np.floor(noisy)
            if column in frame.columns:
                frame[column] = _shown_numbers(noisy[:len(rows)])
        return frame

    def _microaggregated(self, column: str, method: str) -> np.ndarray:
        values = self.source.numeric(column)[self.published]
        classes = self.published_class_ids
        frame = pd.DataFrame({"c": classes, "v": values})
        return frame.groupby("c")["v"].transform(method).to_numpy()

    @cached_property
    def published_class_ids(self) -> np.ndarray:
        """Dense class ids (0..) of the published rows on the published QIs."""
        if self.dropped is None:
            return self.selected_classes
        classes = self.selected_classes[~self.suppressed_mask]
        present = np.zeros(int(self.selected_classes.max()) + 1, dtype=bool)
        present[classes] = True
        return (np.cumsum(present) - 1)[classes]

    def generalised_cells(self, column: str) -> bool:
        return column in self.generalised and self.generalised[column].level > 0


def _shown_numbers(values: np.ndarray) -> pd.Series:
    return pd.Series([f"{v:.10g}" for v in values], dtype=object)


def check_design(source: Table, roles: Roles, design: ReleaseDesign, hierarchies: dict[str, Hierarchy]) -> None:
    """Errors naming the column at fault for a design that cannot apply to ``source``."""
    source.require_columns([c for c, _ in design.levels] + sorted(design.removed)
                           + [c for c, _ in design.microaggregate] + [c for c, _ in design.noise])
    for column, level in design.levels:
        if level and column not in hierarchies:
            raise InputError(f"level {level} asked, but the column has no hierarchy", column=column,
                             hint="load or build a hierarchy for it")
        if level < 0:
            raise InputError(f"level {level} is out of range (levels start at 0)", column=column)
    for column, _ in list(design.microaggregate) + list(design.noise):
        what = "microaggregation" if column in dict(design.microaggregate) else "noise"
        if column in roles.qi:
            raise InputError(f"{what} of a quasi-identifier is not offered; generalise it with a hierarchy",
                             column=column)
        if column == roles.identifier:
            raise InputError(f"{what} of the identifier column makes no sense; remove it instead", column=column)
        numbers = pd.to_numeric(source.frame[column], errors="coerce")
        if numbers.isna().any():
            row = int(np.flatnonzero(numbers.isna().to_numpy())[0])
            raise InputError(f"{what} needs numbers, but the column holds text such as "
                             f"'{source.frame[column].iloc[row]}'", file=source.name,
                             row=source.row_number(row), column=column)


def suppressed_classes(sizes: np.ndarray, below: int, limit: float) -> tuple[np.ndarray, int]:
    """Which classes (by id; ``sizes`` their sizes, n = their sum) suppression drops:
    those smaller than ``below``, smallest first and in id order among equal sizes, while
    the rows dropped stay within ``limit`` × n; and the rows of small classes left."""
    sizes = np.asarray(sizes, dtype=np.int64)
    mask = np.zeros(len(sizes), dtype=bool)
    if below <= 1 or not len(sizes):
        return mask, 0
    small = np.flatnonzero((sizes > 0) & (sizes < below))
    budget = math.floor(limit * int(sizes.sum()) + 1e-9)
    order = small[np.argsort(sizes[small], kind="stable")]
    cumulative = np.cumsum(sizes[order])
    chosen = order[cumulative <= budget]
    mask[chosen] = True
    return mask, int(sizes[small].sum() - sizes[chosen].sum())


class LevelCache:
    """The :class:`ColumnLevels` of a source's columns, built on first use, and the rows
    each row selection resolves to (resolved once: a search transforms the same selection
    at thousands of levels)."""

    def __init__(self, source: Table, roles: Roles, hierarchies: dict[str, Hierarchy],
                 codes: dict[str, Codes] | None = None):
        self.source, self.roles, self.hierarchies = source, roles, dict(hierarchies)
        self._codes = dict(codes or {})
        self._columns: dict[str, ColumnLevels] = {}
        self._selections: dict[ReleaseDefinition, tuple[np.ndarray, list[str]]] = {}
        self._selected_counts: dict[tuple[ReleaseDefinition, str], np.ndarray] = {}
        self._whole: dict[ReleaseDefinition, bool] = {}
        self._finest: dict = {}      # selection → its finest classes (:meth:`classes`)
        self._at_first: dict = {}    # (selection, column, level) → the codes at the finest classes' first rows
        self._every = np.arange(len(source), dtype=np.int64)
        self._every.setflags(write=False)   # every row, shared by every transformation without a selection

    def column(self, name: str) -> ColumnLevels:
        if name not in self._columns:
            self._columns[name] = ColumnLevels(self.source, name, self.hierarchies.get(name),
                                               self._codes.get(name), numeric_order=name in self.roles.continuous)
        return self._columns[name]

    def selected(self, selection: ReleaseDefinition | None) -> tuple[np.ndarray, list[str]]:
        """The source rows a row selection holds (every row without one) and the records
        it names that are not in the source."""
        if selection is None:
            return self._every, []
        if selection not in self._selections:
            release = resolve_release(selection, self.source, self.roles)
            positions = np.asarray(release.positions, dtype=np.int64)
            positions.setflags(write=False)   # shared by every transformation of the selection
            self._selections = {**self._selections, selection: (positions, list(release.unlocated))}
        positions, unlocated = self._selections[selection]
        return positions, list(unlocated)

    def whole(self, selection: ReleaseDefinition | None) -> bool:
        """Whether the selection holds every source row in the source's order (no selection,
        or one naming every record): a column's codes are then its selected rows' codes."""
        if selection is None:
            return True
        if selection not in self._whole:
            positions = self.selected(selection)[0]
            self._whole = {**self._whole, selection: len(positions) == len(self.source) and bool(
                np.array_equal(positions, np.arange(len(positions))))}
        return self._whole[selection]

    def classes(self, selection: ReleaseDefinition | None,
                qi: dict[str, Generalised]) -> tuple[np.ndarray, int, np.ndarray]:
        """The selected rows' classes on the QIs generalised as ``qi`` says (each QI → its
        column at a level), numbered as :func:`group_ids` numbers them over the rows, and each
        class's size. A class is a union of the finest classes (the QIs' source values), found
        once per selection: the QIs are grouped over one entry per finest class, then one
        gather gives each row its class (a search transforms the selection at every node)."""
        finest = self._finest_classes(selection)
        if finest is None:   # no row selected
            classes, count = group_ids([(g.codes[:0], len(g.labels)) for g in qi.values()], 0)
            return classes, count, np.zeros(count, dtype=np.int64)
        of_row, first, sizes = finest
        columns = [(self._at_finest(selection, name, g, first), len(g.labels)) for name, g in qi.items()]
        ids, count = group_ids(columns, len(first), represented=len(of_row))
        return ids[of_row], count, np.bincount(ids, weights=sizes, minlength=count).astype(np.int64)

    def _finest_classes(self, selection: ReleaseDefinition | None):
        """The selected rows' classes on the QIs' source values, numbered in the order of their
        first rows: each row's class, each class's first row (a source position) and its rows
        (as floats, weights of a count); None when nothing is selected."""
        if selection in self._finest:
            return self._finest[selection]
        rows, _ = self.selected(selection)
        whole = self.whole(selection)
        found = None
        if len(rows):
            text = [self.column(c).text for c in self.roles.qi]
            ids, _ = group_ids([(t.codes if whole else t.codes[rows], t.cardinality) for t in text], len(rows))
            of_row, _ = compact(ids)   # hashed: numbered in the order of first appearance
            # class c's first row is where the highest class so far becomes c
            first = np.flatnonzero(run_starts(np.maximum.accumulate(of_row)))
            found = (of_row, rows[first], np.bincount(of_row).astype(np.float64))
        self._finest = {selection: found}    # the latest selection's only: a search keeps to one
        self._at_first = {}
        return found

    def _at_finest(self, selection, name: str, g: Generalised, first: np.ndarray) -> np.ndarray:
        """``g``'s codes at each finest class's first row (constant on the class), kept per level."""
        key = (selection, name, g.level)
        codes = self._at_first.get(key)
        if codes is None:
            codes = g.codes[first]
            self._at_first = {**self._at_first, key: codes}
        return codes

    def selected_value_counts(self, selection: ReleaseDefinition | None, name: str) -> np.ndarray:
        """How many of the selected rows hold each distinct value of column ``name``."""
        column = self.column(name)
        if selection is None:
            return column.value_counts
        key = (selection, name)
        if key not in self._selected_counts:
            rows = self.selected(selection)[0]
            self._selected_counts = {**self._selected_counts, key: np.bincount(
                column.text.codes[rows], minlength=column.text.cardinality)}
        return self._selected_counts[key]


def suppression_note(design: ReleaseDesign, left: int) -> str:
    """The note of a suppression budget too small to reach the class size (every engine)."""
    return (f"the suppression budget ({design.suppression_limit:.1%} of the rows) is too small: {left} row(s) "
            f"remain in classes smaller than {design.suppress_below}")


def perturbed_notes(design: ReleaseDesign, roles: Roles) -> list[str]:
    """The notes of sensitive attributes published perturbed (microaggregated or with noise):
    the factors and weights read their source values (every engine)."""
    return [f"'{column}' is published perturbed; the distinguishing factors and weights use its source values "
            f"(what the attacker can link to)" for column, _ in design.microaggregate + design.noise
            if column in roles.sa]


def transform(source: Table, roles: Roles, design: ReleaseDesign, hierarchies: dict[str, Hierarchy],
              cache: LevelCache | None = None) -> Transformed:
    """The release ``design`` makes of ``source``: rows selected, generalised, suppressed."""
    check_design(source, roles, design, hierarchies)
    cache = cache or LevelCache(source, roles, hierarchies)
    selected, unlocated = cache.selected(design.selection)
    generalised: dict[str, Generalised] = {}
    qi_levels: dict[str, int] = {}
    for column in set(hierarchies) | set(roles.qi) | {c for c, _ in design.levels}:
        if column not in source.columns:
            continue
        levels = cache.column(column)
        if column in design.removed and column in roles.qi:
            g = levels.top()
        else:
            g = levels.at(design.level(column))
        generalised[column] = g
        if column in roles.qi:
            qi_levels[column] = g.level
    classes, n_classes, sizes = cache.classes(design.selection, {c: generalised[c] for c in roles.qi})
    dropped, left = (suppressed_classes(sizes, design.suppress_below, design.suppression_limit)
                     if design.suppress_below > 1 and len(classes) else (None, 0))
    notes = [suppression_note(design, left)] if left else []
    return Transformed(source, roles, design, selected, generalised, qi_levels, classes, sizes,
                       dropped if dropped is not None and dropped.any() else None, unlocated, notes, left)


def export_published(transformed: Transformed, path, inputs=()) -> int:
    """Write the published table as CSV (``.csv``) or Parquet (``.parquet``/``.pq``),
    atomically, never over an input; returns the rows written."""
    from pathlib import Path

    from tklscore.core.files.atomic import atomic_path

    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise InputError(f"cannot export a '{suffix or 'nameless'}' file; choose .csv or .parquet", file=str(path))
    frame = transformed.published_table()
    sources = [transformed.source.name, *inputs]
    with atomic_path(path, sources) as temporary:
        if suffix == ".csv":
            frame.to_csv(temporary, index=False, lineterminator="\n")
        else:
            frame.to_parquet(temporary, index=False)
    return len(frame)
