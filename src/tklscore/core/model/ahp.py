"""The Analytic Hierarchy Process (AHP): priorities from pairwise comparisons (spec
data-model.md §4; thesis Appendix A.1, after Saaty).

A *reciprocal matrix* ``A`` holds an expert's judgements on the Saaty scale:
``a_ij`` says how much more important criterion i is than criterion j, ``a_ji = 1/a_ij``
and ``a_ii = 1``. The *priority vector* is the principal right eigenvector of ``A``
scaled to sum 1 (or, with ``method="geometric"``, the normalised geometric means of the
rows). Consistency: ``CI = (λ_max − n)/(n − 1)`` and ``CR = CI / RI(n)`` with a random
index table; a CR up to 0.10 is acceptable (0.15 for one person's judgements, 0.20 for a
group's averaged judgements, thesis A.1.3). Matrices of size n ≤ 2 are always consistent.

Missing judgements (NaN, in both a_ij and a_ji) are completed with Harker's method, as
long as the judgements given still connect every criterion to every other.

Example (thesis Table 4.1)::

    >>> r = ahp([[1, 2, 3], [1/2, 1, 2], [1/3, 1/2, 1]])
    >>> [round(p, 4) for p in r.priorities], round(r.cr, 4)
    ([0.5396, 0.297, 0.1634], 0.0088)
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

from tklscore.core.errors import InputError, shorten

__all__ = [
    "RANDOM_INDEX",
    "SAATY_SCALE",
    "AHPResult",
    "Judgement",
    "JudgementError",
    "aggregate_judgements",
    "ahp",
    "check_judgement",
    "check_matrix",
    "group_ahp",
    "harker_complete",
    "hierarchical_synthesis",
    "parse_judgement",
    "random_index",
    "reciprocal_matrix",
    "snap_to_scale",
    "with_judgement",
    "ACCEPTABLE_CR",
    "GROUP_CR",
    "ONE_PERSON_CR",
    "ConsistencyVerdict",
    "consistency_verdict",
]

ACCEPTABLE_CR = 0.10
"""CR up to this is acceptable (Saaty; thesis A.1.3)."""
ONE_PERSON_CR = 0.15
"""One person's judgements: borderline up to this, inconsistent above."""
GROUP_CR = 0.20
"""A group's combined judgements: borderline up to this, inconsistent above."""

#: The Saaty rating scale (thesis Table A.2); reciprocals 1/2 .. 1/9 compare the other way.
SAATY_SCALE: dict[int, str] = {
    1: "equal importance",
    2: "equal to weak/moderate importance (intermediate)",
    3: "weak/moderate importance",
    4: "weak/moderate to essential/strong importance (intermediate)",
    5: "essential/strong importance",
    6: "essential/strong to very strong importance (intermediate)",
    7: "very strong importance",
    8: "very strong to extreme importance (intermediate)",
    9: "extreme importance",
}

_SCALE_VALUES = np.array([1 / k for k in range(9, 1, -1)] + [float(k) for k in range(1, 10)])
_SCALE_LOGS = np.log(_SCALE_VALUES)

#: Random index RI(n) for n = 1, 2, ... (CR = CI / RI(n)).
#: - "thesis": thesis Table A.3 (after Saaty & Vargas 2012), the project default.
#: - "saaty1980": Saaty's 1980 table (The Analytic Hierarchy Process, McGraw-Hill).
#: - "donegan-dodd": Donegan & Dodd, "A note on Saaty's random indexes", Mathematical and
#:   Computer Modelling 15(10), 1991, pp. 135-137, for n = 1..20 — as tabulated (to 4 d.p.)
#:   by the AHPy library (PhilipGriffith/AHPy, ``_compute_consistency_ratio``), which cites
#:   that paper; not checked against the paper itself.
RANDOM_INDEX: dict[str, tuple[float, ...]] = {
    "thesis": (0.0, 0.0, 0.52, 0.89, 1.11, 1.25, 1.35, 1.40, 1.45, 1.49),
    "saaty1980": (0.0, 0.0, 0.58, 0.90, 1.12, 1.24, 1.32, 1.41, 1.45, 1.49),
    "donegan-dodd": (0.0, 0.0, 0.4914, 0.8286, 1.0591, 1.1797, 1.2519, 1.3171, 1.3733, 1.4055,
                     1.4213, 1.4497, 1.4643, 1.4822, 1.4969, 1.5078, 1.5153, 1.5262, 1.5313, 1.5371),
}

