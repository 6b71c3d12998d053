"""M-Score, L-Severity, tkl-Score and tkl-Score_max of a published table, raw and
normalised (spec scoring.md, "Scores of a published table P").

| score         | record score                      | table score                          |
| M-Score       | RS_M   = min(1, W(r)) / k-DF(r)   | n^(1/x) · max_r RS_M  (x → ∞: max)   |
| L-Severity    | RS_L   = W(r) / k-DF(r)           | Σ_r RS_L                             |
| tkl-Score     | RS_tkl = (t-DF(r) + W(r)) / l-DF(r) | Σ_r RS_tkl                         |
| tkl-Score_max | RS_tkl                            | max_r RS_tkl                         |

:class:`Scorer` holds one source table with its roles. The distinguishing factors are
computed once per Scorer and the record weights W(r) once per weights, so changing only
the weights or the published selection re-scores in O(|P|) (+ O(n) gathers for W).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from functools import partial

import numpy as np
import pandas as pd

from tklscore.core.tables.codes import Codes, run_beside
from tklscore.core.scoring.sums import BLOCK, BlockSum, exact_sum
from tklscore.core.scoring.distinguishing_factors import (BESIDE, DistinguishingFactors, compute_distinguishing_factors,
                                                  factors_without_quasi_identifiers)
from tklscore.core.errors import InputError
from tklscore.core.tables.published import Release, source_ids, unlocated_note
from tklscore.core.tables.roles import Roles
from tklscore.core.tables.loading import MISSING, TEXT, Table
from tklscore.core.scoring.weights import Weights, WeightsPerScore, missing_weights_notes, weights_above_one_note

_NOT_COMPUTED = object()
_KEPT_WEIGHTS = 3  # W(r) of the last weights used: one per score when each score has its own

SCORE_NAMES = ("tkl", "tkl_max", "m_score", "m_score_inf", "l_severity")
RECORD_COLUMNS = ("id", "k", "l", "t", "weight_sum", "tkl", "m_score", "l_severity")
SCORE_LABELS = {"tkl": "tkl-Score", "tkl_max": "tkl-Score_max", "m_score": "M-Score",
                "m_score_inf": "M-Score (x → ∞)", "l_severity": "L-Severity"}
"""The name each score goes by on every screen, report and printout (M-Score: see :func:`score_label`)."""
SCORE_COLORS = {"tkl": (31, 119, 180), "m_score": (214, 39, 40), "l_severity": (44, 160, 44),
                "tkl_max": (255, 127, 14), "m_score_inf": (148, 103, 189)}
"""The colour each score is drawn in on every chart, the views' and the report's (RGB)."""


def parse_x(value) -> float:
    """M-Score's x from a number or text (``inf``, ``infinity`` or ``∞`` for x → ∞): x ≥ 1."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("inf", "+inf", "infinity", "∞"):
            return math.inf
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"x = '{value}' is not a number or 'inf'", column="x") from None
    elif isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise InputError(f"x = {value!r} is not a number or 'inf'", column="x")
    x = float(value)
    if math.isnan(x) or x < 1:
        raise InputError(f"x = {x:g} is not allowed; M-Score's x must be at least 1 (or inf)", column="x")
    return x


def x_text(x: float, infinity: str = "∞") -> str:
    """x as people read it: ``2``, ``1.5``, or ``infinity`` (default ∞) for x → ∞."""
    return infinity if math.isinf(x) else f"{x:g}"


def score_label(key: str, x: float | str | None = None, infinity: str = "∞") -> str:
    """The label of score ``key``; M-Score's names its x when given (a number, or text
    put in verbatim such as a ``{x}`` placeholder): ``M-Score (x = 2)``."""
    if key == "m_score" and x is not None:
        return f"M-Score (x = {x if isinstance(x, str) else x_text(x, infinity)})"
    if key == "m_score_inf" and infinity != "∞":
        return f"M-Score (x = {infinity})"
    return SCORE_LABELS[key]


