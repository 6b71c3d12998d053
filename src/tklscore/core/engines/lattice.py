"""Suggested releases out of core (privacy-models.md §5; issue 23 §1): the lattice nodes as
roll-ups of the source's finest aggregate (:mod:`.finest`), fetched once into memory as
integer codes — one row per distinct combination of QI and SA values with ``cnt``, the
records it stands for, and ``rid``, the first of them.

A node's generalised classes are the finest rows' QI values mapped through the hierarchies
at the node's levels (the :class:`~.design.EngineDesigner`'s own value → group maps) and
re-grouped; every count is a sum of ``cnt``. The figures are those of
:mod:`tklscore.core.release.suggest` in memory, on the same definitions and the same
integer arithmetic:

- the classes numbered as the in-memory group-by numbers them
  (:func:`~tklscore.core.tables.codes.group_ids_of_groups`, from each class's first record),
  so suppression's tie rule (:func:`~tklscore.core.release.transform.suppressed_classes`)
  drops the same classes; k, the suppressed share and the precision loss from them;
- l and t of the published table (the constraints of the search): distinct values per class
  (which no count changes) and the variational distance or the ordered EMD over the
  published classes' weighted (class, value) counts;
- the normalised tkl-Score: the distinguishing factors of the whole source at the node's
  levels — k and t from weighted counts, l from the distinct combinations
  (:func:`~tklscore.core.scoring.distinguishing_factors.l_distinguishing_factor` over the
  rows: distinctness is the same over records or their combinations) — each row's record
  scores counted ``cnt`` times over the published rows, normalised by the whole source's
  (the engine's :meth:`~.design.EngineDesigner.whole_source`).

The search itself (top-down over the lattice, pruning by k, the Pareto front) is
:func:`~tklscore.core.release.suggest.suggest`'s, unchanged. A row selection needs the
records and is not searched out of core (the error says what to do).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tklscore.core.engines.finest import RELATION
from tklscore.core.engines.plan import Plan
from tklscore.core.engines.scoring import score_set
from tklscore.core.errors import InputError
from tklscore.core.release.suggest import _Node
from tklscore.core.release.transform import ReleaseDesign, suppressed_classes
from tklscore.core.release.utility import attribute_precision
from tklscore.core.scoring.distinguishing_factors import LatticeL, ordered_emd_from_pairs, sa_groups
from tklscore.core.scoring.scores import ScoreSet, normalise_by_source
from tklscore.core.tables.codes import Codes, dense_limit, group_ids, group_ids_of_groups, sorted_groups

SELECTION_REFUSED = ("suggested releases out of core search the whole source: a row selection needs the records "
                     "at every node; search without it (and select the rows of the release you choose), or search "
                     "in memory")


class AggregateLattice:
    """What :func:`~tklscore.core.release.suggest.suggest` asks of a designer, answered from
    the finest aggregate of an :class:`~.design.EngineDesigner`'s source."""

    def __init__(self, designer):
        self.designer = designer
        self.roles, self.hierarchies = designer.roles, designer.hierarchies
        roles, backend = designer.roles, designer.backend
        plan = Plan(len(roles.qi), tuple(c in roles.continuous for c in roles.sa), RELATION, weighted=True)
        parts, joins = [], []
        for j, name in enumerate(roles.qi):
            values = designer.column(name).values
            backend.register(f"lattice_q{j}", pd.DataFrame({"v": pd.Series(values, dtype=object),
                                                            "c": np.arange(len(values), dtype=np.int64)}))
            parts.append(f"CAST(m{j}.c AS INTEGER) AS q{j}")
            joins.append(f"JOIN lattice_q{j} AS m{j} ON m{j}.v = f.q{j}")
        self.uniques: list[np.ndarray] = []
        for i, name in enumerate(roles.sa):
            backend.materialize(f"lattice_s{i}", plan.value_codes(i))
            self.uniques.append(backend.fetch(f"SELECT s{i} AS v FROM lattice_s{i} ORDER BY c{i}")["v"].to_numpy(
                dtype=np.float64 if name in roles.continuous else object))
            parts.append(f"CAST(n{i}.c{i} AS INTEGER) AS s{i}")
            joins.append(f"JOIN lattice_s{i} AS n{i} ON n{i}.s{i} = f.s{i}")
        rows = backend.fetch_arrow(f"SELECT {', '.join(parts)}, CAST(f.cnt AS BIGINT) AS cnt, "
                                   f"CAST(f.rid AS BIGINT) AS rid FROM {RELATION} AS f {' '.join(joins)} ORDER BY f.rid")
        column = (lambda name: rows.column(name).to_numpy())
        self.q = [column(f"q{j}") for j in range(len(roles.qi))]
        self.s = [column(f"s{i}").astype(np.int64) for i in range(len(roles.sa))]   # as codes index
        self.cnt, self.rid = column("cnt"), column("rid")
        del rows
        self.rows, self.n = len(self.cnt), int(self.cnt.sum())
        self._whole = None
        self._weights: dict = {}
        self._sa_groups: dict = {}
        self._value_counts: dict = {}
        self._lattice_l = LatticeL()
        # the finest classes (distinct QI values) numbered in order of first appearance, with
        # their QI codes, records and first row: a node's classes are unions of them
        self.finest, n_finest = _first_appearance([(codes, len(designer.column(name).values))
                                                   for codes, name in zip(self.q, roles.qi)], self.rows)
        first = _first_rows(self.finest, n_finest)
        self.finest_q = [codes[first] for codes in self.q]
        self.finest_rid = self.rid[first]
        self.finest_cnt = np.bincount(self.finest, weights=self.cnt, minlength=n_finest)

    # ------------------------------------------------------------------ what suggest() asks

    def height(self, column: str) -> int:
        return self.designer.height(column)

    def prepare_search(self, weights, x: float, missing_weight_zero: bool) -> None:
        """The whole source's scores (normalisation), once before the search; the weights
        checked as every engine checks them."""
        totals, _ = self.designer.whole_source(weights, missing_weight_zero)
        self._whole = score_set(totals, x)

    def lattice_node(self, levels: dict[str, int], design: ReleaseDesign) -> "AggregateNode":
        if design.selection is not None:
            raise InputError(SELECTION_REFUSED)
        return AggregateNode(levels, design, self)

    # ------------------------------------------------------------------ roll-ups

    def classes(self, design: ReleaseDesign) -> tuple[np.ndarray, np.ndarray]:
        """Each row's class on the design's generalised QIs, numbered as in memory, and each
        class's size (records)."""
        keys = []
        for j, name in enumerate(self.roles.qi):
            group_of_value, groups = self.designer.column(name).groups(self.designer._level(design, name))
            keys.append((np.asarray(group_of_value, dtype=np.int64)[self.finest_q[j]], len(groups)))
        groups, n_groups = group_ids(keys, len(self.finest_rid))
        # the finest classes come in record order: a class's first one holds its first record
        representative = np.full(n_groups, len(groups), dtype=np.int64)
        np.minimum.at(representative, groups, np.arange(len(groups), dtype=np.int64))
        ids = group_ids_of_groups([(codes[representative], cardinality) for codes, cardinality in keys],
                                  self.finest_rid[representative], self.n)
        class_of_finest = ids[groups]
        sizes = np.bincount(class_of_finest, weights=self.finest_cnt, minlength=n_groups).astype(np.int64)
        return class_of_finest[self.finest], sizes

    def precision(self, design: ReleaseDesign, suppressed: int) -> float:
        values = []
        for name in self.roles.qi:
            height = self.designer.height(name)
            level = self.designer._level(design, name)
            if name in design.removed:
                height = level = max(height, 1)
            values.append(attribute_precision(level, height, suppressed, self.n))
        return float(np.mean(values)) if values else 1.0

    def kept(self, design: ReleaseDesign) -> list[int]:
        kept = [i for i, s in enumerate(self.roles.sa) if s not in design.removed]
        if not kept:
            raise InputError("every sensitive attribute is removed; nothing sensitive is published to score")
        for i in kept:
            name = self.roles.sa[i]
            if name in self.hierarchies and design.level(name):
                raise InputError("suggested releases out of core keep the sensitive attributes as written; set "
                                 "their levels after choosing a release", column=name)
        return kept

    def l_factor(self, design: ReleaseDesign, classes: tuple[np.ndarray, int], kept: list[int]) -> np.ndarray:
        """Each row's l-DF at the design's levels, as in memory (:class:`LatticeL` over the
        rows' SA groupings: distinctness is the same over records or their combinations)."""
        key = tuple(kept)
        groups = self._sa_groups.get(key)
        if groups is None:
            groups = sa_groups([Codes(self.s[i], self.uniques[i]) for i in kept], self.rows)
            self._sa_groups = {key: groups}
        levels = tuple(-1 if c in design.removed else self.designer._level(design, c) for c in self.roles.qi)
        return self._lattice_l.l(classes, groups, levels, key)

    def value_counts(self, i: int) -> tuple[np.ndarray, int]:
        """The source's records per value of SA ``i`` (the same at every node), and all of them."""
        kept = self._value_counts.get(i)
        if kept is None:
            kept = self._value_counts[i] = value_counts(self.s[i], len(self.uniques[i]), self.cnt)
        return kept

    def weight_sum(self, weights, kept: list[int]) -> np.ndarray:
        """W(r) of each row over the kept SAs (a missing weight: 0, said by :meth:`prepare_search`)."""
        key = (weights.fingerprint, tuple(kept))
        cached = self._weights.get(key)
        if cached is None:
            cached = np.zeros(self.rows, dtype=np.float64)
            for i in kept:
                name = self.roles.sa[i]
                per_value = weights.weights_of(name, self.uniques[i], name in self.roles.continuous)
                cached += np.where(np.isnan(per_value), 0.0, per_value)[self.s[i]]
            self._weights = {key: cached}
        return cached


