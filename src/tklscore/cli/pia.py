"""``tklscore pia analyze …`` and ``tklscore pia generate …`` (PIA, pia.md).

``analyze`` runs Alg 1: load → MinimizeDB → reason → detect violations → participants →
disruption (exhaustive Alg 4, or the efficient method of Ch. 5) and reports the chosen
alterations. ``--format json`` prints one object::

    {"asserted": int, "inferred": int, "violations": [[s, p, o], ...],
     "participants": [[s, p, o], ...], "solutions_evaluated": int,
     "solution": {"alterations": [{"triple": [s, p, o], "new_object": o2 | null, "cost": f}],
                  "cost": f, "impact": f | null, "valid": bool},
     "timings_ms": {"load": f, "assess": f, "disruption": f, "total": f}}

Terms are full IRIs. ``asserted`` counts the distinct data triples loaded (DB0, the
"Instance Size" of Fig. 4.1, without the ontology); ``inferred`` counts the closure's
inferred triples (after MinimizeDB). ``new_object`` is null for a removal. With no
violation the solution has no alterations, cost 0 and ``valid: true``; when no solution
is valid, ``valid: false``.

``generate`` writes a seeded synthetic database (:mod:`tklscore.core.pia.generator`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rdflib import Graph

from tklscore.cli.arguments import output_path, seed, whole_number
from tklscore.core.files.atomic import atomic_write, check_output
from tklscore.core.pia.analysis import DEFAULT_MAX_SOLUTIONS, Analysis, analyze_files
from tklscore.core.pia.facts import Triple, parse_graph
from tklscore.core.pia.generator import write_generated


def _count(text: str) -> int:
    value = whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def _positive(text: str) -> int:
    value = _count(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {text}")
    return value


def register(commands: argparse._SubParsersAction) -> None:
    pia = commands.add_parser("pia", help="PIA: detect and disrupt privacy-violating inferences",
                              description="PIA (Pre-Release Inference Analyzer): find inferences a "
                                          "release would allow above a privacy threshold, and the "
                                          "cheapest alterations that prevent them.")
    actions = pia.add_subparsers(dest="pia_command", required=True, metavar="ACTION")
    analyze = actions.add_parser("analyze", help="detect violations and choose a disruption",
                                 description="MinimizeDB, reason, detect violations, find their "
                                             "participants and choose the alterations to release.")
    analyze.add_argument("--ontology", required=True, metavar="FILE", help="domain ontology (RDF, e.g. .ttl)")
    analyze.add_argument("--data", required=True, metavar="FILE", help="the data to release (RDF)")
    analyze.add_argument("--rules", required=True, metavar="FILE", help="rules (Jena syntax, or .n3)")
    analyze.add_argument("--labels", required=True, metavar="FILE",
                         help="privacy patterns → labels (CSV subject,predicate,object,label or Turtle)")
    analyze.add_argument("--threshold", required=True, metavar="LABEL",
                         help="the highest label that may be released (e.g. Medium)")
    analyze.add_argument("--method", choices=["exhaustive", "efficient"], default="exhaustive",
                         help="exhaustive: Alg 4 over all 4^p − 1 solutions (default); efficient: Ch. 5")
    analyze.add_argument("--preferences", metavar="FILE",
                         help="patient preferences 0-3 (CSV subject,predicate,object,preference)")
    analyze.add_argument("--safety", metavar="FILE",
                         help="safety values 0-3 (CSV subject,predicate,object,safety); 3 = never altered")
    analyze.add_argument("--max-solutions", type=_count, default=DEFAULT_MAX_SOLUTIONS, metavar="N",
                         help=f"refuse an exhaustive search over more than N solutions "
                              f"(default {DEFAULT_MAX_SOLUTIONS:,})")
    analyze.add_argument("--format", choices=["text", "json"], default="text",
                         help="text (for people, default) or json (see the module documentation)")
    analyze.add_argument("--output-data", metavar="FILE", type=output_path,
                         help="write the authorised (altered) data set to FILE (Turtle; .nt: N-Triples)")
    analyze.set_defaults(handler=run_analyze)

    generate = actions.add_parser("generate", help="write a seeded synthetic patient database",
                                  description="Write ontology.ttl, data.ttl, rules.txt, labels.csv and "
                                              "threshold.txt shaped like the dissertation's test data.")
    generate.add_argument("--patients", type=_positive, required=True, metavar="N",
                          help="number of patients in the data (at least 1)")
    generate.add_argument("--violations", type=_count, required=True, metavar="V",
                          help="number of privacy violations the data must allow (0 or more)")
    generate.add_argument("--seed", type=seed, default=1, metavar="S",
                          help="random seed: the same seed writes the same files (default 1)")
    generate.add_argument("--dir", required=True, metavar="DIR", type=output_path, help="folder to write to")
    generate.set_defaults(handler=run_generate)


def run_generate(args) -> int:
    result = write_generated(args.dir, args.patients, args.violations, args.seed)
    for path in result.files:
        print(path)
    return 0


def analyze(args) -> Analysis:
    """Run the analysis the arguments describe (a warning when preferences would be ignored)."""
    run = analyze_files(args.ontology, args.data, args.rules, args.labels, args.threshold,
                        method=args.method, preferences=args.preferences, safety=args.safety,
                        max_solutions=args.max_solutions)
    if args.preferences and args.method != "efficient":
        print("tklscore: warning: patient preferences are used by the efficient method only; "
              "the exhaustive search minimises the alteration cost", file=sys.stderr)
    return run


def run_analyze(args) -> int:
    inputs = [args.ontology, args.data, args.rules, args.labels, args.preferences, args.safety]
    if args.output_data:
        check_output(args.output_data, inputs)  # before the analysis, which may take long
    run = analyze(args)
    if args.output_data:
        _write_data(args.output_data, run.result.authorised, args.data, inputs)
    document = run.to_json_dict()
    if args.format == "json":
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return 0
    sys.stdout.write(_text(document, run, args))
    return 0


def _text(document: dict, run: Analysis, args) -> str:
    result, assessment = run.result, run.assessment
    lines = [(f"asserted {document['asserted']}  inferred {document['inferred']}  "
              f"threshold {args.threshold}  method {result.method}")]
    lines.append(f"violations: {len(assessment.violations)}")
    lines += [f"  {v}" for v in assessment.violations]
    lines.append(f"participants: {len(assessment.participants.facts)}")
    lines += [f"  {f}" for f in assessment.participants.facts]
    lines.append(f"solutions evaluated: {result.evaluated:,}")
    if not assessment.violations:
        lines.append("nothing to disrupt: the data can be released as it is")
    elif result.solution is None or not result.valid:
        lines.append("no valid solution: no combination of alterations removes every violation")
    else:
        lines.append(f"solution (cost {result.cost:g}"
                     + (f", impact {result.impact:g}" if result.impact is not None else "") + "):")
        for a in result.solution.alterations:
            target = "removed" if a.new_object is None else f"→ {Triple(a.source.s, a.source.p, a.new_object)}"
            lines.append(f"  {a.source} {target}  (cost {a.cost:g})")
    t = document["timings_ms"]
    lines.append(f"time: load {t['load']:.0f} ms, assess {t['assess']:.0f} ms, "
                 f"disruption {t['disruption']:.0f} ms, total {t['total']:.0f} ms")
    return "\n".join(lines) + "\n"


def _write_data(path: str, triples, source: str, inputs=()) -> None:
    graph = Graph()
    for prefix, namespace in parse_graph(source).namespaces():
        graph.bind(prefix, namespace, override=True)
    for t in triples:
        graph.add(tuple(t))
    fmt = "nt" if Path(path).suffix.lower() == ".nt" else "turtle"
    text = graph.serialize(format=fmt)
    with atomic_write(path, inputs=inputs) as handle:
        handle.write(text)
