"""``tklscore pseudonymization violations|remove|lts``: value-prediction violations of a
pseudonymised table per QI subset, their removal with its utility report, and the LTS of
a data-flow model (disclosure-risk.md Part A)."""

from __future__ import annotations

import argparse
import json
import math
import sys

from tklscore.cli.arguments import column_list, number, output_path, seed
from tklscore.core.errors import InputError
from tklscore.cli.output import (add_csv_safe_argument, add_output_arguments, add_text_input_arguments, note_spaces,
                                 write_output)
from tklscore.core.numbers import number as number_text
from tklscore.core.pseudonymization.analysis import ThresholdChoice, remove_and_report, write_trimmed
from tklscore.core.pseudonymization.data_flow import DataFlowModel
from tklscore.core.pseudonymization.lts import generate_lts, to_dot, to_json
from tklscore.core.pseudonymization.preferences import load_people_from_preferences
from tklscore.core.pseudonymization.thresholds import WESTIN, PeoplePolicy, ThresholdPolicy
from tklscore.core.pseudonymization.utility import LABELS, STATISTICS
from tklscore.core.pseudonymization.violations import ViolationEngine
from tklscore.core.tables.loading import load_table

HELP = """\
Thresholds (one way): --threshold T (everyone); --thresholds-column COL (per record);
--policy FILE|table5 --category-column COL [--sensitive-flag-column COL] (Westin category
per record × normal/sensitive field; table5 is the paper's Table 5); --people FILE
(CSV id,category,sensitive_fields; needs --id-column) or --preferences FILE (the patient
view's saved preferences; needs --id-column). Policy tables are CSV category,normal,sensitive.
"""


def _unit(text: str) -> float:
    return number(text)


def _clamp(text: str) -> tuple[float, float]:
    parts = text.split(",")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"'{text}' is not LO,HI")
    return _unit(parts[0]), _unit(parts[1])


def _data_arguments(parser: argparse.ArgumentParser, *, qi_set: bool) -> None:
    parser.add_argument("data", metavar="DATA", help="the pseudonymised table (CSV/TSV, Excel or Parquet)")
    parser.add_argument("--sensitive", required=True, metavar="COL", help="the sensitive field")
    parser.add_argument("--qi", required=True, type=column_list, metavar="COLS",
                        help="the quasi-identifiers the actor could know (generalised values)")
    if qi_set:
        parser.add_argument("--qi-set", required=True, type=column_list, metavar="COLS",
                            help="the risk transition to clean: the QIs the actor knows")
        parser.add_argument("--seed", required=True, type=seed, metavar="N", help="seed of the random removal")
        parser.add_argument("--removal-threshold", type=_unit, metavar="T",
                            help="system default threshold Algorithm 2 estimates with (default: --threshold, "
                                 "else the policy's default category for a normal field)")
        add_csv_safe_argument(parser, "the trimmed data")
        parser.add_argument("--output", metavar="F", type=output_path, help="write the trimmed data (removed values emptied) as CSV")
    parser.add_argument("--margin", type=_unit, default=0.0, metavar="M",
                        help="values at most M apart count as equal (numeric fields; default 0)")
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--threshold", type=_unit, metavar="T", help="one threshold for every value")
    chosen.add_argument("--thresholds-column", metavar="COL", help="a column of per-record thresholds")
    chosen.add_argument("--category-column", metavar="COL", help="a column of Westin categories (with --policy)")
    chosen.add_argument("--people", metavar="FILE", help="policy per person: CSV id,category,sensitive_fields")
    chosen.add_argument("--preferences", metavar="FILE", help="the patient view's saved preferences")
    parser.add_argument("--policy", metavar="FILE|table5", default=None,
                        help="policy table CSV category,normal,sensitive (default table5 = the paper's Table 5)")
    parser.add_argument("--sensitive-flag-column", metavar="COL",
                        help="yes/no per record: its owner regards the field as sensitive")
    parser.add_argument("--clamp", type=_clamp, metavar="LO,HI", default=None,
                        help="the system's acceptable threshold range (default 0,1)")
    parser.add_argument("--default-category", choices=WESTIN, default=None,
                        help="category for people without a policy (default pragmatist)")
    parser.add_argument("--operator", choices=["gt", "ge"], default="gt",
                        help="violation when risk > threshold (gt, default) or ≥ (ge)")
    parser.add_argument("--id-column", metavar="COL", help="column naming each record's person")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    add_text_input_arguments(parser, "a CSV/TSV input")
    parser.add_argument("--sheet", help="Excel sheet name (default: the first sheet)")


