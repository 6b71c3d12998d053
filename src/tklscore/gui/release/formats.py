"""The table files the Release view opens, and how CSV/TSV files can be read."""

TABLE_FILTER = ("Tables (*.csv *.tsv *.txt *.xlsx *.xlsm *.xls *.parquet *.pq);;"
                "CSV/TSV (*.csv *.tsv *.txt);;Excel (*.xlsx *.xlsm *.xls);;Parquet (*.parquet *.pq);;All files (*)")
EXCEL_SUFFIXES = {".xlsx", ".xlsm", ".xls"}
PARQUET_SUFFIXES = {".parquet", ".pq"}
DELIMITERS = {",": "Comma ( , )", ";": "Semicolon ( ; )", "\t": "Tab", "|": "Bar ( | )"}
ENCODINGS = ["utf-8", "utf-8-sig", "cp1252", "latin-1", "utf-16"]
