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

from tklscore.core.codes import factorize, group_ids
from tklscore.core.errors import InputError
from tklscore.core.tables import Table


@dataclass(frozen=True)
class Release:
    """``positions``: source row of each located published record, in published order."""

    positions: np.ndarray
    ids: np.ndarray
    unlocated: list[str] = field(default_factory=list)
    name: str = "published"

    def __len__(self) -> int:
        return len(self.positions)

    def require_all_located(self) -> None:
        if self.unlocated:
            shown = "; ".join(self.unlocated[:20]) + ("; ..." if len(self.unlocated) > 20 else "")
            raise InputError(
                f"{len(self.unlocated)} published record(s) cannot be located in the source: {shown}",
                file=self.name, hint="a published table must be a subset of the source table")


def source_ids(source: Table, id_column: str | None) -> np.ndarray:
    """The id of every source record (values of the identifier column, else row positions);
    an identifier column must hold unique, non-empty ids."""
    if id_column is None:
        return np.arange(len(source)).astype(str).astype(object)
    source.require_columns([id_column], "identifier column")
    ids = source.frame[id_column].to_numpy(dtype=object)
    empty = np.flatnonzero(ids == "")
    if len(empty):
        raise InputError("identifier is empty", file=source.name, row=source.row_number(int(empty[0])),
                         column=id_column)
    duplicated = pd.Series(ids).duplicated(keep=False).to_numpy()
    if duplicated.any():
        where = np.flatnonzero(duplicated)
        first = ids[where[0]]
        rows = [source.row_number(int(i)) for i in where if ids[i] == first]
        raise InputError(
            f"identifier '{first}' appears {len(rows)} times (rows {', '.join(map(str, rows[:10]))}); "
            f"{len(np.unique(ids[where].astype(str)))} id(s) are duplicated in all",
            file=source.name, column=id_column, hint="an identifier column must be unique")
    return ids


def locate_by_ids(source: Table, ids, id_column: str | None = None, name: str = "--rows") -> Release:
    """Publish the source records with the given ids (row positions without ``id_column``)."""
    wanted = np.array([str(i).strip() for i in ids], dtype=object)
    duplicated = pd.Series(wanted).duplicated().to_numpy()
    if duplicated.any():
        raise InputError(f"id '{wanted[duplicated][0]}' is listed more than once", file=name)
    known = source_ids(source, id_column)
    positions = pd.Index(known).get_indexer(wanted)
    found = positions >= 0
    missing = [f"id '{i}'" for i in wanted[~found]]
    return Release(positions[found].astype(np.int64), wanted[found], missing, name)


def locate_table(source: Table, published: Table, id_column: str | None = None,
                 continuous: frozenset[str] | set[str] = frozenset()) -> Release:
    """Locate the rows of a published table in the source (by id, else by all columns)."""
    if id_column is not None:
        published.require_columns([id_column], "identifier column")
        return locate_by_ids(source, published.frame[id_column].to_numpy(), id_column, published.name)
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
            values = np.concatenate([source.frame[column].to_numpy(dtype=object),
                                     published.frame[column].to_numpy(dtype=object)])
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


def _occurrence(keys: np.ndarray) -> np.ndarray:
    """How many earlier rows share each row's key (0 for the first)."""
    return pd.Series(keys).groupby(keys).cumcount().to_numpy()
