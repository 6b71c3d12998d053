"""Property-based tests of the scoring core against shared/spec/scoring.md.

Random small tables (1-40 rows, 0-3 QIs, 1-3 SAs of which some are continuous, small
alphabets so that classes collide, random weights for every value, continuous weights on
a few non-overlapping intervals covering the line) are scored by ``tklscore.core`` and by
the naive reference of ``tests/reference.py``; the "Properties that must hold" of the
spec are checked on the same tables.
"""

from __future__ import annotations

import csv
import math
import sys
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference as ref  # noqa: E402

from tklscore.core import Roles, Scorer, Table, Weights  # noqa: E402

SCORES = ref.SCORE_NAMES
REL, ABS = 1e-9, 1e-12

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# The invariances and bounds: hypothesis's default of 100 examples each. The comparisons with the
# naive reference (every number of a random case against an exact Fraction computation) keep 200.
INVARIANT = settings(SETTINGS, max_examples=100)

# --------------------------------------------------------------------------- strategies

CATEGORICAL_POOL = ["a", "b", "c", "A", "", "a b", "ü", "0"]
NUMBER_POOL = [-2.0, -1.0, 0.0, 0.5, 1.0, 2.5, 3.0]
CUT_POOL = [-1.5, -1.0, 0.0, 0.25, 0.5, 1.0, 2.0, 2.5, 3.0]
# Weights are 0 or at least 1e-300: a subnormal weight divided by k underflows to 0 in
# floating point, where the Fraction reference keeps it positive.
WEIGHT = st.one_of(st.sampled_from([0.0, 0.5, 1.0]),
                   st.floats(0.0, 1.0, allow_nan=False).filter(lambda w: w == 0.0 or w >= 1e-300))


def spellings(v: float) -> list[str]:
    """Ways of writing the number v in a cell (all parse to the same number)."""
    forms = [repr(v), f"{v:.2f}", f"{v:e}"]
    if v.is_integer():
        forms += [str(int(v)), f"+{int(v)}" if v >= 0 else str(int(v))]
    if v == 0:
        forms.append("-0")
    return forms


def fmt(x: float) -> str:
    return "inf" if x == math.inf else "-inf" if x == -math.inf else repr(float(x))


@dataclass(frozen=True)
class Interval:
    low: float
    low_closed: bool
    high: float
    high_closed: bool
    single_as_number: bool = False

    def text(self) -> str:
        if self.low == self.high and self.single_as_number:
            return fmt(self.low)
        return f"{'[' if self.low_closed else '('}{fmt(self.low)},{fmt(self.high)}{']' if self.high_closed else ')'}"

    def mapped(self, f) -> "Interval":
        return replace(self, low=f(self.low), high=f(self.high))


def cover(cuts: list[float], modes: list[str], singles_as_number: list[bool]) -> list[Interval]:
    """Non-overlapping intervals covering the whole line, split at ``cuts``; each cut
    belongs to the interval on its left, on its right, or is an interval of its own."""
    out, low, low_closed = [], -math.inf, False
    for c, mode, as_number in zip(cuts, modes, singles_as_number):
        if mode == "left":
            out.append(Interval(low, low_closed, c, True))
            low, low_closed = c, False
        elif mode == "right":
            out.append(Interval(low, low_closed, c, False))
            low, low_closed = c, True
        else:
            out.append(Interval(low, low_closed, c, False))
            out.append(Interval(c, True, c, True, as_number))
            low, low_closed = c, False
    out.append(Interval(low, low_closed, math.inf, False))
    return out


