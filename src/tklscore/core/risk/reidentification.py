"""Re-identification risk (spec privacy-models.md §3, ARX "Risk analysis" semantics).

- Prosecutor: a record in class E has risk 1/|E|. Highest risk 1/k; average risk =
  #classes / n (ARX, sdcMicro unweighted) = the mean record risk; records at risk = share
  of rows with risk > τ; success rate = #classes / n.
- Journalist: against a population (the source table S), F_E = rows of S whose QIs equal
  E's; a record's risk is 1/F_E. Highest 1/min F_E; average = mean record risk; records at
  risk as above; success rate as ARX: max(#classes / Σ_E F_E, (1/n) Σ_E |E| / F_E).
- Marketer: (1/n) Σ_E |E| / F_E.
- Sample uniques: share of rows in classes of size 1.
- sdcMicro's individual risk with sampling weights (``measure_risk``): f_k = class size,
  F_k = Σ weights of the class, p_k = f_k / F_k and Benedetti–Franconi's approximation
  (exact form as sdcMicro's ``indivRisk(method="exact")`` computes it); global risk Σ r_k
  (expected re-identifications) and Σ r_k / n.
pycanon's ``average_rir`` (mean over classes of 1/|E|) is a different number, reported
only as a compatibility field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tklscore.core.errors import InputError
from tklscore.core.risk.equivalence_classes import EquivalenceClasses
from tklscore.core.tables.codes import Codes, dense_limit, group_ids, group_keys

DEFAULT_RISK_THRESHOLD = 0.2


@dataclass(frozen=True)
class AttackerRisk:
    highest: float
    average: float
    records_at_risk: float
    success_rate: float

    def to_json_dict(self) -> dict:
        return {"highest": self.highest, "average": self.average, "records_at_risk": self.records_at_risk,
                "success_rate": self.success_rate}


@dataclass(frozen=True)
class IndividualRisk:
    """sdcMicro's individual risk: per record (``records``), Σ (``global_risk``) and
    Σ / n (``global_rate``)."""

    records: np.ndarray
    global_risk: float
    global_rate: float
    fk: np.ndarray
    Fk: np.ndarray

    def to_json_dict(self) -> dict:
        return {"records": [float(r) for r in self.records], "global": self.global_risk,
                "global_rate": self.global_rate}


def prosecutor_risk(sizes: np.ndarray, threshold: float = DEFAULT_RISK_THRESHOLD) -> AttackerRisk:
    """Prosecutor risk from the class ``sizes``."""
    n, count = int(sizes.sum()), len(sizes)
    at_risk = float(sizes[1.0 / sizes > threshold].sum()) / n
    return AttackerRisk(1.0 / int(sizes.min()), count / n, at_risk, count / n)


def average_rir(sizes: np.ndarray) -> float:
    """pycanon's average re-identification risk: the mean over classes of 1/|E|."""
    return float(np.mean(1.0 / sizes))


def sample_uniques(sizes: np.ndarray) -> float:
    """The share of records in classes of size 1."""
    return float((sizes == 1).sum()) / int(sizes.sum())


def population_class_sizes(sample_qi: list[np.ndarray], population_qi: list[np.ndarray],
                           population_name: str = "<population>") -> np.ndarray:
    """F(r) for every sample row: the number of population rows with r's QI values.

    Each QI is factorised over sample and population together, so equal values get equal
    codes; a sample row without any population match is an error."""
    joint = []
    for s, p in zip(sample_qi, population_qi):
        codes, uniques = pd.factorize(np.concatenate([np.asarray(s, dtype=object), np.asarray(p, dtype=object)]),
                                      use_na_sentinel=False)
        joint.append((codes.astype(np.int64, copy=False), len(uniques)))
    return _joint_class_sizes(joint, len(sample_qi[0]), len(population_qi[0]), population_name)


