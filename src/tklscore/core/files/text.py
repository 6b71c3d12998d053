"""Reading text and CSV files: the encoding, line endings, binary content, the delimiter
and the size of each cell are checked here once, for every file the tool reads as text
(tables, weights, AHP matrices, PIA's patterns, preferences and safety values).

A file is decoded by its byte-order mark (UTF-8, UTF-16, UTF-32), as UTF-16 without a
mark when every other byte is zero, else as UTF-8, else as Windows-1252 (cp1252). A file
whose lines disagree — UTF-8 text (with accents) and some lines that are not UTF-8, as when
a line was added by a program writing Windows-1252 — is decoded line by line
(:func:`decode_lines`): every valid UTF-8 line as UTF-8, never re-decoded, and each other
line as Windows-1252; a note (:class:`InputNote`, a warning the command line prints) names
those lines. A byte neither can decode, or a zero byte in what is not UTF-16/32 text (a
binary file), is an error naming the line. Lines may end in LF, CRLF or CR alone. A cell may hold at most
:data:`FIELD_LIMIT` characters (Python's csv limit), a longer one is an error naming its
row and column.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import warnings
from typing import Iterator

from tklscore.core.errors import InputError, existing_file, shorten

FIELD_LIMIT = 131_072
csv.field_size_limit(2**31 - 1)  # cells are bounded by FIELD_LIMIT here, with a message naming them
_DELIMITER_NAMES = {"\\t": "\t", "tab": "\t", "TAB": "\t", "comma": ",", "semicolon": ";", "pipe": "|",
                    "space": " "}
_BOMS = [(codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16")]


def _line_of(data: bytes, position: int) -> int:
    return data.count(b"\n", 0, position) + data.count(b"\r", 0, position) - data.count(b"\r\n", 0, position) + 1


def unicode_encoding(data: bytes) -> str | None:
    """The UTF encoding a byte-order mark or the pattern of zero bytes shows, else None."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    sample = data[:4096]
    if len(sample) >= 4 and sample.count(0) * 3 >= len(sample):
        even, odd = sample[0::2].count(0), sample[1::2].count(0)
        if odd > 0.9 * len(sample[1::2]) and even < 0.1 * len(sample[0::2]):
            return "utf-16-le"
        if even > 0.9 * len(sample[0::2]) and odd < 0.1 * len(sample[1::2]):
            return "utf-16-be"
    return None


class InputNote(UserWarning):
    """Something the reader did to an input that the user should know about (not an error):
    the command line prints it as ``tklscore: note: ...``."""


_ESCAPED = re.compile("[\udc80-\udcff]")                       # a byte UTF-8 could not decode
_ESCAPED_LINE = re.compile("[^\r\n]*[\udc80-\udcff][^\r\n]*")    # a line holding one


def _text_line(text: str, position: int, start: int = 0, line: int = 1) -> int:
    """The line of ``text[position]`` counting from ``line`` at ``start`` (LF, CRLF or CR)."""
    return line + text.count("\n", start, position) + text.count("\r", start, position) \
        - text.count("\r\n", start, position)


def decode_lines(data: bytes, name: str) -> tuple[str, list[int]] | None:
    """``data`` decoded line by line when its lines disagree: text that is UTF-8 (with at
    least one non-ASCII character in a valid line) but holds lines that are not — those are
    Windows-1252 (cp1252). Returns the text and the numbers of the cp1252 lines, or None
    when the lines do not disagree (all of it UTF-8, or no line in UTF-8 beyond ASCII: a
    single-byte file). A line neither encoding reads is an error naming it."""
    text = data.decode("utf-8", "surrogateescape")   # reversible: an undecodable byte b is U+DC00+b
    if not _ESCAPED.search(text) or _ESCAPED_LINE.sub("", text).isascii():
        return None
    lines: list[int] = []
    position, line = 0, 1

    def redecode(match: re.Match) -> str:
        nonlocal position, line
        line = _text_line(text, match.start(), position, line)
        position = match.start()
        raw = match.group().encode("utf-8", "surrogateescape")
        try:
            decoded = raw.decode("cp1252")
        except UnicodeDecodeError as error:
            raise InputError(f"the line is neither UTF-8, as the rest of the file, nor Windows-1252 (cp1252): "
                             f"byte 0x{raw[error.start]:02x}", file=name, row=line,
                             hint="save the file as UTF-8, or give its encoding") from None
        lines.append(line)
        return decoded

    return _ESCAPED_LINE.sub(redecode, text), lines


