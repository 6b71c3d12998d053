"""``tklscore disclosure-risk TABLE --attributes PARAMS.csv ...``: Orooji–Knapp record risk D(r)."""

from __future__ import annotations

import argparse
import json
import sys

from tklscore.cli.arguments import add_engine_arguments, number as number_arg, records_output, source_of
from tklscore.cli.output import add_output_arguments, add_text_input_arguments, note_spaces, write_output
from tklscore.core.numbers import count, number, percent
from tklscore.core.risk.disclosure_risk import (DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD,
                                                load_attribute_parameters)
from tklscore.core.scoring.weights import load_weights
from tklscore.core.tables.roles import Roles


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("disclosure-risk", help="Orooji–Knapp record-level disclosure risk D(r)",
                            description="D(r) = α Σ_KS PK(KS)/count(r(KS)) · C_UKS(r) over the known sets "
                                        "with PK > ε (Orooji & Knapp).")
    p.add_argument("table", metavar="TABLE", help="the table (CSV/TSV, Excel or Parquet)")
    p.add_argument("--attributes", metavar="PARAMS.csv", required=True,
                   help="CSV attribute,pk,weight: the attributes considered, PK(A) and W(A) in [0, 1]")
    p.add_argument("--value-weights", metavar="VW.csv",
                   help="CSV attribute,value,weight: W(v) (intervals such as [0,40) for numbers; unlisted: 0)")
    p.add_argument("--alpha", metavar="A", type=number_arg, default=DEFAULT_ALPHA,
                   help=f"consequence coefficient α > 0 (default {DEFAULT_ALPHA:g})")
    p.add_argument("--epsilon", metavar="E", type=number_arg, default=DEFAULT_EPSILON,
                   help=f"keep known sets with PK > ε (default {DEFAULT_EPSILON:g}; 0 keeps every set with PK > 0)")
    p.add_argument("--threshold", metavar="T", type=number_arg, default=DEFAULT_THRESHOLD,
                   help=f"count records with D > T (default {DEFAULT_THRESHOLD:g})")
    p.add_argument("--id-column", metavar="COL", help="identifier column naming the records")
    add_output_arguments(p, output_help="write to FILE (atomically) instead of stdout; with --engine, a .parquet "
                                        "FILE receives the per-record results and the summary is printed")
    add_text_input_arguments(p)
    add_engine_arguments(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    """D(r) of every record; with an engine a Parquet --output receives the per-record
    results (written by the engine) and the summary is printed."""
    inputs = [args.table, args.attributes, args.value_weights]
    records_path = records_output(args, inputs)
    source = source_of(args, args.table, Roles(identifier=args.id_column), delimiter=args.delimiter,
                       encoding=args.encoding, keep_spaces=args.keep_spaces)
    params = load_attribute_parameters(args.attributes)
    value_weights = load_weights(args.value_weights) if args.value_weights else None
    with source.session() as session:
        risk = session.disclosure_risk(params, value_weights, alpha=args.alpha, epsilon=args.epsilon,
                                       threshold=args.threshold, parameters_name=args.attributes,
                                       records_path=records_path)
        note_spaces(session.spaces_stripped(), what=args.table)
    if records_path:
        if args.format == "json":
            text = json.dumps(risk.summary_dict() | {"records_file": str(records_path)}, indent=2) + "\n"
        else:
            text = render_summary(risk, args.table) + f"Per-record results: {records_path} (Parquet)\n"
        sys.stdout.write(text)
        return 0
    ids = risk.ids if args.id_column else None
    text = (json.dumps(risk.to_json_dict(ids), indent=2) + "\n" if args.format == "json"
            else render_table(risk, ids, args.table))
    write_output(text, args.output, inputs)
    return 0


def _header(risk, n: int, name: str) -> list[str]:
    return [f"Table: {name} ({count(n)} records, {len(risk.attributes)} attributes, {risk.splits:,} splits)",
            f"Known sets kept (PK > ε = {risk.epsilon:g}): {len(risk.known_sets)}",
            "  " + "; ".join("{" + ", ".join(s) + "}" for s in risk.known_sets[:40])
            + (" ..." if len(risk.known_sets) > 40 else ""),
            f"α = {risk.alpha:g}; records with D > {risk.threshold:g}: {count(risk.above_threshold)} "
            f"({percent(risk.above_threshold_share)})"]


def render_summary(risk, name: str) -> str:
    """The summary of D(r) computed by an engine: the parameters, the known sets, the
    records above the threshold and the histogram of log10 D the Risk view draws."""
    h = risk.histogram
    lines = _header(risk, risk.n, name) + [f"largest D = {number(risk.d_max)}; records with D = 0: {count(h.zero)}", ""]
    if len(h.counts):
        lines.append(f"{'D from':>14}{'to':>12}{'records':>14}")
        for low, high, records in zip(h.edges[:-1], h.edges[1:], h.counts):
            if records:
                lines.append(f"{number(10 ** low):>14}{number(10 ** high):>12}{count(int(records)):>14}")
    return "\n".join(lines) + "\n"


def render_table(risk, ids, name: str) -> str:
    n = len(risk.d)
    lines = _header(risk, n, name) + ["", f"{'record':<20}{'Σ L':>14}{'D':>14}"]
    for i in range(n):
        label = str(ids[i]) if ids is not None else str(i)
        lines.append(f"{label:<20}{number(risk.l_sum[i], 6):>14}{number(risk.d[i], 6):>14}")  # the oracle's digits
    return "\n".join(lines) + "\n"
