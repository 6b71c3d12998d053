"""The scoring core: a pure library (pandas/numpy), no Qt.

Concepts and where they live (names as in the spec, ``shared/spec/scoring.md``):

- ``tables``                 loading source and published tables (CSV/TSV, Excel, Parquet)
- ``roles``                  attribute roles: identifier, quasi-identifier, sensitive, insensitive
- ``published``              locating the records of a published table in the source
- ``distinguishing_factors`` k-DF, l-DF (multi-attribute), t-DF (variational distance, ordered EMD)
- ``weights``                sensitive-value weights, W(r)
- ``scores``                 M-Score, L-Severity, tkl-Score, tkl-Score_max, normalisation
- ``examples``               the thesis' illustrative example (Table 3.1, Scenario 1, Table 4.2)
"""

from tklscore.core.errors import InputError, MissingWeightsError
from tklscore.core.roles import Roles
from tklscore.core.tables import Table, load_table
from tklscore.core.weights import Weights, load_weights
from tklscore.core.published import Release, locate_by_ids, locate_table
from tklscore.core.scores import ScoreReport, ScoreSet, Scorer

__all__ = [
    "InputError",
    "MissingWeightsError",
    "Roles",
    "Table",
    "load_table",
    "Weights",
    "load_weights",
    "Release",
    "locate_by_ids",
    "locate_table",
    "ScoreReport",
    "ScoreSet",
    "Scorer",
]
