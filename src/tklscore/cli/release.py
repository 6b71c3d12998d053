"""``tklscore release`` (transform a source table into a release and score it) and
``tklscore suggest`` (the Pareto front of releases over the lattice of hierarchy levels)."""

from __future__ import annotations

import argparse
import json
import math
import sys

from tklscore.cli.arguments import (add_engine_arguments, check_engine_output, column_list as _columns,
                                    number as _number, number_or_inf, output_path, seed, source_of, whole_number,
                                    x_value as _x)
from tklscore.cli.output import (add_csv_safe_argument, add_text_input_arguments, note_aggregate,
                                 note_spaces)
from tklscore.core.errors import InputError
from tklscore.core.numbers import count, number, percent
from tklscore.core.release.designer import element_weights
from tklscore.core.release.hierarchy import load_arx_csv
from tklscore.core.release.selection import definition_of
from tklscore.core.release.suggest import Constraints, suggest
from tklscore.core.release.transform import ReleaseDesign
from tklscore.core.release.utility import UTILITY_LOSS_MEANING
from tklscore.core.scoring.weights import load_weights
from tklscore.core.tables.roles import Roles

def _pair(text: str) -> tuple[str, str]:
    column, sep, value = text.rpartition("=")
    if not sep or not column.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"'{text}' is not COL=VALUE")
    return column.strip(), value.strip()


def _groups_pair(text: str) -> tuple[str, str]:
    """``COL=RULES``: the column ends at the first '=' (a rule may hold one: ``<=50K->Low``)."""
    column, sep, value = text.partition("=")
    if not sep or not column.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"'{text}' is not COL=RULES")
    return column.strip(), value.strip()


def _levels(text: str) -> list[tuple[str, int]]:
    out = []
    for item in text.split(","):
        column, value = _pair(item)
        try:
            out.append((column, int(value)))
        except ValueError:
            raise argparse.ArgumentTypeError(f"level '{value}' of '{column}' is not a whole number") from None
    return out


