"""The project file: everything a session holds, saved atomically as JSON and reopened exactly.

It keeps the source table (a path with its load options, or a built-in example), the
roles, the candidate releases and which one is shown, the weights (a tkl-Data Model kept
inside the file as Turtle, or a weights file), M-Score's x, and view settings. Paths are
stored relative to the project file when they lie below its folder.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from tklscore.core.files.atomic import atomic_write
from tklscore.core.errors import InputError, existing_file
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.scoring.scores import parse_x
from tklscore.core.tables.roles import Roles

FORMAT = "tklscore-project"
VERSION = 1


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
    x: float = 1.0
    settings: dict = field(default_factory=dict)  # view and chart settings

    def release(self, name: str) -> ReleaseDefinition:
        for definition in self.releases:
            if definition.name == name:
                return definition
        raise InputError(f"the project has no release named '{name}'")

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
            "weights": {"path": rel(self.weights_path), "model": self.model_turtle},
            "x": "inf" if math.isinf(self.x) else self.x,
            "settings": self.settings,
        }

    @classmethod
    def from_dict(cls, data: dict, folder: Path | None = None, name: str = "<project>") -> "Project":
        if data.get("format") != FORMAT:
            raise InputError("is not a tkl-Score Workbench project", file=name)
        if int(data.get("version", 0)) > VERSION:
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
            x = data.get("x", 1.0)
            return cls(
                source_path=absolute(data["source"].get("path")),
                source_options=dict(data["source"].get("options") or {}),
                builtin=data["source"].get("builtin"),
                roles=Roles(roles.get("qi", ()), roles.get("sa", ()), roles.get("continuous", ()),
                            roles.get("identifier")),
                releases=releases,
                current_release=data.get("current_release"),
                weights_path=absolute(data.get("weights", {}).get("path")),
                model_turtle=data.get("weights", {}).get("model"),
                x=parse_x(x),
                settings=dict(data.get("settings") or {}),
            )
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
        path = existing_file(path, "project file")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise InputError(f"is not a project file (not JSON: {error})", file=str(path)) from None
        if not isinstance(data, dict):
            raise InputError("is not a tkl-Score Workbench project", file=str(path))
        return cls.from_dict(data, path.resolve().parent, str(path))


def _relative(path: str | None, folder: Path | None) -> str | None:
    if path is None or folder is None:
        return path
    try:
        return str(Path(path).resolve().relative_to(folder))
    except ValueError:
        return str(Path(path).resolve())