def _first_appearance(columns: list[tuple[np.ndarray, int]], n: int) -> tuple[np.ndarray, int]:
    """Group ids of the rows over ``columns``, numbered in order of first appearance."""
    key, size = group_ids(columns, n) if len(columns) != 1 else (columns[0][0], columns[0][1])
    codes, uniques = pd.factorize(np.asarray(key, dtype=np.int64), sort=False)
    return codes.astype(np.int64, copy=False), len(uniques)


def _first_rows(groups: np.ndarray, n_groups: int) -> np.ndarray:
    """The first row of each group of ids numbered in order of first appearance (the
    running maximum rises at each first row)."""
    rises = np.empty(len(groups), dtype=np.bool_)
    rises[:1] = True
    np.greater(groups[1:], np.maximum.accumulate(groups)[:-1], out=rises[1:])
    return np.flatnonzero(rises)


PAIR_TABLE = 1 << 24
"""The most (class, value) cells counted in a table (8 bytes each) rather than by one sort."""


def _pairs(classes: np.ndarray, n_classes: int, values: np.ndarray, m: int, counts: np.ndarray):
    """The distinct (class, value) pairs sorted by class then value, and their records."""
    m = max(m, 1)
    key = np.multiply(classes, np.int64(m), dtype=np.int64)
    key += values
    if n_classes * m <= min(dense_limit(len(key)), PAIR_TABLE):   # a count per possible pair, in key order
        total = np.bincount(key, weights=counts, minlength=n_classes * m)
        pair = np.flatnonzero(total)
        total = total[pair].astype(np.int64)
    else:
        groups = sorted_groups(key)
        pair = groups.keys
        total = np.bincount(groups.inverse, weights=counts, minlength=len(pair)).astype(np.int64)
    cls, val = np.divmod(pair, np.int64(m))
    return cls, val, total


