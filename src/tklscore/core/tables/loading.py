"""Loading a table (CSV/TSV, Excel, Parquet) into pandas, keeping values as written.

Every cell is kept as the text it was written as (ids stay strings, ``007`` stays
``007``). A missing cell (empty in CSV, NaN/None in Excel or Parquet) becomes the empty
string: for a categorical quasi-identifier or sensitive attribute it is a value of its
own. A continuous column must parse as numbers; see :meth:`Table.numeric`. The spaces
around the cells of a CSV/TSV file are stripped unless ``keep_spaces`` (see
:mod:`tklscore.core.tables.spaces`); ``Table.spaces_stripped`` says where.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import os
import re
import tempfile
import warnings
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pyarrow as pa

from tklscore.core.errors import InputError, existing_file, shorten
from tklscore.core.files.text import (FIELD_LIMIT, InputNote, check_cell_length, check_delimiter, csv_rows,
                                      decode_lines, decode_text, mixed_lines_note, refuse_binary, refuse_mixed_lines,
                                      unicode_encoding)
from tklscore.core.tables.spaces import SpacesStripped, check_keep, split_delimiter, strip_frame

MISSING = ""
TEXT = pd.StringDtype("pyarrow", na_value=np.nan)  # Arrow-backed text: no Python object per cell
_SAMPLE_BYTES = 256 * 1024
_CHUNKED_BYTES = 8 * 1024 * 1024  # files this large are read in chunks when progress is wanted
_CHUNK_ROWS = 100_000
_DELIMITERS = [",", ";", "\t", "|"]
TEXT_SUFFIXES = (".csv", ".tsv", ".txt")
EXCEL_SUFFIXES = (".xlsx", ".xlsm", ".xls")
PARQUET_SUFFIXES = (".parquet", ".pq")
_EXCEL = set(EXCEL_SUFFIXES)
_PARQUET = set(PARQUET_SUFFIXES)


class Table:
    """A loaded table. ``frame`` is its text view: one str column per column of the file,
    values as written (``007`` stays ``007``, a missing cell is the empty string).

    A Parquet file's typed columns (integers, floats) stay typed in ``typed``: they are
    factorised as numbers (:meth:`codes`) and turned into text only where text is asked
    for (:meth:`text`, or ``frame``, built on first use)."""

    def __init__(self, frame: pd.DataFrame | None, name: str = "<table>", kind: str = "memory",
                 delimiter: str | None = None, encoding: str | None = None,
                 typed: pd.DataFrame | None = None):
        if frame is None and typed is None:
            raise ValueError("a Table needs a text frame or typed columns")
        self._frame = frame
        self.typed = typed
        self.name = name
        self.kind = kind  # csv | excel | parquet | memory
        self.delimiter = delimiter
        self.encoding = encoding
        self.notes: list[str] = []                      # what the reader did that the user should know
        self.keep_spaces = False                        # read with the spaces around values kept
        self.spaces_stripped = SpacesStripped()         # where the spaces around values were stripped
        self._numeric: dict[str, np.ndarray] = {}
        self._text: dict[str, pd.Series] = {}
        self._codes: dict = {}
        self._numeric_counts: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._numeric_codes: dict = {}
        self._numeric_parts: dict = {}   # (text codes, parsed distinct texts) or (None, numbers): _number_parts
        self.id_index: dict[str, object] = {}  # identifier column -> its validated ids (tables.published.source_ids)
        self._columns: tuple[pd.Index | None, list[str]] = (None, [])

    def __repr__(self) -> str:
        return f"Table(name={self.name!r}, kind={self.kind!r}, rows={len(self)}, columns={self.columns!r})"

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "<table>") -> "Table":
        return cls(_as_text(frame, name), name=name)

    @property
    def frame(self) -> pd.DataFrame:
        if self._frame is None:
            self._frame = pd.DataFrame({c: self.text(c) for c in self.typed.columns},
                                       columns=list(self.typed.columns), index=pd.RangeIndex(len(self.typed)))
        return self._frame

    @property
    def columns(self) -> list[str]:
        index = (self._frame if self._frame is not None else self.typed).columns
        if self._columns[0] is not index:   # an Index of Arrow text yields its names one by one, slowly
            self._columns = (index, list(index))
        return list(self._columns[1])

    def __len__(self) -> int:
        return len(self._frame if self._frame is not None else self.typed)

    def text(self, column: str) -> pd.Series:
        """The column as text, values as written (missing: the empty string)."""
        if self._frame is not None:
            return self._frame[column]
        if column not in self._text:
            self.require_columns([column])
            values = self.typed[column]
            self._text[column] = values if _is_text(values) else _column_text(values)
        return self._text[column]

    def text_at(self, column: str, positions: np.ndarray) -> np.ndarray:
        """The text of the column at the given rows (an array of str)."""
        return self.text_series_at(column, positions).to_numpy(dtype=object)

    def text_series_at(self, column: str, positions: np.ndarray) -> pd.Series:
        """:meth:`text_at` as text of the loader's type (Arrow-backed: no Python string per cell)."""
        if self._frame is not None or column in self._text:
            return self.text(column).iloc[positions]
        values = self.values(column).iloc[positions]
        return values if _is_text(values) else _column_text(values)

    def values(self, column: str) -> pd.Series:
        """The column as stored: typed for a Parquet number column, else text."""
        if self.typed is not None and column in self.typed.columns:
            return self.typed[column]
        return self.text(column)

    def codes(self, column: str) -> "Codes":
        """Factorised codes of a categorical column; the uniques are text as written."""
        from tklscore.core.tables.codes import factorize

        if column in self._codes:
            return self._codes[column]
        self.require_columns([column])
        values = self.values(column)
        codes = factorize(values)
        if not _is_text(values):
            codes = _with_text_uniques(codes)
        self._codes[column] = codes
        return codes

    def empty_count(self, column: str) -> int:
        """How many cells of the column hold the empty value (from its codes when they are
        at hand: no pass over the cells when no value is empty)."""
        values = self.values(column)
        if _is_text(values) and column not in self._codes:
            return int((values == MISSING).sum())
        codes = self.codes(column)
        empty = np.flatnonzero(codes.uniques == MISSING)
        return int(np.count_nonzero(codes.codes == empty[0])) if len(empty) else 0

    def row_number(self, position: int) -> int:
        """The number a user sees for a 0-based record position: files with a header line
        count it as row 1 (as a spreadsheet or text editor shows them)."""
        return position + 2 if self.kind in ("csv", "excel") else position + 1

    def require_columns(self, columns, what: str = "column") -> None:
        present = self.columns
        missing = [c for c in columns if c not in present]
        if missing:
            raise InputError(
                f"{what} {', '.join(repr(shorten(c)) for c in missing)} not found; the table has "
                f"columns {', '.join(repr(shorten(c)) for c in present)}",
                file=self.name)

    def numeric(self, column: str) -> np.ndarray:
        """The column parsed as finite numbers (float64), or an error naming the first bad row."""
        if column not in self._numeric:
            codes, numbers = self._number_parts(column)
            self._numeric[column] = numbers if codes is None else numbers[codes]
        return self._numeric[column]

    def _number_parts(self, column: str) -> tuple[np.ndarray | None, np.ndarray]:
        """The column's numbers checked finite: (None, every row's number) for a typed number column,
        else (each row's code, each distinct text's number) — the texts hashed once and each
        distinct text parsed and checked once, no number gathered per row (kept until
        :meth:`numeric` asks); or an error naming the first bad row."""
        if column not in self._numeric_parts:
            self.require_columns([column])
            stored = self.values(column)
            if not _is_text(stored) and pd.api.types.is_numeric_dtype(stored.dtype) \
                    and not pd.api.types.is_bool_dtype(stored.dtype):
                codes, numbers = None, stored.to_numpy(dtype="float64", na_value=np.nan)
                bad = ~np.isfinite(numbers)
            else:
                # parse each distinct text once: O(n) hashing plus O(distinct) parsing
                from tklscore.core.tables.codes import factorize

                coded = factorize(stored)
                codes, uniques = coded.codes, coded.uniques
                parsed = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce")
                numbers = parsed.to_numpy(dtype="float64", na_value=np.nan)
                bad = ~np.isfinite(numbers)
                if bad.any():
                    bad = bad[codes]
            if bad.any():
                first = int(np.flatnonzero(bad)[0])
                raw = self.text(column).iloc[first]
                shown = "an empty cell" if raw == MISSING else f"'{shorten(raw)}'"
                raise InputError(
                    f"continuous column holds {shown}, which is not a number "
                    f"({int(bad.sum())} such cell(s) in all)",
                    file=self.name, row=self.row_number(first), column=column,
                    hint="fix the value, or treat the column as categorical")
            if codes is None:
                self._numeric[column] = numbers
            self._numeric_parts[column] = (codes, numbers)
        return self._numeric_parts[column]

    def numeric_codes(self, column: str) -> "Codes":
        """A continuous column's distinct numbers in increasing order (``uniques``) and each
        row's index into them: from the distinct texts parsed once when the column was text
        (no second pass hashing a million numbers), else by factorising the numbers."""
        from tklscore.core.tables.codes import Codes, factorize

        if column not in self._numeric_codes:
            codes, numbers = self._number_parts(column)
            if codes is None:
                self._numeric_codes[column] = factorize(numbers, ordered=True)
            else:
                distinct, rank = np.unique(numbers, return_inverse=True)
                self._numeric_codes[column] = Codes(rank.reshape(-1).astype(np.int64)[codes], distinct)
        return self._numeric_codes[column]

    def numeric_counts(self, column: str) -> tuple[np.ndarray, np.ndarray]:
        """The distinct numbers of a continuous column in increasing order and how many rows
        hold each (kept: a model's bins are checked against them at every edit)."""
        if column not in self._numeric_counts:
            codes = self.numeric_codes(column)
            self._numeric_counts[column] = (codes.uniques, np.bincount(codes.codes, minlength=codes.cardinality))
        return self._numeric_counts[column]