_RECIPROCAL_RTOL = 1e-6
_CONSISTENT_TOL = 1e-9


class JudgementError(InputError):
    """A bad cell of a judgement matrix; ``cell`` is its 0-based (row, column) so that a
    caller reading a file can point at the file's row and column."""

    def __init__(self, message: str, cell: tuple[int, int], *, file: str | None = None,
                 hint: str | None = None):
        self.cell = cell
        super().__init__(message, file=file, hint=hint)


@dataclass(frozen=True)
class Judgement:
    """One judgement ``a[row, column]`` (0-based, row < column) and the Saaty-scale value
    that would agree best with the priorities, ``snap_to_scale(w_row / w_column)``."""

    row: int
    column: int
    value: float
    suggested: float

    @property
    def has_better_value(self) -> bool:
        """Whether the suggestion differs from the judgement given (else the scale has no
        value closer to the priorities, and there is nothing to suggest)."""
        return not math.isclose(self.suggested, self.value, rel_tol=1e-9)


@dataclass(frozen=True)
class AHPResult:
    priorities: np.ndarray          # positive, sums to 1
    lambda_max: float
    ci: float
    cr: float
    random_index: float             # RI(n) used for CR (0 for n ≤ 2)
    completed_matrix: np.ndarray    # the input with missing judgements filled (Harker)
    most_inconsistent: Judgement | None
    method: str = "eigenvector"
    ri_table: str = "thesis"
    criteria: tuple[str, ...] | None = None

    @property
    def n(self) -> int:
        return len(self.priorities)

    def acceptable(self, threshold: float = ACCEPTABLE_CR) -> bool:
        """CR ≤ threshold (0.10; 0.15 for one person, 0.20 for a group, thesis A.1.3)."""
        return bool(self.cr <= threshold)

    def verdict(self, group: bool = False) -> "ConsistencyVerdict":
        """:func:`consistency_verdict` of this result (``group``: several experts combined)."""
        return consistency_verdict(self.cr, self.n, group)

    def as_dict(self) -> dict[str, float]:
        """Criterion name (or index) → priority."""
        names = self.criteria or tuple(range(self.n))
        return {name: float(p) for name, p in zip(names, self.priorities)}


@dataclass(frozen=True)
class ConsistencyVerdict:
    """The verdict on a consistency ratio: ``level`` is ``consistent`` (n ≤ 2),
    ``acceptable``, ``borderline`` or ``inconsistent``; ``threshold`` is the limit the CR was
    held against; ``sentence`` says it in one sentence with the CR."""

    level: str
    threshold: float
    sentence: str

    @property
    def acceptable(self) -> bool:
        return self.level in ("consistent", "acceptable")


def consistency_verdict(cr: float, n: int | None = None, group: bool = False) -> ConsistencyVerdict:
    """The verdict on ``cr`` for ``n`` criteria, for one person's judgements or (``group``)
    several experts' combined ones: acceptable up to 0.10, borderline up to 0.15 (one
    person) or 0.20 (a group), inconsistent above (thesis A.1.3)."""
    if n is not None and n <= 2:
        return ConsistencyVerdict("consistent", ACCEPTABLE_CR, "consistent (two criteria are always consistent)")
    if cr <= ACCEPTABLE_CR:
        return ConsistencyVerdict("acceptable", ACCEPTABLE_CR, f"acceptable (CR {cr:.4f} ≤ {ACCEPTABLE_CR:.2f})")
    limit = GROUP_CR if group else ONE_PERSON_CR
    who = "a group of experts' combined judgements" if group else "one person's judgements"
    if cr <= limit:
        return ConsistencyVerdict("borderline", limit, f"borderline (CR {cr:.4f} ≤ {limit:.2f}, acceptable for "
                                                       f"{who} only); consider revising")
    return ConsistencyVerdict("inconsistent", limit, f"inconsistent (CR {cr:.4f} > {limit:.2f} for {who}): "
                                                     f"revise the judgements")


# --------------------------------------------------------------------------- judgements

