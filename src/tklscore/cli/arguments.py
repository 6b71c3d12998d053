"""Argument types shared by the command groups (argparse ``type=`` callables). Every
numeric option takes one of them: no option accepts NaN, and ``inf`` only where it means
something (``number_or_inf``)."""

from __future__ import annotations

import argparse
import decimal
import math

from tklscore.core.errors import InputError, check_seed
from tklscore.core.scoring.scores import parse_x


def column_list(text: str) -> list[str]:
    """``A,B,C`` → ``["A", "B", "C"]``; names may contain spaces, none may be empty."""
    items = [item.strip() for item in text.split(",")]
    if any(not item for item in items):
        raise argparse.ArgumentTypeError(f"empty name in the list '{text}'")
    return items


def x_value(text: str) -> float:
    """M-Score's x: a number ≥ 1 or ``inf`` (:func:`tklscore.core.scoring.scores.parse_x`)."""
    try:
        return parse_x(text)
    except InputError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def add_engine_arguments(parser) -> None:
    """``--engine``, ``--memory-limit``, ``--spark-master``, ``--spark-conf`` and
    ``--spark-timeout``: where a command computes (score, measures, disclosure-risk,
    release, suggest, report)."""
    group = parser.add_argument_group("engines (tables larger than memory)")
    group.add_argument("--engine", choices=["memory", "duckdb", "spark"], default="memory",
                       help="memory (default): load the tables; duckdb: the group-bys as SQL over the "
                            "Parquet/CSV files, out of core; spark: the same on Spark (pip install "
                            "'tklscore[spark]'), reading any path Spark reads (hdfs://, s3a://)")
    group.add_argument("--memory-limit", metavar="SIZE",
                       help="the engine's memory limit, e.g. 2GB (duckdb spills to disk beyond it; "
                            "spark: the driver's and executors' memory)")
    group.add_argument("--spark-master", metavar="URL",
                       help="Spark's master (local[N], spark://HOST:7077, yarn; default: local mode, "
                            "or the one spark-submit sets)")
    group.add_argument("--spark-conf", metavar="KEY=VALUE", type=spark_setting, action="append",
                       help="a setting for the Spark session (repeatable), e.g. spark.driver.host=10.0.0.2, "
                            "spark.executor.memory=4g, spark.hadoop.fs.s3a.endpoint=URL")
    group.add_argument("--spark-timeout", metavar="SECONDS", type=seconds,
                       help="seconds a cluster has to accept the application and start its first executor "
                            "(default 60), then an error says what is missing")


def source_of(args, path: str, roles=None, **options):
    """The :class:`~tklscore.core.source.Source` a command works on: the file ``path`` under
    ``roles`` (a callable: made once the file is read, so a file that cannot be read is
    said first), loaded or read by the engine ``--engine`` names — ``auto``: the
    application's rule, :mod:`tklscore.core.engines.choice` — (``options``: delimiter,
    encoding, keep_spaces, sheet), the one place the commands choose their engine."""
    from tklscore.core.source import open_source
    from tklscore.core.tables.roles import Roles

    engine = None if args.engine == "auto" else args.engine
    memory_limit, master = getattr(args, "memory_limit", None), getattr(args, "spark_master", None)
    spark_conf, spark_timeout = dict(getattr(args, "spark_conf", None) or ()), getattr(args, "spark_timeout", None)
    if engine not in (None, "memory") and options.get("sheet"):
        raise InputError(f"--engine {engine} reads Parquet and CSV files; convert the workbook first")
    source = open_source(path, Roles(), engine=engine, options=options, memory_limit=memory_limit, master=master,
                         spark_conf=spark_conf or None, spark_timeout=spark_timeout)
    return source.with_roles(roles() if callable(roles) else roles) if roles is not None else source


def records_output(args, inputs) -> str | None:
    """With an engine, a Parquet ``--output`` receives the per-record results, written by
    the engine (returned; None otherwise); the output is checked first (:func:`check_engine_output`)."""
    from pathlib import Path

    output = getattr(args, "output", None)
    if args.engine == "memory" or not output:
        return None
    check_engine_output(args, inputs)
    return output if Path(output).suffix.lower() in (".parquet", ".pq") else None


def check_engine_output(args, inputs) -> None:
    """With an engine, ``--output`` is checked before any work (never an input; a folder
    that exists, a file that can be written); Spark writes a Parquet output as a folder of
    part files (:func:`~tklscore.core.files.atomic.check_output_folder`: local, or a URI
    only Spark can write)."""
    from pathlib import Path

    from tklscore.core.files.atomic import check_output, check_output_folder

    output = getattr(args, "output", None)
    if args.engine == "memory" or not output:
        return
    parquet = Path(output).suffix.lower() in (".parquet", ".pq")
    check = check_output_folder if args.engine == "spark" and parquet else check_output
    check(output, [i for i in inputs if i])


def number(text: str) -> float:
    """A finite number (``nan``, ``inf`` and text that is no number refused)."""
    value = number_or_inf(text)
    if math.isinf(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
    return value


def number_or_inf(text: str) -> float:
    """A number, ``inf`` included (no limit); ``nan`` refused."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if math.isnan(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a number")
    return value


def whole_number(text: str) -> int:
    """A whole number (``3``, ``1e9``; not ``3.5``, ``1e-3`` or ``nan``). A value past 10^30
    is refused as such rather than built digit by digit (``1e999999999``)."""
    try:
        value = decimal.Decimal(text.strip())
    except decimal.InvalidOperation:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if not value.is_finite() or (value.adjusted() <= 30 and value != value.to_integral_value()):
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
    if value.adjusted() > 30:
        raise argparse.ArgumentTypeError(f"'{text}' is too large a number (more than 30 digits)")
    return int(value)


def seed(text: str) -> int:
    """A random seed: a whole number from 0 (:func:`tklscore.core.errors.check_seed`)."""
    try:
        return check_seed(whole_number(text))
    except InputError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def output_path(text: str) -> str:
    """A file or folder to write: an empty name is refused (it would otherwise mean stdout,
    or the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty name; give the file or folder to write to")
    return text


def spark_setting(text: str) -> tuple[str, str]:
    """``--spark-conf KEY=VALUE`` → (key, value), a key shaped like Spark's
    (:func:`tklscore.core.engines.spark_engine.parse_spark_setting`)."""
    from tklscore.core.engines.spark_engine import parse_spark_setting

    try:
        return parse_spark_setting(text)
    except InputError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def seconds(text: str) -> float:
    """A positive number of seconds (``--spark-timeout``)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive number of seconds")
    return value