def warm_columns(table: Table, categorical=(), continuous=()) -> None:
    """Compute now (on a worker) what is read of these columns later: the codes of the
    ``categorical`` ones, the numbers and distinct numbers of the ``continuous`` ones — so
    that a reader on the UI thread (a model following its table) finds them kept — the
    columns beside each other (:func:`~tklscore.core.tables.codes.run_beside`). A column
    the table lacks, or one that is not numbers, is left for the scorer to report."""
    from functools import partial

    from tklscore.core.tables.codes import run_beside

    present = set(table.columns)
    calls = [partial(table.codes, c) for c in categorical if c in present]
    calls += [partial(table.numeric_counts, c) for c in continuous if c in present]
    error = next((e for e in run_beside(calls) if e is not None and not isinstance(e, InputError)), None)
    if error is not None:
        raise error


def _with_text_uniques(codes: "Codes") -> "Codes":
    """Codes of typed values with their uniques as text (values written alike merged)."""
    from tklscore.core.tables.codes import Codes

    text = _text_of_uniques(codes.uniques)
    merged, uniques = pd.factorize(text)
    if len(uniques) < len(text):  # two typed values written alike (a null and an empty text)
        return Codes(merged[codes.codes].astype(np.int64), np.asarray(uniques, dtype=object))
    return Codes(codes.codes, text)


