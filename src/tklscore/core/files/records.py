"""Writing per-record results (one row per published record) as JSON, CSV or Parquet,
column by column through Arrow: no Python object per cell, no loop over the records.

Floats are written with the shortest text that reads back as the same number, so a
JSON or CSV output holds full precision.

**CSV bound for a spreadsheet** (``--csv-safe``, and always the release report's CSV): a
text cell a spreadsheet would run as a formula — one starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return, such as an id ``=HYPERLINK(…)`` — is written with a
leading ``'``, which spreadsheets read as "this is text" (OWASP's advice on CSV injection).
Numbers stay numbers: a number column (floats, integers: scores, counts) is never changed,
and neither is a text cell that is a plain number (``-3``, ``+2.5``, ``-1e5``), which a
spreadsheet reads as that number, not as a formula. Everything else is written as it is.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

_NEEDS_ESCAPE = r'[\x00-\x1f"\\]'


def _text(value: str) -> pa.Scalar:
    return pa.scalar(value, pa.large_string())


def json_tokens(values) -> pa.Array:
    """Each value as a JSON token (text quoted and escaped, numbers in full precision)."""
    array = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(np.asarray(values))
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _json_strings(array.cast(pa.large_string()))
    if pa.types.is_integer(kind):
        return array.cast(pa.large_string())
    if pa.types.is_floating(kind):
        return pc.if_else(pc.is_finite(array), float_text(array), _text("null"))
    return _json_strings(pa.array([str(v) for v in array.to_pylist()], type=pa.large_string()))


def float_text(values) -> pa.Array:
    """Each float as Python's ``repr`` writes it (the shortest text that reads back as the
    same number: ``0.1``, ``3.0``, ``1e-05``, ``1e+16``), column-wise: Arrow writes the same
    digits, and the same text for 1e-4 ≤ |v| < 1e10 once whole numbers get their ``.0``;
    the few values outside that range are written by ``repr``."""
    array = values if isinstance(values, (pa.Array, pa.ChunkedArray)) else pa.array(np.asarray(values, dtype=np.float64))
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    array = array.cast(pa.float64())
    text = array.cast(pa.large_string())
    numbers = array.to_numpy(zero_copy_only=False)
    size = np.abs(numbers)
    with np.errstate(invalid="ignore"):
        whole = (numbers == np.trunc(numbers)) & (size < 1e10)
        apart = np.flatnonzero((((size < 1e-4) & (size > 0)) | (size >= 1e10)) & np.isfinite(numbers))
    if whole.any():  # Arrow writes 3.0 as 3
        text = pc.if_else(pa.array(whole), pc.binary_join_element_wise(text, _text(".0"), _text("")), text)
    if len(apart) == 0:
        return text
    written = text.to_numpy(zero_copy_only=False).astype(object)
    written[apart] = [repr(float(v)) for v in numbers[apart]]
    return pa.array(written, type=pa.large_string())


def _json_strings(text: pa.Array) -> pa.Array:
    text = pc.fill_null(text, "")
    special = pc.match_substring_regex(text, _NEEDS_ESCAPE)
    if pc.any(special).as_py():  # rare: escape just those values
        where = np.flatnonzero(special.to_numpy(zero_copy_only=False))
        quoted = pc.binary_join_element_wise(_text('"'), text, _text('"'), _text("")).to_pylist()
        for i in where:
            quoted[i] = json.dumps(text[int(i)].as_py(), ensure_ascii=False)
        return pa.array(quoted, type=pa.large_string())
    return pc.binary_join_element_wise(_text('"'), text, _text('"'), _text(""))


def records_json(records: pd.DataFrame, columns: list[str], indent: str = "    ") -> str:
    """``[{...}, {...}]`` with one record per line (``indent`` before each)."""
    if len(records) == 0:
        return "[]"
    return "[\n" + indent + _json_lines(records, columns, indent) + "\n" + indent[:-2] + "]"


def write_records_json(handle, batches, columns: list[str], indent: str = "    ") -> None:
    """:func:`records_json` of the records that ``batches`` (frames) hold, written batch by
    batch to ``handle``: the same text, never the whole table in memory."""
    started = False
    for batch in batches:
        if not len(batch):
            continue
        handle.write((",\n" + indent if started else "[\n" + indent) + _json_lines(batch, columns, indent))
        started = True
    handle.write("\n" + indent[:-2] + "]" if started else "[]")


def write_records_csv(handle, batches, columns: list[str], safe: bool = False) -> None:
    """:func:`records_csv` of the records that ``batches`` (frames) hold, written batch by
    batch to ``handle`` (the header once)."""
    header = True
    for batch in batches:
        if not len(batch):
            continue
        text = records_csv(batch, columns, safe)
        handle.write(text if header else text.split("\n", 1)[1])
        header = False
    if header:
        handle.write(records_csv(pd.DataFrame(columns=columns), columns, safe))


def _json_lines(records: pd.DataFrame, columns: list[str], indent: str) -> str:
    """The records' JSON objects, one a line, joined by ``,`` and a line break and ``indent``."""
    parts: list = []
    for i, column in enumerate(columns):
        parts.append(_text(("{" if i == 0 else ", ") + json.dumps(column) + ": "))
        parts.append(json_tokens(_arrow_column(records[column])))
    parts.append(_text("}"))
    lines = pc.binary_join_element_wise(*parts, _text(""))
    listed = pa.LargeListArray.from_arrays(pa.array([0, len(lines)], type=pa.int64()), lines)
    return pc.binary_join(listed, _text(",\n" + indent))[0].as_py()


