"""Spaces around values: the one rule, for every place a value is read or matched.

A delimited file (CSV/TSV) often puts a space after each delimiter — the UCI's own Adult
file is written ``39, State-gov, 77516, ...`` — and a person reading it sees ``State-gov``,
not `` State-gov``. So, as Python's ``skipinitialspace`` and ARX do, the spaces (U+0020)
around every cell of a delimited table are **not part of the value**: the loader, the
DuckDB and Spark engines and the out-of-core description strip them on reading, quoted
or not, and say in which columns they did (:class:`SpacesStripped`). A value the table
view shows is then the value a hierarchy rule, a filter or a weight matches.

Files where such spaces matter are read with ``keep_spaces`` (``--keep-spaces``, the
Release view's "Keep spaces around values" box, kept in the project): every value stays
as written, the table view marks the spaces (:func:`visible_spaces`), and a rule or a
weights file names such a value in double quotes (``" Female"``), since unquoted text
there is trimmed too.

``--delimiter ", "`` (a delimiter followed by spaces) reads as ``,`` with the spaces
stripped (:func:`split_delimiter`): the same rule, spelled the way the file looks.

Excel and Parquet cells are kept as stored (their cells have explicit boundaries).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

SPACE = " "
KEEP_OPTION = "keep_spaces"  # the key in a source's / release file's read options


@dataclass(frozen=True)
class SpacesStripped:
    """The columns whose values had spaces stripped on reading, and where the spaces were."""

    columns: tuple[str, ...] = ()
    leading: bool = False
    trailing: bool = False

    def __bool__(self) -> bool:
        return bool(self.columns)

    def message(self, how_to_keep: str = "--keep-spaces keeps them") -> str:
        """``leading spaces removed in 14 columns (age, workclass, …); --keep-spaces keeps them``."""
        if not self.columns:
            return ""
        where = ("leading and trailing" if self.leading and self.trailing
                 else "leading" if self.leading else "trailing")
        count = len(self.columns)
        shown = ", ".join(self.columns[:6]) + (", …" if count > 6 else "")
        text = f"{where} spaces removed in {count} column{'s' if count != 1 else ''} ({shown})"
        return f"{text}; {how_to_keep}" if how_to_keep else text


def split_delimiter(delimiter: str | None) -> tuple[str | None, bool]:
    """A delimiter as given and whether it implies stripping: ``", "`` → (``","``, True)
    (a one-character delimiter followed by spaces); any other text is returned as is."""
    if isinstance(delimiter, str) and len(delimiter) > 1 and delimiter[0] != SPACE \
            and delimiter[1:].strip(SPACE) == "":
        return delimiter[0], True
    return delimiter, False


def check_keep(delimiter: str | None, keep_spaces: bool) -> None:
    """A delimiter spelled with its spaces and ``keep_spaces`` contradict each other."""
    from tklscore.core.errors import InputError

    if keep_spaces and split_delimiter(delimiter)[1]:
        raise InputError(f"the delimiter {delimiter!r} removes the spaces after each delimiter, "
                         f"but keeping spaces was asked for",
                         hint=f"give --delimiter {delimiter[0]!r} with --keep-spaces, or leave --keep-spaces out")


def strip_frame(frame: pd.DataFrame) -> tuple[pd.DataFrame, SpacesStripped]:
    """The frame (text columns) with the spaces around every cell stripped, and where it
    changed anything. Vectorised: Arrow text is trimmed by Arrow's kernels; a column
    without a cell that starts or ends with a space is returned untouched."""
    columns, leading, trailing = [], False, False
    out = {}
    for column in frame.columns:
        values = frame[column]
        has_lead, has_trail = _has_spaces(values)
        if has_lead or has_trail:
            values = values.str.strip(SPACE)
            columns.append(str(column))
            leading, trailing = leading or has_lead, trailing or has_trail
        out[column] = values
    if not columns:
        return frame, SpacesStripped()
    stripped = pd.DataFrame(out, columns=frame.columns, index=frame.index)
    stripped.attrs.update(frame.attrs)
    return stripped, SpacesStripped(tuple(columns), leading, trailing)


def _has_spaces(values: pd.Series) -> tuple[bool, bool]:
    """Whether a cell of the column starts, and whether one ends, with a space: by Arrow's
    kernels over Arrow text (no boolean column in pandas), else by pandas."""
    arrow = getattr(values.array, "__arrow_array__", None)
    if arrow is None:
        return bool(values.str.startswith(SPACE).any()), bool(values.str.endswith(SPACE).any())
    import pyarrow.compute as pc

    text = arrow()
    if not _may_hold_space(text):
        return False, False
    return bool(pc.any(pc.starts_with(text, SPACE)).as_py()), bool(pc.any(pc.ends_with(text, SPACE)).as_py())


_SCAN_BYTES = 1 << 20


def _may_hold_space(text) -> bool:
    """Whether the bytes behind an Arrow text column hold a space anywhere (a column without
    one has no cell to strip): read a MiB at a time, stopping at the first space — a few
    milliseconds for a million cells, where a test of every cell's first and last character
    took ten. A space outside a sliced column's cells only sends it to that test."""
    import numpy as np
    import pyarrow as pa

    chunks = text.chunks if isinstance(text, pa.ChunkedArray) else [text]
    space = ord(SPACE)
    for chunk in chunks:
        buffers = chunk.buffers()
        if len(buffers) < 3 or buffers[2] is None:
            continue
        data = np.frombuffer(buffers[2], dtype=np.uint8)
        for start in range(0, len(data), _SCAN_BYTES):
            if (data[start:start + _SCAN_BYTES] == space).any():
                return True
    return False


