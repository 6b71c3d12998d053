"""docs/architecture.md matches the tree: every module its package table names exists in
that package, and every module of the packages it describes is named there (issue 21 §2)."""

from __future__ import annotations

import re
from pathlib import Path

from paths import ROOT, SRC as PACKAGE

DOC = ROOT / "docs" / "architecture.md"


def package_rows() -> list[tuple[list[str], str]]:
    """(the folders or modules of a row's first cell, the row's description) of the table."""
    rows = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = line.split(" | ")
        if not line.startswith("| `") or len(cells) < 2:
            continue
        named = re.findall(r"`([^`]+)`", cells[0])
        rows.append(([n for n in named], " | ".join(cells[1:])))
    return rows


def described() -> dict[str, str]:
    """Each module file (relative to the package) → the description naming its folder."""
    out = {}
    for named, text in package_rows():
        for n in named:
            if n.endswith("/"):
                folder = PACKAGE / n
                for path in folder.rglob("*.py"):
                    if path.name != "__init__.py" and "__pycache__" not in path.parts:
                        out[str(path.relative_to(PACKAGE))] = text
    return out


def test_every_module_of_a_described_package_is_named():
    missing = [m for m, text in described().items() if Path(m).name not in text and Path(m).stem not in text]
    assert not missing, f"docs/architecture.md does not name {missing}"


def test_every_module_named_exists_in_its_package():
    wrong = []
    for named, text in package_rows():
        folders = [PACKAGE / n for n in named if n.endswith("/")]
        if not folders:
            continue
        for module in set(re.findall(r"`([\w/]+\.py)`", text)):
            if "/" in module and (PACKAGE / module).is_file():   # named from the package's root
                continue
            if not any(path.name == Path(module).name for folder in folders for path in folder.rglob("*.py")):
                wrong.append((named, module))
    assert not wrong, f"docs/architecture.md names modules that are not there: {wrong}"


def test_every_package_is_described():
    rows = {n for named, _ in package_rows() for n in named}
    packages = {str(p.relative_to(PACKAGE)) + "/" for p in PACKAGE.glob("*/*") if (p / "__init__.py").is_file()
                and p.parent.name in ("core", "gui")}
    undescribed = sorted(p for p in packages - rows if not any(p.startswith(r) for r in rows))
    assert not undescribed, f"docs/architecture.md has no row for {undescribed}"
