"""The source's finest aggregate, cached on disk (core/engines/finest.py; issue 23 §1): read
once, reused by the next designer of the same file and roles, rebuilt — never used — when it
no longer matches its file, and a full disk while writing it leaves the source and earlier
outputs untouched and says what ran out. Every evaluation over it gives the in-memory
designer's numbers."""

from __future__ import annotations

import json
import os

import pytest

from tklscore.cli.main import main
from tklscore.core import Roles, load_table, load_weights
from tklscore.core.engines import open_backend
from tklscore.core.engines.design import EngineDesigner
from tklscore.core.engines.finest import Fingerprint, cache_folder
from tklscore.core.files import atomic
from tklscore.core.release.designer import ReleaseDesigner
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.transform import ReleaseDesign
from test_engine_design import assert_same

ROLES = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Medication", "Age", "Initial Diagnosis"],
              continuous=["Age"], identifier="id")
HIERARCHIES = {"City": Hierarchy.groups("City", [{"Alberta": ["Calgary", "Edmonton"]}]),
               "Age": Hierarchy.intervals("Age", [10, 20])}
DESIGN = ReleaseDesign("d", {"City": 1, "Age": 1}, 2, 0.5, ["Gender"])


@pytest.fixture
def source(tmp_path, data_dir):
    path = tmp_path / "source.csv"
    path.write_bytes((data_dir / "thesis_table_3_1.csv").read_bytes())
    return path


@pytest.fixture
def weights(data_dir):
    return load_weights(data_dir / "thesis_table_4_2_weights.csv")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("TKLSCORE_CACHE_DIR", str(folder))
    return folder


def evaluate(path, weights, design=DESIGN, **options):
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(path), ROLES, HIERARCHIES, **options)
        result = designer.evaluate(design, weights, preview=20)
        return designer.finest, result, designer.published_ids()


def in_memory(path, weights, design=DESIGN):
    return ReleaseDesigner(load_table(path), ROLES, HIERARCHIES).evaluate(design, weights)


def same(result, memory):
    a, b = result.to_json_dict(), memory.to_json_dict()
    a.pop("notes"), b.pop("notes")
    assert_same(a, b)


def test_the_aggregate_is_built_once_and_reused(source, weights, cache):
    first, result, ids = evaluate(source, weights)
    assert not first.reused and first.path is not None and first.path.parent == cache
    assert first.records == 7 and 0 < first.rows <= 7
    assert sorted(p.name.split(".", 1)[1] for p in cache.iterdir()) == ["json", "parquet", "totals.json"]
    totals = json.loads(next(cache.glob("*.totals.json")).read_text())    # the whole source's, per weights
    assert [t["totals"]["n"] for t in totals.values()] == [7]
    assert "computed and cached" in first.note
    second, again, ids_again = evaluate(source, weights)
    assert second.reused and second.path == first.path and "reused from the cache" in second.note
    memory = in_memory(source, weights)
    same(result, memory), same(again, memory)
    assert ids == ids_again == [str(i) for i in memory.transformed.source.frame["id"].iloc[
        memory.transformed.published]]
    assert again.preview.equals(result.preview)


def test_other_roles_or_reading_options_have_their_own_aggregate(source, weights, cache):
    evaluate(source, weights)
    with open_backend("duckdb") as backend:
        roles = Roles(qi=["Job", "City"], sa=ROLES.sa, continuous=["Age"], identifier="id")
        other = EngineDesigner(backend, str(source), roles, HIERARCHIES).finest
    assert not other.reused and len(list(cache.glob("*.parquet"))) == 2


