"""Atomic writes (core/files/atomic.py): the mode a plain write would give, symbolic links
written through, inputs and read-only files refused, errors naming the user's path, and
no temporary file left behind (a killed write's is swept by the next write)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tklscore.core.errors import InputError
from tklscore.core.files.atomic import TEMPORARY_SUFFIX, atomic_path, atomic_write


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask():
    previous = os.umask(0o022)
    yield lambda value: os.umask(value)
    os.umask(previous)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_the_mode_a_plain_write_gives(tmp_path, umask, mask, expected):
    umask(mask)
    with atomic_write(tmp_path / "out.txt") as handle:
        handle.write("x")
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    assert mode(tmp_path / "out.txt") == mode(plain) == expected


def test_an_existing_file_keeps_its_mode(tmp_path, umask):
    path = tmp_path / "out.txt"
    path.write_text("old")
    path.chmod(0o640)
    umask(0o077)
    with atomic_write(path) as handle:
        handle.write("new")
    assert path.read_text() == "new"
    assert mode(path) == 0o640


def test_a_symbolic_link_is_written_through_to_its_target(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with atomic_write(link) as handle:
        handle.write("new")
    assert link.is_symlink()
    assert target.read_text() == "new"


def test_an_existing_read_only_file_is_refused(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("keep")
    path.chmod(0o444)
    with pytest.raises(InputError, match="read-only; refusing to replace it") as caught:
        with atomic_write(path) as handle:
            handle.write("new")
    assert caught.value.file == str(path)
    assert path.read_text() == "keep"


def test_an_output_that_is_an_input_is_refused(tmp_path):
    source = tmp_path / "source.csv"
    source.write_text("a,b\n1,2\n")
    link = tmp_path / "alias.csv"
    link.symlink_to(source)
    for output in (source, link, tmp_path / "." / "source.csv"):
        with pytest.raises(InputError, match=r"is also an input .*refusing to overwrite it"):
            with atomic_write(output, inputs=[str(source)]) as handle:
                handle.write("gone")
    assert source.read_text() == "a,b\n1,2\n"


def test_a_missing_folder_is_named_with_the_users_path_not_the_temporary(tmp_path):
    given = tmp_path / "nofolder" / "o.json"
    with pytest.raises(InputError) as caught:
        with atomic_write(given) as handle:
            handle.write("{}")
    text = str(caught.value)
    assert text.startswith(f"{given}: the folder {tmp_path / 'nofolder'} does not exist")
    assert ".tmp" not in text and TEMPORARY_SUFFIX not in text


def test_a_failed_write_leaves_nothing_behind(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write(path) as handle:
            handle.write("half")
            raise RuntimeError("stop")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_killed_writes_temporary_file_is_swept_by_the_next_write(tmp_path):
    path = tmp_path / "out.txt"
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)
    dead = int(child.stdout)  # a process that has ended
    stale = tmp_path / f".out.txt.{dead}-abc123{TEMPORARY_SUFFIX}"
    stale.write_text("half")
    unrelated = tmp_path / f".other.txt.{dead}-abc123{TEMPORARY_SUFFIX}"
    unrelated.write_text("not ours to sweep here")
    with atomic_write(path) as handle:
        handle.write("done")
    assert not stale.exists()
    assert unrelated.exists()
    assert path.read_text() == "done"


def test_atomic_path_gives_a_path_another_writer_can_fill(tmp_path, umask):
    umask(0o022)
    out = tmp_path / "report.pdf"
    with atomic_path(out) as temporary:
        assert temporary.parent == tmp_path and temporary.name.endswith(TEMPORARY_SUFFIX)
        temporary.write_bytes(b"%PDF")
    assert out.read_bytes() == b"%PDF" and mode(out) == 0o644
