"""The thesis' illustrative example (K. Eng, tkl-Score, Sections 3.1 and 4.2): source
Table 3.1, the published Table 3.6 of Scenario 1, and the weights of Table 4.2."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from tklscore.core.files.atomic import atomic_write, output_folder
from tklscore.core.model.data_model import TklDataModel
from tklscore.core.model.lseverity_model import write_thesis_lseverity_model
from tklscore.core.model.mscore_model import thesis_example_model as thesis_mscore_model
from tklscore.core.tables.roles import Roles
from tklscore.core.tables.loading import Table
from tklscore.core.model.taxonomy import extract_taxonomy
from tklscore.core.model.vocabulary import Vocabulary
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.scoring.weights import Weights

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
# generalisation hierarchies of Table 3.1's quasi-identifiers (and Age), so that the example
# opens in the Design view with levels to move
THESIS_HIERARCHIES = (
    Hierarchy.groups("City", [{"Alberta": ["Calgary", "Edmonton"]}]),
    Hierarchy.groups("Gender", [{"Person": ["Male", "Female"]}]),
    Hierarchy.groups("Job", [{"Legal": ["Lawyer"]}]),
    Hierarchy.intervals("Age", [10, 30]),
)


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


def thesis_hierarchies() -> dict:
    """:data:`THESIS_HIERARCHIES` by column (column → Hierarchy), as the Design view holds them."""
    return {h.column: h for h in THESIS_HIERARCHIES}


def thesis_source_csv() -> str:
    """Table 3.1 as CSV text: the built-in example's source, for a command that reads a file."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows([TABLE_3_1_COLUMNS] + TABLE_3_1)
    return buffer.getvalue()


def write_thesis_example(directory: str | Path) -> list[Path]:
    """Write table_3_1.csv, table_3_6.csv (Scenario 1), weights_table_4_2.csv, model.ttl
    (the tkl-Data Model with its AHP judgements), mscore_model.ttl (Figure 3.1: Medication
    and Age only, as the thesis gives it) and lseverity_model.ttl (Table 3.7)."""
    directory = output_folder(directory)
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
    thesis_model().save(directory / "model.ttl")
    written.append(directory / "model.ttl")
    written.append(thesis_mscore_model().save(directory / "mscore_model.ttl"))
    written.append(write_thesis_lseverity_model(directory / "lseverity_model.ttl"))
    return written


# The thesis' tkl-Data Model of Table 3.1 (Figures 4.7 and 4.8; data-model.md §3).
THESIS_ALIGNMENT = {"Disease": "Health", "Medication": "Prescription", "Age": "Age",
                    "Initial Diagnosis": "HealthRecord"}
THESIS_AGE_BINS = [("[0,30)", "V.LT-30"), ("[30,inf)", "V.GEQ-30")]
# (criterion A, criterion B, rating of A over B) per criteria group: Tables A.5 and 4.1
THESIS_JUDGEMENTS = {
    "External": [("PhysicalCharacteristic", "MedicalHealth", 1 / 4)],
    "MedicalHealth": [("Health", "HealthRecord", 2), ("Health", "Prescription", 3),
                      ("HealthRecord", "Prescription", 2)],
}
# node label -> HL7 label; V-0.H1N1 has none: it takes E.Viral's by propagation
THESIS_LABELS = {
    "V.LT-30": "moderate", "V.GEQ-30": "moderate",
    "E.Viral": "restricted", "V-0.HIV": "very restricted", "V-0.Flu": "low",
    "V-0.Hypertension": "restricted",
    "V.ARV": "restricted", "V.Tamiflu": "restricted", "V.Statin": "restricted",
    "V.Paracetamol": "restricted", "V.Antibiotics": "restricted",
    "V-1.HIV": "restricted", "V-1.Hypertension": "moderate", "V-1.Flu": "low", "V-1.Migraine": "low",
}
# the priorities as the thesis tables them (Figure 4.8), for assigning them directly
THESIS_TABLED_PRIORITIES = {"PhysicalCharacteristic": 0.2, "MedicalHealth": 0.8,
                            "Health": 0.540, "HealthRecord": 0.297, "Prescription": 0.163}


def thesis_model(judgements: bool = True):
    """The tkl-Data Model of Table 3.1 on the built-in taxonomy: with the AHP judgements of
    Tables A.5 and 4.1, or (``judgements=False``) with the priorities as tabled."""
    vocabulary = Vocabulary.builtin_thesis()
    alignment = {column: vocabulary.resolve(name) for column, name in THESIS_ALIGNMENT.items()}
    taxonomy = extract_taxonomy(vocabulary, list(alignment.values()))
    example = thesis_example()
    model = TklDataModel.build(taxonomy, example.source, example.roles, alignment, {"Age": THESIS_AGE_BINS},
                               namespace="https://tklscore.org/tables/MED#")
    model.vocabulary = vocabulary.key
    viral = model.add_element("Disease", "Viral")
    for label in ("V-0.H1N1", "V-0.HIV", "V-0.Flu"):
        model.move(model.find(label).iri, viral)
    for label, qualitative in THESIS_LABELS.items():
        model.set_label(model.find(label).iri, qualitative)
    if judgements:
        for group, ratings in THESIS_JUDGEMENTS.items():
            for a, b, rating in ratings:
                model.set_judgement(model.find(group).iri, model.find(a).iri, model.find(b).iri, rating)
    else:
        for label, priority in THESIS_TABLED_PRIORITIES.items():
            model.set_assigned_priority(model.find(label).iri, priority)
    return model