def _is_text(values: pd.Series) -> bool:
    return pd.api.types.is_string_dtype(values.dtype) or values.dtype == object


def _text_of_uniques(uniques: np.ndarray) -> np.ndarray:
    """Distinct typed values as the text a CSV of them holds (missing: the empty string)."""
    return np.array([MISSING if pd.isna(v) else str(v) for v in uniques], dtype=object)


def _column_text(values: pd.Series) -> pd.Series:
    """A typed column as text: integers through Arrow (vectorised), other types by
    writing each distinct value once."""
    if isinstance(values.dtype, pd.CategoricalDtype) and _is_text(values.cat.categories.to_series()):
        import pyarrow.compute as pc

        text = pc.fill_null(pa.array(values).cast(pa.large_string()), MISSING)
        return pd.Series(TEXT.__from_arrow__(text), name=values.name)
    if pd.api.types.is_integer_dtype(values.dtype) and not values.isna().any():
        return pd.Series(TEXT.__from_arrow__(pa.array(values.to_numpy()).cast(pa.large_string())),
                         name=values.name)
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    return pd.Series(_text_of_uniques(np.asarray(uniques, dtype=object))[codes], name=values.name,
                     dtype=TEXT)


def load_table(path: str | os.PathLike, *, delimiter: str | None = None,
               encoding: str | None = None, sheet: str | int | None = None,
               progress: Callable[[float], None] | None = None, keep_spaces: bool = False) -> Table:
    """Load CSV/TSV (delimiter and encoding detected unless given), Excel or Parquet.

    The spaces around a CSV/TSV cell are stripped unless ``keep_spaces``; a delimiter
    given with its spaces (``", "``) reads as the delimiter with the spaces stripped.
    ``progress(fraction)`` is called as a large CSV/TSV file is read in chunks; it may
    raise (e.g. on cancel) to stop reading."""
    path = existing_file(path, "table file")
    suffix = path.suffix.lower()
    check_keep(delimiter, keep_spaces)
    delimiter = check_delimiter(split_delimiter(delimiter)[0])
    if suffix in _EXCEL:
        table = _load_excel(path, sheet)
    elif suffix in _PARQUET:
        table = _load_parquet(path)
    else:
        table = _load_text_lines(path, delimiter, encoding, progress, keep_spaces)
    table.keep_spaces = bool(keep_spaces)
    return table


