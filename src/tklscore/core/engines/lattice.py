"""Suggested releases out of core (privacy-models.md §5; issue 23 §1): the lattice nodes as
roll-ups of the source's finest aggregate (:mod:`.finest`) — one row per distinct
combination of QI and SA values with ``cnt``, the records it stands for, and ``rid``, the
first of them — fetched once in Arrow batches into small integer arrays: the finest classes
(distinct QI values) with their codes, records and first record; the distinct SA
combinations with their codes; and per row only its SA combination and ``cnt``, the rows in
finest-class order. A node counts every row at once when the aggregate fits the search's
budget — the memory limit less what the process and the search hold (:func:`search_budget`,
:meth:`AggregateLattice.held_bytes`; the rows' SA groupings then kept across nodes) —, else
in pieces of whole classes (:func:`piece_rows`), so what it allocates does not grow with the
aggregate: one l-DF rule (:class:`LatticeL`), only the piece size following the budget.

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
  published classes' weighted (class, value) counts — a categorical SA's rolled up from its
  (finest class, value) table (:class:`ValueTables`, built once), a node's cost a pass over
  its finest classes' cells, not over the rows;
- the normalised tkl-Score: the distinguishing factors of the whole source at the node's
  levels — k and t from weighted counts (a categorical SA's t from its tables), l by
  :class:`LatticeL` over the rows
  (distinctness is the same over records or their combinations; a class of more rows than
  a piece over its distinct SA combinations) — each row's record scores counted ``cnt``
  times over the published rows, normalised by the whole source's (summed as a node at
  level 0; the other scores, the engine's :meth:`~.design.EngineDesigner.whole_source`), each
  sum exact (:mod:`tklscore.core.scoring.sums`) as in memory, so every figure is memory's to
  the last bit.

The search itself (top-down over the lattice, pruning by k, the Pareto front) is
:func:`~tklscore.core.release.suggest.suggest`'s, unchanged. A row selection needs the
records and is not searched out of core (the error says what to do).
"""

from __future__ import annotations

import math
import os
import threading
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
import pandas as pd

from tklscore.core.engines.backend import beyond_engine, memory_bytes
from tklscore.core.engines.backend import resident_bytes as _resident_bytes
from tklscore.core.engines.finest import RELATION
from tklscore.core.engines.plan import Plan
from tklscore.core.engines.scoring import run_bounds, score_set
from tklscore.core.errors import InputError
from tklscore.core.release.suggest import _Node
from tklscore.core.release.transform import ReleaseDesign, suppressed_classes
from tklscore.core.release.utility import attribute_precision
from tklscore.core.scoring.distinguishing_factors import (TABLE_CELLS_A_ROW, Groupings, LatticeL, SaGroups,
                                                          records_by_key, bits_at,
                                                          l_of_classes, ordered_emd_of_weighted, sa_groups,
                                                          variational_distance_of_numerator, variational_numerator,
                                                          weighted_class_value_pairs)
from tklscore.core.scoring.scores import ScoreSet, normalise_by_source
from tklscore.core.scoring.sums import exact_parts, rounded_sum
from tklscore.core.tables.codes import Codes, group_ids, group_ids_of_groups, ordered_ids, sort_with_positions

SELECTION_REFUSED = ("suggested releases out of core search the whole source: a row selection needs the records "
                     "at every node; search without it (and select the rows of the release you choose), or search "
                     "in memory")

SEARCH_SHARE = 0.5
"""The share of the memory limit (``--memory-limit``; without one, the engine's default of 80 %
of the machine's memory) that the search's arrays may take where the process's resident memory
cannot be read: the rest is the engine's buffers, the interpreter and its libraries."""

WHOLE_ROW_BYTES = 300
"""What the search takes a row of the aggregate when it counts every row at once: the rows'
SA groupings and weights kept across nodes (about 40 bytes and 10 a SA) and the temporaries
of the two nodes scored at a time. Measured on the benchmark's table (4 SAs) at 2M rows:
peak RSS 850 MB above the aggregate's arrays, 256 MB of it :class:`LatticeL`'s masks."""

PIECE_ROW_BYTES = 200
"""What one node's l-DF and t take a row of a piece of whole classes (their temporaries; a
class of more rows than a piece: a distinct SA combination of it). Measured (tracemalloc over
numpy's allocations) on the benchmark's table at 1M rows, pieces of 100k–200k rows: 140–205
bytes a row beside the node's masks, the top node's one class 100 an SA combination."""

NODES_AT_ONCE = 2
"""The nodes scored at a time (:func:`~tklscore.core.release.suggest.suggest`'s two workers),
each with its own piece."""


COMBINATION_BYTES = 68
"""What the search holds a distinct SA combination: its groupings over the kept SAs in the
narrowest integers (about 4 bytes each and a mixed-radix key of 8), a combination of each
full group (8), its weight and records (8 each), and each node in flight's map of it to its
number in a class (:class:`_Maps`; 4)."""

MASKS_KEPT = 256 << 20
"""The most bytes of l-DF masks :class:`LatticeL` keeps for the nodes still to come (less
when the search's budget is small: a quarter of it, but always two nodes')."""

OWN_CLASS_ROW_BYTES = 100
"""What a row of a class larger than a piece takes while it is counted over its own distinct
SA combinations (:func:`_own_class`; a class of more than :func:`own_rows` rows: a row of
a part of it): its position, combination, group and records, and its groups' lines, l-DF
and tables (:func:`_l_of_own_groups`; up to a group a row).
Measured (tracemalloc over numpy's allocations, one worker) on the benchmark's table at 1M
rows, pieces of 30k rows: about 42 bytes a row and 5 MB besides (59–74 a row over the classes
of 230k rows); within a piece's allowance for pieces of :data:`MIN_PIECE_ROWS` and more."""

MIN_PIECE_ROWS = 1 << 16
"""The fewest rows a piece holds whatever the budget (below it a piece's fixed costs dominate)."""


