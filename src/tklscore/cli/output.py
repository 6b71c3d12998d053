"""What the commands share about their inputs and outputs: the ``--format``/``--output``
and ``--delimiter``/``--encoding`` arguments, and writing a command's text to a file
(atomically, never over one of its inputs) or to stdout."""

from __future__ import annotations

import argparse
import sys
from typing import Iterable

from tklscore.cli.arguments import output_path
from tklscore.core.files.atomic import atomic_write


def add_output_arguments(parser: argparse.ArgumentParser, formats: Iterable[str] = ("table", "json"),
                         default: str = "table", format_help: str | None = None,
                         output_help: str = "write to FILE (atomically) instead of stdout") -> None:
    parser.add_argument("--format", choices=list(formats), default=default, help=format_help)
    parser.add_argument("--output", metavar="FILE", type=output_path, help=output_help)


def add_csv_safe_argument(parser: argparse.ArgumentParser, what: str = "the CSV output") -> None:
    """``--csv-safe``: CSV bound for a spreadsheet (core/files/records.py)."""
    parser.add_argument("--csv-safe", action="store_true",
                        help=f"write {what} for a spreadsheet: a text cell starting with =, +, -, @, a tab or a "
                             f"carriage return gets a leading ' so that it is never run as a formula (numbers, "
                             f"negative ones included, stay numbers)")


def add_text_input_arguments(parser: argparse.ArgumentParser, what: str = "CSV/TSV inputs") -> None:
    parser.add_argument("--delimiter", help=f"delimiter of {what} (default: detected; ', ' reads as ',' "
                                            f"with the spaces after it removed)")
    parser.add_argument("--encoding", help=f"encoding of {what} (default: detected)")
    add_keep_spaces_argument(parser)


def add_keep_spaces_argument(parser: argparse.ArgumentParser) -> None:
    """``--keep-spaces``: every command that reads a source takes it (core/tables/spaces.py)."""
    parser.add_argument("--keep-spaces", action="store_true",
                        help="keep the spaces around CSV/TSV values as written (by default they are removed, "
                             "'a, b' reads as 'a' and 'b', and a note says in which columns)")


def note_spaces(table, what: str | None = None) -> None:
    """Say on stderr where the spaces around values were removed from a table read (a
    loaded Table or an out-of-core SourceSummary)."""
    stripped = getattr(table, "spaces_stripped", table)
    if stripped:
        name = what or getattr(table, "name", None) or getattr(table, "path", "")
        print(f"tklscore: note: {name}: {stripped.message()}", file=sys.stderr)


def write_output(text: str, output: str | None, inputs: Iterable[str | None] = ()) -> None:
    """``text`` into the file ``output`` (atomically; refused when it is one of ``inputs``),
    or to stdout when there is none."""
    if output:
        with atomic_write(output, inputs=[i for i in inputs if i]) as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)


def note_aggregate(user) -> None:
    """Says on stderr when an engine's designer or scoring session reused the source's
    cached aggregate, did not build it, or could not keep it (core/engines/finest.py)."""
    finest = getattr(user, "finest", None)
    if finest is not None and finest.said:
        print(f"tklscore: note: {finest.note}", file=sys.stderr)
