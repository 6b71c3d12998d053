"""Files shipped in ``resources/`` (the DSO vocabulary, the thesis taxonomy, ...)."""

from __future__ import annotations

import sys
from pathlib import Path

from tklscore.core.errors import InputError


def resource_path(name: str) -> Path:
    """``resources/<name>`` of a source checkout, else of the installed data files."""
    for folder in (Path(__file__).resolve().parents[4] / "resources",
                   Path(sys.prefix) / "share" / "tklscore" / "resources"):
        if (folder / name).is_file():
            return folder / name
    raise InputError(f"resource '{name}' is missing from this installation of tklscore")
