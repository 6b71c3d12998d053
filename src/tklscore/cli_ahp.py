"""`tklscore ahp ...` (being written; registers nothing yet)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `ahp` subcommand; its parser sets `handler=run` (run(args) -> exit status)."""
