"""``tklscore report SOURCE (--published F | --rows IDS) … (--weights F | --model F) --output OUT``:
the release report of the application (HTML, PDF or per-record CSV, by OUT's extension),
made without the window. The options are those of ``tklscore score``.

HTML and CSV are written by the Qt-free report (``core/report``: the charts inline as SVG);
only a PDF loads Qt (``gui/report_pdf.py``), offscreen when there is no display.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tklscore.cli.arguments import add_engine_arguments, output_path
from tklscore.cli.score import add_release_arguments, score_release


def register(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report", help="write the release report (HTML, PDF or per-record CSV) without the window",
        description="Score a release as 'tklscore score' does and write the report a committee can read "
                    "without the tool: the inputs with their SHA-256, where the weights come from, each "
                    "score with its meaning and verdict, the charts, the per-record scores and the risk "
                    "lens (privacy models, attacker models, risk distribution, QI importance, D(r) with "
                    "default parameters, the riskiest records).")
    add_release_arguments(report)
    report.add_argument("--output", metavar="OUT.html|OUT.pdf|OUT.csv", type=output_path, required=True,
                        help="the report file; its extension chooses the format")
    add_engine_arguments(report)
    report.set_defaults(handler=run)


def run(args) -> int:
    from tklscore.core.report import check_format

    output = Path(args.output)
    suffix = check_format(output)
    # out of core the records stay on disk: the report reads its riskiest, its charts' points, its CSV from them
    scored = score_release(args, lens=True, stream=args.engine != "memory")
    try:
        return _write(args, output, suffix, scored)
    finally:
        if scored.report.stored is not None:
            scored.report.stored.close()


def _write(args, output: Path, suffix: str, scored) -> int:
    from tklscore.core.report import InputFile, ReportInput, prepare_report
    from tklscore.core.scoring.weights_source import file_source, model_source

    name = (Path(args.published).name if args.published else f"filter {args.filter}" if args.filter is not None
            else f"rows {','.join(args.rows)}")
    files = [InputFile("source table", str(Path(args.source)))]
    if args.published:
        files.append(InputFile("published table", str(Path(args.published))))
    if args.model:
        files.append(InputFile("tkl-Data Model", str(Path(args.model))))
        source = model_source(scored.model, str(args.model))
    else:
        files.append(InputFile("weights file", str(Path(args.weights))))
        source = file_source(str(args.weights))
    data = ReportInput(release=name, report=scored.report, reports={name: scored.report}, roles=scored.roles,
                       source_name=scored.source.name, source_rows=scored.report.source_rows, weights=scored.weights,
                       weights_source=source, model=scored.model, files=files)
    if scored.lens is not None:
        scored.lens.release = name
        data.risk = scored.lens
    if suffix == ".pdf":
        written = _write_pdf(output, data)
    else:
        written = prepare_report(output, data)()
    print(f"tklscore: report written to {written}", file=sys.stderr)
    return 0


def _write_pdf(output: Path, data) -> Path:
    """The PDF through Qt's text layout and PDF writer (a QGuiApplication for its fonts)."""
    _offscreen_without_display()
    from tklscore.gui.qt_import import import_qt

    import_qt()
    from PySide6.QtGui import QGuiApplication

    from tklscore.gui.report_pdf import write_pdf

    app = QGuiApplication.instance() or QGuiApplication(["tklscore"])
    try:
        return write_pdf(output, data)
    finally:
        del app


def _offscreen_without_display() -> None:
    """Qt needs a platform; with no display (a server, a script) it draws offscreen."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
