"""Per-record results kept on disk (core/engines/record_store.py): a release scored out of
core with ``stream`` holds its totals and a :class:`RecordStore` whose records equal the
in-memory engine's (1e-12); pages in published order and sorted, the top-N, the riskiest
border, chart points and running scores equal what memory computes from all records; the
CLI's CSV, JSON and table outputs stream from the store with the same text as in memory; a
full disk while writing keeps the earlier output and says what ran out."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers import run_cli
from tklscore.core import InputError, Roles
from tklscore.core.engines import record_store
from tklscore.core.engines.record_store import POSITION, RecordStore
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.report.charts import PER_RECORD_KEYS, SORT_THESIS, SORT_TKL, per_record_order
from tklscore.core.scoring.scores import RECORD_COLUMNS, cumulative_table_scores, riskiest_count
from tklscore.core.scoring.weights import Weights, WeightsPerScore
from tklscore.core.source import open_source

TOLERANCE = 1e-12
ROLES = Roles(qi=["q0", "q1"], sa=["s0", "s1"], continuous=["s1"], identifier="id")
WEIGHTS = Weights.derived(["s0"] * 3 + ["s1"] * 2, ["a", "b", "c", "[0,25)", "[25,100)"],
                          [0.1, 0.2, 0.3, 0.25, 0.4])
OTHER = Weights.derived(["s0"] * 3 + ["s1"], ["a", "b", "c", "[0,100)"], [0.5, 0.05, 0.3, 0.6])


def random_source(path, seed: int, n: int = 3000):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(n)], "q0": rng.integers(0, 6, n).astype(str),
                          "q1": rng.choice(["x", "y", "z", "w"], n), "s0": rng.choice(["a", "b", "c"], n),
                          "s1": rng.integers(0, 60, n)})
    frame.to_parquet(path, index=False)
    return frame


def scored(path, definition, weights, x=1.0):
    memory = open_source(path, ROLES, engine="memory").score(definition, weights, x)
    with open_source(path, ROLES, engine="duckdb").session() as session:
        streamed = session.score(definition, weights, x, stream=True)
    return memory, streamed


def assert_same_records(stored: pd.DataFrame, memory: pd.DataFrame) -> None:
    assert stored["id"].tolist() == memory["id"].tolist()
    assert stored["k"].tolist() == memory["k"].tolist() and stored["l"].tolist() == memory["l"].tolist()
    for column in ("t", "weight_sum", "tkl", "m_score", "l_severity"):
        np.testing.assert_allclose(stored[column].to_numpy(float), memory[column].to_numpy(float), rtol=TOLERANCE,
                                   atol=TOLERANCE, err_msg=column)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_streamed_records_equal_the_in_memory_engine(tmp_path, seed):
    path = tmp_path / "s.parquet"
    random_source(path, seed)
    definition = ReleaseDefinition("part", "filter", expression="q0 != '1' and s1 >= 5")
    memory, streamed = scored(path, definition, WEIGHTS, x=2.0)
    store = streamed.stored
    assert streamed.records.empty and len(store) == streamed.published_rows == memory.published_rows > 1000
    for name in ("scores", "normalized_source", "normalized_max"):
        ours, theirs = getattr(streamed, name).as_dict(), getattr(memory, name).as_dict()
        assert ours == pytest.approx(theirs, rel=TOLERANCE, abs=TOLERANCE)
    assert_same_records(store.read_all(), memory.records)
    folder = store.folder
    assert folder.is_dir()
    store.close()
    assert not folder.exists()


def test_each_score_with_its_own_weights_streams_the_merged_records(tmp_path):
    path = tmp_path / "s.parquet"
    random_source(path, 4)
    definition = ReleaseDefinition("ids", "ids", ids=tuple(f"r{i}" for i in range(0, 3000, 3)))
    per_score = WeightsPerScore(WEIGHTS, OTHER, OTHER)
    memory = open_source(path, ROLES, engine="memory").score(definition, per_score, 1.0, missing_weight_zero=True)
    with open_source(path, ROLES, engine="duckdb").session() as session:
        streamed = session.score(definition, per_score, 1.0, missing_weight_zero=True, stream=True)
    assert streamed.scores.as_dict() == pytest.approx(memory.scores.as_dict(), rel=TOLERANCE)
    assert_same_records(streamed.stored.read_all(), memory.records)


@pytest.fixture
def stores(tmp_path):
    """The in-memory records of a release, and the same records as a store in small row
    groups (one file) and as a Spark-like folder of three part files."""
    path = tmp_path / "s.parquet"
    random_source(path, 7, n=800)
    definition = ReleaseDefinition("part", "filter", expression="q1 != 'w'")
    memory = open_source(path, ROLES, engine="memory").score(definition, WEIGHTS)
    records = memory.records.reset_index(drop=True)
    table = pa.Table.from_pandas(records, preserve_index=False)
    pq.write_table(table, tmp_path / "groups.parquet", row_group_size=37)
    folder = tmp_path / "parts.parquet"
    folder.mkdir()
    (folder / "_SUCCESS").write_text("")
    cuts = [0, 100, 101, len(records)]
    for i in range(3):
        pq.write_table(table.slice(cuts[i], cuts[i + 1] - cuts[i]), folder / f"part-{i:05d}.parquet")
    made = [RecordStore(tmp_path / "groups.parquet"), RecordStore(folder)]
    yield records, made
    for store in made:
        store.close()


def test_pages_in_published_order_and_sorted(stores):
    records, made = stores
    n = len(records)
    for store in made:
        assert len(store) == n
        assert_same_records(store.head(5), records.iloc[:5])
        for offset, limit in ((0, 1), (36, 3), (99, 5), (n - 4, 10), (n + 5, 3)):
            page = store.page(offset, limit)
            expected = records.iloc[offset:offset + limit]
            assert page[POSITION].tolist() == list(range(offset, min(n, offset + limit)))
            assert_same_records(page, expected)
        for column, descending in (("tkl", True), ("l_severity", False), ("id", False), ("k", True)):
            order = np.argsort(records[column].to_numpy(), kind="stable")
            if descending:   # ties: the earlier published first
                values = records[column].to_numpy()
                order = np.lexsort((np.arange(n), -values))
            page = store.page(40, 25, column, descending)
            assert page[POSITION].tolist() == order[40:65].tolist()
            assert_same_records(page, records.iloc[order[40:65]])
        top = store.top(10)
        assert top["tkl"].tolist() == sorted(records["tkl"], reverse=True)[:10]


def test_the_riskiest_border_marks_exactly_the_riskiest_records(stores):
    records, made = stores
    for store in made:
        border = store.riskiest()
        mask = border.mask(records["tkl"], np.arange(len(records)))
        assert border.count == riskiest_count(len(records)) == mask.sum()
        assert records["tkl"][mask].min() >= records["tkl"][~mask].max()


def test_chart_points_and_running_scores_equal_memory(stores):
    records, made = stores
    n = len(records)
    ranks = np.unique(np.linspace(0, n - 1, 50).round().astype(np.int64))
    for store in made:
        for kind in (SORT_THESIS, SORT_TKL):
            points = store.at_ranks(PER_RECORD_KEYS[kind], ranks, ["id", "tkl", "m_score", "l_severity"])
            order = per_record_order(records, kind)
            assert points["rank"].tolist() == ranks.tolist()
            assert points["id"].tolist() == records["id"].to_numpy()[order[ranks]].tolist()
        for x in (1.0, 3.0, math.inf):
            grown = store.cumulative_at(ranks, x)
            whole = cumulative_table_scores(records, x)
            for key in ("tkl", "m_score", "l_severity"):
                np.testing.assert_array_equal(grown[key], whole[key][ranks])   # the same sums, bit for bit


def test_column_names_are_whitelisted(stores):
    _records, made = stores
    with pytest.raises(ValueError, match="no per-record column"):
        made[0].page(0, 3, 'tkl" DESC; DROP TABLE x; --')


# --------------------------------------------------------------------------- the CLI streams

def cli_args(path, fmt, engine):
    return ["score", path, "--filter", "q0 != '2'", "--id-column", "id", "--qi", "q0,q1", "--sa", "s0,s1",
            "--continuous", "s1", "--weights", path.parent / "w.csv", "--format", fmt, "--engine", engine]


@pytest.fixture
def cli_source(tmp_path):
    path = tmp_path / "s.parquet"
    random_source(path, 11, n=500)
    (tmp_path / "w.csv").write_text("attribute,value,weight\ns0,a,0.1\ns0,b,0.2\ns0,c,0.3\ns1,\"[0,25)\",0.25\n"
                                    "s1,\"[25,100)\",0.4\n")
    return path


@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_cli_outputs_stream_from_the_store_with_the_in_memory_text(capsys, monkeypatch, cli_source, fmt):
    monkeypatch.setattr(record_store, "BATCH_ROWS", 17)   # many batches
    code, memory, err = run_cli(capsys, cli_args(cli_source, fmt, "memory"))
    assert code == 0, err
    read = []
    real = RecordStore.read_all
    monkeypatch.setattr(RecordStore, "read_all", lambda self: read.append(1) or real(self))
    code, streamed, err = run_cli(capsys, cli_args(cli_source, fmt, "duckdb"))
    assert code == 0, err
    assert same_output(streamed, memory, fmt) and not read
    out = cli_source.parent / f"records.{fmt}"
    code, _, err = run_cli(capsys, cli_args(cli_source, fmt, "duckdb") + ["--output", out])
    assert code == 0, err
    assert same_output(out.read_text(encoding="utf-8"), memory, fmt)


def same_output(streamed: str, memory: str, fmt: str) -> bool:
    """The same text; in JSON the same records, and table totals equal to 1e-12 (the engine
    adds them in another order: their last digit may differ)."""
    if fmt != "json":
        return streamed == memory
    import json

    ours, theirs = json.loads(streamed), json.loads(memory)
    assert streamed.count("\n") == memory.count("\n")
    assert ours.pop("records") == theirs.pop("records")
    for key in ("scores",):
        assert ours[key] == pytest.approx(theirs[key], rel=TOLERANCE)
    return True


def test_a_full_disk_while_writing_the_records_keeps_the_earlier_output(capsys, monkeypatch, cli_source):
    import errno
    import os

    out = cli_source.parent / "records.csv"
    out.write_text("the earlier records\n")

    real = os.fsync

    def full(fd):   # the disk fills up as the CSV is written beside records.csv (the work file fitted)
        if os.readlink(f"/proc/self/fd/{fd}").startswith(str(out.parent)):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd)
    monkeypatch.setattr(os, "fsync", full)
    code, _, err = run_cli(capsys, cli_args(cli_source, "csv", "duckdb") + ["--output", out])
    assert code == 2 and f"disk full writing {out}" in err and "kept" in err and "Traceback" not in err, err
    assert out.read_text() == "the earlier records\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["records.csv", "s.parquet", "w.csv"]


def test_a_full_disk_in_the_work_folder_says_so_and_leaves_nothing(tmp_path, monkeypatch):
    import duckdb

    from tklscore.core.engines import duckdb_engine

    path = tmp_path / "s.parquet"
    random_source(path, 5, n=200)
    real = duckdb_engine.DuckDBBackend._copy

    def full(self, sql, target, options, reads=None):
        if target.endswith("records.parquet"):
            raise duckdb_engine.InputError(*duckdb_engine.write_error(
                duckdb.IOException("IO Error: No space left on device"), target).args)
        return real(self, sql, target, options, reads)
    monkeypatch.setattr(duckdb_engine.DuckDBBackend, "_copy", full)
    before = set(p.name for p in duckdb_engine.Path(duckdb_engine.tempfile.gettempdir()).iterdir()
                 if p.name.startswith(f"{duckdb_engine.WORK_PREFIX}{os_pid()}-"))
    with open_source(path, ROLES, engine="duckdb").session() as session:
        with pytest.raises(InputError, match=r"^disk full keeping the per-record results in the temporary folder .*"
                                             r"the source and the earlier outputs are untouched"):
            session.score(ReleaseDefinition("all", "filter", expression="q0 != '9'"), WEIGHTS, stream=True)
        after = set(p.name for p in duckdb_engine.Path(duckdb_engine.tempfile.gettempdir()).iterdir()
                    if p.name.startswith(f"{duckdb_engine.WORK_PREFIX}{os_pid()}-"))
        assert len(after - before) == 1   # the session's own work folder; the records' folder is gone
    assert path.stat().st_size > 0


def os_pid() -> int:
    import os

    return os.getpid()


def test_cli_report_out_of_core_reads_the_store(capsys, cli_source):
    """``tklscore report --engine duckdb``: the per-record CSV written from the store, the HTML's
    riskiest records and charts as in memory."""
    def report_args(out, engine):
        return ["report", cli_source, "--filter", "q0 != '2'", "--id-column", "id", "--qi", "q0,q1", "--sa", "s0,s1",
                "--continuous", "s1", "--weights", cli_source.parent / "w.csv", "--engine", engine, "--output", out]
    texts = {}
    for engine in ("memory", "duckdb"):
        for suffix in ("csv", "html"):
            out = cli_source.parent / f"{engine}.{suffix}"
            code, _, err = run_cli(capsys, report_args(out, engine))
            assert code == 0, err
            texts[engine, suffix] = out
    ours = pd.read_csv(texts["duckdb", "csv"], dtype={"id": str})
    theirs = pd.read_csv(texts["memory", "csv"], dtype={"id": str})[list(ours.columns)]
    pd.testing.assert_frame_equal(ours, theirs, rtol=TOLERANCE)
    html = {e: texts[e, "html"].read_text(encoding="utf-8") for e in ("memory", "duckdb")}
    riskiest = {e: h.split("Per-record scores (riskiest by tkl first)")[1].split("</table>")[0] for e, h in html.items()}
    assert riskiest["duckdb"] == riskiest["memory"]
    assert html["duckdb"].count("How the scores grow as records are added") >= 1


def test_a_few_records_kept_on_disk_are_charted_by_id_as_in_memory(capsys, tmp_path, data_dir):
    """The report's per-record chart of the thesis' release: out of core, every record is read,
    so the axis names each record by its id, as in memory (the text above it says so)."""
    args = ["report", data_dir / "thesis_table_3_1.csv", "--published", data_dir / "thesis_table_3_6_published.csv",
            "--id-column", "id", "--qi", "Job,City,Gender", "--sa", "Disease,Medication,Age,Initial Diagnosis",
            "--continuous", "Age", "--weights", data_dir / "thesis_table_4_2_weights.csv"]
    charts = {}
    for engine in ("memory", "duckdb"):
        out = tmp_path / f"{engine}.html"
        code, _, err = run_cli(capsys, [*args, "--engine", engine, "--output", out])
        assert code == 0, err
        html = out.read_text(encoding="utf-8")
        charts[engine] = html.split("Per-record scores ÷ the whole source table", 1)[1].split("</svg>")[0]
    assert "Published record, by id" in charts["duckdb"]
    assert charts["duckdb"] == charts["memory"]
