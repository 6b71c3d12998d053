"""Distinguishing factors of records (thesis Definitions 12, 15, 16; spec scoring.md).

All three are computed against the SOURCE table, once per (source, roles):

- k-DF(r): size of r's equivalence class (records sharing r's QI values).
- l-DF(r): minimal multi-attribute l-diversity of the groups containing r: for each SA
  A_i, group by QI ∪ (SA \\ {A_i}) and count the distinct values of A_i in r's group.
- t-DF(r): maximal t-closeness of r's equivalence class over the SAs: variational
  distance for a categorical SA, ordered Earth Mover's Distance with 1/(m-1) for a
  continuous one.

With no QIs the factors depend on the published table P instead: k-DF = |P|, l-DF is
the multi-attribute l-diversity of P grouped by the SAs only, t-DF = 0
(:func:`factors_without_quasi_identifiers`).

Cost: one sort of the n rows by a mixed-radix key (QI class, A_0, …, A_{s-1}) finds the
full groups; each SA then needs one sort of the F ≤ n full groups (none for the last),
and each t-DF one counting pass (the ordered EMD's (class, value) pairs come sorted from
the full groups, O(pairs · log m)). When the key space is too large for one integer, the
same group-bys are hashed. Nothing is quadratic in the rows or in the distinct values.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tklscore.core.tables.codes import (BESIDE, BESIDE_THREADS, Codes, compact,  # noqa: F401 (BESIDE: the t-DFs run there)
                                        dense_limit, group_ids, group_sizes, ordered_ids, run_lengths,
                                        run_sizes, run_starts, sort_with_positions, table_counts)


class DistinguishingFactors:
    """Per-record factors (arrays aligned with the records they were computed for) and,
    for explanations, each equivalence class's t-closeness per sensitive attribute.
    ``k`` may be given as None with ``class_sizes`` (each equivalence class's size), and ``t``
    as None with ``class_t_max`` (each class's t over the SAs): each is then gathered per
    record when first read (a search that sums tkl never reads k, and reads t once)."""

    __slots__ = ("_k", "l", "_t", "equivalence_class", "class_t", "_class_sizes", "_class_t_max")

    def __init__(self, k: np.ndarray | None, l: np.ndarray, t: np.ndarray | None, equivalence_class: np.ndarray,
                 class_t: dict[str, np.ndarray], class_sizes: np.ndarray | None = None,
                 class_t_max: np.ndarray | None = None):
        if (k is None and class_sizes is None) or (t is None and class_t_max is None):
            raise ValueError("k and t, or the classes' sizes and t they are read from, must be given")
        self._k, self.l, self._t, self.equivalence_class, self.class_t = k, l, t, equivalence_class, class_t
        self._class_sizes, self._class_t_max = class_sizes, class_t_max

    @property
    def k(self) -> np.ndarray:
        if self._k is None:   # two threads may both gather it: the same array
            self._k = self._class_sizes[self.equivalence_class]
        return self._k

    def k_as(self, dtype) -> np.ndarray:
        """k of each record in ``dtype``, a new array: from the classes' sizes in that type when k
        is not held (one gather, no integer k made first)."""
        if self._k is not None:
            return self._k.astype(dtype)
        return np.take(self._class_sizes.astype(dtype), self.equivalence_class)

    @property
    def t(self) -> np.ndarray:
        if self._t is None:   # as k
            self._t = self._class_t_max[self.equivalence_class]
        return self._t

    def t_plus(self, values: np.ndarray) -> np.ndarray:
        """t + ``values`` of each record, a new array (t itself not kept when not read yet)."""
        if self._t is not None:
            return np.add(self._t, values)
        out = np.take(self._class_t_max, self.equivalence_class)
        out += values
        return out

    def take(self, positions: np.ndarray) -> "DistinguishingFactors":
        return DistinguishingFactors(None if self._k is None else self._k[positions], self.l[positions],
                                     None if self._t is None else self._t[positions],
                                     self.equivalence_class[positions], self.class_t, self._class_sizes,
                                     self._class_t_max)


def compute_distinguishing_factors(qi: list[Codes], sa: dict[str, Codes],
                                   continuous: frozenset[str] | set[str],
                                   progress=None, groups: SaGroups | None = None,
                                   beside=None, classes: tuple | None = None,
                                   l_of_groups=None) -> DistinguishingFactors:
    """k-, l- and t-DF of every source record, with ``qi`` (at least one) and ``sa``
    (at least one, name → codes; a continuous SA's uniques are sorted numbers).
    ``progress(fraction)`` is called between the steps (it may raise to stop). ``groups``:
    :func:`sa_groups` of ``sa`` when the caller keeps them for many sets of QIs.
    ``beside``: an executor on which the t-DF runs while the l-DF runs here. ``classes``:
    ``group_ids(qi, n)`` when the caller has them already, perhaps with each class's size
    (``(ids, count, sizes)``). ``l_of_groups(classes, groups,
    step)``: how the l-DF is found from ``groups`` (a :class:`LatticeL`'s, for a lattice)."""
    steps, done = 2 * len(sa) + 1, 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done / steps)

    n = len(next(iter(sa.values())).codes)
    classes, n_classes, *sized = classes if classes is not None else group_ids(qi, n)
    class_sizes = sized[0] if sized else np.bincount(classes, minlength=n_classes)
    step()
    # the first continuous SA goes first after the class in the full key: the full groups,
    # sorted, then hand over its (class, value) pairs sorted as the ordered EMD needs them
    names = sorted(sa, key=lambda name: name not in continuous)
    # its t-DF waits for those pairs; every other t-DF needs only the classes and starts now
    deferred = names[0] if groups is None and names[0] in continuous else None
    leading = None

    counted = dict(zip(sa, groups.value_counts)) if groups is not None and groups.value_counts else {}

    def t_of_class(name: str) -> np.ndarray:
        codes = sa[name]
        value_counts = counted.get(name)
        if name in continuous:
            if leading is not None and name == names[0]:
                return ordered_emd_from_pairs(*leading, n_classes, class_sizes,
                                              np.bincount(codes.codes, minlength=codes.cardinality), n)
            return ordered_emd_by_class(classes, n_classes, class_sizes, codes, value_counts=value_counts)
        return variational_distance_by_class(classes, n_classes, class_sizes, codes, table_counts=value_counts)

    joint = _joint_categorical(groups, [i for i, name in enumerate(sa) if name not in continuous], n_classes, n)
    together = [] if joint is None else [list(sa)[i] for i in joint[0]]

    def t_of_categorical() -> dict[str, np.ndarray]:
        # few classes: one count of each (class, every categorical SA's value) cell, each SA's
        # (class, value) table a sum of it — one pass over the rows instead of one per SA
        indices, key, cards = joint
        cells = math.prod(cards)
        cell = np.multiply(classes, np.int64(cells), dtype=np.int64)
        cell += key
        table = np.bincount(cell, minlength=n_classes * cells).reshape((n_classes,) + cards)
        del cell
        out = {}
        for axis, name in enumerate(together):
            counts = table.sum(axis=tuple(a + 1 for a in range(len(cards)) if a != axis)).ravel()
            occupied = np.flatnonzero(counts)
            cls, val = np.divmod(occupied, np.int64(cards[axis]))
            out[name] = variational_distance_by_class(classes, n_classes, class_sizes, sa[name],
                                                      (cls, val, counts[occupied]), counted.get(name))
        return out

    work = _SharedWork([(name, lambda name=name: t_of_class(name)) for name in sa
                        if name not in together and name != deferred]
                       + ([(None, t_of_categorical)] if together else []))
    helper = beside.submit(work.run) if beside is not None else None
    try:
        full = None if groups is not None else _FullGroups.build((classes, n_classes), [sa[name] for name in names])
        if deferred is not None:
            leading = full.leading_pairs() if full is not None else None
            work.add([(deferred, lambda: t_of_class(deferred))])
            if helper is not None and helper.done():   # it ran out of tasks during the sort
                helper.result()
                helper = beside.submit(work.run)
        if groups is not None:
            l = (l_of_groups or l_distinguishing_factor_of_classes)((classes, n_classes), groups, step)
        elif full is None:
            l = l_distinguishing_factor(qi, list(sa.values()), n, step, (classes, n_classes))
        else:
            l = full.l_distinguishing_factor(step)
        work.run()   # the t-DFs the helper has not taken yet
    except BaseException:
        work.cancel()
        raise
    if helper is not None:
        helper.result()
    class_t = {}
    of_together = work.results[None] if together else {}
    highest = np.zeros(n_classes, dtype=np.float64)   # each class's t over the SAs: one gather for the rows
    for name in sa:
        per_class = of_together[name] if name in of_together else work.results[name]
        class_t[name] = per_class
        np.maximum(highest, per_class, out=highest)
        step()
    return DistinguishingFactors(None, l, None, classes, class_t, class_sizes, highest)


class _SharedWork:
    """Tasks (key, function) taken one at a time by whichever thread asks next — a helper on
    :data:`BESIDE` from the start, the caller once its own work (the l-DF) is done — so that
    two cores share them while at most two tasks' temporaries are alive at once (a task
    per worker of BESIDE beside the l-DF held three sets of them: memory touched for the
    first time is most of the first scoring's cost). ``results``: key → value."""

    def __init__(self, tasks):
        self._tasks = list(tasks)
        self._lock = threading.Lock()
        self.results = {}

    def run(self) -> None:
        while True:
            with self._lock:
                if not self._tasks:
                    return
                key, task = self._tasks.pop(0)
            self.results[key] = task()

    def add(self, tasks) -> None:
        with self._lock:
            self._tasks.extend(tasks)

    def cancel(self) -> None:
        """No task is started after this (one running finishes)."""
        with self._lock:
            self._tasks.clear()


JOINT_CELLS = 1.0
"""The categorical SAs' t-DF is counted in one (class, every categorical value) table when the
table has at most JOINT_CELLS cells a row (:func:`_joint_categorical`)."""


def _joint_categorical(groups: "SaGroups | None", indices: list[int], n_classes: int, n: int):
    """(the categorical SAs' indices, each row's joint code over them, their cardinalities)
    when two or more of them fit one (class, values) table of at most JOINT_CELLS cells a row;
    else None. The joint code is kept in ``groups`` for every node."""
    if groups is None or len(indices) < 2 or len(groups.codes) <= max(indices):
        return None
    cards = tuple(groups.codes[i][1] for i in indices)
    if max(int(n_classes), 1) * math.prod(cards) > JOINT_CELLS * n:
        return None
    key = groups.joint.get(tuple(indices))
    if key is None:
        key = np.zeros(n, dtype=np.int64)
        for i, cardinality in zip(indices, cards):
            key *= np.int64(cardinality)
            key += groups.codes[i][0]
        groups.joint[tuple(indices)] = key
    return tuple(indices), key, cards


def factors_without_quasi_identifiers(sa_at_published: list[Codes]) -> DistinguishingFactors:
    """Factors of the records of P when there are no QIs: k = |P|, l from P grouped by
    the SAs only, t = 0 (Definitions 12, 15, 16)."""
    n = len(sa_at_published[0].codes) if sa_at_published else 0
    k = np.full(n, n, dtype=np.int64)
    l = l_distinguishing_factor([], sa_at_published, n)
    return DistinguishingFactors(k, l, np.zeros(n), np.zeros(n, dtype=np.int64), {})


class Groupings:
    """Groupings of some rows (each a (code of each row, cardinality), or None: no grouping),
    asked in one way by every count: ``groupings[i]`` (the codes of every row),
    :meth:`cardinality` (without reading the codes) and :meth:`at_rows` (the codes of some
    rows only). Here every grouping is held whole; a lattice's are gathered when read
    (:class:`~tklscore.core.engines.lattice._Fields`)."""

    def __init__(self, fields):
        self._fields = list(fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __getitem__(self, i: int) -> tuple[np.ndarray, int] | None:
        return self._fields[i]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def cardinality(self, i: int) -> int | None:
        """Grouping ``i``'s number of groups (None: no grouping)."""
        field = self._fields[i]
        return None if field is None else field[1]

    def at_rows(self, i: int, rows: np.ndarray | None) -> np.ndarray:
        """Grouping ``i``'s code of each of ``rows`` (positions among the rows; None: every row)."""
        codes = self[i][0]
        return codes if rows is None else codes[rows]


@dataclass(frozen=True)
class SaGroups:
    """The groupings of the rows by the sensitive attributes alone, which the l-DF of any
    QI classes combines with (they do not change when the QIs are generalised): ``full``
    by every SA, ``others[i]`` by every SA but the i-th (None with one SA), and the order
    in which to visit the SAs (fewest values first: its groups are the finest, so most
    records reach l = 1 there and later SAs need only look at the others)."""

    full: tuple[np.ndarray, int]
    others: Groupings
    order: tuple[int, ...]
    radix: tuple | None = None   # the SAs' mixed-radix key of each row for :func:`_l_by_runs`
    value_counts: tuple = ()     # each SA's count of each value code over the rows (the t-DF's table distribution)
    codes: Groupings = Groupings(())   # each SA's (codes, cardinality): :func:`_distinct_by_sort` counts its values
    positions: np.ndarray | None = None   # 0..n-1, read (sliced) by every sort that packs positions
    joint: dict = field(default_factory=dict, compare=False, repr=False)  # SA indices → their joint code per row


def sa_groups(sa: list[Codes], n: int) -> SaGroups:
    columns = [(c.codes, c.cardinality) for c in sa]
    return SaGroups(group_ids(columns, n),
                    Groupings([None if len(columns) == 1 else group_ids(columns[:i] + columns[i + 1:], n)
                               for i in range(len(columns))]),
                    tuple(sorted(range(len(columns)), key=lambda i: columns[i][1])), _sa_radix(columns),
                    tuple(np.bincount(codes, minlength=cardinality) for codes, cardinality in columns),
                    Groupings([(codes.astype(np.int64, copy=False), max(int(cardinality), 1))
                               for codes, cardinality in columns]),
                    np.arange(n, dtype=np.int64))


def _sa_radix(columns: list[tuple[np.ndarray, int]]) -> tuple | None:
    """The SAs in mixed radix, the one with most values first: (each SA's index in that order,
    their cardinalities, each one's place value, each row's key shifted left by ``bits`` with
    the row's position in the low ``bits`` — what :func:`_l_by_runs` adds a node's classes to
    and sorts —, ``bits``); None with fewer than two SAs or keys that do not fit in 63 bits beside the positions."""
    if len(columns) < 2:
        return None
    order = sorted(range(len(columns)), key=lambda i: (-max(int(columns[i][1]), 1), i))
    cards = [max(int(columns[i][1]), 1) for i in order]
    places = [math.prod(cards[j + 1:]) for j in range(len(order))]
    n = len(columns[0][0])
    bits = max(int(n - 1).bit_length(), 1)
    if math.prod(cards) >= 1 << (63 - bits):
        return None
    key = np.zeros(n, dtype=np.int64)
    for i, place in zip(order, places):
        key += columns[i][0] * np.int64(place)
    key <<= np.int64(bits)
    key |= np.arange(n, dtype=np.int64)
    return tuple(order), tuple(cards), tuple(places), key, bits


def l_distinguishing_factor_of_classes(classes: tuple[np.ndarray, int], groups: SaGroups, step=None,
                                      known: list | None = None) -> np.ndarray:
    """:func:`l_distinguishing_factor` of QI ``classes`` from the SA-only ``groups``
    (:func:`sa_groups`, computed once for many sets of classes, e.g. the generalisations
    of a release designer); ``known``: as :func:`l_of_classes`."""
    return l_of_classes(classes, groups, known, step)[0]


def l_of_classes(classes: tuple[np.ndarray, int], groups: SaGroups, known: list | None = None,
                 step=None) -> tuple[np.ndarray, list[np.ndarray]]:
    """The l-DF of every row under QI ``classes``, and for each SA A_i a mask of the rows a
    finer set of classes must count for A_i (a mask per SA, in the order of ``groups``; None:
    every row): what it needs to know (:class:`LatticeL`).

    The group of QI ∪ (SA \\ {A_i}) is (class, others[i]); its distinct values of A_i are
    its distinct (class, full) pairs. A mask holds whole groups and every group that holds a
    row whose l is above 1 (perhaps more: the groups of more than one value, or of a coarser
    node). Generalising only merges groups, so a row whose l is 1 here is 1 at every finer set
    of classes, and a row above 1 there has each group inside its group here: given
    ``known`` (the coarser node's masks, or their intersection), a row outside some mask is 1
    without being counted, and the rows of every mask hold the whole groups of the others.
    Counted by one sort of the rows some mask holds (:func:`_l_by_runs`), or, when its keys do
    not fit in one integer, SA by SA (:data:`APART`) or over every row's pairs."""
    found = _l_by_runs(classes, groups, known)
    if found is None:
        if known is not None and _apart(known, len(classes[0])):
            return _l_per_attribute(classes, groups, known, step)
        return _l_over_pairs(classes, groups, known, step)
    if step is not None:
        for _ in groups.others:
            step()
    return found


APART = 0.55
"""When :func:`_l_by_runs`' keys do not fit, the cost rule between the two other ways of counting
a node's groups: counting each SA's open rows apart (:func:`_l_per_attribute`) costs about a
fixed time per open row, every row's pairs (:func:`_l_over_pairs`) about a fixed time per row
and SA; the first is cheaper while the open rows, summed over the SAs, are fewer than APART
times the rows times the SAs."""


def _apart(known: list, n: int) -> bool:
    """Whether the rows open in the masks ``known`` (None: every row) are few enough to count
    each SA's apart (:data:`APART`)."""
    opened = sum(n if mask is None else int(np.count_nonzero(mask)) for mask in known)
    return opened < APART * n * len(known)


def _l_by_runs(classes: tuple[np.ndarray, int], groups: SaGroups,
               known: list | None = None) -> tuple[np.ndarray, list] | None:
    """:func:`l_of_classes` by one sort: the keys (class, the SAs with most values first) in
    mixed radix of the rows the masks of ``known`` hold (:func:`_open_rows`; every row without
    masks), sorted, give their distinct (class, full) pairs in order. A group of
    QI ∪ (SA \\ {A_i}) holds as many values of A_i as it holds pairs; its pairs share the prefix
    (class, the SAs before A_i), a run of the sorted pairs, and the suffix (the SAs after A_i):
    each SA's groups are counted by (run, suffix) — the prefix itself instead of its run when
    that key is small enough for a table —, by a table when it is small enough, and are runs
    themselves for the last SA (each pair's run, like each sorted row's pair, numbered by one
    count of the runs' starts). A row in every mask has each group whole among the rows
    counted, so its l is exact; any other row's is 1 (:func:`l_of_classes`) — but for the SA
    whose mask is far the widest, whose groups the rows counted may cut short: their count is
    a lower bound, and only the groups of rows where it is below the other SAs' l are counted
    whole (:func:`_bounded_exactly`). None when the keys do not fit in 63 bits beside the row
    positions, or with fewer than two SAs (or more than 24)."""
    ids, count = classes
    n = len(ids)
    if groups.radix is None or n == 0 or len(groups.radix[0]) > 24:
        return None
    order_sa, cards, suffix, packed_sa, bits = groups.radix
    s = len(order_sa)
    bit = np.uint8 if s <= 8 else np.uint16 if s <= 16 else np.uint32
    span = math.prod(cards)
    if max(int(count), 1) * span >= 1 << (63 - bits):
        return None
    rows, inside, bounded = _open_rows(known, n, bound=len(groups.codes) > 0)
    if rows is not None and not len(rows):    # no row in any mask: every l is 1
        return np.ones(n, dtype=np.int64), [np.zeros(n, dtype=np.bool_) for _ in order_sa]
    wide = None if bounded is None else order_sa.index(bounded)   # its place in the keys
    # each row's (class, SAs) key and its position packed in one integer: sorted by value
    if rows is None:
        packed = np.multiply(ids, np.int64(span << bits), dtype=np.int64)
        packed += packed_sa
    else:
        packed = np.multiply(ids[rows], np.int64(span << bits), dtype=np.int64)
        packed += packed_sa[rows]
    # the rows by pair, the pairs, where each one's rows start, and each sorted row's pair
    order, pairs, firsts, _, pair_of = _packed_runs(packed, bits, numbered=True)
    del packed
    m = len(pairs)
    # each pair's l and its bits in the narrowest integers that hold them: a group holds at most
    # every value of an SA, so l ≤ the fewest (the last SA's, whose counts are runs)
    narrow = np.min_scalar_type((min(cards) + 1) << s)
    narrow = narrow if narrow.kind == "u" and narrow.itemsize < 8 else np.dtype(np.int64)
    l = np.full(m, min(cards), dtype=narrow)
    lower = None                            # the widest SA's count among the rows counted
    grouped: list = []                      # each SA's group of each pair: (key, key space)
    # q[j]: (class, the SAs up to A_j) of each pair — each one division of the next
    q: list = [None] * s
    q[s - 1] = pairs
    for j in range(s - 2, -1, -1):
        q[j] = q[j + 1] // np.int64(cards[j + 1])
    for j in range(s):
        if j == s - 1:   # no suffix: each group is a run of the pairs, its count the run's length
            starts, sizes, run = _runs(q[j - 1], numbered=True)
            d = sizes.astype(narrow, copy=False)[run]
            grouped.append((run, len(starts)))
            del starts, run
        else:
            # the key without A_j's digit: (the prefix, the suffix's digits) = pairs − (q[j] − prefix)·suffix
            prefix = q[j - 1] if j else q[0] // np.int64(cards[0])    # (class, the SAs before A_j)
            if j == 0 or max(int(count), 1) * (span // cards[j]) <= dense_limit(m):
                # the prefix itself is a key small enough for a table: no runs numbered
                n_runs = max(int(count), 1) * math.prod(cards[:j])
                run = np.subtract(q[j], prefix)
            else:
                first = run_starts(prefix)
                first[:1] = False
                run = np.cumsum(first, dtype=np.int64)   # the prefix's run
                del first
                n_runs = int(run[-1]) + 1
                np.subtract(q[j], run, out=run)
            del prefix
            if j:
                q[j - 1] = None   # read by A_j only
            size = n_runs * suffix[j]
            run *= np.int64(suffix[j])
            np.subtract(pairs, run, out=run)
            # the group's pairs are distinct values of the SA: at most its cardinality
            d = (table_counts(run, size, cards[j]) if size <= dense_limit(m)
                 else group_sizes(run, groups.positions, bound=cards[j]))
            grouped.append((run, size))
            del run
        if j == wide:
            lower = d
        else:
            np.minimum(l, d, out=l)
        del d
    first = None
    if inside is not None:   # a pair outside some mask: its groups may be cut short here, its l is 1
        first = order[firsts]    # a row of each pair
        del firsts
        np.multiply(l, inside[first], out=l)   # 0 outside, then 1: two passes, no masked write
        np.maximum(l, 1, out=l)
    wide_mask = None
    if wide is not None:
        wide_mask = _bounded_exactly(classes, groups, bounded, known[bounded], l, lower, first)
    del lower
    # bit j: the pair's group of the j-th SA holds a pair whose l is above 1 — what a finer node
    # counts of A_j (a group of more than one value without such a pair would only cost it time)
    live = l > 1
    opened = np.zeros(m, dtype=bit)
    every = []                              # the j-th SA's groups each hold such a pair
    for j, (key, size) in enumerate(grouped):
        grouped[j] = None
        if j == wide:
            every.append(False)
            continue
        open_ = _holding(key, size, live)
        every.append(rows is None and bool(open_.all()))
        opened |= open_.view(np.uint8).astype(bit, copy=False) << bit(j)
    del live, grouped
    # each row's pair: its l and its bits, gathered for the sorted rows and scattered in one pass
    l <<= narrow.type(s)
    l |= opened
    del opened
    if rows is None:
        out = np.empty(n, dtype=narrow)
    else:                                   # the rows not counted: l 1, in no group that matters
        out = np.full(n, 1 << s, dtype=narrow)
    out[order] = l[pair_of]
    del l, order, pair_of
    masks: list = [None] * s
    low = None
    if s <= 8 and not all(every):   # the bits, one byte a row
        low = out if narrow == np.uint8 else out.astype(np.uint8)
    for j, i in enumerate(order_sa):
        if j == wide:
            masks[i] = wide_mask
        elif every[j]:
            continue
        elif low is not None:
            mask = np.right_shift(low, np.uint8(j))
            mask &= np.uint8(1)
            masks[i] = mask.view(np.bool_)
        else:
            masks[i] = np.bitwise_and(out, narrow.type(1 << j)) != 0
    del low
    return np.right_shift(out, narrow.type(s)).astype(np.int64, copy=False), masks


def _open_rows(known: list | None, n: int, bound: bool = True) -> tuple[np.ndarray | None, np.ndarray | None,
                                                                        int | None]:
    """The rows :func:`_l_by_runs` counts (None: every row — no masks, a mask of None, or most
    rows), the rows every mask holds (None: no mask given), and the SA whose mask is left out
    of the first (None: none; ``bound``: one may be): one holding more than WIDE times the rows
    of the others' masks."""
    if known is None or not any(mask is not None for mask in known):
        return None, None, None
    given = [mask for mask in known if mask is not None]
    inside = given[0].copy()
    for mask in given[1:]:
        inside &= mask
    if len(given) < len(known):
        return None, inside, None
    sizes = [int(np.count_nonzero(mask)) for mask in known]
    widest = int(np.argmax(sizes))
    union = None
    for i, mask in enumerate(known):
        if i != widest:
            union = mask.copy() if union is None else np.logical_or(union, mask, out=union)
    bounded = widest if bound and sizes[widest] > WIDE * int(np.count_nonzero(union)) else None
    if bounded is None:
        union |= known[widest]
    rows = np.flatnonzero(union)
    return (None, inside, None) if len(rows) > OPEN_SHARE * n else (rows, inside, bounded)


OPEN_SHARE = 0.8
"""Above this share of the rows open, :func:`_l_by_runs` counts every row (no gather)."""

WIDE = 1.5
"""An SA's mask holding more than WIDE times the rows of the others' is counted apart
(:func:`_bounded_exactly`)."""


def _bounded_exactly(classes: tuple[np.ndarray, int], groups: SaGroups, i: int, mask: np.ndarray,
                     l: np.ndarray, lower: np.ndarray, first: np.ndarray) -> np.ndarray:
    """SA ``i``'s part of :func:`_l_by_runs` when its mask was left out of the rows counted:
    ``lower`` is each pair's count of A_i's values among the rows counted, at most its group's
    (``first``: a row of each pair), ``l`` the pairs' l over the other SAs. Where the lower
    bound reaches l, l is exact; the other pairs' groups are found among the mask's rows and
    counted whole, and l lowered (in place). Returns SA i's mask for the finer nodes: the rows
    of its groups holding a row of l above 1 — or, when no group needed counting, ``mask``.
    """
    short = np.flatnonzero(lower < l)
    if not len(short):
        return mask
    ids, count = classes
    n_o = max(int(groups.others.cardinality(i) or 1), 1)
    size = max(int(count), 1) * n_o
    n = len(ids)
    entries = int(np.count_nonzero(mask))
    # a mask holding most rows is read whole (contiguous passes), its rows picked with the groups
    rows = None if 2 * entries > n else np.flatnonzero(mask)
    key = np.multiply(ids if rows is None else ids[rows], np.int64(n_o), dtype=np.int64)
    key += groups.others.at_rows(i, rows)

    def holding(pairs: np.ndarray) -> np.ndarray:   # the rows counted whose group holds one of the pairs
        at = first[pairs]
        held = _among(key, size, ids[at] * np.int64(n_o) + groups.others.at_rows(i, at), entries)
        if rows is None:
            held &= mask
        return held

    sub = np.flatnonzero(holding(short))
    counted = sub if rows is None else rows[sub]
    d = _distinct_by_sort(key[sub], size, groups.codes.at_rows(i, counted), groups.codes.cardinality(i),
                          groups.positions)
    if d is None:   # the keys do not fit beside the positions: the group-bys
        full, n_full = groups.full
        d = _distinct_in_groups(ids[counted], count, full[counted], n_full, key=(key[sub], size)) \
            if size <= dense_limit(n) else \
            _distinct_in_groups(ids[counted], count, full[counted], n_full, o=(groups.others.at_rows(i, counted), n_o))
    del sub
    position = np.empty(n, dtype=np.int64)   # each counted row's place, read at the pairs' rows
    position[counted] = np.arange(len(counted), dtype=np.int64)
    l[short] = np.minimum(l[short], d[position[first[short]]])
    live = holding(np.flatnonzero(l > 1))
    if rows is None:
        return live
    out = np.zeros(n, dtype=np.bool_)
    out[rows[live]] = True
    return out


def _among(key: np.ndarray, size: int, wanted: np.ndarray, entries: int | None = None) -> np.ndarray:
    """Whether each ``key`` (< ``size``) is one of ``wanted`` — by a table of the key space when
    it is small enough for ``entries`` keys (None: ``key``'s), else of the keys hashed (a key
    sharing a slot with a wanted one is taken too: every group is taken whole or not at all)."""
    if size <= dense_limit(len(key) if entries is None else entries):
        slot, wanted_slot, table = key, wanted, size
    else:
        bits = min(max(int(8 * len(wanted)).bit_length(), 16), 62)
        slot, wanted_slot, table = _slots(key, bits), _slots(wanted, bits), 1 << bits
    touched = np.zeros(table, dtype=np.bool_)
    touched[wanted_slot] = True
    return touched[slot]


def _holding(key: np.ndarray, size: int, live: np.ndarray) -> np.ndarray:
    """Whether each entry's group (``key`` < ``size``) holds a ``live`` entry: :func:`_among` of
    ``key[live]`` (the same table, the same slots), each entry's flag written to its slot by a
    maximum (:func:`numpy.maximum.at`) — no live keys gathered first."""
    if size <= dense_limit(len(key)):
        slot, table = key, size
    else:
        bits = min(max(int(8 * np.count_nonzero(live)).bit_length(), 16), 62)
        slot, table = _slots(key, bits), 1 << bits
    touched = np.zeros(table, dtype=np.uint8)
    np.maximum.at(touched, slot, live.view(np.uint8))
    return touched.view(np.bool_)[slot]


def _l_over_pairs(classes: tuple[np.ndarray, int], groups: SaGroups, known: list | None = None,
                  step=None) -> tuple[np.ndarray, list]:
    """:func:`l_of_classes` over the distinct (class, full) pairs of every row, found once."""
    ids, count = classes
    n = len(ids)
    full, n_full = groups.full
    # the distinct (class, full) pairs: every group of QI ∪ (SA \\ {A_i}) is a union of them,
    # and a row's l-DF and masks are its pair's
    pair, n_pairs = ordered_ids([(ids, count), (full, n_full)], n)
    first = np.empty(n_pairs, dtype=np.int64)
    first[pair] = np.arange(n, dtype=np.int64)
    class_of_pair = ids[first]
    l = np.full(n_pairs, np.iinfo(np.int64).max, dtype=np.int64)
    known = None if known is None else [None if mask is None else mask[first] for mask in known]
    for mask in known or ():
        if mask is not None:
            l[~mask] = 1
    masks: list = [None] * len(groups.others)
    for i in groups.order:
        others = groups.others[i]
        mask = known[i] if known is not None else None
        entries = None if mask is None else np.flatnonzero(mask)
        c = class_of_pair if entries is None else class_of_pair[entries]
        o, n_o = (None, 1) if others is None else (others[0][first if entries is None else first[entries]],
                                                   max(int(others[1]), 1))
        size = count * n_o
        if size <= dense_limit(n_pairs) and len(c):
            # only the groups holding a pair whose l is still above 1 are counted
            key = c if o is None else c * np.int64(n_o) + o
            entries, sub = _touched(key, size, l, entries)
            group, n_groups = compact(key if sub is None else key[sub], size)
        elif o is None:
            group, n_groups = c, count
        else:
            group, n_groups = ordered_ids([(c, count), (o, n_o)], len(c))
        open_ = _counted(l, np.bincount(group, minlength=n_groups)[group], entries, mask)
        masks[i] = None if open_ is None else open_[pair]
        if step is not None:
            step()
    return l[pair], masks


def _l_per_attribute(classes: tuple[np.ndarray, int], groups: SaGroups, known: list,
                     step=None) -> tuple[np.ndarray, list]:
    """:func:`l_of_classes` counting each SA's groups over its open rows only (the SAs with
    a mask first; then those every row may be open in), and of those only the groups holding
    a row whose l is still above 1 (:func:`_touched`)."""
    ids, count = classes
    n = len(ids)
    l = _open_l(known, n)
    counted: dict = {}   # each SA's counted rows (None: all), their groups' keys and the keys' space
    order = [i for i in groups.order if known[i] is not None] + [i for i in groups.order if known[i] is None]
    for i in order:
        n_o = groups.others.cardinality(i)
        mask = known[i]
        # a mask holding most rows is read whole (contiguous passes), its rows picked with the groups
        wide = mask is not None and 2 * np.count_nonzero(mask) > n
        rows = None if mask is None or wide else np.flatnonzero(mask)
        size = count * max(n_o or 1, 1)
        # each row's group of QI ∪ (SA \\ {A_i}) as one key (the class alone when they do not fit)
        grouped = n_o is None or size < 1 << 62
        key = ids if rows is None else ids[rows]
        if grouped and n_o is not None:
            key = key * np.int64(max(n_o, 1))
            key += groups.others.at_rows(i, rows)
        if len(key):
            rows, sub = _touched(key, size if grouped else count, l, rows, mask if wide else None)
            if sub is not None:
                key = key[sub]
        d = None
        if grouped and groups.codes:    # the distinct values of A_i in each group, by one sort
            d = _distinct_by_sort(key, size, groups.codes.at_rows(i, rows), groups.codes.cardinality(i),
                                  groups.positions)
        if d is None:
            full, n_full = groups.full
            c = ids if rows is None else ids[rows]
            o = None if n_o is None else groups.others.at_rows(i, rows)
            full_rows = full if rows is None else full[rows]
            d = (_distinct_in_groups(c, count, full_rows, n_full, key=(key, size)) if grouped and size <= dense_limit(n)
                 else _distinct_in_groups(c, count, full_rows, n_full, o=(o, max(n_o or 1, 1))))
        if rows is None:
            np.minimum(l, d, out=l)
        else:
            l[rows] = np.minimum(l[rows], d)
        counted[i] = (rows, key, size if grouped else count)
        if step is not None:
            step()
    return l, [_live_groups(l, *counted[i], n) for i in range(len(groups.others))]


def _live_groups(l: np.ndarray, rows: np.ndarray | None, key: np.ndarray, size: int, n: int) -> np.ndarray | None:
    """The mask a node hands its specialisations for one SA: the rows of its groups (``key`` of
    the counted ``rows``, None: all) that hold a row whose l is above 1 (None: every row). A
    specialisation's row of l above 1 had it here, and its group lies inside its group here:
    the rows outside are 1 there, and every group it counts is whole inside the mask."""
    if not len(key):
        return np.zeros(n, dtype=np.bool_)
    rows, _ = _touched(key, size, l, rows)
    if rows is None:
        return None
    mask = np.zeros(n, dtype=np.bool_)
    mask[rows] = True
    return mask


def _open_l(known: list, n: int) -> np.ndarray:
    """The l of each row before counting: 1 outside a mask (its group holds one value of that
    SA), the largest integer inside every mask."""
    every = None
    for mask in known:
        if mask is not None:
            every = mask.copy() if every is None else np.logical_and(every, mask, out=every)
    if every is None:
        return np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    l = every.astype(np.int64)
    l *= np.iinfo(np.int64).max - 1
    l += 1
    return l


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _slots(key: np.ndarray, bits: int) -> np.ndarray:
    """Each key's slot in a table of 2**bits (Fibonacci hashing: equal keys share a slot)."""
    slot = np.multiply(key.view(np.uint64) if key.dtype == np.int64 else key.astype(np.uint64), _GOLDEN)
    slot >>= np.uint64(64 - bits)
    return slot


def _touched(key: np.ndarray, size: int, l: np.ndarray, entries: np.ndarray | None, within=None):
    """The entries (None: all) of the groups (``key`` < ``size``) holding an entry whose l is
    still above 1 — and perhaps of a few more groups, when the key space is too large for a
    table and the keys are hashed into one: every selected group is selected whole, so its
    count stays exact —, and their positions among ``entries`` (None: all); ``within``: a
    mask of whole groups (over every entry) the entries are also taken from."""
    selected = _holding(key, size, (l if entries is None else l[entries]) > 1)
    if within is not None:
        selected &= within
    if selected.all():
        return entries, None
    sub = np.flatnonzero(selected)
    return (sub if entries is None else entries[sub]), sub


def _counted(l: np.ndarray, d: np.ndarray, counted: np.ndarray | None, mask: np.ndarray | None):
    """``l`` lowered to the distinct counts ``d`` of the ``counted`` entries (None: all), and
    the entries whose group may hold more than one value — those counted above 1 and those
    open but not counted — or None when every entry may."""
    open_ = np.ones(len(l), dtype=np.bool_) if mask is None else mask.copy()
    if counted is None:
        np.minimum(l, d, out=l)
        open_ = d > 1
    else:
        l[counted] = np.minimum(l[counted], d)
        open_[counted] = d > 1
    return None if open_.all() else open_


def _runs(ordered: np.ndarray, numbered: bool = False) -> tuple[np.ndarray, ...]:
    """The runs of equal values of a sorted ``ordered``: where each starts and its length, and
    with ``numbered`` each element's run (0, 1, …: one count of the starts)."""
    first = run_starts(ordered)
    starts = np.flatnonzero(first)
    sizes = run_sizes(starts, len(ordered))
    if not numbered:
        return starts, sizes
    first[:1] = False
    return starts, sizes, np.cumsum(first, dtype=np.int64)


def _packed_runs(packed: np.ndarray, bits: int, numbered: bool = False) -> tuple[np.ndarray, ...]:
    """``packed`` (each key shifted left by ``bits``, its entry's position in the low bits) sorted
    in place and shifted back: the positions in key order, the distinct keys in increasing
    order, where each one's entries start among the positions and how many entries hold each,
    and with ``numbered`` each sorted entry's key (:func:`_runs`)."""
    packed.sort()
    order = packed & np.int64((1 << bits) - 1)
    packed >>= np.int64(bits)
    starts, *runs = _runs(packed, numbered)
    return (order, packed[starts], starts, *runs)


def _distinct_by_sort(key: np.ndarray, size: int, values: np.ndarray, cardinality: int,
                      positions: np.ndarray | None = None) -> np.ndarray | None:
    """For each entry, the distinct ``values`` (codes < ``cardinality``) among the entries of its
    group (``key`` < ``size``), by one sort of the (group, value) keys packed with the entries'
    positions: the distinct pairs are runs, and a group's pairs a run of those. None when the
    keys and positions do not fit in 63 bits. ``positions``: 0..n-1 for some n ≥ the entries."""
    m = len(key)
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    bits = max(int(m - 1).bit_length(), 1)
    if max(int(size), 1) * cardinality >= 1 << (63 - bits):
        return None
    packed = np.multiply(key, np.int64(cardinality), dtype=np.int64)
    packed += values
    packed <<= np.int64(bits)
    packed |= positions[:m] if positions is not None and len(positions) >= m else np.arange(m, dtype=np.int64)
    order, pairs, _, per_pair = _packed_runs(packed, bits)   # per_pair: entries of each distinct (group, value)
    del packed
    pairs //= np.int64(cardinality)
    _, per_group = _runs(pairs)   # distinct values of each group
    narrow = np.min_scalar_type(cardinality)   # a group holds at most every value: written back narrow
    d = np.empty(m, dtype=narrow)
    d[order] = np.repeat(np.repeat(per_group.astype(narrow), per_group), per_pair)
    return d


def _distinct_in_groups(classes: np.ndarray, count: int, full: np.ndarray, n_full: int, key=None,
                        o=None) -> np.ndarray:
    """For each row, the distinct full groups in its group: ``key`` (the group's key in a
    space small enough for a table) or (class, ``o``)."""
    m = len(classes)
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    pair, n_pairs = ordered_ids([(classes, count), (full, n_full)], m)
    first = np.empty(n_pairs, dtype=np.int64)
    first[pair] = np.arange(m, dtype=np.int64)
    if key is not None:
        group, n_groups = compact(key[0][first], key[1])
    elif o[0] is None:
        group, n_groups = classes[first], count
    else:
        group, n_groups = ordered_ids([(classes[first], count), (o[0][first], o[1])], n_pairs)
    return np.bincount(group, minlength=n_groups)[group][pair]


class LatticeL:
    """The l-DF of the nodes of a lattice of generalisations, each from its direct
    generalisations' masks (:func:`l_of_classes`): generalising a QI merges groups, so a
    group of QI ∪ (SA \\ {A_i}) holding one value of A_i at a node holds one at every
    specialisation of it; only rows open at every computed generalisation are counted.
    A node is keyed by its QI levels (``-1``: removed, never generalised further) and
    anything else its groups depend on (``extra``); the masks of the recent nodes are kept,
    at most ``budget`` bytes (``packed``: a bit a row, for a search over many rows, whose
    nodes' generalisations would otherwise be dropped before their specialisations come).
    Thread-safe (a search scores nodes on two workers)."""

    def __init__(self, budget: int = 256 << 20, packed: bool = False):
        self.budget, self.packed = budget, packed
        self._masks: dict = {}
        self._bytes = 0
        self._lock = threading.Lock()

    def l(self, classes: tuple[np.ndarray, int], groups: SaGroups, levels: tuple[int, ...], extra=None,
          step=None) -> np.ndarray:
        known = self.known(levels, extra, len(groups.others))
        l, masks = l_of_classes(classes, groups, known, step)
        self.keep(levels, extra, masks, len(classes[0]))
        return l

    def node_bytes(self, n: int, s: int) -> int:
        """What a node's masks of ``n`` rows and ``s`` SAs take at most."""
        return s * (-(-n // 8) if self.packed else n)

    def keep(self, levels: tuple[int, ...], extra, masks: list, n: int) -> None:
        """Keep a node's masks (one per SA, each of ``n`` rows or None) for its specialisations;
        a caller that counts a node's rows in pieces (:mod:`tklscore.core.engines.lattice`)
        keeps the masks it assembled, in the rows' order at every node."""
        if self.packed:
            masks = [None if mask is None else np.packbits(mask) for mask in masks]
        size = sum(0 if mask is None else mask.nbytes for mask in masks)
        with self._lock:
            self._forget((levels, extra))
            self._masks[(levels, extra)] = (n, masks, size)
            self._bytes += size
            while len(self._masks) > 2 and self._bytes > self.budget:
                self._forget(next(iter(self._masks)))

    def _forget(self, key) -> None:
        kept = self._masks.pop(key, None)
        if kept is not None:
            self._bytes -= kept[2]

    def known(self, levels: tuple[int, ...], extra, s: int, unpack: bool = True) -> list | None:
        """The ``known`` masks of :func:`l_of_classes` for a node: each SA's rows open at
        every kept direct generalisation (None: none kept); with ``packed`` and not ``unpack``,
        a bit a row as kept (:func:`bits_at` reads some rows' bits: a caller counting the rows
        in pieces holds no byte a row)."""
        with self._lock:
            found = [self._masks.get((levels[:j] + (levels[j] + 1,) + levels[j + 1:], extra))
                     for j in range(len(levels)) if levels[j] >= 0]
        found = [kept for kept in found if kept is not None]
        if not found:
            return None
        n = found[0][0]
        known = []
        for i in range(s):
            given = [masks[i] for _, masks, _ in found if masks[i] is not None]
            mask = given[0] if len(given) == 1 else None    # one generalisation's: read, never written
            if len(given) > 1:
                mask = np.bitwise_and(given[0], given[1])
                for other in given[2:]:
                    mask &= other
            if mask is not None and self.packed and unpack:
                mask = np.unpackbits(mask, count=n).view(np.bool_)
            known.append(mask)
        return known


def bits_at(masks: list, rows: np.ndarray) -> list:
    """Each mask's bits of ``rows`` as booleans (``masks``: packed a bit a row in
    :func:`numpy.packbits`' order, or None, kept)."""
    if all(mask is None for mask in masks):
        return list(masks)
    byte = np.right_shift(rows, 3)
    shift = np.bitwise_and(rows, 7).astype(np.uint8)
    np.subtract(np.uint8(7), shift, out=shift)
    out = []
    for mask in masks:
        if mask is not None:
            mask = np.take(mask, byte)
            mask >>= shift
            mask &= np.uint8(1)
            mask = mask.view(np.bool_)
        out.append(mask)
    return out


def l_distinguishing_factor(qi: list[Codes], sa: list[Codes], n: int, step=None,
                            classes: tuple[np.ndarray, int] | None = None) -> np.ndarray:
    """Minimal multi-attribute l-diversity (Definition 10) of the groups containing each row
    (``step()`` is called after each sensitive attribute; ``classes``: the QI group ids
    when they are known already).

    The number of distinct values of A_i in a group of QI ∪ (SA \\ {A_i}) is the number of
    distinct full groups (QI ∪ SA) in it: the full groups are found once, and each
    attribute's groups are counted over them (:class:`_FullGroups`)."""
    base = classes if classes is not None else group_ids(qi, n)
    full = _FullGroups.build(base, sa)
    if full is not None:
        return full.l_distinguishing_factor(step)
    # key spaces too large for one integer: the same with hash group-bys. Each group of
    # QI ∪ (SA \\ {A_i}) joins a prefix (QI, A_0..A_{i-1}) and a suffix (A_{i+1}..), both shared.
    columns = [(c.codes, c.cardinality) for c in sa]
    s = len(columns)
    prefix = [base]
    for column in columns:
        prefix.append(group_ids([prefix[-1], column], n))
    full_ids, n_full = prefix[s]
    suffix: list = [None] * s
    for i in range(s - 2, -1, -1):
        suffix[i] = columns[i + 1] if suffix[i + 1] is None else group_ids([columns[i + 1], suffix[i + 1]], n)
    l = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    for i in range(s):
        groups, n_groups = prefix[i] if suffix[i] is None else group_ids([prefix[i], suffix[i]], n)
        group_of_full = np.empty(n_full, dtype=np.int64)
        group_of_full[full_ids] = groups
        distinct = np.bincount(group_of_full, minlength=n_groups)
        np.minimum(l, distinct[groups], out=l)
        if step is not None:
            step()
    return l


@dataclass(frozen=True)
class _FullGroups:
    """The groups of rows sharing the QI class and every SA value, found by sorting one
    mixed-radix key (class, A_0, …, A_{s-1}): ``keys`` are the distinct keys in increasing
    order (by class, then A_0), ``counts`` their rows, ``order`` the rows in key order."""

    keys: np.ndarray
    counts: np.ndarray
    order: np.ndarray
    places: list[int]
    cardinalities: list[int]

    @classmethod
    def build(cls, classes: tuple[np.ndarray, int], sa: list[Codes]) -> "_FullGroups | None":
        columns = [classes] + [(c.codes, c.cardinality) for c in sa]
        cardinalities = [max(int(cardinality), 1) for _, cardinality in columns]
        places = [math.prod(cardinalities[i + 1:]) for i in range(len(columns))]
        if places[0] * cardinalities[0] >= 1 << 62:
            return None
        n = len(classes[0])
        key = np.multiply(columns[0][0], np.int64(cardinalities[1]), dtype=np.int64)   # Horner, in one array
        for i in range(1, len(columns)):
            if i > 1:
                key *= np.int64(cardinalities[i])
            key += columns[i][0]
        bits = max(int(n - 1).bit_length(), 1)
        if places[0] * cardinalities[0] < 1 << (63 - bits):   # each key beside its row: one sort of values
            key <<= np.int64(bits)
            key |= np.arange(n, dtype=np.int64)
            order, keys, _, counts = _packed_runs(key, bits)
        else:
            order = np.argsort(key, kind="stable")
            ordered = key[order]
            starts, counts = _runs(ordered)
            keys = ordered[starts]
        return cls(keys, counts, order, places[1:], cardinalities[1:])

    def l_distinguishing_factor(self, step=None) -> np.ndarray:
        """The l-DF of each row. The last attribute's groups are runs of the sorted keys, so it
        goes first; a full group whose l is 1 then cannot fall further, and each other
        attribute sorts only the full groups of the classes that still hold one above 1 (its
        groups lie inside a class, so their counts are whole): usually a small share."""
        keys = self.keys
        *others, (_, last_cardinality) = zip(self.places, self.cardinalities)   # its place is 1
        l_full = run_lengths(keys // last_cardinality)
        if step is not None:
            step()
        class_place = self.places[0] * self.cardinalities[0]
        classes = rows = None   # rows: the full groups of the classes holding one above 1 (None: all)
        for place, cardinality in others:
            # l only falls, so those classes are among the previous SA's: looked for there
            live = np.flatnonzero((l_full if rows is None else l_full[rows]) > 1)
            if rows is None and len(live) == len(keys):
                part = keys
            else:
                if classes is None:
                    classes = keys // class_place   # sorted: the full groups of a class are a run
                among = classes if rows is None else classes[rows]
                held = np.zeros(int(classes[-1]) + 1, dtype=np.bool_)
                held[among[live]] = True
                kept = np.flatnonzero(held[among])
                rows = kept if rows is None else rows[kept]
                part = keys[rows]
            if len(part):
                # the key without A_i's digit, by divisions by constants (no remainder: several times dearer)
                upper = part // place
                without = upper // cardinality
                without *= place
                upper *= place
                without += part
                without -= upper
                distinct = group_sizes(without, bound=cardinality)
                if rows is None:
                    np.minimum(l_full, distinct, out=l_full)
                else:
                    l_full[rows] = np.minimum(l_full[rows], distinct)
            if step is not None:
                step()
        l = np.empty(len(self.order), dtype=l_full.dtype)
        l[self.order] = np.repeat(l_full, self.counts)   # each sorted row's group's l, scattered once
        return l

    def leading_pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distinct (class, A_0 code) pairs sorted by class then value, and their counts."""
        pair = self.keys // self.places[0]
        starts = np.flatnonzero(run_starts(pair))
        pair = pair[starts]
        cls = pair // self.cardinalities[0]
        val = np.multiply(cls, np.int64(self.cardinalities[0]))
        np.subtract(pair, val, out=val)
        running = np.cumsum(self.counts)   # each pair's records: the running count at its last group, less the previous
        last = np.empty(len(starts), dtype=np.int64)
        np.subtract(starts[1:], 1, out=last[:-1])
        last[-1:] = len(self.keys) - 1
        records = running[last]
        records[1:] -= running[last[:-1]]
        return cls, val, records


def distinct_and_t_by_class(classes: np.ndarray, n_classes: int, class_sizes: np.ndarray, values: Codes,
                            continuous: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each class's number of distinct values of an SA (``values``: a continuous one's codes are
    ranks of its sorted values) and its t — the ordered EMD of :func:`ordered_emd_by_class`, or
    the variational distance of :func:`variational_distance_by_class` —, the same numbers, from
    one count of the (class, value) pairs: a table while it is small (:func:`_emd_table_fits`,
    :data:`TABLE_CELLS_A_ROW`), else one sort of the pairs (no hashing)."""
    n = len(classes)
    m = max(int(values.cardinality), 1)
    value_counts = np.bincount(values.codes, minlength=m)
    if not continuous and n_classes * m <= TABLE_CELLS_A_ROW * n:
        table = _value_class_table(classes, n_classes, class_sizes, values.codes, m)
        return (np.count_nonzero(table, axis=0),
                _variational_distance_of_table(table, class_sizes, value_counts, n))
    key = np.multiply(classes, np.int64(m), dtype=np.int64)
    key += values.codes
    exact = float(m) * n * n < 2.0 ** 62
    if continuous and exact and _emd_table_fits(n_classes, m, n):
        table = np.bincount(key, minlength=n_classes * m).reshape(n_classes, m)
        t = np.zeros(n_classes) if m <= 1 else _ordered_emd_of_table(table, class_sizes, value_counts, n)
        return np.count_nonzero(table, axis=1), t
    key.sort()
    starts, counts = _runs(key)
    cls, val = np.divmod(key[starts], np.int64(m))
    del key, starts
    distinct = np.bincount(cls, minlength=n_classes)
    if continuous:
        return distinct, ordered_emd_from_pairs(cls, val, counts, n_classes, class_sizes, value_counts, n)
    return distinct, variational_distance_of_pairs((cls, val, counts), n_classes, class_sizes, value_counts, n)


def class_value_counts(classes: np.ndarray, n_classes: int, values: Codes):
    """The distinct (class, value) pairs: the class and value code of each, and its count."""
    m = max(int(values.cardinality), 1)
    if n_classes * m <= 4 * len(classes):  # count every (class, value) cell, keep the occupied ones
        key = classes * np.int64(m)
        key += values.codes
        counts = np.bincount(key, minlength=n_classes * m)
        del key
        occupied = np.flatnonzero(counts)
        class_of_pair, value_of_pair = np.divmod(occupied, np.int64(m))
        return class_of_pair, value_of_pair, counts[occupied]
    pairs, n_pairs = group_ids([(classes, n_classes), values], len(classes))
    counts = np.bincount(pairs, minlength=n_pairs)
    class_of_pair = np.empty(n_pairs, dtype=np.int64)
    value_of_pair = np.empty(n_pairs, dtype=np.int64)
    class_of_pair[pairs] = classes
    value_of_pair[pairs] = values.codes
    return class_of_pair, value_of_pair, counts


PAIR_TABLE = 1 << 24
"""The most (class, value) cells counted in a table (8 bytes each) rather than by one sort."""


def weighted_class_value_pairs(classes: np.ndarray, n_classes: int, values: np.ndarray, m: int,
                               counts: np.ndarray):
    """The distinct (class, value code) pairs of rows standing for ``counts`` records each
    (an aggregate's), sorted by class then value, and their records: a count per possible
    pair while the table is small, else one sort of the pairs' keys."""
    m = max(m, 1)
    key = np.multiply(classes, np.int64(m), dtype=np.int64)
    key += values
    if n_classes * m <= min(dense_limit(len(key)), PAIR_TABLE):   # a count per possible pair, in key order
        total = records_by_key(key, counts, n_classes * m)
        pair = np.flatnonzero(total)
        total = total[pair]
    else:   # one sort; each pair's records added over its run (no row numbered by its pair)
        order, ordered = sort_with_positions(key)
        starts = np.flatnonzero(run_starts(ordered))
        pair = ordered[starts]
        total = (np.add.reduceat(np.asarray(counts)[order], starts, dtype=np.int64) if len(starts)
                 else np.zeros(0, dtype=np.int64))
    cls, val = np.divmod(pair, np.int64(m))
    return cls, val, total


def records_by_key(key: np.ndarray, counts: np.ndarray, size: int, beyond_one=None) -> np.ndarray:
    """The records of each key < ``size`` (rows standing for ``counts`` records each), as int64:
    integer counts added in integers (``np.add.at``: half the CPU of ``bincount``'s float weights
    and their cast back on a table of millions of cells — given int64 counts: counts of another
    type take its generic loop, ten times slower), other counts by ``bincount``. ``beyond_one``:
    the positions of the rows counted more than once and their counts less one (int64), when
    the caller keeps them: the rows counted by ``bincount`` without weights (integers, half of
    ``np.add.at``'s CPU again on a large table), those few added."""
    if beyond_one is not None:
        table = np.bincount(key, minlength=size)
        at, extra = beyond_one
        np.add.at(table, key[at], extra)
        return table
    if np.issubdtype(counts.dtype, np.integer):
        table = np.zeros(size, dtype=np.int64)
        np.add.at(table, key, counts.astype(np.int64, copy=False))
        return table
    return np.bincount(key, weights=counts, minlength=size).astype(np.int64)


TABLE_CELLS_A_ROW = 4
"""A categorical SA's (class, value) counts are kept as a whole table when it has at most this many
cells a row: counting and summing every cell costs less than a row's gather and count (the
in-memory t, :func:`variational_distance_by_class`; out of core, a (finest class, value) table
whose rows a node adds up by class, :class:`~tklscore.core.engines.lattice.ValueTables`)."""


def variational_distance_by_class(classes: np.ndarray, n_classes: int, class_sizes: np.ndarray,
                                  values: Codes, pairs=None, table_counts: np.ndarray | None = None) -> np.ndarray:
    """½ Σ_v |p_v − q_v| between each class's distribution of a categorical SA (p,
    normalised by the class size k) and the whole table's (q).

    Computed on integer counts, ½ Σ_v |c_v·n − C_v·k| / (k·n), so that a class distributed
    exactly like the table has distance exactly 0. ``pairs``: the result of
    :func:`class_value_counts` when the caller has it already; ``table_counts``: the table's
    count of each value code, when the caller keeps it."""
    m = max(int(values.cardinality), 1)
    if pairs is None and n_classes * m <= TABLE_CELLS_A_ROW * len(classes):   # every cell counted, summed whole
        table = _value_class_table(classes, n_classes, class_sizes, values.codes, m)
        if table_counts is None:
            table_counts = table.sum(axis=1, dtype=np.int64)
        return _variational_distance_of_table(table, class_sizes, table_counts, len(classes))
    if table_counts is None:
        table_counts = np.bincount(values.codes, minlength=values.cardinality)
    pairs = pairs if pairs is not None else class_value_counts(classes, n_classes, values)
    return variational_distance_of_pairs(pairs, n_classes, class_sizes, table_counts, len(classes))


def _value_class_table(classes: np.ndarray, n_classes: int, class_sizes: np.ndarray, codes: np.ndarray,
                       m: int) -> np.ndarray:
    """Each value's count in each class (m × classes), in the narrowest unsigned integers that
    hold the largest class (``np.add.at``: a quarter or less of ``bincount``'s table to touch) —
    or every row, when the sizes given are not the rows' (no count wraps round)."""
    largest = int(class_sizes.max()) if len(class_sizes) else 1
    if int(class_sizes.sum()) != len(codes):
        largest = len(codes)
    dtype = np.min_scalar_type(max(largest, 1))
    key = np.multiply(codes, np.int64(n_classes), dtype=np.int64)
    key += classes
    table = np.zeros(m * max(int(n_classes), 1), dtype=dtype)
    np.add.at(table, key, dtype.type(1))
    return table.reshape(m, -1)


def _variational_distance_of_table(table: np.ndarray, class_sizes: np.ndarray, table_counts: np.ndarray,
                                   n: int) -> np.ndarray:
    """:func:`variational_distance_of_pairs` from each value's count in each class (``table``,
    m × classes): ½ Σ_v |c_v·n − C_v·k| over every cell in exact integers — the same integer as
    the sum over the pairs and the absent values, so the same t —, a value's classes at a time
    (contiguous: each pass one vector of the classes)."""
    total = np.zeros(table.shape[1], dtype=np.int64)
    for value, cells in enumerate(table):
        total += variational_numerator(cells, class_sizes, table_counts[value], n)
    return variational_distance_of_numerator(total, class_sizes, n)


def variational_numerator(cells: np.ndarray, class_sizes: np.ndarray, table_counts: np.ndarray, n: int) -> np.ndarray:
    """Σ_v |c_v·n − C_v·k| of each class over some values, in exact integers: ``cells`` each
    class's count of each of those values (classes × values; or of one value, a vector),
    ``class_sizes`` k, ``table_counts`` the table's count C_v of each of those values (or of the
    one), of ``n`` records — the numerator of the
    variational distance (:func:`variational_distance_of_numerator`), whether a whole (class,
    value) table is summed at once or its value columns one by one (out of core,
    :class:`~tklscore.core.engines.lattice.ValueTables`)."""
    term = cells.astype(np.int64)
    term *= np.int64(n)
    term -= np.multiply.outer(class_sizes.astype(np.int64, copy=False), np.asarray(table_counts, dtype=np.int64))
    np.abs(term, out=term)
    return term if term.ndim == 1 else term.sum(axis=1)


def variational_distance_of_numerator(numerator: np.ndarray, class_sizes: np.ndarray, n: int) -> np.ndarray:
    """½ Σ_v |c_v·n − C_v·k| / (k·n) of each class from its :func:`variational_numerator` over every value."""
    return np.clip(numerator / (2.0 * class_sizes * n), 0.0, 1.0)


def variational_distance_of_pairs(pairs, n_classes: int, class_sizes: np.ndarray, table_counts: np.ndarray,
                                  n: int) -> np.ndarray:
    """:func:`variational_distance_by_class` from the (class, value code, count) ``pairs``
    and the table's count of each value code (``n`` records): what an engine that fetched
    the pairs finishes in Python."""
    cls, val, counts = pairs
    k = class_sizes[cls]
    inside = np.abs(counts * n - table_counts[val] * k)
    # a value absent from a class contributes q_v = C_v / n, in all (n − Σ_inside C_v) / n
    numerator = (np.bincount(cls, weights=inside, minlength=n_classes)
                 + (n - np.bincount(cls, weights=table_counts[val], minlength=n_classes)) * class_sizes)
    return np.clip(numerator / (2.0 * class_sizes * n), 0.0, 1.0)


EMD_CELLS_A_ROW = 8
"""A continuous SA's (class, value) counts are summed as a whole table (:func:`_ordered_emd_of_table`)
up to this many cells a row, else over the distinct pairs (:func:`ordered_emd_from_pairs`) — the
one rule of :func:`_emd_table_fits`, for the rows of memory and the weighted rows of an aggregate
alike. The same exact integers either way. Measured (``benchmarks/bench_emd_table.py``: 1M rows,
500 skewed values, thread CPU, least of 5, load 9–14), table / pairs: 0.30–0.42 for rows of memory
and 0.51–0.66 for weighted rows at 1–8 cells a row, ~1.0–1.1 at 12 and 0.8–1.1 at 16: the table is
cheaper up to ~12 cells a row in both; 8 keeps its counts to 64 MB a million rows."""


def _emd_table_fits(n_classes: int, m: int, rows: int) -> bool:
    """Whether a continuous SA's (class, value) table of ``n_classes`` × ``m`` cells is summed
    whole for ``rows`` rows (:data:`EMD_CELLS_A_ROW`)."""
    return n_classes * m <= EMD_CELLS_A_ROW * rows


def ordered_emd_by_class(classes: np.ndarray, n_classes: int, class_sizes: np.ndarray,
                         values: Codes, exact: bool | None = None, pairs=None,
                         value_counts: np.ndarray | None = None) -> np.ndarray:
    """Ordered EMD (1/(m−1)) Σ_i |Σ_{j≤i} (p_j − q_j)| over the m sorted distinct values
    of a continuous SA, for each class; 0 when m = 1.

    A class's cumulative count c(i) is a step function that only changes at its own
    values, so Σ_i |c(i)·n − C(i)·k| (C: the table's cumulative count, k: the class size)
    is summed per step with prefix sums of C: O(pairs · log m), not O(classes · m). The
    sums are exact integers while they fit in int64 (``exact=None`` decides by the size),
    so equal distributions give exactly 0; beyond that they are floats. ``value_counts``: the
    table's count of each value, when the caller keeps it.
    """
    m = values.cardinality
    if m <= 1:
        return np.zeros(n_classes)
    if pairs is None:
        # the distinct (class, value) pairs sorted by class then value, with their counts
        key = classes * np.int64(m)
        key += values.codes
        if _emd_table_fits(n_classes, m, len(classes)):  # a count per possible pair
            counts = np.bincount(key, minlength=n_classes * m)
            n = len(classes)
            if exact or (exact is None and float(m) * n * n < 2.0 ** 62):
                return _ordered_emd_of_table(counts.reshape(n_classes, m), class_sizes, np.bincount(
                    values.codes, minlength=m) if value_counts is None else value_counts, n)
            pair = np.flatnonzero(counts)
            counts = counts[pair]
        else:   # one sort (numpy's unique hashes: several times slower on a million keys)
            ordered = np.sort(key)
            starts, counts = _runs(ordered)
            pair = ordered[starts]
        cls, val = np.divmod(pair, np.int64(m))
    else:
        cls, val, counts = pairs
        order = np.argsort(cls * m + val, kind="stable")  # linear when the pairs come sorted from group_ids
        cls, val, counts = cls[order], val[order], counts[order]
    if value_counts is None:
        value_counts = np.bincount(values.codes, minlength=m)
    return ordered_emd_from_pairs(cls, val, counts, n_classes, class_sizes, value_counts, len(classes), exact)


def ordered_emd_of_weighted(classes: np.ndarray, n_classes: int, class_sizes: np.ndarray, values: np.ndarray,
                            m: int, counts: np.ndarray, value_counts: np.ndarray, n: int,
                            beyond_one=None) -> np.ndarray:
    """:func:`ordered_emd_from_pairs` of rows standing for ``counts`` records each (an
    aggregate's; ``values``: ranks < ``m``; ``value_counts``: the table's records of each rank,
    ``n`` in all): over the (class, rank) table while it fits (:func:`_emd_table_fits`) and its
    sums are exact integers (:func:`_ordered_emd_of_table`, the same integer), else over the
    distinct pairs. ``beyond_one``: the rows counted more than once (:func:`records_by_key`)."""
    if m > 1 and _emd_table_fits(n_classes, m, len(classes)) and float(m) * n * n < 2.0 ** 62:
        key = np.multiply(classes, np.int64(m), dtype=np.int64)
        key += values
        table = records_by_key(key, counts, n_classes * m, beyond_one)
        return _ordered_emd_of_table(table.reshape(n_classes, m), class_sizes, value_counts, n)
    cls, val, pair_counts = weighted_class_value_pairs(classes, n_classes, values, m, counts)
    return ordered_emd_from_pairs(cls, val, pair_counts, n_classes, class_sizes, value_counts, n)


def _ordered_emd_of_table(table: np.ndarray, class_sizes: np.ndarray, value_counts: np.ndarray,
                          n: int) -> np.ndarray:
    """:func:`ordered_emd_from_pairs` in exact integers from each class's count of each value
    (``table``, classes × m): Σ_i |c(i)·n − C(i)·k| over every value at once, the same
    integer as the sum by steps, so the same t. Cheaper than the steps while the table is
    no larger than a few cells a row. Taken in blocks of classes small enough to stay in a
    core's cache across the passes."""
    m = table.shape[1]
    C = np.cumsum(value_counts, dtype=np.int64)
    sizes = class_sizes.astype(np.int64)
    total = np.empty(len(table), dtype=np.int64)
    block = max(1, TABLE_BLOCK // max(m, 1))
    for lo in range(0, len(table), block):
        cumulative = np.cumsum(table[lo:lo + block], axis=1)
        cumulative *= np.int64(n)
        cumulative -= np.multiply.outer(sizes[lo:lo + block], C)
        np.abs(cumulative, out=cumulative)
        total[lo:lo + block] = cumulative.sum(axis=1)
    return np.clip(total / (class_sizes * float(n) * (m - 1)), 0.0, 1.0)


TABLE_BLOCK = 1 << 15
"""Cells (int64) of a (class, value) table taken at once by :func:`_ordered_emd_of_table`."""


def ordered_emd_of_batches(batches, n_classes: int, class_sizes: np.ndarray, value_counts: np.ndarray,
                           n: int) -> np.ndarray:
    """:func:`ordered_emd_from_pairs` over ``batches`` of pairs sorted by class then value,
    each holding every pair of its classes (an engine streams them): each batch's classes
    numbered from 0, so every class's t is the same number as in one call over all pairs."""
    t = np.zeros(n_classes)
    for cls, val, counts in batches:
        if len(cls):
            lo, hi = int(cls[0]), int(cls[-1]) + 1
            t[lo:hi] = ordered_emd_from_pairs(cls - lo, val, counts, hi - lo, class_sizes[lo:hi], value_counts, n)
    return t


def ordered_emd_from_pairs(cls: np.ndarray, val: np.ndarray, counts: np.ndarray, n_classes: int,
                           class_sizes: np.ndarray, value_counts: np.ndarray, n: int,
                           exact: bool | None = None) -> np.ndarray:
    """:func:`ordered_emd_by_class` from the distinct (class, value rank) pairs sorted by
    class then value, their ``counts``, and the table's count of each value rank
    (``value_counts``, m of them): what a group-by engine hands over."""
    m = len(value_counts)
    if m <= 1:
        return np.zeros(n_classes)
    if exact is None:
        exact = float(m) * n * n < 2.0 ** 62
    if exact and len(cls):
        return _ordered_emd_exact(cls, val, counts, n_classes, class_sizes, value_counts, n)
    number = np.int64 if exact else np.float64
    C = np.cumsum(value_counts).astype(number)
    prefix_C = np.concatenate(([0], np.cumsum(C))).astype(number)  # prefix_C[i] = Σ_{j<i} C[j]
    cumulative = np.cumsum(counts)
    first = np.ones(len(cls), dtype=bool)
    first[1:] = cls[1:] != cls[:-1]
    before_class = (cumulative - counts)[first]  # records of earlier classes
    c = (cumulative - before_class[np.cumsum(first) - 1]).astype(number)  # class cumulative count
    k = class_sizes[cls].astype(number)
    last = np.ones(len(cls), dtype=bool)
    last[:-1] = first[1:]
    a = val
    b = np.where(last, m, np.roll(val, -1))
    # positions i in [a, b) with C(i)·k ≥ c·n start at the first C(i) ≥ ceil(c·n / k)
    threshold = -((-c * n) // k) if exact else c * n / k
    split = np.clip(np.searchsorted(C, threshold, side="left"), a, b)
    step = (c * n * (split - a) - k * (prefix_C[split] - prefix_C[a])
            + k * (prefix_C[b] - prefix_C[split]) - c * n * (b - split))
    total = np.zeros(n_classes, dtype=number)
    starts = np.flatnonzero(first)  # pairs are sorted by class: one run per class
    total[cls[starts]] = np.add.reduceat(step, starts) + k[starts] * prefix_C[val[starts]]  # + before the lowest value
    return np.clip(total / (class_sizes * float(n) * (m - 1)), 0.0, 1.0)


RANK_TABLE_A_PAIR = 16
""":func:`_ordered_emd_exact` reads each pair's split from a table of every threshold 0..n (two
bytes an entry for m < 2**15) while n is below this many times the pairs, else searches the
m cumulative counts (a table entry costs a fraction of a pair's binary search)."""


def _ordered_emd_exact(cls: np.ndarray, val: np.ndarray, counts: np.ndarray, n_classes: int,
                       class_sizes: np.ndarray, value_counts: np.ndarray, n: int) -> np.ndarray:
    """:func:`ordered_emd_from_pairs` in exact integers (its sums fit in int64), the same
    integer by fewer passes and temporaries: with P the prefix sums of C, a pair whose class
    count c holds on [a, b) and whose sign changes at ``split`` adds
    c·n·(2·split − a − b) + k·(P[a] + P[b] − 2·P[split]); ``split`` is the first i with
    C(i)·k ≥ c·n, i.e. C(i) ≥ ⌈c·n / k⌉, clipped to [a, b)."""
    m = len(value_counts)
    p = len(cls)
    C = np.cumsum(value_counts, dtype=np.int64)
    P = np.zeros(m + 1, dtype=np.int64)                 # P[i] = Σ_{j<i} C[j]
    np.cumsum(C, out=P[1:])
    starts = np.flatnonzero(run_starts(cls))            # pairs are sorted by class: one run per class
    lengths = run_sizes(starts, p)
    ends = starts + lengths
    ends -= 1                                           # each class's last pair: b = m there
    cn = np.cumsum(counts, dtype=np.int64)
    before = cn[starts]
    before -= counts[starts]                            # records of earlier classes
    cn -= np.repeat(before, lengths)                    # the class's cumulative count c
    del before
    k = np.repeat(np.asarray(class_sizes, dtype=np.int64)[cls[starts]], lengths)
    cn *= np.int64(n)
    work = cn + k
    work -= 1
    work //= k                                          # ⌈c·n / k⌉
    if n < RANK_TABLE_A_PAIR * p and int(C[-1]) == n:   # rank[x] = #{i: C(i) < x}, x = 0..n
        repeats = value_counts.astype(np.int64)
        repeats[0] += 1
        split = np.repeat(np.arange(m, dtype=np.min_scalar_type(m)), repeats)[work]
    else:
        split = np.searchsorted(C, work, side="left")
    b = np.empty(p, dtype=np.int64)
    b[:-1] = val[1:]
    b[ends] = m
    np.clip(split, val, b, out=work)
    del split
    at_split = P[work]
    work *= 2
    work -= val
    work -= b
    work *= cn                                          # c·n·(2·split − a − b)
    del cn
    at_a = np.take(P, val, out=b)                       # P[a] (b is read no more)
    at_split *= -2
    at_split += at_a
    at_split[:-1] += at_a[1:]                           # + P[b]: the next pair's a within the class,
    at_split[ends[:-1]] -= at_a[ends[:-1] + 1]          # m after its last pair
    at_split[ends] += P[m]
    at_split *= k
    work += at_split
    del at_split
    np.cumsum(work, out=work)       # every step is a sum of magnitudes: the running sum stays below n²·m
    per_class = work[ends]
    per_class[1:] -= work[ends[:-1]]
    per_class += k[starts] * at_a[starts]               # + before the lowest value
    total = np.zeros(n_classes, dtype=np.int64)
    total[cls[starts]] = per_class
    return np.clip(total / (class_sizes * float(n) * (m - 1)), 0.0, 1.0)
