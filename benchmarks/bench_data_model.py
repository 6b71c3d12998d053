"""Benchmark of the tkl-Data Model (``tklscore.core.model.data_model``): build, derive
(AHP on every criteria group, Algorithm 2, weights) and one AHP edit → new weights.

    .venv/bin/python benchmarks/bench_data_model.py [--values 1000 2000 4000 20000] [--repeats R]

The seeded model: a taxonomy root with three classes, two of them holding four and three
sensitive attributes; the values are spread over the seven attributes, every 50 values of
an attribute under one labelled element (the values themselves unlabelled, so Algorithm 2
propagates the element's label to them). All groups of two or more criteria are judged.
"One AHP edit → new weights" changes one judgement of the root's criteria group and takes
the model's weights (``weight_triples``), median of R runs; "derive after a node edit"
changes one value's label and derives again (the full walk: Algorithm 2, every value's
chain), which is what any structural edit costs. Target: ≤ 20 ms at 20,000
values; the per-value time across sizes shows whether the growth is linear.
The exit status is 1 when the target fails.
"""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import Stopwatch, machine, timed, verdict  # noqa: E402

from tklscore.core.model.data_model import TklDataModel  # noqa: E402

TARGET_S = 20e-3
TARGET_VALUES = 20_000
GROUPS = {"Health": 4, "Finance": 3}
LABELS = ("low", "moderate", "restricted", "very restricted")


def build(n_values: int) -> TklDataModel:
    model = TklDataModel(namespace="https://tklscore.org/tables/BENCH#")
    root = model.add_taxonomy_class("urn:bench:Root", "Root", None)
    columns = []
    for cls, count in GROUPS.items():
        iri = model.add_taxonomy_class(f"urn:bench:{cls}", cls, root)
        for k in range(count):
            column = f"{cls}{k}"
            model.add_attribute(column, aligned_to=iri)
            columns.append(column)
    model.add_taxonomy_class("urn:bench:Other", "Other", root)
    model.add_attribute("Other0", aligned_to="urn:bench:Other")
    columns.append("Other0")
    element = {}
    for i in range(n_values):
        column = columns[i % len(columns)]
        block = (i // len(columns)) // 50
        if (column, block) not in element:
            element[(column, block)] = model.add_element(column, f"{column}-group-{block}",
                                                         qualitative=LABELS[block % len(LABELS)])
        model.add_value(column, f"{column}-value-{i}", parent=element[(column, block)])
    judge(model, 2.0)
    return model


def judge(model: TklDataModel, rating: float) -> None:
    for parent in model.groups():
        group = model.criteria_group(parent)
        for a, b in zip(group, group[1:]):
            model.set_judgement(parent, a, b, rating)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--values", type=int, nargs="+", default=[1000, 2000, 4000, TARGET_VALUES])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"tkl-Data Model benchmark: python {platform.python_version()}, median of {args.repeats} runs "
          f"— {machine()}: compare the ratios across sizes")
    print(f"{'values':>7}  {'nodes':>6}  {'build s':>8}  {'derive after a node edit ms':>27}  {'groups ms':>9}  "
          f"{'AHP edit → weights ms':>21}  {'µs / value':>10}  target")
    failed = False
    for n in args.values:
        watch = Stopwatch()
        model = build(n)
        t_build = watch.wall
        a_value = next(iri for iri, node in model.nodes.items() if node.kind.value == "value")
        labels = iter(["low", None] * args.repeats)

        def node_edit():  # a label edit: the whole tree is walked again (Algorithm 2 included)
            model.set_label(a_value, next(labels))
            return model.derive()

        deriving = timed(node_edit, args.repeats)
        t_derive, derivation = deriving.wall, deriving.result
        assert not derivation.problems, derivation.problems[:3]
        model.set_label(a_value, None)
        t_groups = timed(model.groups, args.repeats).wall
        root_group = model.criteria_group(model.root)
        ratings = iter([3.0, 1 / 3] * args.repeats)

        def edit():
            model.set_judgement(model.root, root_group[0], root_group[1], next(ratings))
            return model.weight_triples()

        editing = timed(edit, args.repeats)
        t_edit, triples = editing.wall, editing.result
        assert len(triples) == n
        result = ""
        if n == TARGET_VALUES:
            ok = t_edit <= TARGET_S
            failed |= not ok
            result = f"{verdict(ok)} (≤ {TARGET_S * 1e3:g} ms)"
        print(f"{n:>7}  {len(model.nodes):>6}  {t_build:8.3f}  {t_derive * 1e3:27.2f}  {t_groups * 1e3:9.3f}  "
              f"{t_edit * 1e3:21.2f}  {t_edit / n * 1e6:10.3f}  {result}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
