"""The thesis' illustrative example (K. Eng, tkl-Score, Sections 3.1 and 4.2): source
Table 3.1, the published Table 3.6 of Scenario 1, and the weights of Table 4.2."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from tklscore.core.atomic import atomic_write
from tklscore.core.roles import Roles
from tklscore.core.tables import Table
from tklscore.core.weights import Weights

TABLE_3_1_COLUMNS = ["id", "Job", "City", "Gender", "Disease", "Medication", "Age", "Initial Diagnosis"]
TABLE_3_1 = [
    ["0", "Lawyer", "Calgary", "Male", "H1N1", "Tamiflu", "27", "Flu"],
    ["1", "Lawyer", "Calgary", "Female", "H1N1", "Antibiotics", "19", "Flu"],
    ["2", "Lawyer", "Calgary", "Female", "Flu", "Antibiotics", "23", "Migraine"],
    ["3", "Lawyer", "Edmonton", "Male", "HIV", "ARV", "49", "HIV"],
    ["4", "Lawyer", "Edmonton", "Male", "Hypertension", "Statin", "70", "Hypertension"],
    ["5", "Lawyer", "Edmonton", "Female", "Flu", "Paracetamol", "29", "Migraine"],
    ["6", "Lawyer", "Edmonton", "Female", "Flu", "Paracetamol", "29", "Migraine"],
]
SCENARIO_1_IDS = ["3", "4", "5", "6"]  # Table 3.6
TABLE_4_2_WEIGHTS = [
    ("Disease", "Flu", 0.0864),
    ("Disease", "H1N1", 0.3456),
    ("Disease", "Hypertension", 0.3456),
    ("Disease", "HIV", 0.432),
    ("Medication", "Antibiotics", 0.10432),
    ("Medication", "Paracetamol", 0.10432),
    ("Medication", "ARV", 0.10432),
    ("Medication", "Tamiflu", 0.10432),
    ("Medication", "Statin", 0.10432),
    ("Age", "[30,inf)", 0.08),
    ("Age", "[0,30)", 0.08),
    ("Initial Diagnosis", "Migraine", 0.05472),
    ("Initial Diagnosis", "Flu", 0.05472),
    ("Initial Diagnosis", "Hypertension", 0.10944),
    ("Initial Diagnosis", "HIV", 0.21888),
]
THESIS_ROLES = Roles(qi=["Job", "City", "Gender"],
                     sa=["Disease", "Medication", "Age", "Initial Diagnosis"],
                     continuous=["Age"], identifier="id")


@dataclass(frozen=True)
class Example:
    source: Table
    published_ids: list[str]
    weights: Weights
    roles: Roles


def thesis_example() -> Example:
    frame = pd.DataFrame(TABLE_3_1, columns=TABLE_3_1_COLUMNS, dtype=object)
    return Example(Table.from_frame(frame, name="thesis Table 3.1"), list(SCENARIO_1_IDS),
                   Weights(TABLE_4_2_WEIGHTS, name="thesis Table 4.2"), THESIS_ROLES)


def write_thesis_example(directory: str | Path) -> list[Path]:
    """Write table_3_1.csv, table_3_6.csv (Scenario 1) and weights_table_4_2.csv."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    published = [row for row in TABLE_3_1 if row[0] in SCENARIO_1_IDS]
    files = {
        "table_3_1.csv": [TABLE_3_1_COLUMNS] + TABLE_3_1,
        "table_3_6.csv": [TABLE_3_1_COLUMNS] + published,
        "weights_table_4_2.csv": [["attribute", "value", "weight"]]
                                 + [[a, v, f"{w:g}"] for a, v, w in TABLE_4_2_WEIGHTS],
    }
    written = []
    for name, rows in files.items():
        path = directory / name
        with atomic_write(path) as handle:
            csv.writer(handle, lineterminator="\n").writerows(rows)
        written.append(path)
    return written