MAX_WORKBOOK_BYTES = 256 * 2**20
"""The most an Excel workbook (.xlsx, .xlsm: a ZIP of XML parts) may inflate to: a small
file whose sheet inflates to gigabytes would keep the XML parser busy for minutes."""


def _check_inflated_size(path: Path) -> None:
    """Refuse a workbook whose parts inflate beyond :data:`MAX_WORKBOOK_BYTES`, from the
    sizes its ZIP directory declares (the ZIP reader never inflates a part beyond its
    declared size), before any part is inflated."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            inflated = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # not a ZIP (an .xls, or a damaged file): the reader says what is wrong
    if inflated > MAX_WORKBOOK_BYTES:
        raise InputError(f"the workbook inflates to {binary_size(inflated)} when unpacked (from {binary_size(path.stat().st_size)}); "
                         f"at most {binary_size(MAX_WORKBOOK_BYTES)} are read from an Excel workbook", file=str(path),
                         hint="save the sheet as CSV or Parquet, which are read without this limit")


def binary_size(count: int) -> str:
    """``count`` bytes as a person reads them, in binary units as DuckDB writes them: 1.5 GiB."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= scale:
            return f"{count / scale:,.1f} {unit}"
    return f"{count:,} bytes"


def _load_excel(path: Path, sheet) -> Table:
    _check_inflated_size(path)
    try:
        # the header row is read as a row: pandas would rename a repeated name (Job, Job.1)
        frame = pd.read_excel(path, sheet_name=0 if sheet is None else sheet, dtype=str, header=None)
    except ValueError as exc:  # e.g. unknown sheet
        if "format cannot be determined" in str(exc):
            raise InputError("is not an Excel workbook", file=str(path),
                             hint="save it as .xlsx, or give a CSV file a .csv name") from None
        raise InputError(f"cannot read the workbook: {exc}", file=str(path)) from None
    except Exception as exc:  # openpyxl raises several unrelated types for damaged files
        raise InputError(f"not a readable Excel workbook ({exc.__class__.__name__}: {exc})",
                         file=str(path)) from None
    if frame.empty:
        raise InputError("has no columns (is the sheet empty?)", file=str(path))
    header = ["" if pd.isna(name) else str(name) for name in frame.iloc[0]]
    frame = frame.iloc[1:].reset_index(drop=True)
    frame.columns = header
    table = Table(_as_text(frame, str(path)), name=str(path), kind="excel")
    return table


def _load_parquet(path: Path) -> Table:
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...
        raise InputError(f"not a readable Parquet file ({exc.__class__.__name__}: {exc})",
                         file=str(path)) from None
    columns = [str(c).strip() for c in schema.names]
    _check_header(columns, str(path))  # before reading: Arrow cannot tell two columns of one name apart
    refuse_nested(schema, str(path))
    try:
        text = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
        wide = _wide_dictionaries(pq.ParquetFile(path).metadata)
        # text as codes + distinct values, but for columns of (mostly) distinct values
        arrow = pq.read_table(path, read_dictionary=[c for c in text if c not in wide])
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...
        raise InputError(f"not a readable Parquet file ({exc.__class__.__name__}: {exc})",
                         file=str(path)) from None
    typed = {column: _typed_column(arrow.column(i), column) for i, column in enumerate(columns)}
    return Table(None, name=str(path), kind="parquet",
                 typed=pd.DataFrame(typed, columns=columns, index=pd.RangeIndex(arrow.num_rows)))


_WIDE_DICTIONARY_BYTES = 64 * 1024


def _wide_dictionaries(metadata) -> set[str]:
    """The columns whose first row group stores a dictionary page over 64 KiB: many distinct
    values (ids; a writer's dictionary gives up at a limit, 1 MiB for Arrow's), which read
    faster as plain text than as a dictionary rebuilt while reading. Speed only: any column
    reads to the same values either way."""
    if metadata.num_row_groups == 0:
        return set()
    group, wide = metadata.row_group(0), set()
    for j in range(group.num_columns):
        chunk = group.column(j)
        if chunk.has_dictionary_page and chunk.dictionary_page_offset is not None \
                and chunk.data_page_offset - chunk.dictionary_page_offset > _WIDE_DICTIONARY_BYTES:
            wide.add(chunk.path_in_schema)
    return wide


