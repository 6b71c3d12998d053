"""A synthetic health-survey table shaped like the paper's §6.2 data set (Table 4: 1,103
adults, 10% of each sex × age × race category of the NHANES 2007–2010 anthropometric
reference data) for examples, tests and benchmarks.

The paper does not say how it drew weights; here [inferred] height ~ N(mean height,
``height_sd``) and BMI ~ N(mean BMI, ``bmi_sd``) per category, weight = BMI·height²
rounded to whole kg. Owners' attitudes follow Table 6 (pragmatist 49%, fundamentalist
30%, unconcerned 21%; 10% regard weight as sensitive). The pseudonymised copy keeps sex,
age group and race and generalises height to ``band``-cm intervals; a record still alone
in its class (no 2-anonymity) has its height suppressed to ``*``.
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
TABLE_6 = {"pragmatist": 0.49, "fundamentalist": 0.30, "unconcerned": 0.21}
SENSITIVE_SHARE = 0.10


def health_survey(seed: int = 0, *, scale: int = 1, height_sd: float = 7.0, bmi_sd: float = 4.5,
                  band: int = 5) -> pd.DataFrame:
    """``scale`` × 1,103 records: id, sex, age, race, height (generalised), weight,
    true_height, category (Westin), weight_sensitive (yes/no)."""
    rng = np.random.default_rng(seed)
    counts = np.array([row[0] for row in TABLE_4]) * scale
    index = np.repeat(np.arange(len(TABLE_4)), counts)
    n = len(index)
    table = np.array([row[4] for row in TABLE_4]), np.array([row[6] for row in TABLE_4])
    height = rng.normal(table[0][index], height_sd)
    bmi = rng.normal(table[1][index], bmi_sd)
    weight = np.rint(bmi * (height / 100) ** 2).astype(int)
    low = (np.floor(height / band) * band).astype(int)
    frame = pd.DataFrame({
        "id": [f"p{i + 1}" for i in range(n)],
        "sex": np.array([row[1] for row in TABLE_4])[index],
        "age": np.array([row[2] for row in TABLE_4])[index],
        "race": np.array([row[3] for row in TABLE_4])[index],
        "height": [f"{a}-{a + band}" for a in low],
        "weight": weight,
        "true_height": np.round(height, 1),
    })
    sizes = frame.groupby(["sex", "age", "race", "height"])["id"].transform("size")
    frame.loc[sizes < 2, "height"] = "*"
    categories = list(TABLE_6)
    frame["category"] = rng.choice(categories, size=n, p=[TABLE_6[c] for c in categories])
    frame["weight_sensitive"] = np.where(rng.random(n) < SENSITIVE_SHARE, "yes", "no")
    return frame
