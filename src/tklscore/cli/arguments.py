"""Argument types shared by the command groups (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse

from tklscore.core.errors import InputError
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
