"""The published table P: which source records it releases (spec scoring.md, Vocabulary).

A published record is located in the source S by the identifier column when there is
one; without one, by matching every column of P as a multiset (each published row takes
a distinct source row with the same values). Records that cannot be located are kept in
``Release.unlocated``, never dropped silently. Without an identifier column, a record's
id is its 0-based row position in the source.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tklscore.core.tables.codes import factorize, group_ids
from tklscore.core.errors import InputError, shorten
from tklscore.core.tables.loading import Table


@dataclass(frozen=True)
class Release:
    """``positions``: source row of each located published record, in published order."""

    positions: np.ndarray
    ids: np.ndarray
    unlocated: list[str] = field(default_factory=list)
    name: str = "published"
    conflicts: list[str] = field(default_factory=list)  # published rows whose sensitive values differ

    def conflict_warning(self) -> str | None:
        """A warning listing the published records whose sensitive values contradict the
        source record with the same id (they are scored with the source's values)."""
        return conflict_warning(len(self.conflicts), self.conflicts[:SHOWN_CONFLICTS])

    def require_consistent(self) -> None:
        if self.conflicts:
            raise InputError(self.conflict_warning(), file=self.name,
                             hint="correct the published table or the ids, or score without --strict")

    def __len__(self) -> int:
        return len(self.positions)

    def require_all_located(self) -> None:
        if self.unlocated:
            raise unlocated_error(self.unlocated, self.name)


def unlocated_error(unlocated: list[str], name: str | None) -> InputError:
    """The error of a release naming records the source lacks (every engine)."""
    shown = "; ".join(unlocated[:20]) + ("; ..." if len(unlocated) > 20 else "")
    return InputError(f"{len(unlocated)} published record(s) cannot be located in the source: {shown}",
                      file=name, hint="a published table must be a subset of the source table")


def unlocated_note(unlocated: list[str], selection: bool = False) -> str:
    """The warning of records a release names that the source lacks, left out (every
    engine): a scored release's (not scored), or a design's row selection (not published)."""
    what, left = ("record(s) of the row selection", "published") if selection else ("published record(s)", "scored")
    return (f"{len(unlocated)} {what} could not be located in the source and are not {left}: "
            + "; ".join(unlocated[:20]))


SHOWN_CONFLICTS = 20


def conflict_entry(record_id, row: int, differences) -> str:
    """One published record that contradicts its source record: ``differences`` lists
    (column, published text, source text)."""
    parts = [f"{column} '{shorten(mine, 30)}' (source '{shorten(theirs, 30)}')" for column, mine, theirs in differences]
    return f"id '{shorten(record_id, 30)}' (row {row}): " + ", ".join(parts)


def conflict_warning(count: int, shown: list[str]) -> str | None:
    """The warning on ``count`` published records whose sensitive values contradict the
    source record with the same id, the first of them ``shown`` (:func:`conflict_entry`);
    every engine says it in these words."""
    if not count:
        return None
    listed = "; ".join(shown[:SHOWN_CONFLICTS]) + ("; ..." if count > SHOWN_CONFLICTS else "")
    return (f"{count} published record(s) hold sensitive values that contradict the source "
            f"record with the same id, and are scored with the source's values: {listed}")


def source_ids(source: Table, id_column: str) -> pd.Index:
    """The ids of the source records (the identifier column's values, as an Index for
    look-ups: integers for an integer column of a Parquet file, else text); an identifier
    column must hold unique, non-empty ids. Kept per table: scoring and locating share one
    index (and its hash table)."""
    if id_column in source.id_index:
        return source.id_index[id_column]
    source.require_columns([id_column], "identifier column")
    stored = source.values(id_column)
    if _is_integer(stored):
        ids = pd.Index(stored)
    else:
        # as Python strings once: the index's hash table, built by the uniqueness check, is
        # then the one every look-up uses (an Index of Arrow text converts on each look-up)
        ids = pd.Index(source.text(id_column).to_numpy(dtype=object), dtype=object)
        empty = np.flatnonzero(np.asarray(ids == ""))
        if len(empty):
            raise InputError("identifier is empty", file=source.name, row=source.row_number(int(empty[0])),
                             column=id_column)
    if not ids.is_unique:
        duplicated = ids.duplicated(keep=False)
        where = np.flatnonzero(duplicated)
        first = ids[where[0]]
        rows = [source.row_number(int(i)) for i in where if ids[i] == first]
        raise InputError(
            f"identifier '{shorten(first)}' appears {len(rows)} times (rows {', '.join(map(str, rows[:10]))}); "
            f"{ids[where].nunique()} id(s) are duplicated in all",
            file=source.name, column=id_column, hint="an identifier column must be unique")
    source.id_index[id_column] = ids
    return ids


def _is_integer(values: pd.Series) -> bool:
    return pd.api.types.is_integer_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype)


def _positions_of(index: pd.Index, wanted: pd.Index) -> np.ndarray:
    """Positions of the ``wanted`` ids (text) in ``index`` (-1: not there). An integer index
    matches the ids written as integers are written (``7``, not ``07`` or ``7.0``)."""
    if not _is_integer(pd.Series(index[:0])):
        if index.is_monotonic_increasing and len(index):
            # ids in increasing order (as registries number them): found by binary search
            # rather than by hashing every source id; the uniqueness check saw the order
            wanted = np.asarray(wanted, dtype=object)
            at = np.minimum(index.searchsorted(wanted), len(index) - 1)
            return np.where(index.to_numpy()[at] == wanted, at, -1)
        return index.get_indexer(wanted)
    text = pd.Series(wanted, dtype=object)
    canonical = text.str.fullmatch(r"0|-?[1-9][0-9]{0,17}").fillna(False).to_numpy(dtype=bool)
    numbers = np.zeros(len(text), dtype=np.int64)
    numbers[canonical] = text[canonical].astype(np.int64).to_numpy()
    return np.where(canonical, index.get_indexer(numbers), -1)


