"""``tklscore example thesis --dir DIR``: write a built-in example's files."""

from __future__ import annotations

import argparse

from tklscore.cli.arguments import output_path
from tklscore.core.examples import write_thesis_example


def register(commands: argparse._SubParsersAction) -> None:
    example = commands.add_parser("example", help="write a built-in example's files")
    example.add_argument("name", choices=["thesis"], help="thesis: Table 3.1, Table 3.6 (Scenario 1), Table 4.2")
    example.add_argument("--dir", required=True, metavar="DIR", type=output_path, help="folder to write to")
    example.set_defaults(handler=run)


def run(args) -> int:
    for path in write_thesis_example(args.dir):
        print(path)
    return 0
