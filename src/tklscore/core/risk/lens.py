"""The risk lens of one release, as the Risk view and the release report show it: the
measures of :func:`~tklscore.core.risk.measures.measure_table`, Orooji–Knapp D(r) with the
parameters used, and what is drawn from them (the risk distribution in ARX's bands, the
log-scale histogram of D, the riskiest records).

    lens = risk_lens(source, roles, positions, scorer=scorer, weights=weights, ids=ids)
    lens.riskiest(25)                 # DataFrame: record, row, class size, prosecutor, journalist, D(r)
    lens.risk_distribution()          # attacker → share of records per band of RISK_BANDS
    lens.disclosure_histogram()       # DisclosureHistogram (log10 D bins, records with D = 0, threshold)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np
import pandas as pd

from tklscore.core.risk.disclosure_risk import (DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD,  # noqa: F401
                                                HISTOGRAM_BINS, AttributeParameters, DisclosureHistogram,
                                                DisclosureRisk, disclosure_histogram, disclosure_risk)
from tklscore.core.risk.equivalence_classes import restrict, subset_codes
from tklscore.core.risk.measures import Measures, measure_release
from tklscore.core.risk.qi_importance import QiImportance, qi_importance
from tklscore.core.scoring.weights import Weights
from tklscore.core.tables.codes import factorize
from tklscore.core.tables.loading import Table
from tklscore.core.tables.roles import Roles

# risk bands in percent, as ARX groups them (upper bounds of ]low, high]; the first is [0, 0.1])
RISK_BANDS = (0.0, 0.1, 1.0, 2.0, 5.0, 10.0, 20.0, 25.0, 33.4, 50.0, 100.0)
# D(r)'s default parameters: a quasi-identifier is often known and harms little when
# disclosed; a sensitive attribute is rarely known and harms (the paper's setting)
DEFAULT_PK = {"qi": 0.5, "sa": 0.005}
DEFAULT_WEIGHT = {"qi": 0.0, "sa": 1.0}
QI_IMPORTANCE_MAX = 8       # QI importance covers every subset: 2^8 − 1 = 255 at most
RISKIEST = 25


def risk_band_shares(risk: np.ndarray, records: np.ndarray | None = None) -> np.ndarray:
    """Share of records whose risk (0..1) falls in each band ]low, high] of :data:`RISK_BANDS`
    (``records``: how many records hold each risk, e.g. a class's size; default one each)."""
    percent = np.asarray(risk, dtype=np.float64) * 100.0
    bins = np.minimum(np.searchsorted(np.asarray(RISK_BANDS[1:]), percent, side="left"), len(RISK_BANDS) - 2)
    if records is None:
        counts = np.bincount(bins, minlength=len(RISK_BANDS) - 1)
        return counts / max(len(percent), 1)
    records = np.asarray(records, dtype=np.int64)
    counts = np.bincount(bins, weights=records, minlength=len(RISK_BANDS) - 1)
    return counts / max(int(records.sum()), 1)


def risk_band_labels() -> list[str]:
    return [f"≤{RISK_BANDS[1]:g}"] + [f"{low:g}–{high:g}" for low, high in zip(RISK_BANDS[1:-1], RISK_BANDS[2:])]


def qi_importance_skipped(qi_count: int) -> str | None:
    """Why QI importance was not measured for ``qi_count`` quasi-identifiers (None when it is)."""
    if qi_count <= QI_IMPORTANCE_MAX:
        return None
    return (f"Not computed: QI importance measures every subset of the quasi-identifiers, and {qi_count} of them "
            f"have {2 ** qi_count - 1:,} subsets (at most {QI_IMPORTANCE_MAX} quasi-identifiers are measured).")


def default_parameters(roles: Roles, chosen: dict[str, tuple[float, float]] | None = None
                       ) -> list[AttributeParameters]:
    """D(r)'s parameters over the QIs and SAs: ``chosen`` (attribute → (PK, W(A))) where the
    publisher set them, :data:`DEFAULT_PK`/:data:`DEFAULT_WEIGHT` elsewhere."""
    chosen = chosen or {}
    out = []
    for kind, columns in (("qi", roles.qi), ("sa", roles.sa)):
        for column in columns:
            pk, weight = chosen.get(column, (DEFAULT_PK[kind], DEFAULT_WEIGHT[kind]))
            out.append(AttributeParameters(column, pk, weight))
    return out


@dataclass
class RiskLens:
    """The measures and D(r) of one release. ``ids`` are the published records' ids in
    published order (the rows of ``disclosure.d``). Out of core (``out_of_core``;
    :func:`tklscore.core.engines.lens.release_risk_lens`) the per-record arrays stay in the
    engine: ``disclosure`` holds D's summary and histogram, and what is drawn (the riskiest
    records, the distribution) was computed there."""

    release: str | None
    measures: Measures
    disclosure: DisclosureRisk
    parameters: list[AttributeParameters]
    ids: np.ndarray
    weights_name: str | None = None
    _drawn: dict = field(default_factory=dict, repr=False, compare=False)
    out_of_core: bool = False

    def prepare(self) -> "RiskLens":
        """Compute what the Risk view and the report draw (cached), e.g. in a background task."""
        self.riskiest()
        self.risk_distribution()
        self.disclosure_histogram()
        return self

    def riskiest(self, count: int = RISKIEST) -> pd.DataFrame:
        """The ``count`` records with the highest prosecutor risk, ties by the highest D(r)."""
        key = ("riskiest", count)
        if key not in self._drawn:
            self._drawn[key] = self._riskiest(count)
        return self._drawn[key]

    def _riskiest(self, count: int) -> pd.DataFrame:
        m = self.measures
        rows = m.record_rows
        d = self.disclosure.d[rows]
        journalist = m.journalist_records if m.journalist_records is not None else np.full(len(rows), np.nan)
        order = np.lexsort((-d, -m.prosecutor_records))[:count]
        return pd.DataFrame({
            "record": [str(self.ids[int(rows[k])]) for k in order],
            "row": rows[order].astype(np.int64),
            "class size": m.class_size[order].astype(np.int64),
            "prosecutor risk": m.prosecutor_records[order],
            "journalist risk": journalist[order],
            "D(r)": d[order],
        })

    def risk_distribution(self) -> dict[str, np.ndarray]:
        """Attacker → share of records per band of :data:`RISK_BANDS` (ARX's distribution)."""
        if "distribution" not in self._drawn:
            m = self.measures
            out = {"prosecutor": risk_band_shares(m.prosecutor_records)}
            if m.journalist_records is not None:
                out["journalist"] = risk_band_shares(m.journalist_records)
            self._drawn["distribution"] = out
        return self._drawn["distribution"]

    def disclosure_histogram(self, bins: int = HISTOGRAM_BINS) -> DisclosureHistogram:
        key = ("histogram", bins)
        if key not in self._drawn:
            self._drawn[key] = disclosure_histogram(self.disclosure.d, self.disclosure.threshold, bins)
        return self._drawn[key]

    def per_record(self) -> pd.DataFrame | None:
        """Per published record (published order): prosecutor and journalist risk (empty for
        a suppressed record left out) and D(r); None out of core (they stay in the engine)."""
        if self.out_of_core:
            return None
        m = self.measures
        n = len(self.disclosure.d)
        prosecutor = np.full(n, np.nan)
        prosecutor[m.record_rows] = m.prosecutor_records
        journalist = np.full(n, np.nan)
        if m.journalist_records is not None:
            journalist[m.record_rows] = m.journalist_records
        return pd.DataFrame({"prosecutor_risk": prosecutor, "journalist_risk": journalist,
                             "disclosure_risk": self.disclosure.d})


def risk_lens(source: Table, roles: Roles, positions, *, ids=None, release: str | None = None,
              scorer=None, measures: Measures | None = None, weights: Weights | None = None,
              parameters: list[AttributeParameters] | None = None, alpha: float = DEFAULT_ALPHA,
              epsilon: float = DEFAULT_EPSILON, threshold: float = DEFAULT_THRESHOLD,
              progress: Callable[[float], None] | None = None) -> RiskLens:
    """The risk lens of the release of ``source`` at ``positions``: its measures (given, or
    measured against the whole source with QI importance up to :data:`QI_IMPORTANCE_MAX`
    QIs) and D(r) over ``parameters`` (default: :func:`default_parameters`) with the
    sensitive-value weights ``weights``. ``progress(fraction)`` may raise to stop."""
    positions = np.asarray(positions, dtype=np.int64)
    report = progress or (lambda _fraction: None)
    share = 0.0 if measures is not None else 0.7
    wants_importance = len(roles.qi) <= QI_IMPORTANCE_MAX
    if measures is None:
        measures = measure_release(source, roles, positions, scorer, qi_importance=wants_importance,
                                   progress=lambda f: report(share * f))
    elif wants_importance and measures.qi_importance is None:
        measures = replace(measures, qi_importance=_qi_importance(source, roles, positions, scorer, measures))
    parameters = list(parameters) if parameters is not None else default_parameters(roles)
    published = Table(source.frame.iloc[positions].reset_index(drop=True), name=source.name, kind="memory")
    dr = disclosure_risk(published, parameters, weights, alpha=alpha, epsilon=epsilon, threshold=threshold,
                         progress=lambda f: report(share + (1 - share) * f))
    ids = np.asarray(ids, dtype=object) if ids is not None else positions.astype(object)
    return RiskLens(release, measures, dr, parameters, ids, weights.name if weights is not None else None).prepare()


def _qi_importance(source: Table, roles: Roles, positions: np.ndarray, scorer,
                   measures: Measures) -> list[QiImportance]:
    """QI importance of measures taken without it, on the same rows in scope."""
    if scorer is not None:
        codes = [subset_codes(c, positions) for c in scorer.qi_codes]
    else:
        codes = [factorize(source.frame[c].iloc[positions].reset_index(drop=True)) for c in roles.qi]
    in_scope = None if len(measures.record_rows) == len(positions) else measures.record_rows
    return qi_importance({c: restrict(v, in_scope) for c, v in zip(roles.qi, codes)}, len(measures.record_rows))
