"""The patient view's plain words: a fact as a sentence, an arrow's words, where a patient's
preferences are kept, and the yellow notice box of sample content."""

from __future__ import annotations

import os
import re
from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QLabel

from tklscore.core.files.resources import resource_path
from tklscore.core.pia.facts import local_name

TITLE = "Patient Data Visualizer"

PHRASES = {"ISA": "is a", "treatedBy": "is treated by", "given": "was given", "likelyHas": "likely has",
           "givenFor": "is given for", "treats": "treats", "diagnosedWith": "is diagnosed with"}
EDGE_WORDS = {"ISA": "is a", "type": "is a", "subClassOf": "is a"}
PREFERENCE_SHORT = {0: "fine to release", 1: "prefer not", 2: "should not", 3: "must not"}


def term_name(term) -> str:
    return local_name(term)


def words(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).lower()


def edge_words(predicate) -> str:
    name = term_name(predicate)
    return EDGE_WORDS.get(name) or words(name)


def sentence(triple) -> str:
    """``Bob is treated by Leonard``: a fact in words."""
    s, p, o = triple
    name = term_name(p)
    return f"{term_name(s)} {PHRASES.get(name) or words(name)} {term_name(o)}"


def preferences_path_for(data_path: str | Path) -> Path:
    """Where the preferences of a patient data file live: ``<name>.preferences.csv`` beside it,
    or in the application's data folder when the data is a bundled example or read-only."""
    data_path = Path(data_path).resolve()
    name = data_path.stem + ".preferences.csv"
    bundled = resource_path("pia/bob_data.ttl").resolve().parents[1]
    if os.access(data_path.parent, os.W_OK) and not data_path.is_relative_to(bundled):
        return data_path.with_name(name)
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
                  or Path.home() / ".tklscore") / "patient"
    return folder / name


def banner(text: str, colour: str = "#fff4ce", border: str = "#e0c36a") -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet(f"background:{colour}; border:1px solid {border}; border-radius:4px; padding:6px;"
                        "color:#3b3000;")
    return label