def _mostly_distinct(column: "pa.ChunkedArray") -> bool:
    """Whether a dictionary-encoded column's dictionaries hold more entries than half its
    cells (an identifier, free text), read from the dictionaries' lengths alone."""
    entries = sum(len(chunk.dictionary) for chunk in column.chunks)
    return entries > max(len(column) // 2, 1 << 16)


def refuse_nested(schema, path: str) -> None:
    """An error naming the columns of an Arrow ``schema`` that hold nested values (struct,
    list, map, union): a table of records holds one value per cell."""
    def nested(kind) -> bool:
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        return pa.types.is_nested(kind) or pa.types.is_union(kind)

    found = [field for field in schema if nested(field.type)]
    if found:
        shown = ", ".join(f"'{shorten(field.name)}' ({shorten(str(field.type), 40)})" for field in found[:5])
        more = f" and {len(found) - 5} more" if len(found) > 5 else ""
        raise InputError(f"column{'s' if len(found) > 1 else ''} {shown}{more} hold{'' if len(found) > 1 else 's'} "
                         f"nested values (a struct, list or map in each cell); a table to score holds one value "
                         f"per cell", file=str(path),
                         hint="flatten the nested column into columns of text or numbers, or leave it out of the file")


def _typed_column(column: "pa.ChunkedArray", name: str) -> pd.Series:
    """A Parquet column for the frame: integers (without missing cells) and floats stay
    numbers; text stays Arrow text, missing cells the empty string; any other type
    (dates, booleans, ...) becomes the text pandas writes for it, as before."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        text = pa.types.is_string(kind.value_type) or pa.types.is_large_string(kind.value_type)
        if text and not _mostly_distinct(column):
            return pd.Series(column.to_pandas(), name=name)  # a Categorical: factorised for free
        # ids, free text: a dictionary as long as the column is no help, and a Categorical of a
        # million categories costs a second to build and check; such text stays Arrow text
        column, kind = column.cast(kind.value_type), kind.value_type
    if (pa.types.is_integer(kind) and column.null_count == 0) or pa.types.is_floating(kind):
        return pd.Series(column.to_numpy(), name=name)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        import pyarrow.compute as pc

        return pd.Series(TEXT.__from_arrow__(pc.fill_null(column, MISSING).cast(pa.large_string())), name=name)
    return _column_text(pd.Series(column.to_pandas(), name=name))


def _as_text(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    columns = [str(c).strip() for c in frame.columns]
    _check_header(columns, name)
    text = {
        column: frame.iloc[:, i].astype(object).where(frame.iloc[:, i].notna(), MISSING).map(str)
        for i, column in enumerate(columns)
    }
    return pd.DataFrame(text, columns=columns, index=pd.RangeIndex(len(frame))).astype(object)


def _check_header(columns: list[str], name: str) -> None:
    if not columns:
        raise InputError("has no columns (is the file empty?)", file=name)
    for i, column in enumerate(columns):
        check_cell_length(len(column), name, 1, i + 1)
        if column == "" or column.startswith("Unnamed: "):
            raise InputError(f"column {i + 1} of the header has no name", file=name, row=1)
    seen: dict[str, int] = {}
    for i, column in enumerate(columns):
        if column in seen:
            raise InputError(f"column name '{shorten(column)}' appears twice in the header "
                             f"(columns {seen[column] + 1} and {i + 1})", file=name, row=1)
        seen[column] = i


def detect_encoding(sample: bytes) -> str:
    marked = unicode_encoding(sample)
    if marked:
        return marked
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
        return "utf-8"
    except UnicodeDecodeError:
        pass
    if _plausibly_cp1252(sample):
        return "cp1252"
    from charset_normalizer import from_bytes

    best = from_bytes(sample).best()
    return best.encoding if best is not None else "cp1252"


# Non-letters a Western European (cp1252/latin-1) text plausibly holds; the other
# non-ASCII non-letters (e.g. '³', '¹', '¯': cp1250's 'ł', 'ą', 'Ż') point to another code page.
_CP1252_SYMBOLS = set("\xa0€£¢¥°§©®«»‘’‚“”„–—…·•²±×÷¿¡½¼¾™µ†‡‰")
_NOT_CP1252_LETTERS = set("ÐÝÞðýþ")  # cp1254's Ğ İ Ş ğ ı ş (rare in Western text)


_NON_ASCII_LINE = re.compile(rb"[^\r\n]*[\x80-\xff][^\r\n]*")


def _plausibly_cp1252(sample: bytes) -> bool:
    """Whether a non-UTF-8 sample reads as Western European text in cp1252 (of which
    latin-1 text is a subset): charset_normalizer alone often takes small Western files
    for cp1250 or an exotic code page. Other single-byte code pages read as cp1252 give
    symbols, Icelandic letters, or words made almost only of accented letters."""
    try:
        text = sample.decode("cp1252")
    except UnicodeDecodeError:
        return False
    letters = accented = 0
    for char in text:
        if char.isalpha():
            letters += 1
            if ord(char) > 127:
                if char in _NOT_CP1252_LETTERS:
                    return False
                accented += 1
        elif ord(char) > 127 and char not in _CP1252_SYMBOLS:
            return False
    return accented <= 0.25 * letters


def detect_delimiter(text: str, suffix: str = "") -> str:
    """The delimiter that splits the first lines into the same number (> 1) of fields,
    preferring the one giving the most fields; ``,`` when nothing splits (one column)."""
    lines = text.splitlines()[:50]
    if len(text) >= _SAMPLE_BYTES // 2 and len(lines) > 1:
        lines = lines[:-1]  # the last sampled line may be cut
    order = (["\t"] if suffix == ".tsv" else []) + [d for d in _DELIMITERS if not (suffix == ".tsv" and d == "\t")]
    best, best_fields = None, 1
    for delimiter in order:
        counts = {len(row) for row in csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter) if row}
        if len(counts) == 1:
            fields = counts.pop()
            if fields > best_fields:
                best, best_fields = delimiter, fields
    if best is None:  # ragged lines: take the delimiter most common in the header
        header = lines[0] if lines else ""
        best = max(order, key=header.count) if any(header.count(d) for d in order) else ("\t" if suffix == ".tsv" else ",")
    return best


def _read_delimited(path: Path, sample: bytes, progress, **options) -> pd.DataFrame:
    size = path.stat().st_size
    chunked = progress is not None and size >= _CHUNKED_BYTES
    frame = _read_delimited_arrow(path, options["sep"], options["encoding"],
                                  _row_progress(progress, size, sample) if chunked else None)
    if frame is not None:
        return frame
    # Arrow could not read it as a regular table: pandas reads it and the caller reports what is wrong
    frame = pd.read_csv(path, **options)
    return frame.astype(TEXT) if isinstance(frame.index, pd.RangeIndex) else frame


def _row_progress(progress, size: int, sample: bytes):
    lines = max(1, sample.count(b"\n"))
    expected_rows = max(1, size * lines // max(1, len(sample)))
    return lambda rows: progress(min(0.99, rows / expected_rows))


def _read_delimited_arrow(path: Path, delimiter: str, encoding: str, progress=None) -> pd.DataFrame | None:
    """Every field as Arrow text, read by Arrow's parser (in blocks of ``_CHUNK_ROWS``-ish
    rows, calling ``progress(rows read)``, when ``progress`` is given); None when Arrow
    cannot read the file as a regular table."""
    import pyarrow.csv as pacsv

    try:
        with open(path, encoding=encoding, errors="replace", newline="") as handle:
            header = next(csv.reader(handle, delimiter=delimiter), None)
    except (csv.Error, LookupError, UnicodeError):
        return None
    if not header:
        return None
    names = [f"c{i}" for i in range(len(header))]
    read_options = pacsv.ReadOptions(column_names=names, skip_rows=1, encoding=encoding,
                                     block_size=(_CHUNK_ROWS * 64) if progress else 1 << 24)
    # a line break inside a value needs quotes: without any quote character in the file,
    # Arrow may split it into blocks at any line break (faster, on every core)
    parse_options = pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=_holds_quotes(path))
    convert_options = pacsv.ConvertOptions(column_types={c: pa.large_string() for c in names},
                                           strings_can_be_null=False, quoted_strings_can_be_null=False)
    try:
        if progress is None:
            arrow = pacsv.read_csv(path, read_options=read_options, parse_options=parse_options,
                                   convert_options=convert_options)
        else:
            batches, rows = [], 0
            with pacsv.open_csv(path, read_options=read_options, parse_options=parse_options,
                                convert_options=convert_options) as reader:
                for batch in reader:
                    batches.append(batch)
                    rows += batch.num_rows
                    progress(rows)
            arrow = pa.Table.from_batches(batches, schema=reader.schema)
    except (pa.ArrowException, UnicodeDecodeError, LookupError, ValueError):
        return None
    frame = pd.DataFrame({name: pd.Series(TEXT.__from_arrow__(arrow.column(i)))
                          for i, name in enumerate(header)}, index=pd.RangeIndex(arrow.num_rows))
    frame.attrs["regular"] = True  # Arrow refuses rows with a field too many or too few
    return frame


_QUOTE_SCAN_BYTES = 1 << 22   # searched at a time: the interpreter lock is free between pieces (the UI thread's)


def _holds_quotes(path: Path) -> bool:
    """Whether the file holds a double quote (byte 0x22, in any of the encodings read),
    searched a few MiB at a time: one search of a large file holds the interpreter lock
    for tens of milliseconds."""
    import mmap

    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            return False
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return any(data.find(b'"', start, start + _QUOTE_SCAN_BYTES) >= 0
                       for start in range(0, size, _QUOTE_SCAN_BYTES))


def sniff_text_file(path: str | os.PathLike) -> tuple[str, str]:
    """The delimiter and encoding :func:`load_table` would detect for a CSV/TSV file."""
    path = Path(path)
    with open(path, "rb") as handle:
        sample = handle.read(_SAMPLE_BYTES)
    if unicode_encoding(sample) is None:
        refuse_mixed_lines(sample, str(path), "an out-of-core engine")
    encoding = detect_encoding(sample)
    return detect_delimiter(sample.decode(encoding, errors="ignore"), path.suffix.lower()), encoding


def is_text_table(path: str | os.PathLike) -> bool:
    return Path(path).suffix.lower() not in _EXCEL | _PARQUET


def table_kind(path: str | os.PathLike) -> str:
    """``excel``, ``parquet`` or ``text`` (CSV/TSV and anything else), from the file name."""
    suffix = Path(path).suffix.lower()
    return "excel" if suffix in _EXCEL else "parquet" if suffix in _PARQUET else "text"


class _MixedLines(Exception):
    """The file's lines disagree on the encoding (UTF-8 and Windows-1252): read it line by line."""


