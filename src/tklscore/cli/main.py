"""The command line: ``tklscore score ...``, ``tklscore example thesis --dir DIR``, ``tklscore demo``.

A stable interface for scripts: errors go to stderr with exit status 2 and name the
file/row/column at fault; warnings go to stderr and never change the output format.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys

from tklscore import __version__
from tklscore.cli import ahp as cli_ahp, model as cli_model, pia as cli_pia, taxonomy as cli_taxonomy
from tklscore.core.files.atomic import atomic_write
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.errors import InputError
from tklscore.core.examples import thesis_example, write_thesis_example
from tklscore.core.tables.published import locate_by_ids, locate_table
from tklscore.core.tables.roles import Roles
from tklscore.core.scoring.scores import RECORD_COLUMNS, SCORE_NAMES, ScoreReport, Scorer
from tklscore.core.tables.loading import load_table
from tklscore.core.scoring.weights import load_weights
from tklscore.gui.navigation import view_keys  # the registry of views; Qt-free

SCORE_LABELS = {
    "tkl": "tkl-Score",
    "tkl_max": "tkl-Score_max",
    "m_score": "M-Score (x)",
    "m_score_inf": "M-Score (x=inf)",
    "l_severity": "L-Severity",
}


def _columns(text: str) -> list[str]:
    items = [item.strip() for item in text.split(",")]
    if any(not item for item in items):
        raise argparse.ArgumentTypeError(f"empty name in the list '{text}'")
    return items


def _x(text: str) -> float:
    if text.strip().lower() in ("inf", "infinity", "∞"):
        return math.inf
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number or 'inf'") from None
    if math.isnan(value) or value < 1:
        raise argparse.ArgumentTypeError(f"x must be at least 1 (or inf), not {text}")
    return value


class UsageError(Exception):
    """A command-line argument is missing or malformed."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise UsageError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tklscore", description="Misuseability scores of a data release: "
                                     "tkl-Score, tkl-Score_max, M-Score and L-Severity.")
    parser.add_argument("--version", action="version", version=f"tklscore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    score = commands.add_parser("score", help="score a published table against its source table",
                                description="Score a published table (a file, or ids of source records) "
                                            "against its source table.")
    score.add_argument("source", metavar="SOURCE", help="source table (CSV/TSV, Excel or Parquet)")
    chosen = score.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--published", metavar="FILE", help="published table file")
    chosen.add_argument("--rows", metavar="ID[,ID...]", type=_columns,
                        help="ids of the published source records (0-based row numbers without --id-column)")
    score.add_argument("--id-column", metavar="COL", help="identifier column locating published records")
    score.add_argument("--qi", metavar="COL[,COL...]", type=_columns, default=[],
                       help="quasi-identifier columns (none: k-DF = |P|, t-DF = 0)")
    score.add_argument("--sa", metavar="COL[,COL...]", type=_columns, required=True, help="sensitive columns")
    score.add_argument("--continuous", metavar="COL[,COL...]", type=_columns, default=[],
                       help="sensitive columns that are continuous (numeric, ordered)")
    weighting = score.add_mutually_exclusive_group(required=True)
    weighting.add_argument("--weights", metavar="WEIGHTS.csv",
                           help="CSV attribute,value,weight (intervals such as [0,30) for continuous columns)")
    weighting.add_argument("--model", metavar="MODEL.ttl",
                           help="a tkl-Data Model (Turtle) whose derived weights are used")
    score.add_argument("--missing-weight-zero", action="store_true",
                       help="treat sensitive values without a weight as weight 0 (default: error)")
    score.add_argument("--x", metavar="X|inf", type=_x, default=1.0, help="M-Score's x (≥ 1, or inf; default 1)")
    score.add_argument("--format", choices=["table", "json", "csv"], default="table",
                       help="table (for people), json (scores and records), csv (records)")
    score.add_argument("--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    score.add_argument("--skip-unlocated", action="store_true",
                       help="score the located records when some published records are not in the source "
                            "(default: error)")
    score.add_argument("--delimiter", help="delimiter of CSV/TSV inputs (default: detected)")
    score.add_argument("--encoding", help="encoding of CSV/TSV inputs (default: detected)")
    score.add_argument("--sheet", help="Excel sheet name (default: the first sheet)")

    example = commands.add_parser("example", help="write a built-in example's files")
    example.add_argument("name", choices=["thesis"], help="thesis: Table 3.1, Table 3.6 (Scenario 1), Table 4.2")
    example.add_argument("--dir", required=True, metavar="DIR", help="folder to write to")

    commands.add_parser("demo", help="score the thesis example (Scenarios 1 and 2) and print the scores")
    for module in (cli_ahp, cli_taxonomy, cli_model, cli_pia):
        module.register(commands)
    gui = commands.add_parser("gui", help="start the desktop application")
    gui.add_argument("--example", choices=["thesis"], help="open the thesis example (Table 3.1, Scenario 1, its model)")
    gui.add_argument("--project", metavar="FILE", help="open a project file")
    gui.add_argument("--screenshot", metavar="OUT.png", help="render the view once everything has loaded, save, exit")
    gui.add_argument("--view", choices=view_keys(), default=None,
                     help="the view to show first (default: the first view; the welcome page on the first run)")
    gui.add_argument("--patient", action="store_true",
                     help="only the patient view (PIA's Patient Data Visualizer), without the expert views")
    gui.set_defaults(handler=_gui)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(f"tklscore: error: {error}", file=sys.stderr)
        return 2
    except SystemExit as done:  # --help, --version
        return int(done.code or 0)
    try:
        if hasattr(args, "handler"):
            return args.handler(args)
        if args.command == "score":
            return _score(args)
        if args.command == "example":
            for path in write_thesis_example(args.dir):
                print(path)
            return 0
        if args.command == "demo":
            return _demo()
    except InputError as error:
        print(f"tklscore: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head: the reader has gone, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        print(f"tklscore: error: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug, not bad input: say so without a traceback
        if os.environ.get("TKLSCORE_DEBUG"):
            raise
        print(f"tklscore: internal error: {error.__class__.__name__}: {error} "
              f"(please report it; TKLSCORE_DEBUG=1 shows the details)", file=sys.stderr)
        return 1
    return 0


def _gui(args) -> int:
    from tklscore.gui.app import main as gui_main  # Qt is loaded only for the application

    return gui_main(args)


def _score(args) -> int:
    sheet = int(args.sheet) if args.sheet and args.sheet.isdigit() else args.sheet
    source = load_table(args.source, delimiter=args.delimiter, encoding=args.encoding, sheet=sheet)
    roles = Roles(qi=args.qi, sa=args.sa, continuous=args.continuous, identifier=args.id_column)
    scorer = Scorer(source, roles)
    weights = load_weights(args.weights) if args.weights else TklDataModel.load(args.model).to_weights(args.model)
    if args.published:
        published = load_table(args.published, delimiter=args.delimiter, encoding=args.encoding, sheet=sheet)
        release = locate_table(source, published, args.id_column, roles.continuous)
    else:
        release = locate_by_ids(source, args.rows, args.id_column)
    if not args.skip_unlocated:
        release.require_all_located()
    report = scorer.score(release, weights, args.x, args.missing_weight_zero)
    for warning in report.warnings:
        print(f"tklscore: warning: {warning}", file=sys.stderr)
    text = render(report, args.format, source=args.source, published=args.published or "--rows")
    if args.output:
        with atomic_write(args.output) as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


def render(report: ScoreReport, fmt: str, source: str = "", published: str = "") -> str:
    if fmt == "json":
        return json.dumps(report.to_json_dict(), indent=2) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        report.records.to_csv(buffer, index=False, columns=list(RECORD_COLUMNS), float_format="%.17g",
                              lineterminator="\n")
        return buffer.getvalue()
    return render_table(report, source, published)


def _fixed(value: float | None, digits: int) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def render_table(report: ScoreReport, source: str = "", published: str = "") -> str:
    x = "inf" if math.isinf(report.x) else f"{report.x:g}"
    lines = [f"Source:    {source} ({report.source_rows} records)",
             f"Published: {published} ({report.published_rows} records)    M-Score x = {x}",
             "",
             f"{'score':<17}{'raw':>12}{'/ source':>12}{'/ max':>12}"]
    for key in SCORE_NAMES:
        label = SCORE_LABELS[key].replace("(x)", f"(x={x})")
        lines.append(f"{label:<17}{_fixed(report.scores.as_dict()[key], 5):>12}"
                     f"{_fixed(report.normalized_source.as_dict()[key], 4):>12}"
                     f"{_fixed(report.normalized_max.as_dict()[key], 4):>12}")
    lines += ["", "Per record (k, l, t: distinguishing factors; W: weight sum; RS: record scores)"]
    frame = report.records.rename(columns={"weight_sum": "W", "tkl": "RS_tkl", "m_score": "RS_M",
                                           "l_severity": "RS_L"})
    lines.append(frame.to_string(index=False, float_format=lambda v: f"{v:.5f}"))
    return "\n".join(lines) + "\n"


def _demo() -> int:
    example = thesis_example()
    scorer = Scorer(example.source, example.roles)
    scenario_1 = locate_by_ids(example.source, example.published_ids, example.roles.identifier)
    print("tkl-Score Workbench: the thesis' illustrative example "
          "(QI Job, City, Gender; SA Disease, Medication, Age, Initial Diagnosis; Table 4.2 weights)\n")
    print("== Scenario 1: Table 3.6 (records 3-6) is published")
    print(render_table(scorer.score(scenario_1, example.weights), "Table 3.1", "Table 3.6"))
    print("== Scenario 2: the whole of Table 3.1 is published")
    print(render_table(scorer.score(range(len(scorer)), example.weights), "Table 3.1", "Table 3.1"))
    return 0
