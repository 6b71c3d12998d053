"""A designed release, reproducible outside the window (issue 22 §3): the design JSON (the
design and the hierarchies it reads, as the project saves them) and the exact
``tklscore release`` command line that evaluates it again, with the same numbers.

    tklscore release SOURCE --qi … --sa … (--weights FILE | --model FILE) [--x X]
        [--delimiter D] [--encoding E] [--keep-spaces] [--engine duckdb] --design DESIGN.json
"""

from __future__ import annotations

import json
import math
import re
import shlex
from dataclasses import dataclass, field

from tklscore.core.errors import InputError, existing_file
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.transform import ReleaseDesign
from tklscore.core.tables.roles import Roles

DESIGN_FORMAT = "tklscore release design"
DESIGN_VERSION = 1


def design_document(design: ReleaseDesign, hierarchies: dict[str, Hierarchy]) -> dict:
    """The design JSON: what ``tklscore release --design`` reads."""
    return {"format": DESIGN_FORMAT, "version": DESIGN_VERSION, "design": design.to_dict(),
            "hierarchies": [h.to_dict() for _, h in sorted(hierarchies.items())]}


def design_text(design: ReleaseDesign, hierarchies: dict[str, Hierarchy]) -> str:
    return json.dumps(design_document(design, hierarchies), indent=2, ensure_ascii=False) + "\n"


def read_design(path) -> tuple[ReleaseDesign, dict[str, Hierarchy]]:
    """The design and hierarchies of a design JSON, or an error naming the file and the fault."""
    from tklscore.core.files.json_file import read_json

    data = read_json(existing_file(path, "design file"), "design JSON")  # the one JSON reader: encodings, depth
    if not isinstance(data, dict) or data.get("format") != DESIGN_FORMAT or not isinstance(data.get("design"), dict):
        raise InputError(f"is not a design JSON (an object with \"format\": \"{DESIGN_FORMAT}\" and a \"design\"); "
                         f"the Design view's Copy as command writes one", file=str(path))
    if data.get("version") != DESIGN_VERSION:
        raise InputError(f"is a design JSON of version {data.get('version')!r}; this tklscore reads version "
                         f"{DESIGN_VERSION}", file=str(path))
    listed = data.get("hierarchies") or []
    if not isinstance(listed, list) or not all(isinstance(h, dict) for h in listed):
        raise InputError("\"hierarchies\" must be a list of hierarchy definitions", file=str(path))
    try:
        design = ReleaseDesign.from_dict(data["design"])
        hierarchies = [Hierarchy.from_dict(h) for h in listed]
    except InputError as error:
        raise InputError(f"the design cannot be read: {error.message}", file=str(path), column=error.column,
                         hint=error.hint) from None
    except (TypeError, ValueError, KeyError) as error:
        raise InputError(f"the design cannot be read: {error}", file=str(path)) from None
    found: dict[str, Hierarchy] = {}
    for hierarchy in hierarchies:
        if hierarchy.column in found:
            raise InputError("has two hierarchies in the design file", file=str(path), column=hierarchy.column)
        found[hierarchy.column] = hierarchy
    return design, found


@dataclass(frozen=True)
class CommandInputs:
    """The files and settings a design is evaluated with, as the command line names them."""

    source: str
    roles: Roles
    design: str                        # the design JSON's path
    weights: str | None = None         # a weights CSV …
    model: str | None = None           # … or a tkl-Data Model (Turtle), whose elements weigh generalised values
    x: float = 1.0
    options: dict = field(default_factory=dict)   # the source's delimiter, encoding, keep_spaces
    engine: str | None = None          # "duckdb": a source evaluated out of core, never loaded whole

    def __post_init__(self):
        if (self.weights is None) == (self.model is None):
            raise InputError("a command needs either a weights file or a tkl-Data Model file")


