"""A real Spark cluster: a standalone master and two workers started on this machine's
loopback with pyspark's ``bin/spark-class`` (ports chosen now, nothing bound beyond
127.0.0.1), one cluster for the module. ``score``, ``measures``, ``disclosure-risk`` and
``release --engine spark --spark-master spark://127.0.0.1:PORT`` on 2,000 Adult records give
the in-memory engine's numbers; ``--spark-conf`` reaches the application (the master says
its name and executor memory); a cluster whose workers cannot start an executor is said
within ``--spark-timeout``; the executors run no Python (their interpreter is set to a path
that does not exist, and every command still answers). The processes started here are
stopped by their ids, their folders removed, also when a test fails.

Select with ``-m spark_cluster``; part of the suite (scripts/test.sh, .ci/run)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest

from helpers import TEST_SPARK_CONF, run_cli
from test_adult import QI, SA, WEIGHTS
from test_engine_design import assert_same

# [spark] is in [test]: setup.sh installs it. Found, not imported: importing pyspark costs each
# xdist worker about half a CPU-second at collection, and the suite deselects these tests.
PYSPARK = importlib.util.find_spec("pyspark")
if PYSPARK is None:
    pytest.skip("could not import 'pyspark'", allow_module_level=True)
pytestmark = pytest.mark.spark_cluster

SPARK_HOME = Path(PYSPARK.origin).resolve().parent
ROWS = 2000
START_TIMEOUT = 300          # seconds for the three JVMs to come up on a loaded machine
NO_PYTHON = "/nonexistent/python-on-the-workers"
# tiny tables: few shuffle partitions; compiling whole-stage code and re-planning cost more than they save;
# the driver's and the executors' JVMs with the tests' settings (helpers.TEST_SPARK_CONF: none changes a number)
SMALL = {"spark.sql.shuffle.partitions": "2", **TEST_SPARK_CONF,
         "spark.executor.extraJavaOptions": TEST_SPARK_CONF["spark.driver.extraJavaOptions"]}


@dataclass
class Cluster:
    url: str
    web: int
    root: Path
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    def state(self) -> dict:
        """The master's own account (its web UI's JSON, on 127.0.0.1)."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(f"http://127.0.0.1:{self.web}/json/", timeout=10) as answer:
            return json.load(answer)

    def logs(self) -> str:
        return "\n".join(f"--- {log.name}\n" + log.read_text(errors="replace")[-3000:]
                         for log in sorted(self.root.glob("*.log")))

    def stop(self) -> None:
        """Stop what this module started, by id: each process leads its own group (a worker's
        executors are in it); TERM, then KILL what is left after 30 s."""
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        for process in self.processes.values():
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def terminated(*_) -> None:
    raise SystemExit("terminated")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def spark_env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_", "SPARK_"))}
    return env | {"SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOCAL_HOSTNAME": "localhost",
                  "SPARK_CONF_DIR": str(root / "conf"), "SPARK_LOG_DIR": str(root), "SPARK_PID_DIR": str(root),
                  # the master's and the workers' JVMs: the client compiler and one collector thread, as the driver's
                  "SPARK_DAEMON_JAVA_OPTS": TEST_SPARK_CONF["spark.driver.extraJavaOptions"]}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    root = tmp_path_factory.mktemp("spark-cluster")
    (root / "conf").mkdir()
    # no REST submission server (a fixed port, 6066), the UI on loopback only
    (root / "conf" / "spark-defaults.conf").write_text("spark.master.rest.enabled false\n"
                                                       "spark.worker.cleanup.enabled false\n")
    port, web = free_port(), free_port()
    found = Cluster(f"spark://127.0.0.1:{port}", web, root)
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    properties = ["--properties-file", str(root / "conf" / "spark-defaults.conf")]

    def start(name: str, argv: list[str]) -> None:
        with open(root / f"{name}.log", "wb") as log:
            found.processes[name] = subprocess.Popen([spark_class, *argv, *properties], env=spark_env(root),
                                                     stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                     start_new_session=True)

    # a TERM to this process (a timeout around the suite) still runs the finally below
    previous = signal.signal(signal.SIGTERM, terminated) if threading.current_thread() is threading.main_thread() \
        else None
    try:
        start("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                         "--webui-port", str(web)])
        for n in (1, 2):
            (root / f"work{n}").mkdir()
            start(f"worker{n}", ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                 "--port", str(free_port()), "--webui-port", str(free_port()), "--cores", "1",
                                 "--memory", "1g", "--work-dir", str(root / f"work{n}"), found.url])
        deadline = time.monotonic() + START_TIMEOUT
        alive = 0
        while alive < 2:
            dead = [name for name, process in found.processes.items() if process.poll() is not None]
            assert not dead and time.monotonic() < deadline, \
                f"the cluster did not start ({dead or 'timed out'}; {alive} worker(s) alive)\n{found.logs()}"
            try:
                alive = found.state()["aliveworkers"]
            except (OSError, ValueError, KeyError):   # the UI not up yet, or still starting
                pass
            time.sleep(0.5)
        yield found
    finally:
        found.stop()
        shutil.rmtree(root, ignore_errors=True)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="module", autouse=True)