def snap_to_scale(value: float) -> float:
    """The nearest value of the Saaty scale 1/9, 1/8, ..., 1/2, 1, 2, ..., 9, nearest in
    log space (so 1/3 and 3 are equally far from 1)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{value!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"{value!r} is not a positive number; only positive ratios lie on the Saaty scale")
    return float(_SCALE_VALUES[int(np.argmin(np.abs(_SCALE_LOGS - math.log(value))))])


_FRACTION = re.compile(r"^\s*([^/]+?)\s*/\s*([^/]+?)\s*$")
_EMPTY = {"", "-", "–", "—"}
SCALE_LOW, SCALE_HIGH = 0.109, 9.0  # 1/9 (0.11 as written to two places) to 9


def parse_judgement(text, on_scale: bool = False) -> float | None:
    """A judgement written as a number (``3``, ``0.5``) or a fraction (``1/3``); empty
    (or a dash) → ``None``, a missing judgement. Anything else, zero or a negative number
    raises :class:`InputError`; so does, with ``on_scale`` (a person's judgement read from
    a file), a value outside Saaty's scale 1/9 … 9."""
    if text is None:
        return None
    if isinstance(text, (int, float, np.number)) and not isinstance(text, bool):
        value = float(text)
        if math.isnan(value):
            return None
        shown = repr(text)
    else:
        shown = str(text).strip()
        if shown in _EMPTY:
            return None
        match = _FRACTION.match(shown)
        try:
            if match:
                denominator = float(match.group(2))
                value = float(match.group(1)) / denominator if denominator else math.inf
            else:
                value = float(shown)
        except ValueError:
            raise InputError(f"'{shorten(shown)}' is not a judgement",
                             hint="write a number such as 3 or 0.5, a fraction such as 1/3, "
                                  "or leave the cell empty") from None
    return check_judgement(value, shown=shown, on_scale=on_scale)


