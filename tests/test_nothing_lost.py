"""Nothing lost (issue 19 §2): every output goes through core/files/atomic.py — folder
outputs replace only a previous output of ours and never leave nothing, special files are
never replaced nor written, a full disk keeps the earlier output and says so, the DuckDB
writers keep modes, write through links and sweep what a killed write left, the DuckDB work
folders go away, and a project reads no file outside its folder that the user did not allow.

The full-disk tests run twice: on a real 64 KiB tmpfs (root only: ``mount -t tmpfs``) and
with the write made to fail with ENOSPC (everywhere)."""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from helpers import run_cli
from tklscore.core.errors import InputError
from tklscore.core.files import atomic
from tklscore.core.files.atomic import (
    FOLDER_MARKER,
    OLD_SUFFIX,
    TEMPORARY_SUFFIX,
    atomic_folder,
    atomic_path,
    atomic_write,
    check_output,
    check_output_folder,
)

QI, SA = "Job,City,Gender", "Disease,Medication,Age"


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    return int(done.stdout)


def score_args(data_dir, source) -> list[str]:
    return ["score", str(source), "--rows", "0,1,2", "--id-column", "id", "--qi", QI, "--sa", SA,
            "--continuous", "Age", "--weights", str(data_dir / "thesis_table_4_2_weights.csv")]