def executors_without_python():
    """The interpreter Spark would start beside an executor: a path that does not exist, so
    a command that needed Python on the workers fails here."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYSPARK_PYTHON", NO_PYTHON)
        yield


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, data_dir) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("cluster-inputs")
    adult = data_dir / "adult"
    with open(adult / "adult.csv", encoding="utf-8") as whole:
        head = [next(whole) for _ in range(ROWS + 1)]
    (folder / "adult.csv").write_text("".join(head), encoding="utf-8")
    (folder / "weights.csv").write_text("attribute,value,weight\n" + "".join(
        f"{a},{v},{w}\n" for (a, v), w in WEIGHTS.items()), encoding="utf-8")
    (folder / "params.csv").write_text("attribute,pk,weight\nsex,0.9,0\nrace,0.7,0\noccupation,0.05,1\n"
                                       "salary-class,0.2,0.5\n")
    return {"table": folder / "adult.csv", "weights": folder / "weights.csv", "params": folder / "params.csv",
            "hierarchies": adult, "out": folder}


def roles() -> list[str]:
    """Adult's roles, and its delimiter (Spark does not detect one)."""
    return ["--qi", ",".join(QI), "--sa", ",".join(SA), "--delimiter", ";"]


def on(cluster: Cluster, *conf: str) -> list[str]:
    return ["--engine", "spark", "--spark-master", cluster.url, "--spark-timeout", "240",
            *[item for setting in conf for item in ("--spark-conf", setting)]]


def both(capsys, argv: list, cluster: Cluster, *conf: str) -> tuple[dict, dict]:
    """The command's JSON in memory and on the cluster."""
    code, memory, err = run_cli(capsys, argv + ["--format", "json"])
    assert code == 0, err
    code, engine, err = run_cli(capsys, argv + ["--format", "json"] + on(cluster, *conf))
    assert code == 0, err
    return json.loads(engine), json.loads(memory)


def application(cluster: Cluster, name: str) -> dict:
    state = cluster.state()
    found = [app for app in state["activeapps"] + state["completedapps"] if app["name"] == name]
    assert len(found) == 1, [app["name"] for app in state["activeapps"] + state["completedapps"]]
    return found[0]


def ran_on_both_workers(cluster: Cluster, app_id: str) -> bool:
    """Each worker kept a folder for an executor of the application."""
    return all(any((cluster.root / f"work{n}" / app_id).glob("*/stderr")) for n in (1, 2))


# ------------------------------------------------------------------ the CLI starts its own application

def test_score_on_the_cluster_equals_memory(capsys, cluster, inputs):
    from pyspark.sql import SparkSession

    assert SparkSession.getActiveSession() is None, "this test starts its own application: run it first"
    rows = ",".join(str(i) for i in range(0, ROWS, 3))
    argv = ["score", inputs["table"], "--rows", rows, *roles(), "--weights", inputs["weights"]]
    engine, memory = both(capsys, argv, cluster, "spark.app.name=tklscore-cluster-score",
                          "spark.executor.memory=512m", *(f"{k}={v}" for k, v in SMALL.items()))
    assert_same(engine, memory)
    assert memory["published_rows"] == len(range(0, ROWS, 3)) and memory["scores"]["tkl"] > 0
    app = application(cluster, "tklscore-cluster-score")       # --spark-conf reached the master
    assert app["state"] == "FINISHED" and app["memoryperexecutor"] == 512
    assert ran_on_both_workers(cluster, app["id"])


