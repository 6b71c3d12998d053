"""A new source in a project that holds another table's work: what of that work still
applies to the new table, decided here (the application asks the user, the core decides).

Opening another table (another file, or a file after the built-in example) is not
reading the same table again: releases by ids name *the other table's* records, and a
model or weights file was made for the other table's sensitive attributes. So
:func:`source_change` lists every piece of work with whether it applies and why:

- **roles** apply where the column exists in the new table;
- a release **by ids** never applies (its ids are the other table's records; read against
  this table they would name other people);
- a release **from a published file** applies when the file's columns are all columns of
  the new table (its records are then located in it);
- a release **by a filter** applies when every column it names is a column of the new table;
- the **tkl-Data Model** or a **weights file** applies when the attributes it weighs are
  columns of the new table.

Reading the same file again (other delimiter, encoding, kept spaces) changes none of this
(``same_table``). :func:`start_new_project` and :func:`keep_what_applies` are the two answers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from tklscore.core.errors import InputError, existing_file
from tklscore.core.project import Project
from tklscore.core.tables.roles import Roles

ROLES, RELEASE, MODEL, WEIGHTS = "roles", "release", "model", "weights"


@dataclass(frozen=True)
class CarriedWork:
    """One piece of the project's work and whether it applies to the new source."""

    kind: str          # ROLES, RELEASE, MODEL or WEIGHTS
    name: str
    applies: bool
    reason: str

    def line(self) -> str:
        if self.kind == MODEL:
            return f"The tkl-Data Model: {self.reason}"
        if self.kind == ROLES:
            return f"The roles: {self.reason}"
        what = {ROLES: "Roles of", RELEASE: "Release", WEIGHTS: "Weights file"}[self.kind]
        return f"{what} '{self.name}': {self.reason}"


@dataclass(frozen=True)
class SourceChange:
    """What a project's work becomes with another source."""

    same_table: bool
    new_name: str
    old_name: str
    work: tuple[CarriedWork, ...] = field(default_factory=tuple)

    @property
    def holds_work(self) -> bool:
        """Whether there is anything the user could lose or carry over (then ask)."""
        return not self.same_table and bool(self.work)

    @property
    def no_longer_apply(self) -> list[CarriedWork]:
        return [w for w in self.work if not w.applies]

    @property
    def still_apply(self) -> list[CarriedWork]:
        return [w for w in self.work if w.applies]

    def question(self) -> str:
        """The question, in words, with what no longer applies."""
        lines = [f"The project holds work on {self.old_name}; {self.new_name} is another table."]
        if self.no_longer_apply:
            lines.append("With the new table these no longer apply and would be dropped:")
            lines += [f"• {w.line()}" for w in self.no_longer_apply]
        if self.still_apply:
            lines.append("These still apply and can be kept:")
            lines += [f"• {w.line()}" for w in self.still_apply]
        return "\n".join(lines)


def source_change(project: Project, path: str, columns: list[str], weight_attributes=None) -> SourceChange:
    """What of ``project``'s work applies to the source ``path`` with ``columns``
    (``weight_attributes``: the attributes the project's weights weigh, model or file)."""
    new_name = Path(path).name
    old_name = ("the built-in example" if project.builtin else
                Path(project.source_path).name if project.source_path else "no table")
    if project.builtin is None and project.source_path and _same_file(project.source_path, path):
        return SourceChange(True, new_name, old_name)
    if project.builtin is None and not project.source_path:
        return SourceChange(False, new_name, old_name)
    present = set(columns)
    work: list[CarriedWork] = []
    roles = project.roles
    named = list(roles.qi) + list(roles.sa) + ([roles.identifier] if roles.identifier else [])
    if named:
        missing = [c for c in named if c not in present]
        work.append(CarriedWork(ROLES, "roles", not missing,
                                "their columns are in the new table" if not missing
                                else f"{_names(missing)} {'is not a column' if len(missing) == 1 else 'are not columns'} "
                                     f"of the new table"))
    for definition in project.releases:
        work.append(_release_applies(definition, present))
    attributes = sorted(set(weight_attributes or ()))
    if project.model_turtle or project.weights_path:
        missing = [a for a in attributes if a not in present]
        kind, name = ((MODEL, "model") if project.model_turtle and project.weights_use != "file"
                      else (WEIGHTS, Path(project.weights_path).name if project.weights_path else "weights"))
        applies = bool(attributes) and not missing
        reason = ("it weighs columns of the new table" if applies else
                  f"it weighs {_names(missing)}, not columns of the new table" if missing else
                  "it weighs no attribute")
        work.append(CarriedWork(kind, name, applies, reason))
    return SourceChange(False, new_name, old_name, tuple(work))