def check_judgement(value, where: str | None = None, *, shown: str | None = None, on_scale: bool = True) -> float:
    """A person's judgement, however it arrives — a matrix file (``tklscore ahp``), a
    tkl-Data Model or M-Score model file, a project, the AHP view's slider, the API — as a
    float: a finite positive number on Saaty's scale 1/9 … 9 (``on_scale=False``: any
    positive finite ratio, for matrices the library computes). ``where`` names what it
    judges in the message (``'A' over 'B'``); ``shown``: the value as written."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        try:
            value = float(str(value).strip())
        except ValueError:
            raise InputError(f"judgement '{shorten(value)}'{_of(where)} is not a number",
                             hint="a judgement is a ratio such as 3 or 1/3") from None
    value = float(value)
    shown = shown if shown is not None else f"{value:g}"
    if not math.isfinite(value):
        raise InputError(f"judgement '{shorten(shown)}'{_of(where)} is not a finite number",
                         hint="a judgement is a ratio such as 3 or 1/3")
    if value <= 0:
        raise InputError(f"judgement '{shorten(shown)}'{_of(where)} is not positive",
                         hint="judgements are ratios > 0: 1 (equal) to 9, or 1/2 to 1/9 the other way")
    if on_scale and not SCALE_LOW <= value <= SCALE_HIGH:
        raise InputError(f"judgement '{shorten(shown)}'{_of(where)} is outside Saaty's scale (1/9 to 9)",
                         hint="1 (equal), 3 (weak), 5 (strong), 7 (very strong), 9 (extreme), or 1/3 … 1/9 "
                              "the other way")
    return value


def _of(where: str | None) -> str:
    return f" of {where}" if where else ""


def reciprocal_matrix(n: int, judgements: Mapping[tuple[int, int], float | None]) -> np.ndarray:
    """The n×n reciprocal matrix of ``judgements`` {(i, j): a_ij} (usually i < j; a pair
    given as (j, i) is stored as its reciprocal). Unjudged cells are NaN, the diagonal 1."""
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise InputError(f"the number of criteria must be a positive integer, not {n!r}")
    matrix = np.full((n, n), np.nan)
    np.fill_diagonal(matrix, 1.0)
    given: dict[tuple[int, int], float] = {}
    for key, raw in judgements.items():
        try:
            i, j = (int(k) for k in key)
        except (TypeError, ValueError):
            raise InputError(f"judgement key {key!r} is not a pair of criterion indices (i, j)") from None
        if not (0 <= i < n and 0 <= j < n):
            raise InputError(f"judgement ({i}, {j}) is outside a {n}×{n} matrix (indices are 0..{n - 1})")
        value = parse_judgement(raw)
        if value is None:
            continue
        if i == j:
            if value != 1.0:
                raise InputError(f"judgement ({i}, {i}) compares a criterion with itself and must be 1, "
                                 f"not {value:g}")
            continue
        a, b, v = (i, j, value) if i < j else (j, i, 1.0 / value)
        if (a, b) in given and not math.isclose(given[(a, b)], v, rel_tol=_RECIPROCAL_RTOL):
            raise InputError(f"criteria {a} and {b} are judged twice, inconsistently "
                             f"({given[(a, b)]:g} and {v:g} for a[{a},{b}])")
        given[(a, b)] = v
        matrix[a, b], matrix[b, a] = v, 1.0 / v
    return matrix


def with_judgement(matrix, i: int, j: int, value: float | None) -> np.ndarray:
    """A copy of the judgement matrix with ``a_ij = value`` and its reciprocal ``a_ji = 1/value``
    (``None``: both not judged) — a judgement previewed while a slider moves, before it is kept."""
    a = np.array(matrix, dtype=np.float64)
    if i == j:
        raise InputError("a criterion is not compared with itself")
    if value is None:
        a[i, j] = a[j, i] = np.nan
    else:
        value = check_judgement(value)
        a[i, j], a[j, i] = value, 1.0 / value
    return a


def _name(criteria, k: int) -> str:
    return repr(criteria[k]) if criteria is not None else str(k)


def check_matrix(matrix, criteria: Sequence[str] | None = None, name: str | None = None) -> np.ndarray:
    """Check a judgement matrix and return it as a float array: square, diagonal 1,
    positive, reciprocal (a_ij · a_ji = 1 within 1e-6 relative); NaN marks a missing
    judgement and must be in both a_ij and a_ji. The first bad cell is named by its
    criteria (or indices); a :class:`JudgementError` carries it as ``cell``."""
    try:
        a = np.array(matrix, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("the judgement matrix holds something that is not a number", file=name) from None
    if a.ndim >= 1 and a.size == 0:
        raise InputError("the judgement matrix is empty (no criteria)", file=name)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise InputError(f"the judgement matrix must be square; it is {'×'.join(map(str, a.shape)) or 'a scalar'}",
                         file=name)
    n = a.shape[0]
    if n == 0:
        raise InputError("the judgement matrix is empty (no criteria)", file=name)
    if criteria is not None:
        criteria = list(criteria)
        if len(criteria) != n:
            raise InputError(f"{len(criteria)} criteria names for a {n}×{n} matrix", file=name)
        if len(set(criteria)) != n:
            seen = sorted({c for c in criteria if criteria.count(c) > 1})
            raise InputError(f"criteria names repeat: {', '.join(map(repr, seen))}", file=name)

    def cell(i: int, j: int) -> str:
        return f"a[{_name(criteria, i)}, {_name(criteria, j)}]"

    def fail(i: int, j: int, message: str, hint: str | None = None):
        raise JudgementError(message, (i, j), file=name, hint=hint)

    for i in range(n):
        if a[i, i] != 1.0:
            shown = "empty" if np.isnan(a[i, i]) else f"{a[i, i]:g}"
            fail(i, i, f"{cell(i, i)} is {shown}; the diagonal must be 1 (a criterion is as important as itself)")
    bad = ~np.isnan(a) & ~(np.isfinite(a) & (a > 0))
    if bad.any():
        i, j = map(int, np.argwhere(bad)[0])
        fail(i, j, f"{cell(i, j)} is {a[i, j]:g}; judgements must be positive finite ratios",
             "1 (equal) to 9, or 1/2 to 1/9 the other way")
    missing = np.isnan(a)
    lonely = missing != missing.T
    if lonely.any():
        i, j = map(int, np.argwhere(lonely)[0])
        (mi, mj), (pi, pj) = ((i, j), (j, i)) if missing[i, j] else ((j, i), (i, j))
        fail(mi, mj, f"{cell(mi, mj)} is missing but {cell(pi, pj)} = {a[pi, pj]:g}; a missing judgement must "
                     f"be missing in both cells", f"set {cell(mi, mj)} to {_fraction(1 / a[pi, pj])} or empty both")
    with np.errstate(invalid="ignore"):
        product = a * a.T
    off = ~missing & ~np.isclose(product, 1.0, rtol=_RECIPROCAL_RTOL, atol=0.0)
    if off.any():
        i, j = map(int, np.argwhere(np.triu(off, 1))[0])
        fail(j, i, f"{cell(i, j)} = {a[i, j]:g} but {cell(j, i)} = {a[j, i]:g}; the matrix must be reciprocal "
                   f"(a[j, i] = 1/a[i, j])",
             f"set {cell(j, i)} to {_fraction(1 / a[i, j])}; write fractions such as 1/3 rather than 0.33")
    return a


def _fraction(value: float) -> str:
    """``1/3`` for 0.333..., ``3`` for 3.0, else ``%g``."""
    if value >= 1 and float(value).is_integer():
        return f"{value:g}"
    inverse = 1 / value
    if abs(inverse - round(inverse)) < 1e-9:
        return f"1/{round(inverse)}"
    return f"{value:g}"


# --------------------------------------------------------------------------- computation

def _principal(matrix: np.ndarray) -> tuple[float, np.ndarray]:
    """λ_max and the principal right eigenvector (positive, sum 1) of a positive-ish matrix."""
    values, vectors = np.linalg.eig(matrix)
    k = int(np.argmax(values.real))
    w = np.abs(vectors[:, k].real)  # a Perron vector has one sign; eig may return it negated
    return float(values[k].real), w / w.sum()


def _require_connected(missing: np.ndarray, criteria, name) -> None:
    n = missing.shape[0]
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    rows, cols = np.nonzero(np.triu(~missing, 1))
    graph.add_edges_from(zip(rows.tolist(), cols.tolist()))
    if nx.is_connected(graph):
        return
    groups = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: c[0])
    shown = " | ".join("{" + ", ".join(_name(criteria, k).strip("'") for k in g) + "}" for g in groups)
    first, second = groups[0][0], groups[1][0]
    raise InputError(
        f"the judgements given do not connect all criteria, so their priorities cannot be compared: "
        f"{len(groups)} separate groups {shown}", file=name,
        hint=f"add at least one judgement between criteria of different groups, "
             f"e.g. a[{_name(criteria, first)}, {_name(criteria, second)}]")


def harker_complete(matrix, criteria: Sequence[str] | None = None, name: str | None = None) -> np.ndarray:
    """Complete a matrix with missing judgements (NaN) by Harker's method: missing a_ij
    are set to 0 and a_ii to 1 + (number of missing judgements in row i); the principal
    eigenvector w of that matrix gives the missing a_ij = w_i / w_j. The principal
    eigenvector of the completed matrix is then w too. The judgements given must connect
    all criteria (else :class:`InputError`)."""
    a = check_matrix(matrix, criteria, name)
    missing = np.isnan(a)
    if not missing.any():
        return a
    _require_connected(missing, criteria, name)
    h = np.where(missing, 0.0, a)
    h[np.diag_indices_from(h)] = 1.0 + missing.sum(axis=1)
    _, w = _principal(h)
    return np.where(missing, w[:, None] / w[None, :], a)


def random_index(n: int, table: str = "thesis") -> float:
    """RI(n) from one of :data:`RANDOM_INDEX`'s tables."""
    if table not in RANDOM_INDEX:
        raise InputError(f"unknown random index table '{table}'",
                         hint=f"choose one of {', '.join(RANDOM_INDEX)}")
    values = RANDOM_INDEX[table]
    if n > len(values):
        raise InputError(f"the random index table '{table}' stops at n = {len(values)}; it has no RI for "
                         f"n = {n} criteria",
                         hint="split the criteria into smaller groups (AHP works best with up to 7-9), "
                              "or use another table (donegan-dodd goes to 20)")
    return float(values[n - 1])


