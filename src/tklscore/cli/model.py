"""``tklscore model weights MODEL.ttl [--format csv|json]``: the weights a tkl-Data Model derives."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from tklscore.core.model.data_model import TklDataModel


def register(commands: argparse._SubParsersAction) -> None:
    model = commands.add_parser("model", help="work with a tkl-Data Model (Turtle)")
    actions = model.add_subparsers(dest="model_command", required=True, metavar="ACTION")
    weights = actions.add_parser("weights", help="derive the weights of the sensitive values",
                                 description="Derive the weights of a tkl-Data Model's values: AHP on each "
                                             "criteria group, labels and propagation on values.")
    weights.add_argument("model", metavar="MODEL.ttl")
    weights.add_argument("--format", choices=["csv", "json"], default="csv",
                         help="csv: attribute,value,weight as `tklscore score --weights` reads it; json: "
                              "weights with the priorities and consistency of every criteria group")
    weights.set_defaults(handler=run_weights)


def run_weights(args) -> int:
    model = TklDataModel.load(args.model)
    triples = model.weight_triples()
    if args.format == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["attribute", "value", "weight"])
        writer.writerows([a, v, repr(w)] for a, v, w in triples)
        sys.stdout.write(buffer.getvalue())
        return 0
    derivation = model.derive()
    groups = []
    for parent, result in derivation.groups.items():
        criteria = model.criteria_group(parent)
        groups.append({"group": model.nodes[parent].label,
                       "priorities": {model.nodes[c].label: float(p) for c, p in zip(criteria, result.priorities)},
                       "lambda_max": result.lambda_max, "ci": result.ci, "cr": result.cr})
    json.dump({"weights": [{"attribute": a, "value": v, "weight": w} for a, v, w in triples],
               "groups": groups}, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