def _load_text_lines(path: Path, delimiter: str | None, encoding: str | None, progress=None,
                     keep_spaces: bool = False) -> Table:
    """:func:`_load_text`, or for a file whose lines disagree on the encoding (UTF-8 text with
    some Windows-1252 lines, :func:`~tklscore.core.files.text.decode_lines`) the same read
    of its text decoded line by line, with a note naming those lines."""
    try:
        return _load_text(path, delimiter, encoding, progress, keep_spaces)
    except _MixedLines:
        pass
    name = str(path)
    text, lines = decode_lines(path.read_bytes(), name)
    delimiter = delimiter or detect_delimiter(text[:_SAMPLE_BYTES], path.suffix.lower())
    with _memory_file(text.encode("utf-8"), path.name) as copy:  # never a copy of the data on disk
        try:
            table = _load_text(copy, delimiter, "utf-8", progress, keep_spaces)
        except InputError as error:
            raise InputError(error.message, file=name, row=error.row, column=error.column, hint=error.hint) from None
    note = mixed_lines_note(name, lines)
    table.name, table.notes = name, table.notes + [note]
    warnings.warn(note, InputNote, stacklevel=3)
    return table


@contextlib.contextmanager
def _memory_file(data: bytes, name: str):
    """A path that reads ``data``: an anonymous file in memory (Linux), else a private
    temporary file, removed on leaving."""
    if hasattr(os, "memfd_create") and Path("/proc/self/fd").is_dir():
        fd = os.memfd_create(f"tklscore-{name}")
        try:
            _write_all(fd, data)
            yield Path(f"/proc/self/fd/{fd}")
        finally:
            os.close(fd)
        return
    with tempfile.TemporaryDirectory(prefix="tklscore-lines-") as folder:
        copy = Path(folder) / name
        copy.write_bytes(data)
        yield copy


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _load_text(path: Path, delimiter: str | None, encoding: str | None, progress=None,
               keep_spaces: bool = False) -> Table:
    name = str(path)
    with open(path, "rb") as handle:
        sample = handle.read(_SAMPLE_BYTES)
    if not sample.strip():
        raise InputError("the file is empty", file=name)
    given = encoding
    if encoding is None and unicode_encoding(sample) is None:
        refuse_binary(sample, name, "a CSV/TSV table")
        whole = sample if len(sample) < _SAMPLE_BYTES else sample[:sample.rfind(b"\n") + 1] or sample
        if decode_lines(whole, name) is not None:
            raise _MixedLines()
    encoding = encoding or detect_encoding(sample)
    try:
        text = sample.decode(encoding, errors="ignore")
    except LookupError:
        raise InputError(f"unknown encoding '{encoding}'", file=name) from None
    delimiter = delimiter or detect_delimiter(text, path.suffix.lower())
    if len(sample) == _SAMPLE_BYTES:  # the first record may be longer than the sample
        text = text[:text.rfind("\n") + 1] or text
    header = next((fields for _, fields in csv_rows(text.lstrip("\ufeff"), name, delimiter)), [])
    _check_header([h.strip() for h in header], name)
    try:
        frame = _read_delimited(path, sample, progress, sep=delimiter, encoding=encoding, dtype=str,
                                keep_default_na=False, na_filter=False, engine="c")
    except UnicodeDecodeError as exc:
        data = path.read_bytes()
        if given is None and encoding == "utf-8":
            if decode_lines(data, name) is not None:
                raise _MixedLines() from None  # a line beyond the sample is not UTF-8
            if _plausibly_cp1252(b"\n".join(_NON_ASCII_LINE.findall(data))):
                # ASCII as far as the sample, Windows-1252 beyond: read as if the sample had shown it
                return _load_text(path, delimiter, "cp1252", progress, keep_spaces)
        decode_text(data, name, encoding)  # names the line of the first bad byte
        raise InputError(f"cannot be decoded as {encoding} ({exc.reason})",
                         file=name, hint="give the encoding explicitly") from None
    except pd.errors.ParserError as exc:
        _check_field_counts(path, encoding, delimiter, len(header), name)
        raise InputError(f"is not a well-formed delimited file ('{delimiter}'): {str(exc).strip()}",
                         file=name) from None
    # pandas pads short rows with empty cells and takes the first column as the index when
    # the first record has one field more than the header: neither may pass silently.
    if not frame.attrs.get("regular") and (
            not isinstance(frame.index, pd.RangeIndex) or len(frame.columns) != len(header)
            or (len(frame) and (frame.iloc[:, -1] == MISSING).any())):
        _check_field_counts(path, encoding, delimiter, len(header), name)
    frame.columns = [str(c).strip() for c in frame.columns]
    _check_cell_lengths(frame, name)
    frame = frame.fillna(MISSING) if frame.isna().to_numpy().any() else frame
    stripped = SpacesStripped()
    if not keep_spaces:
        frame, stripped = strip_frame(frame)
    # columns stay pandas' text dtype (Arrow-backed with pandas 3): no Python object per cell
    table = Table(frame, name=name, kind="csv", delimiter=delimiter, encoding=encoding)
    table.spaces_stripped = stripped
    return table


