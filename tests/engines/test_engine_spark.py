"""The Spark back-end (local[2], one session for the module, bound to 127.0.0.1, no UI)
gives the in-memory engine's scores: the thesis oracles, random tables (hypothesis, a
few: Spark is slow to start), a Parquet source with the records written by Spark, output
folders; and its bad input (no PySpark, no Java, a master that is not a URL). The measures,
designs, disclosure risk, sources and filters on Spark are in test_engine_spark_lenses.py:
two modules, so that under xdist each worker runs one with a session of its own."""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import run_cli
from test_engine_filter import assert_quotes_select_as_in_memory
from test_engines import QI, ROLES, SA, assert_same_report, tables
from tklscore.core import InputError, Roles, Scorer, Weights, load_table, load_weights, locate_by_ids
from tklscore.core.engines import score_files
from tklscore.core.engines import spark_engine
from tklscore.core.engines.spark_engine import SparkBackend, check_master, require_spark


def spark_score(session, *args, **kwargs):
    with SparkBackend(session=session) as backend:
        return score_files("spark", *args, backend=backend, **kwargs)


def test_session_is_local_and_quiet(spark):
    conf = spark.sparkContext.getConf()
    assert spark.sparkContext.master == "local[2]"
    assert conf.get("spark.driver.host") == "127.0.0.1" and conf.get("spark.driver.bindAddress") == "127.0.0.1"
    assert conf.get("spark.ui.enabled") == "false"
    # the JVM started with the local address and host name set: it resolves no name of the machine
    utils = spark.sparkContext._jvm.org.apache.spark.util.Utils
    assert utils.localHostName() == "localhost" and utils.localCanonicalHostName() == "localhost"
    assert spark_engine.os.environ["SPARK_LOCAL_IP"] == "127.0.0.1"


def test_thesis_oracles_on_spark(spark, data_dir):
    source = data_dir / "thesis_table_3_1.csv"
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    table = load_table(source)
    ids = ["3", "4", "5", "6"]
    engine = spark_score(spark, str(source), ROLES, weights, rows=ids)
    assert_same_report(engine, Scorer(table, ROLES).score(locate_by_ids(table, ids, "id"), weights))
    # Scenario 1 by position: the published file's rows matched in the source without --id-column
    by_position = Roles(qi=QI, sa=SA, continuous=["Age"])
    scenario_1 = spark_score(spark, str(source), by_position, weights,
                             published=str(data_dir / "thesis_table_3_6_published.csv"))
    assert scenario_1.scores.tkl == pytest.approx(4.98258, abs=5e-6)
    assert scenario_1.normalized_source.tkl == pytest.approx(0.5686, abs=5e-5)
    assert scenario_1.records["id"].tolist() == ["3", "4", "5", "6"]


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                HealthCheck.function_scoped_fixture])
@given(case=tables(), x=st.sampled_from([1.0, math.inf]))
def test_random_tables_score_as_in_memory(spark, case, x):
    frame, n_qi, n_sa, continuous, published = case
    roles = Roles(qi=[f"q{j}" for j in range(n_qi)], sa=[f"s{j}" for j in range(n_sa)], continuous=continuous,
                  identifier="id")
    entries = []
    for j in range(n_sa):
        if f"s{j}" in continuous:
            entries += [(f"s{j}", "[0,2)", 0.125), (f"s{j}", "[2,inf)", 0.3)]
        else:
            entries += [(f"s{j}", v, w) for v, w in (("a", 0.1), ("b", 0.45), ("", 0.2), ("c", 0.05))]
    weights = Weights(entries)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.csv"
        frame.to_csv(path, index=False)
        table = load_table(path)
        ids = [f"r{i}" for i in published]
        memory = Scorer(table, roles).score(locate_by_ids(table, ids, "id"), weights, x)
        engine = spark_score(spark, str(path), roles, weights, rows=ids, x=x)
    assert_same_report(engine, memory)