def locate_by_ids(source: Table, ids, id_column: str | None = None, name: str = "--rows") -> Release:
    """Publish the source records with the given ids (0-based row numbers without ``id_column``)."""
    wanted = pd.Index(pd.Series(np.asarray(ids, dtype=object), dtype=object).astype(str).str.strip(), dtype=object)
    if not wanted.is_unique:
        raise InputError(f"id '{shorten(wanted[wanted.duplicated()][0])}' is listed more than once", file=name)
    if id_column is not None:
        positions = _positions_of(source_ids(source, id_column), wanted)
    else:
        numbers = pd.to_numeric(pd.Series(wanted, dtype=object), errors="coerce").to_numpy()
        valid = np.isfinite(numbers) & (numbers == np.floor(numbers)) & (numbers >= 0) & (numbers < len(source))
        valid &= np.array([w.isdigit() for w in wanted], dtype=bool)  # "3", not "3.0" or "+3"
        positions = np.where(valid, np.nan_to_num(numbers, nan=-1), -1).astype(np.int64)
    found = positions >= 0
    missing = [f"id '{shorten(i)}'" for i in wanted[~found]]
    return Release(positions[found].astype(np.int64), wanted[found].to_numpy(dtype=object), missing, name)


def locate_table(source: Table, published: Table, id_column: str | None = None,
                 continuous: frozenset[str] | set[str] = frozenset(), sensitive=()) -> Release:
    """Locate the rows of a published table in the source (by id, else by all columns).
    Located by id, a record whose ``sensitive`` columns hold other values than the source
    record's is listed in ``Release.conflicts``."""
    if len(published) == 0:
        raise InputError("the published table has no records", file=published.name,
                         hint="a release publishes at least one record")
    if id_column is not None:
        published.require_columns([id_column], "identifier column")
        release = None
        stored = published.values(id_column)
        if _is_integer(stored):
            index = source_ids(source, id_column)
            if _is_integer(pd.Series(index[:0])):  # integers on both sides: matched as integers
                release = _locate_integer_ids(index, stored, published)
        if release is None:
            release = locate_by_ids(source, published.text(id_column).to_numpy(), id_column, published.name)
        conflicts = _conflicts(source, published, release, id_column, sensitive, continuous)
        return Release(release.positions, release.ids, release.unlocated, release.name, conflicts)
    extra = [c for c in published.columns if c not in source.frame.columns]
    if extra:
        raise InputError(f"column(s) {', '.join(map(repr, extra))} of the published table are not in "
                         f"the source {source.name}", file=published.name)
    n_source, n_published = len(source), len(published)
    columns = []
    for column in published.columns:
        if column in continuous:
            values = np.concatenate([source.numeric(column), published.numeric(column)])
        else:
            values = pd.concat([source.text(column).astype(object), published.text(column).astype(object)],
                               ignore_index=True)
        columns.append(factorize(values))
    key, _ = group_ids(columns, n_source + n_published)
    src = pd.DataFrame({"key": key[:n_source], "occ": _occurrence(key[:n_source]),
                        "pos": np.arange(n_source)})
    pub = pd.DataFrame({"key": key[n_source:], "occ": _occurrence(key[n_source:])})
    matched = pub.merge(src, on=["key", "occ"], how="left")["pos"].to_numpy()
    found = ~np.isnan(matched)
    positions = matched[found].astype(np.int64)
    unlocated = [f"row {published.row_number(int(i))}" for i in np.flatnonzero(~found)]
    return Release(positions, positions.astype(str).astype(object), unlocated, published.name)


def _conflicts(source: Table, published: Table, release: Release, id_column: str, sensitive,
               continuous) -> list[str]:
    if len(release.ids) == len(published):   # every published row located: in its own order
        rows = np.arange(len(published))
    else:
        rows = pd.Index(published.text(id_column).str.strip().to_numpy(dtype=object)).get_indexer(release.ids)
    columns = [c for c in sensitive if c in published.columns and c in source.columns]
    differs = np.zeros(len(rows), dtype=bool)
    seen: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]] = []
    for column in columns:
        mine = published.text_at(column, rows)
        theirs = source.text_at(column, release.positions)
        if column in continuous:
            numbers = pd.to_numeric(pd.Series(mine, dtype=object), errors="coerce").to_numpy(dtype="float64")
            bad = ~(numbers == source.numeric(column)[release.positions])
        else:
            bad = mine != theirs
        differs |= bad
        seen.append((column, bad, mine, theirs))
    found = [conflict_entry(release.ids[k], published.row_number(int(rows[k])),
                            [(column, mine[k], theirs[k]) for column, bad, mine, theirs in seen if bad[k]])
             for k in np.flatnonzero(differs)[:50]]
    found += [f"id '{shorten(release.ids[k], 30)}'" for k in np.flatnonzero(differs)[50:]]
    return found


def _locate_integer_ids(index: pd.Index, wanted: pd.Series, published: Table) -> Release:
    if not wanted.is_unique:
        raise InputError(f"id '{shorten(wanted[wanted.duplicated()].iloc[0])}' is listed more than once", file=published.name)
    positions = index.get_indexer(wanted.to_numpy())
    found = positions >= 0
    ids = published.text_at(wanted.name, np.arange(len(wanted)))
    missing = [f"id '{shorten(i)}'" for i in ids[~found]]
    return Release(positions[found].astype(np.int64), ids[found], missing, published.name)


def _occurrence(keys: np.ndarray) -> np.ndarray:
    """How many earlier rows share each row's key (0 for the first)."""
    return pd.Series(keys).groupby(keys).cumcount().to_numpy()
