"""Reading JSON documents: the one reader for every JSON input (projects, data-flow models,
hierarchy definitions, JSON-LD vocabularies and models). The text comes through the shared
text reader (:mod:`tklscore.core.files.text`: special files refused, byte-order marks,
encodings); bad syntax is an error naming the line and column; a document nested deeper
than :data:`MAX_JSON_DEPTH` is refused — JSON's parser and the code walking a document
would otherwise hit Python's recursion limit."""

from __future__ import annotations

import json
import os

from tklscore.core.errors import InputError
from tklscore.core.files.text import read_text

MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects a JSON input may have (ours need fewer than 10)."""


def read_json(path: str | os.PathLike, what: str = "JSON file"):
    """The document in the JSON file ``path``; ``what`` names it in messages."""
    return parse_json(read_text(path, what), str(path), what)


def parse_json(text: str, name: str, what: str = "JSON file"):
    """The document in ``text`` (read from ``name``)."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"is not a valid {what} (not JSON: {error.msg} at line {error.lineno}, column {error.colno})",
                         file=name, row=error.lineno) from None
    except RecursionError:
        raise _too_deep(name, what) from None
    # a document cannot nest deeper than it has brackets: most are checked without a walk
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH and _depth_exceeds(document, MAX_JSON_DEPTH):
        raise _too_deep(name, what)
    return document


def _too_deep(name: str, what: str) -> InputError:
    return InputError(f"is nested deeper than {MAX_JSON_DEPTH} levels of arrays and objects, more than any {what} "
                      f"needs", file=name, hint="is it the right file? it may be damaged, or made to exhaust a reader")


def _depth_exceeds(document, limit: int) -> bool:
    """Whether arrays and objects nest deeper than ``limit`` in ``document`` (walked with
    an explicit stack: no recursion)."""
    stack = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False