def ahp(matrix, method: str = "eigenvector", ri: str = "thesis",
        criteria: Sequence[str] | None = None, name: str | None = None) -> AHPResult:
    """Priorities, λ_max, CI, CR and the most inconsistent judgement of a judgement matrix
    (NaN = missing judgement, completed by :func:`harker_complete`).

    ``method``: ``"eigenvector"`` (Saaty; principal right eigenvector by numpy.linalg.eig)
    or ``"geometric"`` (row geometric means; λ_max estimated as mean((A w)_i / w_i)).
    ``ri``: a key of :data:`RANDOM_INDEX`.
    """
    if method not in ("eigenvector", "geometric"):
        raise InputError(f"unknown AHP method '{method}'", hint="choose eigenvector or geometric")
    if ri not in RANDOM_INDEX:
        random_index(1, ri)  # raises the unknown-table error
    a = check_matrix(matrix, criteria, name)
    n = a.shape[0]
    ri_value = random_index(n, ri)
    missing = np.isnan(a)
    completed = harker_complete(a, criteria, name) if missing.any() else a.copy()
    if n == 1:
        w, lam = np.ones(1), 1.0
    elif method == "eigenvector":
        lam, w = _principal(completed)
    else:
        w = np.exp(np.log(completed).mean(axis=1))
        w = w / w.sum()
        lam = float(np.mean((completed @ w) / w))
    if n <= 2:  # every 2×2 reciprocal matrix is consistent: λ_max = n exactly
        lam, ci, cr = float(n), 0.0, 0.0
    else:
        ci = max(0.0, (lam - n) / (n - 1))  # λ_max ≥ n for a positive reciprocal matrix; drop rounding noise
        cr = ci / ri_value
    return AHPResult(priorities=w, lambda_max=float(lam), ci=float(ci), cr=float(cr),
                     random_index=ri_value, completed_matrix=completed,
                     most_inconsistent=_most_inconsistent(completed, w, missing),
                     method=method, ri_table=ri, criteria=tuple(criteria) if criteria is not None else None)