def test_cli_spark_parquet_in_records_out(spark, capsys, tmp_path, data_dir):
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    frame.assign(id=frame["id"].astype("int64"), Age=frame["Age"].astype("int64")).to_parquet(
        tmp_path / "s.parquet", index=False)
    argv = ["score", tmp_path / "s.parquet", "--rows", "6,3,4", "--id-column", "id", "--qi", ",".join(QI),
            "--sa", ",".join(SA), "--continuous", "Age", "--weights", data_dir / "thesis_table_4_2_weights.csv",
            "--format", "json"]
    code, memory, err = run_cli(capsys, argv)
    assert code == 0, err
    out = tmp_path / "records.parquet"
    code, engine, err = run_cli(capsys, argv + ["--engine", "spark", "--output", out])
    assert code == 0, err
    expected, summary = json.loads(memory), json.loads(engine)
    assert summary["records_file"] == str(out)
    for key, value in expected["scores"].items():
        assert summary["scores"][key] == pytest.approx(value, rel=1e-12, abs=1e-12), key
    written = pd.read_parquet(out)  # Spark's folder of part files, in published order
    assert written["id"].tolist() == ["6", "3", "4"]
    assert written["tkl"].tolist() == pytest.approx([r["tkl"] for r in expected["records"]], rel=1e-12)
    assert spark.sparkContext._jsc is not None  # the CLI reused the test's session and left it running


def test_cli_spark_reads_and_writes_uris(spark, capsys, tmp_path, data_dir):
    """Paths go to Spark as URIs untouched (file:// here; hdfs:// and s3a:// take the same road)."""
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    frame.to_parquet(tmp_path / "s.parquet", index=False)
    common = ["--rows", "3,4,5,6", "--id-column", "id", "--qi", ",".join(QI), "--sa", ",".join(SA),
              "--continuous", "Age", "--weights", data_dir / "thesis_table_4_2_weights.csv", "--format", "json"]
    out = tmp_path / "records.parquet"
    code, engine, err = run_cli(capsys, ["score", (tmp_path / "s.parquet").as_uri(), *common, "--engine", "spark",
                                         "--output", out.as_uri()])
    assert code == 0, err
    summary = json.loads(engine)
    assert summary["scores"]["tkl"] == pytest.approx(4.98258, abs=5e-6)
    assert pd.read_parquet(out)["id"].tolist() == ["3", "4", "5", "6"]
    missing = (tmp_path / "absent.parquet").as_uri()
    code, _, err = run_cli(capsys, ["score", missing, *common, "--engine", "spark"])
    assert code == 2 and "absent.parquet" in err and "not found" in err
    code, _, err = run_cli(capsys, ["score", (tmp_path / "s.parquet").as_uri(), *common, "--engine", "spark",
                                    "--output", (tmp_path / "summary.json").as_uri()])
    assert code == 2 and "is a URI" in err and "local file" in err