def _check_cell_lengths(frame: pd.DataFrame, name: str) -> None:
    """The first cell longer than :data:`FIELD_LIMIT` characters, as an error."""
    import pyarrow.compute as pc

    for column in frame.columns:
        arrow = getattr(frame[column].array, "__arrow_array__", None)
        if arrow is not None:   # no cell has more bytes than the limit: none has more characters
            longest = pc.max(pc.binary_length(arrow())).as_py()
            if longest is None or longest <= FIELD_LIMIT:
                continue
        lengths = frame[column].str.len().to_numpy(dtype="float64", na_value=0.0)
        if len(lengths) and lengths.max() > FIELD_LIMIT:
            first = int(np.flatnonzero(lengths > FIELD_LIMIT)[0])
            check_cell_length(int(lengths[first]), name, first + 2, column)


def _check_field_counts(path: Path, encoding: str, delimiter: str, expected: int, name: str) -> None:
    """An error naming the first record whose number of fields differs from the header's."""
    try:
        with open(path, encoding=encoding, newline="") as handle:
            records = (row for row in csv.reader(handle, delimiter=delimiter) if row)
            next(records, None)  # the header
            bad = [(position, len(row)) for position, row in enumerate(records) if len(row) != expected]
    except (csv.Error, UnicodeDecodeError):
        return  # the caller reports what pandas found
    if bad:
        position, fields = bad[0]
        raise InputError(f"has {fields} field(s) but the header has {expected} "
                         f"({len(bad)} such row(s) in all)",
                         file=name, row=position + 2, hint="every row needs one field per column")
