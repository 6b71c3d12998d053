"""``tklscore learn datasets --dir DIR`` and ``tklscore learn tasks [--seed N] --format json``:
the teaching datasets and the tasks of Learn mode, with the answers the core computes."""

from __future__ import annotations

import argparse
import json
import sys

from tklscore.cli.arguments import output_path, seed
from tklscore.core.learn import datasets
from tklscore.core.learn.tasks import TASKS, answers


def register(commands: argparse._SubParsersAction) -> None:
    learn = commands.add_parser("learn", help="Learn mode: the PPDP teaching datasets and tasks")
    actions = learn.add_subparsers(dest="learn_command", required=True, metavar="ACTION")
    made = actions.add_parser("datasets", help="write the teaching datasets as CSV files",
                              description="Write the teaching datasets (Job, Job_Large, Person_Relational, "
                                          "Job_Relational, Disease_xy, Job_Large_Salary, Job_Large_Monotonous, "
                                          "Job_Large_Skewed) as UTF-8 CSV files.")
    made.add_argument("--dir", required=True, metavar="DIR", type=output_path, help="folder to write into (created if missing)")
    made.add_argument("--seed", type=seed, default=datasets.DEFAULT_SEED,
                      help=f"generator seed (default {datasets.DEFAULT_SEED}: the bundled tables)")
    made.set_defaults(handler=run_datasets)
    listed = actions.add_parser("tasks", help="list the tasks with their dataset, recipe and computed answers")
    listed.add_argument("--seed", type=seed, default=datasets.DEFAULT_SEED,
                        help="dataset seed (default: the bundled tables)")
    listed.add_argument("--format", choices=["json", "text"], default="text")
    listed.set_defaults(handler=run_tasks)


def run_datasets(args) -> int:
    for path in datasets.write(args.dir, args.seed):
        print(path)
    return 0


def run_tasks(args) -> int:
    tables = datasets.generate(args.seed)
    listed = [{"task": t.number, "title": t.title, "dataset": t.dataset, "model": t.model,
               "recipe": t.recipe.steps(), "answers": answers(t, tables)} for t in TASKS]
    if args.format == "json":
        json.dump(listed, sys.stdout, indent=2, ensure_ascii=False, default=_plain)
        sys.stdout.write("\n")
        return 0
    for item in listed:
        print(f"Task {item['task']}: {item['title']} ({item['dataset']}, {item['model']})")
        for step in item["recipe"]:
            print(f"  - {step}")
        for name, value in item["answers"].items():
            print(f"  {name}: {value}")
    return 0


def _plain(value):
    return value.item() if hasattr(value, "item") else str(value)