def population_class_sizes_from_codes(sample_qi: list[Codes], population_qi: list[Codes],
                                      population_name: str = "<population>") -> np.ndarray:
    """:func:`population_class_sizes` from factorised QIs whose sample and population codes
    share one code space (equal values, equal codes; e.g. a release's generalised codes
    and the source's at the same level): no value is hashed again."""
    for s, p in zip(sample_qi, population_qi):
        if s.cardinality != p.cardinality:
            raise ValueError("sample and population codes of a quasi-identifier must share their uniques")
    n, m = len(sample_qi[0].codes), len(population_qi[0].codes)
    space = math.prod(max(s.cardinality, 1) for s in sample_qi)
    if space <= dense_limit(m):  # one count per possible combination: no hashing, no concatenation
        sample_key, size = group_keys(sample_qi, n)
        population_key, _ = group_keys(population_qi, m)
        F = np.bincount(population_key, minlength=size)[sample_key]
        return _check_found(F, population_name)
    joint = [(np.concatenate([s.codes, p.codes]), s.cardinality) for s, p in zip(sample_qi, population_qi)]
    return _joint_class_sizes(joint, n, m, population_name)


def _joint_class_sizes(joint: list[tuple[np.ndarray, int]], n: int, m: int, population_name: str) -> np.ndarray:
    ids, count = group_ids(joint, n + m)
    return _check_found(np.bincount(ids[n:], minlength=count)[ids[:n]], population_name)


def _check_found(F: np.ndarray, population_name: str) -> np.ndarray:
    missing = np.flatnonzero(F == 0)
    if len(missing):
        raise InputError(f"{len(missing)} published record(s) have quasi-identifier values that no record of "
                         f"the population has (the first is record {int(missing[0]) + 1}); the population "
                         f"must contain the published records", file=population_name)
    return F


def journalist_risk_by_class(sizes: np.ndarray, F_class: np.ndarray,
                             threshold: float = DEFAULT_RISK_THRESHOLD) -> tuple[AttackerRisk, float]:
    """Journalist and marketer risk from each class's size and population size F."""
    n = int(sizes.sum())
    marketer = float((sizes / F_class).sum()) / n
    at_risk = float(sizes[1.0 / F_class > threshold].sum()) / n
    success = max(len(sizes) / float(F_class.sum()), marketer)
    return AttackerRisk(1.0 / int(F_class.min()), marketer, at_risk, success), marketer


def individual_risk(classes: EquivalenceClasses, weights: np.ndarray, method: str = "approx") -> IndividualRisk:
    """sdcMicro ``measure_risk``/``indivRisk``: r_k from f_k (class size) and F_k (sum of
    the class's sampling weights)."""
    Fk_class = np.bincount(classes.ids, weights=weights, minlength=classes.count)
    return individual_risk_of_classes(classes.ids, classes.sizes.astype(np.float64), Fk_class, method)


def individual_risk_of_classes(ids: np.ndarray, fk_class: np.ndarray, Fk_class: np.ndarray,
                               method: str = "approx") -> IndividualRisk:
    """sdcMicro's individual risk from each record's class (``ids``), each class's size f_k
    and its sum of sampling weights F_k (every engine). Where F_k ≤ f_k (p_k = 1, sdcMicro's
    formulas are 0/0) the limit 1/f_k is used."""
    pk = np.minimum(fk_class / np.where(Fk_class > 0, Fk_class, np.inf), 1.0)
    risk = np.empty(len(fk_class))
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = pk / (1.0 - pk)
        one = fk_class == 1
        two = fk_class == 2
        more = fk_class > 2
        risk[one] = odds[one] * np.log(1.0 / pk[one])
        risk[two] = odds[two] - odds[two] ** 2 * np.log(1.0 / pk[two])
        if method == "approx":
            risk[more] = pk[more] / (fk_class[more] - (1.0 - pk[more]))
        elif method == "exact":
            f, p = fk_class[more], pk[more]
            # sdcMicro's exact form as it computes it: its correction sum BB is 0 as written
            A = (p ** (1.0 - f) - 1.0) / (f - 1.0)
            risk[more] = (p / (1.0 - p)) ** f * A + (-1.0) ** f * np.log(p)
        else:
            raise ValueError(f"unknown method {method!r}")
    limit = pk >= 1.0
    risk[limit] = 1.0 / fk_class[limit]
    records = risk[ids]
    total = float(records.sum())
    return IndividualRisk(records, total, total / len(ids), fk_class[ids], Fk_class[ids])