def test_workers_without_room_are_said_within_the_timeout(capsys, cluster, inputs):
    """Executors asking for more memory than a worker has: the master accepts the
    application, no worker can start an executor, the command ends after --spark-timeout (20 s:
    the application's registration counts, and takes seconds on a loaded machine)."""
    argv = ["measures", inputs["table"], *roles(), "--engine", "spark", "--spark-master", cluster.url,
            "--spark-conf", "spark.executor.memory=8g", "--spark-conf", "spark.app.name=tklscore-cluster-too-big",
            "--spark-timeout", "20"]
    started = time.monotonic()
    code, out, err = run_cli(capsys, argv)
    waited = time.monotonic() - started
    assert code == 2 and out == "" and "Traceback" not in err
    assert (f"the Spark master {cluster.url} accepted the application, but no worker started an executor for it "
            f"within 20 s") in err
    assert "1 core(s) and 8g of memory per executor" in err and "spark.executor.memory" in err
    assert 20 <= waited < 20 + 30   # the timeout, then the application's stop
    assert application(cluster, "tklscore-cluster-too-big")["state"] in ("FINISHED", "KILLED")


# ------------------------------------------------------------------ one application for the other commands

@pytest.fixture(scope="module")
def session(cluster):
    """One application on the cluster for the commands below: each finds it active and
    uses it (starting executors once costs more than the commands)."""
    from tklscore.core.engines.spark_engine import spark_session

    active, owned = spark_session(cluster.url, conf={"spark.app.name": "tklscore-cluster-tests",
                                                     "spark.executor.memory": "512m"} | SMALL, timeout=240)
    assert owned
    yield active
    active.stop()


def test_measures_on_the_cluster_equal_memory(capsys, cluster, inputs, session):
    argv = ["measures", inputs["table"], *roles(), "--population", inputs["table"], "--sampling-fraction", "0.5"]
    engine, memory = both(capsys, argv, cluster)
    assert_same(engine, memory)
    # the command found the application running and left it running
    assert session.sparkContext.master == cluster.url and not session.sparkContext._jsc.sc().isStopped()


def test_disclosure_risk_on_the_cluster_equals_memory(capsys, cluster, inputs, session):
    argv = ["disclosure-risk", inputs["table"], "--attributes", inputs["params"], "--value-weights", inputs["weights"],
            "--delimiter", ";"]
    engine, memory = both(capsys, argv, cluster)
    assert_same(engine, memory)
    assert len(memory["records"]) == ROWS


def test_release_on_the_cluster_equals_memory(capsys, cluster, inputs, session):
    folder, hierarchies = inputs["out"], inputs["hierarchies"]
    argv = ["release", inputs["table"], *roles(), "--weights", inputs["weights"],
            *[a for column in ("age", "education", "native-country")
              for a in ("--hierarchy", f"{column}={hierarchies / f'adult_hierarchy_{column}.csv'}")],
            "--levels", "age=2,education=1,native-country=1", "--suppress-below", "2"]
    code, memory, err = run_cli(capsys, argv + ["--format", "json", "--output", folder / "memory.csv"])
    assert code == 0, err
    code, engine, err = run_cli(capsys, argv + ["--format", "json", "--output", folder / "cluster.parquet"]
                                + on(cluster))
    assert code == 0, err
    memory, engine = json.loads(memory), json.loads(engine)
    assert_same(engine, memory)
    assert 0 < memory["published_rows"] < ROWS and memory["suppressed_rows"] > 0
    pd.testing.assert_frame_equal(pd.read_parquet(folder / "cluster.parquet"),
                                  pd.read_csv(folder / "memory.csv", dtype=str, keep_default_na=False))
    app = application(cluster, "tklscore-cluster-tests")
    assert app["state"] == "RUNNING" and ran_on_both_workers(cluster, app["id"])
    assert [a["name"] for a in cluster.state()["completedapps"]
            if a["name"] not in ("tklscore-cluster-score", "tklscore-cluster-too-big")] == []


# ------------------------------------------------------------------ bad input, without a cluster

def thesis_score(data_dir) -> list:
    return ["score", data_dir / "thesis_table_3_1.csv", "--rows", "3,4", "--id-column", "id", "--qi", "Job",
            "--sa", "Disease", "--weights", data_dir / "thesis_table_4_2_weights.csv"]


def test_a_master_that_refuses_is_said_at_once(capsys, data_dir):
    """Nothing listens on port 1: said before Java starts, naming the master and the reason."""
    started = time.monotonic()
    code, out, err = run_cli(capsys, thesis_score(data_dir) + ["--engine", "spark", "--spark-master",
                                                               "spark://127.0.0.1:1,127.0.0.1:2"])
    assert code == 2 and out == "" and "Traceback" not in err
    assert ("cannot reach the Spark master spark://127.0.0.1:1,127.0.0.1:2 (127.0.0.1:1: Connection refused; "
            "127.0.0.1:2: Connection refused)") in err
    assert time.monotonic() - started < 5