def mixed_lines_note(name: str, lines: list[int]) -> str:
    """The note on a file read line by line (:func:`decode_lines`)."""
    shown = ", ".join(map(str, lines[:10])) + (f" and {len(lines) - 10:,} more" if len(lines) > 10 else "")
    return (f"{name}: the file is UTF-8 but line{'s' if len(lines) > 1 else ''} {shown} "
            f"{'are' if len(lines) > 1 else 'is'} not; read as Windows-1252 (cp1252), every other line as UTF-8")


def refuse_mixed_lines(sample: bytes, name: str, reader: str) -> None:
    """For a reader that decodes a whole file in one encoding (``reader``, e.g. "the duckdb
    engine"): an error when the lines of ``sample`` disagree on the encoding."""
    whole = sample[:sample.rfind(b"\n") + 1] or sample  # the last line may be cut
    mixed = decode_lines(whole, name)
    if mixed is not None:
        lines = mixed[1]
        raise InputError(f"the file is UTF-8 but line {lines[0]} is not (Windows-1252); {reader} reads a file "
                         f"in one encoding", file=name, row=lines[0],
                         hint="save the file as UTF-8, or read it in memory, which reads each line in its "
                              "own encoding")


def first_non_utf8_line(path: str | os.PathLike, chunk: int = 1 << 23) -> int | None:
    """The number of the first line of the file at ``path`` that is not UTF-8, or None: the
    whole file streamed in chunks cut at line breaks (a UTF-8 character never holds byte 0x0A)."""
    line, rest = 1, b""
    with open(path, "rb") as handle:
        while True:
            data = handle.read(chunk)
            block = rest + data
            cut = len(block) if not data else block.rfind(b"\n") + 1
            whole, rest = block[:cut], block[cut:]
            try:
                whole.decode("utf-8")
            except UnicodeDecodeError as exc:
                return line + whole.count(b"\n", 0, exc.start)
            line += whole.count(b"\n")
            if not data:
                return None


def refuse_binary(data: bytes, name: str, what: str = "a text file") -> None:
    """An error when ``data`` (not UTF-16/32) holds a zero byte: a binary file."""
    zero = data.find(b"\x00")
    if zero >= 0:
        raise InputError(f"holds binary data (a zero byte), not the text of {what}",
                         file=name, row=_line_of(data, zero))


def decode_text(data: bytes, name: str, encoding: str | None = None, what: str = "a text file") -> tuple[str, str]:
    """The text of ``data`` and the encoding used (``encoding`` when given)."""
    if encoding is None:
        encoding = unicode_encoding(data)
        if encoding is None:
            refuse_binary(data, name, what)
            candidates = ["utf-8", "cp1252"]
        else:
            candidates = [encoding]
    else:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise InputError(f"unknown encoding '{encoding}'", file=name) from None
        candidates = [encoding]
    for candidate in candidates:
        try:
            return data.decode(candidate), candidate
        except UnicodeDecodeError as error:
            last = error
            if candidate == "utf-8" and len(candidates) > 1:
                mixed = decode_lines(data, name)
                if mixed is not None:
                    text, lines = mixed
                    warnings.warn(mixed_lines_note(name, lines), InputNote, stacklevel=2)
                    return text, "utf-8"
    line = _line_of(data, last.start)
    if len(candidates) > 1:
        raise InputError(f"cannot be decoded as UTF-8 nor as Windows-1252 (cp1252): byte 0x{data[last.start]:02x} "
                         f"is neither", file=name, row=line, hint="save the file as UTF-8, or give its encoding")
    raise InputError(f"cannot be decoded as {candidates[0]}: byte 0x{data[last.start]:02x} is not valid there",
                     file=name, row=line, hint="give the file's real encoding, or save it as UTF-8")


