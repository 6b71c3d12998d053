"""Privacy models of a table (spec privacy-models.md §2).

Every model is computed from the equivalence classes and, per sensitive attribute s, the
distinct (class, value) pairs with their counts — one group-by of the shared engine per
SA. With p(v) the share of value v of s in the table and q_E(v) its share in class E:

| model                        | value                                                         |
| k-anonymity                  | min |E|                                                       |
| (α,k)-anonymity              | α = max_E max_s max_v q_E(v)                                  |
| distinct l-diversity         | min_E min_s #values of s in E                                 |
| entropy l-diversity          | min_E min_s exp(H_E), not floored                             |
| recursive (c,l)-diversity    | l distinct; c = max (⌊r_1 / Σ_{i≥l} r_i⌋ + 1), r descending   |
| t-closeness                  | ordered EMD (continuous s), ½ Σ|q − p| (categorical s)        |
| basic / enhanced β-likeness  | max (q − p)/p; min(β_s, −ln min_v p(v))                       |
| δ-disclosure                 | max |ln(q/p)| over q > 0 (natural log; ARX uses log2)         |
| (X,Y)-anonymity              | min_E #distinct identifier tuples in E                        |

pycanon's readings are kept as compatibility fields: its entropy l is ``int(e ** H)``
(so two equally frequent values give 1), its (c,l) sorts the counts ascending.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tklscore.core.risk.equivalence_classes import EquivalenceClasses
from tklscore.core.scoring.distinguishing_factors import (class_value_counts, ordered_emd_by_class,
                                                          variational_distance_by_class)
from tklscore.core.tables.codes import Codes, group_ids


@dataclass(frozen=True)
class ClassSizes:
    count: int
    min: int
    max: int
    mean: float
    median: float

    def to_json_dict(self) -> dict:
        return {"count": self.count, "min": self.min, "max": self.max, "mean": self.mean, "median": self.median}


@dataclass(frozen=True)
class SensitiveMeasures:
    """The models of one sensitive attribute."""

    alpha: float
    l_distinct: int
    entropy: float            # min_E H_E (nats)
    pycanon_entropy: float    # the same minimum, each H summed in pycanon's value order
    recursive_c: int | None
    pycanon_c: int | None
    t: float
    beta: float
    beta_enhanced: float
    delta: float
    class_t: np.ndarray       # t of each class


@dataclass(frozen=True)
class PrivacyModels:
    k: int
    class_sizes: ClassSizes
    alpha: float | None
    l_distinct: int | None
    l_entropy: float | None
    recursive_c: int | None
    t: float | None
    t_by_attribute: dict[str, float]
    beta_basic: float | None
    beta_enhanced: float | None
    delta: float | None
    xy_anonymity: int | None
    pycanon_entropy_l: int | None
    pycanon_recursive_c: int | None
    by_attribute: dict[str, SensitiveMeasures]

    @property
    def recursive_l(self) -> int | None:
        return self.l_distinct


def class_size_statistics(classes: EquivalenceClasses) -> ClassSizes:
    sizes = classes.sizes
    if len(sizes) == 0:
        return ClassSizes(0, 0, 0, 0.0, 0.0)
    return ClassSizes(int(len(sizes)), int(sizes.min()), int(sizes.max()), float(sizes.mean()),
                      float(np.median(sizes)))


def sensitive_measures(classes: EquivalenceClasses, values: Codes, continuous: bool,
                       l_table: int | None = None, pairs=None) -> SensitiveMeasures:
    """All per-SA models of one sensitive attribute (``values`` restricted to the rows in
    scope; a continuous attribute's uniques are sorted numbers). ``l_table`` is the table's
    distinct l (over every SA) that recursive (c,l)-diversity uses; by default this SA's.
    ``pairs``: :func:`class_value_counts` of the classes and ``values``, if already known."""
    ids, sizes = classes.ids, classes.sizes
    if pairs is None:
        pairs = class_value_counts(ids, classes.count, values)
    if continuous:
        class_t = ordered_emd_by_class(ids, classes.count, sizes, values)
    else:
        class_t = variational_distance_by_class(ids, classes.count, sizes, values, pairs=pairs)
    return sensitive_measures_from_pairs(pairs, sizes, np.bincount(values.codes, minlength=values.cardinality),
                                         classes.n, class_t, _value_ranks(values), l_table)


def sensitive_measures_from_pairs(pairs, sizes: np.ndarray, table_counts: np.ndarray, n: int,
                                  class_t: np.ndarray, rank: np.ndarray, l_table: int | None = None
                                  ) -> SensitiveMeasures:
    """The per-SA models from what a group-by engine hands over: the distinct (class,
    value code, count) ``pairs``, the class ``sizes``, the table's count of each value code,
    the ``n`` records, each class's t and each value code's rank in sorted value order."""
    cls, val, counts = pairs
    size = sizes[cls]
    total = table_counts[val]
    n_classes = len(sizes)

    distinct = np.bincount(cls, minlength=n_classes)
    l_distinct = int(distinct.min())
    alpha = float((counts / size).max())

    q = counts / size
    entropy_by_class = np.bincount(cls, weights=-q * np.log(q), minlength=n_classes)
    entropy = max(float(entropy_by_class.min()), 0.0)
    pycanon_entropy = _pycanon_entropy(cls, val, q, rank, entropy_by_class)

    # (q − p)/p = (c·n − C·|E|) / (C·|E|), on integers until the division
    ratio = (counts * float(n) - total * size.astype(np.float64)) / (total * size.astype(np.float64))
    beta = float(ratio.max())
    beta_enhanced = min(beta, -math.log(table_counts[table_counts > 0].min() / n))
    delta = float(np.abs(np.log((counts * float(n)) / (total * size.astype(np.float64)))).max())

    l_for_c = l_distinct if l_table is None else l_table
    recursive_c = pycanon_c = None
    if l_for_c > 1:
        recursive_c, pycanon_c = _recursive_c(cls, counts, size, l_for_c)
    return SensitiveMeasures(alpha, l_distinct, entropy, pycanon_entropy, recursive_c, pycanon_c,
                             float(class_t.max()), beta, beta_enhanced, delta, class_t)


def _recursive_c(cls: np.ndarray, counts: np.ndarray, size: np.ndarray, l: int) -> tuple[int, int]:
    """c of recursive (c,l)-diversity with the counts of each class sorted descending
    (textbook, ARX, sdcMicro) and ascending (pycanon)."""
    order = np.lexsort((counts, cls))
    cls_s, counts_s, size_s = cls[order], counts[order], size[order]
    starts = np.flatnonzero(np.r_[True, cls_s[1:] != cls_s[:-1]])
    ends = np.r_[starts[1:], len(cls_s)]
    cumulative = np.concatenate(([0], np.cumsum(counts_s)))
    size_c = size_s[starts]
    # descending: r_1 is the last of the class, Σ_{i≥l} r_i = |E| − (the l−1 largest)
    top = cumulative[ends] - cumulative[ends - (l - 1)]
    r1 = counts_s[ends - 1]
    c = int((r1 // (size_c - top) + 1).max())
    # ascending (pycanon): r_ec[0] is the smallest, Σ r_ec[l−1:] = |E| − (the l−1 smallest)
    bottom = cumulative[starts + (l - 1)] - cumulative[starts]
    c_pycanon = int(np.floor(counts_s[starts] / (size_c - bottom) + 1).max())
    return c, c_pycanon


def _pycanon_entropy(cls: np.ndarray, val: np.ndarray, q: np.ndarray, rank: np.ndarray,
                     entropy_by_class: np.ndarray) -> float:
    """The smallest class entropy as pycanon sums it, so that ``int(e ** H)`` falls on the
    same side of an integer as pycanon's: each class's terms q·ln q in sorted value order,
    added by ``np.sum`` (numpy's pairwise summation, which differs from adding one term after
    the other from 9 terms on: 24 equally frequent values give 23.999… there, 24.000… here).
    Only classes within rounding of the minimum are summed again; classes with the same
    number of values are summed together, ``np.sum(axis=1)`` adding each row as ``np.sum`` does."""
    smallest = entropy_by_class.min()
    near = np.flatnonzero(entropy_by_class <= smallest + 1e-9)
    keep = np.isin(cls, near)
    c, v, qq = cls[keep], rank[val[keep]], q[keep]
    if not len(c):
        return float(smallest)
    order = np.lexsort((v, c))
    c, qq = c[order], qq[order]
    terms = qq * np.log(qq)
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    lengths = np.diff(np.r_[starts, len(c)])
    largest = -np.inf
    for length in np.unique(lengths):
        rows = starts[lengths == length]
        largest = max(largest, float(np.sum(terms[rows[:, None] + np.arange(length)], axis=1).max()))
    return -largest


def _value_ranks(values: Codes) -> np.ndarray:
    try:
        order = np.argsort(values.uniques, kind="stable")
    except TypeError:  # mixed types: order by text
        order = np.argsort(values.uniques.astype(str), kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def xy_anonymity(classes: EquivalenceClasses, identifiers: list[Codes]) -> int:
    """min_E #distinct identifier tuples (Y) in E."""
    y, n_y = group_ids(identifiers, classes.n)
    pairs, n_pairs = group_ids([(classes.ids, classes.count), (y, n_y)], classes.n)
    class_of_pair = np.empty(n_pairs, dtype=np.int64)
    class_of_pair[pairs] = classes.ids
    return int(np.bincount(class_of_pair, minlength=classes.count).min())


def privacy_models(classes: EquivalenceClasses, sa: dict[str, Codes], continuous: set[str] | frozenset[str],
                   identifiers: list[Codes] | None = None, progress=None) -> PrivacyModels:
    """Every model of §2 (``sa``: name → codes restricted to the rows in scope)."""
    k = int(classes.sizes.min())
    sizes = class_size_statistics(classes)
    xy = xy_anonymity(classes, identifiers) if identifiers else None
    if not sa:
        return PrivacyModels(k, sizes, None, None, None, None, None, {}, None, None, None, xy, None, None, {})
    pairs = {name: class_value_counts(classes.ids, classes.count, codes) for name, codes in sa.items()}
    l_table = min(int(np.bincount(p[0], minlength=classes.count).min()) for p in pairs.values())
    by_attribute = {}
    for i, (name, codes) in enumerate(sa.items()):
        by_attribute[name] = sensitive_measures(classes, codes, name in continuous, l_table, pairs[name])
        if progress is not None:
            progress((i + 1) / len(sa))
    return combine_models(k, sizes, by_attribute, l_table, xy)


def combine_models(k: int, sizes: ClassSizes, by_attribute: dict[str, SensitiveMeasures], l_table: int,
                   xy: int | None) -> PrivacyModels:
    """The table's models from each sensitive attribute's (the worst over them)."""
    measures = list(by_attribute.values())
    entropy = min(m.entropy for m in measures)
    pycanon_entropy = min(m.pycanon_entropy for m in measures)
    recursive = None if l_table <= 1 else max(m.recursive_c for m in measures)
    pycanon_c = None if l_table <= 1 else max(m.pycanon_c for m in measures)
    return PrivacyModels(
        k=k, class_sizes=sizes,
        alpha=max(m.alpha for m in measures),
        l_distinct=l_table,
        l_entropy=math.exp(entropy),
        recursive_c=recursive,
        t=max(m.t for m in measures),
        t_by_attribute={name: m.t for name, m in by_attribute.items()},
        beta_basic=max(m.beta for m in measures),
        beta_enhanced=max(m.beta_enhanced for m in measures),
        delta=max(m.delta for m in measures),
        xy_anonymity=xy,
        pycanon_entropy_l=int(np.exp(1) ** pycanon_entropy),
        pycanon_recursive_c=pycanon_c,
        by_attribute=by_attribute,
    )

