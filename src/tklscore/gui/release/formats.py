"""The table files the Release view opens, and how CSV/TSV files can be read."""

from tklscore.core.tables.loading import EXCEL_SUFFIXES, PARQUET_SUFFIXES, TEXT_SUFFIXES

TABLE_FILTER = ";;".join(f"{name} ({' '.join('*' + s for s in suffixes)})" for name, suffixes in (
    ("Tables", TEXT_SUFFIXES + EXCEL_SUFFIXES + PARQUET_SUFFIXES), ("CSV/TSV", TEXT_SUFFIXES),
    ("Excel", EXCEL_SUFFIXES), ("Parquet", PARQUET_SUFFIXES))) + ";;All files (*)"
DELIMITERS = {",": "Comma ( , )", ";": "Semicolon ( ; )", "\t": "Tab", "|": "Bar ( | )"}
ENCODINGS = ["utf-8", "utf-8-sig", "cp1252", "latin-1", "utf-16"]