@pytest.mark.parametrize("change", ["content", "same size and time", "appended"])
def test_a_cache_that_no_longer_matches_its_file_is_rebuilt_never_used(source, weights, cache, change):
    first, _, _ = evaluate(source, weights)
    text = source.read_text(encoding="utf-8")
    stat = source.stat()
    if change == "appended":
        source.write_text(text + "7,Lawyer,Calgary,Female,H1N1,Tamiflu,65,Flu\n", encoding="utf-8")
    else:
        changed = text.replace(",27,", ",72,", 1)
        assert len(changed) == len(text)
        source.write_text(changed, encoding="utf-8")
        if change == "same size and time":    # the hash of the first block tells it
            os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            assert source.stat().st_size == stat.st_size and source.stat().st_mtime_ns == stat.st_mtime_ns
    second, result, _ = evaluate(source, weights)
    assert not second.reused and "computed and cached" in second.note
    same(result, in_memory(source, weights))
    assert second.records == (8 if change == "appended" else 7) == first.records + (change == "appended")
    # the stale aggregate is gone, the new one kept: one per (file, roles)
    assert len(list(cache.glob("*.parquet"))) == 1 and len(list(cache.glob("*.totals.json"))) == 1
    totals = json.loads(next(cache.glob("*.totals.json")).read_text())
    assert [t["totals"]["n"] for t in totals.values()] == [second.records]
    assert json.loads(next(p for p in cache.glob("*.json") if ".totals" not in p.name).read_text())[
        "source"]["size"] == source.stat().st_size


@pytest.mark.parametrize("damage", ["parquet garbage", "parquet missing", "record missing", "record of another file"])
def test_a_damaged_cache_is_rebuilt(source, weights, cache, damage):
    first, _, _ = evaluate(source, weights)
    meta = first.path.with_suffix(".json")
    assert meta.exists()
    if damage == "parquet garbage":
        first.path.write_bytes(b"PAR1 not parquet at all")
    elif damage == "parquet missing":
        first.path.unlink()
    elif damage == "record missing":
        meta.unlink()
    else:
        kept = json.loads(meta.read_text())
        kept["records"] = 8
        meta.write_text(json.dumps(kept))
    second, result, _ = evaluate(source, weights)
    assert not second.reused and "computed and cached" in second.note
    same(result, in_memory(source, weights))
    third, _, _ = evaluate(source, weights)
    assert third.reused


def test_a_full_disk_while_caching_says_what_ran_out_and_loses_nothing(source, weights, cache, tmp_path,
                                                                       monkeypatch):
    earlier = tmp_path / "release.csv"
    earlier.write_text("an earlier output\n", encoding="utf-8")
    before = source.read_bytes()

    def full(*_args):
        raise OSError(28, os.strerror(28))
    monkeypatch.setattr(atomic, "_fsync", full)
    finest, result, _ = evaluate(source, weights)
    assert not finest.reused and finest.path is None
    assert f"not cached: disk full in {cache} (no space left on the device)" in finest.note
    assert "source and earlier outputs are untouched" in finest.note
    same(result, in_memory(source, weights))
    assert source.read_bytes() == before and earlier.read_text(encoding="utf-8") == "an earlier output\n"
    assert [p for p in cache.iterdir() if not p.name.startswith(".")] == []
    assert [p.name for p in cache.iterdir()] == []     # no temporary file left either
    monkeypatch.undo()
    monkeypatch.setenv("TKLSCORE_CACHE_DIR", str(cache))
    again, _, _ = evaluate(source, weights)
    assert not again.reused and again.path is not None


