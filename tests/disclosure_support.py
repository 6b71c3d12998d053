"""Orooji–Knapp D(r)'s worked example (spec disclosure-risk.md Part B2) and random cases, shared
by the core's tests (core/risk/test_disclosure_risk.py) and the engines' (engines/)."""

from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

from tklscore.core import Weights
from tklscore.core.risk.disclosure_risk import AttributeParameters, parameters_from_codes


def table_1() -> pd.DataFrame:
    """B2, Table 1 (Income as the exact values in thousands)."""
    return pd.DataFrame({
        "Age": ["34", "19", "40", "34", "51"],
        "Gender": ["Male", "Female", "Male", "Male", "Female"],
        "Race": ["Black", "White", "Asian-Pac-Islander", "Black", "Black"],
        "Income": ["60", "36", "45", "50", "65"],
        "Disease": ["Flu", "Flu", "Flu", "Cancer", "Flu"],
    })


PARAMS = parameters_from_codes(["Age", "Gender", "Race", "Income", "Disease"],
                               [0.3, 0.8, 0.7, 0.005, 0.001], [0, 0, 0, 0.9, 1])
VALUE_WEIGHTS = Weights([("Income", "[0,40)", 1.0), ("Income", "[40,70]", 0.7),
                         ("Disease", "Flu", 0.2), ("Disease", "Cancer", 1.0)])


@st.composite
def cases(draw):
    m = draw(st.integers(1, 5))
    n = draw(st.integers(1, 12))
    frame = pd.DataFrame({f"a{j}": draw(st.lists(st.sampled_from("xyz"[:draw(st.integers(1, 3))]),
                                                 min_size=n, max_size=n)) for j in range(m)})
    params = [AttributeParameters(f"a{j}", draw(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0])),
                                  draw(st.sampled_from([0.0, 0.3, 1.0]))) for j in range(m)]
    weights = {(f"a{j}", v): draw(st.sampled_from([0.0, 0.2, 1.0])) for j in range(m) for v in "xyz"}
    return frame, params, weights, draw(st.sampled_from([1.0, 100.0]))
