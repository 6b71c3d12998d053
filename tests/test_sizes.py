"""Rooms a developer can find (issue 21 §2): the Model and AHP views are composed panels — no
class over 500 lines and no constructor over 80 in gui/model, gui/ahp and gui/design."""

from __future__ import annotations

import ast

import pytest

from paths import SRC

GUI = SRC / "gui"


def sizes(package: str):
    for path in sorted((GUI / package).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                init = next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
                yield (f"{path.name}:{node.name}", node.end_lineno - node.lineno + 1,
                       init.end_lineno - init.lineno + 1 if init else 0)


@pytest.mark.parametrize("package", ["model", "ahp", "design"])
def test_no_class_over_500_lines_and_no_constructor_over_80(package):
    found = list(sizes(package))
    assert any(name.startswith("view.py:") for name, _, _ in found)
    assert [(name, lines) for name, lines, _ in found if lines > 500] == []
    assert [(name, lines) for name, _, lines in found if lines > 80] == []