FORMULA_STARTS = "=+-@\t\r"
"""The first characters that make a spreadsheet read a cell as a formula."""
PLAIN_NUMBER = r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?"
"""A number as a spreadsheet reads it (never a formula, though it may start with + or -)."""


def spreadsheet_safe(text: pa.Array) -> pa.Array:
    """Text cells a spreadsheet would run as a formula, with a leading ``'`` (see the
    module's documentation); a plain number is left as it is."""
    if isinstance(text, pa.ChunkedArray):
        text = text.combine_chunks()
    text = text.cast(pa.large_string())
    risky = pc.and_kleene(pc.match_substring_regex(text, "^[" + re.escape(FORMULA_STARTS) + "]"),
                          pc.invert(pc.match_substring_regex(text, f"^{PLAIN_NUMBER}$")))
    if not pc.any(risky).as_py():
        return text
    return pc.if_else(pc.fill_null(risky, False), pc.binary_join_element_wise(_text("'"), text, _text("")), text)


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its text cells :func:`spreadsheet_safe` (number columns unchanged)."""
    safe = {}
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values.dtype) or pd.api.types.is_bool_dtype(values.dtype):
            safe[column] = values
            continue
        cells = [None if pd.isna(v) else v if isinstance(v, str) else str(v) for v in values.astype(object)]
        text = spreadsheet_safe(pa.array(cells, type=pa.large_string()))
        safe[column] = pd.Series(text.to_pylist(), index=frame.index, dtype=object)
    return pd.DataFrame(safe, index=frame.index, columns=list(frame.columns))


def records_csv(records: pd.DataFrame, columns: list[str], safe: bool = False) -> str:
    """The records as CSV text (a header line, then one line per record, ``\\n`` line ends),
    as ``DataFrame.to_csv`` writes them: floats as ``repr``, a text holding a comma, a quote
    or a line break quoted with its quotes doubled (also a lone carriage return, which pandas
    leaves bare); built column by column. ``safe``: text cells :func:`spreadsheet_safe`."""
    prepare = spreadsheet_safe if safe else (lambda text: text)
    header = ",".join(_csv_text(prepare(pa.array(columns, type=pa.large_string()))).to_pylist())
    if len(records) == 0:
        return header + "\n"
    parts: list = []
    for i, column in enumerate(columns):
        if i:
            parts.append(_text(","))
        array = _arrow_column(records[column])
        if isinstance(array, pa.ChunkedArray):
            array = array.combine_chunks()
        kind = array.type
        if pa.types.is_floating(kind):
            cells = float_text(array)
            cells = pc.if_else(pc.is_nan(array), _text(""), cells) if pc.any(pc.is_nan(array)).as_py() else cells
        elif pa.types.is_integer(kind):
            cells = array.cast(pa.large_string())
        elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
            cells = _csv_text(prepare(array.cast(pa.large_string())))
        else:
            cells = _csv_text(prepare(pa.array([str(v) for v in array.to_pylist()], type=pa.large_string())))
        parts.append(pc.fill_null(cells, ""))
    lines = pc.binary_join_element_wise(*parts, _text(""))
    listed = pa.LargeListArray.from_arrays(pa.array([0, len(lines)], type=pa.int64()), lines)
    return header + "\n" + pc.binary_join(listed, _text("\n"))[0].as_py() + "\n"


def _csv_text(text: pa.Array) -> pa.Array:
    """Text cells quoted where CSV needs it (a comma, a quote, a line break)."""
    special = pc.match_substring_regex(text, r'[,"\r\n]')
    if not pc.any(special).as_py():
        return text
    quoted = pc.binary_join_element_wise(_text('"'), pc.replace_substring(text, '"', '""'), _text('"'), _text(""))
    return pc.if_else(special, quoted, text)


def _arrow_column(values: pd.Series) -> pa.Array:
    if values.dtype == object:
        return pa.array(values.to_numpy(), type=pa.large_string(), from_pandas=True)
    return pa.Array.from_pandas(values)


def write_records_parquet(records: pd.DataFrame, path) -> None:
    """The records as a Parquet file (the caller makes the write atomic)."""
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(records, preserve_index=False)
    pq.write_table(table, path)
