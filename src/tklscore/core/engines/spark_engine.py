"""The cluster back-end: the plan's group-bys run by Spark SQL (PySpark, the optional extra
``pip install 'tklscore[spark]'``) over Parquet/CSV files at any path Spark reads
(``hdfs://``, ``s3a://``, local files), the per-record results written as Parquet by
Spark. Without ``--spark-master`` (and outside ``spark-submit``) it runs in local mode,
bound to 127.0.0.1 under the host name ``localhost`` (``SPARK_LOCAL_IP`` and
``SPARK_LOCAL_HOSTNAME`` are set before the JVM starts, so Spark looks up no address of
the machine) with the web UI off: no network connection leaves the machine. A local
output folder is written through :func:`tklscore.core.files.atomic.atomic_folder`.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from urllib.parse import urlparse

import pandas as pd

from tklscore.core.engines.backend import Backend, Scan, check_engine_file, first_line
from tklscore.core.errors import InputError, existing_file
from tklscore.core.files.atomic import atomic_folder, is_disk_full, is_remote, write_error

_PARQUET = {".parquet", ".pq"}
_MASTER = re.compile(r"local(\[(\*|\d+)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|spark://[^\s/]+(:\d+)?"
                     r"(,[^\s/]+(:\d+)?)*|yarn|k8s://\S+|mesos://\S+|sc://\S+")
INSTALL_PYSPARK = "pip install 'tklscore[spark]' (or pip install pyspark)"
INSTALL_JAVA = ("install a Java runtime (17 or later), e.g. apt-get install default-jre-headless, "
                "or set JAVA_HOME to one")


def check_master(master: str) -> str:
    """``master`` if it is a Spark master URL, else an error saying what one looks like."""
    if not _MASTER.fullmatch(master.strip()):
        raise InputError(f"--spark-master '{master}' is not a Spark master URL; give local[N], "
                         f"spark://HOST:7077, yarn or k8s://https://HOST:PORT")
    return master.strip()


def java_available() -> bool:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return True
    return shutil.which("java") is not None


def require_spark():
    """The pyspark module, or an error saying how to install it (and Java)."""
    try:
        import pyspark  # noqa: F401
        from pyspark.sql import SparkSession
    except ImportError:
        raise InputError(f"--engine spark needs PySpark: {INSTALL_PYSPARK}") from None
    if not java_available():
        raise InputError(f"--engine spark needs Java, and no 'java' was found: {INSTALL_JAVA}")
    return SparkSession


def spark_memory(limit: str) -> str:
    """A memory limit from :func:`~.scoring.parse_memory_limit` (``NNNMiB``) as Spark writes it."""
    return f"{int(limit.removesuffix('MiB'))}m"


def spark_session(master: str | None = None, memory_limit: str | None = None, partitions: int | None = None,
                  conf: dict[str, str] | None = None, timeout: float | None = None):
    """The active Spark session, or a new one: on ``master``; without one, local mode on
    every core (unless launched by ``spark-submit``, which sets the master). ``conf``:
    settings given to the session's builder last (``--spark-conf``; :func:`check_spark_conf`).
    On a cluster master the application must be accepted, and on a standalone master
    (``spark://``) get its first executor, within ``timeout`` seconds (default
    :data:`DEFAULT_TIMEOUT`), or an error names the master and what is missing."""
    SparkSession = require_spark()
    from pyspark import SparkContext

    settings = check_spark_conf(conf or {})
    wait = check_timeout(DEFAULT_TIMEOUT if timeout is None else timeout)
    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active, False
    # a context already running (made in another thread, where it is the active session) is
    # the one getOrCreate returns: whoever made it stops it
    running = active is not None or SparkContext._active_spark_context is not None
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    if master is not None:
        master = check_master(master)
    elif not submitted:
        master = "local[*]"
    options = {"spark.app.name": "tklscore"}
    if master is not None:
        options["spark.master"] = master
    if master is not None and (master.startswith("local") or _on_loopback(master)):
        # read by the JVM as it starts: without them Spark asks the resolver for the machine's names
        os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
        os.environ["SPARK_LOCAL_HOSTNAME"] = "localhost"
        options |= {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
    if master is not None and master.startswith("local"):
        options["spark.sql.shuffle.partitions"] = str(partitions or max(2, 2 * (os.cpu_count() or 1)))
    options |= {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
                "spark.sql.execution.arrow.pyspark.enabled": "true", "spark.sql.session.timeZone": "UTC"}
    remote = master is not None and not master.startswith("local")
    if remote:
        # the executors run Spark SQL only, never Python: no table reaches them through pickled rows
        options["spark.sql.execution.arrow.pyspark.fallback.enabled"] = "false"
    if memory_limit:
        options |= {"spark.driver.memory": spark_memory(memory_limit),
                    "spark.executor.memory": spark_memory(memory_limit)}
    options |= settings
    builder = SparkSession.builder
    for key, value in options.items():
        builder = builder.config(key, value)
    if remote:
        session = _start_on_cluster(builder, options, master, wait)
    else:
        session = _start(builder, master)
    session.sparkContext.setLogLevel("ERROR")
    return session, not running


def _start(builder, master: str | None):
    try:
        return builder.getOrCreate()
    except Exception as exc:  # the JVM did not start, or the master refused
        raise _start_error(exc, master) from None


def _start_error(exc: Exception, master: str | None) -> InputError:
    text = first_line(exc)
    if "JAVA_HOME" in text or "Java gateway" in text:
        return InputError(f"--engine spark could not start Java ({text}): {INSTALL_JAVA}")
    return InputError(f"--engine spark could not start on master '{master or 'from spark-submit'}' ({text})")


# ------------------------------------------------------------------ on a cluster

DEFAULT_TIMEOUT = 60.0     # seconds for a cluster to accept the application and start an executor
_CONF_KEY = re.compile(r"spark\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")
_LOOPBACK = re.compile(r"localhost|127(\.\d{1,3}){3}|\[::1\]|::1")


def parse_spark_setting(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` (``--spark-conf``) as (key, value), checked by :func:`check_spark_setting`."""
    key, sep, value = text.partition("=")
    if not sep:
        raise InputError(f"--spark-conf '{text}' is not KEY=VALUE, e.g. spark.executor.memory=4g")
    return check_spark_setting(key.strip(), value.strip())


