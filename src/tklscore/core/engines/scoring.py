"""Scoring a release with an out-of-core or cluster engine: the :class:`~.plan.Plan`'s
group-bys run in the engine; Python receives only per-class and per-value aggregates and
finishes them with the in-memory engine's own functions, so every number is the same.

A back-end (DuckDB, Spark) implements :class:`~.backend.Backend`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import NamedTuple

import numpy as np
import pandas as pd

from tklscore.core.engines.backend import Backend, memory_bytes
from tklscore.core.engines.finest import RELATION
from tklscore.core.engines.plan import Plan
from tklscore.core.errors import InputError
from tklscore.core.scoring.distinguishing_factors import (l_distinguishing_factor, ordered_emd_from_pairs,
                                                          ordered_emd_of_batches, variational_distance_of_pairs,
                                                          weighted_class_value_pairs)
from tklscore.core.scoring.scores import (RECORD_COLUMNS, ScoreReport, ScoreSet, check_roles, check_x,
                                          m_score_table, normalisation_notes, normalise_by_source,
                                          normalise_by_theoretical_max, record_scores, shown_value)
from tklscore.core.scoring.weights import Weights, missing_weights_notes, weights_above_one_note
from tklscore.core.scoring.sums import exact_parts, rounded_sum, sum_of_units
from tklscore.core.tables.codes import Codes, radix_key
from tklscore.core.tables.published import conflict_warning, unlocated_error, unlocated_note
from tklscore.core.tables.roles import Roles

RECORD_QUERY = ("SELECT id, k, l, t, weight_sum, tkl, m_score, l_severity FROM published_scored ORDER BY pos")


def score_in_engine(backend: Backend, roles: Roles, weights: Weights, x: float = 1.0,
                    missing_weight_zero: bool = False, records_path: str | None = None,
                    source_name: str = "source", published_name: str = "published",
                    skip_unlocated: bool = False, stream: bool = False, finest=None) -> ScoreReport:
    """Score the release registered as ``published(pos, id)`` against ``src`` (published
    records not in the source are an error, or with ``skip_unlocated`` a warning); the
    records are fetched, or written by the engine to ``records_path`` (Parquet), or with
    ``stream`` to a :class:`~.record_store.RecordStore` in a work folder (``report.stored``).
    ``finest``: the source's finest aggregate (:class:`~.finest.FinestAggregate`, the
    relation ``fin``), which the whole source is scored over; then only the published
    records are read from ``src``, to find their combinations."""
    x = check_x(x)
    check_roles(roles, out_of_core=True)
    plan = Plan(len(roles.qi), tuple(c in roles.continuous for c in roles.sa))
    whole_plan = plan if finest is None else replace(plan, source=RELATION, weighted=True)
    n = backend.count("src") if finest is None else finest.records
    if n == 0:
        raise InputError("the source table has no records", file=source_name)
    backend.check_unique_ids(roles, source_name)
    # scored in Python: the published records' values fetched, and with them those the source lacks
    values = published_values(backend, plan) if combinations_in_python(backend, whole_plan, n) else None
    missing = backend.unlocated(values)
    if missing and not skip_unlocated:
        raise unlocated_error(missing, published_name)
    whole, warnings, combination, radix, fetched = score_records(backend, whole_plan, roles, weights,
                                                                missing_weight_zero, n)
    in_python = isinstance(fetched, Combinations) and values is not None
    records_here = in_python and records_path is None and not stream
    if not records_here:
        backend.materialize("coded", plan.published_records().coded(radix))   # the published records' combinations
    contradicting = conflict_warning(*backend.conflicts(roles))
    if contradicting:
        warnings.append(contradicting)
    if int(whole["w_above"] or 0):
        warnings.append(weights_above_one_note(int(whole["w_above"]), float(whole["w_max"])))
    if not records_here:
        backend.materialize("published_scored", plan.published(combination))
    totals = records = None
    if in_python:
        totals, records = published_of_combinations(backend, plan, fetched, radix, records_here,
                                                     values[values["located"].notna()])
    return finish_report(backend, plan, n, whole, x, warnings, records_path, fetch=True, unlocated=missing,
                         stream=stream, totals=totals, records=records)


def published_values(backend: Backend, plan: Plan) -> pd.DataFrame:
    """Every published record's position, id, QI and SA values and ``located``, its source
    record's id (missing where the source has none: :meth:`.Backend.unlocated`), in one
    statement and in no order (a sort costs Spark a job): what :func:`published_of_combinations`
    totals, fetched before the scores as the check of the records located."""
    return backend.fetch(f"SELECT p.pos, p.id, s.id AS located, {', '.join(f's.{c}' for c in plan.qi + plan.sa)} "
                         f"FROM published AS p LEFT JOIN src AS s ON s.id = p.id")


def published_of_combinations(backend: Backend, plan: Plan, fetched: "Combinations", radix: tuple[int, ...],
                              records: bool, rows: pd.DataFrame) -> tuple[pd.Series, pd.DataFrame | None]:
    """The totals of the published records whose combinations were scored in Python (``fetched``,
    with their ``scores``), and with ``records`` the records in published order
    (:data:`RECORD_QUERY`'s columns), no statement over ``scored``: the records' values
    (``rows``, those located of :func:`published_values`, or a design's released records' class
    codes and SA values; no ``coded``: its joins to ``classes`` and each SA's codes cost Spark a
    job each) found among the classes' keys (:attr:`.Plan.class_keys`) and the codes' values
    (equal text, equal numbers, as those joins find them)."""
    classes = fetched.classes if fetched.classes is not None else \
        backend.fetch(f"SELECT cid, {', '.join(plan.class_keys)} FROM classes")
    named = coded_values(plan, rows, classes, fetched.values, "a published record's")
    places = plan.radix(radix)
    named = pd.DataFrame({"key": radix_key(list(named.values()), places)} if places is not None else named)
    at = fetched.index_of(named, places, "published")
    totals = fetched.totals(np.bincount(at, minlength=len(fetched.rows["cid"])))
    if not records:
        return totals, None
    order = np.argsort(rows["pos"].to_numpy(dtype=np.int64), kind="stable")
    at, scores = at[order], fetched.scores
    out = pd.DataFrame({"id": rows["id"].to_numpy(dtype=object)[order]})
    for column, name in zip(RECORD_COLUMNS[1:], ("k", "l", "t", "w", "tkl", "m_score", "l_severity")):
        out[column] = scores[name].to_numpy()[at]
    return totals, out


def coded_values(plan: Plan, rows: pd.DataFrame, classes: pd.DataFrame, values: list[np.ndarray],
                 what: str) -> dict[str, np.ndarray]:
    """Each row's class id ``cid`` and SA codes ``c{i}`` as :meth:`.Plan.coded`'s joins give them:
    its class keys (:attr:`.Plan.class_keys`) found among ``classes``' (with ``cid``), each SA
    value among ``values`` (each SA's by code): equal text, equal numbers. An error when one is
    not there (never: the values are the same relation's; ``what``: whose values)."""
    keys = plan.class_keys
    found = pd.MultiIndex.from_frame(classes[keys]).get_indexer(pd.MultiIndex.from_frame(rows[keys])) if keys else \
        np.zeros(len(rows), dtype=np.int64)
    named = {"cid": np.where(found < 0, -1, classes["cid"].to_numpy(dtype=np.int64)[found])}
    for i, (column, by_code) in enumerate(zip(plan.sa, values)):
        named[f"c{i}"] = pd.Index(by_code).get_indexer(rows[column].to_numpy(dtype=by_code.dtype))
    if any((codes < 0).any() for codes in named.values()):
        raise RuntimeError(f"{what} values are not among the classes' and codes' values: the engine's relations "
                           f"disagree")
    return named


def combinations_of_values(backend: Backend, plan: Plan, classes: pd.DataFrame,
                           values: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The combinations of ``plan.source`` as :func:`fetch_counted_rows` fetches them from
    ``combos`` (``cid``, ``c{i}``, ``cnt``, ``rid``; in no order) from one statement grouping the
    records' class keys and SA values, coded here (:func:`coded_values`; ``classes``: their keys
    by class id, ``values``: each SA's by code): on an engine whose statements cost a job each,
    one job, not one per join of :meth:`.Plan.coded` (Spark: 6 for 4 SAs)."""
    grouped = ", ".join(plan.class_keys + plan.sa)
    frame = backend.fetch(f"SELECT {grouped}, cnt, rid FROM {plan.source}" if plan.distinct else
                          f"SELECT {grouped}, {plan.count} AS cnt, MIN(rid) AS rid FROM {plan.source} "
                          f"GROUP BY {grouped}")
    rows = coded_values(plan, frame, classes, values, "a combination's")
    rows["cnt"] = frame["cnt"].to_numpy(dtype=np.int64)
    rows["rid"] = frame["rid"].to_numpy(dtype=np.int64)
    return rows


def finish_report(backend: Backend, plan: Plan, n: int, whole: pd.Series, x: float, warnings: list[str],
                  records_path: str | None, fetch: bool, unlocated: list[str] = (),
                  stream: bool = False, totals: pd.Series | None = None,
                  records: pd.DataFrame | None = None) -> ScoreReport:
    """The :class:`ScoreReport` of ``published_scored`` (a release's scored records in
    release order) from its totals (``totals``: summed already, :func:`combination_totals`;
    then no ``published_scored`` is read) and the whole source's; its records written to
    ``records_path``, or kept on disk (``stream``: ``report.stored``), or fetched
    (``fetch``; ``records``: made already), or left in the engine."""
    if totals is None:
        totals = fetch_totals(backend, plan, "published_scored")
    scores, whole_scores = score_set(totals, x), score_set(whole, x)
    p = int(totals["n"])
    by_source = normalise_by_source(scores, whole_scores, p)
    notes = list(warnings) + normalisation_notes(by_source) + ([unlocated_note(list(unlocated))] if unlocated else [])
    made, stored = records, None
    records = pd.DataFrame(columns=list(RECORD_COLUMNS))
    if records_path is not None:
        backend.write_parquet(RECORD_QUERY, records_path)
    elif stream:
        from tklscore.core.engines.record_store import RecordStore

        stored = RecordStore.in_work_folder(lambda path: backend.write_parquet(RECORD_QUERY, path))
    elif fetch:
        records = backend.fetch(RECORD_QUERY) if made is None else made
        records["id"] = records["id"].astype(object)
    return ScoreReport(n, p, x, scores, by_source, normalise_by_theoretical_max(scores, p, x), records, notes,
                       whole_scores, records_path=records_path, unlocated=list(unlocated), stored=stored)


def fetch_totals(backend: Backend, plan: Plan, relation: str, weighted: bool | None = None) -> pd.Series:
    """:meth:`.Plan.totals` of ``relation`` (a release's scored records, or a relation's scored
    combinations, ``weighted``), the sums exact (:func:`~tklscore.core.scoring.sums.sum_of_units`):
    the in-memory engine's totals to the bit, whatever order and threads the engine read the
    rows in; a few rows fetched, never the records."""
    parts = backend.fetch(plan.totals(relation, weighted))
    if parts.empty:
        return pd.Series({"n": 0, "tkl": 0.0, "tkl_max": float("nan"), "m_inf": float("nan"), "l_severity": 0.0,
                          "w_max": float("nan"), "w_above": 0})

    def column(name: str) -> np.ndarray:
        return parts[name].to_numpy()

    def largest(name: str) -> float:
        return float(np.max(column(name).astype(np.float64)))    # NaN if one is

    def total(unit: str, name: str, largest_score: str) -> float:
        at = parts[unit].notna().to_numpy()
        return sum_of_units(column(unit)[at], column(f"{name}_high")[at], column(f"{name}_low")[at],
                            odd=largest(largest_score) if column(f"{name}_odd").astype(np.int64).sum() else None)

    return pd.Series({"n": int(column("n").astype(np.int64).sum()), "tkl": total("ut", "t", "tkl_max"),
                      "tkl_max": largest("tkl_max"), "m_inf": largest("m_inf"), "l_severity": total("ul", "l", "l_max"),
                      "w_max": largest("w_max"), "w_above": int(column("w_above").astype(np.int64).sum())})


@dataclass(eq=False)
class Combinations:
    """A relation's combinations fetched into Python (:func:`fetch_counted_rows`) with what
    their scores need: each class's size and t, each SA's values by code and their weights.
    Their l-DF, W and record scores (:attr:`per_combination`, by :func:`combination_scores`) and
    their keys are computed once, whatever reads them (``scored``, the totals, a release's totals
    and records)."""

    rows: dict[str, np.ndarray]
    sizes: np.ndarray
    class_t: np.ndarray
    values: list[np.ndarray]
    per_code: list[np.ndarray]
    pairs: list[tuple[np.ndarray, ...]] | None = None   # each SA's (class, value code, count) pairs, when made
    scores: pd.DataFrame | None = None    # registered as ``scored`` (:meth:`scored`), when kept
    classes: pd.DataFrame | None = None   # each class's ``cid`` and keys (:attr:`.Plan.class_keys`), when fetched
    _keys: dict = field(default_factory=dict, repr=False)   # each combination's key, by ``places``

    @property
    def columns(self) -> list[str]:
        """The columns naming a combination: its class id and each SA's code."""
        return ["cid"] + [f"c{i}" for i in range(len(self.values))]

    @cached_property
    def per_combination(self):
        """Each combination's class id, l, W(r) and record scores (:func:`combination_scores`)."""
        return combination_scores(self.rows, self.sizes, self.class_t, self.values, self.per_code)

    def totals(self, released: np.ndarray | None = None) -> pd.Series:
        return combination_totals(self, released)

    def keys(self, places: tuple[int, ...]) -> np.ndarray:
        """Each combination's key in mixed radix of ``places`` (:meth:`.Plan.radix`), as the engine's."""
        if places not in self._keys:
            self._keys[places] = radix_key([self.rows[c] for c in self.columns], places)
        return self._keys[places]

    def index_of(self, named: pd.DataFrame, places: tuple[int, ...] | None, what: str) -> np.ndarray:
        """The row of each combination ``named`` names (its ``key`` in mixed radix of ``places``, or
        its class id and codes); an error when one is not among them (``what``: which ones)."""
        if places is not None:
            keys = self.keys(places)
            # each named key's row, by a search among the distinct named keys (an index of every key
            # would hash them all: 2.4 s for 2.6M combinations, when a few suppressed ones are named)
            wanted, named_at = np.unique(named["key"].to_numpy(dtype=np.int64), return_inverse=True)
            found = np.full(len(wanted), -1, dtype=np.int64)
            if len(wanted):
                near = np.minimum(np.searchsorted(wanted, keys), len(wanted) - 1)
                hit = np.flatnonzero(wanted[near] == keys)
                found[near[hit]] = hit
            at = found[named_at.reshape(-1)]
        else:
            at = pd.MultiIndex.from_arrays([self.rows[c] for c in self.columns]).get_indexer(
                pd.MultiIndex.from_frame(named[self.columns].astype(np.int64)))
        if (at < 0).any():   # an index of -1 would take the records from the last combination: a wrong score
            raise RuntimeError(f"{int((at < 0).sum())} {what} combination(s) are not among the "
                               f"{len(self.rows['cid'])} combinations scored: the engine's relations disagree")
        return at

    def released(self, gone: pd.DataFrame, places: tuple[int, ...] | None) -> np.ndarray:
        """Each combination's records less those ``gone`` holds (``combination`` columns —
        the key in mixed radix of ``places`` (:meth:`.Plan.radix`), or the class id and codes —
        and ``cnt``: the suppressed records of each combination)."""
        counts = self.rows["cnt"].copy()
        if not len(gone):
            return counts
        counts[self.index_of(gone, places, "suppressed")] -= gone["cnt"].to_numpy(dtype=np.int64)
        return counts

    def scored(self, places: tuple[int, ...] | None) -> pd.DataFrame:
        """:meth:`.Plan.combination_scores` of the combinations, by their key in mixed radix of
        ``places`` or their class id and codes (:meth:`.Plan.combination`): the same numbers."""
        cid, l, w, scores = self.per_combination
        named = {"key": self.keys(places)} if places is not None else {c: self.rows[c] for c in self.columns}
        return pd.DataFrame({**named, "cnt": self.rows["cnt"], "k": self.sizes[cid], "l": l.astype(np.int64),
                             "t": self.class_t[cid], "w": w, "tkl": scores.tkl, "m_score": scores.m_score,
                             "l_severity": scores.l_severity})

    def released_totals(self, gone: pd.DataFrame, places: tuple[int, ...] | None) -> pd.Series:
        """:meth:`totals` of the records released (:meth:`released`)."""
        return self.totals(self.released(gone, places))


class Scored(NamedTuple):
    """What :func:`score_records` leaves: the totals over the records, the weights' warnings
    and the columns naming a combination in ``coded`` and ``scored``."""

    totals: pd.Series | None   # None: not asked for
    warnings: list[str]
    combination: list[str]
    radix: tuple[int, ...]   # the number of classes and of each SA's codes (:meth:`.Plan.radix`)
    fetched: "Combinations | CombinationPieces | None" = None   # not ``kept`` and fetched (whole or in pieces):
                                                                # no ``scored``, the totals summed in Python


def score_records(backend: Backend, plan: Plan, roles: Roles, weights: Weights, missing_weight_zero: bool, n: int,
                  weigh=None, kept: bool = True, totals: bool = True, keep_combinations: bool = True,
                  codes_of: dict[int, str] | None = None, given: tuple | None = None,
                  keep_pairs: bool = False) -> Scored:
    """``scored``: k, l, t, W(r) and the record scores of every (class, SA values)
    combination of the records of ``plan.source`` (``n`` of them; a record's scores are its
    combination's: ``coded`` of the records read, :meth:`.Plan.published_records`, joined on
    the combination columns), and the totals over the records, summed over the combinations
    each times its records. ``weigh(i, name,
    uniques)``: the weight of each distinct value of SA i (NaN: none), by default the
    weights file's. Not ``kept``: ``scored`` is a :meth:`~.Backend.view` (no table written),
    for a caller that reads it once: the totals (``totals``), or else its own statement — or,
    when the combinations are fetched (:func:`fetch_counted_rows`), none at all: the totals are
    summed in Python (``fetched``; with ``totals`` and not ``keep_combinations``, ``combos``
    is a view, read once by that fetch), or, too many for that, fetched in pieces
    (:class:`CombinationPieces`, ``combos`` kept for them). ``codes_of``: SA i's codes
    ``(s{i}, c{i})`` as a statement over a relation that holds the codes of the same values
    (made by an earlier scoring), not made again. ``given``: the classes' sizes and the
    combinations' rows (as fetched) counted in Python already (:mod:`.design_classes`): no
    classes or combinations made here (rows None: ``classes`` and ``combos`` made in the engine
    by the caller). ``keep_pairs``: combinations read in pieces keep their pieces' pairs while they fit
    (:class:`CombinationPieces` ``keep_pairs``; a release measured from them)."""
    codes_of = codes_of or {}
    for i in range(len(roles.sa)):
        backend.materialize(f"codes_{i}", codes_of.get(i) or plan.value_codes(i))
    warnings, values, per_code = _register_weights(backend, plan, roles, weights, missing_weight_zero, weigh)
    # summed here, no statement over ``scored``; kept, on an engine whose statements cost a job each,
    # ``scored`` is registered from here
    rows_given = given is not None and given[1] is not None
    summed_here = rows_given or combinations_in_python(backend, plan, n, kept)
    # on such an engine the combinations are also coded here, from the classes' keys fetched with their sizes
    coded_here = given is None and summed_here and backend.few_statements
    classes = None
    if given is None:
        backend.materialize("classes", plan.classes())
        classes = backend.fetch(f"SELECT {', '.join(['cid', 'k'] + (plan.class_keys if coded_here else []))} "
                                f"FROM classes ORDER BY cid")
        sizes = classes["k"].to_numpy(dtype=np.int64)
    else:
        sizes = given[0]
    n_classes = len(sizes)
    radix = (n_classes, *(len(v) for v in values))
    per_combination = replace(plan, weighted=True, counted="combos")
    # too many to fetch at once: kept, fetched in pieces of whole classes and summed here (the whole
    # source of 10M rows scored in 17.9 CPU-s, against 37.2 by the engine's t and totals statements)
    in_pieces = not kept and not summed_here and piece_rows(backend, per_combination) > 0
    if given is None:
        (backend.view if summed_here and (kept or not keep_combinations) else backend.materialize)(
            "combos", plan.combinations(radix, groups=not (summed_here or in_pieces)))
    if in_pieces:
        pieces = CombinationPieces(backend, per_combination, sizes, values, per_code, n, keep_pairs=keep_pairs)
        return Scored(pieces.totals() if totals else None, warnings, plan.combination(radix), radix, pieces)
    # a combination is a record or more
    if coded_here:
        pairs = PairSource.of_rows(backend, per_combination, combinations_of_values(backend, plan, classes, values))
    else:
        pairs = PairSource.of_rows(backend, per_combination, given[1]) if rows_given else \
            PairSource(backend, per_combination, n)
    class_t = np.zeros(n_classes, dtype=np.float64)
    for i in range(len(roles.sa)):
        np.maximum(class_t, pairs.t(i, n, sizes), out=class_t)
    if summed_here:
        fetched = Combinations(pairs.counted_rows, sizes, class_t, values, per_code, pairs.made(),
                               classes=classes if coded_here else None)
        if kept:
            fetched.scores = fetched.scored(plan.radix(radix))
            backend.register("scored", fetched.scores)
        return Scored(fetched.totals() if totals else None, warnings, plan.combination(radix), radix, fetched)
    backend.register("class_t", pd.DataFrame({"cid": np.arange(n_classes, dtype=np.int64), "k": sizes, "t": class_t}))
    (backend.materialize if kept else backend.view)("scored", plan.combination_scores(radix))
    summed = fetch_totals(backend, plan, "scored", weighted=True) if totals else None
    return Scored(summed, warnings, plan.combination(radix), radix)


def combination_totals(combinations: Combinations, released: np.ndarray | None = None) -> pd.Series:
    """:meth:`.Plan.totals` of :meth:`.Plan.combination_scores` over the combinations fetched
    (:class:`Combinations`: class ids, codes and counts, :func:`fetch_counted_rows`, each SA's
    values by code and their weights), with the same floating-point operations in the same
    order: the l-DF of :func:`~tklscore.core.scoring.distinguishing_factors.l_distinguishing_factor`
    over the combinations (a group of QI ∪ (SA \\ {A_i}) holds as many values of A_i as
    combinations), W the weights added in SA order from 0.0, the record scores, and the sums
    exact (:func:`~tklscore.core.scoring.sums.exact_sum`, as in memory). ``released``: each
    combination's records in a release (:meth:`.Plan.released_combinations`: the factors are
    the whole relation's, the totals over the released records only, maxima over the
    combinations holding one)."""
    counts = combinations.rows["cnt"] if released is None else released
    return _summed([_Partial(combinations.per_combination, counts)])


def combination_scores(rows: dict[str, np.ndarray], sizes: np.ndarray, class_t: np.ndarray,
                       values: list[np.ndarray], per_code: list[np.ndarray]):
    """Each combination's class id, l, W(r) and record scores (:func:`combination_totals` says how)."""
    cid = rows["cid"]
    codes = [rows[f"c{i}"] for i in range(len(per_code))]
    l = l_distinguishing_factor([], [Codes(code, v) for code, v in zip(codes, values)], len(cid),
                                classes=(cid, len(sizes)))
    w = np.zeros(len(cid))
    for code, weight in zip(codes, per_code):
        w = w + weight[code]
    return cid, l, w, record_scores(sizes[cid].astype(np.float64), l.astype(np.float64), class_t[cid], w)


class _Partial:
    """The totals of some combinations (whole classes), to be added to others' (:func:`_summed`):
    counts, the exact parts of the sums (:func:`~tklscore.core.scoring.sums.exact_parts`) and the
    maxima over the combinations holding a released record (None: none does)."""

    def __init__(self, scored: tuple, counts: np.ndarray):
        """``scored``: the combinations' :func:`combination_scores`; ``counts``: their records."""
        _, _, w, scores = scored
        held = counts > 0

        def largest(x: np.ndarray) -> float | None:
            return float(x[held].max()) if held.any() else None

        self.n, self.w_above = int(counts.sum()), int(counts[w > 1.0 + 1e-12].sum())
        self.tkl, self.l_severity = exact_parts(scores.tkl, counts), exact_parts(scores.l_severity, counts)
        self.tkl_max, self.m_inf, self.w_max = largest(scores.tkl), largest(scores.m_score), largest(w)


def _summed(parts: list[_Partial]) -> pd.Series:
    """:meth:`.Plan.totals` of the combinations of ``parts``: sums exact, rounded once."""
    def largest(name: str) -> float:
        found = [getattr(p, name) for p in parts if getattr(p, name) is not None]
        return float(np.max(found)) if found else float("nan")    # SQL's MAX of no rows: NULL; NaN wins

    return pd.Series({"n": sum(p.n for p in parts), "tkl": rounded_sum([x for p in parts for x in p.tkl]),
                      "tkl_max": largest("tkl_max"), "m_inf": largest("m_inf"),
                      "l_severity": rounded_sum([x for p in parts for x in p.l_severity]),
                      "w_max": largest("w_max"), "w_above": sum(p.w_above for p in parts)})


PAIR_BATCH_ROWS = 1 << 20   # (class, value) pairs held at once: ~24 MB of integers


class PairSource:
    """Each SA's (class, value code, count) pairs of ``plan.counted``, and what they give
    (value counts, t), as the engine serves them best: read once (not ``keep``), from the counted
    rows fetched once (:func:`fetch_counted_rows`); else every SA's fetched once in one
    statement (:func:`pairs_in_one_statement`), else grouped in the engine SA by SA and
    streamed in batches of whole classes; with ``keep``, each SA's grouped once into
    ``pairs_{i}`` for every later ask. ``log``: a list told what was grouped (``names``: the
    SAs' names in it)."""

    def __init__(self, backend: Backend, plan: Plan, rows: int, keep: bool = False, log: list | None = None,
                 names: list[str] | None = None, coded_rows=None):
        self.backend, self.plan, self.rows, self.keep = backend, plan, rows, keep
        self.coded_rows = coded_rows   # () -> the combinations coded in Python, for every SA's pairs at once
        self.log, self.names = log, names
        self._fetched: list[tuple[np.ndarray, ...]] | bool | None = None   # None: not asked yet; False: streamed
        self.counted_rows: dict[str, np.ndarray] | None = None   # fetched once (:func:`fetch_counted_rows`)
        self._grouped: set[int] = set()

    @classmethod
    def of_rows(cls, backend: Backend, plan: Plan, rows: dict[str, np.ndarray]) -> "PairSource":
        """The pairs of combinations counted in Python already (as :func:`fetch_counted_rows` fetches them)."""
        source = cls.of_pairs(backend, plan, pairs_of_rows(rows, len(plan.sa)))
        source.counted_rows = rows
        return source

    @classmethod
    def of_pairs(cls, backend: Backend, plan: Plan, pairs: list[tuple[np.ndarray, ...]]) -> "PairSource":
        """Each SA's pairs already in Python (sorted by class then value): nothing is grouped."""
        source = cls(backend, plan, 0)
        source._fetched = list(pairs)
        return source

    def made(self) -> list[tuple[np.ndarray, ...]] | None:
        """Every SA's pairs when they are in Python (fetched or summed from the counted rows)."""
        return self._fetched if isinstance(self._fetched, list) else None

    def fetched(self, i: int) -> tuple[np.ndarray, ...] | None:
        """SA i's pairs when every SA's come in one statement (fetched at the first ask) — or,
        read once (not ``keep``), from the counted rows fetched once — else None."""
        if self._fetched is None:
            fetched = None
            if not self.keep:
                self.counted_rows = fetch_counted_rows(self.backend, self.plan, self.rows)
                if self.counted_rows is not None:
                    fetched = pairs_of_rows(self.counted_rows, len(self.plan.sa))
            if fetched is None:
                fetched = pairs_in_one_statement(self.backend, self.plan, self.rows, self.coded_rows)
                if fetched is not None:
                    self._note("every attribute")
            self._fetched = False if fetched is None else fetched
        return self._fetched[i] if self._fetched else None

    def value_counts(self, i: int) -> np.ndarray:
        """How many records hold each value code of SA i, by code."""
        fetched = self.fetched(i)
        if fetched is not None:
            return value_counts_of_pairs(fetched)
        return self.backend.fetch(self.plan.value_counts(i))["c"].to_numpy(dtype=np.int64)

    def batches(self, i: int):
        """SA i's pairs sorted by class then value, in batches of whole classes (the ordered
        EMD's input): the fetched ones, or streamed from the engine (consume each batch
        before the back-end runs another statement)."""
        fetched = self.fetched(i)
        if fetched is not None:
            yield fetched
            return
        if not self.keep:
            yield from whole_class_batches(self.backend, self.plan.class_value_pairs(i))
            return
        self._group(i)
        yield from whole_class_batches(self.backend, f"SELECT cid, idx, c FROM pairs_{i} ORDER BY cid, idx")

    def t(self, i: int, n: int, sizes: np.ndarray, counts=None) -> np.ndarray:
        """t of each class (by class id) for SA i over ``n`` records: the ordered EMD of a
        continuous SA from its pairs, the variational distance of a categorical one (in the
        engine unless the pairs are fetched). ``counts()``: SA i's value counts when already
        known (else :meth:`value_counts`)."""
        counts = counts or (lambda: self.value_counts(i))
        fetched = self.fetched(i)
        if fetched is not None:
            return t_of_pairs(fetched, self.plan.continuous[i], sizes, counts(), n)
        if self.plan.continuous[i]:
            table_counts = counts()   # before the batches' statement runs
            return ordered_emd_of_batches(self.batches(i), len(sizes), sizes, table_counts, n)
        relation = f"pairs_{i}" if i in self._grouped else None
        return np.clip(self.backend.fetch(self.plan.variational_distance(i, n, relation))["t"].to_numpy(
            dtype=np.float64), 0.0, 1.0)

    def _group(self, i: int) -> None:
        if i not in self._grouped:
            self.backend.materialize(f"pairs_{i}", self.plan.class_value_pairs(i, ordered=False))
            self._grouped.add(i)
            self._note(self.names[i] if self.names else f"s{i}")

    def _note(self, what: str) -> None:
        if self.log is not None:
            from tklscore.core.risk.aggregates import PAIRS   # not at import: `score` loads no risk code

            self.log.append(f"{PAIRS} of {what}")


def pairs_in_one_statement(backend: Backend, plan: Plan, rows: int,
                           coded_rows=None) -> list[tuple[np.ndarray, ...]] | None:
    """Every SA's (class, value code, count) pairs as int64 arrays sorted by class then
    value, by SA, fetched in one statement (:meth:`.Plan.all_class_value_pairs`) on an
    engine whose statements cost a job each (:attr:`.Backend.few_statements`) while they
    fit one batch of :data:`PAIR_BATCH_ROWS` (``rows``: the most pairs an SA can have, the
    rows of ``plan.counted``); else None: each SA's pairs are grouped and streamed alone.
    ``coded_rows()``: the combinations coded in Python (:func:`combinations_of_values`), whose
    pairs are summed here instead (no statement over ``plan.counted``)."""
    if not backend.few_statements or not plan.sa or rows * len(plan.sa) > PAIR_BATCH_ROWS:
        return None
    if coded_rows is not None:
        return pairs_of_rows(coded_rows(), len(plan.sa))
    table = backend.fetch_arrow(plan.all_class_value_pairs())
    sa, cid, idx, c = (table.column(name).to_numpy().astype(np.int64, copy=False) for name in ("sa", "cid", "idx", "c"))
    order = np.lexsort((idx, cid, sa))    # by SA, class then value
    sa, cid, idx, c = sa[order], cid[order], idx[order], c[order]
    bounds = np.searchsorted(sa, np.arange(len(plan.sa) + 1))
    return [(cid[a:b], idx[a:b], c[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]


FETCHED_SHARE = 1 / 16
"""The share of the memory limit that the counted rows' class ids, codes and counts (8 bytes
each) may take in Python to be fetched once rather than grouped and streamed SA by SA."""

FETCHED_BATCH = 3 * PAIR_BATCH_ROWS
"""On an engine whose statements cost a job each (:attr:`.Backend.few_statements`), whose results
reach Python through one driver, the most integers of counted rows fetched at once: a batch of
pairs' (:data:`PAIR_BATCH_ROWS` of three). Within it a relation's combinations are scored in
Python (no statement for their t, l-DF, scores and totals); beyond it, in the engine."""


def combinations_in_python(backend: Backend, plan: Plan, n: int, kept: bool = True) -> bool:
    """Whether :func:`score_records` fetches the combinations of ``plan.source`` (``n`` records)
    whole and scores them in Python: read once (not ``kept``), or on an engine whose statements
    cost a job each, while they fit (:func:`fetches_counted_rows`)."""
    return (not kept or backend.few_statements) and \
        fetches_counted_rows(backend, replace(plan, weighted=True, counted="combos"), n)


def fetches_counted_rows(backend: Backend, plan: Plan, rows: int) -> bool:
    """Whether :func:`fetch_counted_rows` fetches ``plan.counted``'s ``rows``: while they fit
    :data:`FETCHED_SHARE` of the memory limit, and on an engine whose statements cost a job
    each, :data:`FETCHED_BATCH`."""
    cells = rows * (len(plan.sa) + 2)
    return bool(plan.sa) and cells * 8 <= FETCHED_SHARE * memory_bytes(backend.memory_limit) and \
        (not backend.few_statements or cells <= FETCHED_BATCH)


def fetch_room(backend: Backend) -> int:
    """The bytes Python may fill while a relation's combinations are fetched and summed
    (:func:`fetch_counted_rows`, :class:`CombinationPieces`): the arrays fetched, within
    :data:`FETCHED_SHARE` of the memory limit, and as much again for the pairs and scores made
    from them — the room the engine's limit leaves them (:meth:`.Backend.bound_engine`)."""
    return int(2 * FETCHED_SHARE * memory_bytes(backend.memory_limit))


def fetch_counted_rows(backend: Backend, plan: Plan, rows: int) -> dict[str, np.ndarray] | None:
    """``plan.counted``'s class ids, codes and counts (``cid``, ``c{i}``, ``cnt``; of combinations
    also their first row, ``rid``) as int64 arrays, fetched in one statement while the ``rows``
    fit (:func:`fetches_counted_rows`); else None. At 1M rows (192k classes) the whole source's t took 1.0 s of CPU in
    four grouped statements (one a sort of 1M pairs, streamed), ~0.3 s from these."""
    if not fetches_counted_rows(backend, plan, rows):
        return None
    codes = [f"c{i}" for i in range(len(plan.sa))]
    first = ", rid" if plan.counted == "combos" else ""     # a combination's first row (a design's classes')
    table = backend.fetch_arrow(f"SELECT cid, {', '.join(codes)}{', cnt' if plan.weighted else ''}{first} "
                                f"FROM {plan.counted}")
    column = {name: table.column(name).to_numpy().astype(np.int64, copy=False) for name in table.column_names}
    if not plan.weighted:
        column["cnt"] = np.ones(table.num_rows, dtype=np.int64)
    return column


def piece_rows(backend: Backend, plan: Plan) -> int:
    """The combinations of ``plan.counted`` a piece of :class:`CombinationPieces` holds at most
    (as many as :data:`FETCHED_SHARE` allows fetching at once, a class's all whatever its
    size); 0: no pieces, the engine's statements (an engine whose statements cost a job each,
    or a share too small for a row)."""
    if backend.few_statements or not plan.sa:
        return 0
    return int(FETCHED_SHARE * memory_bytes(backend.memory_limit) // ((len(plan.sa) + 2) * 8))


class CombinationPieces:
    """The combinations of ``plan.counted`` (a design's ``combos``, too many to fetch at once)
    fetched in pieces of whole classes — ranges of class ids, each within :func:`piece_rows` —
    and summed here as :class:`Combinations` sums them fetched whole: each class's t (every
    value count of the whole relation fetched first), l-DF and scores are its own combinations',
    and the sums exact, so the totals are the same to the bit. Every piece is read once, by
    :meth:`released_totals` (or :meth:`totals`): nothing of them is kept but, with ``keep_pairs``,
    their (class, value) pairs while they fit."""

    def __init__(self, backend: Backend, plan: Plan, sizes: np.ndarray, values: list[np.ndarray],
                 per_code: list[np.ndarray], n: int, keep_pairs: bool = False):
        self.backend, self.plan, self.sizes, self.values, self.per_code, self.n = \
            backend, plan, sizes, values, per_code, n
        self.keep_pairs = keep_pairs
        self.first: np.ndarray | None = None    # each class's first row, once the pieces were read
        # with ``keep_pairs``, each SA's (class, value code, count) pairs of every piece, kept while
        # they fit a piece's room (a design's classes, measured from them), else None
        self.pairs: list[tuple[np.ndarray, ...]] | None = None
        self.kept: np.ndarray | None = None    # each class that keeps records, once released_totals ran

    def _bounds(self) -> np.ndarray:
        """The first class id of each piece, and the number of classes (and :attr:`first`)."""
        rows = self.backend.fetch_arrow(f"SELECT cid, COUNT(*) AS r, MIN(rid) AS first FROM {self.plan.counted} "
                                        f"GROUP BY cid")
        at = rows.column("cid").to_numpy()
        per_class = np.zeros(len(self.sizes), dtype=np.int64)
        per_class[at] = rows.column("r").to_numpy()
        self.first = np.zeros(len(self.sizes), dtype=np.int64)
        self.first[at] = rows.column("first").to_numpy()
        return run_bounds(per_class, max(piece_rows(self.backend, self.plan), 1))

    def totals(self) -> pd.Series:
        return self.released_totals(pd.DataFrame(), None)

    def released_totals(self, gone: pd.DataFrame, places: tuple[int, ...] | None) -> pd.Series:
        """The totals of the records released: each combination's less those ``gone`` holds
        (:meth:`Combinations.released`)."""
        plan, sizes, n = self.plan, self.sizes, self.n
        codes = [f"c{i}" for i in range(len(plan.sa))]
        table_counts = [self.backend.fetch(plan.value_counts(i))["c"].to_numpy(dtype=np.int64)
                        for i in range(len(plan.sa))]
        gone_class = ((gone["key"].to_numpy(dtype=np.int64) // places[0]) if places is not None
                      else gone["cid"].to_numpy(dtype=np.int64)) if len(gone) else np.zeros(0, dtype=np.int64)
        parts, room = [], piece_rows(self.backend, plan) * (len(codes) + 2)
        kept = [[] for _ in codes] if self.keep_pairs else None
        self.kept = np.ones(len(sizes), dtype=bool)
        self.kept[gone_class] = False       # whole classes are suppressed
        bounds = self._bounds()
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            table = self.backend.fetch_arrow(f"SELECT cid, {', '.join(codes)}, cnt FROM {plan.counted} "
                                             f"WHERE cid >= {int(lo)} AND cid < {int(hi)}")
            rows = {name: table.column(name).to_numpy().astype(np.int64, copy=False) for name in table.column_names}
            del table
            held = gone[(gone_class >= lo) & (gone_class < hi)] if len(gone) else gone
            released = Combinations(rows, sizes, None, self.values, self.per_code).released(held, places)
            rows["cid"] = rows["cid"] - lo            # the piece's classes numbered from 0
            k = sizes[lo:hi]
            class_t = np.zeros(hi - lo, dtype=np.float64)
            for i, pairs in enumerate(pairs_of_rows(rows, len(codes))):
                np.maximum(class_t, t_of_pairs(pairs, plan.continuous[i], k, table_counts[i], n), out=class_t)
                if kept is not None:
                    kept[i].append((pairs[0] + lo, pairs[1], pairs[2]))
                    room -= 3 * len(pairs[0])
            if room < 0:
                kept = None
            parts.append(_Partial(combination_scores(rows, k, class_t, self.values, self.per_code), released))
        self.pairs = None if kept is None else [tuple(np.concatenate([p[j] for p in pieces]) if pieces else
                                                      np.zeros(0, dtype=np.int64) for j in range(3))
                                                for pieces in kept]
        return _summed(parts)


def t_of_pairs(pairs: tuple[np.ndarray, ...], continuous: bool, sizes: np.ndarray, table_counts: np.ndarray,
               n: int) -> np.ndarray:
    """t of each class (``sizes``: their records) from an SA's (class, value code, count) pairs
    sorted by class then value: the ordered EMD of a continuous SA, the variational distance
    of a categorical one (``table_counts``: the whole relation's records per value, of ``n``)."""
    if continuous:
        return ordered_emd_from_pairs(*pairs, len(sizes), sizes, table_counts, n)
    return variational_distance_of_pairs(pairs, len(sizes), sizes, table_counts, n)


def run_bounds(sizes: np.ndarray, limit: int) -> np.ndarray:
    """Where runs of consecutive items of ``sizes`` start, each run holding at most ``limit``
    (an item larger than that alone), and the number of items: the bounds of pieces."""
    ends = np.cumsum(sizes)
    bounds, start = [0], 0
    while start < len(sizes):
        before = ends[start - 1] if start else 0
        start = max(int(np.searchsorted(ends, before + limit, side="right")), start + 1)
        bounds.append(start)
    return np.asarray(bounds, dtype=np.int64)


def pairs_of_rows(rows: dict[str, np.ndarray], n_sa: int) -> list[tuple[np.ndarray, ...]]:
    """Every SA's (class, value code, count) pairs sorted by class then value, from
    :func:`fetch_counted_rows` (:func:`weighted_class_value_pairs`, as the lattice groups them)."""
    cid, counts = rows["cid"], rows["cnt"]
    n_classes = int(cid.max()) + 1 if len(cid) else 0
    return [weighted_class_value_pairs(cid, n_classes, rows[f"c{i}"], int(rows[f"c{i}"].max()) + 1 if len(cid) else 0,
                                       counts) for i in range(n_sa)]


def value_counts_of_pairs(pairs: tuple[np.ndarray, ...]) -> np.ndarray:
    """How many records hold each value code, from every (class, value code, count) pair of
    an SA (each code of ``codes_{i}`` is held by a record, so it is in a pair)."""
    _, idx, counts = pairs
    return np.bincount(idx, weights=counts).astype(np.int64) if len(idx) else np.zeros(0, dtype=np.int64)


def whole_class_batches(backend: Backend, sql: str, rows: int | None = None):
    """The rows ``(cid, idx, c)`` of ``sql`` (sorted by ``cid``) as int64 arrays in batches
    of about ``rows``, each holding every row of its classes (a class's rows are never split
    between two batches), streamed from the engine: Python never holds all of them. Consume
    each before the back-end runs another statement."""
    pending: list[list[np.ndarray]] = []   # the rows of the last class seen, not yet known to be whole
    for batch in backend.fetch_batches(sql, rows or PAIR_BATCH_ROWS):
        if batch.num_rows == 0:
            continue
        columns = [batch.column(j).to_numpy(zero_copy_only=False).astype(np.int64, copy=False) for j in range(3)]
        last = columns[0][-1]
        cut = int(np.searchsorted(columns[0], last, side="left"))   # where the batch's last class starts
        if not cut and pending and pending[-1][0][-1] == last:     # the class goes on
            pending.append(columns)
            continue
        whole = pending + ([[c[:cut] for c in columns]] if cut else [])
        if whole:
            yield _joined(whole)
        pending = [[c[cut:] for c in columns]]
    if pending:
        yield _joined(pending)


def _joined(parts: list[list[np.ndarray]]) -> tuple[np.ndarray, ...]:
    if len(parts) == 1:
        return tuple(parts[0])
    return tuple(np.concatenate([part[j] for part in parts]) for j in range(3))


def score_set(totals: pd.Series, x: float) -> ScoreSet:
    n = int(totals["n"])
    if n == 0:
        return ScoreSet(0.0, 0.0, 0.0, 0.0, 0.0)
    m_inf = float(totals["m_inf"])
    return ScoreSet(float(totals["tkl"]), float(totals["tkl_max"]), m_score_table(n, m_inf, x), m_inf,
                    float(totals["l_severity"]))


def values_by_code(backend: Backend, plan: Plan) -> list[np.ndarray]:
    """Each SA's distinct values in code order (``codes_{i}``), in one statement: a categorical
    SA's text, a continuous one's numbers."""
    if not plan.sa:
        return []
    values = backend.fetch(plan.distinct_values())
    bounds = np.searchsorted(values["sa"].to_numpy(dtype=np.int64), np.arange(len(plan.sa) + 1))
    return [(values["x"].to_numpy(dtype=np.float64) if continuous else values["v"].to_numpy(dtype=object))[a:b]
            for continuous, a, b in zip(plan.continuous, bounds[:-1], bounds[1:])]


def _register_weights(backend: Backend, plan: Plan, roles: Roles, weights: Weights,
                      missing_weight_zero: bool, weigh=None) -> tuple[list[str], list[np.ndarray], list[np.ndarray]]:
    """``weights_{i}(s{i}, w)``: the weight of each distinct value of each SA, looked up
    as the in-memory engine does (``Weights.weights_of``); the weights' warnings, each
    SA's distinct values by code and their weights."""
    missing: list[tuple[str, str]] = []
    by_code, per_code = [], []
    for i, (name, uniques) in enumerate(zip(roles.sa, values_by_code(backend, plan))):
        per_value = (weights.weights_of(name, uniques, plan.continuous[i]) if weigh is None
                     else weigh(i, name, uniques))
        absent = np.isnan(per_value)
        if absent.any():
            missing += [(name, shown_value(v)) for v in uniques[absent]]
            per_value = np.where(absent, 0.0, per_value)
        by_code.append(uniques)
        per_code.append(per_value)
        backend.register(f"weights_{i}", pd.DataFrame({f"c{i}": np.arange(len(uniques), dtype=np.int64),
                                                       "w": per_value}))
    return missing_weights_notes(missing, weights, missing_weight_zero, roles.continuous), by_code, per_code


_UNITS = {"b": 1, "kb": 1000, "mb": 1000 ** 2, "gb": 1000 ** 3, "tb": 1000 ** 4,
          "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3, "tib": 1024 ** 4}


def parse_memory_limit(text: str) -> str:
    """A memory limit such as ``2GB``, ``512MB`` or ``1.5GiB``, normalised for the engines."""
    import re

    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?i?B)\s*", text or "", re.IGNORECASE)
    if not match or float(match.group(1)) <= 0 or match.group(2).lower() not in _UNITS:
        raise InputError(f"--memory-limit '{text}' is not a size; give a number and a unit, such as 2GB, "
                         f"512MB or 1.5GiB")
    number = float(match.group(1)) * _UNITS[match.group(2).lower()]
    return f"{max(1, math.floor(number / 1024 ** 2))}MiB"