def strip_value(text: str) -> str:
    """One cell as the rule reads it (for text read cell by cell)."""
    return text.strip(SPACE)


def visible_spaces(text: str) -> str:
    """The value with the spaces around it made visible (``␣Female``): what the table view
    shows for a value kept with its spaces, so that what is shown is what a rule matches."""
    if not text or (text[0] != SPACE and text[-1] != SPACE):
        return text
    core = text.strip(SPACE)
    if not core:
        return "␣" * len(text)
    lead = len(text) - len(text.lstrip(SPACE))
    trail = len(text) - len(text.rstrip(SPACE))
    return "␣" * lead + core + "␣" * trail


def spaces_tip(text: str) -> str:
    """The value as a tooltip says it, naming the spaces kept around it."""
    lead = len(text) - len(text.lstrip(SPACE))
    trail = len(text) - len(text.rstrip(SPACE))
    if not lead and not trail or not text.strip(SPACE):
        return text
    parts = [f"{n} {where} space{'s' if n != 1 else ''}" for n, where in ((lead, "leading"), (trail, "trailing")) if n]
    return f"'{text}' (kept with {' and '.join(parts)}; a rule or weight names it in quotes: {quote_value(text)})"


def sql_trim(expression: str) -> str:
    """``expression`` (text) with the spaces around it stripped, in SQL that DuckDB and
    Spark SQL both run (``TRIM(BOTH ' ' FROM x)``; both engines remove only U+0020)."""
    return f"TRIM(BOTH ' ' FROM {expression})"


def quote_value(value: str) -> str:
    """A value as a rule or a weights file writes it: in double quotes when the unquoted
    text would not read back as the value (spaces around it, a comma, a quote, ``->``)."""
    if value != value.strip(SPACE) or any(mark in value for mark in (",", '"', "->")) or value == "":
        return '"' + value.replace('"', '""') + '"'
    return value


def split_listed(text: str, separator: str = ",") -> list[tuple[str, bool]]:
    """Values separated by ``separator``, each ``(value, quoted)``: unquoted ones trimmed
    of spaces, double-quoted ones kept exactly (``""`` inside is one quote). Raises
    ValueError for an unclosed quote or text after a closing quote."""
    values: list[tuple[str, bool]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] == SPACE:
            i += 1
        if i < n and text[i] == '"':
            i += 1
            chars = []
            while True:
                if i >= n:
                    raise ValueError("a quoted value has no closing quote")
                if text[i] == '"':
                    if i + 1 < n and text[i + 1] == '"':
                        chars.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                chars.append(text[i])
                i += 1
            while i < n and text[i] == SPACE:
                i += 1
            if i < n and not text.startswith(separator, i):
                raise ValueError("text after a closing quote")
            values.append(("".join(chars), True))
        else:
            end = text.find(separator, i)
            end = n if end < 0 else end
            values.append((text[i:end].strip(SPACE), False))
            i = end
        if i >= n:
            return values
        i += len(separator)