def value_counts(values: np.ndarray, m: int, counts: np.ndarray) -> tuple[np.ndarray, int]:
    """The records holding each of an SA's ``m`` values, and all the records."""
    return np.bincount(values, weights=counts, minlength=m).astype(np.int64), int(counts.sum())


def class_t(classes: np.ndarray, n_classes: int, sizes: np.ndarray, values: np.ndarray, m: int,
            counts: np.ndarray, continuous: bool, table: tuple[np.ndarray, int] | None = None) -> np.ndarray:
    """t of each class for one SA from weighted rows: the ordered EMD of a continuous SA
    (``values``: ranks in numeric order), else the variational distance — the in-memory
    formulas on the same integer counts (``table``: :func:`value_counts` of the rows, when kept)."""
    table_counts, n = table if table is not None else value_counts(values, m, counts)
    cls, val, pair_counts = _pairs(classes, n_classes, values, m, counts)
    if continuous:
        return ordered_emd_from_pairs(cls, val, pair_counts, n_classes, sizes, table_counts, n)
    k = sizes[cls]
    inside = np.abs(pair_counts * n - table_counts[val] * k)
    numerator = (np.bincount(cls, weights=inside, minlength=n_classes)
                 + (n - np.bincount(cls, weights=table_counts[val], minlength=n_classes)) * sizes)
    return np.clip(numerator / (2.0 * sizes * n), 0.0, 1.0)