def check_spark_setting(key: str, value: str) -> tuple[str, str]:
    """A Spark setting the builder may be given: a key shaped like Spark's (``spark.`` and
    dotted names of letters, digits, ``_`` and ``-``; Hadoop's as ``spark.hadoop.*``), a
    value on one line; the master only through ``--spark-master``."""
    if not _CONF_KEY.fullmatch(key):
        raise InputError(f"--spark-conf '{key}' is not a Spark setting: a key starts with 'spark.' and has dotted "
                         f"names of letters, digits, '_' and '-' (e.g. spark.executor.memory, "
                         f"spark.hadoop.fs.s3a.endpoint)")
    if key == "spark.master":
        raise InputError("--spark-conf spark.master: give the master with --spark-master URL")
    if not value or any(c in value for c in "\r\n\0"):
        raise InputError(f"--spark-conf {key}: the value is {'empty' if not value else 'not on one line'}")
    return key, value


def check_spark_conf(conf: dict[str, str]) -> dict[str, str]:
    """``conf`` with every setting checked (:func:`check_spark_setting`)."""
    return dict(check_spark_setting(str(key).strip(), str(value).strip()) for key, value in conf.items())


def check_timeout(seconds: float) -> float:
    """A timeout in seconds: a positive, finite number."""
    import math

    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise InputError(f"--spark-timeout {seconds!r} is not a positive number of seconds")
    return float(seconds)


def _standalone(master: str) -> list[tuple[str, int]]:
    """The (host, port) of each master of a ``spark://`` URL (port 7077 when not given)."""
    if not master.startswith("spark://"):
        return []
    addresses = []
    for part in master.removeprefix("spark://").split(","):
        host, _, port = part.rpartition(":") if part.rpartition(":")[2].isdigit() else (part, "", "")
        addresses.append((host.strip("[]"), int(port) if port else 7077))
    return addresses


def _on_loopback(master: str) -> bool:
    """A standalone master on this machine's loopback: the driver is bound there too."""
    addresses = _standalone(master)
    return bool(addresses) and all(_LOOPBACK.fullmatch(host) for host, _ in addresses)