def test_a_cache_folder_that_cannot_be_written_is_said(source, weights, tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("TKLSCORE_CACHE_DIR", str(blocked / "cache"))
    finest, result, _ = evaluate(source, weights)
    assert "not cached: cannot write in" in finest.note
    same(result, in_memory(source, weights))


def test_without_the_cache_nothing_is_written(source, weights, cache):
    finest, result, _ = evaluate(source, weights, cache=False)
    assert not cache.exists() and finest.path is None and "not cached" in finest.note
    same(result, in_memory(source, weights))


def test_a_reused_aggregate_is_read_from_a_file_the_cache_cannot_take_away(source, weights, cache):
    """Reused, the aggregate is a view over the cache file held in the engine's work folder
    (not copied into a table): a cache removed or rebuilt meanwhile changes nothing."""
    evaluate(source, weights)
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(source), ROLES, HIERARCHIES)
        assert designer.finest.reused
        assert backend.fetch("SELECT table_type FROM information_schema.tables WHERE table_name = 'fin'")[
            "table_type"].tolist() == ["VIEW"]
        cached = designer.finest.path
        garbage = cached.with_name("other.parquet")
        garbage.write_bytes(b"PAR1 not parquet at all")
        os.replace(garbage, cached)     # replaced under it, as the cache writes a file (atomically)
        result = designer.evaluate(DESIGN, weights)
        cached.unlink()                 # then removed, as a stale cache is
        again = designer.evaluate(DESIGN, weights)
    memory = in_memory(source, weights)
    same(result, memory), same(again, memory)


def test_designs_that_need_the_records_still_read_them(source, weights, cache):
    from tklscore.core.release.selection import ReleaseDefinition

    evaluate(source, weights)
    some = ReleaseDesign("d", {"City": 1}, 2, 0.5, selection=ReleaseDefinition(
        "Some", "filter", expression="Gender == 'Female' or Age >= 60"))
    finest, result, ids = evaluate(source, weights, some)
    assert finest.reused
    memory = in_memory(source, weights, some)
    same(result, memory)
    assert ids == [str(i) for i in memory.transformed.source.frame["id"].iloc[memory.transformed.published]]