def _most_inconsistent(a: np.ndarray, w: np.ndarray, missing: np.ndarray) -> Judgement | None:
    n = len(w)
    if n <= 2:
        return None
    eps = a * w[None, :] / w[:, None]
    deviation = np.maximum(eps, 1.0 / eps)
    upper = np.triu(~missing, 1)  # judgements given (Harker-filled cells agree with w exactly)
    deviation = np.where(upper, deviation, 1.0)
    largest = float(deviation.max())
    if largest - 1.0 < _CONSISTENT_TOL:
        return None
    # ties (every judgement of a 3×3 matrix deviates equally) go to the first in row order
    i, j = map(int, np.argwhere(deviation >= largest * (1.0 - 1e-9))[0])
    return Judgement(row=i, column=j, value=float(a[i, j]), suggested=snap_to_scale(w[i] / w[j]))


# --------------------------------------------------------------------------- groups, hierarchies

def aggregate_judgements(matrices: Sequence, criteria: Sequence[str] | None = None) -> np.ndarray:
    """Element-wise geometric mean of several experts' matrices (Aczél-Saaty). A cell some
    experts left empty is the geometric mean of those who judged it; NaN only if nobody did."""
    matrices = list(matrices)
    if not matrices:
        raise InputError("no judgement matrices to aggregate")
    checked = [check_matrix(m, criteria, name=f"expert {k + 1}") for k, m in enumerate(matrices)]
    shapes = {m.shape for m in checked}
    if len(shapes) > 1:
        raise InputError(f"the experts' matrices differ in size: {', '.join(f'{m.shape[0]}×{m.shape[1]}' for m in checked)}",
                         hint="every expert must judge the same criteria in the same order")
    logs = np.log(np.stack(checked))
    judged = ~np.isnan(logs)
    counts = judged.sum(axis=0)
    total = np.where(judged, logs, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, np.exp(total / np.maximum(counts, 1)), np.nan)
    np.fill_diagonal(mean, 1.0)
    return mean


def group_ahp(matrices: Sequence, method: str = "eigenvector", ri: str = "thesis",
              criteria: Sequence[str] | None = None) -> tuple[AHPResult, list[AHPResult]]:
    """AHP of the experts' aggregated judgements (geometric mean) and of each expert's own.
    The group's CR may reasonably go up to 0.20 (``result.verdict(group=True)``)."""
    group = ahp(aggregate_judgements(matrices, criteria), method=method, ri=ri, criteria=criteria,
                name="aggregated judgements")
    each = [ahp(m, method=method, ri=ri, criteria=criteria, name=f"expert {k + 1}")
            for k, m in enumerate(matrices)]
    return group, each


def hierarchical_synthesis(tree: Mapping[Hashable, Iterable[Hashable]], local: Mapping[Hashable, float],
                           root: Hashable) -> dict[Hashable, float]:
    """Global weights of the nodes below ``root``: the product of the local priorities on
    the path from the root (the root counts 1). Every node reached needs a local priority;
    a node reached twice (two parents, or a cycle) is an error."""
    weights: dict[Hashable, float] = {root: 1.0}
    queue = deque([root])
    while queue:
        parent = queue.popleft()
        for child in tree.get(parent, ()):
            if child in weights:
                raise InputError(f"node {child!r} is reached twice (below {parent!r}); the hierarchy must be a "
                                 f"tree: one parent per node and no cycles")
            if child not in local:
                raise InputError(f"node {child!r} (below {parent!r}) has no local priority")
            priority = local[child]
            if not (isinstance(priority, (int, float, np.number)) and math.isfinite(priority) and priority >= 0):
                raise InputError(f"node {child!r} has local priority {priority!r}; it must be a number ≥ 0")
            weights[child] = weights[parent] * float(priority)
            queue.append(child)
    return weights
