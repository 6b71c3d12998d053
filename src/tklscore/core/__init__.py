"""The core: a pure library (pandas/numpy, rdflib, networkx), no Qt.

Packages by concept (names as in the spec); ``docs/architecture.md`` describes them:

- ``tables``     loading tables, column roles, locating published records, the group-by engine
- ``scoring``    k-DF, l-DF, t-DF, weights, M-Score, L-Severity, tkl-Score, normalisation
- ``release``    how a release is defined and transformed
- ``model``      DPV taxonomy, AHP, labels, the tkl-Data Model, the M/L weight models
- ``pia``        privacy inference analysis (reasoner, labels, violations, disruption)
- ``files``      atomic writes, RDF files, bundled resources
"""

from tklscore.core.errors import InputError, MissingWeightsError
from tklscore.core.tables.roles import Roles
from tklscore.core.tables.loading import Table, load_table
from tklscore.core.scoring.weights import Weights, load_weights
from tklscore.core.tables.published import Release, locate_by_ids, locate_table
from tklscore.core.scoring.scores import ScoreReport, ScoreSet, Scorer

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
