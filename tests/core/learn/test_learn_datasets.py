"""The bundled teaching datasets: shapes of ppdp-prototype.md §4.1, deterministic, as shipped."""

from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import given, settings, strategies as st

import paths

from tklscore.core.learn import datasets

RESOURCES = paths.RESOURCES / "learn"

SHAPES = {
    "Job": (20, ["name", "last name", "age", "gender", "city", "job"]),
    "Job_Large": (200, ["name", "last name", "age", "gender", "city", "job"]),
    "Person_Relational": (20, ["id", "name", "last name", "age", "gender"]),
    "Job_Relational": (20, ["id", "job"]),
    "Disease_xy": (204, ["name", "last name", "age", "gender", "city", "disease"]),
    "Job_Large_Salary": (400, ["id", "age", "gender", "city", "job", "salary"]),
    "Job_Large_Monotonous": (150, ["name", "last name", "age", "gender", "city", "job"]),
    "Job_Large_Skewed": (500, ["id", "age", "gender", "city", "job"]),
}


def check_shapes(tables):
    assert set(tables) == set(SHAPES)
    for name, (rows, columns) in SHAPES.items():
        assert tables[name].shape == (rows, len(columns)), name
        assert list(tables[name].columns) == columns, name
    for name in ("Job", "Job_Large", "Disease_xy", "Job_Large_Salary", "Job_Large_Monotonous", "Job_Large_Skewed"):
        assert set(tables[name]["city"]) <= set(datasets.CITIES)
    disease = tables["Disease_xy"]
    per_person = disease.groupby(["name", "last name", "age", "gender", "city"]).size()
    assert len(per_person) == 65 and per_person.min() >= 1 and per_person.max() <= 9
    assert tables["Job_Large_Monotonous"]["job"].value_counts().to_dict() == {"Systems analyst": 79, "Programmer": 71}
    salary = tables["Job_Large_Salary"]["salary"]
    assert salary.min() >= 1000 and salary.max() <= 2900
    assert sorted(tables["Job_Relational"]["id"]) == list(range(1, 21))


def test_shipped_files_are_the_default_seed():
    made = datasets.generate()
    check_shapes(made)
    for stem, frame in made.items():
        shipped = pd.read_csv(RESOURCES / f"{stem}.csv", dtype=str, keep_default_na=False)
        assert shipped.equals(frame.astype(str)), stem


def test_teaching_properties_of_the_shipped_tables():
    made = datasets.generate()
    qi = ["age", "gender", "city"]
    r = datasets._recipe_r(made["Job"])
    assert datasets._min_class(r, qi) == 1                       # task 3 as worded: 1-anonymous
    assert datasets._min_class(datasets._recipe_r(made["Job"], any_gender=True), qi) == 2
    assert datasets._min_class(datasets._recipe_r(made["Job_Large"]), qi) == 2   # task 1
    assert datasets._distinct_per_class(made["Job_Large_Monotonous"],
                                        datasets._recipe_r(made["Job_Large_Monotonous"]), "job").min() == 1


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_deterministic_for_a_seed(seed):
    first, second = datasets.generate(seed), datasets.generate(seed)
    check_shapes(first)
    assert all(first[name].equals(second[name]) for name in first)


def test_different_seeds_give_different_tables():
    assert not datasets.generate(1)["Job_Large"].equals(datasets.generate(2)["Job_Large"])


WEIGHTED = {"Job": ["job"], "Job_Large": ["job"], "Job_Relational": ["job"], "Disease_xy": ["disease"],
            "Job_Large_Salary": ["job", "salary"], "Job_Large_Monotonous": ["job"], "Job_Large_Skewed": ["job"]}


def test_shipped_weights_are_the_teaching_weights():
    for stem, columns in WEIGHTED.items():
        shipped = pd.read_csv(RESOURCES / f"{stem}_weights.csv", dtype={"value": str})
        assert shipped.equals(datasets.weights_frame(columns)), stem
        assert sorted(shipped["attribute"].unique()) == sorted(columns)
    assert not (RESOURCES / "Person_Relational_weights.csv").exists()
    made = datasets.generate()
    assert set(datasets.WEIGHTS["job"]) == set(datasets.JOBS) >= set(made["Job_Large"]["job"])
    assert set(datasets.WEIGHTS["disease"]) == set(made["Disease_xy"]["disease"])


def test_write(tmp_path):
    paths = datasets.write(tmp_path / "new", seed=3)
    assert sorted(p.name for p in paths) == sorted([f"{s}.csv" for s in SHAPES] + [f"{s}_weights.csv" for s in WEIGHTED])
    again = pd.read_csv(tmp_path / "new" / "Job.csv")
    assert np.array_equal(again["age"].to_numpy(), datasets.generate(3)["Job"]["age"].to_numpy())
