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


def engine_requested(args) -> bool:
    """An engine option was given: the command runs in ``--engine`` (and says when that is
    memory, which takes none of them: :func:`open_engine`)."""
    return (args.engine != "memory" or bool(args.memory_limit) or args.spark_master is not None
            or bool(args.spark_conf) or args.spark_timeout is not None)


def open_engine(args):
    """The back-end ``--engine`` names, with its options (``--memory-limit``, ``--spark-*``)."""
    from tklscore.core.engines import open_backend

    check_engine_options(args)
    return open_backend(args.engine, args.memory_limit, args.spark_master, args.keep_spaces,
                        spark_conf=dict(args.spark_conf or ()), spark_timeout=args.spark_timeout)


def check_engine_options(args) -> None:
    """The in-memory engine takes no engine option: an error names those given."""
    if args.engine == "memory":
        given = [name for name, value in (("--memory-limit", args.memory_limit), ("--spark-master", args.spark_master),
                                          ("--spark-conf", args.spark_conf), ("--spark-timeout", args.spark_timeout))
                 if value]
        only_spark = " (--spark-* to spark only)" if any(g.startswith("--spark") for g in given) else ""
        raise InputError(f"the in-memory engine takes no {' or '.join(given)}: engine options apply to --engine duckdb "
                         f"or spark{only_spark}")
