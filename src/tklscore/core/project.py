"""The project file: everything a session holds, saved atomically as JSON and reopened exactly.

It keeps the source table (a path with its load options, or a built-in example), the
roles, the candidate releases and which one is shown, the weights (a tkl-Data Model kept
inside the file as Turtle, or a weights file), M-Score's x, and view settings. Paths are
stored relative to the project file when they lie below its folder, and read relative to it.

A project file is a document from anyone: loading it reads nothing but the project file.
The files it names that lie outside the project's folder tree (after following links:
``../../etc/passwd``, ``/etc/shadow``, a link to them) are read only once the user allowed
them: :func:`check_paths` refuses them with :class:`OutsideFolderError`, which the
application turns into a question.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from tklscore.core.files.atomic import atomic_write
from tklscore.core.files.json_file import read_json
from tklscore.core.errors import InputError, existing_file, shorten
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.scoring.scores import parse_x
from tklscore.core.tables.roles import Roles

FORMAT = "tklscore-project"
VERSION = 1
BUILTIN_SOURCES = ("thesis",)
"""The built-in examples a project's source may name (``source.builtin``)."""
SOURCE_OPTIONS = {"delimiter": (str,), "encoding": (str,), "sheet": (str, int), "keep_spaces": (bool,)}
"""The load options a project keeps for its source (``source.options``) and their types."""


