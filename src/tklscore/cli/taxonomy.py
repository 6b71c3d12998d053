"""`tklscore taxonomy ...`: extract the domain taxonomy above the mapped columns.

    tklscore taxonomy --vocabulary FILE [--vocabulary FILE ...] --map COLUMN=CLASS [--map ...]
                      [--keep-parent CHILD=PARENT ...] [--root CLASS]
                      [--predicates subClassOf,broader] [--format text|json]

Without --vocabulary the built-in thesis taxonomy (DPV v0.1 structure) is used. Classes are
given by IRI or by local name.
"""

from __future__ import annotations

import argparse
import json
import sys

from tklscore.core.errors import InputError
from tklscore.core.model.taxonomy import extract_taxonomy
from tklscore.core.model.vocabulary import PREDICATES, Vocabulary


def _pair(form: str):
    def parse(text: str) -> tuple[str, str]:
        left, sep, right = text.partition("=")
        if not sep or not left.strip() or not right.strip():
            raise argparse.ArgumentTypeError(f"expected {form}, got '{text}'")
        return left.strip(), right.strip()
    return parse


def register(commands: argparse._SubParsersAction) -> None:
    """Add the `taxonomy` subcommand; its parser sets `handler=run` (run(args) -> exit status)."""
    parser = commands.add_parser(
        "taxonomy", help="extract the domain taxonomy above the mapped columns from a vocabulary",
        description="Extract the domain taxonomy (thesis 4.1.1) from vocabulary files: the "
                    "parents of the mapped classes breadth-first, one parent per class, "
                    "unmapped leaves pruned, one root.")
    parser.add_argument("--vocabulary", metavar="FILE", action="append", default=[],
                        help="Turtle, RDF/XML or JSON-LD file (repeatable; default: the built-in "
                             "thesis taxonomy)")
    parser.add_argument("--map", metavar="COLUMN=CLASS", type=_pair("COLUMN=CLASS"),
                        action="append", default=[], required=True,
                        help="a sensitive column and its class (IRI or local name); repeatable")
    parser.add_argument("--keep-parent", metavar="CHILD=PARENT", type=_pair("CHILD=PARENT"),
                        action="append", default=[],
                        help="for a class with several parents, the one to keep")
    parser.add_argument("--root", metavar="CLASS",
                        help="class to use as the root (everything above it is dropped)")
    parser.add_argument("--predicates", metavar="P[,P]", default=",".join(PREDICATES),
                        help="hierarchy links to follow: subClassOf, broader or both "
                             "(default: subClassOf,broader)")
    parser.add_argument("--format", choices=["text", "json"], default="text",
                        help="text (for people) or json")
    parser.set_defaults(handler=run)


def run(args) -> int:
    if args.vocabulary:
        vocab = Vocabulary.load(args.vocabulary, predicates=args.predicates)
    else:
        vocab = Vocabulary.builtin_thesis()
    mapping: dict[str, str] = {}
    for column, name in args.map:
        if column in mapping:
            raise InputError(f"column '{column}' is mapped twice (--map)")
        mapping[column] = vocab.resolve(name)
    keep: dict[str, str] = {}
    for child, parent in args.keep_parent:
        child_iri = vocab.resolve(child)
        if child_iri in keep:
            raise InputError(f"--keep-parent names '{vocab.label(child_iri)}' twice")
        keep[child_iri] = vocab.resolve(parent)
    taxonomy = extract_taxonomy(vocab, list(mapping.values()), keep_parent=keep, root=args.root)
    if args.format == "json":
        sys.stdout.write(json.dumps(taxonomy.to_json_dict(), indent=2, ensure_ascii=False) + "\n")
        return 0
    name = taxonomy.label
    lines = taxonomy.tree_lines()
    lines += ["", "Mapping (column → class):"]
    width = max(len(column) for column in mapping)
    lines += [f"  {column:<{width}} → {name(iri)} <{iri}>" for column, iri in mapping.items()]
    if taxonomy.added_root:
        lines += ["", ("Added root: the classes form several trees, joined under a new root "
                       f"<{taxonomy.root}>.")]
    lines += ["", "Removed edges (parent → child):"]
    lines += ([f"  {name(p)} → {name(c)}" for p, c in taxonomy.removed_edges] or ["  none"])
    lines += ["", "Removed nodes:"]
    lines += ([f"  {name(n)} <{n}>" for n in taxonomy.removed_nodes] or ["  none"])
    lines += ["", "Resolved conflicts (classes with several parents):"]
    for conflict in taxonomy.conflicts:
        parents = ", ".join(name(p) for p in conflict.parents)
        lines.append(f"  {name(conflict.node)}: parents {parents}; kept {name(conflict.kept)} "
                     f"— {conflict.reason}")
    if not taxonomy.conflicts:
        lines.append("  none")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
