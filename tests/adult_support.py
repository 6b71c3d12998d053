"""The Adult subset's release arguments (ARX hierarchies for the quasi-identifiers, weights for
occupation), shared by core/release/test_release_design.py and engines/test_engine_suggest.py."""

import pandas as pd

from paths import DATA

ADULT = DATA / "adult"
ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country"]


def adult_args(tmp_path):
    frame = pd.read_csv(ADULT / "adult_subset.csv", sep=";", dtype=str)
    values = sorted(frame["occupation"].unique())
    weights = tmp_path / "w.csv"
    pd.DataFrame({"attribute": "occupation", "value": values,
                  "weight": [0.1 + 0.05 * i for i in range(len(values))]}).to_csv(weights, index=False)
    args = [ADULT / "adult_subset.csv", "--qi", ",".join(ADULT_QI), "--sa", "occupation", "--weights", weights]
    for c in ADULT_QI:
        args += ["--hierarchy", f"{c}={ADULT / f'adult_hierarchy_{c}.csv'}"]
    return args