def test_the_fingerprint_reads_only_the_ends(tmp_path):
    big = tmp_path / "big.bin"
    big.write_bytes(b"a" * (3 << 20))
    first = Fingerprint.of(big)
    with open(big, "r+b") as handle:     # the middle changes, size and time kept: not seen (documented)
        handle.seek(3 << 19)
        handle.write(b"b")
    os.utime(big, ns=(first.mtime_ns, first.mtime_ns))
    assert Fingerprint.of(big) == first
    with open(big, "r+b") as handle:
        handle.seek((3 << 20) - 1)
        handle.write(b"b")
    os.utime(big, ns=(first.mtime_ns, first.mtime_ns))
    assert Fingerprint.of(big) != first


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TKLSCORE_CACHE_DIR", str(tmp_path / "x"))
    assert cache_folder() == tmp_path / "x"
    monkeypatch.delenv("TKLSCORE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_folder() == tmp_path / "xdg" / "tklscore" / "aggregates"


def test_the_cli_says_when_the_cache_is_reused(source, data_dir, cache, tmp_path, capsys):
    hierarchy = tmp_path / "city.json"
    hierarchy.write_text(json.dumps(HIERARCHIES["City"].to_dict()))
    args = ["release", str(source), "--id-column", "id", "--qi", "Job,City,Gender",
            "--sa", "Disease,Medication,Age,Initial Diagnosis", "--continuous", "Age",
            "--weights", str(data_dir / "thesis_table_4_2_weights.csv"), "--hierarchy", f"City={hierarchy}",
            "--levels", "City=1", "--engine", "duckdb", "--format", "json"]
    assert main(args) == 0
    first = capsys.readouterr()
    assert "aggregate" not in first.err
    assert main(args) == 0
    second = capsys.readouterr()
    assert "tklscore: note: aggregate of the source reused from the cache (" in second.err
    assert " of 7 records; " in second.err
    assert json.loads(second.out) == json.loads(first.out)


@pytest.fixture
def repeated(tmp_path, data_dir):
    """The thesis table four times over (new ids): 28 records in 6 combinations, an
    aggregate that pays for itself."""
    lines = (data_dir / "thesis_table_3_1.csv").read_text().splitlines()
    rows = [line.split(",", 1)[1] for line in lines[1:]]
    path = tmp_path / "repeated.csv"
    path.write_text("\n".join([lines[0]] + [f"{n},{row}" for n, row in enumerate(rows * 4)]) + "\n")
    return path


def score_args(path, data_dir):
    return ["score", str(path), "--rows", "1,3,4,6", "--id-column", "id", "--qi", "Job,City,Gender",
            "--sa", "Disease,Medication,Age,Initial Diagnosis", "--continuous", "Age",
            "--weights", str(data_dir / "thesis_table_4_2_weights.csv"), "--format", "json"]


def same_scores(engine, memory):
    assert [r["id"] for r in engine["records"]] == [r["id"] for r in memory["records"]] == ["1", "3", "4", "6"]
    for got, expected in zip(engine["records"], memory["records"]):
        assert got.pop("id") == expected.pop("id")
        assert got == pytest.approx(expected, rel=1e-12)
    for key, value in memory["scores"].items():
        assert engine["scores"][key] == pytest.approx(value, rel=1e-12)


def test_a_second_score_reuses_the_aggregate_and_says_so(repeated, data_dir, cache, capsys):
    """``score --engine duckdb`` scores the whole source over the finest aggregate when it
    pays for itself (6 combinations of 28 records), kept for the next score (and design) of
    the same file and roles: the same numbers as memory."""
    args = score_args(repeated, data_dir)
    assert main(args) == 0
    memory = json.loads(capsys.readouterr().out)
    assert main(args + ["--engine", "duckdb"]) == 0
    first = capsys.readouterr()
    assert "aggregate" not in first.err
    assert len(list(cache.glob("*.parquet"))) == 1
    assert main(args + ["--engine", "duckdb"]) == 0
    second = capsys.readouterr()
    assert "tklscore: note: aggregate of the source reused from the cache (6 combinations of 28 records; " \
        in second.err
    assert json.loads(second.out) == json.loads(first.out)
    same_scores(json.loads(first.out), memory)
    # a design of the same file and roles reuses the aggregate the score kept
    with open_backend("duckdb") as backend:
        assert EngineDesigner(backend, str(repeated), ROLES, HIERARCHIES).finest.reused


def test_a_score_whose_aggregate_would_not_pay_reads_the_file_once_and_says_so(source, data_dir, cache, capsys):
    """6 combinations of 7 records: more than half, so the score reads the records in one
    pass, builds and keeps no aggregate, and says so; the numbers are memory's."""
    args = score_args(source, data_dir)
    assert main(args) == 0
    memory = json.loads(capsys.readouterr().out)
    assert main(args + ["--engine", "duckdb"]) == 0
    first = capsys.readouterr()
    assert ("tklscore: note: aggregate of the source not built: about 6 combinations of 7 records, more than 50% "
            "of them, so a cache would not pay for itself; scored from the file in one pass") in first.err
    assert not cache.exists() or not list(cache.iterdir())
    same_scores(json.loads(first.out), memory)
    # a designer works over the aggregate whatever its size, and keeps it: the next score uses it
    with open_backend("duckdb") as backend:
        assert not EngineDesigner(backend, str(source), ROLES, HIERARCHIES).finest.reused
    assert main(args + ["--engine", "duckdb"]) == 0
    again = capsys.readouterr()
    assert "tklscore: note: aggregate of the source reused from the cache (6 combinations of 7 records; " in again.err
    assert json.loads(again.out) == json.loads(first.out)


def test_the_rule_of_a_paying_aggregate():
    from tklscore.core.engines.finest import PAYS_AT, pays

    assert PAYS_AT == 0.5
    assert pays(1, 2) and pays(500_000, 1_000_000) and pays(1, 1_000_000)
    assert not pays(500_001, 1_000_000) and not pays(998_622, 1_000_000) and not pays(7, 7)


def materialized(backend) -> list[str]:
    """The names of the relations ``backend`` writes from now on, in order."""
    written, materialize = [], backend.materialize
    backend.materialize = lambda name, sql, params=None: (written.append(name), materialize(name, sql, params))
    return written


def test_a_parquet_source_is_read_into_the_aggregate_with_every_check(tmp_path, weights, cache):
    """A Parquet source read into the aggregate: the same numbers, and the records' checks
    still name the cell."""
    import pandas as pd

    from tklscore.core.errors import InputError

    frame = pd.read_csv(os.path.join(os.path.dirname(__file__), "..", "data", "thesis_table_3_1.csv"), dtype=str)
    path = tmp_path / "source.parquet"
    frame.to_parquet(path, index=False)
    with open_backend("duckdb") as backend:
        written = materialized(backend)
        designer = EngineDesigner(backend, str(path), ROLES, HIERARCHIES)
        result = designer.evaluate(DESIGN, weights, preview=20)
        assert not designer.finest.reused and designer.finest.records == 7
        # read once, straight into the cached aggregate: neither the records nor the aggregate are
        # copied into the engine (the aggregate is read from the cache file)
        assert "fin" not in written and "src" not in written and designer.finest.path.exists()
    same(result, in_memory(path, weights))
    csv = tmp_path / "source.csv"
    frame.to_csv(csv, index=False)
    with open_backend("duckdb") as backend:
        written = materialized(backend)
        EngineDesigner(backend, str(csv), ROLES, HIERARCHIES)
        assert "src" in written     # a CSV file is parsed once, into a copy the checks and the aggregate read
    for column, value, said in (("Age", "old", "continuous column holds 'old'"), ("id", "3", "identifier '3' appears 2")):
        bad = frame.copy()
        bad.loc[4, column] = value
        bad.to_parquet(path, index=False)
        with open_backend("duckdb") as backend, pytest.raises(InputError) as error:
            EngineDesigner(backend, str(path), ROLES, HIERARCHIES, cache=False)
        assert said in str(error.value)


def _small_parquet(path, damaged: bool):
    """2,000 rows of id, q and s; ``damaged``: a data page of s overwritten, which the checks
    never read (they read statistics and other columns)."""
    import numpy as np
    import pandas as pd
    import pyarrow.parquet as pq

    rng = np.random.default_rng(1)
    pd.DataFrame({"id": [f"r{i}" for i in range(2000)], "q": rng.choice(list("abc"), 2000),
                  "s": rng.choice(["x", "y", "z"], 2000)}).to_parquet(path, index=False, compression="snappy")
    if damaged:
        page = pq.ParquetFile(path).metadata.row_group(0).column(2).data_page_offset    # column s
        data = bytearray(path.read_bytes())
        data[page + 40:page + 70] = b"\xff" * 30
        path.write_bytes(bytes(data))
    return path


def test_a_damaged_page_is_named_as_the_source_s_and_out_of_memory_as_the_limit_s(tmp_path, cache, capsys):
    """``suggest --engine duckdb`` as a user runs it. A Parquet source with a damaged data page,
    met while its aggregate is written straight to the cache file: the error names the source
    file as damaged, not the cache file, and leaves no cache file to reuse. A sound file under a
    memory limit DuckDB cannot meet: said as memory running out — the limit, the remedy —, never
    as a damaged file; exit status 2, no traceback."""
    from helpers import run_cli

    weights = tmp_path / "w.csv"
    weights.write_text("attribute,value,weight\ns,x,0.1\ns,y,0.2\ns,z,0.3\n")
    damaged = _small_parquet(tmp_path / "damaged.parquet", damaged=True)
    sound = _small_parquet(tmp_path / "sound.parquet", damaged=False)
    args = ["--qi", "q", "--sa", "s", "--weights", weights, "--k", "2", "--engine", "duckdb"]
    for _ in range(2):    # the second run reads the file again: nothing was kept
        code, out, err = run_cli(capsys, ["suggest", damaged, *args, "--memory-limit", "1GB"])
        assert code == 2 and out == "" and "Traceback" not in err
        assert err.startswith(f"tklscore: error: {damaged}: cannot be read: a part of the file is damaged"), err
        assert not [p for p in cache.glob("*") if p.suffix in (".parquet", ".json")]
    code, out, err = run_cli(capsys, ["suggest", sound, *args, "--memory-limit", "1MB"])
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"tklscore: error: DuckDB ran out of memory while reading {sound} and writing "), err
    assert "under its memory limit of 1.0 MiB (--memory-limit): nothing is wrong with the files" in err
    assert "give a larger --memory-limit (this machine has " in err and "for DuckDB's spill" in err
    assert "is damaged" not in err and "internal error" not in err


