"""``tklscore score SOURCE (--published FILE | --rows IDS) ...``: the scores of one release."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tklscore.cli.arguments import column_list, engine_requested, open_engine, seconds, spark_setting, x_value
from tklscore.cli.output import (add_csv_safe_argument, add_output_arguments, add_text_input_arguments, note_spaces,
                                 write_output)
from tklscore.core.files.atomic import check_output, check_output_folder
from tklscore.core.numbers import count, number, score
from tklscore.core.scoring.scores import RECORD_COLUMNS, SCORE_NAMES, ScoreReport, Scorer, score_label, x_text
from tklscore.core.scoring.weights import load_weights
from tklscore.core.errors import InputError
from tklscore.core.tables.loading import load_table
from tklscore.core.release.selection import ReleaseDefinition, resolve_release
from tklscore.core.tables.published import locate_by_ids, locate_table
from tklscore.core.tables.roles import Roles

if TYPE_CHECKING:
    from tklscore.core.model.data_model import TklDataModel
    from tklscore.core.scoring.weights import Weights
    from tklscore.core.tables.loading import Table
    from tklscore.core.tables.published import Release


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
    engines = score.add_argument_group("engines (tables larger than memory)")
    add_engine_arguments(engines)
    score.set_defaults(handler=run)


def add_engine_arguments(group) -> None:
    """--engine, --memory-limit, --spark-master, --spark-conf and --spark-timeout (score,
    measures, disclosure-risk, release)."""
    group.add_argument("--engine", choices=["memory", "duckdb", "spark"], default="memory",
                       help="memory (default): load the tables; duckdb: the group-bys as SQL over the "
                            "Parquet/CSV files, out of core; spark: the same on Spark (pip install "
                            "'tklscore[spark]'), reading any path Spark reads (hdfs://, s3a://)")
    group.add_argument("--memory-limit", metavar="SIZE",
                       help="the engine's memory limit, e.g. 2GB (duckdb spills to disk beyond it; "
                            "spark: the driver's and executors' memory)")
    group.add_argument("--spark-master", metavar="URL",
                       help="Spark's master (local[N], spark://HOST:7077, yarn; default: local mode, "
                            "or the one spark-submit sets)")
    group.add_argument("--spark-conf", metavar="KEY=VALUE", type=spark_setting, action="append",
                       help="a setting for the Spark session (repeatable), e.g. spark.driver.host=10.0.0.2, "
                            "spark.executor.memory=4g, spark.hadoop.fs.s3a.endpoint=URL")
    group.add_argument("--spark-timeout", metavar="SECONDS", type=seconds,
                       help="seconds a cluster has to accept the application and start its first executor "
                            "(default 60), then an error says what is missing")


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
    """What ``add_release_arguments`` asked for, loaded and scored."""

    source: Table
    roles: Roles
    weights: Weights
    model: TklDataModel | None     # the tkl-Data Model the weights come from (None: a weights file)
    report: ScoreReport
    scorer: Scorer
    release: Release


def score_release(args) -> ScoredRelease:
    """Load the inputs named by ``args`` and score the release; warnings go to stderr."""
    sheet = int(args.sheet) if args.sheet and args.sheet.isdigit() else args.sheet
    source = load_table(args.source, delimiter=args.delimiter, encoding=args.encoding, sheet=sheet,
                        keep_spaces=args.keep_spaces)
    note_spaces(source)
    roles = Roles(qi=args.qi, sa=args.sa, continuous=args.continuous, identifier=args.id_column)
    scorer = Scorer(source, roles)
    weights, model = load_weights_of(args)
    if args.published:
        published = load_table(args.published, delimiter=args.delimiter, encoding=args.encoding, sheet=sheet,
                               keep_spaces=args.keep_spaces)
        release = locate_table(source, published, args.id_column, roles.continuous, roles.sa)
        if args.strict:
            release.require_consistent()
    elif args.filter is not None:
        release = resolve_release(ReleaseDefinition(release_name(args), "filter", expression=args.filter), source, roles)
    else:
        release = locate_by_ids(source, args.rows, args.id_column)
    if not args.skip_unlocated:
        release.require_all_located()
    report = scorer.score(release, weights, args.x, args.missing_weight_zero)
    for warning in report.warnings:
        print(f"tklscore: warning: {warning}", file=sys.stderr)
    return ScoredRelease(source, roles, weights, model, report, scorer, release)


def release_name(args) -> str:
    """How output names the release: the published file, the filter, or the ids."""
    if args.published:
        return args.published
    return f"--filter {args.filter}" if args.filter is not None else "--rows"


def run(args) -> int:
    if args.csv_safe and args.format != "csv":
        raise InputError("--csv-safe applies to the records written as CSV: add --format csv")
    if engine_requested(args):
        return _run_engine(args)
    scored = score_release(args)
    measures = None
    if args.measures:
        if not scored.roles.qi:
            raise InputError("--measures needs quasi-identifiers (--qi): the privacy models are over "
                             "equivalence classes", column="--qi")
        from tklscore.core.risk.measures import measure_release  # the risk lens only when asked for

        measures = measure_release(scored.source, scored.roles, scored.release.positions, scored.scorer)
    report = scored.report
    text = render(report, args.format, source=args.source, published=release_name(args),
                  measures=measures, csv_safe=args.csv_safe)
    write_output(text, args.output, _inputs(args))
    return 0


def note_spaces_in_engine(backend, source: str) -> None:
    """The engine's note on the spaces around the source's values (from its first records)."""
    scan = getattr(backend, "source_scan", None)
    if scan is not None:
        note_spaces(backend.spaces_stripped(scan), what=source)


def load_weights_of(args) -> tuple[Weights, TklDataModel | None]:
    """The weights named by ``--weights`` or ``--model``, and the tkl-Data Model they come from (if any)."""
    if args.weights:
        return load_weights(args.weights), None
    from tklscore.core.model.data_model import TklDataModel  # RDF is loaded only for a model

    model = TklDataModel.load(args.model)
    return model.to_weights(args.model), model


def _inputs(args) -> list[str | None]:
    return [args.source, args.published, args.weights, args.model]


def _run_engine(args) -> int:
    """Score with an out-of-core engine (duckdb, spark); a Parquet --output
    receives the per-record results, written by the engine, and the scores are printed."""
    from pathlib import Path

    from tklscore.core.engines import score_files

    if args.sheet:
        raise InputError(f"--engine {args.engine} reads Parquet and CSV files; convert the workbook first")
    if args.strict:
        raise InputError(f"--strict (the published file's sensitive values against the source's) is checked by "
                         f"the in-memory engine; drop --engine {args.engine} or --strict")
    roles = Roles(qi=args.qi, sa=args.sa, continuous=args.continuous, identifier=args.id_column)
    inputs = _inputs(args)
    records_path = args.output if args.output and Path(args.output).suffix.lower() in (".parquet", ".pq") else None
    if records_path and args.engine == "spark":
        check_output_folder(args.output, inputs)  # Spark writes a folder of part files
    elif args.output:
        check_output(args.output, inputs)
    weights = load_weights_of(args)[0]
    with open_engine(args) as backend:
        report = score_files(args.engine, args.source, roles, weights, published=args.published, rows=args.rows,
                             filter=args.filter,
                             x=args.x, missing_weight_zero=args.missing_weight_zero, records_path=records_path,
                             delimiter=args.delimiter, encoding=args.encoding, skip_unlocated=args.skip_unlocated,
                             backend=backend)
        note_spaces_in_engine(backend, args.source)
        measures = None
        if args.measures:
            from tklscore.core.engines.measures import measure_published

            measures = measure_published(backend, roles, release_name(args))
    for warning in report.warnings:
        print(f"tklscore: warning: {warning}", file=sys.stderr)
    if records_path:
        summary = report.summary_dict() | {"records_file": str(records_path)}
        if measures is not None:
            summary["measures"] = measures.to_json_dict()
        text = (json.dumps(summary, indent=2) + "\n" if args.format == "json"
                else render_table(report, args.source, release_name(args), records=False)
                + f"Per-record results: {records_path} (Parquet)\n")
        if measures is not None and args.format != "json":
            from tklscore.cli.measures import render_table as render_measures

            text += "\n" + render_measures(measures, release_name(args))
        sys.stdout.write(text)
        return 0
    text = render(report, args.format, source=args.source, published=release_name(args), measures=measures,
                  csv_safe=args.csv_safe)
    write_output(text, args.output, inputs)
    return 0


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
    lines += ["", "Per record (k, l, t: distinguishing factors; W: weight sum; RS: record scores)"]
    frame = report.records.rename(columns={"weight_sum": "W", "tkl": "RS_tkl", "m_score": "RS_M",
                                           "l_severity": "RS_L"})
    lines.append(frame.to_string(index=False, float_format=score))
    return "\n".join(lines) + "\n"
