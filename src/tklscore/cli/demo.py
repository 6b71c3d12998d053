"""``tklscore demo``: score the thesis example (Scenarios 1 and 2) and print the scores."""

from __future__ import annotations

import argparse

from tklscore.cli.score import render_table
from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.source import MemorySource


def register(commands: argparse._SubParsersAction) -> None:
    demo = commands.add_parser("demo", help="score the thesis example (Scenarios 1 and 2) and print the scores")
    demo.set_defaults(handler=run)


def run(args) -> int:
    example = thesis_example()
    source = MemorySource(example.source, example.roles)
    scenario_1 = ReleaseDefinition("Scenario 1", "ids", ids=tuple(example.published_ids))
    scenario_2 = ReleaseDefinition("Scenario 2", "ids", ids=tuple(example.source.frame[example.roles.identifier]))
    model_tkl = source.score(scenario_1, thesis_model().to_weights()).scores.tkl
    print("tkl-Score Workbench: the thesis' illustrative example "
          "(QI Job, City, Gender; SA Disease, Medication, Age, Initial Diagnosis)")
    print("Weights from: the thesis' Table 4.2, as a weights file ('tklscore example thesis' writes it as "
          "weights_table_4_2.csv).")
    print(f"The application opens the example with its tkl-Data Model, whose derived weights differ slightly "
          f"(Table 4.2's Initial Diagnosis weights imply another HealthRecord priority than Table 4.1's): "
          f"there Scenario 1 scores tkl {model_tkl:.5f}. Its Scores view switches between the two.\n")
    print("== Scenario 1: Table 3.6 (records 3-6) is published")
    print(render_table(source.score(scenario_1, example.weights), "Table 3.1", "Table 3.6"))
    print("== Scenario 2: the whole of Table 3.1 is published")
    print(render_table(source.score(scenario_2, example.weights), "Table 3.1", "Table 3.1"))
    return 0