def test_out_of_memory_in_any_statement_is_said_as_such(tmp_path):
    """Memory running out in a statement that is not a copy (a fetch; one run under a file's
    name, which said "cannot be read" before): the limit the engine had, not the file."""
    from tklscore.core.errors import InputError

    path = _small_parquet(tmp_path / "sound.parquet", damaged=False)
    with open_backend("duckdb", memory_limit="1MB") as backend:
        backend.scan(str(path))
        big = "SELECT string_agg(s || id, ',' ORDER BY id) AS t FROM range(200000) r, __scan"
        with pytest.raises(InputError) as fetched:
            backend.fetch(big)
        with pytest.raises(InputError) as run:
            backend.run("cannot be read", str(path), lambda: backend.fetch(big))
    for error in (fetched.value, run.value):
        assert error.file is None and "cannot be read" not in str(error)
        assert str(error).startswith(f"DuckDB ran out of memory while working on {path}, under its memory limit "
                                     f"of 1.0 MiB (--memory-limit)"), str(error)


def test_out_of_memory_under_a_lowered_limit_names_it_and_the_users():
    """While a search holds the rest of --memory-limit, DuckDB runs under its share: the
    message gives that limit beside the user's, and the user's alone once it is restored."""
    with open_backend("duckdb", memory_limit="30MB") as backend:
        assert backend.engine_memory(3 << 20)
        lowered = str(backend.out_of_memory(RuntimeError("Out of Memory Error"), "counting"))
        assert backend.engine_memory(None)
        restored = str(backend.out_of_memory(RuntimeError("Out of Memory Error"), "counting"))
    assert "under its memory limit of 3.0 MiB (the engine's share of --memory-limit 28.0 MiB)" in lowered, lowered
    assert "under its memory limit of 28.0 MiB (--memory-limit)" in restored, restored