def test_cli_spark_output_folders_replace_only_ours(spark, capsys, tmp_path, data_dir):
    """``--engine spark --output DIR`` never deletes a source nor a folder it did not write,
    and replaces its own previous output whole (issue 19 §2)."""
    from tklscore.core.files.atomic import FOLDER_MARKER

    source = tmp_path / "source.parquet"            # a source that is a folder of part files
    source.mkdir()
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    frame.to_parquet(source / "part-00000.parquet", index=False)
    common = ["--id-column", "id", "--qi", ",".join(QI), "--sa", ",".join(SA), "--continuous", "Age",
              "--weights", data_dir / "thesis_table_4_2_weights.csv", "--format", "json", "--engine", "spark"]
    before = (source / "part-00000.parquet").read_bytes()
    code, _, err = run_cli(capsys, ["score", source, "--rows", "3,4", *common, "--output", source])
    assert code == 2 and f"{source}: is also an input" in err, err
    assert sorted(p.name for p in source.iterdir()) == ["part-00000.parquet"]
    assert (source / "part-00000.parquet").read_bytes() == before
    theirs = tmp_path / "theirs.parquet"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("not Spark's")
    code, _, err = run_cli(capsys, ["score", source, "--rows", "3,4", *common, "--output", theirs])
    assert code == 2 and "is a folder that tkl-Score Workbench did not write (1 file(s) in it)" in err, err
    assert [p.name for p in theirs.iterdir()] == ["notes.txt"]
    ours = tmp_path / "records.parquet"
    for rows in ("3,4", "5,6,0"):
        code, _, err = run_cli(capsys, ["score", source, "--rows", rows, *common, "--output", ours])
        assert code == 0, err
        assert pd.read_parquet(ours)["id"].tolist() == rows.split(",")
    assert (ours / FOLDER_MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.parquet", "source.parquet", "theirs.parquet"]
    code, _, err = run_cli(capsys, ["release", source, "--qi", ",".join(QI), "--sa", ",".join(SA),
                                    "--continuous", "Age", "--weights", data_dir / "thesis_table_4_2_weights.csv",
                                    "--engine", "spark", "--output", theirs])
    assert code == 2 and "did not write" in err and [p.name for p in theirs.iterdir()] == ["notes.txt"]


def test_spark_back_end_refuses_to_write_over_what_it_read(spark, tmp_path, data_dir):
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    source = tmp_path / "s.parquet"
    frame.to_parquet(source, index=False)
    with SparkBackend(session=spark) as backend:
        backend.scan(str(source))
        with pytest.raises(InputError, match="is also an input"):
            backend.write_parquet("SELECT 1 AS a", str(source))
    assert pd.read_parquet(source).equals(frame)


def test_remote_output_folders_follow_the_same_rules(spark, tmp_path, data_dir, monkeypatch):
    """hdfs:// and s3a:// outputs go through Hadoop's file system API; here file:// URIs take
    that road (as a remote store would) on the local disk."""
    from tklscore.core.files.atomic import FOLDER_MARKER

    monkeypatch.setattr(spark_engine, "is_remote", lambda path: str(path).startswith("file:"))
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    source = tmp_path / "source.parquet"
    source.mkdir()
    frame.to_parquet(source / "part-0.parquet", index=False)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "keep.txt").write_text("keep")
    ours = tmp_path / "records.parquet"
    with SparkBackend(session=spark) as backend:
        backend.scan(source.as_uri())
        with pytest.raises(InputError, match="is also an input"):
            backend.write_parquet("SELECT 1 AS a", source.as_uri())
        with pytest.raises(InputError, match="is a folder that tkl-Score Workbench did not write"):
            backend.write_parquet("SELECT 1 AS a", theirs.as_uri())
        for rows in (3, 5):
            backend.write_parquet(f"SELECT id AS a FROM range({rows})", ours.as_uri())
            assert len(pd.read_parquet(ours)) == rows and (ours / FOLDER_MARKER).is_file()
    assert sorted(p.name for p in source.iterdir()) == ["part-0.parquet"]
    assert [p.name for p in theirs.iterdir()] == ["keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["records.parquet", "source.parquet", "theirs"]


# ------------------------------------------------------------------ bad input (no session needed)

@pytest.mark.parametrize("url", ["localhost", "spark:/host:7077", "local[two]", "http://host:7077", ""])
def test_master_that_is_not_a_url(url):
    with pytest.raises(InputError, match="is not a Spark master URL; give local\\[N\\], spark://HOST:7077"):
        check_master(url)


@pytest.mark.parametrize("url", ["local", "local[2]", "local[*]", "spark://10.0.0.5:7077", "yarn",
                                 "k8s://https://cluster:6443", "spark://a:7077,b:7077"])
def test_master_urls(url):
    assert check_master(url) == url


def test_without_pyspark_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(InputError, match=r"--engine spark needs PySpark: pip install 'tklscore\[spark\]'"):
        require_spark()


def test_without_java_says_how_to_install_it(monkeypatch):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(spark_engine.shutil, "which", lambda name: None)
    with pytest.raises(InputError, match="needs Java, and no 'java' was found: install a Java runtime .* "
                                         "apt-get install default-jre-headless"):
        require_spark()


def test_cli_bad_master_and_misplaced_option(capsys, data_dir):
    base = ["score", data_dir / "thesis_table_3_1.csv", "--rows", "0", "--id-column", "id", "--qi", "Job",
            "--sa", "Disease", "--weights", data_dir / "thesis_table_4_2_weights.csv"]
    code, _, err = run_cli(capsys, base + ["--engine", "spark", "--spark-master", "nowhere"])
    assert code == 2 and "--spark-master 'nowhere' is not a Spark master URL" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, base + ["--engine", "duckdb", "--spark-master", "local[2]"])
    assert code == 2 and "--spark-master applies to --engine spark" in err


# ---------------------------------------------------------------------------- filters on Spark

def test_filter_quotes_and_backslashes_on_spark(spark, tmp_path):
    """Values reach Spark as parameters: Spark's backslash escapes never apply
    (``Job in ['x\\', ')) OR 1=1 --']`` selects those two records, ``a\\b`` its own)."""

    with SparkBackend(session=spark) as backend:
        assert_quotes_select_as_in_memory(backend, tmp_path)
