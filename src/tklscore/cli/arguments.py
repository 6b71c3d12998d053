"""Argument types shared by the command groups (argparse ``type=`` callables)."""

from __future__ import annotations

import argparse
import math


def column_list(text: str) -> list[str]:
    """``A,B,C`` → ``["A", "B", "C"]``; names may contain spaces, none may be empty."""
    items = [item.strip() for item in text.split(",")]
    if any(not item for item in items):
        raise argparse.ArgumentTypeError(f"empty name in the list '{text}'")
    return items


def x_value(text: str) -> float:
    """M-Score's x: a number ≥ 1 or ``inf``."""
    if text.strip().lower() in ("inf", "infinity", "∞"):
        return math.inf
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number or 'inf'") from None
    if math.isnan(value) or value < 1:
        raise argparse.ArgumentTypeError(f"x must be at least 1 (or inf), not {text}")
    return value
