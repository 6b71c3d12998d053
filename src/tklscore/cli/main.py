"""The command line ``tklscore``: builds the parser from the command groups and maps errors to exit codes.

A stable interface for scripts: errors go to stderr with exit status 2 and name the
file/row/column at fault; warnings go to stderr and never change the output format.
Each command group is a module with ``register(subparsers)`` whose parsers set
``handler=run`` (``run(args) -> exit status``); a new group is one line in ``COMMAND_GROUPS``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

from tklscore import __version__
from tklscore.core.errors import InputError
from tklscore.core.files.text import InputNote
from tklscore.core.memory import set_memory_policy

# Modules of tklscore.cli, imported only when needed: a command whose name is a module's
# builds the parser of that module alone, so `tklscore score` never loads RDF or Qt and
# `tklscore --version` loads nothing.
COMMAND_GROUPS = [
    "score",
    "describe",
    "report",
    "example",
    "demo",
    "ahp",
    "taxonomy",
    "model",
    "pia",
    "release",
    "measures",
    "disclosure_risk",
    "learn",
    "pseudonymization",
    "gui",
]


class UsageError(Exception):
    """A command-line argument is missing or malformed."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser(only: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command group (``only``: of those groups)."""
    parser = _Parser(prog="tklscore", description="Misuseability scores of a data release: "
                                     "tkl-Score, tkl-Score_max, M-Score and L-Severity.")
    parser.add_argument("--version", action="version", version=f"tklscore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in COMMAND_GROUPS if only is None else only:
        importlib.import_module(f"tklscore.cli.{group}").register(commands)
    return parser


def _groups_for(argv: list[str]) -> list[str] | None:
    """The groups the parser needs for ``argv`` (None: all of them)."""
    if argv == ["--version"]:
        return []
    first = next((a for a in argv if not a.startswith("-")), None)
    return [first] if first in COMMAND_GROUPS else None


def _show_note(message, category, filename, lineno, file=None, line=None) -> None:
    """An :class:`InputNote` (what a reader did to an input) as ``tklscore: note: ...``;
    any other warning as Python shows it."""
    if issubclass(category, InputNote):
        print(f"tklscore: note: {message}", file=sys.stderr)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def main(argv: list[str] | None = None) -> int:
    set_memory_policy()   # the process's memory in small pages (core/memory.py)
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    parser = build_parser(_groups_for(argv))
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(f"tklscore: error: {error}", file=sys.stderr)
        return 2
    except SystemExit as done:  # --help, --version
        return int(done.code or 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", InputNote)
            warnings.showwarning = _show_note
            return args.handler(args)
    except InputError as error:
        print(f"tklscore: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head: the reader has gone, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        print(f"tklscore: error: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug, not bad input: say so without a traceback
        if os.environ.get("TKLSCORE_DEBUG"):
            raise
        print(f"tklscore: internal error: {error.__class__.__name__}: {error} "
              f"(please report it; TKLSCORE_DEBUG=1 shows the details)", file=sys.stderr)
        return 1