@dataclass(frozen=True)
class ScoreSet:
    """The five table scores (any may be None when a normalisation is undefined)."""

    tkl: float | None
    tkl_max: float | None
    m_score: float | None
    m_score_inf: float | None
    l_severity: float | None

    def as_dict(self) -> dict[str, float | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class RecordScores:
    """Record scores RS_tkl, RS_M and RS_L of each published record (RS_M None when not asked)."""

    tkl: np.ndarray
    m_score: np.ndarray | None
    l_severity: np.ndarray


def record_scores(k: np.ndarray, l: np.ndarray, t: np.ndarray, weight_sum: np.ndarray,
                  out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None, m_score: bool = True) -> RecordScores:
    """RS_tkl = (t + W) / l, RS_M = min(1, W) / k and RS_L = W / k of records — every record, or a
    slice of them (:func:`source_table_scores`, a block at a time). ``out``: arrays of the records'
    length the three are written into (tkl, M, L); ``m_score`` False: RS_M not computed."""
    tkl_out, m_out, l_out = out if out is not None else (None, None, None)
    tkl = np.add(t, weight_sum, out=tkl_out)
    tkl /= l
    m = None
    if m_score:
        m = np.minimum(1.0, weight_sum, out=m_out)
        m /= k
    return RecordScores(tkl=tkl, m_score=m, l_severity=np.divide(weight_sum, k, out=l_out))


def table_scores(records: RecordScores, x: float) -> ScoreSet:
    n = len(records.tkl)
    if n == 0:
        return ScoreSet(0.0, 0.0, 0.0, 0.0, 0.0)
    m_inf = float(records.m_score.max())
    return ScoreSet(
        tkl=exact_sum(records.tkl),
        tkl_max=float(records.tkl.max()),
        m_score=m_score_table(n, m_inf, x),
        m_score_inf=m_inf,
        l_severity=exact_sum(records.l_severity),
    )


def source_table_scores(k: np.ndarray, l: np.ndarray, t: np.ndarray, weight_sum: np.ndarray, x: float) -> ScoreSet:
    """``table_scores(record_scores(k, l, t, weight_sum), x)``, the same figures bit for bit
    (exact sums, maxima), scored a block of records at a time in two halves beside each other
    (:func:`~tklscore.core.tables.codes.run_beside`): the whole source at each weights change,
    no record score held whole, and RS_M not computed where W(r) ≤ 1, as it is then RS_L."""
    n = len(weight_sum)
    if n == 0:
        return table_scores(record_scores(k, l, t, weight_sum), x)
    above_one = float(weight_sum.max()) > 1.0
    middle = min(n, -(-n // (2 * BLOCK)) * BLOCK)
    halves = [_SourceBlocks(k, l, t, weight_sum, above_one, 0, middle)]
    if middle < n:
        halves.append(_SourceBlocks(k, l, t, weight_sum, above_one, middle, n))
    for error in run_beside(halves):
        if error is not None:
            raise error
    tkl, l_severity = BlockSum(), BlockSum()
    for half in halves:
        tkl.merge(half.tkl)
        l_severity.merge(half.l_severity)
    if not (tkl.finite and l_severity.finite):   # a NaN or an infinity: as numpy sums them
        return table_scores(record_scores(k, l, t, weight_sum), x)
    m_max = max(half.m_max for half in halves)
    return ScoreSet(tkl=tkl.total(), tkl_max=max(half.tkl_max for half in halves),
                    m_score=m_score_table(n, m_max, x), m_score_inf=m_max, l_severity=l_severity.total())


class _SourceBlocks:
    """The exact sums and maxima of the record scores of source rows ``start:stop``, a block
    at a time (called once, on any thread)."""

    def __init__(self, k, l, t, weight_sum, above_one: bool, start: int, stop: int):
        self.arrays, self.above_one, self.start, self.stop = (k, l, t, weight_sum), above_one, start, stop
        self.tkl, self.l_severity = BlockSum(), BlockSum()
        self.tkl_max = self.m_max = -math.inf

    def __call__(self) -> None:
        k, l, t, weight_sum = self.arrays
        size = min(BLOCK, self.stop - self.start)
        buffers = (np.empty(size), np.empty(size), np.empty(size))
        for start in range(self.start, self.stop, BLOCK):
            part = slice(start, min(start + BLOCK, self.stop))
            w = weight_sum[part]
            rs = record_scores(k[part], l[part], t[part], w, tuple(b[:len(w)] for b in buffers), self.above_one)
            high = float(rs.tkl.max())
            self.tkl_max = max(self.tkl_max, high)
            self.tkl.add(rs.tkl, max(high, -float(rs.tkl.min())))
            high = float(rs.l_severity.max())
            self.l_severity.add(rs.l_severity, max(high, -float(rs.l_severity.min())))
            if rs.m_score is not None:
                high = float(rs.m_score.max())
            self.m_max = max(self.m_max, high)


def m_score_table(n, max_record_score, x: float):
    """M-Score = n^(1/x) · max_r RS_M; x → ∞ gives max_r RS_M (numbers or arrays)."""
    return max_record_score if math.isinf(x) else n ** (1.0 / x) * max_record_score


def cumulative_table_scores(records: pd.DataFrame, x: float) -> dict[str, np.ndarray]:
    """tkl-Score, M-Score and L-Severity of the first 1, 2, …, n published records (in
    published order) from a :class:`ScoreReport`'s records: the growth of a release."""
    count = np.arange(1, len(records) + 1, dtype=np.float64)
    running_max = np.maximum.accumulate(records["m_score"].to_numpy(dtype=np.float64))
    return {"tkl": np.cumsum(records["tkl"].to_numpy(dtype=np.float64)),
            "m_score": m_score_table(count, running_max, x),
            "l_severity": np.cumsum(records["l_severity"].to_numpy(dtype=np.float64))}


RISKIEST_SHARE = 0.10  # the Scores view highlights the riskiest tenth of the published records


def riskiest_count(n: int, share: float = RISKIEST_SHARE) -> int:
    """How many of ``n`` published records are the riskiest: ceil(share · n), at least one
    when there are records."""
    return max(1, math.ceil(share * n)) if n else 0


def riskiest_mask(tkl, share: float = RISKIEST_SHARE) -> np.ndarray:
    """True for the :func:`riskiest_count` records with the highest tkl record score (ties
    at the border broken by position, as ``argpartition``; records kept on disk:
    :meth:`~tklscore.core.engines.record_store.RecordStore.riskiest`)."""
    tkl = np.asarray(tkl)
    n = len(tkl)
    mask = np.zeros(n, dtype=bool)
    if n:
        count = riskiest_count(n, share)
        mask[np.argpartition(-tkl, count - 1)[:count]] = True
    return mask


def normalise_by_source(scores: ScoreSet, source_scores: ScoreSet, n: int) -> ScoreSet:
    """score(P) / score(S published whole); None where S scores 0 (0 for an empty P)."""
    def ratio(value: float, whole: float) -> float | None:
        if n == 0:
            return 0.0
        return value / whole if whole > 0 else None
    return ScoreSet(*(ratio(getattr(scores, k), getattr(source_scores, k)) for k in SCORE_NAMES))


def normalise_by_theoretical_max(scores: ScoreSet, n: int, x: float) -> ScoreSet:
    """Against every record scoring its maximum (1 for RS_M and RS_L, 2 for RS_tkl):
    tkl / 2n, tkl_max / 2, M / n^(1/x), M(x→∞) / 1, L / n; 0 for an empty P."""
    if n == 0:
        return ScoreSet(0.0, 0.0, 0.0, 0.0, 0.0)
    return ScoreSet(scores.tkl / (2 * n), scores.tkl_max / 2, scores.m_score / m_score_table(n, 1.0, x),
                    scores.m_score_inf, scores.l_severity / n)


@dataclass
class ScoreReport:
    source_rows: int
    published_rows: int
    x: float
    scores: ScoreSet
    normalized_source: ScoreSet
    normalized_max: ScoreSet
    records: pd.DataFrame
    warnings: list[str] = field(default_factory=list)
    source_scores: ScoreSet | None = None  # the source published whole: the denominators by source
    records_path: str | None = None   # an engine streamed the records to this file: ``records`` is empty
    unlocated: list[str] = field(default_factory=list)   # published records the source lacks (not scored)
    stored: object | None = None   # the records on disk (core.engines.record_store.RecordStore): ``records`` is empty

    def all_records(self) -> pd.DataFrame:
        """Every published record as one frame: ``records``, or read from ``stored`` (only
        for releases small enough to hold)."""
        return self.records if self.stored is None else self.stored.read_all()

    def riskiest(self, share: float = RISKIEST_SHARE) -> np.ndarray:
        """:func:`riskiest_mask` of the records' tkl record scores, kept with the records (the
        Scores view asks at every refresh; a background task can ask first)."""
        kept = self.__dict__.get("_riskiest")
        if kept is None or kept[0] is not self.records or kept[1] != share:
            kept = (self.records, share, riskiest_mask(self.records["tkl"].to_numpy(), share))
            self.__dict__["_riskiest"] = kept
        return kept[2]

    def summary_dict(self) -> dict:
        """Everything of :meth:`to_json_dict` but the records."""
        return {
            "source_rows": self.source_rows,
            "published_rows": self.published_rows,
            "x": "inf" if math.isinf(self.x) else float(self.x),
            "scores": self.scores.as_dict(),
            "normalized": {"source": self.normalized_source.as_dict(),
                           "theoretical_max": self.normalized_max.as_dict()},
        }

    def to_json(self, extra: dict | None = None) -> str:
        """The JSON text of :meth:`to_json_dict` (records one per line), written column by
        column: fast for many records; ``extra`` keys go before the records."""
        from tklscore.core.files.records import records_json

        records = self.records.astype({"k": np.int64, "l": np.int64})
        return self._json_head(extra) + records_json(records, list(RECORD_COLUMNS)) + "\n}\n"

    def write_json(self, handle, extra: dict | None = None) -> None:
        """:meth:`to_json` written to ``handle``; records kept on disk (``stored``) are read
        and written batch by batch."""
        if self.stored is None:
            handle.write(self.to_json(extra))
            return
        from tklscore.core.files.records import write_records_json

        handle.write(self._json_head(extra))
        write_records_json(handle, (b.astype({"k": np.int64, "l": np.int64})
                                    for b in self.stored.batches(list(RECORD_COLUMNS))), list(RECORD_COLUMNS))
        handle.write("\n}\n")

    def _json_head(self, extra: dict | None) -> str:
        head = json.dumps({**self.summary_dict(), **(extra or {}), "records": None}, indent=2)
        tail = '"records": null\n}'
        assert head.endswith(tail)
        return head[:-len(tail)] + '"records": '

    def to_json_dict(self) -> dict:
        return {
            **self.summary_dict(),
            "records": [
                {"id": str(r[0]), "k": int(r[1]), "l": int(r[2]), "t": float(r[3]),
                 "weight_sum": float(r[4]), "tkl": float(r[5]), "m_score": float(r[6]),
                 "l_severity": float(r[7])}
                for r in self.records.itertuples(index=False, name=None)
            ],
        }


def check_x(x: float) -> float:
    return parse_x(x)


def _factorise_beside(source: Table, roles: Roles) -> None:
    """Factorise the role columns the table has not factorised yet, beside each other
    (:func:`~tklscore.core.tables.codes.run_beside`: Arrow's hashing releases the interpreter
    lock, two cores share the work); the table keeps them."""
    jobs = [(source.codes, c) for c in roles.qi]
    jobs += [(source.numeric_codes if c in roles.continuous else source.codes, c) for c in roles.sa]
    run_beside([partial(job, column) for job, column in jobs])   # a column's error: raised by the Scorer's own call, in role order


class Scorer:
    """Scores releases of one source table under one assignment of roles."""

    def __init__(self, source: Table, roles: Roles):
        check_roles(roles)
        roles.validate(source, numbers=False)   # the numbers are checked as they are factorised, beside the others
        if len(source) == 0:
            raise InputError("the source table has no records", file=source.name)
        self.source = source
        self.roles = roles
        _factorise_beside(source, roles)
        self._qi = [source.codes(c) for c in roles.qi]
        self._sa: dict[str, Codes] = {   # a continuous SA that is not numbers: its error, in role order
            c: source.numeric_codes(c) if c in roles.continuous else source.codes(c)
            for c in roles.sa
        }
        self._ids = source_ids(source, roles.identifier) if roles.identifier else None
        self._factors: DistinguishingFactors | None | object = _NOT_COMPUTED
        self._weights_cache: dict = {}
        self._whole_cache: dict = {}
        self._last_release: Release | None = None
        self._last_factors: tuple[np.ndarray, DistinguishingFactors] | None = None
        self._last_ids: tuple[np.ndarray, object] | None = None
        self._whole_float: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._combined: tuple[int, np.ndarray] | None = None
        self.notes = self._missing_value_notes()

    def __len__(self) -> int:
        return len(self.source)

    @property
    def qi_codes(self) -> list[Codes]:
        """Factorised codes of the quasi-identifiers, in role order."""
        return list(self._qi)

    @property
    def sa_codes(self) -> dict[str, Codes]:
        """Factorised codes of the sensitive attributes (continuous: sorted numbers)."""
        return dict(self._sa)

    def ids_of(self, positions: np.ndarray) -> np.ndarray:
        """Ids of source records: the identifier column's values, else row positions."""
        if self._ids is None:
            return np.asarray(self._id_texts(positions), dtype=object)
        return self.source.text_at(self.roles.identifier, np.asarray(positions))

    def _id_texts(self, positions: np.ndarray):
        """:meth:`ids_of` as the records' id column holds them: the row numbers written by Arrow as
        Arrow-backed text (no Python string per id) when there is no identifier column."""
        if self._ids is None:
            import pyarrow as pa

            return pd.array(pa.array(np.asarray(positions, dtype=np.int64)).cast(pa.large_string()), dtype=TEXT)
        return self.ids_of(positions)

    def _missing_value_notes(self) -> list[str]:
        notes = []
        for column in self.roles.qi + tuple(c for c in self.roles.sa if c not in self.roles.continuous):
            empty = self.source.empty_count(column)
            if empty:
                notes.append(f"column '{column}' has {empty} empty cell(s); they count as a value of their own")
        return notes

    @property
    def factors(self) -> DistinguishingFactors | None:
        """k-, l- and t-DF of every source record (None without QIs: they depend on P)."""
        return self.compute_factors()

    @property
    def factors_computed(self) -> bool:
        """Whether the distinguishing factors are held (computed and not invalidated)."""
        return self._factors is not _NOT_COMPUTED

    def compute_factors(self, progress=None) -> DistinguishingFactors | None:
        """The distinguishing factors, computed once (``progress(fraction)`` between steps;
        it may raise to stop, and then nothing is kept)."""
        if self._factors is _NOT_COMPUTED:
            self._factors = (None if not self._qi else compute_distinguishing_factors(
                self._qi, self._sa, self.roles.continuous, progress, beside=BESIDE))
        return self._factors

    def invalidate(self) -> None:
        """Drop what is cached (distinguishing factors, W(r), whole-source scores): the next
        score computes them again."""
        self._factors = _NOT_COMPUTED
        self._weights_cache.clear()
        self._whole_cache.clear()
        self._last_release = None
        self._last_factors = None
        self._last_ids = None
        self._whole_float = None

    def _release_of(self, positions: np.ndarray) -> Release:
        """The release of these source rows with their ids; the last one is kept, so that
        re-scoring the same rows (e.g. after a weights change) does not write the ids again."""
        last = self._last_release
        if last is None or not np.array_equal(last.positions, positions):
            last = self._last_release = Release(positions.copy(), self._id_texts(positions))
        return last

    def _whole_factors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """k, l (as floats: the divisions need not convert them each time) and t of every
        source record published whole."""
        if self._whole_float is None:
            factors = self.factors if self.factors is not None else self.factors_of(np.arange(len(self.source)))
            self._whole_float = (factors.k_as(np.float64), factors.l.astype(np.float64), factors.t)
        return self._whole_float

    def _id_column(self, release: Release) -> pd.api.extensions.ExtensionArray:
        """The release's ids as the records' column holds them, kept for the last release."""
        if self._last_ids is None or self._last_ids[0] is not release.ids:
            self._last_ids = (release.ids, pd.Series(release.ids, dtype=None).array)
        return self._last_ids[1]

    def _factors_at(self, positions: np.ndarray) -> DistinguishingFactors:
        """:meth:`factors_of`, kept for the last positions (the same array object)."""
        if self._last_factors is None or self._last_factors[0] is not positions:
            self._last_factors = (positions, self.factors_of(positions))
        return self._last_factors[1]

    def factors_of(self, positions: np.ndarray) -> DistinguishingFactors:
        if self.factors is not None:
            return self.factors.take(positions)
        return factors_without_quasi_identifiers(
            [Codes(c.codes[positions], c.uniques) for c in self._sa.values()])

    def record_weights(self, weights: Weights, missing_weight_zero: bool = False) -> tuple[np.ndarray, list[str]]:
        """W(r) of every source record, and warnings; cached per weights."""
        key = (weights.fingerprint, missing_weight_zero)
        if key not in self._weights_cache:
            self._weights_cache[key] = self.weight_sums(weights, missing_weight_zero)
            while len(self._weights_cache) > _KEPT_WEIGHTS:
                del self._weights_cache[next(iter(self._weights_cache))]
        return self._weights_cache[key]

    def weight_sums(self, weights: Weights, missing_weight_zero: bool = False) -> tuple[np.ndarray, list[str]]:
        """:meth:`record_weights` computed afresh and not kept (it changes nothing in the
        Scorer, so another thread may call it while this one scores)."""
        per_value: list[np.ndarray] = []
        missing: list[tuple[str, str]] = []
        for name, codes in self._sa.items():
            values = weights.weights_of(name, codes.uniques, name in self.roles.continuous)
            absent = np.isnan(values)
            if absent.any():
                missing += [(name, shown_value(v)) for v in codes.uniques[absent]]
                values = np.where(absent, 0.0, values)
            per_value.append(values)
        warnings = missing_weights_notes(missing, weights, missing_weight_zero, self.roles.continuous)
        # W(r) = ((0 + w_1) + w_2) + …, in role order: the first attributes' sums taken once per
        # combination of their values, then one gather per other attribute
        together, combined = self._combined_codes()
        first = 0.0 + per_value[0]
        for values in per_value[1:together]:
            first = np.add.outer(first, values).ravel()
        total = first[combined]
        for values, codes in list(zip(per_value, self._sa.values()))[together:]:
            total += values[codes.codes]
        # no W(r) exceeds the sum of each attribute's largest weight, added in the same order
        if sum(float(values.max()) for values in [first] + per_value[together:]) > 1.0 + 1e-12:
            above = total > 1.0 + 1e-12
            if above.any():
                warnings.append(weights_above_one_note(int(above.sum()), float(total.max())))
        return total, warnings

    def _combined_codes(self) -> tuple[int, np.ndarray]:
        """How many of the first sensitive attributes are weighed together, and each record's
        combination of their values (mixed radix, the first attribute most significant): as
        many as keep the combinations at most a quarter of the records (kept; the codes do
        not change)."""
        if self._combined is None:
            codes = list(self._sa.values())
            together, size, combined = 1, codes[0].cardinality, codes[0].codes
            while together < len(codes) and size * codes[together].cardinality <= max(1, len(self.source) // 4):
                combined = combined * codes[together].cardinality + codes[together].codes
                size *= codes[together].cardinality
                together += 1
            self._combined = (together, combined)
        return self._combined

    def whole_source_scores(self, weights: Weights, x: float, missing_weight_zero: bool = False) -> ScoreSet:
        """Scores of S published whole (the denominator of normalisation against the source)."""
        key = (weights.fingerprint, missing_weight_zero, x)
        if key not in self._whole_cache:
            weight_sum, _ = self.record_weights(weights, missing_weight_zero)
            self._whole_cache[key] = source_table_scores(*self._whole_factors(), weight_sum, x)
            while len(self._whole_cache) > _KEPT_WEIGHTS:
                del self._whole_cache[next(iter(self._whole_cache))]
        return self._whole_cache[key]

    def score(self, release: Release | np.ndarray, weights: Weights, x: float = 1.0,
              missing_weight_zero: bool = False) -> ScoreReport:
        """Score a published table given as a :class:`Release` (or source row positions)."""
        x = check_x(x)
        if not isinstance(release, Release):
            release = self._release_of(np.asarray(release, dtype=np.int64))
        positions = release.positions
        weight_sum_all, warnings = self.record_weights(weights, missing_weight_zero)
        warnings = list(self.notes) + list(warnings)
        if release.conflict_warning():
            warnings.append(release.conflict_warning())
        if release.unlocated:
            warnings.append(unlocated_note(release.unlocated))
        report = score_report(self._factors_at(positions), weight_sum_all[positions], self._id_column(release), x,
                              self.whole_source_scores(weights, x, missing_weight_zero), len(self.source),
                              warnings)
        report.unlocated = list(release.unlocated)
        return report

    def score_with_own_weights(self, release: Release | np.ndarray, weights: WeightsPerScore, x: float = 1.0,
                               missing_weight_zero: bool = False) -> ScoreReport:
        """Each score with its own weights (data-model.md §5): tkl-Score and tkl-Score_max
        with ``weights.tkl``, M-Score with ``weights.m_score``, L-Severity with
        ``weights.l_severity``. Record columns follow the same split; ``weight_sum`` is W(r)
        under the tkl weights. With one shared weights object this equals :meth:`score`."""
        tkl = self.score(release, weights.tkl, x, missing_weight_zero)
        if weights.m_score is weights.tkl and weights.l_severity is weights.tkl:
            return tkl
        m = self.score(release, weights.m_score, x, missing_weight_zero)
        l_sev = self.score(release, weights.l_severity, x, missing_weight_zero)
        return merge_reports(tkl, m, l_sev)


def merge_reports(tkl: ScoreReport, m: ScoreReport, l_sev: ScoreReport) -> ScoreReport:
    """One report of each score with its own weights (data-model.md §5): tkl-Score and
    tkl-Score_max from ``tkl``, M-Score from ``m``, L-Severity from ``l_sev`` (the same
    release scored three times; every engine)."""

    def merged(get) -> ScoreSet:
        t_set, m_set, l_set = get(tkl), get(m), get(l_sev)
        return ScoreSet(t_set.tkl, t_set.tkl_max, m_set.m_score, m_set.m_score_inf, l_set.l_severity)

    records = tkl.records.copy()
    records["m_score"] = m.records["m_score"].to_numpy()
    records["l_severity"] = l_sev.records["l_severity"].to_numpy()
    warnings = list(dict.fromkeys(tkl.warnings + m.warnings + l_sev.warnings))
    return ScoreReport(tkl.source_rows, tkl.published_rows, tkl.x, merged(lambda r: r.scores),
                       merged(lambda r: r.normalized_source), merged(lambda r: r.normalized_max),
                       records, warnings, merged(lambda r: r.source_scores), unlocated=tkl.unlocated)


def score_report(factors: DistinguishingFactors, weight_sum: np.ndarray, ids, x: float, whole: ScoreSet,
                 source_rows: int, warnings: list[str]) -> ScoreReport:
    """The report of a published table from its records' factors and weight sums W(r);
    ``whole`` are the scores of the source published whole (normalisation by source)."""
    rs = record_scores(factors.k, factors.l, factors.t, weight_sum)
    scores = table_scores(rs, x)
    n = len(weight_sum)
    by_source = normalise_by_source(scores, whole, n)
    warnings = list(warnings) + normalisation_notes(by_source)
    records = pd.DataFrame({
        "id": ids, "k": factors.k, "l": factors.l, "t": factors.t,
        "weight_sum": weight_sum, "tkl": rs.tkl, "m_score": rs.m_score, "l_severity": rs.l_severity,
    }, columns=list(RECORD_COLUMNS))
    return ScoreReport(source_rows, n, x, scores, by_source,
                       normalise_by_theoretical_max(scores, n, x), records, warnings, whole)


def normalisation_notes(by_source: ScoreSet) -> list[str]:
    """The note of the scores whose normalisation against the source is undefined (every engine)."""
    undefined = [k for k, v in by_source.as_dict().items() if v is None]
    if not undefined:
        return []
    return [f"normalisation against the source is undefined for {', '.join(undefined)}: the whole source table "
            f"scores 0"]


def check_roles(roles: Roles, out_of_core: bool = False) -> None:
    """The roles scoring needs (every engine): a sensitive attribute; out of core also a
    quasi-identifier (without one the factors depend on the published table)."""
    if not roles.sa:
        raise InputError("no sensitive attribute is chosen; scoring needs at least one")
    if out_of_core and not roles.qi:
        raise InputError("the out-of-core engine needs at least one quasi-identifier "
                         "(without one the factors depend on the published table: use --engine memory)")


def shown_value(value) -> str:
    """A sensitive value as messages show it (a number as ``%g``)."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