@dataclass
class Scenario:
    columns: list[str]
    rows: list[dict]
    qi: list[str]
    sa: list[str]
    continuous: list[str]
    alphabets: dict[str, list]  # categorical column -> texts; continuous SA -> numbers
    weights: dict[str, dict[str, float]] = field(default_factory=dict)  # categorical SA -> value -> w
    intervals: dict[str, list[tuple[Interval, float]]] = field(default_factory=dict)
    missing_weight_zero: bool = False
    # the source's scorer, built once for every release of this scenario scored (not copied by replace)
    _scorer: Scorer | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def n(self) -> int:
        return len(self.rows)

    def weight_entries(self) -> list[tuple[str, str, float]]:
        entries = [("note", "decoy", 0.25)]  # an attribute that is not sensitive: ignored
        for attribute, table in self.weights.items():
            entries += [(attribute, v, w) for v, w in table.items()]
        for attribute, pieces in self.intervals.items():
            entries += [(attribute, interval.text(), w) for interval, w in pieces]
        return entries

    def table(self) -> Table:
        return Table.from_frame(pd.DataFrame(self.rows, columns=self.columns))

    def roles(self) -> Roles:
        return Roles(qi=self.qi, sa=self.sa, continuous=self.continuous)

    def scorer(self) -> Scorer:
        if self._scorer is None:
            self._scorer = Scorer(self.table(), self.roles())
        return self._scorer

    def core(self, positions, x: float = 1.0):
        return self.scorer().score(np.asarray(positions, dtype=np.int64), Weights(self.weight_entries()),
                                   x=x, missing_weight_zero=self.missing_weight_zero)

    def reference(self, positions, x: float = 1.0) -> ref.Report:
        return ref.score(self.rows, self.qi, self.sa, self.continuous, self.weight_entries(), positions,
                         x=x, missing_weight_zero=self.missing_weight_zero)


@st.composite
def scenarios(draw, min_qi: int = 0, max_qi: int = 3) -> Scenario:
    n = draw(st.one_of(st.just(1), st.integers(1, 8), st.integers(1, 40)))
    n_qi = draw(st.integers(min_qi, max_qi))
    n_sa = draw(st.integers(1, 3))
    qi = [f"q{i}" for i in range(n_qi)]
    sa = [f"s{i}" for i in range(n_sa)]
    continuous = [s for s in sa if draw(st.booleans())]
    columns = qi + sa + ["note"]
    draw(st.randoms(use_true_random=False)).shuffle(columns)
    alphabets = {}
    for column in columns:
        if column in continuous:
            alphabets[column] = draw(st.lists(st.sampled_from(NUMBER_POOL), min_size=1, max_size=4, unique=True))
        else:
            alphabets[column] = draw(st.lists(st.sampled_from(CATEGORICAL_POOL), min_size=1, max_size=4,
                                              unique=True))
    # each cell's value and a number's spelling picked from one block of bytes, not drawn one by one:
    # the same tables (a byte shrinks towards 0: the first value, its first spelling), where a draw per
    # cell, 500 of them for 40 rows, was about half of each example's time
    picks = draw(st.binary(min_size=2 * n * len(columns), max_size=2 * n * len(columns)))
    rows = []
    for r in range(n):
        row = {}
        for c, column in enumerate(columns):
            at = 2 * (r * len(columns) + c)
            value = alphabets[column][picks[at] % len(alphabets[column])]
            if column in continuous:
                forms = spellings(value)
                value = forms[picks[at + 1] % len(forms)]
            row[column] = value
        rows.append(row)
    shape = draw(st.integers(0, 9))
    if shape == 0:  # all rows identical
        rows = [dict(rows[0]) for _ in range(n)]
    elif shape == 1:  # one equivalence class: every QI constant
        rows = [{**row, **{c: rows[0][c] for c in qi}} for row in rows]
    missing_weight_zero = draw(st.integers(0, 4)) == 0
    # now and then every weight is 0: S may then score 0 and normalisation is undefined
    weight = st.just(0.0) if draw(st.integers(0, 7)) == 0 else WEIGHT
    weights = {}
    for column in sa:
        if column in continuous:
            continue
        table = {v: draw(weight) for v in alphabets[column]}
        if missing_weight_zero:
            table = {v: w for v, w in table.items() if draw(st.booleans())}
        if draw(st.booleans()):
            table["never-seen"] = draw(weight)  # a value absent from the table: harmless
        weights[column] = table
    intervals = {}
    for column in continuous:
        cuts = sorted(draw(st.lists(st.sampled_from(CUT_POOL), max_size=3, unique=True)))
        modes = [draw(st.sampled_from(["left", "right", "single"])) for _ in cuts]
        singles = [draw(st.booleans()) for _ in cuts]
        pieces = [(interval, draw(weight)) for interval in cover(cuts, modes, singles)]
        if missing_weight_zero:
            pieces = [p for p in pieces if draw(st.booleans())]
        intervals[column] = pieces
    return Scenario(columns, rows, qi, sa, continuous, alphabets, weights, intervals, missing_weight_zero)


