"""``tklscore score SOURCE (--published FILE | --rows IDS) ...``: the scores of one release."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tklscore.cli.arguments import add_engine_arguments, column_list, records_output, source_of, x_value
from tklscore.cli.output import (add_csv_safe_argument, add_output_arguments, add_text_input_arguments,
                                 note_aggregate, note_spaces, write_output)
from tklscore.core.numbers import count, number, score
from tklscore.core.errors import InputError
from tklscore.core.release.selection import ReleaseDefinition, definition_of
from tklscore.core.scoring.scores import RECORD_COLUMNS, SCORE_NAMES, ScoreReport, score_label, x_text
from tklscore.core.scoring.weights import load_weights
from tklscore.core.tables.roles import Roles

if TYPE_CHECKING:
    from tklscore.core.model.data_model import TklDataModel
    from tklscore.core.risk.lens import RiskLens
    from tklscore.core.risk.measures import Measures
    from tklscore.core.scoring.weights import Weights
    from tklscore.core.source import Source


def register(commands: argparse._SubParsersAction) -> None:
    score = commands.add_parser("score", help="score a published table against its source table",
                                description="Score a published table (a file, or ids of source records) "
                                            "against its source table.")
    add_release_arguments(score)
    add_output_arguments(score, ("table", "json", "csv"),
                         format_help="table (for people), json (scores and records), csv (records)")
    add_csv_safe_argument(score, "the records (--format csv)")
    score.add_argument("--measures", action="store_true",
                       help="add the privacy models and re-identification risk of the published table "
                            "(journalist/marketer against the source) to the JSON under 'measures'")
    add_engine_arguments(score)
    score.set_defaults(handler=run)


def add_release_arguments(parser: argparse.ArgumentParser) -> None:
    """The source, the release, the roles, the weights and x: what ``score`` and ``report`` share."""
    parser.add_argument("source", metavar="SOURCE", help="source table (CSV/TSV, Excel or Parquet)")
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--published", metavar="FILE", help="published table file")
    chosen.add_argument("--rows", metavar="ID[,ID...]", type=column_list,
                        help="ids of the published source records (0-based row numbers without --id-column)")
    chosen.add_argument("--filter", metavar="EXPR",
                        help="publish the source records where EXPR holds: column names (in backticks when "
                             "they hold spaces), ==, !=, <, <=, >, >=, in [...], and, or, not, quoted text, and "
                             "numbers for a column whose values are all numbers; read, never run (calls, "
                             "attributes, @ names are refused), e.g. \"age >= 30 and `Initial Diagnosis` == "
                             "'Flu'\"")
    parser.add_argument("--id-column", metavar="COL", help="identifier column locating published records")
    parser.add_argument("--qi", metavar="COL[,COL...]", type=column_list, default=[],
                        help="quasi-identifier columns (none: k-DF = |P|, t-DF = 0)")
    parser.add_argument("--sa", metavar="COL[,COL...]", type=column_list, required=True, help="sensitive columns")
    parser.add_argument("--continuous", metavar="COL[,COL...]", type=column_list, default=[],
                        help="sensitive columns that are continuous (numeric, ordered)")
    weighting = parser.add_mutually_exclusive_group(required=True)
    weighting.add_argument("--weights", metavar="WEIGHTS.csv",
                           help="CSV attribute,value,weight (intervals such as [0,30) for continuous columns)")
    weighting.add_argument("--model", metavar="MODEL.ttl",
                           help="a tkl-Data Model (Turtle) whose derived weights are used")
    parser.add_argument("--missing-weight-zero", action="store_true",
                        help="treat sensitive values without a weight as weight 0 (default: error)")
    parser.add_argument("--x", metavar="X|inf", type=x_value, default=1.0,
                        help="M-Score's x (≥ 1, or inf; default 1)")
    parser.add_argument("--skip-unlocated", action="store_true",
                        help="score the located records when some published records are not in the source "
                             "(default: error)")
    parser.add_argument("--strict", action="store_true",
                        help="refuse a published table whose sensitive values contradict the source record "
                             "with the same id (default: warn and score the source's values)")
    add_text_input_arguments(parser)
    parser.add_argument("--sheet", help="Excel sheet name (default: the first sheet)")


@dataclass
class ScoredRelease:
    """What ``add_release_arguments`` asked for, scored on the source the engine reads."""

    source: Source
    roles: Roles
    weights: Weights
    model: TklDataModel | None     # the tkl-Data Model the weights come from (None: a weights file)
    report: ScoreReport
    definition: ReleaseDefinition
    measures: Measures | None = None
    lens: RiskLens | None = None      # the release's risk lens, when asked for


def release_definition(args) -> ReleaseDefinition:
    """The release ``--published``, ``--rows`` or ``--filter`` names (a published file read
    as the source is: delimiter, encoding, sheet)."""
    options = {"delimiter": args.delimiter, "encoding": args.encoding, "sheet": _sheet(args)}
    return definition_of(published=args.published, rows=args.rows, filter=args.filter, options=options)


def _sheet(args):
    sheet = getattr(args, "sheet", None)
    return int(sheet) if sheet and sheet.isdigit() else sheet


def score_release(args, records_path: str | None = None, measures: bool = False,
                  lens: bool = False, stream: bool = False) -> ScoredRelease:
    """Score the release named by ``args`` on its source (loaded, or read by ``--engine``);
    with ``measures`` also its privacy models and risk, with ``lens`` its risk lens (with
    quasi-identifiers and records to measure); ``stream``: an engine keeps the records on
    disk (``report.stored``); warnings go to stderr."""
    source = source_of(args, args.source, lambda: Roles(qi=args.qi, sa=args.sa, continuous=args.continuous,
                                                       identifier=args.id_column),
                       delimiter=args.delimiter, encoding=args.encoding, sheet=_sheet(args),
                       keep_spaces=args.keep_spaces)
    roles = source.roles
    definition = release_definition(args)
    with source.session() as session:
        session.check_roles()     # the source and its roles before the weights
        weights, model = load_weights_of(args)
        if measures and not roles.qi:
            raise InputError("--measures needs quasi-identifiers (--qi): the privacy models are over "
                             "equivalence classes", column="--qi")
        report = session.score(definition, weights, args.x, args.missing_weight_zero,
                               skip_unlocated=args.skip_unlocated, strict=args.strict, records_path=records_path,
                               stream=stream)
        measured = session.measure(definition) if measures else None
        risk = session.risk_lens(definition, weights=weights) if lens and roles.qi and report.published_rows else None
        note_spaces(session.spaces_stripped(), what=args.source)
        note_aggregate(session)
    for warning in report.warnings:
        print(f"tklscore: warning: {warning}", file=sys.stderr)
    return ScoredRelease(source, roles, weights, model, report, definition, measured, risk)


def release_name(args) -> str:
    """How output names the release: the published file, the filter, or the ids."""
    return release_definition(args).name


def run(args) -> int:
    if args.csv_safe and args.format != "csv":
        raise InputError("--csv-safe applies to the records written as CSV: add --format csv")
    records_path = records_output(args, _inputs(args))
    # out of core the records stay on disk and are written out batch by batch
    scored = score_release(args, records_path, measures=args.measures,
                           stream=args.engine != "memory" and records_path is None)
    report, measures, name = scored.report, scored.measures, release_name(args)
    if report.stored is not None:
        try:
            write_stored(report, args, name, measures)
        finally:
            report.stored.close()
        return 0
    if records_path:
        summary = report.summary_dict() | {"records_file": str(records_path)}
        if measures is not None:
            summary["measures"] = measures.to_json_dict()
        text = (json.dumps(summary, indent=2) + "\n" if args.format == "json"
                else render_table(report, args.source, name, records=False)
                + f"Per-record results: {records_path} (Parquet)\n")
        if measures is not None and args.format != "json":
            from tklscore.cli.measures import render_table as render_measures

            text += "\n" + render_measures(measures, name)
        sys.stdout.write(text)
        return 0
    write_output(render(report, args.format, source=args.source, published=name, measures=measures,
                        csv_safe=args.csv_safe), args.output, _inputs(args))
    return 0


def write_stored(report: ScoreReport, args, name: str, measures=None) -> None:
    """``render``'s output of a report whose records are on disk, written batch by batch
    to ``--output`` (atomically) or stdout: the same text, never the whole table in memory."""
    import contextlib

    from tklscore.core.files.atomic import atomic_write
    from tklscore.core.files.records import write_records_csv

    target = (atomic_write(args.output, inputs=[i for i in _inputs(args) if i]) if args.output
              else contextlib.nullcontext(sys.stdout))
    with target as handle:
        if args.format == "json":
            report.write_json(handle, {"measures": measures.to_json_dict()} if measures is not None else None)
        elif args.format == "csv":
            write_records_csv(handle, report.stored.batches(list(RECORD_COLUMNS)), list(RECORD_COLUMNS),
                              safe=args.csv_safe)
        else:
            handle.write(render_table(report, args.source, name, records=False))
            handle.write("\n" + RECORDS_TITLE + "\n")
            write_records_table(handle, report.stored.batches(list(RECORD_COLUMNS)),
                                lambda: report.stored.batches(list(RECORD_COLUMNS)))
            if measures is not None:
                from tklscore.cli.measures import render_table as render_measures

                handle.write("\n" + render_measures(measures, name))


RECORDS_TITLE = "Per record (k, l, t: distinguishing factors; W: weight sum; RS: record scores)"
RECORD_TITLES = {"weight_sum": "W", "tkl": "RS_tkl", "m_score": "RS_M", "l_severity": "RS_L"}


def write_records_table(handle, batches, again) -> None:
    """The records as ``render_table`` prints them (``DataFrame.to_string``: a number
    column's header takes a space more), from ``batches`` of frames: the column widths read
    in a first pass (``again()`` gives the batches once more), then each batch printed to them."""
    widths: dict[str, int] = {}
    for batch in batches:
        for column, (number_column, cells) in _table_cells(batch).items():
            least = widths.get(column, len(column) + number_column)
            widths[column] = max(least, max((len(c) for c in cells), default=0))
    first = True
    for batch in again():
        cells = {c: values for c, (_number, values) in _table_cells(batch).items()}
        if first:
            handle.write(" ".join(c.rjust(widths[c]) for c in cells) + "\n")
            first = False
        rows = zip(*cells.values())
        handle.write("".join(" ".join(v.rjust(widths[c]) for c, v in zip(cells, row)) + "\n" for row in rows))


def _table_cells(batch) -> dict[str, tuple[bool, list[str]]]:
    """Each column: whether it holds numbers, and its cells as ``DataFrame.to_string`` writes them."""
    frame = batch.rename(columns=RECORD_TITLES)
    out = {}
    for c in frame.columns:
        kind = frame[c].dtype.kind
        out[c] = (kind in "fiu", [score(v) for v in frame[c]] if kind == "f" else [str(v) for v in frame[c]])
    return out


def load_weights_of(args) -> tuple[Weights, TklDataModel | None]:
    """The weights named by ``--weights`` or ``--model``, and the tkl-Data Model they come from (if any)."""
    if args.weights:
        return load_weights(args.weights), None
    from tklscore.core.model.data_model import TklDataModel  # RDF is loaded only for a model

    model = TklDataModel.load(args.model)
    return model.to_weights(args.model), model


def _inputs(args) -> list[str | None]:
    return [args.source, args.published, args.weights, args.model]


def render(report: ScoreReport, fmt: str, source: str = "", published: str = "", measures=None,
           csv_safe: bool = False) -> str:
    if fmt == "json":
        return report.to_json({"measures": measures.to_json_dict()} if measures is not None else None)
    if fmt == "csv":
        from tklscore.core.files.records import records_csv

        return records_csv(report.records, list(RECORD_COLUMNS), safe=csv_safe)
    text = render_table(report, source, published)
    if measures is not None:
        from tklscore.cli.measures import render_table as render_measures

        text += "\n" + render_measures(measures, published)
    return text


def score_lines(scores: dict, by_source: dict, by_max: dict, x: float) -> list[str]:
    """The table of the five scores, raw and normalised, as ``score`` and ``release`` print it."""
    lines = [f"{'score':<17}{'raw':>14}{'÷ source':>12}{'÷ max':>12}"]
    for key in SCORE_NAMES:
        if key == "m_score_inf" and math.isinf(x):
            continue  # the M-Score row above is already x = inf
        lines.append(f"{score_label(key, x, 'inf'):<17}{score(scores[key]):>14}"
                     f"{number(by_source[key]):>12}{number(by_max[key]):>12}")
    return lines


def render_table(report: ScoreReport, source: str = "", published: str = "", records: bool = True) -> str:
    x = x_text(report.x, "inf")
    lines = [f"Source:    {source} ({count(report.source_rows)} records)",
             f"Published: {published} ({count(report.published_rows)} records)    M-Score x = {x}",
             ""]
    lines += score_lines(report.scores.as_dict(), report.normalized_source.as_dict(),
                         report.normalized_max.as_dict(), report.x)
    if not records:
        return "\n".join(lines) + "\n"
    lines += ["", RECORDS_TITLE]
    frame = report.records.rename(columns=RECORD_TITLES)
    lines.append(frame.to_string(index=False, float_format=score))
    return "\n".join(lines) + "\n"
