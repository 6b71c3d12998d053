"""The one rule for a file's column read by an engine: as the text the in-memory loader gives
its cells (:meth:`ColumnRules.column_text`) and as the number that text reads as
(:meth:`ColumnRules.column_number`), from the column's Arrow type, whether it holds a missing
cell and how its first zero is written — each read once per scan. :class:`~.backend.Backend`
has these rules; :class:`ColumnTexts` names a scan's columns by them, each when first asked for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tklscore.core.engines.backend import Backend, Scan


class ColumnRules:
    """A back-end's reading of a scan's columns (the back-end provides :meth:`q`,
    :meth:`fetch`, :meth:`arrow_schema` and :attr:`float_text_exact`)."""

    def column_text(self, scan: Scan, raw: str, alias: str = "", reference: str | None = None) -> str:
        """A column of ``scan`` (``raw``: its name as the scan holds it; ``alias``: the scan's
        alias in the statement, with its dot) as the text the in-memory loader gives its
        cells: the one rule (:meth:`_loader_text`) for every statement that reads a file's
        column as text (a class, a value map, a weight's value, an id, a released cell), so
        that each sees what memory sees. A type the rule does not name: the engine's text.

        On Spark the rule's text differs from the loader's for floats only in how a number
        is written (``1.0E20`` for ``1e+20``: :attr:`float_text_exact`); missing cells, NaN,
        booleans and an integer column holding a missing cell read as the loader's.
        ``reference``: how the statement names the column, where not ``alias`` + its name."""
        column = reference if reference is not None else alias + self.q(raw)
        written = self._loader_text(scan, raw, self._kinds(scan)[raw], column=column)
        return written[0] if written is not None else f"COALESCE(CAST({column} AS STRING), '')"

    def column_number(self, scan: Scan, raw: str, alias: str = "") -> str:
        """A column of ``scan`` as the number its text reads as (NULL where none): the text
        trimmed and cast, or a double column itself — its text (shortest round trip) reads back
        as the same double, so it is not written and read again (at 1M rows ~0.03 CPU-s)."""
        import pyarrow as pa

        column = alias + self.q(raw)
        kind = self._kinds(scan)[raw]
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        if pa.types.is_float64(kind):
            return column
        return f"TRY_CAST(TRIM(CAST({column} AS STRING)) AS DOUBLE)"

    def _kinds(self, scan: Scan) -> dict:
        """Each column's Arrow type as the engine reads ``scan`` (one statement per scan)."""
        if not scan.kinds and scan.columns:
            schema = self.arrow_schema(f"SELECT {', '.join(self.q(c) for c in scan.columns)} FROM {scan.relation}")
            scan.kinds.update(zip(scan.columns, schema.types))
        return scan.kinds

    def _holds_missing(self, scan: Scan, raw: str) -> bool:
        """Whether a column of ``scan`` holds a missing cell (counted once per scan)."""
        if raw not in scan.missing:
            scan.missing[raw] = bool(int(self.fetch(
                f"SELECT COUNT(*) - COUNT({self.q(raw)}) AS m FROM {scan.relation}")["m"].iloc[0]))
        return scan.missing[raw]

    def _first_zero(self, scan: Scan, raw: str) -> str | None:
        """How a float column's first zero is written (``0.0`` or ``-0.0``; None: it holds
        none), read once per scan: the loader writes every zero as the first (one value)."""
        if raw not in scan.zeros:
            column = self.q(raw)
            first = self.fetch(f"SELECT CAST({column} AS STRING) AS v FROM {scan.relation} WHERE {column} = 0 "
                               f"ORDER BY __rid LIMIT 1")["v"]
            scan.zeros[raw] = None if not len(first) else "-0.0" if str(first.iloc[0]).startswith("-") else "0.0"
        return scan.zeros[raw]

    def _loader_text(self, scan: Scan, raw: str, kind, column: str | None = None) -> tuple[str, bool] | None:
        """A typed column's cells as the text the loader gives them (an integer column
        holding a missing cell is read as floats, ``31.0``; booleans ``True``/``False``;
        missing, and a float's NaN: the empty text; 0.0 and -0.0, one value, as the
        column's first zero), and whether that text is exactly the
        loader's (a float's is only where the engine writes floats as Python does); None for
        a type the loader's rule does not name. ``column``: how the statement names it."""
        import pyarrow as pa

        column = column if column is not None else self.q(raw)
        if pa.types.is_dictionary(kind):
            kind = kind.value_type
        numeric = pa.types.is_integer(kind) or pa.types.is_floating(kind)
        if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_date(kind):
            return f"COALESCE(CAST({column} AS STRING), '')", True
        if pa.types.is_boolean(kind):
            return f"CASE WHEN {column} IS NULL THEN '' WHEN {column} THEN 'True' ELSE 'False' END", True
        if pa.types.is_integer(kind) and not self._holds_missing(scan, raw):
            return f"CAST({column} AS STRING)", True
        if numeric:
            written = f"CAST({column} AS DOUBLE)" if pa.types.is_integer(kind) else column
            zero = self._first_zero(scan, raw) if pa.types.is_floating(kind) else None
            zero = f"WHEN {column} = 0 THEN '{zero}' " if zero is not None else ""
            return (f"CASE WHEN {column} IS NULL OR isnan({written}) THEN '' {zero}ELSE CAST({written} AS STRING) END",
                    self.float_text_exact)
        return None


class ColumnTexts(Mapping):
    """The columns of a scan as a user names them (stripped) → their text in a statement
    (:meth:`Backend.column_text`), each worked out when first asked for: a column no
    statement reads costs no query. ``reference(k, raw)``: how the statement names the
    scan's k-th column."""

    def __init__(self, backend: Backend, scan: Scan, reference):
        self.backend, self.scan, self.reference = backend, scan, reference
        self._raw = {c.strip(): (k, c) for k, c in enumerate(scan.columns)}
        self._texts: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        if name not in self._texts:
            k, raw = self._raw[name]
            self._texts[name] = self.backend.column_text(self.scan, raw, reference=self.reference(k, raw))
        return self._texts[name]

    def __iter__(self):
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)