@st.composite
def subsets(draw, n: int) -> list[int]:
    """Distinct source positions in a random order (possibly none, possibly all)."""
    order = draw(st.permutations(range(n)))
    return list(order[:draw(st.integers(0, n))])


X = st.sampled_from([1.0, 1.0, 2.0, 3.5, math.inf])

# --------------------------------------------------------------------------- helpers


def close(actual, expected) -> bool:
    if expected is None or actual is None:
        return expected is None and actual is None
    return math.isclose(float(actual), float(expected), rel_tol=REL, abs_tol=ABS)


def assert_scoresets_match(actual, expected: dict, what: str) -> None:
    got = actual.as_dict()
    for name in SCORES:
        assert close(got[name], expected[name]), \
            f"{what}.{name}: core {got[name]!r} != reference {None if expected[name] is None else float(expected[name])!r}"


def assert_reports_equivalent(a, b, what: str = "") -> None:
    """Two core reports of the same release agree on every score and record (ids aside)."""
    for label in ("scores", "normalized_source", "normalized_max"):
        sa, sb = getattr(a, label).as_dict(), getattr(b, label).as_dict()
        for name in SCORES:
            assert close(sa[name], sb[name]), f"{what} {label}.{name}: {sa[name]!r} != {sb[name]!r}"
    assert len(a.records) == len(b.records)
    assert a.records["k"].tolist() == b.records["k"].tolist()
    assert a.records["l"].tolist() == b.records["l"].tolist()
    for column in ("t", "weight_sum", "tkl", "m_score", "l_severity"):
        for u, v in zip(a.records[column], b.records[column]):
            assert close(u, v), f"{what} record {column}: {u!r} != {v!r}"


def at_least(bigger: float, smaller: float) -> bool:
    """bigger ≥ smaller up to float summation noise."""
    return bigger >= smaller - 1e-12 * max(1.0, abs(smaller))


# --------------------------------------------------------------------------- core == reference


@SETTINGS
@given(data=st.data())
def test_core_matches_naive_reference(data):
    s = data.draw(scenarios())
    positions = data.draw(subsets(s.n))
    x = data.draw(X)
    core = s.core(positions, x)
    expected = s.reference(positions, x)

    records = core.records
    assert len(records) == len(expected.records) == len(positions)
    for i, (got, want) in enumerate(zip(records.itertuples(index=False), expected.records)):
        where = f"record {i} (source row {positions[i]})"
        assert got.k == want.k, f"{where}: k-DF {got.k} != {want.k}"
        assert got.l == want.l, f"{where}: l-DF {got.l} != {want.l}"
        assert close(got.t, want.t), f"{where}: t-DF {got.t!r} != {float(want.t)!r}"
        assert close(got.weight_sum, want.w), f"{where}: W {got.weight_sum!r} != {float(want.w)!r}"
        assert close(got.tkl, want.tkl), f"{where}: RS_tkl {got.tkl!r} != {float(want.tkl)!r}"
        assert close(got.m_score, want.m_score), f"{where}: RS_M {got.m_score!r} != {float(want.m_score)!r}"
        assert close(got.l_severity, want.l_severity), \
            f"{where}: RS_L {got.l_severity!r} != {float(want.l_severity)!r}"
    assert_scoresets_match(core.scores, expected.scores, "scores")
    assert_scoresets_match(core.normalized_source, expected.normalized_source, "normalized_source")
    assert_scoresets_match(core.normalized_max, expected.normalized_max, "normalized_max")


