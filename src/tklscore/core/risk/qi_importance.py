"""Quasi-identifier importance (ARX ``RiskModelAttributes``).

For every non-empty subset A of the QIs: α-distinction = #distinct A-tuples / n and
α-separation = share of unordered row pairs that differ on A
= 1 − Σ_G C(|G|, 2) / C(n, 2) over the groups G of A. The subsets are visited as a tree
(each extends its parent by one QI), so each costs one pass of the group-by engine over
the group ids of its parent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tklscore.core.errors import check_limit
from tklscore.core.tables.codes import Codes, group_ids

MAX_QUASI_IDENTIFIERS = 16
MAX_SUBSETS = 2 ** MAX_QUASI_IDENTIFIERS - 1  # 65,535


@dataclass(frozen=True)
class QiImportance:
    attributes: tuple[str, ...]
    distinction: float
    separation: float

    def to_json_dict(self) -> dict:
        return {"attributes": list(self.attributes), "distinction": self.distinction,
                "separation": self.separation}

    @classmethod
    def of_counts(cls, attributes: tuple[str, ...], groups: int, same: int, n: int) -> "QiImportance":
        """From a subset's number of groups and Σ_G |G|(|G|−1) over its ``n`` records (every engine).
        A release of no records distinguishes nobody: its distinction is unknown (NaN, said n/a)."""
        pairs_total = n * (n - 1) / 2.0
        separation = 1.0 - (same / 2.0) / pairs_total if pairs_total else 0.0
        return cls(tuple(attributes), groups / n if n else float("nan"), separation)


def check_size(names: list[str]) -> None:
    check_limit(2 ** len(names) - 1, MAX_SUBSETS, what=f"QI importance over {len(names)} quasi-identifiers",
                unit="subsets", hint=f"choose at most {MAX_QUASI_IDENTIFIERS} quasi-identifiers for this analysis")


def qi_importance(qi: dict[str, Codes], n: int, progress=None) -> list[QiImportance]:
    """Distinction and separation of every non-empty subset of ``qi`` (name → codes), by
    subset size, then in QI order."""
    check_size(list(qi))
    return [QiImportance.of_counts(names, groups, same, n) for names, groups, same in subset_counts(qi, n, progress)]


def subset_counts(qi: dict[str, Codes], n: int, progress=None) -> list[tuple[tuple[str, ...], int, int]]:
    """For every non-empty subset A of ``qi`` (by subset size, then in QI order): its names,
    the number of distinct A-tuples and Σ_G |G|(|G|−1) over its groups G. The subsets are
    visited as a tree (each extends its parent by one QI), so each costs one pass of the
    group-by engine over the group ids of its parent."""
    names = list(qi)
    total = 2 ** len(names) - 1
    out: list[tuple[tuple[int, ...], int, int]] = []
    root = (np.zeros(n, dtype=np.int64), 1)

    def visit(subset: tuple[int, ...], ids: tuple[np.ndarray, int]) -> None:
        for j in range(subset[-1] + 1 if subset else 0, len(names)):
            child_ids, count = group_ids([ids, qi[names[j]]], n)
            sizes = np.bincount(child_ids, minlength=count)
            out.append((subset + (j,), count, int((sizes * (sizes - 1)).sum())))
            if progress is not None:
                progress(len(out) / total)
            visit(subset + (j,), (child_ids, count))

    visit((), root)
    out.sort(key=lambda r: (len(r[0]), r[0]))
    return [(tuple(names[i] for i in subset), groups, same) for subset, groups, same in out]
