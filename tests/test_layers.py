"""The layers of the package, read from the source with ``ast`` (nothing is imported):
core never imports Qt, the GUI or the command line; the command line imports the GUI only
to start it (``cli/gui.py``) and for the report's PDF and charts (``cli/report.py``); the
GUI shell reaches a view only through navigation's registry (by a string); core/risk
leaves the engines to core/engines; and no two modules import each other, directly or
round a circle, outside ``if TYPE_CHECKING:`` — function-level imports count."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import networkx as nx
import pytest

from paths import SRC
from tklscore.core.engines.backend import OPENERS
from tklscore.core.release.selection import KINDS, RESOLVERS

PACKAGE = SRC
QT = ("PySide6", "shiboken6", "pyqtgraph")
# the GUI shell: the window and what every view shares (a view is a package under gui/)
SHELL = {"tklscore.gui", "tklscore.gui.app", "tklscore.gui.main_window", "tklscore.gui.navigation",
         "tklscore.gui.welcome", "tklscore.gui.guard", "tklscore.gui.workbench", "tklscore.gui.weights_state",
         "tklscore.gui.measures_state",
         "tklscore.gui.recovery", "tklscore.gui.model_follower", "tklscore.gui.tasks", "tklscore.gui.when_shown",
         "tklscore.gui.frame_model", "tklscore.gui.after_paint", "tklscore.gui.preload", "tklscore.gui.task_status"}
# where the command line starts the window, and where the report draws its charts and PDF pages with Qt
CLI_USES_GUI = {"tklscore.cli.gui", "tklscore.cli.report"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _owner(name: str) -> str | None:
    """The module of the package that ``name`` (a module or a name in one) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


class _Imports(ast.NodeVisitor):
    """Every import of a module (at any depth) outside ``if TYPE_CHECKING:``."""

    def __init__(self, module: str, is_package: bool):
        self.module, self.is_package = module, is_package
        self.found: list[str] = []      # what is imported, fully named

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
                (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found += [alias.name for alias in node.names]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.module.split(".") if self.is_package else self.module.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            source = ".".join(base + ([node.module] if node.module else []))
        else:
            source = node.module or ""
        modules = [f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in MODULES]
        if len(modules) < len(node.names):   # names defined in ``source`` itself
            self.found.append(source)
        self.found += modules


def imports_of(module: str) -> list[str]:
    path = MODULES[module]
    visitor = _Imports(module, path.name == "__init__.py")
    visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return visitor.found


def import_graph() -> nx.DiGraph:
    """Module → the package's modules it imports."""
    graph = nx.DiGraph()
    for module in MODULES:
        graph.add_node(module)
        for name in imports_of(module):
            if name.startswith("tklscore"):
                target = _owner(name)
                if target and target != module:
                    graph.add_edge(module, target)
    return graph


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    """The import graph, read when a test first asks for it: at module level every xdist worker
    read it while collecting."""
    return import_graph()


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_graph_is_read(graph):
    assert len(MODULES) > 150 and graph.number_of_edges() > 300
    assert graph.has_edge("tklscore.cli.score", "tklscore.cli.arguments")


def test_core_never_imports_qt_the_gui_or_the_command_line():
    wrong = []
    for module in MODULES:
        if not _in(module, "tklscore.core"):
            continue
        for name in imports_of(module):
            if name.split(".")[0] in QT or _in(name, "tklscore.gui") or _in(name, "tklscore.cli"):
                wrong.append(f"{module} imports {name}")
    assert wrong == []


def test_the_command_line_imports_the_gui_only_to_start_it_and_for_the_report(graph):
    wrong = [f"{a} imports {b}" for a, b in graph.edges
             if _in(a, "tklscore.cli") and _in(b, "tklscore.gui") and a not in CLI_USES_GUI]
    assert wrong == []


def test_the_shell_never_imports_a_view(graph):
    views = {m for m in MODULES if _in(m, "tklscore.gui") and m not in SHELL}
    wrong = [f"{a} imports {b}" for a, b in graph.edges if a in SHELL and b in views]
    assert wrong == []


def test_risk_leaves_the_engines_to_core_engines(graph):
    wrong = [f"{a} imports {b}" for a, b in graph.edges
             if _in(a, "tklscore.core.risk") and _in(b, "tklscore.core.engines")]
    assert wrong == []


# circles another engineer is closing now; an entry that no longer closes a circle fails the
# test, so the list only shrinks
BEING_CLOSED: dict = {}


def test_no_import_cycles(graph):
    cycles = {frozenset(c) for c in nx.strongly_connected_components(graph) if len(c) > 1}
    assert sorted(map(sorted, cycles - set(BEING_CLOSED))) == []
    assert sorted(map(sorted, set(BEING_CLOSED) - cycles)) == [], "closed: remove it from BEING_CLOSED"


def test_every_release_kind_is_located_by_every_engine():
    assert set(RESOLVERS) == set(KINDS) == set(OPENERS)


@pytest.mark.parametrize("code, cycle", [
    ("import tklscore.b", True),
    ("from tklscore import b", True),
    ("def f():\n    from tklscore.b import x", True),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tklscore.b import x", False),
])
def test_the_graph_sees_what_makes_a_cycle(tmp_path, monkeypatch, code, cycle):
    """The reader counts imports inside functions and skips only ``TYPE_CHECKING`` ones."""
    package = tmp_path / "tklscore"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(code + "\n")
    (package / "b.py").write_text("import tklscore.a\n")
    this = sys.modules[__name__]
    monkeypatch.setattr(this, "PACKAGE", package)
    monkeypatch.setattr(this, "MODULES", {module_name(p): p for p in package.rglob("*.py")})
    found = [c for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert bool(found) == cycle
