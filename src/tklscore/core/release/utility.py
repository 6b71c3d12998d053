"""Utility of a release (privacy-models.md §5, ARX's names).

- precision: 1 − mean over QI cells of h_j / height_j (a suppressed row's cells and a
  removed QI count as full height); per attribute as well;
- discernibility: Σ_E |E|² + suppressed rows × n (n: the rows before suppression);
- average class size: (published rows / #classes) / k, k the release's smallest class;
- non-uniform entropy: Σ over QI cells of −log2(count of the source value / count of its
  published group) over the n rows (a suppressed cell's group holds all n rows: it counts
  as generalised to ``*``); per attribute as well;
- ARX's non-uniform entropy (``MetricMDNUNMEntropy``, its default factors): every cell
  counts as generalised to its level, Σ c_v·log2(G/c_v), and the suppressed cells add
  Σ_g s_g·log2(S/s_g) (S suppressed rows, s_g of them in published group g) — 1–3 % apart
  from ours on Adult with suppression, equal without;
- suppressed share: suppressed rows / n.

ARX reports *loss* under the name precision (Sweeney's Prec, mean of h/height): that is
our ``loss`` (utility loss), 1 − precision.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Utility:
    precision: float
    discernibility: float
    average_class_size: float
    non_uniform_entropy: float
    suppressed_share: float
    per_attribute: dict[str, dict[str, float]] = field(default_factory=dict)
    non_uniform_entropy_arx: float = 0.0

    @property
    def loss(self) -> float:
        """Utility loss used to rank releases: 1 − precision (0 = nothing generalised)."""
        return 1.0 - self.precision

    def as_dict(self) -> dict:
        return {"precision": self.precision, "discernibility": self.discernibility,
                "average_class_size": self.average_class_size, "non_uniform_entropy": self.non_uniform_entropy,
                "non_uniform_entropy_arx": self.non_uniform_entropy_arx, "suppressed_share": self.suppressed_share}


def attribute_precision(level: int, height: int, suppressed: int, n: int) -> float:
    """1 − mean over the column's n cells of h / height (a suppressed cell: 1)."""
    if n == 0:
        return 1.0
    ratio = (level / height) if height else (1.0 if level else 0.0)
    return 1.0 - (suppressed + (n - suppressed) * ratio) / n


@dataclass(frozen=True)
class ValueCounts:
    """One QI for the utility, by its distinct values: how many of the n rows hold each
    value (``counts``), how many of those are suppressed (``suppressed``), each value's
    group at the published level (``group_of_value``), and the level and height."""

    name: str
    counts: np.ndarray
    suppressed: np.ndarray
    group_of_value: np.ndarray
    level: int
    height: int


def value_counts(name: str, values: np.ndarray, groups: np.ndarray, suppressed_mask: np.ndarray, level: int,
                 height: int) -> ValueCounts:
    """:class:`ValueCounts` from the value codes and group codes of the n rows."""
    counts = np.bincount(values)
    group_of_value = np.zeros(len(counts), dtype=np.int64)
    group_of_value[values] = groups
    return ValueCounts(name, counts, np.bincount(values[suppressed_mask], minlength=len(counts)), group_of_value,
                       level, height)


def utility(qi: list[tuple[str, np.ndarray, np.ndarray, int, int]], published_classes: np.ndarray,
            suppressed_mask: np.ndarray) -> Utility:
    """``qi``: for each QI (name, source value codes of the n selected rows, their group codes
    at the published level, level h, height); ``published_classes``: class ids of the
    published rows; ``suppressed_mask``: which of the n selected rows are suppressed."""
    return utility_of_values([value_counts(name, values, groups, suppressed_mask, level, height)
                              for name, values, groups, level, height in qi],
                             len(suppressed_mask), int(suppressed_mask.sum()), published_classes)


