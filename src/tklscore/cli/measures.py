"""``tklscore measures TABLE --qi COLS ...``: privacy models and re-identification risk of a table."""

from __future__ import annotations

import argparse
import json

from tklscore.cli.arguments import add_engine_arguments, column_list, number as number_arg, source_of
from tklscore.cli.output import add_output_arguments, add_text_input_arguments, note_spaces, write_output
from tklscore.core.numbers import count, number, percent
from tklscore.core.risk import Measures
from tklscore.core.risk.equivalence_classes import SUPPRESSION_MARKER
from tklscore.core.errors import InputError
from tklscore.core.risk.measures import check_identifier_columns, describe, t_by_attribute_rows
from tklscore.core.risk.reidentification import DEFAULT_RISK_THRESHOLD
from tklscore.core.tables.roles import Roles


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("measures", help="privacy models and re-identification risk of a table",
                            description="k-anonymity, l-diversity, t-closeness, β-likeness, δ-disclosure, "
                                        "(X,Y)-anonymity and prosecutor/journalist/marketer risk of a table.")
    p.add_argument("table", metavar="TABLE", help="the table (CSV/TSV, Excel or Parquet), e.g. a release")
    p.add_argument("--qi", metavar="COL[,COL...]", type=column_list, required=True, help="quasi-identifier columns")
    p.add_argument("--sa", metavar="COL[,COL...]", type=column_list, default=[], help="sensitive columns")
    p.add_argument("--continuous", metavar="COL[,COL...]", type=column_list, default=[],
                   help="sensitive columns that are continuous (numeric, ordered)")
    p.add_argument("--id-column", metavar="COL", help="identifier column (not measured)")
    p.add_argument("--identifier-columns", metavar="COL[,COL...]", type=column_list, default=[],
                   help="Y of (X,Y)-anonymity: the columns identifying a person")
    p.add_argument("--population", metavar="SOURCE",
                   help="population table for journalist and marketer risk (e.g. the source table)")
    p.add_argument("--sampling-fraction", metavar="F", type=number_arg,
                   help="share of the population the table holds, in (0, 1]: population uniques")
    p.add_argument("--sample-weight", metavar="COL", help="sampling weight column: sdcMicro's individual risk")
    p.add_argument("--risk-threshold", metavar="T", type=number_arg, default=DEFAULT_RISK_THRESHOLD,
                   help=f"records at risk: risk above T (default {DEFAULT_RISK_THRESHOLD})")
    p.add_argument("--suppressed-marker", metavar="M", default=SUPPRESSION_MARKER,
                   help=f"value of a suppressed QI cell (default {SUPPRESSION_MARKER!r})")
    p.add_argument("--exclude-suppressed", action="store_true",
                   help="leave records whose QIs are all suppressed out of every measure (ARX's option)")
    p.add_argument("--qi-importance", action="store_true",
                   help="α-distinction and α-separation of every subset of the QIs")
    add_output_arguments(p)
    add_text_input_arguments(p)
    add_engine_arguments(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    def roles() -> Roles:   # once the table is read (a table that cannot be read is said first)
        check_identifier_columns(args.identifier_columns, args.qi, args.sa, args.table, id_column=args.id_column,
                                 sample_weight=args.sample_weight)
        try:
            return Roles(qi=args.qi, sa=args.sa, continuous=args.continuous, identifier=args.id_column)
        except InputError as error:
            raise InputError(error.message, file=error.file or args.table, row=error.row, column=error.column,
                             hint=error.hint) from None

    source = source_of(args, args.table, roles, delimiter=args.delimiter, encoding=args.encoding,
                       keep_spaces=args.keep_spaces)
    with source.session() as session:
        measures = session.measure(identifying=args.identifier_columns, population=args.population,
                                   sampling_fraction=args.sampling_fraction, risk_threshold=args.risk_threshold,
                                   suppressed_marker=args.suppressed_marker, exclude_suppressed=args.exclude_suppressed,
                                   sample_weight=args.sample_weight, qi_importance=args.qi_importance)
        note_spaces(session.spaces_stripped(), what=args.table)
    text = (json.dumps(measures.to_json_dict(), indent=2) + "\n" if args.format == "json"
            else render_table(measures, args.table))
    write_output(text, args.output, [args.table, args.population])
    return 0


def render_table(measures: Measures, name: str = "") -> str:
    """The measures for people: each value with what it means, risks as percentages."""
    j = measures.to_json_dict()
    risk = j["risk"]
    classes = j["classes"]
    lines = [f"Table: {name} ({count(j['rows'])} records, {count(j['suppressed_rows'])} with every quasi-identifier "
             f"suppressed, {count(classes['count'])} equivalence classes of {count(classes['min'])} to "
             f"{count(classes['max'])} records, mean {number(classes['mean'], 3)}, median {number(classes['median'])})",
             ""]
    rows = describe(measures) + t_by_attribute_rows(measures)
    width = max(len(label) for label, _, _ in rows) + 2
    lines.append(f"{'privacy model':<{width}}{'value':>10}  meaning")
    for label, value, meaning in rows:
        lines.append(f"{label:<{width}}{number(value):>10}  {meaning}")
    lines += ["", f"{'attacker':<14}{'highest':>10}{'average':>10}{'at risk':>10}{'success':>10}"]
    for attacker in ("prosecutor", "journalist"):
        r = risk[attacker]
        if r is None:
            lines.append(f"{attacker:<14}{'(needs --population)':>40}")
        else:
            lines.append(f"{attacker:<14}{percent(r['highest']):>10}{percent(r['average']):>10}"
                         f"{percent(r['records_at_risk']):>10}{percent(r['success_rate']):>10}")
    lines.append(f"{'marketer':<14}{percent(risk['marketer']):>40}" if risk["marketer"] is not None
                 else f"{'marketer':<14}{'(needs --population)':>40}")
    lines.append(f"(at risk: share of records whose risk exceeds {percent(measures.risk_threshold)})")
    lines.append(f"sample uniques: {percent(risk['sample_uniques'])} of the records")
    if risk["population_uniques"] is not None:
        p = risk["population_uniques"]
        lines.append("population uniques (share of the population): " + ", ".join(
            f"{k} {percent(v)}" for k, v in p.items())
            + f" (Dankar's rule chose {measures.population_uniques.dankar_model})")
    if risk["individual_risk"] is not None:
        ir = risk["individual_risk"]
        lines.append(f"individual risk (sdcMicro): expected re-identifications {number(ir['global'])} "
                     f"({percent(ir['global_rate'])})")
    if j["qi_importance"] is not None:
        lines += ["", f"{'QI subset':<48}{'distinction':>12}{'separation':>12}"]
        for q in j["qi_importance"]:
            lines.append(f"{', '.join(q['attributes']):<48}{number(q['distinction']):>12}"
                         f"{number(q['separation']):>12}")
    pc = j["pycanon"]
    lines += ["", f"pycanon readings: entropy l {pc['entropy_l']}, recursive (c,l) {pc['recursive_cl']}, "
                  f"average_rir {number(pc['average_rir'])}"]
    return "\n".join(lines) + "\n"
