"""Loading a table (CSV/TSV, Excel, Parquet) into pandas, keeping values as written.

Every cell is kept as the text it was written as (ids stay strings, ``007`` stays
``007``). A missing cell (empty in CSV, NaN/None in Excel or Parquet) becomes the empty
string: for a categorical quasi-identifier or sensitive attribute it is a value of its
own. A continuous column must parse as numbers; see :meth:`Table.numeric`.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError, shorten
from tklscore.core.files.text import (FIELD_LIMIT, check_cell_length, check_delimiter, csv_rows, decode_text,
                                      refuse_binary, unicode_encoding)

MISSING = ""
_SAMPLE_BYTES = 256 * 1024
_CHUNKED_BYTES = 8 * 1024 * 1024  # files this large are read in chunks when progress is wanted
_CHUNK_ROWS = 100_000
_DELIMITERS = [",", ";", "\t", "|"]
_EXCEL = {".xlsx", ".xlsm", ".xls"}
_PARQUET = {".parquet", ".pq"}


@dataclass
class Table:
    """A loaded table: ``frame`` holds one str column per column of the file."""

    frame: pd.DataFrame
    name: str = "<table>"
    kind: str = "memory"  # csv | excel | parquet | memory
    delimiter: str | None = None
    encoding: str | None = None
    _numeric: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, name: str = "<table>") -> "Table":
        return cls(_as_text(frame, name), name=name)

    @property
    def columns(self) -> list[str]:
        return list(self.frame.columns)

    def __len__(self) -> int:
        return len(self.frame)

    def row_number(self, position: int) -> int:
        """The number a user sees for a 0-based record position: files with a header line
        count it as row 1 (as a spreadsheet or text editor shows them)."""
        return position + 2 if self.kind in ("csv", "excel") else position + 1

    def require_columns(self, columns, what: str = "column") -> None:
        missing = [c for c in columns if c not in self.frame.columns]
        if missing:
            raise InputError(
                f"{what} {', '.join(repr(c) for c in missing)} not found; the table has "
                f"columns {', '.join(repr(c) for c in self.frame.columns)}",
                file=self.name)

    def numeric(self, column: str) -> np.ndarray:
        """The column parsed as finite numbers (float64), or an error naming the first bad row."""
        if column not in self._numeric:
            self.require_columns([column])
            text = self.frame[column]
            # parse each distinct text once: O(n) hashing plus O(distinct) parsing
            codes, uniques = pd.factorize(text, use_na_sentinel=False)
            parsed = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce")
            values = parsed.to_numpy(dtype="float64", na_value=np.nan)[codes]
            bad = ~np.isfinite(values)
            if bad.any():
                first = int(np.flatnonzero(bad)[0])
                raw = text.iloc[first]
                shown = "an empty cell" if raw == MISSING else f"'{shorten(raw)}'"
                raise InputError(
                    f"continuous column holds {shown}, which is not a number "
                    f"({int(bad.sum())} such cell(s) in all)",
                    file=self.name, row=self.row_number(first), column=column,
                    hint="fix the value, or treat the column as categorical")
            self._numeric[column] = values
        return self._numeric[column]


def load_table(path: str | os.PathLike, *, delimiter: str | None = None,
               encoding: str | None = None, sheet: str | int | None = None,
               progress: Callable[[float], None] | None = None) -> Table:
    """Load CSV/TSV (delimiter and encoding detected unless given), Excel or Parquet.

    ``progress(fraction)`` is called as a large CSV/TSV file is read in chunks; it may
    raise (e.g. on cancel) to stop reading."""
    path = Path(path)
    name = str(path)
    if not path.exists():
        raise InputError("file not found", file=name)
    if path.is_dir():
        raise InputError("is a folder, not a table file", file=name)
    suffix = path.suffix.lower()
    delimiter = check_delimiter(delimiter)
    if suffix in _EXCEL:
        return _load_excel(path, sheet)
    if suffix in _PARQUET:
        return _load_parquet(path)
    return _load_text(path, delimiter, encoding, progress)


def _load_excel(path: Path, sheet) -> Table:
    try:
        frame = pd.read_excel(path, sheet_name=0 if sheet is None else sheet, dtype=str)
    except ValueError as exc:  # e.g. unknown sheet
        raise InputError(f"cannot read the workbook: {exc}", file=str(path)) from None
    except Exception as exc:  # openpyxl raises several unrelated types for damaged files
        raise InputError(f"not a readable Excel workbook ({exc.__class__.__name__}: {exc})",
                         file=str(path)) from None
    table = Table(_as_text(frame, str(path)), name=str(path), kind="excel")
    return table


def _load_parquet(path: Path) -> Table:
    try:
        frame = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ...
        raise InputError(f"not a readable Parquet file ({exc.__class__.__name__}: {exc})",
                         file=str(path)) from None
    return Table(_as_text(frame, str(path)), name=str(path), kind="parquet")


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
    if progress is None or size < _CHUNKED_BYTES:
        return pd.read_csv(path, **options)
    lines = max(1, sample.count(b"\n"))
    expected_rows = max(1, size * lines // max(1, len(sample)))
    chunks, rows = [], 0
    with pd.read_csv(path, chunksize=_CHUNK_ROWS, **options) as reader:
        for chunk in reader:
            chunks.append(chunk)
            rows += len(chunk)
            progress(min(0.99, rows / expected_rows))
    return pd.concat(chunks, ignore_index=True) if chunks else pd.read_csv(path, **options)


def sniff_text_file(path: str | os.PathLike) -> tuple[str, str]:
    """The delimiter and encoding :func:`load_table` would detect for a CSV/TSV file."""
    path = Path(path)
    with open(path, "rb") as handle:
        sample = handle.read(_SAMPLE_BYTES)
    encoding = detect_encoding(sample)
    return detect_delimiter(sample.decode(encoding, errors="ignore"), path.suffix.lower()), encoding


def is_text_table(path: str | os.PathLike) -> bool:
    return Path(path).suffix.lower() not in _EXCEL | _PARQUET


def _load_text(path: Path, delimiter: str | None, encoding: str | None, progress=None) -> Table:
    name = str(path)
    with open(path, "rb") as handle:
        sample = handle.read(_SAMPLE_BYTES)
    if not sample.strip():
        raise InputError("the file is empty", file=name)
    if encoding is None and unicode_encoding(sample) is None:
        refuse_binary(sample, name, "a CSV/TSV table")
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
        decode_text(path.read_bytes(), name, encoding)  # names the line of the first bad byte
        raise InputError(f"cannot be decoded as {encoding} ({exc.reason})",
                         file=name, hint="give the encoding explicitly") from None
    except pd.errors.ParserError as exc:
        _check_field_counts(path, encoding, delimiter, len(header), name)
        raise InputError(f"is not a well-formed delimited file ('{delimiter}'): {str(exc).strip()}",
                         file=name) from None
    # pandas pads short rows with empty cells and takes the first column as the index when
    # the first record has one field more than the header: neither may pass silently.
    if (not isinstance(frame.index, pd.RangeIndex) or len(frame.columns) != len(header)
            or (len(frame) and (frame.iloc[:, -1] == MISSING).any())):
        _check_field_counts(path, encoding, delimiter, len(header), name)
    frame.columns = [str(c).strip() for c in frame.columns]
    _check_cell_lengths(frame, name)
    # columns stay pandas' text dtype (Arrow-backed with pandas 3): no Python object per cell
    table = Table(frame.fillna(MISSING) if frame.isna().to_numpy().any() else frame, name=name, kind="csv",
                  delimiter=delimiter, encoding=encoding)
    return table


def _check_cell_lengths(frame: pd.DataFrame, name: str) -> None:
    """The first cell longer than :data:`FIELD_LIMIT` characters, as an error."""
    for column in frame.columns:
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