def test_rows_of_the_aggregate_are_coded_ungrouped_only_when_each_is_a_combination(tmp_path, data_dir, weights,
                                                                                   cache):
    """The whole source's combinations are the aggregate's rows coded as they are when no two
    rows share their QI and SA values; two texts of one number of a continuous SA (``27``
    and ``27.0``) are two rows of one combination, grouped again: memory's numbers either way."""
    from tklscore.core.engines.finest import rows_are_combinations

    lines = (data_dir / "thesis_table_3_1.csv").read_text().splitlines()   # 7 records, 6 distinct
    twin = lines[1].split(",")          # 0,Lawyer,Calgary,Male,H1N1,Tamiflu,27,Flu
    twin[0], twin[6] = "99", twin[6] + ".0"
    for path, rows in ((tmp_path / "distinct.csv", lines), (tmp_path / "twins.csv", lines + [",".join(twin)])):
        path.write_text("\n".join(rows) + "\n")
        with open_backend("duckdb") as backend:
            designer = EngineDesigner(backend, str(path), ROLES, HIERARCHIES)
            assert rows_are_combinations(backend, ROLES) == (path.name == "distinct.csv")
            assert designer.finest.rows == (6 if path.name == "distinct.csv" else 7)
            result = designer.evaluate(DESIGN, weights, preview=20)
        same(result, in_memory(path, weights))