@dataclass
class Project:
    source_path: str | None = None          # a table file, or None with ``builtin``
    source_options: dict = field(default_factory=dict)  # delimiter, encoding, sheet
    builtin: str | None = None              # "thesis": the built-in example's Table 3.1
    roles: Roles = field(default_factory=Roles)
    releases: list[ReleaseDefinition] = field(default_factory=list)
    current_release: str | None = None
    weights_path: str | None = None         # a weights CSV, used when there is no model
    model_turtle: str | None = None         # the tkl-Data Model, as Turtle
    weights_use: str | None = None          # model | file | score models (None: the model, else the file)
    score_model_paths: list[str] = field(default_factory=list)  # M-Score and L-Severity model files
    x: float = 1.0
    settings: dict = field(default_factory=dict)  # view and chart settings
    notes: list[str] = field(default_factory=list, compare=False)  # what opening changed (not saved)

    def designed_names(self) -> list[str]:
        """The releases saved from the Design view (``settings["design"]["saved"]``), by name;
        they follow the defined releases in the Release chooser."""
        defined = {r.name for r in self.releases}
        saved = (self.settings.get("design") or {}).get("saved") or []
        names = (str(d.get("name", "designed release")) for d in saved if isinstance(d, dict))
        return [n for n in dict.fromkeys(names) if n not in defined]

    def designed(self, name: str | None) -> dict | None:
        """The saved design of the designed release ``name`` (None: no such designed release)."""
        if not name or name not in self.designed_names():
            return None
        saved = (self.settings.get("design") or {}).get("saved") or []
        return next(d for d in saved if isinstance(d, dict) and str(d.get("name", "designed release")) == name)

    def remove_designed(self, name: str) -> bool:
        """Forget the saved design of the designed release ``name``; whether it was one."""
        if name not in self.designed_names():
            return False
        design = self.settings["design"]
        design["saved"] = [d for d in design.get("saved") or [] if d.get("name") != name]
        return True

    def make_current(self, name: str) -> None:
        """Make the release ``name`` (defined or designed) the current one; a designed one's
        design becomes the design being built (:func:`~tklscore.core.release.session.take_up_designed`)."""
        if self.designed(name) is None:
            self.release(name)
        self.current_release = name
        if self.designed(name) is not None:
            from tklscore.core.release.session import take_up_designed   # the designer's: not read at start-up

            take_up_designed(self)

    def release(self, name: str) -> ReleaseDefinition:
        for definition in self.releases:
            if definition.name == name:
                return definition
        raise InputError(f"the project has no release named '{name}'")

    def named_paths(self) -> list[tuple[str, str]]:
        """Every file the project reads, as (what it is, path)."""
        named = [("source table", self.source_path)] if self.source_path else []
        named += [(f"release '{r.name}'", r.path) for r in self.releases if r.kind == "file" and r.path]
        named += [("weights file", self.weights_path)] if self.weights_path else []
        named += [("score model", p) for p in self.score_model_paths if p]
        return named

    def paths_outside(self, folder: str | os.PathLike) -> list[tuple[str, str]]:
        """The files it reads (as :meth:`named_paths`) that lie outside ``folder`` and the
        folders below it, links followed."""
        root = os.path.realpath(folder)
        return [(what, path) for what, path in self.named_paths() if not _within(path, root)]

    def to_dict(self, folder: Path | None = None) -> dict:
        def rel(path: str | None) -> str | None:
            return _relative(path, folder)

        return {
            "format": FORMAT, "version": VERSION,
            "source": {"path": rel(self.source_path), "options": self.source_options, "builtin": self.builtin},
            "roles": {"qi": list(self.roles.qi), "sa": list(self.roles.sa),
                      "continuous": sorted(self.roles.continuous), "identifier": self.roles.identifier},
            "releases": [dict(r.to_dict(), **({"path": rel(r.path)} if r.kind == "file" else {}))
                         for r in self.releases],
            "current_release": self.current_release,
            "weights": {"path": rel(self.weights_path), "model": self.model_turtle, "use": self.weights_use,
                        "score_models": [rel(p) for p in self.score_model_paths]},
            "x": "inf" if math.isinf(self.x) else self.x,
            "settings": self.settings,
        }

    @classmethod
    def from_dict(cls, data: dict, folder: Path | None = None, name: str = "<project>") -> "Project":
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError("is not a tkl-Score Workbench project", file=name)
        _check_types(data, name)
        _check_settings(data, name)
        if data.get("version", 0) > VERSION:
            raise InputError(f"was written by a newer version (project format {data['version']})", file=name)

        def absolute(path: str | None) -> str | None:
            if path is None or folder is None or os.path.isabs(path):
                return path
            return str((folder / path).resolve())

        try:
            roles = data.get("roles", {})
            releases = []
            for entry in data.get("releases", []):
                if entry.get("kind") == "file":
                    entry = dict(entry, path=absolute(entry.get("path")))
                releases.append(ReleaseDefinition.from_dict(entry))
            releases, notes = _unique_names(releases)
            current = data.get("current_release")
            if current is not None and current not in {r.name for r in releases}:
                shown = f"'{releases[0].name}' is shown instead" if releases else "no release is shown"
                notes.append(f"the release shown last, '{shorten(current)}', is not among the project's releases; "
                             f"{shown}")
                current = releases[0].name if releases else None
            x = data.get("x", 1.0)
            project = cls(
                source_path=absolute(data["source"].get("path")),
                source_options=dict(data["source"].get("options") or {}),
                builtin=data["source"].get("builtin"),
                roles=Roles(roles.get("qi", ()), roles.get("sa", ()), roles.get("continuous", ()),
                            roles.get("identifier")),
                releases=releases,
                current_release=current,
                weights_path=absolute(data.get("weights", {}).get("path")),
                model_turtle=data.get("weights", {}).get("model"),
                weights_use=data.get("weights", {}).get("use"),
                score_model_paths=[absolute(str(p)) for p in data.get("weights", {}).get("score_models") or []],
                x=parse_x(x),
                settings=dict(data.get("settings") or {}),
                notes=notes,
            )
            return project
        except InputError as error:
            raise InputError(error.message, file=name, column=error.column, hint=error.hint) from None
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise InputError(f"is damaged ({error.__class__.__name__}: {error})", file=name) from None

    def save(self, path: str | os.PathLike) -> None:
        path = Path(path)
        text = json.dumps(self.to_dict(path.resolve().parent), indent=2, ensure_ascii=False)
        with atomic_write(path) as handle:
            handle.write(text + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Project":
        """The project in the file ``path`` (reading nothing else; see :func:`check_paths`
        before reading the files it names)."""
        path = existing_file(path, "project file")
        data = read_json(path, "project file")
        if not isinstance(data, dict):
            raise InputError("is not a tkl-Score Workbench project", file=str(path))
        return cls.from_dict(data, path.resolve().parent, str(path))


_TEXT, _NUMBER, _LIST, _DICT, _OPTIONAL = "text", "a number", "a list", "an object ({...})", " or null"
_FIELDS: list[tuple[tuple[str, ...], tuple[type, ...], str]] = [
    (("version",), (int,), "a whole number"),
    (("source",), (dict,), _DICT),
    (("source", "path"), (str, type(None)), _TEXT + _OPTIONAL),
    (("source", "options"), (dict, type(None)), _DICT + _OPTIONAL),
    (("source", "builtin"), (str, type(None)), _TEXT + _OPTIONAL),
    (("roles",), (dict,), _DICT),
    (("roles", "qi"), (list,), "a list of column names"),
    (("roles", "sa"), (list,), "a list of column names"),
    (("roles", "continuous"), (list,), "a list of column names"),
    (("roles", "identifier"), (str, type(None)), _TEXT + _OPTIONAL),
    (("releases",), (list,), "a list of releases"),
    (("current_release",), (str, type(None)), _TEXT + _OPTIONAL),
    (("weights",), (dict,), _DICT),
    (("weights", "path"), (str, type(None)), _TEXT + _OPTIONAL),
    (("weights", "model"), (str, type(None)), "Turtle text" + _OPTIONAL),
    (("x",), (int, float, str), "a number or \"inf\""),
    (("settings",), (dict, type(None)), _DICT + _OPTIONAL),
]


def _kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "true/false", int: "a number", float: "a number", str: "text", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def _check_types(data: dict, name: str) -> None:
    """An error naming the first field of a project file that has the wrong type."""
    for keys, types, wanted in _FIELDS:
        value, present = data, True
        for key in keys:
            if not isinstance(value, dict) or key not in value:
                present = False
                break
            value = value[key]
        if not present:
            continue
        wrong = not isinstance(value, types) or (isinstance(value, bool) and bool not in types)
        if keys == ("x",) and not wrong and isinstance(value, str) and value != "inf":
            wrong = True
        if wrong:
            shown = json.dumps(value, ensure_ascii=False)
            raise InputError(f"'{'.'.join(keys)}' must be {wanted}, not {_kind(value)} "
                             f"({shorten(shown)})", file=name, hint="the project file is damaged; "
                             "fix the field or save the project again")
    roles = data.get("roles", {})
    for key in ("qi", "sa", "continuous"):
        for item in roles.get(key, []):
            if not isinstance(item, str):
                raise InputError(f"'roles.{key}' must list column names, not {_kind(item)} "
                                 f"({shorten(json.dumps(item))})", file=name)
    for number, entry in enumerate(data.get("releases", []), start=1):
        if not isinstance(entry, dict):
            raise InputError(f"release {number} must be an object, not {_kind(entry)}", file=name)
        if "ids" in entry and not isinstance(entry["ids"], list):
            raise InputError(f"'ids' of release {number} must be a list, not {_kind(entry['ids'])}", file=name)
        for key in ("name", "kind", "path", "expression"):
            if key in entry and not isinstance(entry[key], (str, type(None))):
                raise InputError(f"'{key}' of release {number} must be text, not {_kind(entry[key])}", file=name)


def _unique_names(releases: list[ReleaseDefinition]) -> tuple[list[ReleaseDefinition], list[str]]:
    """The releases with every name made unique — a later release named like an earlier one
    becomes "NAME (2)", and so on — and a note on each renamed one: the GUI finds a release by
    its name, and a second of the same name would be hidden behind the first."""
    import dataclasses

    taken = {r.name for r in releases}
    seen: set[str] = set()
    kept, notes = [], []
    for position, release in enumerate(releases, start=1):
        if release.name in seen:
            number = 2
            while f"{release.name} ({number})" in taken:
                number += 1
            renamed = f"{release.name} ({number})"
            notes.append(f"release {position} has the name of an earlier release, '{shorten(release.name)}'; "
                         f"it is opened as '{shorten(renamed)}'")
            taken.add(renamed)
            release = dataclasses.replace(release, name=renamed)
        seen.add(release.name)
        kept.append(release)
    return kept, notes


def _check_settings(data: dict, name: str) -> None:
    """An error naming the first setting of a project file that the views could not use:
    the source's load options, the built-in example's name, and the structures the Design
    and Pseudonymisation views keep (each saved hierarchy and design is read as the view
    reads it)."""
    from tklscore.core.pseudonymization.blocking import BlockingRule
    from tklscore.core.release.hierarchy import Hierarchy
    from tklscore.core.release.transform import ReleaseDesign
    from tklscore.core.scoring.weights_source import KINDS

    def fail(field: str, message: str):
        raise InputError(f"'{field}' {message}", file=name,
                         hint="the project file is damaged; fix the field or save the project again")

    source = data.get("source") or {}
    builtin = source.get("builtin")
    if builtin is not None and builtin not in BUILTIN_SOURCES:
        fail("source.builtin", f"names no built-in example ('{shorten(builtin)}'; the built-in examples: "
                               f"{', '.join(BUILTIN_SOURCES)})")
    for key, value in (source.get("options") or {}).items():
        if key not in SOURCE_OPTIONS:
            fail("source.options", f"holds an unknown option '{shorten(key)}' (the options: "
                                   f"{', '.join(SOURCE_OPTIONS)})")
        types = SOURCE_OPTIONS[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            fail(f"source.options.{key}", f"must be {' or '.join(_kind(t()) for t in types)}, not {_kind(value)} "
                                          f"({shorten(json.dumps(value, ensure_ascii=False))})")
    settings = data.get("settings") or {}
    design = settings.get("design")
    if design is not None:
        if not isinstance(design, dict):
            fail("settings.design", f"must be an object, not {_kind(design)}")
        readers = {"hierarchies": Hierarchy.from_dict, "saved": ReleaseDesign.from_dict}
        for key, read in readers.items():
            items = design.get(key)
            if items is None:
                continue
            if not isinstance(items, list):
                fail(f"settings.design.{key}", f"must be a list, not {_kind(items)}")
            for number, item in enumerate(items, start=1):
                _read_setting(f"settings.design.{key}[{number}]", item, read, fail)
        if design.get("current") is not None:
            _read_setting("settings.design.current", design["current"], ReleaseDesign.from_dict, fail)
    use = (data.get("weights") or {}).get("use")
    if use is not None and use not in KINDS:
        fail("weights.use", f"names no source of weights ('{shorten(use)}'; one of {', '.join(KINDS)})")
    order = settings.get("per_record_order")
    if order is not None and not isinstance(order, str):
        fail("settings.per_record_order", f"must be text, not {_kind(order)}")
    blocking = settings.get("pseudonymization")
    if blocking is not None:
        if not isinstance(blocking, dict) or not isinstance(blocking.get("rules", []), list):
            fail("settings.pseudonymization", "must be an object whose 'rules' is a list of rules")
        for number, rule in enumerate(blocking.get("rules", []), start=1):
            _read_setting(f"settings.pseudonymization.rules[{number}]", rule, BlockingRule.parse, fail,
                          kind=str)


def _read_setting(field: str, item, read, fail, kind: type = dict) -> None:
    if not isinstance(item, kind):
        fail(field, f"must be {_kind(kind())}, not {_kind(item)}")
    try:
        read(item)
    except InputError as error:
        fail(field, f"cannot be read: {error.message}")
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        fail(field, f"cannot be read ({error.__class__.__name__}: {shorten(error)})")


class OutsideFolderError(InputError):
    """The project names files outside its folder tree that the user has not allowed;
    ``paths``: (what it is, path) of each. Nothing has been read from them."""

    def __init__(self, paths: list[tuple[str, str]], project_file: str):
        self.paths = paths
        self.project_file = project_file
        shown = "; ".join(f"{what} {shorten(path, 120)}" for what, path in paths[:10])
        more = f" and {len(paths) - 10} more" if len(paths) > 10 else ""
        super().__init__(f"names {len(paths)} file(s) outside its folder, which are read only if you allow "
                         f"them: {shown}{more}", file=project_file,
                         hint="open the project in the application to allow them, or move the files into the "
                              "project's folder")


def check_paths(project: Project, project_file: str | os.PathLike,
                allowed: Iterable[str | os.PathLike] = ()) -> None:
    """An :class:`OutsideFolderError` when ``project`` (read from ``project_file``) names a
    file outside the project's folder tree that is not in ``allowed`` (files the user chose
    or allowed; compared after following links)."""
    chosen = {os.path.realpath(p) for p in allowed}
    outside = [(what, path) for what, path in project.paths_outside(Path(project_file).resolve().parent)
               if os.path.realpath(path) not in chosen]
    if outside:
        raise OutsideFolderError(outside, str(project_file))


def _within(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def _relative(path: str | None, folder: Path | None) -> str | None:
    if path is None or folder is None:
        return path
    try:
        return str(Path(path).resolve().relative_to(folder))
    except ValueError:
        return str(Path(path).resolve())