def _line_breaks(text: str) -> int:
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def transcode_to_utf8(source: str | os.PathLike, target: str | os.PathLike, encoding: str, name: str,
                      chunk: int = 1 << 20) -> None:
    """Decode the text file ``source`` from ``encoding`` and write it to ``target`` as UTF-8,
    a chunk at a time (for an engine that reads only UTF-8: the same decoder as
    :func:`decode_text`, whatever the file's size). A byte that is not valid in
    ``encoding`` is an error naming its line (never quoting the file)."""
    try:
        decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
    except LookupError:
        raise InputError(f"unknown encoding '{encoding}'", file=name) from None
    lines, ended_in_cr = 0, False
    with open(source, "rb") as read, open(target, "w", encoding="utf-8", newline="") as write:
        while True:
            data = read.read(chunk)
            try:
                text = decoder.decode(data, final=not data)
            except UnicodeDecodeError as error:
                before = error.object[:error.start].decode(encoding, errors="replace")
                line = lines + _line_breaks(before) - (ended_in_cr and before.startswith("\n")) + 1
                raise InputError(f"cannot be decoded as {encoding}: byte 0x{error.object[error.start]:02x} is not "
                                 f"valid there", file=name, row=line,
                                 hint="give the file's real encoding, or save it as UTF-8") from None
            lines += _line_breaks(text) - (ended_in_cr and text.startswith("\n"))
            ended_in_cr = text.endswith("\r") or (ended_in_cr and not text)
            write.write(text)
            if not data:
                break
        write.flush()
        os.fsync(write.fileno())


def read_text(path: str | os.PathLike, what: str = "file", encoding: str | None = None) -> str:
    """The decoded text of a (small) text file; see :func:`decode_text`."""
    path = existing_file(path, what)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot be read: {error.strerror or error}", file=str(path)) from None
    return decode_text(data, str(path), encoding, f"a {what}")[0]


def check_delimiter(delimiter: str | None) -> str | None:
    """A delimiter as the csv reader needs it: one character (``\\t`` and ``tab`` spell a tab)."""
    if delimiter is None:
        return None
    delimiter = _DELIMITER_NAMES.get(delimiter, delimiter) if isinstance(delimiter, str) else delimiter
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "\r\n\"" or delimiter.isalnum():
        raise InputError(f"the delimiter must be one character such as , ; | or \\t (tab), "
                         f"not {shorten(delimiter)!r}")
    return delimiter


def check_cell_length(length: int, name: str, row: int | None, column: str | int) -> None:
    """An error for a cell longer than :data:`FIELD_LIMIT`; ``column``: its name, or its
    1-based number in the header itself."""
    if length <= FIELD_LIMIT:
        return
    if isinstance(column, int):
        raise InputError(f"the name of column {column} has {length:,} characters; a column name may hold "
                         f"at most {FIELD_LIMIT:,}", file=name, row=row,
                         hint="is the first line really the header, and the delimiter right?")
    raise InputError(f"the cell has {length:,} characters; a cell may hold at most {FIELD_LIMIT:,}",
                     file=name, row=row, column=shorten(column),
                     hint="is a closing quote missing, or the delimiter wrong?")


def csv_rows(text: str, name: str, delimiter: str = ",", header: bool = True) -> Iterator[tuple[int, list[str]]]:
    """The records of CSV ``text`` as (line where the record starts, fields); blank lines
    are skipped. With ``header`` the first record names the columns in messages."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    names: list[str] | None = None
    start = 1
    try:
        for fields in reader:
            if fields:
                for j, field in enumerate(fields):
                    if len(field) > FIELD_LIMIT:
                        in_header = header and names is None
                        column = j + 1 if in_header else (names[j] if names and j < len(names) else f"#{j + 1}")
                        check_cell_length(len(field), name, start, column)
                if header and names is None:
                    names = [f.strip() for f in fields]
                yield start, fields
            start = reader.line_num + 1
    except csv.Error as error:
        raise InputError(f"is not well-formed CSV: {error}", file=name, row=start) from None
