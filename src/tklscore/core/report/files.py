"""Writing a report: HTML (standing alone, charts inline as SVG) and the per-record CSV
here, without Qt; a PDF through the application's adapter (``gui/report_pdf.py``). Every
write goes through a temporary file renamed over the target, never over an input."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pandas as pd

from tklscore.core.errors import InputError
from tklscore.core.files.atomic import atomic_path
from tklscore.core.files.records import csv_safe
from tklscore.core.report.document import build_report_html
from tklscore.core.report.model import ReportInput, complete_risk, hash_files

FORMATS = (".html", ".htm", ".pdf", ".csv")
REPORT_FORMATS = "HTML report (*.html);;PDF report (*.pdf);;Per-record scores as CSV (*.csv)"


def check_format(path: str | Path) -> str:
    """The report's format by the file's extension (``.html``, ``.pdf``, ``.csv``), or an error."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"a report can be written as .html, .pdf or .csv, not '{suffix or path.name}'",
                         file=str(path))
    return ".html" if suffix == ".htm" else suffix


def inputs_of(data: ReportInput) -> list[str]:
    return [f.path for f in data.files if f.path]


def prepare_report(path: str | Path, data: ReportInput) -> Callable[[], Path]:
    """Return the function that writes the HTML or CSV report (by the extension; a PDF
    needs ``gui/report_pdf.py``). It touches no widget and may run in a background thread:
    it hashes the input files, measures the risk if asked, builds the document and writes
    it to a temporary file renamed over ``path``."""
    path = Path(path)
    suffix = check_format(path)
    if suffix == ".pdf":
        raise InputError("a PDF report is drawn by the application's PDF writer (tklscore.gui.report_pdf)",
                         file=str(path))
    if suffix == ".html":
        def write_html() -> Path:
            hash_files(data)
            complete_risk(data)
            text = build_report_html(data, inline_images=True)
            return write_atomic(path, lambda temporary: temporary.write_text(text, encoding="utf-8"),
                                inputs_of(data))
        return write_html
    if data.report is None:
        raise InputError("there are no per-record scores to export yet")
    report = data.report

    def write_csv() -> Path:
        complete_risk(data)
        if report.stored is not None:   # records on disk: written batch by batch
            from tklscore.core.files.records import write_records_csv
            from tklscore.core.scoring.scores import RECORD_COLUMNS

            def stream(temporary: Path) -> None:
                with open(temporary, "w", encoding="utf-8", newline="") as handle:
                    write_records_csv(handle, report.stored.batches(list(RECORD_COLUMNS)), list(RECORD_COLUMNS),
                                      safe=True)
            return write_atomic(path, stream, inputs_of(data))
        records = report.records
        if data.risk is not None and data.risk.disclosure.has_records and len(data.risk.disclosure.d) == len(records):
            records = pd.concat([records.reset_index(drop=True), data.risk.per_record()], axis=1)
        # a report's CSV goes to a spreadsheet: no cell of it is run as a formula
        return write_atomic(path, lambda temporary: csv_safe(records).to_csv(temporary, index=False), inputs_of(data))
    return write_csv


def write_atomic(path: Path, write: Callable[[Path], object], inputs: Iterable[str] = ()) -> Path:
    """Write through a temporary file renamed over ``path``; never over one of ``inputs``."""
    with atomic_path(path, inputs) as temporary:
        write(temporary)
        if temporary.stat().st_size == 0:
            raise InputError("nothing could be written", file=str(path))
    return path
