"""The checkout is whole: tests, benchmarks, scripts and the application read nothing outside
it, and every data file the tests read is in tests/data with its origin and licence."""

from __future__ import annotations

import re
from pathlib import Path

from paths import DATA, ROOT

# ways a path has escaped the checkout before: the sibling ../shared folder, or climbing above
# the repository's root from a file inside it
ESCAPES = [re.compile(p) for p in (r"\.\./shared", r"""["']shared["']\s*/""", r"""/\s*["']shared["']""",
                                   r"shared/data", r"parents\[1\]\.parent", r"parents\[2\]")]


def _code_files():
    for folder in ("src", "tests", "benchmarks", "scripts", "packaging", ".ci"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in {".py", ".sh", ".spec", ""} and "data" not in path.relative_to(ROOT).parts[:2]:
                if path.resolve() != Path(__file__).resolve():
                    yield path


def test_no_file_reaches_outside_the_checkout():
    found = []
    for path in _code_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if any(pattern.search(line) for pattern in ESCAPES):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "paths outside the checkout:\n" + "\n".join(found)


def test_the_escape_patterns_catch_what_they_are_for():
    for line in ('SHARED = Path(__file__).resolve().parents[2] / "shared"',
                 'ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"',
                 "open('../shared/data/adult/adult.csv')"):
        assert any(pattern.search(line) for pattern in ESCAPES), line
    for line in ('DATA = Path(__file__).resolve().parent / "data"', "a shared machine slows every figure"):
        assert not any(pattern.search(line) for pattern in ESCAPES), line


def test_every_data_file_has_its_origin_in_the_readme():
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for entry in sorted(DATA.iterdir()):
        if entry.name == "README.md":
            continue
        shown = entry.name + ("/" if entry.is_dir() else "")
        assert f"`{shown}`" in readme or f"`{entry.name}`" in readme, f"tests/data/README.md does not describe {shown}"
    assert "CC BY 4.0" in readme and "Apache-2.0" in readme and "W3C" in readme
    assert (DATA / "dpv" / "LICENSE.md").is_file()
    assert (DATA / "adult" / "README.md").is_file()


def test_the_test_data_is_the_data_the_tests_use(data_dir):
    assert data_dir == DATA
    assert (data_dir / "adult" / "adult.csv").stat().st_size > 1_000_000
    assert (data_dir / "thesis_table_3_1.csv").read_text(encoding="utf-8").startswith("id,")
