"""The core: a pure library (pandas/numpy, rdflib, networkx), no Qt.

Packages by concept (names as in the spec); ``docs/architecture.md`` describes them:

- ``tables``     loading tables, column roles, locating published records, the group-by engine
- ``scoring``    k-DF, l-DF, t-DF, weights, M-Score, L-Severity, tkl-Score, normalisation
- ``release``    how a release is defined and transformed
- ``model``      DPV taxonomy, AHP, labels, the tkl-Data Model, the M/L weight models
- ``pia``        privacy inference analysis (reasoner, labels, violations, disruption)
- ``files``      atomic writes, RDF files, bundled resources
"""

import importlib

# The public names are imported on first use (PEP 562), so importing one module of the
# core (e.g. ``tklscore.core.errors`` for ``tklscore --version``) does not load pandas.
_EXPORTS = {
    "InputError": "tklscore.core.errors",
    "MissingWeightsError": "tklscore.core.errors",
    "Roles": "tklscore.core.tables.roles",
    "Table": "tklscore.core.tables.loading",
    "load_table": "tklscore.core.tables.loading",
    "Weights": "tklscore.core.scoring.weights",
    "load_weights": "tklscore.core.scoring.weights",
    "Release": "tklscore.core.tables.published",
    "locate_by_ids": "tklscore.core.tables.published",
    "locate_table": "tklscore.core.tables.published",
    "ScoreReport": "tklscore.core.scoring.scores",
    "ScoreSet": "tklscore.core.scoring.scores",
    "Scorer": "tklscore.core.scoring.scores",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'tklscore.core' has no attribute {name!r}")
