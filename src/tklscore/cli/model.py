"""``tklscore model weights MODEL.ttl [--format csv|json]``: the weights a weight model derives
(a tkl-Data Model, an M-Score model or an L-Severity model; the file says which)."""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from tklscore.core.model.data_model import TklDataModel
from tklscore.core.model.mscore_model import MScoreModel
from tklscore.core.model.weight_models import load_weight_model


def register(commands: argparse._SubParsersAction) -> None:
    model = commands.add_parser("model", help="work with a weight model: tkl-Data Model, M-Score or L-Severity "
                                              "model (Turtle)")
    actions = model.add_subparsers(dest="model_command", required=True, metavar="ACTION")
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
