"""``tklscore model ...``: build, judge, label, check and use a weight model.

    tklscore model new SOURCE --sa COL[,COL...] [--continuous COL[,COL...]] [--bins COL=a:b:c ...]
                       [--map COL=CLASS ...] [--vocabulary KEY|FILE ...] [--label VALUE=LEVEL ...]
                       --output MODEL.ttl
    tklscore model judge MODEL.ttl --group NODE (--matrix M.csv | --template) [--expert NAME] --output MODEL.ttl
    tklscore model label MODEL.ttl --label VALUE=LEVEL ... [--confirm] --output MODEL.ttl
    tklscore model check MODEL.ttl SOURCE --sa COL[,COL...] [--continuous ...] [--strict]
    tklscore model weights MODEL.ttl [--format csv|json]

``weights`` reads any weight model (a tkl-Data Model, an M-Score model or an L-Severity
model; the file says which); the others work on a tkl-Data Model (data-model.md), through
the same core functions as the Model and AHP views.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys

from tklscore.cli.arguments import column_list
from tklscore.cli.output import add_text_input_arguments
from tklscore.core.errors import InputError
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.model.mscore_model import MScoreModel
from tklscore.core.model.weight_models import load_weight_model

VOCABULARY_HELP = ("a shipped vocabulary (dpv-2.3: DPV 2.3 personal data categories, the default; thesis: the "
                   "thesis' nine classes) or an RDF file (Turtle, RDF/XML, JSON-LD); repeat for several files")


def _pair(form: str):
    def parse(text: str) -> tuple[str, str]:
        # the value may hold '=' (<=50K); the level, class or bins never do
        left, sep, right = text.rpartition("=") if form.endswith("LEVEL") else text.partition("=")
        if not sep or not left.strip() or not right.strip():
            raise argparse.ArgumentTypeError(f"expected {form}, got '{text}'")
        return left.strip(), right.strip()
    return parse


def register(commands: argparse._SubParsersAction) -> None:
    model = commands.add_parser("model", help="build, judge, label, check a tkl-Data Model; derive a weight "
                                              "model's weights (Turtle)",
                                description="Work with weight models: build a tkl-Data Model for a table, "
                                            "judge its criteria groups, label its values, check it against "
                                            "a table, derive weights.")
    actions = model.add_subparsers(dest="model_command", required=True, metavar="ACTION")
    _register_new(actions)
    _register_judge(actions)
    _register_label(actions)
    _register_check(actions)
    weights = actions.add_parser("weights", help="derive the weights of the sensitive values",
                                 description="Derive the weights of a model's sensitive values: a tkl-Data "
                                             "Model (AHP on each criteria group, labels and propagation on "
                                             "values), an M-Score model (three-level AHP tree) or an "
                                             "L-Severity model (sensitivities and inferences, Algorithm 1).")
    weights.add_argument("model", metavar="MODEL.ttl")
    weights.add_argument("--format", choices=["csv", "json"], default="csv",
                         help="csv: attribute,value,weight as `tklscore score --weights` reads it; json: "
                              "weights with the priorities and consistency of every criteria group")
    weights.set_defaults(handler=run_weights)


def _register_new(actions) -> None:
    new = actions.add_parser(
        "new", help="build a tkl-Data Model for a table's sensitive columns",
        description="Build a tkl-Data Model for SOURCE: one attribute per sensitive column aligned with a "
                    "vocabulary class (--map, else the suggested class, printed), its values (bins for a "
                    "continuous column), each value labelled with the default label, marked not yet judged "
                    "(--label sets the expert's own), and the taxonomy above the classes (data-model.md §1).")
    new.add_argument("source", metavar="SOURCE", help="source table (CSV/TSV, Excel or Parquet)")
    new.add_argument("--sa", metavar="COL[,COL...]", type=column_list, required=True, help="sensitive columns")
    new.add_argument("--continuous", metavar="COL[,COL...]", type=column_list, action="append", default=[],
                     help="sensitive columns that are continuous (binned); repeatable")
    new.add_argument("--bins", metavar="COL=a:b:c", type=_pair("COL=BINS"), action="append", default=[],
                     help="bins of a continuous column: edges a:b:c ([a,b), [b,c)), quantile[:K] or round[:WIDTH] "
                          "(default: quantile:4)")
    new.add_argument("--map", metavar="COL=CLASS", type=_pair("COL=CLASS"), action="append", default=[],
                     help="align a column with a class (full IRI, prefix:name such as pd:Income, or local name); "
                          "without it the suggested class is used")
    new.add_argument("--vocabulary", metavar="KEY|FILE", action="append", default=[], help=VOCABULARY_HELP)
    new.add_argument("--keep-parent", metavar="CHILD=PARENT", type=_pair("CHILD=PARENT"), action="append",
                     default=[], help="for a class with several parents, the one it keeps")
    new.add_argument("--root", metavar="CLASS", help="the taxonomy's root (default: the vocabulary's, "
                                                      "dpv:PersonalData for DPV 2.3)")
    _label_arguments(new)
    new.add_argument("--default-label", metavar="LEVEL",
                     help="the label every value starts with, not yet judged (default: normal)")
    new.add_argument("--output", metavar="MODEL.ttl", required=True, help="the model file to write (Turtle)")
    add_text_input_arguments(new)
    new.add_argument("--sheet", help="Excel sheet name (default: the first sheet)")
    new.set_defaults(handler=run_new)


def _label_arguments(parser) -> None:
    parser.add_argument("--label", metavar="VALUE=LEVEL", type=_pair("VALUE=LEVEL"), action="append", default=[],
                        help="the expert's label of a value: COLUMN:VALUE, the value alone when one column has "
                             "it, its node label (V.Sales) or COLUMN:* for all of a column's values; LEVEL on the "
                             "model's scale (unrestricted, low, moderate, normal, restricted, very restricted)")


def _register_judge(actions) -> None:
    judge = actions.add_parser(
        "judge", help="set one criteria group's pairwise judgements from a matrix",
        description="Set an expert's pairwise judgements of one criteria group of a tkl-Data Model from a "
                    "judgement matrix in the format of `tklscore ahp` (a header row of criteria names, one row "
                    "per criterion; names as the model labels the criteria, in any order), and print the "
                    "group's priorities and the verdict on its consistency ratio.")
    judge.add_argument("model", metavar="MODEL.ttl")
    judge.add_argument("--group", metavar="NODE", required=True,
                       help="the criteria group, by the label (or IRI) of the node above it, e.g. Professional")
    source = judge.add_mutually_exclusive_group(required=True)
    source.add_argument("--matrix", metavar="M.csv", help="the judgement matrix (see `tklscore ahp --help`)")
    source.add_argument("--template", action="store_true",
                        help="print an empty matrix with the group's criteria to fill in, and change nothing")
    judge.add_argument("--expert", metavar="NAME", default="expert 1", help="whose judgements (default: expert 1)")
    judge.add_argument("--output", metavar="MODEL.ttl", help="the model file to write (may be MODEL.ttl itself)")
    judge.set_defaults(handler=run_judge)


def _register_label(actions) -> None:
    label = actions.add_parser("label", help="label values of a tkl-Data Model",
                               description="Set the expert's labels of values (and elements) of a tkl-Data "
                                           "Model; --confirm accepts every default label and suggested "
                                           "alignment left as the expert's own.")
    label.add_argument("model", metavar="MODEL.ttl")
    _label_arguments(label)
    label.add_argument("--confirm", action="store_true",
                       help="mark every default label and suggested alignment as judged")
    label.add_argument("--output", metavar="MODEL.ttl", required=True,
                       help="the model file to write (may be MODEL.ttl itself)")
    label.set_defaults(handler=run_label)


def _register_check(actions) -> None:
    check = actions.add_parser(
        "check", help="list what in a tkl-Data Model does not match a table",
        description="Check a tkl-Data Model against a table: sensitive columns without an attribute, "
                    "attributes without a column, values of the table the model lacks (no weight), values "
                    "in no bin, values the table lacks. Exit status 0; with --strict, 1 when a mismatch "
                    "leaves sensitive values without a weight.")
    check.add_argument("model", metavar="MODEL.ttl")
    check.add_argument("source", metavar="SOURCE", help="the table (CSV/TSV, Excel or Parquet)")
    check.add_argument("--sa", metavar="COL[,COL...]", type=column_list,
                       help="its sensitive columns (default: the model's)")
    check.add_argument("--continuous", metavar="COL[,COL...]", type=column_list, action="append", default=None,
                       help="which of them are continuous (default: as in the model)")
    check.add_argument("--strict", action="store_true", help="exit 1 when values would have no weight")
    check.add_argument("--format", choices=["text", "json"], default="text")
    add_text_input_arguments(check)
    check.add_argument("--sheet", help="Excel sheet name (default: the first sheet)")
    check.set_defaults(handler=run_check)


# ---------------------------------------------------------------------------- new


def load_vocabulary(names: list[str]):
    """The vocabulary named on the command line: a shipped key, or RDF files read as one."""
    from tklscore.core.model.vocabulary import DEFAULT_VOCABULARY, SHIPPED, Vocabulary

    if not names:
        return Vocabulary.shipped(DEFAULT_VOCABULARY)
    keys = [n for n in names if n in SHIPPED]
    if keys and len(names) > 1:
        raise InputError(f"--vocabulary {keys[0]} is a shipped vocabulary; give it alone, or give files only")
    return Vocabulary.shipped(keys[0]) if keys else Vocabulary.load(names)


def _bins_of(table, column: str, spec: str) -> list[str]:
    from tklscore.core.model.bins import bins_from_edges, parse_edges
    from tklscore.core.model.data_model.building import BIN_METHODS, default_bins

    method, _, parameter = spec.partition(":")
    if method in BIN_METHODS:
        try:
            value = float(parameter) if parameter else None
        except ValueError:
            raise InputError(f"--bins {column}={spec}: '{parameter}' is not a number") from None
        return default_bins(table, column, method, value)
    return bins_from_edges(parse_edges(spec, column))


def _table(args):
    from tklscore.core.tables.loading import load_table

    return load_table(args.source, delimiter=args.delimiter, encoding=args.encoding, sheet=args.sheet)


def run_new(args) -> int:
    from tklscore.core.files.atomic import check_output
    from tklscore.core.model.data_model.building import new_model
    from tklscore.core.tables.roles import Roles

    check_output(args.output, [args.source])
    continuous = [c for group in args.continuous for c in group]
    sa = list(dict.fromkeys(list(args.sa) + continuous))
    vocabulary = load_vocabulary(args.vocabulary)
    table = _table(args)
    roles = Roles(sa=sa, continuous=continuous)
    table.require_columns(sa, "sensitive column")
    bins = {}
    for column, spec in args.bins:
        if column not in continuous:
            raise InputError(f"--bins {column}=…: '{column}' is not a continuous column (--continuous {column})")
        bins[column] = _bins_of(table, column, spec)
    alignment = {}
    for column, cls in args.map:
        if column in alignment:
            raise InputError(f"column '{column}' is mapped twice (--map)")
        alignment[column] = cls
    built = new_model(table, roles, vocabulary, alignment, bins, dict(args.keep_parent) or None, args.root,
                      args.default_label, dict(args.label) or None)
    built.model.save(args.output, inputs=[args.source, *args.vocabulary])
    sys.stdout.write(describe_new(built, vocabulary, args.output, alignment) + "\n")
    return 0


def describe_new(built, vocabulary, output: str, given: dict[str, str]) -> str:
    model = built.model
    values = sum(len(model.values_of(c)) for c in model.columns)
    lines = [f"tkl-Data Model of {model.source}: {len(model.columns)} sensitive column(s), {values:,} value(s) "
             f"or bins; vocabulary {vocabulary.title}", "", "Alignment (column → class):"]
    width = max(len(c) for c in model.columns)
    for column in model.columns:
        parent = model.attribute(column).parent
        if parent is None:
            lines.append(f"  {column:<{width}}   no class: {built.suggestions[column].reason}")
            continue
        how = "given (--map)" if column in given else f"suggested: {built.suggestions[column].reason}"
        lines.append(f"  {column:<{width}} → {model.nodes[parent].label} ({vocabulary.short(parent)})  {how}")
    if built.taxonomy is not None:
        lines += ["", "Taxonomy:"] + ["  " + line for line in built.taxonomy.tree_lines()]
        for conflict in built.taxonomy.conflicts:
            lines.append(f"  {vocabulary.label(conflict.node)} has parents "
                         f"{', '.join(vocabulary.label(p) for p in conflict.parents)}; kept "
                         f"{vocabulary.label(conflict.kept)} ({conflict.reason}; --keep-parent to choose)")
    for column in model.columns:
        if model.attribute(column).continuous:
            lines.append(f"Bins of {column}: " + " ".join(n.value for n in model.values_of(column)))
    lines += ["", _left_to_do(model, output)]
    lines.append(f"Written {output}")
    return "\n".join(lines)


def _left_to_do(model: TklDataModel, path: str) -> str:
    unjudged, suggested = model.unjudged(), model.suggested_alignments()
    derived = model.derive()
    groups = [p for p in model.groups() if p not in derived.groups]
    lines = []
    if unjudged:
        lines.append(f"{len(unjudged):,} value(s) carry the default label, not yet judged "
                     f"(tklscore model label {path} --label COLUMN:VALUE=LEVEL, or --confirm)")
    if suggested:
        lines.append(f"suggested alignments not yet confirmed: {', '.join(suggested)}")
    for parent in groups:
        names = ", ".join(model.nodes[c].label for c in model.criteria_group(parent))
        lines.append(f"judge the criteria group under {model.nodes[parent].label} ({names}): "
                     f"tklscore model judge {path} --group \"{model.nodes[parent].label}\" --matrix M.csv "
                     f"--output {path}")
    other = [p for p in derived.problems if "needs pairwise judgements" not in p]
    lines += other
    if not lines:
        return "Complete: every group is judged, every value labelled (tklscore model weights " + path + ")."
    return "Left to do:\n" + "\n".join("  - " + line for line in lines)


# ---------------------------------------------------------------------------- judge, label


def _group_parent(model: TklDataModel, name: str) -> str:
    try:
        node = model.find(name)
    except InputError:
        from tklscore.core.model.vocabulary import SHIPPED, Vocabulary

        node = None
        if model.vocabulary in SHIPPED:
            expanded = Vocabulary.shipped(model.vocabulary).expand(name)
            node = model.nodes.get(expanded)
        if node is None:
            groups = ", ".join(model.nodes[p].label for p in model.groups()) or "none"
            raise InputError(f"the model has no node '{name}'", hint=f"criteria groups are under: {groups}") from None
    if node.iri not in model.groups():
        groups = ", ".join(model.nodes[p].label for p in model.groups()) or "none"
        count = len(model.criteria_group(node.iri))
        raise InputError(f"'{node.label}' has {'no' if not count else 'one'} criterion below it, so there is "
                         f"nothing to judge", hint=f"criteria groups are under: {groups}")
    return node.iri


def run_judge(args) -> int:
    from tklscore.cli.ahp import read_matrix, render_table

    model = TklDataModel.load(args.model)
    parent = _group_parent(model, args.group)
    group = model.criteria_group(parent)
    labels = [model.nodes[c].label for c in group]
    if args.template:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow([""] + labels)
        for i, label in enumerate(labels):
            writer.writerow([label] + ["1" if j == i else "" for j in range(len(labels))])
        return 0
    if not args.output:
        raise InputError("--output MODEL.ttl is needed to keep the judgements (it may be the model file itself)")
    from tklscore.core.files.atomic import check_output

    check_output(args.output, [args.matrix])
    criteria, matrix, rows = read_matrix(args.matrix)
    try:
        model.set_judgements(parent, criteria, matrix, args.expert)
    except InputError as error:
        raise InputError(error.message, file=args.matrix, hint=error.hint) from None
    result = model.derive().groups.get(parent)
    if result is None:
        problem = next((p for p in model.derive().problems if model.nodes[parent].label in p), "no result")
        raise InputError(problem, file=args.matrix)
    model.save(args.output, inputs=[args.matrix])
    experts = model.experts(parent)
    missing = None
    if len(experts) == 1:
        missing = [[math.isnan(x) for x in row] for row in model.judgement_matrix(parent, experts[0])]
    who = f"{experts[0]}'s judgements" if len(experts) == 1 else f"{len(experts)} experts' combined judgements"
    sys.stdout.write(render_table(result, labels, f"the criteria group under {model.nodes[parent].label} ({who})",
                                  missing))
    sys.stdout.write("\n" + _left_to_do(model, args.output) + f"\nWritten {args.output}\n")
    return 0


def run_label(args) -> int:
    from tklscore.core.model.data_model.building import apply_labels

    if not args.label and not args.confirm:
        raise InputError("nothing to do: give --label VALUE=LEVEL or --confirm")
    model = TklDataModel.load(args.model)
    if args.label:
        apply_labels(model, dict(args.label))
    if args.confirm:
        model.confirm(list(model.nodes))
    model.save(args.output)
    sys.stdout.write(_left_to_do(model, args.output) + f"\nWritten {args.output}\n")
    return 0


# ---------------------------------------------------------------------------- check


def run_check(args) -> int:
    from tklscore.core.model.data_model.check import check_model

    model = TklDataModel.load(args.model)
    table = _table(args)
    continuous = None if args.continuous is None else {c for group in args.continuous for c in group}
    sa = list(args.sa) if args.sa is not None else model.columns
    sa += [c for c in sorted(continuous or ()) if c not in sa]
    found = check_model(model, table, sa, continuous)
    if args.format == "json":
        json.dump({"model": args.model, "source": args.source, "matches": not found,
                   "mismatches": [{"column": m.column, "kind": m.kind, "message": m.message, "blocking": m.blocking,
                                   "values": list(m.values[:100])} for m in found]},
                  sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    elif not found:
        sys.stdout.write(f"{args.model} matches {args.source}: every sensitive value has a node or a bin.\n")
    else:
        blocking = sum(m.blocking for m in found)
        sys.stdout.write(f"{args.model} against {args.source}: {len(found)} mismatch(es), {blocking} leaving "
                         f"sensitive values without a weight\n")
        for mismatch in found:
            sys.stdout.write(f"  {'!' if mismatch.blocking else '-'} {mismatch}\n")
    return 1 if args.strict and any(m.blocking for m in found) else 0


# ---------------------------------------------------------------------------- weights


def run_weights(args) -> int:
    loaded = load_weight_model(args.model)
    triples = loaded.weight_triples()
    if args.format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["attribute", "value", "weight"])
        writer.writerows([a, v, repr(w)] for a, v, w in triples)
        sys.stdout.write(buffer.getvalue())
        return 0
    json.dump({"model": loaded.kind,
               "weights": [{"attribute": a, "value": v, "weight": w} for a, v, w in triples],
               "groups": _groups(loaded.model)}, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def _groups(model) -> list[dict]:
    """The AHP criteria groups with priorities and consistency (none for L-Severity)."""
    groups = []
    if isinstance(model, TklDataModel):
        for parent, result in model.derive().groups.items():
            criteria = model.criteria_group(parent)
            groups.append({"group": model.nodes[parent].label,
                           "priorities": {model.nodes[c].label: float(p) for c, p in zip(criteria, result.priorities)},
                           "lambda_max": result.lambda_max, "ci": result.ci, "cr": result.cr})
    elif isinstance(model, MScoreModel):
        for key in [None, *model.attributes]:
            priorities = model.attribute_priorities() if key is None else model.value_priorities(key)
            result = model.results.get(key)
            groups.append({"group": "attributes" if key is None else key, "priorities": priorities,
                           **({"lambda_max": result.lambda_max, "ci": result.ci, "cr": result.cr}
                              if result is not None else {})})
    return groups