def test_a_master_that_never_answers_is_given_up_after_the_timeout(tmp_path, data_dir):
    """A port that accepts and says nothing (not a Spark master): the command ends after
    --spark-timeout with the master named, though Spark itself would wait longer. In its own
    process: the abandoned start holds PySpark's builder until Spark gives up."""
    import sys

    import pyspark

    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"spark://127.0.0.1:{silent.getsockname()[1]}"
        argv = [sys.executable, "-m", "tklscore", *map(str, thesis_score(data_dir)), "--engine", "spark",
                "--spark-master", url, "--spark-timeout", "2"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert (f"the Spark master {url} did not accept the application within 2 s (is it a Spark "
            f"{pyspark.__version__} master, and can it reach this machine?) (a longer --spark-timeout waits longer)"
            in done.stderr)
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("setting, message", [
    ("executor.memory=4g", "--spark-conf 'executor.memory' is not a Spark setting: a key starts with 'spark.'"),
    ("spark..memory=4g", "--spark-conf 'spark..memory' is not a Spark setting"),
    ("spark.executor memory=4g", "--spark-conf 'spark.executor memory' is not a Spark setting"),
    ("spark.executor.memory", "--spark-conf 'spark.executor.memory' is not KEY=VALUE, e.g. spark.executor.memory=4g"),
    ("spark.executor.memory=", "--spark-conf spark.executor.memory: the value is empty"),
    ("spark.master=local[2]", "--spark-conf spark.master: give the master with --spark-master URL"),
])
def test_spark_conf_that_is_not_a_setting(capsys, data_dir, setting, message):
    code, _, err = run_cli(capsys, thesis_score(data_dir) + ["--engine", "spark", "--spark-conf", setting])
    assert code == 2 and message in err and "Traceback" not in err


def test_spark_settings_are_parsed_and_checked():
    from tklscore.core import InputError
    from tklscore.core.engines.spark_engine import check_spark_conf, parse_spark_setting

    assert parse_spark_setting("spark.hadoop.fs.s3a.endpoint=http://s3:9000/a=b") == \
        ("spark.hadoop.fs.s3a.endpoint", "http://s3:9000/a=b")
    assert parse_spark_setting(" spark.executorEnv.JAVA_HOME = /opt/jdk ") == ("spark.executorEnv.JAVA_HOME", "/opt/jdk")
    assert check_spark_conf({"spark.driver.host": "10.0.0.2"}) == {"spark.driver.host": "10.0.0.2"}
    with pytest.raises(InputError, match="not on one line"):
        check_spark_conf({"spark.driver.host": "a\nspark.master=x"})


@pytest.mark.parametrize("extra, message", [
    (["--spark-conf", "spark.driver.host=10.0.0.2"], "the in-memory engine takes no --spark-conf: engine options "
                                                     "apply to --engine duckdb or spark (--spark-* to spark only)"),
    (["--engine", "duckdb", "--spark-timeout", "5"], "--spark-timeout applies to --engine spark"),
    (["--engine", "duckdb", "--spark-master", "local[2]", "--spark-conf", "spark.a=b"],
     "--spark-master and --spark-conf apply to --engine spark"),
    (["--engine", "spark", "--spark-timeout", "0"], "argument --spark-timeout: '0' is not a positive number of seconds"),
    (["--engine", "spark", "--spark-timeout", "soon"], "'soon' is not a positive number of seconds"),
])
def test_spark_options_only_with_spark(capsys, data_dir, extra, message):
    code, _, err = run_cli(capsys, thesis_score(data_dir) + extra)
    assert code == 2 and message in err and "Traceback" not in err


def test_master_addresses():
    from tklscore.core.engines.spark_engine import _on_loopback, _standalone

    assert _standalone("spark://a:7078,b") == [("a", 7078), ("b", 7077)]
    assert _standalone("spark://[::1]:7077") == [("::1", 7077)]
    assert _standalone("yarn") == [] and _standalone("local[2]") == []
    assert _on_loopback("spark://127.0.0.1:7077") and _on_loopback("spark://localhost")
    assert not _on_loopback("spark://127.0.0.1:7077,10.0.0.5:7077") and not _on_loopback("yarn")