def listing(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- folder outputs (Spark's)

def write_dataset(folder: Path, rows: int = 3) -> None:
    """What Spark's writer does: make the folder, fill it with part files."""
    folder.mkdir()
    pd.DataFrame({"a": range(rows)}).to_parquet(folder / "part-00000.parquet")
    (folder / "_SUCCESS").write_bytes(b"")


def test_a_folder_output_is_marked_as_ours_and_replaces_only_ours(tmp_path):
    out = tmp_path / "records.parquet"
    with atomic_folder(out) as temporary:
        assert not temporary.exists() and temporary.parent == tmp_path
        write_dataset(temporary, 3)
    assert (out / FOLDER_MARKER).is_file() and json.loads((out / FOLDER_MARKER).read_text())["written_by"]
    assert len(pd.read_parquet(out)) == 3                    # readers skip the marker
    with atomic_folder(out) as temporary:                     # a previous output of ours: replaced
        write_dataset(temporary, 5)
    assert len(pd.read_parquet(out)) == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.parquet"]   # no leftovers


def test_a_folder_that_is_not_ours_is_refused_and_kept(tmp_path):
    theirs = tmp_path / "photos"
    theirs.mkdir()
    (theirs / "holiday.jpg").write_bytes(b"\xff\xd8 keep me")
    before = listing(theirs)
    with pytest.raises(InputError, match=r"is a folder that tkl-Score Workbench did not write \(1 file\(s\) in it\); "
                                         r"refusing to replace it") as caught:
        with atomic_folder(theirs) as temporary:
            write_dataset(temporary)
    assert caught.value.file == str(theirs)
    assert listing(theirs) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photos"]


def test_an_empty_folder_and_a_file_may_be_replaced_by_a_folder_output(tmp_path):
    empty = tmp_path / "empty.parquet"
    empty.mkdir()
    assert check_output_folder(empty) == empty
    single = tmp_path / "single.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(single)              # a DuckDB output before: a single file
    with atomic_folder(single) as temporary:
        write_dataset(temporary, 4)
    assert single.is_dir() and len(pd.read_parquet(single)) == 4


def test_a_folder_output_that_is_or_holds_an_input_is_refused(tmp_path):
    source = tmp_path / "source.parquet"
    write_dataset(source)
    (source / FOLDER_MARKER).write_text("{}")                # even one of ours, when it is read now
    before = listing(source)
    for inputs in ([source], [source / "part-00000.parquet"], [source.as_uri()]):
        with pytest.raises(InputError, match="is also an input"):
            check_output_folder(source, inputs)
    with pytest.raises(InputError, match="is also an input"):
        with atomic_folder(str(source), [str(source)]) as temporary:
            write_dataset(temporary)
    assert listing(source) == before


def test_a_remote_folder_output_is_left_to_its_engine(tmp_path):
    assert check_output_folder("hdfs://namenode/out/records.parquet") is None
    assert check_output_folder((tmp_path / "local.parquet").as_uri()) == tmp_path / "local.parquet"


def test_a_failed_folder_write_keeps_the_old_output(tmp_path):
    out = tmp_path / "records.parquet"
    with atomic_folder(out) as temporary:
        write_dataset(temporary, 3)
    before = listing(out)
    with pytest.raises(RuntimeError):
        with atomic_folder(out) as temporary:
            write_dataset(temporary, 9)
            raise RuntimeError("the engine failed half-way")
    assert listing(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.parquet"]


KILLED_WRITE = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    import pandas as pd
    from tklscore.core.files import atomic

    out, moment = Path(sys.argv[1]), sys.argv[2]
    if moment == "between-renames":          # a system without an atomic exchange: two renames
        atomic._exchange = lambda first, second: False
        real_rename = os.rename
        calls = []
        def rename(a, b):
            real_rename(a, b)
            calls.append(b)
            if len(calls) == 1:
                os.kill(os.getpid(), signal.SIGKILL)
        atomic.os.rename = rename
    elif moment == "after-exchange":
        real_exchange = atomic._exchange
        def exchange(first, second):
            real_exchange(first, second)
            os.kill(os.getpid(), signal.SIGKILL)
        atomic._exchange = exchange
    with atomic.atomic_folder(out) as temporary:
        temporary.mkdir()
        pd.DataFrame({"a": range(7)}).to_parquet(temporary / "part-00000.parquet")
        if moment == "while-writing":
            os.kill(os.getpid(), signal.SIGKILL)
""")


@pytest.mark.parametrize("moment", ["while-writing", "between-renames", "after-exchange"])
def test_a_kill_at_any_moment_never_leaves_nothing(tmp_path, moment):
    out = tmp_path / "records.parquet"
    with atomic_folder(out) as temporary:
        write_dataset(temporary, 3)
    done = subprocess.run([sys.executable, "-c", KILLED_WRITE, str(out), moment], capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "records.parquet"]
    assert leftovers and all(p.endswith((TEMPORARY_SUFFIX, OLD_SUFFIX)) for p in leftovers)
    if moment == "after-exchange":
        assert len(pd.read_parquet(out)) == 7                # the new output took the old one's place in one step
    elif moment == "while-writing":
        assert len(pd.read_parquet(out)) == 3                # the old output is untouched
    else:
        assert not out.exists()                              # the one moment of two renames: put back below
    atomic.sweep_stale_temporaries(out)
    assert len(pd.read_parquet(out)) in ((7,) if moment == "after-exchange" else (3,))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.parquet"]


def test_the_next_folder_write_sweeps_a_killed_writes_leftovers(tmp_path):
    out = tmp_path / "records.parquet"
    pid = dead_pid()
    stale = tmp_path / f".records.parquet.{pid}-abc123{TEMPORARY_SUFFIX}"
    write_dataset(stale)
    aside = tmp_path / f".records.parquet.{pid}-def456{OLD_SUFFIX}"
    write_dataset(aside, 2)
    (aside / FOLDER_MARKER).write_text("{}")
    other = tmp_path / f".other.parquet.{pid}-abc123{TEMPORARY_SUFFIX}"
    write_dataset(other)
    with atomic_folder(out) as temporary:
        write_dataset(temporary, 6)
    assert len(pd.read_parquet(out)) == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "records.parquet"]


# --------------------------------------------------------------------------- special files

def make_special(kind: str, folder: Path) -> Path:
    path = folder / kind
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    elif kind == "char-device":
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))   # a second /dev/null (root only)
    return path


def is_special(path: Path, kind: str) -> bool:
    test = {"fifo": stat.S_ISFIFO, "socket": stat.S_ISSOCK, "char-device": stat.S_ISCHR}[kind]
    return test(os.lstat(path).st_mode)


@pytest.mark.parametrize("kind, said", [("fifo", "a named pipe (FIFO)"), ("socket", "a socket"),
                                        ("char-device", "a character device")])
def test_a_special_file_is_refused_and_stays_what_it_is(tmp_path, kind, said):
    if kind == "char-device" and os.geteuid() != 0:
        pytest.skip("mknod of a device needs root")
    target = make_special(kind, tmp_path)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    for given in (target, link):
        with pytest.raises(InputError, match=rf"is {re.escape(said)}, not a regular file; refusing to write to it "
                                             rf"or replace it") as caught:
            with atomic_write(given) as handle:
                handle.write("x")
        assert caught.value.file == str(given)
        with pytest.raises(InputError, match="not a regular file"):
            check_output_folder(given)
    assert is_special(target, kind) and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([kind, "link.txt"])


def test_dev_null_as_output_is_refused_for_every_engine(capsys, tmp_path, data_dir):
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    source = data_dir / "thesis_table_3_1.csv"
    for extra in ([], ["--engine", "duckdb"]):
        code, _, err = run_cli(capsys, score_args(data_dir, source) + extra + ["--output", "/dev/null"])
        assert code == 2 and "/dev/null: is a character device, not a regular file" in err, err
        assert "Traceback" not in err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and os.stat("/dev/null").st_rdev == os.makedev(1, 3)


def test_a_fifo_as_output_is_refused_at_once_not_waited_on(capsys, tmp_path, data_dir):
    fifo = make_special("fifo", tmp_path)
    parquet_fifo = tmp_path / "records.parquet"
    os.mkfifo(parquet_fifo)
    source = data_dir / "thesis_table_3_1.csv"
    code, _, err = run_cli(capsys, score_args(data_dir, source) + ["--output", str(fifo)])
    assert code == 2 and "is a named pipe (FIFO), not a regular file" in err
    code, _, err = run_cli(capsys, score_args(data_dir, source) + ["--engine", "duckdb", "--output", str(parquet_fifo)])
    assert code == 2 and "is a named pipe (FIFO), not a regular file" in err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and stat.S_ISFIFO(os.lstat(parquet_fifo).st_mode)


def test_a_folder_where_a_file_is_expected_is_refused(tmp_path):
    (tmp_path / "out.csv").mkdir()
    with pytest.raises(InputError, match="is a folder, not a file"):
        check_output(tmp_path / "out.csv")
    with atomic_folder(tmp_path / "spark.parquet") as temporary:
        write_dataset(temporary)
    with pytest.raises(InputError, match=r"is a folder, not a file \(a folder of part files written by --engine spark"):
        check_output(tmp_path / "spark.parquet")


# --------------------------------------------------------------------------- full disk

@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KiB file system (tmpfs; root only)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); the ENOSPC tests below still run")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.fixture
def disk_full(monkeypatch):
    """``disk_full()``: from now on every write fails as on a full disk, at the flush."""
    def full(*_args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def fill() -> None:
        monkeypatch.setattr(atomic, "_fsync", full)
        monkeypatch.setattr(os, "fsync", full)
    return fill


def thesis_report_args(folder: Path, out: Path) -> list[str]:
    from tklscore.core.examples import write_thesis_example

    files = {p.name: p for p in write_thesis_example(folder)}
    return ["report", str(files["table_3_1.csv"]), "--published", str(files["table_3_6.csv"]), "--id-column", "id",
            "--qi", QI, "--sa", "Disease,Medication,Age,Initial Diagnosis", "--continuous", "Age",
            "--model", str(files["model.ttl"]), "--output", str(out)]


def assert_disk_full(code: int, err: str, out: Path, old: bytes) -> None:
    assert code == 2, err
    assert f"disk full writing {out}" in err and "the earlier file, if there was one, is kept" in err, err
    assert "report written" not in err and "Traceback" not in err and "internal error" not in err
    assert out.read_bytes() == old
    assert [p.name for p in out.parent.iterdir()] == [out.name]


def test_a_pdf_report_on_a_full_disk_keeps_the_old_report(qtbot, capsys, tmp_path, tiny_disk):
    out = tiny_disk / "report.pdf"
    old = b"%PDF-1.4 the previous report " + b"x" * 20_000
    out.write_bytes(old)
    code, _, err = run_cli(capsys, thesis_report_args(tmp_path / "ex", out))
    assert_disk_full(code, err, out, old)


def test_a_pdf_report_whose_flush_fails_keeps_the_old_report(qtbot, capsys, tmp_path, disk_full):
    out = tmp_path / "out" / "report.pdf"
    out.parent.mkdir()
    old = b"%PDF-1.4 the previous report"
    out.write_bytes(old)
    args = thesis_report_args(tmp_path / "ex", out)
    disk_full()
    code, _, err = run_cli(capsys, args)
    assert_disk_full(code, err, out, old)


def test_a_pdf_that_qt_leaves_incomplete_is_an_error(qtbot, capsys, tmp_path, monkeypatch):
    from PySide6.QtGui import QPdfWriter

    monkeypatch.setattr(QPdfWriter, "newPage", lambda self: False)   # Qt could not start a page
    out = tmp_path / "report.pdf"
    out.write_bytes(b"%PDF-1.4 the previous report")
    code, _, err = run_cli(capsys, thesis_report_args(tmp_path / "ex", out))
    assert code == 2 and f"{out}: the PDF came out incomplete" in err, err
    assert out.read_bytes() == b"%PDF-1.4 the previous report"
    assert [p.name for p in out.parent.iterdir() if p.name.endswith(TEMPORARY_SUFFIX)] == []


def big_query(rows: int = 200_000) -> str:
    return f"SELECT range AS id, random() AS v, 'text ' || range AS t FROM range({rows})"


def test_duckdb_writers_on_a_full_disk_say_so_and_keep_the_old_file(tiny_disk):
    from tklscore.core.engines.duckdb_engine import DuckDBBackend

    with DuckDBBackend() as backend:
        for name, write in (("records.parquet", backend.write_parquet), ("release.csv", backend.write_csv)):
            out = tiny_disk / name
            out.write_bytes(b"old output")
            with pytest.raises(InputError) as caught:
                write(big_query(), str(out))
            assert str(caught.value).startswith(f"disk full writing {out} (no space left on the device)")
            assert caught.value.file == str(out)
            assert out.read_bytes() == b"old output"
            out.unlink()
        assert list(tiny_disk.iterdir()) == []


def test_duckdb_writers_whose_flush_fails_keep_the_old_file(tmp_path, disk_full):
    from tklscore.core.engines.duckdb_engine import DuckDBBackend

    out = tmp_path / "records.parquet"
    out.write_bytes(b"old output")
    disk_full()
    with DuckDBBackend() as backend:
        with pytest.raises(InputError, match=rf"^disk full writing {re.escape(str(out))}"):
            backend.write_parquet(big_query(100), str(out))
    assert out.read_bytes() == b"old output" and [p.name for p in tmp_path.iterdir()] == ["records.parquet"]


def test_duckdb_error_text_saying_disk_full_is_a_disk_full_error(tmp_path, monkeypatch):
    import duckdb

    from tklscore.core.engines.duckdb_engine import DuckDBBackend

    out = tmp_path / "records.parquet"
    with DuckDBBackend() as backend:
        real = backend.con

        class Full:
            def __getattr__(self, name):
                return getattr(real, name)

            def execute(self, sql, *args):
                if sql.startswith("COPY"):
                    raise duckdb.IOException('IO Error: Could not write file "x": No space left on device')
                return real.execute(sql, *args)

        backend.con = Full()
        with pytest.raises(InputError, match=rf"^disk full writing {re.escape(str(out))}"):
            backend.write_csv(big_query(10), str(out))
        backend.con = real
    assert not out.exists() and list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- the DuckDB writers

def test_duckdb_outputs_keep_their_mode_and_write_through_links(capsys, tmp_path, data_dir):
    source = data_dir / "thesis_table_3_1.csv"
    out = tmp_path / "records.parquet"
    out.write_bytes(b"old")
    out.chmod(0o600)
    code, _, err = run_cli(capsys, score_args(data_dir, source) + ["--engine", "duckdb", "--output", str(out)])
    assert code == 0, err
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and len(pd.read_parquet(out)) == 3
    real = tmp_path / "kept" / "real.parquet"
    real.parent.mkdir()
    real.write_bytes(b"old")
    real.chmod(0o640)
    link = tmp_path / "link.parquet"
    link.symlink_to(real)
    code, _, err = run_cli(capsys, score_args(data_dir, source) + ["--engine", "duckdb", "--output", str(link)])
    assert code == 0, err
    assert link.is_symlink() and len(pd.read_parquet(real)) == 3 and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept", "link.parquet", "records.parquet"]


def test_duckdb_release_csv_keeps_its_mode(capsys, tmp_path, data_dir):
    out = tmp_path / "release.csv"
    out.write_text("old")
    out.chmod(0o600)
    code, _, err = run_cli(capsys, ["release", str(data_dir / "thesis_table_3_1.csv"), "--qi", QI, "--sa", SA,
                                    "--continuous", "Age", "--weights",
                                    str(data_dir / "thesis_table_4_2_weights.csv"), "--engine", "duckdb",
                                    "--output", str(out)])
    assert code == 0, err
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_text().startswith("id,Job,City")


def test_a_duckdb_writer_never_replaces_one_of_its_inputs(tmp_path, data_dir):
    from tklscore.core.engines.duckdb_engine import DuckDBBackend

    source = tmp_path / "source.csv"
    source.write_bytes((data_dir / "thesis_table_3_1.csv").read_bytes())
    before = source.read_bytes()
    with DuckDBBackend() as backend:
        backend.scan(str(source))
        with pytest.raises(InputError, match=r"is also an input .*refusing to overwrite it"):
            backend.write_csv("SELECT 1 AS a", str(source))
    assert source.read_bytes() == before


def test_a_killed_duckdb_writes_leftover_is_swept_by_the_next_write(capsys, tmp_path, data_dir):
    out = tmp_path / "records.parquet"
    stale = tmp_path / f".records.parquet.{dead_pid()}-abc123{TEMPORARY_SUFFIX}"
    stale.write_bytes(b"half a parquet file")
    code, _, err = run_cli(capsys, score_args(data_dir, data_dir / "thesis_table_3_1.csv")
                           + ["--engine", "duckdb", "--output", str(out)])
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.parquet"]


def test_a_sigkilled_duckdb_write_leaves_the_old_output_and_is_swept(tmp_path):
    out = tmp_path / "records.parquet"
    pd.DataFrame({"a": [1, 2]}).to_parquet(out)
    before = out.read_bytes()
    script = textwrap.dedent(f"""
        import os, signal
        from tklscore.core.engines.duckdb_engine import DuckDBBackend
        backend = DuckDBBackend()
        print(backend.folder, flush=True)
        real = backend.con.execute
        def execute(sql, *args):
            result = real(sql, *args)
            if sql.startswith("COPY"):
                os.kill(os.getpid(), signal.SIGKILL)   # after DuckDB wrote, before the rename
            return result
        backend.con_real = backend.con
        class Con:
            def __getattr__(self, name):
                return getattr(backend.con_real, name)
            def execute(self, sql, *args):
                return execute(sql, *args)
        backend.con = Con()
        backend.write_parquet("SELECT range AS a FROM range(10)", {str(out)!r})
    """)
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == -signal.SIGKILL, done.stderr
    work = Path(done.stdout.strip())
    assert out.read_bytes() == before
    assert any(p.name.endswith(TEMPORARY_SUFFIX) for p in tmp_path.iterdir())   # what the kill left
    assert work.is_dir()                                                        # and its work folder
    from tklscore.core.engines.duckdb_engine import DuckDBBackend, sweep_work_folders

    assert sweep_work_folders(tmp_path / "tmp") == [work] and not work.exists()
    with DuckDBBackend() as backend:
        backend.write_parquet("SELECT 1 AS a", str(out))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.parquet", "tmp"]


# --------------------------------------------------------------------------- DuckDB work folders

def test_the_cli_leaves_no_work_folder(tmp_path, data_dir):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    args = score_args(data_dir, data_dir / "thesis_table_3_1.csv") + ["--engine", "duckdb"]
    done = subprocess.run([sys.executable, "-m", "tklscore", *args], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    bad = subprocess.run([sys.executable, "-m", "tklscore", *args, "--id-column", "nope"], capture_output=True,
                         text=True, env=env)
    assert bad.returncode == 2 and "'nope'" in bad.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_work_folder_is_removed_at_exit_even_unclosed(tmp_path):
    script = ("from tklscore.core.engines.duckdb_engine import DuckDBBackend\n"
              "keep = DuckDBBackend()\nprint(keep.folder)\n")
    env = dict(os.environ, TMPDIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).parent == tmp_path and list(tmp_path.iterdir()) == []


def test_stale_work_folders_are_swept_and_live_ones_kept(tmp_path, monkeypatch):
    from tklscore.core.engines import duckdb_engine
    from tklscore.core.engines.duckdb_engine import WORK_PREFIX, DuckDBBackend

    monkeypatch.setattr(duckdb_engine.tempfile, "tempdir", str(tmp_path))
    dead = tmp_path / f"{WORK_PREFIX}{dead_pid()}-abcd1234"
    dead.mkdir()
    (dead / "work.duckdb").write_bytes(b"x" * 1000)
    (dead / "spill").mkdir()
    (dead / "spill" / "part").write_bytes(b"y")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f"{WORK_PREFIX}{sleeper.pid}-efgh5678"
        live.mkdir()
        reused = tmp_path / f"{WORK_PREFIX}{sleeper.pid}-ijkl9012"   # its pid now belongs to a later process
        reused.mkdir()
        (reused / "owner").write_text(f"{sleeper.pid} 1\n")
        unrelated = tmp_path / "tklscore-duckdb-olderstyle"            # no pid, recently used: kept
        unrelated.mkdir()
        (unrelated / "work.duckdb").write_bytes(b"z")
        abandoned = tmp_path / "tklscore-duckdb-abandoned"             # no pid, untouched for two days
        abandoned.mkdir()
        (abandoned / "work.duckdb").write_bytes(b"z")
        two_days_ago = time.time() - 2 * 24 * 3600
        for path in (abandoned / "work.duckdb", abandoned):
            os.utime(path, (two_days_ago, two_days_ago))
        with DuckDBBackend() as backend:
            mine = backend.folder
            assert mine.parent == tmp_path and mine.name.startswith(f"{WORK_PREFIX}{os.getpid()}-")
        assert not dead.exists() and not reused.exists() and not mine.exists()
        assert live.is_dir() and unrelated.is_dir() and not abandoned.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


# --------------------------------------------------------------------------- project paths

def project_file(folder: Path, source: str, **extra) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = {"format": "tklscore-project", "version": 1, "source": {"path": source},
            "roles": {"qi": ["Job"], "sa": ["Disease"]}, "releases": [], **extra}
    path = folder / "p.tklproj"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("source", ["../../../../../../../../etc/passwd", "/etc/shadow", "link.csv"])
def test_a_project_naming_a_file_outside_its_folder_reads_nothing(tmp_path, source):
    from tklscore.core.project import OutsideFolderError, Project, check_paths

    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "link.csv").symlink_to("/etc/passwd")            # inside by name, outside by what it is
    path = project_file(folder, source)
    project = Project.load(path)                                # reading the project reads only the project
    with pytest.raises(OutsideFolderError) as caught:
        check_paths(project, path)
    error = caught.value
    assert error.file == str(path) and [w for w, _ in error.paths] == ["source table"]
    assert "names 1 file(s) outside its folder, which are read only if you allow them: source table" in str(error)
    assert "root:" not in str(error)
    check_paths(project, path, allowed=[project.source_path])   # allowed: no question


def test_files_inside_the_projects_folder_need_no_question(tmp_path):
    from tklscore.core.project import Project, check_paths

    folder = tmp_path / "project"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "s.csv").write_text("Job,Disease\na,b\n")
    path = project_file(folder, "data/s.csv", releases=[{"name": "r", "kind": "file", "path": "data/s.csv"}],
                        weights={"path": "/etc/passwd"})
    project = Project.load(path)
    assert project.source_path == str(folder / "data" / "s.csv")
    assert project.paths_outside(folder) == [("weights file", "/etc/passwd")]


def test_the_workbench_refuses_and_reads_nothing_until_allowed(qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QStandardPaths

    from tklscore.core.project import OutsideFolderError
    from tklscore.gui.workbench import Workbench

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    QStandardPaths.setTestModeEnabled(True)
    outside = tmp_path / "elsewhere" / "secret.csv"
    outside.parent.mkdir()
    outside.write_text("Job,Disease\nsecret-value,b\n")
    path = project_file(tmp_path / "project", str(outside))
    bench = Workbench()
    bench.autosave_timer.stop()
    read = []
    monkeypatch.setattr("tklscore.gui.workbench.load_table", lambda *a, **k: read.append(a) or None)
    with pytest.raises(OutsideFolderError):
        bench.open_project(str(path))
    assert read == [] and bench.project_path is None and bench.project.source_path is None
    bench.allow_paths(str(path), [str(outside)])
    monkeypatch.undo()
    bench.open_project(str(path))                               # remembered for this project file
    qtbot.waitUntil(lambda: bench.table is not None, timeout=15000)
    assert bench.project.source_path == str(outside)
    bench.runner.cancel_all()


def test_the_window_asks_and_a_no_opens_nothing(qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings, QStandardPaths
    from PySide6.QtWidgets import QMessageBox

    from tklscore.gui.main_window import MainWindow

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    QStandardPaths.setTestModeEnabled(True)
    window = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.workbench.autosave_timer.stop()
    path = project_file(tmp_path / "project", "../../../../../../../../etc/passwd")
    asked: list[str] = []

    def answer(choice):
        def exec_(box):
            asked.append(box.text())
            box.setProperty("clicked", choice)
            for button in box.buttons():
                if button.text() == choice:
                    button.click()
            return 0
        return exec_

    monkeypatch.setattr(QMessageBox, "exec", answer("Do not open"))
    assert not window.open_project(str(path))
    assert "reads files outside its folder" in asked[0] and "source table: /etc/passwd" in asked[0]
    assert "root:" not in asked[0]
    assert window.workbench.project_path is None and window.workbench.project.source_path is None
    assert window.findChild(QMessageBox, "errorDialog") is None
    monkeypatch.setattr(QMessageBox, "exec", answer("Read them and open"))
    assert window.open_project(str(path))
    assert window.workbench.project.source_path == "/etc/passwd" and len(asked) == 2
    window.workbench.runner.wait()
    assert window.open_project(str(path)) and len(asked) == 2   # allowed once: not asked again
    window.workbench.runner.wait()


def test_gui_screenshot_of_a_project_outside_its_folder_refuses(tmp_path):
    path = project_file(tmp_path / "project", "/etc/passwd")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "tklscore", "gui", "--project", str(path), "--screenshot",
                           str(tmp_path / "s.png")], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "names 1 file(s) outside its folder, which are read only if you allow them: source table /etc/passwd" \
        in done.stderr
    assert "root:" not in done.stderr and not (tmp_path / "s.png").exists()