@SETTINGS
@given(s=scenarios(min_qi=1))
def test_source_factors_match_naive_reference(s):
    factors = s.scorer().factors
    expected = ref.source_factors(s.rows, s.qi, s.sa, set(s.continuous))
    assert factors.k.tolist() == [f.k for f in expected]
    assert factors.l.tolist() == [f.l for f in expected]
    for got, want in zip(factors.t, expected):
        assert close(got, want.t), f"t-DF {got!r} != {float(want.t)!r}"


# --------------------------------------------------------------------------- bounds


@INVARIANT
@given(data=st.data())
def test_factor_bounds_and_nonnegative_record_scores(data):
    s = data.draw(scenarios())
    positions = data.draw(subsets(s.n))
    for report in (s.core(positions), s.core(list(range(s.n)))):
        r = report.records
        assert (r["l"] >= 1).all()
        assert (r["l"] <= r["k"]).all()
        assert (r["k"] >= 1).all()
        assert ((r["t"] >= 0.0) & (r["t"] <= 1.0)).all()
        for column in ("weight_sum", "tkl", "m_score", "l_severity"):
            assert (r[column] >= 0.0).all(), column
        assert (r["m_score"] <= 1.0).all()
        for name, value in report.scores.as_dict().items():
            assert value >= 0.0, name


@INVARIANT
@given(data=st.data())
def test_normalised_by_source_lies_in_unit_interval_with_qis(data):
    s = data.draw(scenarios(min_qi=1))
    positions = data.draw(subsets(s.n))
    report = s.core(positions, data.draw(X))
    for name, value in report.normalized_source.as_dict().items():
        if value is not None:
            assert -ABS <= value <= 1.0 + 1e-9, (name, value)


# --------------------------------------------------------------------------- monotonicity


@INVARIANT
@given(data=st.data())
def test_adding_records_never_lowers_scores_with_qis(data):
    s = data.draw(scenarios(min_qi=1))
    bigger = data.draw(subsets(s.n))
    smaller = bigger[:data.draw(st.integers(0, len(bigger)))]
    x = data.draw(X)
    small, big = s.core(smaller, x).scores, s.core(bigger, x).scores
    for name in SCORES:
        assert at_least(getattr(big, name), getattr(small, name)), \
            f"{name}: |P|={len(smaller)} scores {getattr(small, name)!r}, adding records gives {getattr(big, name)!r}"


def test_no_qi_adding_a_record_can_lower_l_severity():
    """The documented exception: without QIs k-DF = |P| (and l-DF depends on P), so adding
    a record to P can lower L-Severity (and tkl)."""
    s = Scenario(columns=["s0"], rows=[{"s0": "a"}, {"s0": "b"}], qi=[], sa=["s0"], continuous=[],
                 alphabets={"s0": ["a", "b"]}, weights={"s0": {"a": 1.0, "b": 0.0}})
    one = s.core([0])
    both = s.core([0, 1])
    assert one.records["k"].tolist() == [1] and both.records["k"].tolist() == [2, 2]
    assert one.records["l"].tolist() == [1] and both.records["l"].tolist() == [2, 2]
    assert one.scores.l_severity == pytest.approx(1.0)      # 1/1
    assert both.scores.l_severity == pytest.approx(0.5)     # 1/2 + 0/2
    assert both.scores.l_severity < one.scores.l_severity
    assert one.scores.tkl == pytest.approx(1.0)             # (0 + 1)/1
    assert both.scores.tkl == pytest.approx(0.5)            # (0 + 1)/2 + (0 + 0)/2
    assert both.scores.tkl < one.scores.tkl
    # the reference agrees
    assert s.reference([0]).scores["l_severity"] == 1
    assert s.reference([0, 1]).scores["l_severity"] == Fraction(1, 2)


# --------------------------------------------------------------------------- whole source


