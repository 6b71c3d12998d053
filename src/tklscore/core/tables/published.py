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
import pyarrow as pa
import pyarrow.compute as pc

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


class TextIds:
    """A source's identifier column of text, validated (unique, non-empty), kept as Arrow
    text: its checks and look-ups are Arrow's vectorised kernels, not a Python string per id."""

    def __init__(self, values):
        values = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(values)
        values = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        text = pa.types.is_string(values.type) or pa.types.is_large_string(values.type)
        self.values = values if text else values.cast(pa.large_string())

    def __len__(self) -> int:
        return len(self.values)

    def to_numpy(self, dtype=object) -> np.ndarray:
        return self.values.to_numpy(zero_copy_only=False).astype(dtype, copy=False)

    def positions_of(self, wanted) -> np.ndarray:
        """The position of each of the ``wanted`` ids (text, distinct) in the source; -1
        where none. Arrow hashes the smaller side: a release's ids, probed by every source
        id, or the source's ids, probed by the wanted ones."""
        wanted = pa.array(np.asarray(wanted, dtype=object), self.values.type)
        if 2 * len(wanted) > len(self.values):
            found = pc.index_in(wanted, value_set=self.values)
            return pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int64)
        hits = pc.index_in(self.values, value_set=wanted)   # each source id's place among the wanted
        at = np.flatnonzero(hits.is_valid().to_numpy(zero_copy_only=False))
        positions = np.full(len(wanted), -1, dtype=np.int64)
        positions[hits.drop_null().to_numpy().astype(np.int64)] = at
        return positions


def source_ids(source: Table, id_column: str) -> "pd.Index | TextIds":
    """The ids of the source records (the identifier column's values, for look-ups: an
    Index of integers for an integer column of a Parquet file, else :class:`TextIds`); an
    identifier column must hold unique, non-empty ids. Kept per table: scoring and locating
    share one."""
    if id_column in source.id_index:
        return source.id_index[id_column]
    source.require_columns([id_column], "identifier column")
    stored = source.values(id_column)
    if _is_integer(stored):
        ids = pd.Index(stored)
        if not ids.is_unique:
            _duplicated_ids(source, id_column, ids)
    else:
        ids = _text_ids(source, id_column)
    source.id_index[id_column] = ids
    return ids


def _text_ids(source: Table, id_column: str) -> TextIds:
    ids = TextIds(source.text(id_column))
    values = ids.values
    empty = pc.fill_null(pc.equal(values, ""), True)   # a missing id is an empty one
    if pc.any(empty).as_py():
        first = int(pc.index(empty, True).as_py())
        raise InputError("identifier is empty", file=source.name, row=source.row_number(first), column=id_column)
    # ids in increasing order (as registries number them) are unique without hashing them
    increasing = len(values) < 2 or pc.all(pc.less(values[:-1], values[1:])).as_py()
    if not increasing and len(values.dictionary_encode().dictionary) < len(values):
        _duplicated_ids(source, id_column, pd.Index(ids.to_numpy(), dtype=object))
    return ids


def _duplicated_ids(source: Table, id_column: str, ids: pd.Index) -> None:
    duplicated = ids.duplicated(keep=False)
    where = np.flatnonzero(duplicated)
    first = ids[where[0]]
    rows = [source.row_number(int(i)) for i in where if ids[i] == first]
    raise InputError(
        f"identifier '{shorten(first)}' appears {len(rows)} times (rows {', '.join(map(str, rows[:10]))}); "
        f"{ids[where].nunique()} id(s) are duplicated in all",
        file=source.name, column=id_column, hint="an identifier column must be unique")


def _is_integer(values: pd.Series) -> bool:
    return pd.api.types.is_integer_dtype(values.dtype) and not pd.api.types.is_bool_dtype(values.dtype)


def _positions_of(index: "pd.Index | TextIds", wanted: pd.Index) -> np.ndarray:
    """Positions of the ``wanted`` ids (text) in ``index`` (-1: not there). An integer index
    matches the ids written as integers are written (``7``, not ``07`` or ``7.0``)."""
    if isinstance(index, TextIds):
        return index.positions_of(wanted)
    text = pd.Series(wanted, dtype=object)
    canonical = text.str.fullmatch(r"0|-?[1-9][0-9]{0,17}").fillna(False).to_numpy(dtype=bool)
    numbers = np.zeros(len(text), dtype=np.int64)
    numbers[canonical] = text[canonical].astype(np.int64).to_numpy()
    return np.where(canonical, index.get_indexer(numbers), -1)


def locate_by_ids(source: Table, ids, id_column: str | None = None, name: str = "--rows") -> Release:
    """Publish the source records with the given ids (0-based row numbers without ``id_column``)."""
    if id_column is None:
        located = _row_numbers(source, ids, name)
        if located is not None:
            return located
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


def _row_numbers(source: Table, ids, name: str) -> Release | None:
    """:func:`locate_by_ids` of row numbers when every id is text of plain digits (as a
    project keeps them), read by Arrow; None when one is not, or two name one row (the
    general path then says which)."""
    try:
        text = pa.array(ids if isinstance(ids, (list, tuple)) else list(ids), type=pa.string())
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if len(text) == 0 or text.null_count or not pc.all(pc.match_substring_regex(text, "^[0-9]{1,18}$")).as_py():
        return None
    numbers = pc.cast(text, pa.int64()).to_numpy()
    if len(np.unique(numbers)) < len(numbers):
        return None
    found = numbers < len(source)
    written = text.to_numpy(zero_copy_only=False)
    missing = [f"id '{shorten(i)}'" for i in written[~found]]
    return Release(numbers[found], written[found].astype(object), missing, name)


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
            if not isinstance(index, TextIds):  # integers on both sides: matched as integers
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
    seen: list[tuple[str, np.ndarray, pd.Series, pd.Series]] = []
    for column in columns:
        mine = published.text_series_at(column, rows)
        theirs = source.text_series_at(column, release.positions)
        if column in continuous:
            bad = ~(_numbers_or_nan(published, column, rows) == source.numeric(column)[release.positions])
        else:   # compared as Arrow text; a missing value differs from everything
            bad = pc.fill_null(pc.not_equal(pa.array(mine), pa.array(theirs)), True).to_numpy(zero_copy_only=False)
        differs |= bad
        seen.append((column, bad, mine, theirs))
    found = [conflict_entry(release.ids[k], published.row_number(int(rows[k])),
                            [(column, mine.iloc[k], theirs.iloc[k]) for column, bad, mine, theirs in seen if bad[k]])
             for k in np.flatnonzero(differs)[:50]]
    found += [f"id '{shorten(release.ids[k], 30)}'" for k in np.flatnonzero(differs)[50:]]
    return found


def _numbers_or_nan(table: Table, column: str, rows: np.ndarray) -> np.ndarray:
    """The column's values at ``rows`` as numbers, NaN where one is not a number: a number
    column as stored, text parsed once per distinct value."""
    stored = table.values(column)
    if pd.api.types.is_numeric_dtype(stored.dtype) and not pd.api.types.is_bool_dtype(stored.dtype) \
            and not pd.api.types.is_string_dtype(stored.dtype):
        return stored.to_numpy(dtype="float64", na_value=np.nan)[rows]
    codes, uniques = pd.factorize(table.text_series_at(column, rows), use_na_sentinel=False)
    parsed = pd.to_numeric(pd.Series(np.asarray(uniques, dtype=object), dtype=object), errors="coerce")
    return parsed.to_numpy(dtype="float64", na_value=np.nan)[codes]


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