def register(commands: argparse._SubParsersAction) -> None:
    group = commands.add_parser("pseudonymization", help="value-prediction risk of a pseudonymised table",
                                description="Pseudonymisation risk (Neumann et al.): violations per QI subset, "
                                            "their removal with the utility report, the LTS of a data-flow model.")
    actions = group.add_subparsers(dest="action", required=True, metavar="ACTION")
    violations = actions.add_parser("violations", help="N_v for every non-empty QI subset", epilog=HELP,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    _data_arguments(violations, qi_set=False)
    violations.set_defaults(handler=run_violations)
    remove = actions.add_parser("remove", help="remove violating values (Algorithm 2) and report the utility",
                                epilog=HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    _data_arguments(remove, qi_set=True)
    remove.set_defaults(handler=run_remove)
    lts = actions.add_parser("lts", help="the LTS privacy model of a data-flow model (JSON)")
    lts.add_argument("model", metavar="MODEL", help="data-flow model (JSON; see resources/pseudonymization/)")
    add_output_arguments(lts, ("json", "dot"), "json")
    lts.set_defaults(handler=run_lts)


def _setup(args):
    sheet = int(args.sheet) if args.sheet and args.sheet.isdigit() else args.sheet
    table = load_table(args.data, delimiter=args.delimiter, encoding=args.encoding, sheet=sheet,
                       keep_spaces=args.keep_spaces)
    note_spaces(table)
    engine = ViolationEngine(table, args.sensitive, args.qi, margin=args.margin, operator=args.operator)
    options = {}
    if args.clamp is not None:
        options["clamp"] = args.clamp
    if args.default_category is not None:
        options["default_category"] = args.default_category
    if args.policy and args.policy.lower() != "table5":
        policy = ThresholdPolicy.load(args.policy, **options)
    else:
        policy = ThresholdPolicy(**options)
    if args.policy and not (args.category_column or args.people or args.preferences):
        raise InputError("--policy needs --category-column COL (or --people/--preferences) to know each "
                         "record's Westin category")
    if args.sensitive_flag_column and not args.category_column:
        raise InputError("--sensitive-flag-column goes with --category-column")
    people = None
    if args.people:
        people = PeoplePolicy.load(args.people)
    elif args.preferences:
        people = load_people_from_preferences(args.preferences)
    choice = ThresholdChoice(uniform=args.threshold, column=args.thresholds_column,
                             category_column=args.category_column, sensitive_flag_column=args.sensitive_flag_column,
                             people=people, id_column=args.id_column, policy=policy)
    thresholds, warnings = choice.thresholds(table, args.sensitive)
    for warning in warnings:
        print(f"tklscore: warning: {warning}", file=sys.stderr)
    return table, engine, choice, thresholds


def _fraction(value: float) -> str:
    return "-" if math.isnan(value) else number_text(value)


def run_violations(args) -> int:
    table, engine, _, thresholds = _setup(args)
    transitions = engine.all_transitions(thresholds)
    if args.format == "json":
        sys.stdout.write(json.dumps({"transitions": [t.to_json_dict() for t in transitions]}, indent=2) + "\n")
        return 0
    lines = [f"Data: {table.name} ({len(table)} records)   sensitive: {args.sensitive}   margin: {engine.margin:g}"
             f"   violation: risk {'>' if engine.operator == 'gt' else '≥'} threshold", "",
             f"{'QI subset (the actor knows)':<40}{'violations':>12}"]
    for t in transitions:
        mark = "  ← maximum risk transition" if t is transitions[-1] else ""
        lines.append(f"{', '.join(t.qi_set):<40}{t.violations:>12}{mark}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def run_remove(args) -> int:
    if args.csv_safe and not args.output:
        raise InputError("--csv-safe applies to the trimmed data written as CSV: give --output FILE")
    table, engine, choice, thresholds = _setup(args)
    removal_threshold = args.removal_threshold if args.removal_threshold is not None else choice.removal_threshold()
    if not 0 <= removal_threshold <= 1:
        raise InputError(f"removal threshold {removal_threshold:g} is outside [0, 1]")
    report = remove_and_report(engine, args.qi_set, thresholds, seed=args.seed, removal_threshold=removal_threshold)
    if args.output:
        write_trimmed(table, args.sensitive, report.removal.removed_rows, args.output,
                      inputs=[args.data, args.people, args.preferences, args.policy], csv_safe=args.csv_safe)
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_json_dict(), indent=2) + "\n")
        return 0
    removal = report.removal
    lines = [f"Risk transition: {', '.join(removal.qi_set)} → {args.sensitive}   (seed {args.seed})",
             f"Violations before: {removal.violations_before}   values removed (R_v): {removal.removed}   "
             f"violations after: {report.violations_after}"]
    if removal.minimum is not None:
        lines.append(f"Exact minimum removal: {removal.minimum} (the heuristic removed "
                     f"{removal.removed - removal.minimum} more)")
    else:
        bounds = removal.minimum_json()
        lines.append(f"Exact minimum: between {bounds['at_least']} and {bounds['at_most']} — searched in "
                     f"{bounds['searched']} of {bounds['sets']} set(s) with violations; {removal.unsearched[0].note}")
    lines += ["", f"{'statistic':<20}{'original':>14}{'trimmed':>14}{'δ (trimmed − original)':>26}"]
    stats = report.statistics
    for key in STATISTICS:
        cells = [stats[part][key] for part in ("original", "trimmed", "delta")]
        lines.append(f"{LABELS[key]:<20}" + "".join(f"{number_text(c):>14}" for c in cells[:2])
                     + f"{number_text(cells[2]):>26}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def run_lts(args) -> int:
    graph = generate_lts(DataFlowModel.load(args.model))
    text = to_dot(graph) if args.format == "dot" else to_json(graph)
    write_output(text, args.output, [args.model])
    return 0
