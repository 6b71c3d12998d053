"""The command line ``tklscore``: builds the parser from the command groups and maps errors to exit codes.

A stable interface for scripts: errors go to stderr with exit status 2 and name the
file/row/column at fault; warnings go to stderr and never change the output format.
Each command group is a module with ``register(subparsers)`` whose parsers set
``handler=run`` (``run(args) -> exit status``); a new group is one line in ``COMMAND_GROUPS``.
"""

from __future__ import annotations

import argparse
import os
import sys

from tklscore import __version__
from tklscore.cli import ahp, demo, example, gui, model, pia, release, report, score, taxonomy
from tklscore.core.errors import InputError

COMMAND_GROUPS = [
    score,
    report,
    example,
    demo,
    ahp,
    taxonomy,
    model,
    pia,
    release,
    gui,
]


class UsageError(Exception):
    """A command-line argument is missing or malformed."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tklscore", description="Misuseability scores of a data release: "
                                     "tkl-Score, tkl-Score_max, M-Score and L-Severity.")
    parser.add_argument("--version", action="version", version=f"tklscore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for group in COMMAND_GROUPS:
        group.register(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(f"tklscore: error: {error}", file=sys.stderr)
        return 2
    except SystemExit as done:  # --help, --version
        return int(done.code or 0)
    try:
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
