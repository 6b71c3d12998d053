"""The command line ``tklscore``: one module per command group, all on the core."""

from tklscore.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
