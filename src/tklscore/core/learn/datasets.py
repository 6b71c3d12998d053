"""The teaching datasets of the PPDP learning prototype (ppdp-prototype.md §4.1), generated.

The prototype's own CSV files carry no licence, so the workbench ships tables of the same
shapes, columns and city names, drawn from a seeded generator. Each table is drawn again
(with the next sub-seed) until it shows what its task is meant to teach, for example that
the small Job table is only 1-anonymous under the standard recipe R but 2-anonymous once
gender is generalised too (task 3), so the lesson does not depend on luck.

``python -m tklscore.core.learn.datasets DIR`` (and ``tklscore learn datasets --dir DIR``)
writes them; ``resources/learn/`` holds the files made with :data:`DEFAULT_SEED`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

from tklscore.core.errors import check_seed
from tklscore.core.tables.codes import factorize, group_ids

DEFAULT_SEED = 2017

CITIES = ("Tallinn", "Tartu", "Paide", "Viljandi", "Türi", "Jõgeva", "Vändra", "Rapla", "Põltsamaa", "Elva")
CITY_RULES = (
    "Tallinn,Tartu,Paide->Large city",
    "Viljandi,Türi,Jõgeva->Medium city",
    "Vändra,Rapla,Põltsamaa,Elva->Small city",
)
_CITY_GROUP = {city.strip(): rule.split("->")[1] for rule in CITY_RULES for city in rule.split("->")[0].split(",")}
# Larger towns are drawn more often, as in a real register.
_CITY_P = np.array([0.22, 0.16, 0.06, 0.08, 0.05, 0.06, 0.04, 0.09, 0.05, 0.19])

FEMALE = ("Olivia", "Emma", "Ava", "Sophia", "Isabella", "Mia", "Charlotte", "Amelia", "Harper", "Evelyn",
          "Abigail", "Emily", "Elizabeth", "Sofia", "Ella", "Grace", "Laura", "Maria", "Anna", "Liisa")
MALE = ("Noah", "Liam", "Mason", "William", "James", "Benjamin", "Lucas", "Henry", "Alexander", "Michael",
        "Daniel", "Jacob", "Logan", "Jackson", "Sebastian", "Jack", "Oliver", "Juhan", "Mart", "Karl")
LAST = ("Jones", "Johnson", "Davis", "Brown", "Smith", "Williams", "Miller", "Wilson", "Moore", "Taylor",
        "Anderson", "Thomas", "Jackson", "White", "Harris", "Martin", "Thompson", "Garcia", "Tamm", "Saar")
JOBS = ("Designer", "IT manager", "Systems analyst", "Programmer", "Therapist", "Teacher", "Nurse",
        "Accountant", "Engineer", "Lawyer", "Pharmacist", "Architect", "Tester", "Surgeon")
DISEASES = ("Flu", "Diabetes", "Asthma", "Hypertension", "Migraine", "Bronchitis", "Allergy", "Arthritis",
            "Gastritis", "Anemia", "Angina", "Eczema")

JOB_COLUMNS = ["name", "last name", "age", "gender", "city", "job"]

# Teaching weights (how sensitive each value is, 0..1) for the tkl-Score, M-Score and
# L-Severity of a student's table. Chosen by hand for teaching, not measured: a job weighs
# more the more it tells about income or gives access to other people's health or money;
# a disease more than any job, a chronic one that affects work or insurance more than a
# passing one; a salary more at the low and the high end than in the middle.
WEIGHTS = {
    "job": {"Tester": 0.1, "Designer": 0.2, "Systems analyst": 0.2, "Programmer": 0.2, "Teacher": 0.2,
            "Engineer": 0.2, "Architect": 0.2, "IT manager": 0.3, "Nurse": 0.3, "Accountant": 0.3,
            "Therapist": 0.4, "Lawyer": 0.4, "Pharmacist": 0.4, "Surgeon": 0.5},
    "disease": {"Flu": 0.1, "Allergy": 0.15, "Migraine": 0.2, "Bronchitis": 0.2, "Eczema": 0.25,
                "Gastritis": 0.25, "Anemia": 0.3, "Asthma": 0.35, "Arthritis": 0.35, "Hypertension": 0.4,
                "Diabetes": 0.55, "Angina": 0.6},
    "salary": {"[0,1500)": 0.5, "[1500,2500)": 0.3, "[2500,inf)": 0.5},
}


def city_group(city: str) -> str:
    """The standard recipe R's generalisation of a city (large, medium or small)."""
    return _CITY_GROUP[city]


def _people(rng: np.random.Generator, n: int, ages: tuple[int, int] = (20, 70)) -> pd.DataFrame:
    gender = rng.choice(["Female", "Male"], size=n)
    first = np.where(gender == "Female", rng.choice(FEMALE, size=n), rng.choice(MALE, size=n))
    return pd.DataFrame({
        "name": first,
        "last name": rng.choice(LAST, size=n),
        "age": rng.integers(ages[0], ages[1], size=n),
        "gender": gender,
        "city": rng.choice(CITIES, size=n, p=_CITY_P),
    })