@INVARIANT
@given(data=st.data())
def test_publishing_the_whole_source_normalises_to_one(data):
    s = data.draw(scenarios())
    x = data.draw(X)
    order = data.draw(st.permutations(range(s.n)))
    report = s.core(order, x)
    whole = s.reference(list(range(s.n)), x).whole  # exact: is S's score > 0?
    for name, value in report.normalized_source.as_dict().items():
        if whole[name] > 0:
            assert value is not None and math.isclose(value, 1.0, rel_tol=REL), (name, value)
        else:
            assert value is None, (name, value)


# --------------------------------------------------------------------------- invariances


@INVARIANT
@given(data=st.data())
def test_invariant_to_source_row_order(data):
    s = data.draw(scenarios())
    positions = data.draw(subsets(s.n))
    x = data.draw(X)
    permutation = data.draw(st.permutations(range(s.n)))  # new row i = old row permutation[i]
    new_position_of = {old: new for new, old in enumerate(permutation)}
    shuffled = replace(s, rows=[s.rows[old] for old in permutation])
    assert_reports_equivalent(s.core(positions, x), shuffled.core([new_position_of[p] for p in positions], x),
                              "row order:")


INCREASING = {
    "2v+3": lambda v: 2 * v + 3,
    "v^3": lambda v: v ** 3,
    "v-10": lambda v: v - 10,
}


@INVARIANT
@given(data=st.data())
def test_invariant_to_consistent_renaming(data):
    s = data.draw(scenarios())
    positions = data.draw(subsets(s.n))
    x = data.draw(X)
    f = INCREASING[data.draw(st.sampled_from(sorted(INCREASING)))]
    names = st.text(alphabet="xyzé漢 ,;-_", max_size=4)
    renames = {}
    for column in s.columns:
        if column not in s.continuous:
            alphabet = s.alphabets[column]
            new = data.draw(st.lists(names, min_size=len(alphabet), max_size=len(alphabet), unique=True))
            renames[column] = dict(zip(alphabet, new))

    def cell(column, text):
        return fmt(f(float(text))) if column in s.continuous else renames[column][text]

    rows = [{c: cell(c, v) for c, v in row.items()} for row in s.rows]
    weights = {a: {renames[a].get(v, "never-seen"): w for v, w in table.items()} for a, table in s.weights.items()}
    intervals = {a: [(interval.mapped(f), w) for interval, w in pieces] for a, pieces in s.intervals.items()}
    renamed = replace(s, rows=rows, weights=weights, intervals=intervals)
    assert_reports_equivalent(s.core(positions, x), renamed.core(positions, x), "renamed:")


@pytest.mark.parametrize("continuous, values", [
    (False, ["a", "b", "b", "b", "b", "c"]),  # q = 1/6, 4/6, 1/6
    (True, ["0", "1", "2"]),                  # q = 1/3 each
])
def test_a_source_scoring_zero_leaves_normalisation_undefined(continuous, values):
    """One equivalence class holding the whole table: its distribution IS the table's, so
    t-DF = 0 exactly; with all weights 0, S scores 0 and normalisation against the source
    is undefined (None), not 1.0 (spec: "Undefined (null, with a warning) when S scores 0")."""
    s = Scenario(columns=["q0", "s0"], rows=[{"q0": "x", "s0": v} for v in values], qi=["q0"], sa=["s0"],
                 continuous=["s0"] if continuous else [], alphabets={},
                 weights={} if continuous else {"s0": {v: 0.0 for v in set(values)}},
                 intervals={"s0": [(Interval(-math.inf, False, math.inf, False), 0.0)]} if continuous else {})
    assert all(f.t == 0 for f in ref.source_factors(s.rows, s.qi, s.sa, set(s.continuous)))
    whole = s.core(range(len(values)))
    assert whole.normalized_source.as_dict() == dict.fromkeys(SCORES)
    assert s.core([0]).normalized_source.as_dict() == dict.fromkeys(SCORES)
    assert whole.scores.tkl == 0.0
    assert s.scorer().factors.t.tolist() == [0.0] * len(values)


# --------------------------------------------------------------------------- empty P


