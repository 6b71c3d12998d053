"""Rooms a developer can find (issue 21 §2): no class over 500 lines and no constructor over 80,
anywhere in src/ (core, engines, GUI, CLI) — a class that grows past them is split into
composed parts, as the views are into panels."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from paths import SRC

MAX_CLASS = 500
MAX_CONSTRUCTOR = 80


def sizes(source: str, name: str):
    """(``file:Class``, lines of the class, lines of its ``__init__`` or 0) for every class,
    nested ones included; decorators are not counted."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            init = next((f for f in node.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and f.name == "__init__"), None)
            yield (f"{name}:{node.name}", node.end_lineno - node.lineno + 1,
                   init.end_lineno - init.lineno + 1 if init else 0)


def source_sizes():
    for path in sorted(SRC.rglob("*.py")):
        yield from sizes(path.read_text(encoding="utf-8"), path.relative_to(SRC).as_posix())


def too_big(found):
    return ([(name, lines) for name, lines, _ in found if lines > MAX_CLASS],
            [(name, lines) for name, _, lines in found if lines > MAX_CONSTRUCTOR])


def test_no_class_over_500_lines_and_no_constructor_over_80_in_src():
    found = list(source_sizes())
    packages = {Path(name.split(":")[0]).parts[0] for name, _, _ in found}
    assert {"core", "gui", "cli"} <= packages and len(found) > 200   # it read the whole tree
    classes, constructors = too_big(found)
    assert classes == [], f"classes over {MAX_CLASS} lines: {classes}"
    assert constructors == [], f"constructors over {MAX_CONSTRUCTOR} lines: {constructors}"


def test_the_measure_finds_a_long_class_and_a_long_constructor():
    body = "\n".join(f"        self.a{i} = {i}" for i in range(80))
    methods = "\n".join(f"    def m{i}(self):\n        return {i}\n" for i in range(140))
    source = textwrap.dedent("""\
        class Fine:
            def __init__(self):
                pass

        class Outer:
            class Big:
        """) + textwrap.indent(f"    def __init__(self):\n{body}\n{methods}", "    ")
    found = list(sizes(source, "x.py"))
    assert ("x.py:Fine", 3, 2) in found          # class line, def line, body: 3 and 2
    classes, constructors = too_big(found)         # Big: 1 + 81 + 140 two-line methods and 139 blanks
    assert sorted(classes) == [("x.py:Big", 501), ("x.py:Outer", 502)]
    assert constructors == [("x.py:Big", 81)]
