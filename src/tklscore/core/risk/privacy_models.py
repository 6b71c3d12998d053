"""Privacy models of a table (spec privacy-models.md §2).

Every model is computed from the equivalence classes and, per sensitive attribute s, the
distinct (class, value) pairs with their counts — one group-by of the shared engine per
SA (:mod:`.aggregates`); :mod:`.registry` applies the formulas below. With p(v) the share of value v of s in the table and q_E(v) its share in class E:

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

    @property
    def recursive_l(self) -> int | None:
        return self.l_distinct


def class_size_statistics(sizes: np.ndarray) -> ClassSizes:
    """Count, smallest, largest, mean and median of the class sizes."""
    if len(sizes) == 0:
        return ClassSizes(0, 0, 0, 0.0, 0.0)
    return ClassSizes(int(len(sizes)), int(sizes.min()), int(sizes.max()), float(sizes.mean()),
                      float(np.median(sizes)))


# ---------------------------------------------------------------------- per sensitive attribute
# each from what a group-by engine hands over: the distinct (class, value code, count)
# ``pairs``, the class ``sizes``, the table's count of each value code and the ``n`` records


@dataclass(frozen=True)
class PairFigures:
    """What one sensitive attribute's (class, value) pairs give, read in one pass: α, distinct
    l, the smallest class entropy (ours and pycanon's sum), basic and enhanced β, δ."""

    alpha: float
    l_distinct: int
    entropies: tuple[float, float]
    beta: tuple[float, float]
    delta: float


def class_range(cls: np.ndarray) -> tuple[int, int]:
    """The classes ``lo … hi−1`` a batch of pairs holds (every one of them: class ids are
    dense and a batch holds whole classes)."""
    return int(cls.min()), int(cls.max()) + 1


def pair_figures(batches, sizes: np.ndarray, table_counts: np.ndarray, rank: np.ndarray, n: int) -> PairFigures:
    """:class:`PairFigures` from ``batches`` of pairs (``(class, value code, count)`` arrays),
    each holding every pair of its classes (an engine streams them; in memory, one batch), so
    that no more than a batch is held: per batch a maximum or minimum, or each class's value,
    which its batch alone decides (``rank``: each value code's rank in sorted value order)."""
    alpha, l, beta, delta = -math.inf, None, -math.inf, -math.inf
    entropy_by_class = np.zeros(len(sizes))
    near: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []   # pairs of classes near the least entropy
    smallest = math.inf
    for cls, val, counts in batches:
        if not len(cls):
            continue
        lo, hi = class_range(cls)
        size = sizes[cls].astype(np.float64)
        q = counts / sizes[cls]
        alpha = max(alpha, float(q.max()))
        distinct = int(np.bincount(cls - lo, minlength=hi - lo).min())
        l = distinct if l is None else min(l, distinct)
        entropy_by_class[lo:hi] = np.bincount(cls - lo, weights=-q * np.log(q), minlength=hi - lo)
        smallest = min(smallest, float(entropy_by_class[lo:hi].min()))
        near = [_near(part, entropy_by_class, smallest) for part in near + [(cls, val, q)]]
        total = table_counts[val]
        # (q − p)/p = (c·n − C·|E|) / (C·|E|), on integers until the division
        beta = max(beta, float(((counts * float(n) - total * size) / (total * size)).max()))
        delta = max(delta, float(np.abs(np.log((counts * float(n)) / (total * size))).max()))
    cls, val, q = (np.concatenate([part[j] for part in near]) for j in range(3))
    entropy = max(float(entropy_by_class.min()), 0.0), _pycanon_entropy(cls, val, q, rank, entropy_by_class)
    return PairFigures(alpha, int(l), entropy, (beta, min(beta, -math.log(table_counts[table_counts > 0].min() / n))),
                       delta)


def _near(pairs, entropy_by_class: np.ndarray, smallest: float):
    """The pairs of the classes whose entropy is within rounding of ``smallest`` (a superset
    of those :func:`_pycanon_entropy` sums again, since the least entropy can only fall)."""
    keep = entropy_by_class[pairs[0]] <= smallest + 1e-9
    return tuple(a[keep] for a in pairs)


def recursive_c(batches, sizes: np.ndarray, l: int) -> tuple[int, int]:
    """c of recursive (c,l)-diversity (textbook, ARX, sdcMicro), and pycanon's reading, over
    ``batches`` of pairs as :func:`pair_figures` reads them."""
    c, c_pycanon = None, None
    for cls, _, counts in batches:
        if len(cls):
            got = _recursive_c(cls, counts, sizes[cls], l)
            c, c_pycanon = (got if c is None else (max(c, got[0]), max(c_pycanon, got[1])))
    return c, c_pycanon


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