def piece_rows(rows: int, budget: int) -> int:
    """The most rows of an aggregate of ``rows`` a node counts at once within ``budget`` bytes:
    every row when they fit (:data:`WHOLE_ROW_BYTES`), else pieces of whole classes of at most
    twice this (:data:`PIECE_ROW_BYTES`), a class of more rows over its distinct SA combinations:
    the pieces of the :data:`NODES_AT_ONCE` nodes in flight within the budget together."""
    if rows * WHOLE_ROW_BYTES <= budget:
        return max(rows, 1)
    return max(1, int(budget) // (NODES_AT_ONCE * 2 * PIECE_ROW_BYTES))


def own_rows(chunk: int) -> int:
    """The most rows of a class larger than a piece of ``chunk`` rows counted over its own
    distinct SA combinations at once (:func:`_own_class`; one of more in parts of this many
    rows, one node at a time, since its groups may be every one of the source): what it takes
    (:data:`OWN_CLASS_ROW_BYTES` a row) within what a piece of whole classes may take (two
    pieces' rows at :data:`PIECE_ROW_BYTES`), so the two nodes in flight may count such
    classes at once."""
    return 2 * chunk * PIECE_ROW_BYTES // OWN_CLASS_ROW_BYTES


def search_budget(memory_limit: int | None) -> int:
    """The bytes the search's arrays may take under a memory limit (bytes; None: none given):
    the limit less what the process holds now (the interpreter, its libraries, the engine and
    the aggregate's arrays) and the engine's share (:data:`ENGINE_SHARE`), or
    :data:`SEARCH_SHARE` of it where the resident memory cannot be read."""
    memory_limit = memory_bytes(memory_limit)
    resident = _resident_bytes()
    if resident is None:
        return int(SEARCH_SHARE * memory_limit)
    return beyond_engine(memory_limit, resident)


def _release_arrow_memory() -> None:
    """Give back the memory Arrow's allocator keeps from the batches fetched (freed, not returned)."""
    try:
        import pyarrow

        pyarrow.default_memory_pool().release_unused()
    except (ImportError, AttributeError):
        pass


BATCH_ROWS = 1 << 18
"""The most rows of the aggregate fetched from the engine at a time."""

BATCH_ROW_BYTES = 200
"""What a fetched row of the aggregate takes while it is coded (its QI and SA values as Arrow
holds them, their dictionary codes and the codes of the lattice): a batch is within a
tenth of the search's budget."""


def fetch_rows(budget: int) -> int:
    """The rows of the aggregate fetched at a time within a search's ``budget`` bytes."""
    return max(1, min(BATCH_ROWS, int(budget) // (10 * BATCH_ROW_BYTES)))


def _aggregate_codes(backend, values: list[np.ndarray], uniques: list[np.ndarray], rows: int, batch: int):
    """Each row of the finest aggregate (:data:`RELATION`, of about ``rows`` rows) fetched in
    Arrow batches of ``batch`` rows: its QIs' codes (the index of its value in ``values``),
    its SAs' (in ``uniques``), ``cnt`` and ``rid``. A row whose value is missing from them —
    or NULL, which equals nothing — is left out, as a join on the values leaves it."""
    import pyarrow.compute as pc

    indexes = [pd.Index(v, dtype=v.dtype if v.dtype.kind == "f" else object) for v in list(values) + list(uniques)]
    codes = [np.empty(rows, dtype=_small(len(index))) for index in indexes]
    cnt, rid = np.empty(rows, dtype=np.int64), np.empty(rows, dtype=np.int64)
    names = [f"q{j}" for j in range(len(values))] + [f"s{i}" for i in range(len(uniques))]
    # the engine's limit leaves room for these arrays and two batches as fetched and coded
    backend.bound_engine(sum(c.nbytes for c in codes) + cnt.nbytes + rid.nbytes + 2 * batch * BATCH_ROW_BYTES)
    at = 0
    for part in backend.fetch_batches(f"SELECT {', '.join(names)}, CAST(cnt AS BIGINT) AS cnt, "
                                      f"CAST(rid AS BIGINT) AS rid FROM {RELATION}", batch):
        size = part.num_rows
        if at + size > rows:
            raise InputError(f"the source's aggregate changed while it was read (more than {rows:,} rows)")
        for k, index in enumerate(indexes):
            encoded = pc.dictionary_encode(part.column(k))
            known = np.append(index.get_indexer(encoded.dictionary.to_numpy(zero_copy_only=False)), -1)
            at_value = pc.fill_null(encoded.indices, len(encoded.dictionary)).to_numpy()
            codes[k][at:at + size] = known[at_value]
        cnt[at:at + size] = part.column(len(names)).to_numpy()
        rid[at:at + size] = part.column(len(names) + 1).to_numpy()
        at += size
    if at != rows:
        raise InputError(f"the source's aggregate changed while it was read ({at:,} of {rows:,} rows)")
    found = np.ones(rows, dtype=np.bool_)
    for c in codes:
        found &= c >= 0
    if not found.all():
        codes, cnt, rid = [c[found] for c in codes], cnt[found], rid[found]
    return codes[:len(values)], codes[len(values):], cnt, rid


def _small(count: int) -> np.dtype:
    """The smallest signed integer type holding the codes 0..count-1."""
    for dtype in (np.int8, np.int16, np.int32):
        if count <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


class AggregateLattice:
    """What :func:`~tklscore.core.release.suggest.suggest` asks of a designer, answered from
    the finest aggregate of an :class:`~.design.EngineDesigner`'s source.

    What is held in memory: the finest classes (distinct QI values; few), the distinct SA
    combinations with their codes, and per row of the aggregate only its SA combination and
    ``cnt`` (the rows ordered by finest class, so a class's rows are a range); for each SA
    its (finest class, value) counts, from which every node's t is rolled up; and the l-DF
    masks :class:`LatticeL` keeps (a bit per row and SA). A node's l-DF and t are counted over
    every row at once when the aggregate fits ``budget`` bytes (default: :func:`search_budget`
    of the back-end's memory limit), else in pieces of whole classes (:func:`piece_rows`), so
    their temporaries do not grow with the aggregate."""

    def __init__(self, designer, budget: int | None = None):
        self.designer = designer
        self.roles, self.hierarchies = designer.roles, designer.hierarchies
        roles, backend = designer.roles, designer.backend
        backend.bound_engine()     # the statements below within what the process leaves them
        plan = Plan(len(roles.qi), tuple(c in roles.continuous for c in roles.sa), RELATION, weighted=True)
        values = [designer.column(name).values for name in roles.qi]
        self.uniques: list[np.ndarray] = []
        for i, name in enumerate(roles.sa):     # in the engine's order (the codes of every other statement)
            self.uniques.append(backend.fetch(f"SELECT s{i} AS v FROM ({plan.value_codes(i)}) AS d ORDER BY c{i}")[
                "v"].to_numpy(dtype=np.float64 if name in roles.continuous else object))
        q, s, cnt, rid = _aggregate_codes(backend, values, self.uniques, designer.finest.rows,
                                          fetch_rows(budget if budget is not None else
                                                     search_budget(getattr(backend, "memory_limit", None))))
        rows = len(cnt)
        # the finest classes (distinct QI values) numbered in order of first record, with their
        # QI codes, rows, records and first record: a node's classes are unions of them
        of_row, classes = ordered_ids([(codes, len(v)) for codes, v in zip(q, values)], rows)
        first = np.full(classes, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, of_row, rid)
        del rid
        order = np.argsort(first)      # the first records are distinct
        self.finest_rid = first[order]
        number = np.empty(classes, dtype=np.int64)
        number[order] = _positions(classes)
        del first, order
        np.take(number, of_row, out=of_row)
        one = np.empty(classes, dtype=np.int64)
        # the rows' positions once, freed with the set-up (:func:`_positions` keeps what it makes: its
        # 20M-row array at 20M left the pieces 150 MiB less, 26 % smaller and the search 9 % slower)
        positions = np.arange(rows, dtype=np.int64)
        one[of_row] = positions      # a row of each class (all hold its QI codes)
        self.finest_q = [codes[one].astype(_small(len(v))) for codes, v in zip(q, values)]
        del q, one, number
        self.finest_rows = np.bincount(of_row, minlength=classes).astype(np.int64, copy=False)
        self.finest_cnt = np.zeros(classes, dtype=np.int64)
        np.add.at(self.finest_cnt, of_row, cnt)
        self.offsets = np.zeros(len(self.finest_rows) + 1, dtype=np.int64)
        np.cumsum(self.finest_rows, out=self.offsets[1:])
        self.rows, self.n = rows, int(self.finest_cnt.sum())
        # the distinct SA combinations, numbered in the order of their codes
        combo, self.combos = ordered_ids([(codes, len(u)) for codes, u in zip(s, self.uniques)], rows)
        one = np.empty(self.combos, dtype=np.int64)
        one[combo] = positions
        del positions
        self.combo_s = [codes[one].astype(_small(len(u))) for codes, u in zip(s, self.uniques)]
        del s, one
        # each row: its SA combination and records, the rows in finest-class order, a class's
        # rows in the order of their combinations
        of_row *= np.int64(max(self.combos, 1))
        of_row += combo
        order = sort_with_positions(of_row)[0]     # distinct keys: every row is a (QI, SA values) combination
        del of_row
        self.combo = combo[order].astype(_small(self.combos))
        del combo
        self.cnt = cnt[order].astype(_small(self.n + 1))
        del cnt, order
        _release_arrow_memory()
        self._default_budget, self._finest_group_codes = budget is None, {}    # the latter: :meth:`_finest_groups`'s
        self.tables = ValueTables(self)
        self._size_pieces(backend, budget)
        self._whole = None
        self._weights: dict = {}
        self._sa_groups: dict = {}
        self._value_counts: dict = {}
        self._pairs: dict = {}
        self._row_groups: dict = {}
        self._combo_records = None
        self._full_identity = None    # :meth:`_full_is_combo`'s answer
        self._large_class = threading.Lock()    # a class of more than :attr:`own_rows` rows: a node at a time
        self._maps = _Maps(self.combos)

    def _size_pieces(self, backend, budget: int | None) -> None:
        """The rows a node counts at once (:attr:`chunk_rows`; :attr:`whole`: every row) within
        ``budget`` bytes, else within :func:`search_budget` of the back-end's memory limit less
        what the search holds whatever the piece size (:meth:`held_bytes`; the masks kept by
        :class:`LatticeL` at most a quarter of it, but two nodes' at least)."""
        if budget is None:
            budget = search_budget(getattr(backend, "memory_limit", None))
            node_masks = LatticeL(packed=True).node_bytes(self.rows, len(self.uniques))   # a bit a row and SA
            self._lattice_l = LatticeL(max(min(MASKS_KEPT, budget // 4), 2 * node_masks), packed=True)
            budget = max(budget - self.held_bytes(), NODES_AT_ONCE * 2 * PIECE_ROW_BYTES * MIN_PIECE_ROWS)
        else:
            self._lattice_l = LatticeL(MASKS_KEPT, packed=True)
        self.chunk_rows = piece_rows(self.rows, budget)
        self.whole = self.chunk_rows >= self.rows     # every row counted at once
        self.own_rows = own_rows(self.chunk_rows)

    def held_bytes(self) -> int:
        """What the search will hold beside the aggregate's arrays, whatever its piece size: the
        SA combinations' groupings, weights and records (:data:`COMBINATION_BYTES` each), the
        l-DF masks :class:`LatticeL` keeps (a bit a row and SA) and those of the nodes in flight
        (:data:`NODES_AT_ONCE`): each assembles a byte a row and SA and reads its
        generalisations' a bit a row (their intersection a copy; counted in pieces, the bits
        are read at each piece's rows, never unpacked whole)."""
        s = len(self.uniques)
        masks = NODES_AT_ONCE * (s * self.rows + self._lattice_l.node_bytes(self.rows, s))
        kept = max(self._lattice_l.budget, 2 * self._lattice_l.node_bytes(self.rows, s))
        return COMBINATION_BYTES * self.combos + kept + masks + self.tables.bytes

    # ------------------------------------------------------------------ what suggest() asks

    def height(self, column: str) -> int:
        return self.designer.height(column)

    def prepare_search(self, weights, x: float, missing_weight_zero: bool) -> None:
        """The whole source's scores (normalisation), once before the search; the weights
        checked as every engine checks them."""
        backend = self.designer.backend
        # the engine's statements within what the process leaves them (search_done restores its limit)
        bounded = backend.bound_engine()
        totals, _ = self.designer.whole_source(weights, missing_weight_zero)
        if bounded and backend.idle_engine() and self._default_budget:
            # the engine idle while the search counts: its buffers and Arrow's given back, the pieces sized again
            _release_arrow_memory()
            self._size_pieces(backend, None)
        # its tkl-Score summed as a node's and as in memory (exactly), not in the engine's order
        whole = AggregateNode({}, ReleaseDesign(), self)
        self._whole = replace(score_set(totals, x), tkl=self.scored_sum(whole.design, *whole._release(),
                                                                        self.kept(whole.design), weights))

    def search_done(self) -> None:
        """Every node is scored: what only scoring reads (the l-DF masks, the rows' SA
        groupings) is freed before the chosen releases' l and t are counted, and the engine's
        memory limit is the one it was opened with again."""
        self._lattice_l = LatticeL(self._lattice_l.budget, packed=True)
        self._row_groups = {}
        self._sa_groups = {}
        self._full_identity = None
        self._maps = _Maps(self.combos)
        self.designer.backend.engine_memory(None)

    def lattice_node(self, levels: dict[str, int], design: ReleaseDesign) -> "AggregateNode":
        if design.selection is not None:
            raise InputError(SELECTION_REFUSED)
        return AggregateNode(levels, design, self)

    # ------------------------------------------------------------------ roll-ups

    def classes(self, design: ReleaseDesign) -> tuple[np.ndarray, np.ndarray]:
        """Each finest class's class on the design's generalised QIs, numbered as in memory,
        and each class's size (records)."""
        keys = [self._finest_groups(j, self.designer._level(design, name)) for j, name in enumerate(self.roles.qi)]
        groups, n_groups = group_ids(keys, len(self.finest_rid))
        # the finest classes come in record order: a class's first one holds its first record
        representative = np.full(n_groups, len(groups), dtype=np.int64)
        np.minimum.at(representative, groups, np.arange(len(groups), dtype=np.int64))
        ids = group_ids_of_groups([(codes[representative], cardinality) for codes, cardinality in keys],
                                  self.finest_rid[representative], self.n)
        class_of_finest = ids[groups]
        sizes = np.bincount(class_of_finest, weights=self.finest_cnt, minlength=n_groups).astype(np.int64)
        return class_of_finest, sizes

    def _finest_groups(self, j: int, level: int) -> tuple[np.ndarray, int]:
        """Each finest class's group of QI ``j`` at ``level`` (the narrowest integers) and the
        groups' count, kept: a column's levels are few, every node reads some of them."""
        key = (j, level)
        found = self._finest_group_codes.get(key)
        if found is None:
            group_of_value, groups = self.designer.column(self.roles.qi[j]).groups(level)
            codes = np.asarray(group_of_value, dtype=np.int64).astype(_small(len(groups)))[self.finest_q[j]]
            found = self._finest_group_codes[key] = (codes, len(groups))
        return found

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

    def pairs(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct (finest class, value of SA ``i``) pairs and their records, in finest
        class order (the pairs of finest class f: ``offsets[f]:offsets[f + 1]``): every node's
        (class, value) counts are their roll-ups (counted once, in pieces of whole finest
        classes)."""
        kept = self._pairs.get(i)
        if kept is None:
            m = len(self.uniques[i])
            per_finest, values, counts = [], [], []
            for first, last in self._finest_pieces():
                rows = slice(int(self.offsets[first]), int(self.offsets[last]))
                local = np.repeat(np.arange(last - first, dtype=np.int64), self.finest_rows[first:last])
                cls, val, total = _pairs(local, last - first, self.combo_s[i][self.combo[rows]].astype(np.int64), m,
                                         self.cnt[rows])
                per_finest.append(np.bincount(cls, minlength=last - first))
                values.append(val.astype(_small(m)))
                counts.append(total.astype(self.cnt.dtype))
            offsets = np.zeros(len(self.finest_rows) + 1, dtype=np.int64)
            if per_finest:
                np.cumsum(np.concatenate(per_finest), out=offsets[1:])
            kept = self._pairs[i] = (offsets, np.concatenate(values) if values else np.zeros(0, dtype=np.int8),
                                     np.concatenate(counts) if counts else np.zeros(0, dtype=np.int64))
        return kept

    def class_pairs(self, i: int, classes: "_Classes"):
        """SA ``i``'s (class, value) records at a node, in pieces of whole classes: for each,
        its classes, each entry's class among them, value code and records. A class of more
        than :attr:`chunk_rows` entries comes alone, its values' records summed in pieces."""
        offsets, values, counts = self.pairs(i)
        per_finest = np.diff(offsets)
        m = len(self.uniques[i])
        class_of_finest = classes.of_finest
        for piece in _class_pieces(classes, per_finest, self.chunk_rows):
            if isinstance(piece, tuple):
                (finest,) = piece
                records = np.zeros(m, dtype=np.float64)
                for entries in _pieces_of(finest, offsets, per_finest, self.chunk_rows):
                    records += np.bincount(values[entries], weights=counts[entries], minlength=m)
                value = np.flatnonzero(records)
                yield (class_of_finest[finest[:1]], np.zeros(len(value), dtype=np.int64), value,
                       records[value].astype(np.int64))
                continue
            entries = _ranges(offsets[piece], per_finest[piece])
            local, inside = _runs(class_of_finest[piece])
            yield (inside, np.repeat(local, per_finest[piece]), values[entries].astype(np.int64),
                   counts[entries].astype(np.int64))

    def _finest_pieces(self):
        """Runs of whole finest classes of about :attr:`chunk_rows` rows."""
        cut = np.searchsorted(self.offsets, np.arange(0, self.rows, self.chunk_rows, dtype=np.int64), side="right") - 1
        bounds = np.unique(np.concatenate([cut, [len(self.finest_rows)]]))
        for first, last in zip(bounds[:-1], bounds[1:]):
            yield int(first), int(last)

    def value_counts(self, i: int) -> tuple[np.ndarray, int]:
        """The source's records per value of SA ``i`` (the same at every node), and all of them."""
        kept = self._value_counts.get(i)
        if kept is None:
            if self._combo_records is None:
                self._combo_records = records_by_key(self.combo, self.cnt, self.combos)
            kept = self._value_counts[i] = value_counts(self.combo_s[i], len(self.uniques[i]), self._combo_records)
        return kept

    def sa_groups(self, kept: list[int]) -> tuple[SaGroups, np.ndarray]:
        """The SA groupings of the distinct SA combinations (:func:`sa_groups`) over the kept
        SAs, and a combination of each of their full groups."""
        key = tuple(kept)
        found = self._sa_groups.get(key)
        if found is None:
            found = self._sa_groups = {}   # the other set's groupings freed first
            groups = sa_groups([Codes(self.combo_s[i].astype(np.int64), self.uniques[i]) for i in kept], self.combos)
            full, n_full = groups.full
            representative = np.empty(n_full, dtype=np.int64)
            representative[full] = np.arange(self.combos, dtype=np.int64)
            # kept for the search in the narrowest integers (a row's gathers are as narrow): the
            # combinations' own codes are combo_s, their positions a piece's own
            narrow = (lambda grouping: None if grouping is None else
                      (grouping[0].astype(_small(grouping[1]), copy=False), grouping[1]))
            groups = SaGroups(narrow(groups.full), Groupings([narrow(o) for o in groups.others]), groups.order,
                              groups.radix, codes=Groupings([(None, cardinality) for _, cardinality in groups.codes]))
            found[key] = (groups, representative)
            found = found[key]
        return found

    def weight_sum(self, weights, kept: list[int]) -> np.ndarray:
        """W(r) of each SA combination over the kept SAs (a missing weight: 0, said by
        :meth:`prepare_search`)."""
        key = (weights.fingerprint, tuple(kept))
        cached = self._weights.get(key)
        if cached is None:
            cached = np.zeros(self.combos, dtype=np.float64)
            for i in kept:
                name = self.roles.sa[i]
                per_value = weights.weights_of(name, self.uniques[i], name in self.roles.continuous)
                cached += np.where(np.isnan(per_value), 0.0, per_value)[self.combo_s[i]]
            self._weights = {key: cached}
        return cached

    def scored_sum(self, design: ReleaseDesign, classes: "_Classes", sizes: np.ndarray,
                   dropped: np.ndarray, kept: list[int], weights) -> float:
        """Σ cnt · (t + W) / l over the rows of the classes kept — the factors of the whole
        source at the design's levels: each class's t over the kept SAs, each row's l-DF by
        :class:`LatticeL` — over every row at once when the aggregate fits the search's memory
        (:attr:`whole`), else in pieces of whole classes (a class of more than
        :attr:`chunk_rows` rows over its own distinct SA combinations, read in parts of at
        most :attr:`own_rows` rows: :func:`_own_class`), the masks assembled for the node's
        specialisations."""
        groups, representative = self.sa_groups(kept)
        w = self.weight_sum(weights, kept)
        levels = tuple(-1 if c in design.removed else self.designer._level(design, c) for c in self.roles.qi)
        extra = tuple(kept)
        # counted in pieces, the masks stay a bit a row and each piece reads its rows' bits
        known = self._lattice_l.known(levels, extra, len(groups.others), unpack=self.whole)
        class_of_finest = classes.of_finest
        t = self.tables.t(kept, classes, sizes)      # over the tabled SAs; the others' over the rows
        if self.whole:
            rows = self.row_groups(kept)
            local = np.repeat(class_of_finest.astype(_small(len(sizes)), copy=False), self.finest_rows)
            total, masks = self._scored_rows(kept, rows, local, sizes, ~dropped, rows.weights(w), self.cnt, known, t,
                                             self.beyond_one)
            self._lattice_l.keep(levels, extra, masks, self.rows)
            return rounded_sum(total)
        codes = [self.combo_s[i] for i in kept]
        masks: list = [None] * len(groups.others)
        total = []
        for piece in _class_pieces(classes, self.finest_rows, self.chunk_rows):
            if isinstance(piece, tuple):
                # a class of more than own_rows rows may hold every full group: a node at a time
                with self._large_class if int(self.finest_rows[piece[0]].sum()) > self.own_rows else nullcontext():
                    total += _own_class(self, piece, class_of_finest, sizes, dropped, kept, groups, representative,
                                        w, masks, t)
                continue
            at = _ranges(self.offsets[piece], self.finest_rows[piece])
            local, inside = _runs(class_of_finest[piece])      # the piece's finest classes come in class order
            local = np.repeat(local.astype(_small(len(inside)), copy=False), self.finest_rows[piece])
            rows = _RowGroups(groups, np.take(self.combo, at), codes)
            part, found = self._scored_rows(kept, rows, local, sizes[inside],
                                            ~dropped[inside], rows.at(w), np.take(self.cnt, at),
                                            None if known is None else bits_at(known, at), t[inside])
            _assemble(masks, found, at, self.rows)
            total += part
        self._lattice_l.keep(levels, extra, masks, self.rows)
        return rounded_sum(total)     # the pieces' exact parts rounded once: the in-memory sum

    def row_groups(self, kept: list[int]) -> "_RowGroups":
        """The SA groupings of every row of the aggregate over the kept SAs, kept across nodes
        (a search that counts the whole aggregate at once)."""
        key = tuple(kept)
        found = self._row_groups.get(key)
        if found is None:
            found = _RowGroups(self.sa_groups(kept)[0], self.combo, [self.combo_s[i] for i in kept])
            self._row_groups = {key: found}
        return found

    def _scored_rows(self, kept: list[int], rows: "_RowGroups", local: np.ndarray, sizes: np.ndarray,
                     published: np.ndarray, w: np.ndarray, counts: np.ndarray, known,
                     tabled: np.ndarray, beyond_one=None) -> tuple[list[float], list]:
        """Σ cnt · (t + W) / l over the published ones of ``rows`` (their classes numbered by
        ``local``, each whole, of ``sizes`` records; ``published``: each class's; ``tabled``:
        each class's t over the tabled SAs), and their l-DF masks (``known``: the rows' masks
        of the generalisations). ``beyond_one``: :attr:`beyond_one` of ``rows`` (every row of
        the aggregate): each row summed once as memory sums a record, those of more records
        again for the rest."""
        position = {i: j for j, i in enumerate(kept)}
        t = self._t(kept, local, sizes, lambda i: rows.codes[position[i]][0], counts, tabled, beyond_one)
        l, found = l_of_classes((local, len(sizes)), rows, known)
        score = np.take(t, local)
        score += w
        score /= l
        if beyond_one is not None:
            if not published.all():
                score[~published[local]] = 0.0
            at, extra = beyond_one
            return exact_parts(score) + exact_parts(score[at], extra), found
        if not published.all():
            keep = published[local]
            score, counts = score[keep], counts[keep]
        return exact_parts(score, counts), found

    def _t(self, kept: list[int], local: np.ndarray, sizes: np.ndarray, values, counts: np.ndarray,
           tabled: np.ndarray, beyond_one=None) -> np.ndarray:
        """t of each of the classes ``local`` numbers (``sizes``: their records) over the kept
        SAs: ``tabled`` (each class's over the tabled SAs, :class:`ValueTables`) and the others'
        from the rows' ``values(i)`` of SA i and records (the source's value counts;
        ``beyond_one``: the rows of more than one record, when kept)."""
        t = np.array(tabled, dtype=np.float64)
        for i in kept:
            if i in self.tables.tabled:
                continue
            np.maximum(t, class_t(local, len(sizes), sizes, values(i), len(self.uniques[i]), counts,
                                  self.roles.sa[i] in self.roles.continuous, self.value_counts(i), beyond_one), out=t)
        return t

    @cached_property
    def beyond_one(self) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the aggregate that stand for more than one record (few where the QI and
        SA values nearly tell the records apart) and their records less one."""
        at = np.flatnonzero(self.cnt > 1)
        return at, self.cnt[at].astype(np.int64) - 1

    def _full_is_combo(self, groups: SaGroups) -> bool:
        """Whether the full SA groups are the SA combinations themselves, numbered alike (every
        SA kept: the combinations are distinct and numbered in the order of their codes, as
        the groups are), so a row's group is its combination without a gather."""
        full, n_full = groups.full
        if n_full != self.combos:
            return False
        if self._full_identity is None or self._full_identity[0] is not full:
            self._full_identity = (full, bool(np.array_equal(full, _positions(self.combos))))
        return self._full_identity[1]


def _own_class(lattice: AggregateLattice, piece: tuple, class_of_finest, sizes, dropped, kept, groups: SaGroups,
               representative: np.ndarray, w: np.ndarray, masks: list, tabled: np.ndarray) -> list[float]:
    """:meth:`AggregateLattice.scored_sum` of one class of more rows than a piece, over its own
    distinct full SA groups, never a pass over every group of the source: its rows read in parts
    of at most :attr:`~AggregateLattice.own_rows` — once to find its groups (through a map of every
    group to its number in the class, one a node in flight, kept: :class:`_Numbering`) and their
    records, and, when there is more than one part, once more to give each row its group's
    masks —, its l-DF (exact without the coarser nodes' masks, which it does not read) and t
    over those groups."""
    (finest,) = piece
    cls = int(class_of_finest[finest[0]])
    parts = list(_pieces_of(finest, lattice.offsets, lattice.finest_rows, lattice.own_rows))
    with lattice._maps.free() as number:
        numbering, records = _Numbering(number), np.zeros(0, dtype=np.float64)
        for rows in parts:
            group = numbering.add(_full_groups(lattice, groups, rows))
            found = np.bincount(group, weights=np.take(lattice.cnt, rows), minlength=len(numbering.values))
            found[:len(records)] += records
            records = found
        at, m = numbering.values, len(numbering.values)
        combos = representative[at]
        # each SA's lines gathered as its count reaches it (one at a time)
        l, found = _l_of_own_groups((None if o is None else np.take(o[0], combos) for o in groups.others), m,
                                    number)
        if len(parts) > 1 and any(mask is not None for mask in found):
            number[at] = _positions(len(at))     # the map of the class's groups again (the l-DF used it)
        for rows in parts if any(mask is not None for mask in found) else ():
            if len(parts) > 1:
                group = number[_full_groups(lattice, groups, rows)]
            _assemble(masks, [None if mask is None else np.take(mask, group) for mask in found], rows, lattice.rows)
    del numbering, at, found
    if dropped[cls]:
        return []
    t = lattice._t(kept, np.zeros(m, dtype=np.int64), sizes[cls:cls + 1],
                   lambda i: lattice.combo_s[i][combos].astype(np.int64), records.astype(np.int64),
                   tabled[cls:cls + 1])
    score = t[0] + w[combos]
    score /= l
    return exact_parts(score, records)


def _full_groups(lattice: AggregateLattice, groups: SaGroups, rows: np.ndarray) -> np.ndarray:
    """The full SA group of each of the aggregate's ``rows``."""
    combo = np.take(lattice.combo, rows)
    return combo if lattice._full_is_combo(groups) else np.take(groups.full[0], combo)


class _Numbering:
    """The distinct values of arrays given in turn, numbered as first met through ``number`` (a
    free map of at least their cardinality, never cleared: a value's entry is its number when
    that number's value is it)."""

    def __init__(self, number: np.ndarray):
        self.number, self.values = number, np.zeros(0, dtype=np.int64)

    def add(self, g: np.ndarray) -> np.ndarray:
        """Each entry of ``g``'s number (values not met before numbered after those that were)."""
        number, m = self.number, len(self.values)
        found = met = None
        new = g
        if m:
            found = np.take(number, g)
            met = found >= 0
            met &= found < m
            met[met] = np.take(self.values, found[met]) == g[met]
            if met.all():
                return found
            new = g[~met]
        positions = _positions(len(new))
        number[new] = positions
        first = new[np.take(number, new) == positions]
        number[first] = _positions(m + len(first))[m:]
        self.values = np.concatenate([self.values, first]) if m else first
        if found is None:
            return np.take(number, new)
        found[~met] = np.take(number, new)
        return found


class _Maps:
    """Maps of each of ``n`` SA combinations (or full groups) to a number, one a node in flight
    (:func:`_own_class`; :data:`COMBINATION_BYTES`), kept for the next class."""

    def __init__(self, n: int):
        self.n, self._free, self._lock = n, [], threading.Lock()

    @contextmanager
    def free(self):
        with self._lock:
            number = self._free.pop() if self._free else None
        if number is None:
            number = np.empty(self.n, dtype=np.int32)
        try:
            yield number
        finally:
            with self._lock:
                self._free.append(number)


def _l_of_own_groups(lines, m: int, number: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The l-DF of one class's ``m`` distinct full SA groups (:func:`l_of_classes`' count, exact
    without the coarser nodes' masks: a row they close is 1 here too), and for each SA a table
    over them: whether the finer classes must count it there. ``lines`` (read once): for each SA,
    each group's group of the other SAs (None with one SA: one for all) — its values of the SA are the groups
    sharing it, counted through ``number`` (a free map of at least their cardinality), no sort."""
    l, inverses = None, []
    for line in lines:
        if line is None:
            inverse, k = np.zeros(m, dtype=np.int32), 1
        else:
            numbering = _Numbering(number)
            inverse = numbering.add(line)
            k = len(numbering.values)
        d = np.take(np.bincount(inverse, minlength=k).astype(np.int32), inverse)    # at most m
        l = d if l is None else np.minimum(l, d, out=l)
        inverses.append((inverse, k))
    live = l > 1
    return l, [np.bincount(inverse, weights=live, minlength=k).astype(np.bool_)[inverse] for inverse, k in inverses]


def _pieces_of(finest: np.ndarray, offsets: np.ndarray, per_finest: np.ndarray, chunk: int):
    """The entries of the finest classes ``finest`` (``offsets``, ``per_finest``: where each
    one's entries start and how many), in pieces of about ``chunk``."""
    sizes = per_finest[finest]
    bounds = run_bounds(sizes, chunk)
    for start, stop in zip(bounds[:-1], bounds[1:]):
        yield _ranges(offsets[finest[start:stop]], sizes[start:stop])


def _runs(classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each entry's run of equal ``classes`` (sorted), numbered from 0, and each run's class."""
    start = np.empty(len(classes), dtype=np.bool_)
    start[:1] = True
    np.not_equal(classes[1:], classes[:-1], out=start[1:])
    local = np.cumsum(start, dtype=np.int64)
    local -= 1
    return local, classes[start]


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenated ranges [start, start + length)."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
    shift += np.arange(total, dtype=np.int64)
    return shift


@dataclass
class _Classes:
    """A node's class of each finest class, and the finest classes in class order."""

    of_finest: np.ndarray
    count: int

    @cached_property
    def order(self) -> np.ndarray:
        # a stable sort of the narrowest integers (a radix sort up to 16 bits)
        return np.argsort(self.of_finest.astype(_small(self.count), copy=False), kind="stable")

    @cached_property
    def by_class(self) -> np.ndarray:
        return self.of_finest[self.order]


def _class_pieces(classes: _Classes, per_finest: np.ndarray, chunk: int):
    """A node's finest classes in pieces of whole classes of at most 2·``chunk`` entries
    (``per_finest``: each finest class's), as an array of finest classes in class order, and
    each class of more than ``chunk`` entries alone (a 1-tuple)."""
    class_rows = np.bincount(classes.of_finest, weights=per_finest, minlength=classes.count)
    big = class_rows > chunk
    order, by_class = classes.order, classes.by_class
    if big.any():
        large = big[by_class]
        for part in np.split(order[large], np.flatnonzero(np.diff(by_class[large])) + 1):
            yield (part,)
        order, by_class = order[~large], by_class[~large]
    if not len(order):
        return
    if class_rows.sum() <= chunk:
        yield order
        return
    small = np.where(big, 0.0, class_rows)
    piece = ((np.cumsum(small) - small) // chunk).astype(np.int64)[by_class]
    yield from np.split(order, np.flatnonzero(np.diff(piece)) + 1)


class _RowGroups:
    """The SA groupings (the fields of :class:`SaGroups` that :func:`l_of_classes` reads) of
    some rows of the aggregate, each row read at its SA combination (``combo``) in the
    combinations' groupings ``groups`` (:meth:`AggregateLattice.sa_groups`): each field gathered
    when a path of the l-DF first asks for it (counting by one sort reads only the mixed-radix
    keys), in the narrowest integers that hold it, then kept."""

    value_counts: tuple = ()
    joint: dict = {}

    def __init__(self, groups: SaGroups, combo: np.ndarray, codes: list[np.ndarray]):
        self._groups, self._combo, self._codes = groups, combo, codes
        self.order = groups.order
        self._weights = None

    def at(self, table: np.ndarray) -> np.ndarray:
        """``table`` (one entry per SA combination) at each row."""
        return np.take(table, self._combo)     # (take: a third cheaper than indexing by a narrow array)

    def weights(self, w: np.ndarray) -> np.ndarray:
        """W(r) of each row (``w``: each SA combination's), kept while ``w`` is the same."""
        if self._weights is None or self._weights[0] is not w:
            self._weights = (w, self.at(w))
        return self._weights[1]

    @cached_property
    def full(self) -> tuple[np.ndarray, int]:
        return self.at(self._groups.full[0]), self._groups.full[1]

    @cached_property
    def others(self) -> "_Fields":
        return _Fields(self._groups.others, self._combo)

    @cached_property
    def codes(self) -> "_Fields":
        """Each kept SA's value code of each row (``codes``: the combinations'), and its cardinality."""
        return _Fields([(codes, cardinality) for codes, (_, cardinality) in zip(self._codes, self._groups.codes)],
                       self._combo)

    @property
    def positions(self) -> np.ndarray:
        return _positions(len(self._combo))

    @cached_property
    def radix(self) -> tuple | None:
        """The combinations' mixed-radix keys with the rows' positions in their low bits."""
        if self._groups.radix is None:
            return None
        n = len(self._combo)
        order, cards, places, keys, bits = self._groups.radix
        width = max(int(n - 1).bit_length(), 1)
        if math.prod(cards) >= 1 << (63 - width):
            return None
        key = self.at(keys)
        key >>= np.int64(bits)
        key <<= np.int64(width)
        key |= _positions(n)
        return order, cards, places, key, width


class _Fields(Groupings):
    """Groupings of the SA combinations (``fields``: each a (code of each combination,
    cardinality), or None) read at some rows (``combo``: each row's combination): each
    grouping gathered at every row when first indexed and then kept, or only at the rows a
    count reads (:meth:`at_rows`, e.g. the l-DF's open rows) without gathering the others."""

    def __init__(self, fields, combo: np.ndarray):
        super().__init__(fields)
        self._combo = combo
        self._gathered: dict[int, tuple[np.ndarray, int]] = {}

    def __getitem__(self, i: int) -> tuple[np.ndarray, int] | None:
        field = self._fields[i]
        if field is None:
            return None
        gathered = self._gathered.get(i)
        if gathered is None:
            gathered = self._gathered[i] = (np.take(field[0], self._combo), field[1])
        return gathered

    def at_rows(self, i: int, rows: np.ndarray | None) -> np.ndarray:
        if rows is None:
            return self[i][0]
        gathered = self._gathered.get(i)
        if gathered is not None:
            return np.take(gathered[0], rows)
        return np.take(self._fields[i][0], np.take(self._combo, rows))


_POSITIONS = [np.zeros(0, dtype=np.int64)]


def _positions(n: int) -> np.ndarray:
    """0..n-1 (a read-only view of one array shared by every piece and node)."""
    positions = _POSITIONS[0]
    if len(positions) < n:
        positions = np.arange(max(n, 2 * len(positions)), dtype=np.int64)
        positions.flags.writeable = False
        _POSITIONS[0] = positions
    return positions[:n]


def _assemble(masks: list, found: list, rows: np.ndarray, n: int) -> None:
    """The piece's masks (None: every row open) into the node's."""
    for i, mask in enumerate(found):
        if mask is not None:
            if masks[i] is None:
                masks[i] = np.ones(n, dtype=np.bool_)
            masks[i][rows] = mask


_pairs = weighted_class_value_pairs


PAIRS_A_CELL = 0.25
"""A categorical SA's (value, finest class) table is kept as its occupied cells when at most this
share of its cells is occupied: a node counts an occupied cell (a gather and a weighted count)
at about three times a table cell's cost (measured on the benchmark's table at 1M rows: 1.5M
occupied of 7.7M cells over three SAs, 10 ms a node against 17 for the whole tables)."""


class ValueTables:
    """Each categorical SA's records per (value, finest class) — a row of the finest classes'
    records a value, in the narrowest integers holding a finest class's records, or, when
    few of those cells are occupied, only the occupied ones (:data:`PAIRS_A_CELL`) — built once
    from the rows (in pieces of whole finest classes), so that every node's (class, value)
    counts, its t over those SAs and its published l and t, are roll-ups of its finest
    classes' counts: a count by class of each value's row (a pass over the finest classes a
    value, whatever the node's classes), or one count of the occupied cells, the distances
    summed value by value. Only SAs whose table has at most :data:`TABLE_CELLS_A_ROW` cells
    a row are tabled; the others (and every continuous SA: its ordered EMD needs its values in
    order) are counted over the rows."""

    def __init__(self, lattice: "AggregateLattice"):
        self.lattice = lattice
        finest = len(lattice.finest_rows)
        self.dtype = _small(int(lattice.finest_cnt.max(initial=0)) + 1)
        self.tabled = frozenset(i for i, (name, values) in enumerate(zip(lattice.roles.sa, lattice.uniques))
                                if name not in lattice.roles.continuous
                                and finest * max(len(values), 1) <= TABLE_CELLS_A_ROW * max(lattice.rows, 1))
        # a whole table's bytes, or at most those of its occupied cells (a value, finest class and records each)
        self.bytes = sum(finest * max(len(lattice.uniques[i]), 1) * max(
            self.dtype.itemsize, PAIRS_A_CELL * (_small(len(lattice.uniques[i])).itemsize + _small(finest).itemsize
                                                 + self.dtype.itemsize)) for i in self.tabled)
        self.bytes = int(math.ceil(self.bytes))
        self._tables: dict[int, np.ndarray | tuple] = {}
        self._lock = threading.Lock()

    def table(self, i: int) -> np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]:
        """SA ``i``'s records per (value code, finest class): the whole table, or its occupied
        cells (value codes, finest classes and records; by value, then finest class)."""
        with self._lock:
            table = self._tables.get(i)
            if table is None:
                lattice = self.lattice
                m = max(len(lattice.uniques[i]), 1)
                table = np.zeros((m, len(lattice.finest_rows)), dtype=self.dtype)
                for first, last in lattice._finest_pieces():
                    rows = slice(int(lattice.offsets[first]), int(lattice.offsets[last]))
                    key = lattice.combo_s[i][lattice.combo[rows]].astype(np.int64) * np.int64(last - first)
                    key += np.repeat(np.arange(last - first, dtype=np.int64), lattice.finest_rows[first:last])
                    table[:, first:last] = np.bincount(key, weights=lattice.cnt[rows],
                                                       minlength=(last - first) * m).reshape(m, last - first)
                if np.count_nonzero(table) <= PAIRS_A_CELL * table.size:
                    value, finest = np.nonzero(table)
                    table = (value.astype(_small(m)), finest.astype(_small(table.shape[1])),
                             table[value, finest])
                table = self._tables[i] = table
            return table

    def counts(self, i: int, classes: "_Classes"):
        """SA ``i``'s records of each value by class at a node, a value at a time (its code and
        each class's records: exact integers as doubles)."""
        table = self.table(i)
        if isinstance(table, tuple):    # the occupied cells, counted by (value, class) at once
            value, finest, records = table
            m = max(len(self.lattice.uniques[i]), 1)
            key = np.multiply(value, np.int64(classes.count), dtype=np.int64)
            key += classes.of_finest[finest]
            yield from enumerate(np.bincount(key, weights=records, minlength=m * classes.count)
                                 .reshape(m, classes.count))
            return
        for value, row in enumerate(table):
            yield value, np.bincount(classes.of_finest, weights=row, minlength=classes.count)

    def records(self, i: int, at_finest: np.ndarray) -> np.ndarray:
        """SA ``i``'s records of each value in the finest classes ``at_finest`` marks."""
        table = self.table(i)
        if isinstance(table, tuple):
            value, finest, records = table
            return np.bincount(value, weights=np.where(at_finest[finest], records, 0.0),
                               minlength=max(len(self.lattice.uniques[i]), 1)).astype(np.int64)
        return np.array([row.sum(where=at_finest, dtype=np.int64) for row in table], dtype=np.int64)

    def t(self, kept: list[int], classes: "_Classes", sizes: np.ndarray) -> np.ndarray:
        """Each class's t over the kept tabled SAs (0 with none): the variational distance of
        :func:`class_t` on the same integers (every sum exact), so the same doubles."""
        t = np.zeros(classes.count, dtype=np.float64)
        for i in kept:
            if i in self.tabled:
                whole, n = self.lattice.value_counts(i)
                np.maximum(t, self._distance(self.counts(i, classes), sizes, whole, n), out=t)
        return t

    def models(self, i: int, classes: "_Classes", published: np.ndarray, sizes: np.ndarray) -> tuple[int, float]:
        """l and t of SA ``i`` over the published classes (``published``: each class's): the
        fewest distinct values of a published class, and the largest distance of a published
        class's values from the published records'."""
        distinct = np.zeros(int(published.sum()), dtype=np.int64)
        if not len(distinct):
            return np.iinfo(np.int64).max, 0.0
        # the published records of each value from the finest classes' (no count by class), so
        # the classes' counts are made once, each value's distinct classes counted on the way
        whole = self.records(i, published[classes.of_finest])

        def shown():
            for value, counts in self.counts(i, classes):
                counts = counts[published]
                np.add(distinct, counts > 0, out=distinct)
                yield value, counts

        t = self._distance(shown(), sizes[published], whole, int(whole.sum()))
        return int(distinct.min()), float(t.max())

    @staticmethod
    def _distance(counts, sizes: np.ndarray, whole: np.ndarray, n: int) -> np.ndarray:
        """½ Σ_v |c_v·n − C_v·k| / (k·n) of each class (``counts``: each value's count by class,
        value by value; ``sizes``: k; ``whole``: C, of ``n`` records), the numerator an exact
        integer as :func:`class_t` sums it."""
        numerator = np.zeros(len(sizes), dtype=np.int64)
        for value, c in counts:
            numerator += variational_numerator(c, sizes, whole[value], n)
        return variational_distance_of_numerator(numerator, sizes, n)


def value_counts(values: np.ndarray, m: int, counts: np.ndarray) -> tuple[np.ndarray, int]:
    """The records holding each of an SA's ``m`` values, and all the records."""
    return records_by_key(values, counts, m), int(counts.sum())


def class_t(classes: np.ndarray, n_classes: int, sizes: np.ndarray, values: np.ndarray, m: int,
            counts: np.ndarray, continuous: bool, table: tuple[np.ndarray, int] | None = None,
            beyond_one=None) -> np.ndarray:
    """t of each class for one SA from weighted rows: the ordered EMD of a continuous SA
    (``values``: ranks in numeric order), else the variational distance — the in-memory
    formulas on the same integer counts (``table``: :func:`value_counts` of the rows, when kept;
    ``beyond_one``: the rows of more than one record, when kept)."""
    table_counts, n = table if table is not None else value_counts(values, m, counts)
    if continuous:
        return ordered_emd_of_weighted(classes, n_classes, sizes, values, m, counts, table_counts, n, beyond_one)
    cls, val, pair_counts = _pairs(classes, n_classes, values, m, counts)
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
        class_of_finest, sizes = lattice.classes(design)
        dropped, _ = suppressed_classes(sizes, design.suppress_below, design.suppression_limit)
        kept = sizes[~dropped & (sizes > 0)]
        self.k = int(kept.min()) if len(kept) else 0
        suppressed = int(sizes[dropped].sum())
        self.published = lattice.n - suppressed
        self.share = suppressed / lattice.n if lattice.n else 0.0
        self.loss = 1.0 - lattice.precision(design, suppressed) if self.published else 1.0
        self._classes = (_Classes(class_of_finest, len(sizes)), sizes, dropped)
        self.l = self.t = self.tkl = None

    def _release(self):
        if self._classes is None:
            class_of_finest, sizes = self.lattice.classes(self.design)
            dropped = suppressed_classes(sizes, self.design.suppress_below, self.design.suppression_limit)[0]
            self._classes = (_Classes(class_of_finest, len(sizes)), sizes, dropped)
        return self._classes

    def done(self) -> None:
        self._classes = None

    def complete_models(self) -> bool:
        """l and t of the published table; False when nothing is published."""
        if self.l is None and self.published:
            lattice = self.lattice
            classes, sizes, dropped = self._release()
            l, t = np.iinfo(np.int64).max, 0.0
            for i in lattice.kept(self.design):
                if i in lattice.tables.tabled:
                    l_i, t_i = lattice.tables.models(i, classes, ~dropped, sizes)
                    l, t = min(l, l_i), max(t, t_i)
                    continue
                m = len(lattice.uniques[i])
                pieces = lattice.class_pairs(i, classes)
                if lattice.whole:     # one piece of every pair: gathered once for both passes
                    pieces = list(pieces)
                table = np.zeros(m, dtype=np.float64)      # the published records of each value
                for inside, local, value, counts in pieces:
                    published = ~dropped[inside][local]
                    table += np.bincount(value[published], weights=counts[published], minlength=m)
                used = np.flatnonzero(table)
                rank = np.zeros(m, dtype=np.int64)
                rank[used] = np.arange(len(used))
                table = table[used].astype(np.int64)
                table = (table, int(table.sum()))
                for inside, local, value, counts in (pieces if lattice.whole else lattice.class_pairs(i, classes)):
                    kept = ~dropped[inside]
                    if not kept.any():
                        continue
                    published = kept[local]
                    dense = (np.cumsum(kept) - 1)[local[published]]
                    n_kept, values, counts = int(kept.sum()), rank[value[published]], counts[published]
                    pair_class, _, _ = _pairs(dense, n_kept, values, len(used), counts)
                    l = min(l, int(np.bincount(pair_class, minlength=n_kept).min()))
                    per_class = class_t(dense, n_kept, sizes[inside[kept]], values, len(used), counts,
                                        lattice.roles.sa[i] in lattice.roles.continuous, table)
                    t = max(t, float(per_class.max()))
            self.l, self.t = int(l), t
        return self.l is not None

    def complete_scores(self, weights, x, missing_weight_zero) -> None:
        if self.tkl is None and self.published:
            self.tkl = self.scores(weights, x)

    def scores(self, weights, x) -> float:
        """The published rows' tkl-Score normalised by the source's."""
        lattice = self.lattice
        classes, sizes, dropped = self._release()
        kept = lattice.kept(self.design)
        total = lattice.scored_sum(self.design, classes, sizes, dropped, kept, weights)
        # only the tkl-Score is normalised here (the suggestion's figure): its sum over the records
        published = int(sizes[~dropped].sum())
        normalized = normalise_by_source(ScoreSet(total, 0.0, 0.0, 0.0, 0.0), lattice._whole, published)
        return 0.0 if normalized.tkl is None else float(normalized.tkl)