def _reach(master: str, wait: float) -> None:
    """A standalone master accepts connections (one of them, for a URL naming several), or
    an error naming it and why not, before the JVM waits for it."""
    import socket

    reasons = []
    for host, port in _standalone(master):
        try:
            with socket.create_connection((host, port), timeout=min(wait, 10.0)):
                return
        except TimeoutError:
            reasons.append(f"{host}:{port}: no answer within {min(wait, 10.0):g} s")
        except OSError as exc:   # refused, no route, an unknown host name
            reasons.append(f"{host}:{port}: {exc.strerror or exc}")
    if reasons:
        raise InputError(f"--engine spark cannot reach the Spark master {master} ({'; '.join(reasons)}): check the "
                         f"URL, that the master runs, and that no firewall stands between it and this machine")


def _start_on_cluster(builder, options: dict[str, str], master: str, wait: float):
    """The session on a cluster master: the JVM started first (its start is not the
    cluster's time), then the application registered and, on a standalone master, its
    first executor running, all within ``wait`` seconds."""
    import threading
    import time

    from pyspark import SparkConf, SparkContext

    _reach(master, wait)
    try:
        SparkContext._ensure_initialized(conf=SparkConf(loadDefaults=False).setAll(options.items()))
    except Exception as exc:
        raise _start_error(exc, master) from None
    deadline = time.monotonic() + wait
    started: dict[str, object] = {}
    abandoned = threading.Event()

    def start() -> None:
        try:
            session = builder.getOrCreate()
        except Exception as exc:  # noqa: BLE001 - said below, in the caller's thread
            started["error"] = exc
            return
        if abandoned.is_set():    # accepted after the caller gave up: no application left behind
            session.stop()
        started["session"] = session

    # Spark waits for the master without a limit of its own: the session starts in a thread
    # given up after the timeout (a command then ends, and its JVM with it)
    thread = threading.Thread(target=start, name="tklscore-spark-start", daemon=True)
    thread.start()
    thread.join(wait)
    if thread.is_alive():
        abandoned.set()
        raise InputError(f"--engine spark: the Spark master {master} did not accept the application within {wait:g} s "
                         f"(is it a Spark {_version()} master, and can it reach this machine?)",
                         hint="a longer --spark-timeout waits longer")
    if "error" in started:
        raise _start_error(started["error"], master)
    session = started["session"]
    session._jvm.SparkSession.setActiveSession(session._jsparkSession)   # active in this thread too
    if _standalone(master) and options.get("spark.dynamicAllocation.enabled", "false") != "true":
        _wait_for_executor(session, master, deadline, wait)
    return session


def _wait_for_executor(session, master: str, deadline: float, wait: float) -> None:
    """Return once an executor of the application runs; otherwise stop it and say why
    none could start (a job would wait for one for ever)."""
    import time

    context = session.sparkContext._jsc.sc()
    while time.monotonic() < deadline and not context.isStopped():
        if context.getExecutorMemoryStatus().size() > 1:   # the driver's block manager, and an executor's
            return
        time.sleep(0.1)
    stopped = context.isStopped()
    conf = session.sparkContext.getConf()
    asked = (f"{conf.get('spark.executor.cores', '1')} core(s) and {conf.get('spark.executor.memory', '1g')} "
             f"of memory per executor")
    driver = conf.get("spark.driver.host", "this machine's name")
    session.stop()
    if stopped:
        raise InputError(f"--engine spark: the Spark master {master} stopped the application before an executor "
                         f"ran (no worker could start one: see the master's and the workers' logs)")
    raise InputError(f"--engine spark: the Spark master {master} accepted the application, but no worker started an "
                     f"executor for it within {wait:g} s: the workers are busy, or have less free than the "
                     f"{asked} asked for (spark.executor.cores, spark.executor.memory), or cannot connect to the "
                     f"driver at {driver} (spark.driver.host)",
                     hint="see the master's web page; a longer --spark-timeout waits longer")


def _version() -> str:
    import pyspark

    return pyspark.__version__