class AggregateNode(_Node):
    """One node of the lattice over the finest aggregate (:class:`_Node`'s figures)."""

    def __init__(self, levels: dict[str, int], design: ReleaseDesign, lattice: AggregateLattice):
        self.levels, self.design, self.designer = levels, design, lattice
        self.lattice = lattice
        self.transformed = None
        row_class, sizes = lattice.classes(design)
        dropped, _ = suppressed_classes(sizes, design.suppress_below, design.suppression_limit)
        kept = sizes[~dropped & (sizes > 0)]
        self.k = int(kept.min()) if len(kept) else 0
        suppressed = int(sizes[dropped].sum())
        self.published = lattice.n - suppressed
        self.share = suppressed / lattice.n if lattice.n else 0.0
        self.loss = 1.0 - lattice.precision(design, suppressed) if self.published else 1.0
        self._classes = (row_class, sizes, dropped)
        self.l = self.t = self.tkl = None

    def _release(self):
        if self._classes is None:
            row_class, sizes = self.lattice.classes(self.design)
            self._classes = (row_class, sizes, suppressed_classes(sizes, self.design.suppress_below,
                                                                  self.design.suppression_limit)[0])
        return self._classes

    def done(self) -> None:
        self._classes = None

    def complete_models(self) -> bool:
        """l and t of the published table; False when nothing is published."""
        if self.l is None and self.published:
            lattice = self.lattice
            row_class, sizes, dropped = self._release()
            rows = ~dropped[row_class]
            present = np.zeros(len(sizes), dtype=bool)
            present[row_class[rows]] = True
            dense = np.cumsum(present) - 1
            classes, n_classes = dense[row_class[rows]], int(present.sum())
            counts = lattice.cnt[rows]
            published_sizes = np.bincount(classes, weights=counts, minlength=n_classes).astype(np.int64)
            l, t = np.iinfo(np.int64).max, 0.0
            for i in lattice.kept(self.design):
                used = np.flatnonzero(np.bincount(lattice.s[i][rows], minlength=len(lattice.uniques[i])))
                rank = np.zeros(len(lattice.uniques[i]), dtype=np.int64)
                rank[used] = np.arange(len(used))
                values = rank[lattice.s[i][rows]]
                cls, _, _ = _pairs(classes, n_classes, values, len(used), counts)
                l = min(l, int(np.bincount(cls, minlength=n_classes).min()))
                per_class = class_t(classes, n_classes, published_sizes, values, len(used), counts,
                                    lattice.roles.sa[i] in lattice.roles.continuous)
                t = max(t, float(per_class.max()))
            self.l, self.t = int(l), t
        return self.l is not None

    def complete_scores(self, weights, x, missing_weight_zero) -> None:
        if self.tkl is None and self.published:
            self.tkl = self.scores(weights, x)

    def scores(self, weights, x) -> float:
        """The published rows' tkl-Score normalised by the source's."""
        lattice = self.lattice
        row_class, sizes, dropped = self._release()
        kept = lattice.kept(self.design)
        n_classes = len(sizes)
        # the factors over the whole source at the node's levels
        t = np.zeros(n_classes, dtype=np.float64)
        for i in kept:
            name = lattice.roles.sa[i]
            np.maximum(t, class_t(row_class, n_classes, sizes, lattice.s[i], len(lattice.uniques[i]), lattice.cnt,
                                  name in lattice.roles.continuous, lattice.value_counts(i)), out=t)
        l = lattice.l_factor(self.design, (row_class, n_classes), kept)
        tkl = t[row_class]
        tkl += lattice.weight_sum(weights, kept)
        tkl /= l
        counts = lattice.cnt
        if dropped.any():
            rows = ~dropped[row_class]
            tkl, counts = tkl[rows], counts[rows]
        # only the tkl-Score is normalised here (the suggestion's figure): its sum over the records
        published = int(counts.sum())
        normalized = normalise_by_source(ScoreSet(float((tkl * counts).sum()), 0.0, 0.0, 0.0, 0.0), lattice._whole,
                                         published)
        return 0.0 if normalized.tkl is None else float(normalized.tkl)
