"""Write adult_uci.csv: the Adult table in the layout the UCI repository ships (adult.data),
synthesised deterministically from the ARX form beside it (adult.csv).

    python tests/data/adult/make_adult_uci.py [ARX_CSV] [OUT]

The UCI's file separates values with ", " (every value after the first has a leading
space) and has 15 columns. The nine columns the ARX form keeps (age, workclass,
education, marital-status, occupation, race, sex, native-country, salary) are copied
row by row, in the ARX order; education-num is the UCI's own code of education; the
others (fnlwgt, relationship, capital-gain, capital-loss, hours-per-week) are drawn with
a fixed seed, conditioned on the copied values, so they are plausible but NOT the UCI's
values. Unlike adult.data, the file starts with a header line naming the columns (as the
UCI's adult.names lists them; the income column is named salary). Run twice, it writes
the same bytes.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
           "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
           "salary"]
EDUCATION_NUM = {"Preschool": 1, "1st-4th": 2, "5th-6th": 3, "7th-8th": 4, "9th": 5, "10th": 6, "11th": 7,
                 "12th": 8, "HS-grad": 9, "Some-college": 10, "Assoc-voc": 11, "Assoc-acdm": 12,
                 "Bachelors": 13, "Masters": 14, "Prof-school": 15, "Doctorate": 16}
GAINS = [2174, 3103, 3137, 3325, 3411, 3908, 4064, 4386, 4650, 5013, 5178, 7298, 7688, 8614, 10520, 13550,
         14084, 15024, 20051, 27828, 99999]
LOSSES = [1485, 1590, 1602, 1672, 1740, 1876, 1887, 1902, 1977, 2001, 2051, 2179, 2258, 2415]
SEED = 19960501


def main(source: Path, out: Path) -> None:
    with open(source, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    rng = np.random.default_rng(SEED)
    n = len(rows)
    fnlwgt = np.clip(np.round(rng.lognormal(12.0, 0.55, n)), 12285, 1484705).astype(int)
    lines = [", ".join(COLUMNS)]
    draws = rng.random((n, 6))
    hours_noise = rng.normal(0, 9, n)
    for i, row in enumerate(rows):
        age, sex, marital = int(row["age"]), row["sex"], row["marital-status"]
        high = row["salary-class"] == ">50K"
        u = draws[i]
        if marital in ("Married-civ-spouse", "Married-AF-spouse"):
            relationship = "Husband" if sex == "Male" else "Wife"
        elif age < 25:
            relationship = "Own-child" if u[0] < 0.65 else "Not-in-family" if u[0] < 0.9 else "Other-relative"
        elif marital == "Never-married":
            relationship = "Not-in-family" if u[0] < 0.6 else "Own-child" if u[0] < 0.8 else \
                "Unmarried" if u[0] < 0.93 else "Other-relative"
        else:
            relationship = "Unmarried" if u[0] < 0.45 else "Not-in-family" if u[0] < 0.9 else "Other-relative"
        gain = 0
        if u[1] < (0.2 if high else 0.04):
            gain = GAINS[int(u[2] * len(GAINS))] if high else GAINS[int(u[2] * 12)]
        loss = LOSSES[int(u[4] * len(LOSSES))] if gain == 0 and u[3] < (0.09 if high else 0.03) else 0
        base = 45 if high else 39 if age >= 25 else 30
        hours = int(np.clip(round(base + hours_noise[i]), 1, 99))
        hours = 40 if u[5] < 0.45 else hours
        lines.append(", ".join(str(v) for v in (
            age, row["workclass"], fnlwgt[i], row["education"], EDUCATION_NUM[row["education"]], marital,
            row["occupation"], relationship, row["race"], sex, gain, loss, hours, row["native-country"],
            row["salary-class"])))
    out.write_bytes(("\n".join(lines) + "\n").encode("ascii"))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "adult.csv",
         Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "adult_uci.csv")
