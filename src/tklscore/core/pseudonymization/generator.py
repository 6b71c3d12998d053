"""A synthetic health-survey table shaped like the paper's §6.2 data set (Table 4: 1,103
adults, 10% of each sex × age × race category of the NHANES 2007–2010 anthropometric
reference data), 2-anonymised, for Oracle C (disclosure-risk.md A7), examples and tests.

The paper does not say how it drew the records nor how ARX generalised them, so every
choice below is ours [inferred], made once and kept (seeded):

* **people** — per Table 4 category: age uniform over the group's years (20–39, 40–59,
  60+ read as 60–79), height ~ N(mean height, ``height_sd`` = 6 cm), BMI ~ N(mean BMI,
  ``bmi_sd`` = 3.5), weight = BMI · height² rounded to whole kg (mean ≈ 82 kg, SD ≈ 13 kg:
  the paper's 81.87 and 13.06). Owners' attitudes follow Table 6 (pragmatist 49%,
  fundamentalist 30%, unconcerned 21%; 10% regard weight as sensitive).
* **pseudonymisation** — one global recoding, as ARX's full-domain generalisation does:
  age to ``age_band``-year intervals (2), height to ``height_band``-cm intervals (4); sex
  and race kept. A record still in a class smaller than ``k`` (2) is suppressed: all four
  quasi-identifiers become ``*`` (ARX's record suppression), so the suppressed records form
  one class of their own.

With the Table 5 thresholds and a 5 kg margin this reproduces Fig. 6's *order*: all four
QIs give the most violations, then leaving out sex, race, height, age in turn lowers them
(paper: 116, 107, 67, 38, 29). It holds for seeds 0–15 (mean 107, 101, 70, 32, 5): the
first four are near the paper's, leaving out age clears more here than there — the
paper's ARX hierarchies are unknown, so the counts are plausibility targets only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

TABLE_4 = [  # n, sex, age, race, mean height (cm), SE, mean BMI, SE
    (80, "M", "20-39", "White", 178.4, 0.35, 27.7, 0.25), (83, "M", "40-59", "White", 178.3, 0.28, 29.2, 0.22),
    (110, "M", "60+", "White", 174.6, 0.22, 29.2, 0.18), (36, "M", "20-39", "Black", 176.9, 0.39, 28.7, 0.39),
    (37, "M", "40-59", "Black", 176.7, 0.53, 29.4, 0.38), (36, "M", "60+", "Black", 174.4, 0.42, 28.8, 0.32),
    (57, "M", "20-39", "Hispanic", 171.1, 0.48, 28.5, 0.33), (58, "M", "40-59", "Hispanic", 170.3, 0.36, 29.5, 0.24),
    (39, "M", "60+", "Hispanic", 167.3, 0.45, 29.2, 0.32), (82, "F", "20-39", "White", 164.9, 0.25, 27.5, 0.41),
    (86, "F", "40-59", "White", 163.8, 0.27, 28.3, 0.24), (108, "F", "60+", "White", 160.3, 0.22, 28.7, 0.20),
    (40, "F", "20-39", "Black", 163.7, 0.32, 31.4, 0.46), (38, "F", "40-59", "Black", 163.5, 0.38, 33.1, 0.49),
    (37, "F", "60+", "Black", 160.6, 0.28, 31.1, 0.33), (67, "F", "20-39", "Hispanic", 158.2, 0.23, 28.8, 0.23),
    (58, "F", "40-59", "Hispanic", 157.1, 0.33, 30.2, 0.34), (51, "F", "60+", "Hispanic", 153.7, 0.31, 29.9, 0.17),
]
AGE_YEARS = {"20-39": (20, 39), "40-59": (40, 59), "60+": (60, 79)}
TABLE_6 = {"pragmatist": 0.49, "fundamentalist": 0.30, "unconcerned": 0.21}
SENSITIVE_SHARE = 0.10
QUASI_IDENTIFIERS = ["sex", "age", "race", "height"]
SUPPRESSED = "*"


def health_survey(seed: int = 0, *, scale: int = 1, height_sd: float = 6.0, bmi_sd: float = 3.5,
                  age_band: int = 2, height_band: int = 4, k: int = 2) -> pd.DataFrame:
    """``scale`` × 1,103 records: id, the released (generalised, suppressed) sex, age, race
    and height, the real weight, the real ``true_age`` and ``true_height``, and the owner's
    Westin ``category`` and ``weight_sensitive`` (yes/no)."""
    rng = np.random.default_rng(seed)
    rows = np.array([row[0] for row in TABLE_4]) * scale
    index = np.repeat(np.arange(len(TABLE_4)), rows)
    n = len(index)
    group = np.array([row[2] for row in TABLE_4])[index]
    first = np.array([AGE_YEARS[g][0] for g in group])
    last = np.array([AGE_YEARS[g][1] for g in group])
    age = rng.integers(first, last + 1)
    height = rng.normal(np.array([row[4] for row in TABLE_4])[index], height_sd)
    bmi = rng.normal(np.array([row[6] for row in TABLE_4])[index], bmi_sd)
    weight = np.rint(bmi * (height / 100) ** 2).astype(int)
    age_low = age // age_band * age_band
    height_low = (np.floor(height / height_band) * height_band).astype(int)
    frame = pd.DataFrame({
        "id": [f"p{i + 1}" for i in range(n)],
        "sex": np.array([row[1] for row in TABLE_4])[index],
        "age": [f"{a}-{a + age_band - 1}" for a in age_low],
        "race": np.array([row[3] for row in TABLE_4])[index],
        "height": [f"{h}-{h + height_band}" for h in height_low],
        "weight": weight,
        "true_age": age,
        "true_height": np.round(height, 1),
    })
    sizes = frame.groupby(QUASI_IDENTIFIERS)["id"].transform("size")
    frame.loc[sizes < k, QUASI_IDENTIFIERS] = SUPPRESSED
    categories = list(TABLE_6)
    frame["category"] = rng.choice(categories, size=n, p=[TABLE_6[c] for c in categories])
    frame["weight_sensitive"] = np.where(rng.random(n) < SENSITIVE_SHARE, "yes", "no")
    return frame


def survey_tables(seed: int = 0, **options) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The original data (real age and height, with weight) and its 2-anonymous release
    (generalised QIs, no weight), matched by ``id`` — the Fig. 3 workflow's two inputs."""
    frame = health_survey(seed, **options)
    original = frame.drop(columns=["age", "height"]).rename(columns={"true_age": "age", "true_height": "height"})
    original = original[["id", "sex", "age", "race", "height", "weight", "category", "weight_sensitive"]]
    released = frame.drop(columns=["true_age", "true_height", "weight"])
    return original, released


def survey_example(seed: int = 0):
    """The §6.2-shaped survey as the Pseudonymization view's example: the original (true ages
    and heights) and its 2-anonymous copy, as named tables."""
    from tklscore.core.tables.loading import Table

    original, pseudonymised = survey_tables(seed)
    return (Table.from_frame(original, name="§6.2 survey, original"),
            Table.from_frame(pseudonymised, name="§6.2 survey, 2-anonymous"))