def _is_local(path: str) -> bool:
    scheme = urlparse(path).scheme
    return scheme in ("", "file") or len(scheme) == 1  # a Windows drive letter


class SparkBackend(Backend):
    name = "spark"
    quote_char = "`"
    float_text_exact = False    # Spark writes 1e20 as 1.0E20: a filter compares floats' text only in DuckDB
    few_statements = True       # a job per statement, and nested levels the optimiser takes minutes over

    def __init__(self, memory_limit: str | None = None, master: str | None = None, session=None,
                 conf: dict[str, str] | None = None, timeout: float | None = None):
        if session is None:
            session, self._owned = spark_session(master, memory_limit, conf=conf, timeout=timeout)
        else:
            self._owned = False
        self.spark = session
        self.inputs: list[str] = []   # every file scanned: an output never replaces one
        self._cached: dict[str, object] = {}
        self._views: list[str] = []
        self._rows: dict[str, int] = {}   # the rows of each relation computed at once (_keep), counted then
        self._eager = 0               # inside run(): relations computed at once

    def close(self) -> None:
        for frame in self._cached.values():
            frame.unpersist()
        for view in self._views:
            self.spark.catalog.dropTempView(view)
        self._cached.clear()
        self._rows.clear()
        if self._owned:
            self.spark.stop()

    # ------------------------------------------------------------------ primitives

    def fetch(self, sql: str, params=None) -> pd.DataFrame:
        return (self.spark.sql(sql, args=list(params)) if params else self.spark.sql(sql)).toPandas()

    def fetch_arrow(self, sql: str):
        frame = self.spark.sql(sql)
        if hasattr(frame, "toArrow"):  # PySpark 4: typed even without rows
            return frame.toArrow()
        return super().fetch_arrow(sql)

    def arrow_schema(self, sql: str):
        """As :meth:`Backend.arrow_schema`: the types Spark knows once it has analysed ``sql``,
        converted as ``toArrow`` converts them, with no job (a ``LIMIT 0`` fetch runs one)."""
        from pyspark.sql.pandas.types import to_arrow_schema

        large = self.spark.conf.get("spark.sql.execution.arrow.useLargeVarTypes", "false").lower() == "true"
        return to_arrow_schema(self.spark.sql(sql).schema, error_on_duplicated_field_names_in_struct=True,
                               timezone="UTC", prefers_large_types=large)

    def count(self, relation: str) -> int:
        """As :meth:`Backend.count`; a relation computed at once was counted then (no statement)."""
        if relation in self._rows:
            return self._rows[relation]
        return super().count(relation)

    def _view(self, name: str, frame) -> None:
        self._rows.pop(name, None)
        previous = self._cached.pop(name, None)
        frame.createOrReplaceTempView(name)
        # the same statement again (a relation of the next evaluation) shares the kept rows of
        # the one it replaces: Spark keeps a result once per plan, so dropping those would drop both
        if previous is not None and not _same_plan(previous, frame):
            previous.unpersist()
        self._views.append(name)

    def materialize(self, name: str, sql: str, params=None) -> None:
        # positional ``?`` parameters (Spark 3.5+): values are bound, never parsed as SQL text
        self._keep(name, self.spark.sql(sql, args=list(params)) if params else self.spark.sql(sql),
                   eager=self._eager > 0)

    def run(self, what: str, path: str, action):
        """As :meth:`Backend.run`, the relations materialised inside computed at once, so
        that an error reading the file is said here, naming it."""
        self._eager += 1
        try:
            return super().run(what, path, action)
        finally:
            self._eager -= 1

    def _keep(self, name: str, frame, eager: bool = True) -> None:
        """``frame`` kept as the relation ``name``. A job costs Spark a fixed fraction of a
        second however small its table, so a plan's relation is computed by the first
        statement that reads it (in that statement's job) and kept from then on, not in a
        job of its own; ``eager``: computed here (a scan, and what :meth:`run` wraps)."""
        from pyspark import StorageLevel

        frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
        rows = frame.count() if eager else None
        self._view(name, frame)
        self._cached[name] = frame
        if rows is not None:
            self._rows[name] = rows

    def register(self, name: str, frame: pd.DataFrame) -> None:
        from pyspark.sql import functions as F

        types = {"i": "BIGINT", "u": "BIGINT", "f": "DOUBLE", "b": "BOOLEAN"}
        kinds = [types.get(frame[c].dtype.kind, "STRING") for c in frame.columns]
        if len(frame) == 0:
            # PySpark sends an empty frame through Python workers (its Arrow path takes rows only):
            # an empty relation of those types is made in the JVM, no Python process started
            self._view(name, self.spark.range(0).select(*[F.lit(None).cast(k).alias(c)
                                                          for c, k in zip(frame.columns, kinds)]))
            return
        schema = ", ".join(f"{self.q(c)} {k}" for c, k in zip(frame.columns, kinds))
        self._view(name, self.spark.createDataFrame(frame, schema=schema))

    def write_parquet(self, sql: str, path: str, reads: str | None = None) -> None:
        """The rows of ``sql`` as a Parquet dataset (a folder of part files, in order) at
        ``path``, written beside it and put in its place when complete: a local target by
        :func:`~tklscore.core.files.atomic.atomic_folder`, a remote one (``hdfs://``,
        ``s3a://``) by :meth:`_write_remote` with the same rules — never over an input or a
        folder this tool did not write."""
        frame = self.spark.sql(sql)
        if is_remote(path):
            self._write_remote(frame, path)
            return
        with atomic_folder(path, self.inputs) as temporary:
            self._write(frame, str(temporary), path)

    def _write(self, frame, where: str, given: str) -> None:
        try:
            frame.write.parquet(where)
        except Exception as exc:  # Spark's errors arrive through Py4J
            if is_disk_full(exc):
                raise write_error(exc, given) from None
            raise InputError(f"cannot be written ({first_line(exc).replace(where, given)})", file=given) from None

    def _write_remote(self, frame, given: str) -> None:
        """A remote folder output through the cluster's file system (Hadoop's API): replaced
        only when it holds :data:`~tklscore.core.files.atomic.FOLDER_MARKER` or is empty;
        written to a sibling folder, marked, then renamed into place (the old one moved aside
        first and deleted last)."""
        import uuid

        from tklscore.core.files.atomic import FOLDER_MARKER

        jvm = self.spark.sparkContext._jvm
        HPath = jvm.org.apache.hadoop.fs.Path
        target = HPath(given)
        fs = target.getFileSystem(self.spark.sparkContext._jsc.hadoopConfiguration())
        target = fs.makeQualified(target)
        for source in self.inputs:
            read = fs.makeQualified(HPath(source)) if is_remote(source) else None
            while read is not None:
                if read.equals(target):
                    raise InputError(f"is also an input ({source}); refusing to overwrite it", file=given,
                                     hint="write the output to another folder")
                read = read.getParent()
        if fs.exists(target) and fs.getFileStatus(target).isDirectory():
            names = [status.getPath().getName() for status in fs.listStatus(target)]
            if names and FOLDER_MARKER not in names:
                raise InputError(f"is a folder that tkl-Score Workbench did not write ({len(names)} file(s) in it); "
                                 f"refusing to replace it", file=given,
                                 hint="name a new folder, or an earlier output of this tool")
        parent, name = target.getParent(), target.getName()
        temporary = HPath(parent, f".{name}.{uuid.uuid4().hex[:12]}.tklscore-tmp")
        try:
            self._write(frame, temporary.toString(), given)
            stream = fs.create(HPath(temporary, FOLDER_MARKER), True)
            stream.write(bytearray(b'{"written_by": "tkl-Score Workbench"}\n'))
            stream.close()
            if fs.exists(target):
                aside = HPath(parent, f".{name}.{uuid.uuid4().hex[:12]}.tklscore-old")
                if not fs.rename(target, aside):
                    raise InputError("the earlier output could not be moved aside", file=given)
                if not fs.rename(temporary, target):
                    fs.rename(aside, target)
                    raise InputError("the new output could not be moved into place; the earlier one is kept",
                                     file=given)
                fs.delete(aside, True)
            elif not fs.rename(temporary, target):
                raise InputError("the new output could not be moved into place", file=given)
        finally:
            if fs.exists(temporary):
                fs.delete(temporary, True)

    def scan(self, path: str, delimiter: str | None = None, encoding: str | None = None,
             relation: str = "__scan", keep_spaces: bool | None = None) -> Scan:
        """The file (or folder of part files) with ``__rid``: records numbered in the order
        of the files' names and, within a file, in file order — counted per block of the file
        in parallel, then offset by the records of the blocks before it (one file read in one
        piece: numbered as Spark reads it, with nothing counted first). A CSV's cells have
        the spaces around them stripped (Spark's ``trim``: U+0020 only) unless ``keep_spaces``."""
        from pyspark.sql import functions as F
        from pyspark.sql.window import Window

        from tklscore.core.tables.spaces import split_delimiter

        delimiter = split_delimiter(delimiter)[0]
        raw = relation
        if _is_local(path):  # a file or a folder of part files, never a pipe or a device
            existing_file(urlparse(path).path if path.startswith("file:") else path, "table file", folder=True)
        self.inputs.append(str(path))
        suffix = Path(urlparse(path).path).suffix.lower()
        kind = "Parquet" if suffix in _PARQUET or (suffix == "" and not _is_csv_folder(path)) else "CSV"
        delimiter = check_engine_file(path, kind, delimiter, encoding, self.name, late_lines_checked=True) or delimiter
        reader = self.spark.read
        try:
            if kind == "Parquet":
                frame = reader.parquet(path)
            else:
                options = {"header": "true", "inferSchema": "false", "quote": '"', "escape": '"',
                           "multiLine": "true", "mode": "FAILFAST", "nullValue": None, "emptyValue": ""}
                if delimiter:
                    options["sep"] = delimiter
                if encoding:
                    options["encoding"] = encoding
                frame = reader.options(**{k: v for k, v in options.items() if v is not None}).csv(path)
            columns = list(frame.columns)
            if kind == "CSV" and not self._keeps_spaces(keep_spaces):
                raw = f"{relation}__raw"
                self._view(raw, frame)
                frame = frame.select(*[F.trim(F.col(self.q(c))).alias(c) for c in columns])
            if len(frame.inputFiles()) == 1 and frame._jdf.rdd().getNumPartitions() == 1:
                # one file read in one piece (a CSV read multiLine always is, a small Parquet file):
                # Spark's increasing ids of the only partition are the records' positions, with no
                # job counting each block's records first
                self._keep(relation, frame.select(*[F.col(self.q(c)) for c in columns],
                                                  F.monotonically_increasing_id().alias("__rid")))
                return Scan(relation, columns, kind, str(path), raw)
            located = frame.select("*", F.col("_metadata.file_path").alias("__file"),
                                   F.col("_metadata.file_block_start").alias("__block"),
                                   F.monotonically_increasing_id().alias("__order"))
            blocks = (located.groupBy("__file", "__block").count()
                      .withColumn("__start", F.sum("count").over(Window.orderBy("__file", "__block")
                                                                 .rowsBetween(Window.unboundedPreceding, -1)))
                      .fillna(0, ["__start"]).drop("count"))
            within = Window.partitionBy("__file", "__block").orderBy("__order")
            numbered = (located.join(F.broadcast(blocks), ["__file", "__block"])
                        .withColumn("__rid", (F.col("__start") + F.row_number().over(within) - 1).cast("bigint"))
                        .select(*[F.col(self.q(c)) for c in columns], "__rid"))
            self._keep(relation, numbered)
        except InputError:
            raise
        except Exception as exc:
            raise InputError(f"not a readable {kind} file ({first_line(exc)})", file=str(path)) from None
        return Scan(relation, columns, kind, str(path), raw)


def _same_plan(a, b) -> bool:
    """Two DataFrames of the same analysed plan (the same result, as Spark's cache matches them)."""
    try:
        return bool(a._jdf.queryExecution().analyzed().sameResult(b._jdf.queryExecution().analyzed()))
    except Exception:  # noqa: BLE001 - not comparable: treated as different
        return False


def _is_csv_folder(path: str) -> bool:
    if not _is_local(path):
        return False
    folder = Path(path)
    return folder.is_dir() and any(p.suffix.lower() in (".csv", ".tsv", ".txt") for p in folder.iterdir())
