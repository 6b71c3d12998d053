"""The risk lens of a release of a source scored out of core (the Risk view and the
report of a source too large for memory): the release's measures (:mod:`.measures`),
D(r) of its records (:mod:`.disclosure_risk`), each class's size and population size
(the risk distribution), and the riskiest records found in the engine — never every
record in Python. The same :class:`~tklscore.core.risk.lens.RiskLens` as
:func:`tklscore.core.risk.lens.risk_lens` on the loaded source, with the same numbers.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from tklscore.core.engines.backend import Backend
from tklscore.core.engines.columns import ColumnTexts
from tklscore.core.engines.disclosure_risk import disclosure_in_engine
from tklscore.core.engines.measures import measure_published
from tklscore.core.engines.plan import Plan
from tklscore.core.risk.disclosure_risk import HISTOGRAM_BINS, AttributeParameters
from tklscore.core.risk.lens import (QI_IMPORTANCE_MAX, RISKIEST, RiskLens, default_parameters,
                                     risk_band_shares)
from tklscore.core.risk.measures import Measures
from tklscore.core.scoring.weights import Weights
from tklscore.core.tables.roles import Roles


def release_risk_lens(backend: Backend, roles: Roles, parameters: list[AttributeParameters] | None,
                      weights: Weights | None, *, alpha: float, epsilon: float, threshold: float,
                      measures: Measures | None = None, name: str = "release", progress=None) -> RiskLens:
    """The risk lens of the release ``published`` of ``src`` (both open in ``backend``);
    ``measures`` measured before are kept (QI importance added, up to
    :data:`~tklscore.core.risk.lens.QI_IMPORTANCE_MAX` QIs)."""
    report = progress or (lambda _fraction: None)
    parameters = list(parameters) if parameters is not None else default_parameters(roles)
    wants_importance = len(roles.qi) <= QI_IMPORTANCE_MAX
    fresh = measure_published(backend, roles, name, qi_importance=wants_importance,
                              progress=lambda f: report(0.4 * f))
    if measures is None:
        measures = fresh
    elif wants_importance and measures.qi_importance is None:
        measures = replace(measures, qi_importance=fresh.qi_importance)
    plan = Plan(len(roles.qi), tuple(c in roles.continuous for c in roles.sa), "scope")
    backend.materialize("class_f", f"SELECT cid, f FROM ({plan.population_sizes('src')}) AS p")
    classes = backend.fetch(plan.class_risks())
    scan = backend.source_scan
    columns = ColumnTexts(backend, scan, lambda _k, raw: f"s.{backend.q(raw)}")
    relation = (f"(SELECT p.pos AS rid, p.id AS id, s.* FROM published AS p JOIN src ON src.id = p.id "
                f"JOIN {scan.relation} AS s ON s.__rid = src.rid) AS s")
    disclosure = disclosure_in_engine(backend, relation, columns, parameters, weights, alpha=alpha, epsilon=epsilon,
                                      threshold=threshold, name=scan.path, fetch=False,
                                      progress=lambda f: report(0.4 + 0.55 * f))
    top = backend.fetch(plan.riskiest(RISKIEST))
    riskiest = pd.DataFrame({"record": top["record"].astype(str).to_numpy(dtype=object),
                             "row": top["row"].to_numpy(dtype=np.int64),
                             "class size": top["size"].to_numpy(dtype=np.int64),
                             "prosecutor risk": top["prosecutor"].to_numpy(dtype=np.float64),
                             "journalist risk": top["journalist"].to_numpy(dtype=np.float64),
                             "D(r)": top["d"].to_numpy(dtype=np.float64)})
    sizes = classes["k"].to_numpy(dtype=np.int64)
    population = classes["f"].to_numpy(dtype=np.int64)
    report(1.0)
    shares = {"prosecutor": risk_band_shares(1.0 / sizes, sizes),
              "journalist": risk_band_shares(1.0 / population, sizes)}
    drawn = {("riskiest", RISKIEST): riskiest, "distribution": shares,
             ("histogram", HISTOGRAM_BINS): disclosure.histogram}
    return RiskLens(name, measures, disclosure, parameters, np.zeros(0, dtype=object),
                    weights.name if weights is not None else None, drawn, out_of_core=True)