def utility_of_values(qi: list[ValueCounts], n: int, suppressed: int, published_classes: np.ndarray | None,
                      class_sizes: np.ndarray | None = None) -> Utility:
    """The utility from each QI's :class:`ValueCounts` (n rows, ``suppressed`` of them
    suppressed) and the published rows' classes (or their sizes, ``class_sizes``). A value v
    held c_v times, s_v of them suppressed, in a group of G rows adds
    (c_v − s_v)·log2(G / c_v) + s_v·log2(n / c_v) to the non-uniform entropy."""
    published = n - suppressed
    per: dict[str, dict[str, float]] = {}
    precisions, entropy_total, arx_total = [], 0.0, 0.0
    for q in qi:
        precision = attribute_precision(q.level, q.height, suppressed, n)
        entropy = arx = 0.0
        held = np.flatnonzero(q.counts)
        if n and len(held):
            c, s = q.counts[held].astype(np.float64), q.suppressed[held].astype(np.float64)
            group = q.group_of_value[held]
            group_size = np.bincount(group, weights=c)[group]
            entropy = float(((c - s) * np.log2(group_size / c) + s * np.log2(n / c)).sum())
            arx = float((c * np.log2(group_size / c)).sum())
            if suppressed:
                in_group = np.bincount(group, weights=s)
                in_group = in_group[in_group > 0]
                arx += float((in_group * np.log2(suppressed / in_group)).sum())
        per[q.name] = {"precision": precision, "non_uniform_entropy": entropy, "non_uniform_entropy_arx": arx}
        precisions.append(precision)
        entropy_total += entropy
        arx_total += arx
    if published:
        sizes = np.bincount(published_classes) if class_sizes is None else np.asarray(class_sizes)
        sizes = sizes[sizes > 0]
        discernibility = float((sizes.astype(np.float64) ** 2).sum()) + suppressed * float(n)
        average = (published / len(sizes)) / int(sizes.min())
    else:
        discernibility, average = suppressed * float(n), 0.0
    return Utility(float(np.mean(precisions)) if precisions else 1.0, discernibility, float(average),
                   entropy_total, suppressed / n if n else 0.0, per, arx_total)


# key → (name, what it means), in the order a reader takes them in
UTILITY_MEANINGS = {
    "precision": ("precision", "the share of the quasi-identifiers' detail kept: 1 − the mean over their cells of "
                               "level ÷ hierarchy height (a suppressed cell counts as fully generalised); 1 = as in "
                               "the source. ARX reports 1 − this as its \"precision\" (a loss): our utility loss"),
    "discernibility": ("discernibility", "Σ over classes of |class|², each suppressed record counting the whole "
                                         "table: how hard records are to tell apart; lower keeps more detail"),
    "average_class_size": ("average class size ÷ k", "records per class divided by the smallest class: 1 = no "
                                                     "larger than k needs"),
    "non_uniform_entropy": ("non-uniform entropy (bits)", "bits of the quasi-identifiers' values lost, summed over "
                                                          "their cells; a suppressed cell counts as generalised to * "
                                                          "(the variant the designer ranks by)"),
    "non_uniform_entropy_arx": ("ARX's non-uniform entropy (bits)",
                                "as ARX's MetricMDNUNMEntropy counts it: a suppressed cell loses the bits of its "
                                "generalisation and of telling the suppressed records apart"),
    "suppressed_share": ("suppressed share", "the share of the records not published (suppressed)"),
}
UTILITY_LOSS_MEANING = ("utility loss = 1 − precision: 0 = nothing generalised, 1 = every quasi-identifier "
                        "generalised to * (what ARX calls precision)")


def utility_rows(utility: Utility) -> list[tuple[str, str, str]]:
    """The utility as (name, shown value, meaning) for a table or a printout."""
    from tklscore.core.numbers import number, percent

    values = utility.as_dict()
    shown = {"precision": number(values["precision"]), "discernibility": number(values["discernibility"], 6),
             "average_class_size": number(values["average_class_size"]),
             "non_uniform_entropy": number(values["non_uniform_entropy"], 6),
             "non_uniform_entropy_arx": number(values["non_uniform_entropy_arx"], 6),
             "suppressed_share": percent(values["suppressed_share"])}
    return [(name, shown[key], meaning) for key, (name, meaning) in UTILITY_MEANINGS.items()]
