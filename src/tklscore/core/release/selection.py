"""Candidate releases: how a published table is defined, and resolving it to a Release.

A release is defined by source ids (``ids``), by a published table file (``file``,
located by the identifier column or matched on all its columns), or by a filter
expression over the source (``filter``, the language of :mod:`.filters`: column names in
backticks when they hold spaces, ```Initial Diagnosis` == 'Flu' and age >= 30``). A filter is
read, never run; one that is refused, or that selects no record, is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tklscore.core.errors import InputError
from tklscore.core.release.filters import FilterError, filter_mask, parse_filter, why_nothing
from tklscore.core.tables.published import Release, locate_by_ids, locate_table
from tklscore.core.tables.roles import Roles
from tklscore.core.tables.loading import Table, load_table

KINDS = ("ids", "file", "filter")


@dataclass(frozen=True)
class ReleaseDefinition:
    name: str
    kind: str = "ids"                   # ids | file | filter
    ids: tuple[str, ...] = ()           # kind ids: source ids (row numbers without an id column)
    path: str | None = None             # kind file
    expression: str | None = None       # kind filter
    options: dict = field(default_factory=dict, compare=False, hash=False)  # file: delimiter, encoding, sheet

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"release '{self.name}': unknown kind '{self.kind}' (one of {', '.join(KINDS)})")
        if not self.name.strip():
            raise InputError("a release needs a name")
        object.__setattr__(self, "ids", tuple(map(str, self.ids)))

    def __hash__(self) -> int:
        # a definition keys the workbench's per-release caches: its ids are hashed once, not per lookup
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash((self.name, self.kind, self.ids, self.path, self.expression))
            object.__setattr__(self, "_hash", cached)
        return cached

    def to_dict(self) -> dict:
        data = {"name": self.name, "kind": self.kind}
        if self.kind == "ids":
            data["ids"] = list(self.ids)
        elif self.kind == "file":
            data["path"] = self.path
            if self.options:
                data["options"] = dict(self.options)
        else:
            data["expression"] = self.expression
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "ReleaseDefinition":
        try:
            return cls(name=str(data["name"]), kind=str(data.get("kind", "ids")),
                       ids=tuple(data.get("ids", ())), path=data.get("path"),
                       expression=data.get("expression"), options=dict(data.get("options", {})))
        except KeyError as missing:
            raise InputError(f"a release lacks its {missing.args[0]}") from None


def resolve_release(definition: ReleaseDefinition, source: Table, roles: Roles) -> Release:
    """The source records a definition publishes (unlocated records are kept in the Release)."""
    release = RESOLVERS[definition.kind](definition, source, roles)
    return Release(release.positions, release.ids, release.unlocated, definition.name, release.conflicts)


def _by_ids(definition: ReleaseDefinition, source: Table, roles: Roles) -> Release:
    return locate_by_ids(source, definition.ids, roles.identifier, name=definition.name)


def _by_file(definition: ReleaseDefinition, source: Table, roles: Roles) -> Release:
    if not definition.path:
        raise InputError(f"release '{definition.name}' has no file")
    # a published file is read as its source is: the spaces around values stripped, or kept
    published = load_table(definition.path, **{**definition.options, "keep_spaces": source.keep_spaces})
    return locate_table(source, published, roles.identifier, roles.continuous, roles.sa)


def _by_filter(definition: ReleaseDefinition, source: Table, roles: Roles) -> Release:
    positions = filter_positions(source, roles, definition.expression or "")
    if not len(positions):
        raise nothing_selected(definition.expression or "", len(source),
                               why_nothing(parse_filter(definition.expression), source))
    ids = (source.text(roles.identifier).iloc[positions].to_numpy(dtype=object) if roles.identifier
           else positions.astype(str).astype(object))
    return Release(positions, ids)


# each release kind: how the in-memory engine finds its records (the engines' counterpart is
# core/engines/backend.py OPENERS; tests/test_layers.py checks that both cover KINDS)
RESOLVERS = {"ids": _by_ids, "file": _by_file, "filter": _by_filter}


def definition_of(*, published: str | None = None, rows=None, filter: str | None = None,
                  options: dict | None = None, name: str | None = None) -> ReleaseDefinition:
    """The release a command line names (``--published FILE``, ``--rows IDS`` or ``--filter
    EXPR``; ``options``: the published file's delimiter, encoding, sheet), named as the
    commands' output names it: the file, ``--filter EXPR`` or ``--rows``."""
    if published is not None:
        kept = {k: v for k, v in (options or {}).items() if v is not None}
        return ReleaseDefinition(name or str(published), "file", path=str(published), options=kept)
    if filter is not None:
        return ReleaseDefinition(name or f"--filter {filter}", "filter", expression=filter)
    return ReleaseDefinition(name or "--rows", "ids", ids=tuple(rows or ()))


def filter_positions(source: Table, roles: Roles, expression: str) -> np.ndarray:
    """Row positions of the source records where a filter holds (:mod:`.filters`: read
    against a whitelist and evaluated over the columns; nothing in it runs)."""
    return np.flatnonzero(filter_mask(parse_filter(expression), source))


def nothing_selected(expression: str, rows: int, why: str = "") -> FilterError:
    """The error for a filter release that publishes no record (never scored as a harmless 0)."""
    return FilterError(f"the filter \"{expression}\" selects none of the {rows:,} source records"
                       + (f": {why}" if why else ""),
                       hint="a release publishes at least one record; check the values and the comparisons")