def _min_class(frame: pd.DataFrame, columns: list[str]) -> int:
    ids, count = group_ids([factorize(frame[c].to_numpy()) for c in columns], len(frame))
    return int(np.bincount(ids, minlength=count).min())


def _recipe_r(frame: pd.DataFrame, *, any_gender: bool = False) -> pd.DataFrame:
    """QIs under the standard recipe R: age in intervals of 10, city by size, gender kept."""
    out = pd.DataFrame({"age": (frame["age"] // 10) * 10, "city": frame["city"].map(_CITY_GROUP)})
    out["gender"] = "any gender" if any_gender else frame["gender"]
    return out


def _distinct_per_class(frame: pd.DataFrame, qi: pd.DataFrame, column: str) -> np.ndarray:
    classes, count = group_ids([factorize(qi[c].to_numpy()) for c in qi.columns], len(frame))
    values = factorize(frame[column].to_numpy())
    pairs, _ = group_ids([(classes, count), values], len(frame))
    first = np.zeros(pairs.max() + 1, dtype=np.int64)
    first[pairs] = classes
    return np.bincount(first, minlength=count)


def _job(rng, n: int, jobs=JOBS, p=None) -> pd.DataFrame:
    frame = _people(rng, n)
    frame["job"] = rng.choice(jobs, size=n, p=p)
    return frame[JOB_COLUMNS]


def make_job(rng) -> pd.DataFrame:
    # Twenty people in seven (age band, town size) groups of two to four, so that only
    # gender splits a group: the table of task 3.
    sizes = rng.permutation([2, 2, 3, 3, 3, 3, 4])
    cells = rng.choice(5 * 3, size=7, replace=False)
    groups = sorted(set(_CITY_GROUP.values()))
    frame = _people(rng, 20)
    band = np.repeat(cells // 3, sizes)
    town = np.repeat(cells % 3, sizes)
    frame["age"] = 20 + band * 10 + rng.integers(0, 10, size=20)
    frame["city"] = [rng.choice([c for c in CITIES if _CITY_GROUP[c] == groups[g]]) for g in town]
    frame["job"] = rng.choice(JOBS, size=20)
    return frame.sample(frac=1, random_state=rng).reset_index(drop=True)[JOB_COLUMNS]


def job_ok(frame) -> bool:
    # Task 3: 1-anonymous under R exactly as in task 1, 2-anonymous once gender is generalised too.
    qi = ["age", "gender", "city"]
    return _min_class(_recipe_r(frame), qi) == 1 and _min_class(_recipe_r(frame, any_gender=True), qi) == 2


def make_job_large(rng) -> pd.DataFrame:
    return _job(rng, 200)


def job_large_ok(frame) -> bool:
    # Tasks 1, 2, 7: 2-anonymous under R, clearly more with "any gender", and 2-diverse in job.
    r = _recipe_r(frame)
    return (_min_class(r, ["age", "gender", "city"]) == 2
            and _min_class(_recipe_r(frame, any_gender=True), ["age", "gender", "city"]) >= 4
            and _distinct_per_class(frame, r, "job").min() == 2)


def make_relational(rng) -> tuple[pd.DataFrame, pd.DataFrame]:
    people = _people(rng, 20).drop(columns="city")
    people.insert(0, "id", np.arange(1, 21))
    jobs = pd.DataFrame({"id": rng.permutation(np.arange(1, 21)), "job": rng.choice(JOBS, size=20)})
    return people[["id", "name", "last name", "age", "gender"]], jobs


def relational_ok(pair) -> bool:
    people, _ = pair
    # Task 5: once joined and age generalised to 10 years, {age, gender} is at least 2-anonymous.
    r = pd.DataFrame({"age": (people["age"] // 10) * 10, "gender": people["gender"]})
    return _min_class(r, ["age", "gender"]) >= 2


def make_disease_xy(rng) -> pd.DataFrame:
    persons = _people(rng, 65)
    # 1-9 diseases a person, 204 rows in all (as the prototype's table).
    counts = np.ones(65, dtype=np.int64)
    extra = rng.choice(65 * 8, size=204 - 65, replace=False) // 8
    np.add.at(counts, extra, 1)
    rows = persons.loc[np.repeat(np.arange(65), counts)].reset_index(drop=True)
    rows["disease"] = [d for c in counts for d in rng.choice(DISEASES, size=c, replace=False)]
    return rows[["name", "last name", "age", "gender", "city", "disease"]]


def disease_xy_ok(frame) -> bool:
    # Task 4: a person with several rows makes the row count overstate the protection.
    people = frame.groupby(["name", "last name", "age", "gender", "city"], sort=False).ngroups
    return people == 65 and frame.groupby(["name", "last name", "age", "gender", "city"]).size().max() <= 9


def make_job_large_salary(rng) -> pd.DataFrame:
    frame = _job(rng, 400)
    frame = frame.drop(columns=["name", "last name"])
    frame.insert(0, "id", np.arange(1, 401))
    frame["salary"] = rng.integers(10, 30, size=400) * 100
    return frame[["id", "age", "gender", "city", "job", "salary"]]


def salary_ok(frame) -> bool:
    return _min_class(_recipe_r(frame), ["age", "gender", "city"]) >= 2


def make_job_large_monotonous(rng) -> pd.DataFrame:
    frame = _people(rng, 150)
    jobs = np.array(["Systems analyst"] * 79 + ["Programmer"] * 71)
    frame["job"] = rng.permutation(jobs)
    return frame[JOB_COLUMNS]


def monotonous_ok(frame) -> bool:
    # Task 6: some groups under R hold a single job: l-diversity fails where k-anonymity holds.
    return _distinct_per_class(frame, _recipe_r(frame), "job").min() == 1


def make_job_large_skewed(rng) -> pd.DataFrame:
    frame = _people(rng, 500)
    weights = 1.0 / np.arange(1, len(JOBS) + 1) ** 1.3
    frame["job"] = rng.choice(JOBS, size=500, p=weights / weights.sum())
    frame = frame.drop(columns=["name", "last name"])
    frame.insert(0, "id", np.arange(1, 501))
    return frame[["id", "age", "gender", "city", "job"]]


def skewed_ok(frame) -> bool:
    return _min_class(_recipe_r(frame), ["age", "gender", "city"]) >= 5


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    make: Callable
    ok: Callable
    files: tuple[str, ...]


SPECS = (
    DatasetSpec("Job", make_job, job_ok, ("Job.csv",)),
    DatasetSpec("Job_Large", make_job_large, job_large_ok, ("Job_Large.csv",)),
    DatasetSpec("Relational", make_relational, relational_ok, ("Person_Relational.csv", "Job_Relational.csv")),
    DatasetSpec("Disease_xy", make_disease_xy, disease_xy_ok, ("Disease_xy.csv",)),
    DatasetSpec("Job_Large_Salary", make_job_large_salary, salary_ok, ("Job_Large_Salary.csv",)),
    DatasetSpec("Job_Large_Monotonous", make_job_large_monotonous, monotonous_ok, ("Job_Large_Monotonous.csv",)),
    DatasetSpec("Job_Large_Skewed", make_job_large_skewed, skewed_ok, ("Job_Large_Skewed.csv",)),
)

_MAX_DRAWS = 10_000


@lru_cache(maxsize=4)
def bundled(seed: int = DEFAULT_SEED) -> dict[str, pd.DataFrame]:
    """The teaching tables of ``seed`` (generated once per seed)."""
    return generate(seed)


def generate(seed: int = DEFAULT_SEED) -> dict[str, pd.DataFrame]:
    """Every teaching table by file stem, the same for the same seed."""
    seed = check_seed(seed)
    tables: dict[str, pd.DataFrame] = {}
    for index, spec in enumerate(SPECS):
        for draw in range(_MAX_DRAWS):
            rng = np.random.default_rng([seed, index, draw])
            made = spec.make(rng)
            if spec.ok(made):
                break
        else:  # pragma: no cover - the constraints are loose enough to be met in a few draws
            raise RuntimeError(f"no {spec.name} table met its teaching constraints in {_MAX_DRAWS} draws")
        frames = made if isinstance(made, tuple) else (made,)
        for file, frame in zip(spec.files, frames):
            tables[Path(file).stem] = frame.reset_index(drop=True)
    return tables


def weights_frame(columns) -> pd.DataFrame:
    """The teaching weights (attribute, value, weight) of those of ``columns`` that have them."""
    rows = [(column, value, weight) for column in columns if column in WEIGHTS
            for value, weight in WEIGHTS[column].items()]
    return pd.DataFrame(rows, columns=["attribute", "value", "weight"])


def write(directory: Path, seed: int = DEFAULT_SEED) -> list[Path]:
    """Write every table as UTF-8 CSV into ``directory`` (created if missing), with beside
    each table that has a job, disease or salary column its teaching weights
    (``STEM_weights.csv``); the paths written."""
    from tklscore.core.files.atomic import atomic_write

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, frame in generate(seed).items():
        outputs = [(directory / f"{stem}.csv", frame)]
        weights = weights_frame(frame.columns)
        if len(weights):
            outputs.append((directory / f"{stem}_weights.csv", weights))
        for path, table in outputs:
            with atomic_write(path) as handle:
                table.to_csv(handle, index=False, lineterminator="\n")
            written.append(path)
    return written


if __name__ == "__main__":  # the script that made resources/learn/
    for path in write(Path(sys.argv[1] if len(sys.argv) > 1 else "resources/learn")):
        print(path)
