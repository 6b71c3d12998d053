"""Writing per-record results (one row per published record) as JSON, CSV or Parquet,
column by column through Arrow: no Python object per cell, no loop over the records.

Floats are written with the shortest text that reads back as the same number, so a
JSON or CSV output holds full precision.
"""

from __future__ import annotations

import json

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
        text = array.cast(pa.float64()).cast(pa.large_string())
        whole = pc.match_substring_regex(text, r"^-?[0-9]+$")  # 3 is written 3.0, as Python does
        text = pc.if_else(whole, pc.binary_join_element_wise(text, _text(".0"), _text("")), text)
        finite = pc.is_finite(array)
        return pc.if_else(finite, text, _text("null"))
    return _json_strings(pa.array([str(v) for v in array.to_pylist()], type=pa.large_string()))


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
    parts: list = []
    for i, column in enumerate(columns):
        parts.append(_text(("{" if i == 0 else ", ") + json.dumps(column) + ": "))
        parts.append(json_tokens(_arrow_column(records[column])))
    parts.append(_text("}"))
    lines = pc.binary_join_element_wise(*parts, _text(""))
    listed = pa.LargeListArray.from_arrays(pa.array([0, len(lines)], type=pa.int64()), lines)
    body = pc.binary_join(listed, _text(",\n" + indent))[0].as_py()
    return "[\n" + indent + body + "\n" + indent[:-2] + "]"


def _arrow_column(values: pd.Series) -> pa.Array:
    if values.dtype == object:
        return pa.array(values.to_numpy(), type=pa.large_string(), from_pandas=True)
    return pa.Array.from_pandas(values)


def write_records_parquet(records: pd.DataFrame, path) -> None:
    """The records as a Parquet file (the caller makes the write atomic)."""
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(records, preserve_index=False)
    pq.write_table(table, path)