@INVARIANT
@given(s=scenarios(), x=X)
def test_empty_published_table_scores_zero(s, x):
    report = s.core([], x)
    assert report.published_rows == 0 and len(report.records) == 0
    for label in ("scores", "normalized_source", "normalized_max"):
        for name, value in getattr(report, label).as_dict().items():
            assert value == 0.0, (label, name, value)


# --------------------------------------------------------------------------- the reference itself


def test_reference_reproduces_the_spec_oracles(data_dir):
    """The reference is anchored to the worked numbers of scoring.md (Table 5.3c, Scenarios 1, 2)."""
    with open(data_dir / "thesis_table_3_1.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    with open(data_dir / "thesis_table_4_2_weights.csv", newline="") as handle:
        weights = [(r["attribute"], r["value"], float(r["weight"])) for r in csv.DictReader(handle)]
    qi, sa = ["Job", "City", "Gender"], ["Disease", "Medication", "Age", "Initial Diagnosis"]
    whole = ref.score(rows, qi, sa, ["Age"], weights, range(7))
    table_5_3c = [  # tkl, M, t, k, l, W
        (1.44178, 0.58464, 0.85714, 1, 1, 0.58464), (1.29893, 0.29232, 0.71429, 2, 1, 0.58464),
        (1.03973, 0.16272, 0.71429, 2, 1, 0.32544), (1.54949, 0.41760, 0.71429, 2, 1, 0.83520),
        (1.35365, 0.31968, 0.71429, 2, 1, 0.63936), (1.03973, 0.16272, 0.71429, 2, 1, 0.32544),
        (1.03973, 0.16272, 0.71429, 2, 1, 0.32544)]
    for r, (tkl, m, t, k, l, w) in zip(whole.records, table_5_3c):
        assert (r.k, r.l) == (k, l)
        assert [round(float(v), 5) for v in (r.tkl, r.m_score, r.l_severity, r.t, r.w)] == [tkl, m, m, t, w]
    assert {k: round(float(v), 5) for k, v in whole.scores.items()} == {
        "tkl": 8.76302, "tkl_max": 1.54949, "m_score": 4.09248, "m_score_inf": 0.58464, "l_severity": 2.10240}
    s1 = ref.score(rows, qi, sa, ["Age"], weights, [3, 4, 5, 6])
    assert {k: round(float(v), 5) for k, v in s1.scores.items()} == {
        "tkl": 4.98258, "tkl_max": 1.54949, "m_score": 1.67040, "m_score_inf": 0.41760, "l_severity": 1.06272}
    assert {k: round(float(v), 4) for k, v in s1.normalized_source.items()} == {
        "tkl": 0.5686, "tkl_max": 1.0, "m_score": 0.4082, "m_score_inf": 0.7143, "l_severity": 0.5055}
    # errata 3: Age alone, ordered EMD with 1/(m-1): row 0's class 2/7, the table's maximum 0.4143
    age = ref.source_factors(rows, qi, ["Age"], {"Age"})
    assert age[0].t == Fraction(2, 7)
    assert round(float(max(f.t for f in age)), 4) == 0.4143


# --------------------------------------------------------------------------- EMD arithmetic paths


@SETTINGS
@given(classes=st.lists(st.integers(0, 4), min_size=1, max_size=60), data=st.data())
def test_ordered_emd_float_path_equals_exact_integer_path(classes, data):
    """Tables too large for int64 sums take the float path; both paths agree."""
    from tklscore.core.tables.codes import factorize, group_ids
    from tklscore.core.scoring.distinguishing_factors import ordered_emd_by_class

    values = np.array(data.draw(st.lists(st.integers(0, 9), min_size=len(classes), max_size=len(classes))),
                      dtype=float)
    ids, n_classes = group_ids([factorize(np.array(classes))], len(classes))
    sizes = np.bincount(ids, minlength=n_classes)
    codes = factorize(values, ordered=True)
    exact = ordered_emd_by_class(ids, n_classes, sizes, codes, exact=True)
    floating = ordered_emd_by_class(ids, n_classes, sizes, codes, exact=False)
    np.testing.assert_allclose(floating, exact, rtol=1e-12, atol=1e-15)