def _share(text: str) -> float:
    value = _number(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is outside [0, 1] (a share of the rows, e.g. 0.05)")
    return value


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SOURCE", help="source table (CSV/TSV, Excel or Parquet)")
    parser.add_argument("--qi", metavar="COL[,COL...]", type=_columns, default=[], help="quasi-identifier columns")
    parser.add_argument("--sa", metavar="COL[,COL...]", type=_columns, required=True, help="sensitive columns")
    parser.add_argument("--continuous", metavar="COL[,COL...]", type=_columns, default=[],
                        help="sensitive columns that are continuous (numeric, ordered)")
    parser.add_argument("--id-column", metavar="COL", help="identifier column")
    chosen = parser.add_argument_group("rows released (default: every source record)").add_mutually_exclusive_group()
    chosen.add_argument("--rows", metavar="ID[,ID...]", type=_columns,
                        help="the source records released (ids of --id-column, else row numbers)")
    chosen.add_argument("--published", metavar="FILE", help="a published table file: its records located in the source")
    chosen.add_argument("--filter", metavar="EXPR", help="the source records matching a filter, e.g. \"age >= 30\"")
    built = parser.add_argument_group("hierarchies (one per column; the same definitions the project saves)")
    built.add_argument("--hierarchy", metavar="COL=FILE", type=_pair, action="append", default=[],
                       help="an ARX hierarchy CSV, or a hierarchy definition (.json) as the project saves it")
    built.add_argument("--interval", metavar="COL=LEVEL[,LEVEL...]", type=_pair, action="append", default=[],
                       help="intervals of a numeric column, one level after the other: a width (10) or cut "
                            "points (18:40:65), e.g. age=5,10,18:40:65")
    built.add_argument("--groups", metavar="COL=RULES", type=_groups_pair, action="append", default=[],
                       help="value groups as a,b->General rules: rules of a level separated by ';', levels by "
                            "'|', e.g. \"race=White->W;Black,Other->N|W,N->Any\"")
    built.add_argument("--keep-ungrouped", action="store_true",
                       help="with --groups: a value without a rule stays itself (default: an error)")
    built.add_argument("--mask", metavar="COL", type=_columns, action="append", default=[],
                       help="string masking: level h replaces the last h characters by *")
    built.add_argument("--dates", metavar="COL", type=_columns, action="append", default=[],
                       help="date levels: day → month → year → *")
    weighting = parser.add_mutually_exclusive_group(required=True)
    weighting.add_argument("--weights", metavar="F", help="CSV attribute,value,weight")
    weighting.add_argument("--model", metavar="F", help="a tkl-Data Model (Turtle): its weights, and its "
                                                        "elements weigh generalised sensitive values")
    parser.add_argument("--missing-weight-zero", action="store_true",
                        help="treat sensitive values without a weight as weight 0 (default: error)")
    parser.add_argument("--x", metavar="X|inf", type=_x, default=1.0, help="M-Score's x (≥ 1, or inf; default 1)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    add_text_input_arguments(parser, "the CSV/TSV source")


def register(commands: argparse._SubParsersAction) -> None:
    release = commands.add_parser("release", help="transform a source table into a release and score it",
                                  description="Generalise, suppress, remove, microaggregate or add noise; "
                                              "print the release's scores, privacy measures and utility.")
    _common(release)
    release.add_argument("--levels", metavar="COL=H,COL=H...", type=_levels, action="append", default=[],
                         help="generalisation level of each column with a hierarchy (default 0)")
    release.add_argument("--suppress-below", metavar="K", type=whole_number, default=0,
                         help="do not publish rows in classes smaller than K")
    release.add_argument("--suppression-limit", metavar="S", type=_share, default=1.0,
                         help="at most this share of the rows is suppressed (default 1: no limit)")
    release.add_argument("--remove", metavar="COLS", type=_columns, default=[], help="columns not published")
    release.add_argument("--microaggregate", metavar="COL=mean|median", type=_pair, action="append", default=[],
                         help="publish a numeric column's class mean or median")
    release.add_argument("--noise", metavar="COL=EPS", type=_pair, action="append", default=[],
                         help="add uniform noise of ±EPS %% of the value to a numeric column")
    release.add_argument("--seed", metavar="N", type=seed, default=0, help="seed of the noise (default 0)")
    release.add_argument("--design", metavar="DESIGN.json",
                         help="the whole design and its hierarchies as a design JSON (the Design view's Copy as "
                              "command writes one); instead of --levels, --suppress-below, --remove, ... and the "
                              "row selection")
    add_csv_safe_argument(release, "a CSV --output")
    release.add_argument("--output", metavar="RELEASE.csv|.parquet", type=output_path,
                         help="write the published table (CSV or Parquet, atomically; with an engine, streamed "
                              "by the engine)")
    add_engine_arguments(release)
    release.set_defaults(handler=run_release)

    found = commands.add_parser("suggest", help="suggest releases: the Pareto front of normalised tkl vs "
                                                "utility loss over the lattice of hierarchy levels")
    _common(found)
    found.add_argument("--k", type=whole_number, default=1, help="k-anonymity at least K (with suppression)")
    found.add_argument("--l", type=whole_number, default=1, help="distinct l-diversity at least L")
    found.add_argument("--t", type=_number, default=1.0, help="t-closeness at most T")
    found.add_argument("--max-tkl", type=number_or_inf, default=math.inf, help="normalised tkl-Score at most X")
    found.add_argument("--suppression-limit", metavar="S", type=_share, default=0.0,
                       help="share of rows that may be suppressed to reach k (default 0)")
    add_engine_arguments(found)
    found.set_defaults(handler=run_suggest)


def _hierarchies(args) -> dict:
    """The hierarchies the arguments give, one per column."""
    from tklscore.core.release.hierarchy import Hierarchy

    found: dict = {}

    def add(column: str, hierarchy) -> None:
        if column in found:
            raise InputError("has two hierarchies (given twice among --hierarchy, --interval, --groups, --mask, "
                             "--dates)", column=column)
        found[column] = hierarchy

    for column, path in args.hierarchy:
        if path.lower().endswith(".json"):
            from tklscore.core.files.json_file import read_json

            data = read_json(path, "hierarchy definition")
            if not isinstance(data, dict):
                raise InputError("a hierarchy definition is a JSON object with 'kind' and its levels", file=path)
            add(column, Hierarchy.from_dict({**data, "column": column}))
        else:
            add(column, load_arx_csv(path, column))
    for column, text in args.interval:
        levels = []
        for number, level in enumerate(text.split(","), start=1):
            try:
                levels.append([float(c) for c in level.split(":")] if ":" in level else float(level))
            except ValueError:
                raise InputError(f"--interval level {number} '{level}' is neither a width nor cut points a:b:c",
                                 column=column) from None
        add(column, Hierarchy.intervals(column, levels))
    for column, text in args.groups:
        add(column, Hierarchy.from_rules(column, [level.replace(";", "\n") for level in text.split("|")],
                                         keep_others=args.keep_ungrouped))
    for column in (c for group in args.mask for c in group):
        add(column, Hierarchy.masking(column))
    for column in (c for group in args.dates for c in group):
        add(column, Hierarchy.dates(column))
    for column, hierarchy in _design_file(args)[1].items():
        add(column, hierarchy)
    return found


# the arguments a design JSON replaces, with their defaults
_DESIGN_ARGUMENTS = {"levels": [], "suppress_below": 0, "suppression_limit": 1.0, "remove": [], "microaggregate": [],
                     "noise": [], "seed": 0, "rows": None, "published": None, "filter": None}


def _design_file(args):
    """``--design FILE``: its design and hierarchies (no design, no hierarchies without it)."""
    path = getattr(args, "design", None)
    if not path:
        return None, {}
    given = [name for name, default in _DESIGN_ARGUMENTS.items() if getattr(args, name, default) != default]
    if given:
        raise InputError(f"--design holds the whole design; drop {', '.join('--' + g.replace('_', '-') for g in given)}",
                         file=path)
    from tklscore.core.release.command import read_design

    if not hasattr(args, "_design_read"):
        args._design_read = read_design(path)
    return args._design_read


def _selection(args):
    """The rows released: ``--rows``, ``--published`` or ``--filter`` (None: every record)."""
    if not (args.rows or args.published or args.filter is not None):
        return None
    options = {"delimiter": args.delimiter, "encoding": args.encoding}
    if args.rows:
        return definition_of(rows=args.rows)
    return definition_of(published=args.published, filter=args.filter, options=options,
                         name=None if args.published else "--filter")


def _weights(args):
    """The weights and, from a tkl-Data Model, its elements' weights."""
    if args.weights:
        return load_weights(args.weights), None
    from tklscore.core.model.data_model import TklDataModel

    model = TklDataModel.load(args.model)
    return model.to_weights(args.model), element_weights(model)


def _designer(args):
    """The source (loaded, or read by ``--engine``), its designer and the weights."""
    source = source_of(args, args.source, lambda: Roles(qi=args.qi, sa=args.sa, continuous=args.continuous,
                                                       identifier=args.id_column),
                       delimiter=args.delimiter, encoding=args.encoding, keep_spaces=args.keep_spaces)
    note_spaces(source.spaces_stripped(), what=args.source)
    hierarchies = _hierarchies(args)
    weights, elements = _weights(args)
    return source.designer(hierarchies, elements), weights


def _design(args) -> ReleaseDesign:
    design = _design_file(args)[0]
    if design is not None:
        return design
    noise = {}
    for column, value in args.noise:
        try:
            noise[column] = float(value)
        except ValueError:
            raise InputError(f"noise '{value}' is not a number of percent", column=column) from None
    levels = dict(pair for group in args.levels for pair in group)
    return ReleaseDesign("release", levels, args.suppress_below, args.suppression_limit, args.remove,
                         dict(args.microaggregate), noise, args.seed, _selection(args))


def _inputs(args) -> list:
    return [args.source, args.weights, args.model, args.published, getattr(args, "design", None),
            *(path for _, path in args.hierarchy)]


def run_release(args) -> int:
    """The design evaluated on the source, in memory or in the engine; the published table
    written to ``--output`` (by the engine, never loaded whole, out of core)."""
    if args.csv_safe and not (args.output and args.output.lower().endswith(".csv")):
        raise InputError("--csv-safe applies to a release written as CSV: give --output RELEASE.csv")
    check_engine_output(args, _inputs(args))
    designer, weights = _designer(args)
    note_aggregate(designer)
    try:
        design = _design(args)
        result = designer.evaluate(design, weights, args.x, args.missing_weight_zero)
        if args.output:
            designer.write_release(result, args.output, [i for i in _inputs(args) if i], csv_safe=args.csv_safe)
    finally:
        close = getattr(designer, "close", None)
        if close is not None:
            close()
    for note in result.notes:
        print(f"tklscore: warning: {note}", file=sys.stderr)
    return _print_release(args, result.to_json_dict())


def _print_release(args, data: dict) -> int:
    out = {key: data[key] for key in ("levels", "published_rows", "suppressed_rows", "scores", "normalized",
                                      "measures", "utility")}
    if args.format == "json":
        sys.stdout.write(json.dumps(_clean(out), indent=2) + "\n")
        return 0
    sys.stdout.write(release_text(args.source, data, args.x))
    return 0


def release_text(source: str, data: dict, x: float) -> str:
    """A design result (``DesignResult.to_json_dict()``) for people: the rows published and
    suppressed, the scores, the utility and the privacy models and risk, each by the name
    the views and the report give it."""
    from tklscore.cli.score import score_lines
    from tklscore.core.release.utility import utility_rows
    from tklscore.core.risk.measures import measure_rows

    published, suppressed = data["published_rows"], data["suppressed_rows"]
    selected = published + suppressed
    levels = ", ".join(f"{c}={h}" for c, h in data["levels"].items()) or "none"
    lines = [f"Release of {source}: {count(published)} of {count(selected)} records published, {count(suppressed)} "
             f"suppressed (not published); levels {levels}", ""]
    lines += score_lines(data["scores"], data["normalized"]["source"], data["normalized"]["theoretical_max"], x)
    utility = _utility_of(data)
    lines += ["", "Utility (what the release keeps of the data)"]
    lines += _aligned([(name, value) for name, value, _ in utility_rows(utility)])
    if data["measures"]:
        lines += ["", f"Privacy models and risk of the {count(published)} published records (linked against the "
                      f"source)"]
        lines += _aligned(measure_rows(data["measures"]))
    return "\n".join(lines) + "\n"


def _aligned(rows: list[tuple[str, str]]) -> list[str]:
    """Names on the left, values right-aligned in one column."""
    names = max(len(name) for name, _ in rows) + 2
    values = max(len(value) for _, value in rows)
    return [f"  {name:<{names}}{value:>{values}}" for name, value in rows]


def _utility_of(data: dict):
    from tklscore.core.release.utility import Utility

    u = data["utility"]
    return Utility(u["precision"], u["discernibility"], u["average_class_size"], u["non_uniform_entropy"],
                   u["suppressed_share"], non_uniform_entropy_arx=u["non_uniform_entropy_arx"])


def run_suggest(args) -> int:
    designer, weights = _designer(args)
    try:
        constraints = Constraints(args.k, args.l, args.t, args.max_tkl, args.suppression_limit)
        base = ReleaseDesign(selection=_selection(args))
        lattice = getattr(designer, "lattice", None)   # out of core: the nodes roll up the source's aggregate
        if lattice is not None:
            note_aggregate(designer)
            if base.selection is not None:
                from tklscore.core.engines.lattice import SELECTION_REFUSED

                raise InputError(SELECTION_REFUSED)
        found = suggest(lattice() if lattice is not None else designer, weights, constraints, base, x=args.x,
                        missing_weight_zero=args.missing_weight_zero)
    finally:
        close = getattr(designer, "close", None)
        if close is not None:
            close()
    if not found.met:
        print(f"tklscore: warning: {found.message}", file=sys.stderr)
    data = {"lattice_size": found.lattice_size, "evaluated": found.evaluated,
            "front": [c.as_dict() for c in found.front]}
    if args.format == "json":
        sys.stdout.write(json.dumps(_clean(data), indent=2) + "\n")
        return 0
    lines = [f"{found.searched()} {found.message}.", "",
             f"{'tkl ÷ source':>13}{'loss':>8}{'k':>8}{'l':>5}{'t':>8}{'suppr.':>9}  levels"]
    for c in found.front:
        misses = "" if found.met else "  — misses " + "; ".join(c.misses(constraints))
        lines.append(f"{number(c.tkl_normalized):>13}{number(c.utility_loss):>8}{count(c.k):>8}{count(c.l):>5}"
                     f"{number(c.t):>8}{percent(c.suppressed_share):>9}  "
                     + ", ".join(f"{k}={v}" for k, v in c.levels.items()) + misses)
    lines += ["", f"loss: {UTILITY_LOSS_MEANING}"]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _clean(value):
    """JSON without NaN: an unknown figure is null."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value