def release_argv(inputs: CommandInputs) -> list[str]:
    """``tklscore release`` with every argument that reproduces the design."""
    roles = inputs.roles
    argv = ["tklscore", "release", str(inputs.source)]
    for flag, columns in (("--qi", roles.qi), ("--sa", roles.sa),
                          ("--continuous", [c for c in roles.sa if c in roles.continuous])):
        if columns:
            argv += [flag, _columns(columns)]
    if roles.identifier:
        argv += ["--id-column", roles.identifier]
    argv += ["--weights", str(inputs.weights)] if inputs.weights is not None else ["--model", str(inputs.model)]
    if inputs.x != 1.0:
        argv += ["--x", "inf" if math.isinf(inputs.x) else repr(float(inputs.x))]
    for option in ("delimiter", "encoding"):
        if inputs.options.get(option):
            argv += [f"--{option}", str(inputs.options[option])]
    if inputs.options.get("keep_spaces"):
        argv.append("--keep-spaces")
    if inputs.engine is not None:
        argv += ["--engine", inputs.engine]
    return argv + ["--design", str(inputs.design)]


def command_line(argv: list[str]) -> str:
    """The argv as one line a POSIX shell runs as it is."""
    return shlex.join(argv)


def _columns(columns) -> str:
    for column in columns:
        if "," in column or column != column.strip():
            raise InputError("cannot be named on the command line (a column list is split at commas and "
                             "its names are trimmed); rename the column to copy the design as a command",
                             column=column)
    return ",".join(columns)


# ---------------------------------------------------------------------------- a recipe to hand over

@dataclass(frozen=True)
class DesignRecipe:
    """How to evaluate a designed release again: the command line, the design JSON it reads
    (its text and its file), and every file the command reads that a window wrote for it."""

    command: str
    design_json: str
    design_file: str
    written: tuple[str, ...]


@dataclass(frozen=True)
class RecipeInputs:
    """What a designed release was evaluated with, as the application holds it."""

    design: ReleaseDesign
    hierarchies: dict[str, Hierarchy]
    roles: Roles
    x: float = 1.0
    source: str | None = None         # the source file (None: the built-in example)
    options: dict = field(default_factory=dict)
    builtin: str | None = None
    weights: str | None = None        # the weights file, when the weights come from it
    model: str | None = None          # the tkl-Data Model as Turtle, when the weights come from it
    engine: str | None = None         # the engine that evaluated it ("duckdb" out of core; None: in memory)


def design_recipe(inputs: RecipeInputs, folder=None) -> tuple[DesignRecipe, dict[str, str]]:
    """The recipe of a designed release and the files to write for it (path → text): the
    design JSON, and the source and model when they are not files of their own (the
    built-in example; a model held in the project). Paths are in ``folder`` (None: bare
    file names, to run the command in the folder that holds them)."""
    from pathlib import Path

    def place(name: str) -> str:
        return str(Path(folder) / name) if folder is not None else name

    files: dict[str, str] = {}
    design_file = place(f"{file_stem(inputs.design.name)}.design.json")
    files[design_file] = design_text(inputs.design, inputs.hierarchies)
    source = inputs.source
    if inputs.options.get("sheet") not in (None, "", 0):
        raise InputError(f"the source is sheet '{inputs.options['sheet']}' of a workbook and the command line reads "
                         f"a workbook's first sheet: save that sheet as CSV to copy the design as a command")
    if source is None:
        if inputs.builtin != "thesis":
            raise InputError("the source table is not a file; open it from a file to copy the design as a command")
        from tklscore.core.examples import thesis_source_csv

        source = place("table_3_1.csv")
        files[source] = thesis_source_csv()
    model = None
    if inputs.model is not None:
        model = place("model.ttl")
        files[model] = inputs.model
    elif inputs.weights is None:
        raise InputError("there are no weights to evaluate the design with: choose a tkl-Data Model or a weights file")
    argv = release_argv(CommandInputs(source, inputs.roles, design_file, inputs.weights, model, inputs.x,
                                      {k: v for k, v in inputs.options.items()
                                       if k in ("delimiter", "encoding", "keep_spaces")}, inputs.engine))
    recipe = DesignRecipe(command_line(argv), files[design_file], design_file, tuple(files))
    return recipe, files


def file_stem(name: str) -> str:
    """A release name as a file name: letters, digits, '-', '_' and '.' kept, the rest '-'."""
    stem = "".join(c if c.isalnum() or c in "-_." else "-" for c in name.strip())
    return re.sub(r"-{2,}", "-", stem).strip("-.") or "design"