def _release_applies(definition, present: set[str]) -> CarriedWork:
    if definition.kind == "ids":
        return CarriedWork(RELEASE, definition.name, False,
                           f"its {len(definition.ids):,} ids name records of the other table")
    if definition.kind == "file":
        try:
            columns = table_columns(definition.path, definition.options)
        except InputError as error:
            return CarriedWork(RELEASE, definition.name, False, f"its file cannot be read ({error.message})")
        missing = [c for c in columns if c not in present]
        if missing:
            return CarriedWork(RELEASE, definition.name, False,
                               f"its file's column(s) {_names(missing)} are not in the new table")
        return CarriedWork(RELEASE, definition.name, True, "its file's columns are in the new table")
    try:
        missing = [c for c in filter_columns(definition.expression or "") if c not in present]
    except InputError as error:  # a refused filter applies to no table
        return CarriedWork(RELEASE, definition.name, False, f"its filter is refused ({error.message})")
    if missing:
        return CarriedWork(RELEASE, definition.name, False,
                           f"its filter names {_names(missing)}, not columns of the new table")
    return CarriedWork(RELEASE, definition.name, True, "its filter names columns of the new table")


def filter_columns(expression: str) -> list[str]:
    """The column names a filter names, in order of first use (read by the one filter
    language, :mod:`tklscore.core.release.filters`; a refused filter is a ``FilterError``)."""
    from tklscore.core.release.filters import parse_filter

    return list(parse_filter(expression).columns)


def table_columns(path: str | os.PathLike, options: dict | None = None) -> list[str]:
    """A table file's column names as the loader reads them, without reading its rows."""
    from tklscore.core.tables.loading import table_kind

    options = dict(options or {})
    path = existing_file(path, "table file")
    kind = table_kind(path)
    if kind == "parquet":
        import pyarrow.parquet as pq

        try:
            return [str(c).strip() for c in pq.read_schema(path).names]
        except Exception as error:  # pyarrow raises several types for a damaged file
            raise InputError(f"not a readable Parquet file ({error})", file=str(path)) from None
    if kind == "excel":
        import pandas as pd

        from tklscore.core.tables.loading import _check_inflated_size

        _check_inflated_size(path)
        try:
            frame = pd.read_excel(path, sheet_name=options.get("sheet") or 0, nrows=0)
        except Exception as error:  # openpyxl raises several types for a damaged workbook
            raise InputError(f"not a readable Excel workbook ({error})", file=str(path)) from None
        return [str(c).strip() for c in frame.columns]
    from tklscore.core.engines.source import _csv_header
    from tklscore.core.tables.loading import sniff_text_file
    from tklscore.core.tables.spaces import split_delimiter

    delimiter, encoding = sniff_text_file(path)
    delimiter = split_delimiter(options.get("delimiter"))[0] or delimiter
    return [c.strip() for c in _csv_header(path, delimiter, options.get("encoding") or encoding)]


def start_new_project(path: str, options: dict | None = None) -> Project:
    """The first answer: a new project on the new source, nothing carried over."""
    return Project(source_path=str(path), source_options=dict(options or {}))


def keep_what_applies(project: Project, change: SourceChange, path: str, options: dict | None = None) -> Project:
    """The second answer: the project on the new source with the work that still applies
    (roles whose columns exist, releases that apply, the model or weights if they weigh
    its columns); what no longer applies is dropped, never re-read against the new table."""
    dropped = {(w.kind, w.name) for w in change.no_longer_apply}
    releases = [r for r in project.releases if (RELEASE, r.name) not in dropped]
    roles = project.roles
    if any(w.kind == ROLES for w in change.no_longer_apply):
        roles = Roles()
    weights_dropped = any(w.kind in (MODEL, WEIGHTS) for w in change.no_longer_apply)
    current = project.current_release if any(r.name == project.current_release for r in releases) else \
        (releases[0].name if releases else None)
    settings = dict(project.settings)
    if roles != project.roles:
        settings.pop("design", None)  # hierarchies and saved designs of the other table's columns
    return replace(project, source_path=str(path), source_options=dict(options or {}), builtin=None, roles=roles,
                   releases=releases, current_release=current,
                   model_turtle=None if weights_dropped else project.model_turtle,
                   weights_path=None if weights_dropped else project.weights_path,
                   weights_use=None if weights_dropped else project.weights_use,
                   settings=settings)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _names(columns, limit: int = 6) -> str:
    columns = list(columns)
    shown = ", ".join(f"'{c}'" for c in columns[:limit])
    return shown + (f" and {len(columns) - limit} more" if len(columns) > limit else "")
