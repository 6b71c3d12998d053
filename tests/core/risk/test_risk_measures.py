"""The risk lens (spec privacy-models.md §1–3, §6): privacy models, re-identification risk,
population uniqueness, individual risk and QI importance of ``tklscore.core.risk``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples
from tklscore.core import InputError, Table, load_table
from tklscore.core.risk import measure_table
from tklscore.core.risk.population_uniqueness import digamma, hypergeometric_one, population_uniques, trigamma
from tklscore.core.risk.reidentification import individual_risk
from tklscore.core.risk.equivalence_classes import EquivalenceClasses

ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation"]


def table_4() -> pd.DataFrame:
    """ppdp-prototype.md §2.3, Table 4 as printed."""
    return pd.DataFrame({
        "Age": ["[35-40)"] * 3 + ["[40-45)"] * 2,
        "Gender": ["Male"] * 3 + ["Female"] * 2,
        "City": ["Elva", "Elva", "Tartu", "Tartu", "Tartu"],
        "Disability": ["No", "Yes", "No", "Yes", "No"],
    })


# ------------------------------------------------------------------------------ oracles

def test_table_4_k_anonymity():
    assert measure_table(table_4(), qi=["Age", "Gender"], sa=["Disability"]).k == 2
    assert measure_table(table_4(), qi=["Age", "Gender", "City"], sa=["Disability"]).k == 1


def test_example_2_5_entropy_l_diversity():
    m = measure_table(table_4(), qi=["Age", "Gender"], sa=["Disability"])
    group_entropies = sorted(math.exp(h) for h in
                             [-(1 / 3) * math.log(1 / 3) - (2 / 3) * math.log(2 / 3), math.log(2)])
    assert round(group_entropies[0], 4) == 1.8899 and round(group_entropies[1], 4) == 2.0
    assert round(m.models.l_entropy, 4) == 1.8899
    by_class = sorted(math.exp(-sum(q * math.log(q) for q in qs)) for qs in ([1 / 3, 2 / 3], [1 / 2, 1 / 2]))
    assert m.models.l_entropy == pytest.approx(by_class[0], rel=1e-15)
    assert m.models.pycanon_entropy_l == 1  # int(e ** H): 1.8899 → 1
    # recursive (c,2): group (2,1) needs c > 2, so c = ⌊2/1⌋ + 1 = 3; the table is (c,2)-diverse iff c > 2
    assert m.models.recursive_c == 3 and m.models.l_distinct == 2


def test_table_4_every_measure():
    j = measure_table(table_4(), qi=["Age", "Gender"], sa=["Disability"], population=table_4(),
                      sampling_fraction=1.0, qi_importance=True).to_json_dict()
    assert j["rows"] == 5 and j["suppressed_rows"] == 0
    assert j["classes"] == {"count": 2, "min": 2, "max": 3, "mean": 2.5, "median": 2.5}
    assert j["alpha_k"] == {"alpha": pytest.approx(2 / 3), "k": 2}
    # p(No) = 3/5; class 1 q(No) = 2/3, class 2 q(No) = 1/2 → t = max(1/15, 1/10)
    assert j["t"] == pytest.approx(0.1) and j["t_by_attribute"] == {"Disability": pytest.approx(0.1)}
    assert j["beta_basic"] == pytest.approx((1 / 2 - 2 / 5) / (2 / 5))
    assert j["beta_enhanced"] == pytest.approx(min(0.25, -math.log(2 / 5)))
    # class 2: q(Yes) = 1/2 against p(Yes) = 2/5 is the largest |ln(q/p)|
    assert j["delta"] == pytest.approx(math.log((1 / 2) / (2 / 5)))
    assert j["risk"]["prosecutor"] == {"highest": 0.5, "average": 0.4, "records_at_risk": 1.0, "success_rate": 0.4}
    assert j["risk"]["marketer"] == pytest.approx(2 / 5)  # population = the table: #classes / n
    assert j["risk"]["sample_uniques"] == 0.0
    assert j["risk"]["population_uniques"] == {"pitman": 0.0, "zayatz": 0.0, "snb": 0.0, "dankar": 0.0}
    assert j["pycanon"] == {"entropy_l": 1, "recursive_cl": [2, 2], "average_rir": pytest.approx((1 / 3 + 1 / 2) / 2)}
    assert [q["attributes"] for q in j["qi_importance"]] == [["Age"], ["Gender"], ["Age", "Gender"]]
    assert j["qi_importance"][2]["distinction"] == pytest.approx(2 / 5)
    assert j["qi_importance"][2]["separation"] == pytest.approx(1 - (3 + 1) / 10)


def test_json_keys_are_those_of_the_issue():
    j = measure_table(table_4(), qi=["Age", "Gender"], sa=["Disability"]).to_json_dict()
    assert list(j) == ["rows", "suppressed_rows", "classes", "k", "alpha_k", "l_distinct", "l_entropy",
                       "recursive_cl", "t", "t_by_attribute", "beta_basic", "beta_enhanced", "delta",
                       "xy_anonymity", "risk", "qi_importance", "pycanon"]
    assert list(j["risk"]) == ["prosecutor", "journalist", "marketer", "sample_uniques", "population_uniques",
                               "individual_risk"]
    assert list(j["pycanon"]) == ["entropy_l", "recursive_cl", "average_rir"]


def test_measures_needing_a_sensitive_attribute_are_null_without_one():
    j = measure_table(table_4(), qi=["Age", "Gender"]).to_json_dict()
    assert j["k"] == 2
    for key in ("l_distinct", "l_entropy", "t", "beta_basic", "beta_enhanced", "delta"):
        assert j[key] is None
    assert j["alpha_k"] == {"alpha": None, "k": 2} and j["recursive_cl"] == {"c": None, "l": None}
    assert j["t_by_attribute"] == {}
    assert j["risk"]["prosecutor"]["highest"] == 0.5


def test_xy_anonymity_counts_distinct_identifiers_per_class():
    frame = pd.DataFrame({"q": ["a", "a", "a", "b", "b"], "person": ["1", "1", "2", "3", "4"],
                          "s": ["x", "y", "x", "x", "y"]})
    assert measure_table(frame, qi=["q"], sa=["s"], identifier_columns=["person"]).models.xy_anonymity == 2
    frame.loc[4, "person"] = "3"
    assert measure_table(frame, qi=["q"], sa=["s"], identifier_columns=["person"]).models.xy_anonymity == 1


def test_suppressed_records_count_as_a_class_or_are_excluded():
    frame = pd.DataFrame({"a": ["*", "*", "x", "x", "y", "y"], "b": ["*", "*", "1", "1", "2", "2"],
                          "s": ["p", "q", "p", "q", "p", "p"]})
    kept = measure_table(frame, qi=["a", "b"], sa=["s"])
    assert kept.suppressed_rows == 2 and kept.classes.count == 3 and kept.models.l_distinct == 1
    excluded = measure_table(frame, qi=["a", "b"], sa=["s"], exclude_suppressed=True)
    assert excluded.suppressed_rows == 2 and excluded.classes.count == 2
    assert list(excluded.record_rows) == [2, 3, 4, 5]
    assert excluded.to_json_dict()["rows"] == 6
    other_marker = measure_table(frame.replace("*", "#"), qi=["a", "b"], sa=["s"], suppressed_marker="#",
                                 exclude_suppressed=True)
    assert other_marker.classes.count == 2


def test_continuous_t_closeness_is_the_ordered_emd():
    frame = pd.DataFrame({"q": ["a", "a", "b", "b"], "s": ["1", "2", "3", "3"]})
    m = measure_table(frame, qi=["q"], sa=["s"], continuous=["s"])
    # values 1,2,3 with p = (1/4, 1/4, 1/2); class a: (1/2, 1/2, 0): cumulative differences 1/4, 1/2 → /2
    assert m.models.t == pytest.approx((0.25 + 0.5) / 2)


def test_journalist_and_marketer_against_the_source():
    source = pd.DataFrame({"q": ["a", "a", "a", "b", "b", "c"], "s": ["x"] * 6})
    sample = source.iloc[[0, 3, 5]].reset_index(drop=True)
    m = measure_table(sample, qi=["q"], sa=["s"], population=source, risk_threshold=0.4)
    assert list(m.journalist_records) == pytest.approx([1 / 3, 1 / 2, 1.0])
    assert m.journalist.highest == 1.0
    assert m.journalist.average == pytest.approx((1 / 3 + 1 / 2 + 1) / 3)
    assert m.journalist.records_at_risk == pytest.approx(2 / 3)
    assert m.marketer == pytest.approx((1 / 3 + 1 / 2 + 1) / 3)
    assert m.journalist.success_rate == pytest.approx(max(3 / 6, m.marketer))
    assert list(m.prosecutor_records) == [1.0, 1.0, 1.0]


def test_population_generalised_like_the_release():
    source = pd.DataFrame({"age": ["31", "35", "42", "47", "48"], "s": ["x"] * 5})
    release = pd.DataFrame({"age": ["30-39", "40-49"], "s": ["x", "x"]})
    decade = {"31": "30-39", "35": "30-39", "42": "40-49", "47": "40-49", "48": "40-49"}
    m = measure_table(release, qi=["age"], sa=["s"], population=source, population_generalisation={"age": decade})
    assert list(m.journalist_records) == pytest.approx([1 / 2, 1 / 3])
    by_function = measure_table(release, qi=["age"], sa=["s"], population=source,
                                population_generalisation={"age": lambda v: f"{v[0]}0-{v[0]}9"})
    assert list(by_function.journalist_records) == pytest.approx([1 / 2, 1 / 3])


def test_individual_risk_follows_sdcmicro():
    frame = pd.DataFrame({"q": ["a", "b", "b", "c", "c", "c"], "w": ["10", "4", "6", "5", "5", "20"]})
    m = measure_table(frame, qi=["q"], sample_weight="w")
    pk = {"a": 1 / 10, "b": 2 / 10, "c": 3 / 30}
    expected = [pk["a"] / (1 - pk["a"]) * math.log(1 / pk["a"])]
    expected += [pk["b"] / (1 - pk["b"]) - (pk["b"] / (1 - pk["b"])) ** 2 * math.log(1 / pk["b"])] * 2
    expected += [pk["c"] / (3 - (1 - pk["c"]))] * 3
    assert list(m.individual_risk.records) == pytest.approx(expected, rel=1e-14)
    assert m.individual_risk.global_risk == pytest.approx(sum(expected))
    assert m.individual_risk.global_rate == pytest.approx(sum(expected) / 6)
    # weights of 1 (the sample is the population): the limit 1/f_k
    ones = measure_table(frame.assign(w="1"), qi=["q"], sample_weight="w")
    assert list(ones.individual_risk.records) == pytest.approx([1, 1 / 2, 1 / 2, 1 / 3, 1 / 3, 1 / 3])


def test_individual_risk_exact_form_as_sdcmicro_computes_it():
    classes = EquivalenceClasses(np.array([0, 0, 0]), np.array([3]), np.arange(3), 0)
    risk = individual_risk(classes, np.array([10.0, 10.0, 10.0]), method="exact")
    p, f = 0.1, 3.0
    expected = (p / (1 - p)) ** f * (p ** (1 - f) - 1) / (f - 1) + (-1) ** f * math.log(p)
    assert risk.records[0] == pytest.approx(expected, rel=1e-14)


def test_special_functions():
    # ψ(1) = −γ, ψ'(1) = π²/6, ψ(1/2) = −γ − 2 ln 2
    gamma = 0.5772156649015329
    assert float(digamma(1.0)) == pytest.approx(-gamma, rel=1e-13)
    assert float(digamma(0.5)) == pytest.approx(-gamma - 2 * math.log(2), rel=1e-13)
    assert float(trigamma(1.0)) == pytest.approx(math.pi ** 2 / 6, rel=1e-13)
    assert float(digamma(123.4) - digamma(122.4)) == pytest.approx(1 / 122.4, rel=1e-12)
    # arrays of many and of few elements, far below 0 too (a Newton step's guess), give each
    # element what the element alone gives, and the recurrences ψ(x+1) = ψ(x) + 1/x, ψ'(x+1) = ψ'(x) − 1/x²
    x = np.array([-2500.25, -37.5, -3.75, 0.25, 2.5, 9.5, 10.5, 40.0])
    for values in (x, x[:3], x[:1], x[::-1]):
        for f in (digamma, trigamma):
            assert f(values).tolist() == [float(f(v)) for v in values]
    assert digamma(x + 1) == pytest.approx(digamma(x) + 1 / x, rel=1e-11)
    assert trigamma(x + 1) == pytest.approx(trigamma(x) - 1 / x ** 2, rel=1e-11)
    # hypergeometric P(X=1): N=10, K=3, n=4 → 3·C(7,3)/C(10,4)
    assert float(hypergeometric_one(10, np.array([3.0]), 4)[0]) == pytest.approx(3 * 35 / 210, rel=1e-13)


@pytest.fixture(scope="module")
def adult(data_dir):
    return load_table(data_dir / "adult" / "adult.csv")


def test_population_uniques_on_adult(adult):
    m = measure_table(adult, qi=ADULT_QI[:5], sa=["salary-class"])
    sizes = np.bincount(m.equivalence_class)
    sample_uniques = int((sizes == 1).sum())
    small = population_uniques(sizes, 0.01)
    assert small.population_size == 1.0 / 0.01 * len(adult)  # ARX's N = n/f, not rounded
    # Dankar: f ≤ 0.1 uses Pitman when it converges
    assert small.dankar_model == "pitman" and small.dankar == small.pitman > 0
    # more population uniques are estimated than the sample's uniques scaled down, fewer than N
    assert sample_uniques < small.pitman < small.population_size
    large = population_uniques(sizes, 0.9)
    assert large.dankar_model in ("zayatz", "snb") and large.dankar == min(
        v for v in (large.zayatz, large.snb) if v > 0)
    # nearly the whole population: nearly every sample unique is a population unique
    assert 0.9 * sample_uniques < large.zayatz < sample_uniques / 0.9
    # without sample uniques every estimate is 0
    none = population_uniques(np.array([2, 3, 5]), 0.1)
    assert (none.pitman, none.zayatz, none.snb, none.dankar) == (0.0, 0.0, 0.0, 0.0)


# ------------------------------------------------------------------------------ pycanon



def _pycanon():
    try:
        from pycanon import anonymity, metrics
    except ModuleNotFoundError as missing:
        raise RuntimeError(f"{missing}: the peer tool pycanon 1.3.6 is a test dependency; "
                           f"run 'bash scripts/setup.sh test' to install it") from None
    return anonymity, metrics


def _for_pycanon(frame: pd.DataFrame) -> pd.DataFrame:
    """The same cells in object columns: pycanon selects each class's rows with a boolean mask
    per value, which pandas' Arrow-backed ``str`` columns pay for with a take per column (twice
    pycanon's time on Adult's first 3,000 rows); its answers are the same."""
    return frame.astype(object)


def _compare_with_pycanon(frame: pd.DataFrame, qi: list[str], sa: list[str], continuous: list[str]) -> None:
    anonymity, metrics = _pycanon()
    typed = _for_pycanon(frame)
    for c in continuous:
        typed[c] = pd.to_numeric(typed[c])
    j = measure_table(frame, qi=qi, sa=sa, continuous=continuous).to_json_dict()
    assert j["k"] == anonymity.k_anonymity(typed, qi)
    assert j["l_distinct"] == anonymity.l_diversity(typed, qi, sa)
    assert j["pycanon"]["entropy_l"] == anonymity.entropy_l_diversity(typed, qi, sa)
    c, l = anonymity.recursive_c_l_diversity(typed, qi, sa)
    assert j["pycanon"]["recursive_cl"][1] == l
    assert (j["pycanon"]["recursive_cl"][0] is None) if np.isnan(c) else j["pycanon"]["recursive_cl"][0] == c
    alpha, k = anonymity.alpha_k_anonymity(typed, qi, sa)
    assert j["alpha_k"]["alpha"] == pytest.approx(alpha, rel=1e-12) and j["alpha_k"]["k"] == k
    assert j["t"] == pytest.approx(anonymity.t_closeness(typed, qi, sa), rel=1e-12, abs=1e-12)
    assert j["beta_basic"] == pytest.approx(anonymity.basic_beta_likeness(typed, qi, sa), rel=1e-12, abs=1e-12)
    assert j["beta_enhanced"] == pytest.approx(anonymity.enhanced_beta_likeness(typed, qi, sa), rel=1e-12,
                                               abs=1e-12)
    assert j["delta"] == pytest.approx(anonymity.delta_disclosure(typed, qi, sa), rel=1e-12, abs=1e-12)
    assert j["pycanon"]["average_rir"] == pytest.approx(metrics.average_rir(typed, qi), rel=1e-12)
    assert j["risk"]["prosecutor"]["highest"] == pytest.approx(metrics.max_rir(typed, qi))


@st.composite
def tables(draw):
    n = draw(st.integers(2, 30))
    qi_alphabets = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    sa_alphabets = draw(st.lists(st.integers(1, 4), min_size=1, max_size=2))
    columns = {}
    for i, size in enumerate(qi_alphabets):
        columns[f"q{i}"] = draw(st.lists(st.sampled_from("abc"[:size]), min_size=n, max_size=n))
    for i, size in enumerate(sa_alphabets):
        columns[f"s{i}"] = draw(st.lists(st.sampled_from("pqrs"[:size]), min_size=n, max_size=n))
    numbers = draw(st.lists(st.sampled_from(["1", "2", "5", "10"]), min_size=n, max_size=n))
    continuous = len(set(numbers)) > 1  # pycanon divides by m − 1
    if continuous:
        columns["amount"] = numbers
    frame = pd.DataFrame(columns)
    qi = [f"q{i}" for i in range(len(qi_alphabets))]
    sa = [f"s{i}" for i in range(len(sa_alphabets))] + (["amount"] if continuous else [])
    return frame, qi, sa, ["amount"] if continuous else []


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_agrees_with_pycanon_on_generated_tables(case):
    _compare_with_pycanon(*case)


def test_agrees_with_pycanon_on_adult(adult):
    # agreement, not size, is the point: pycanon pays pandas' overhead per class and value (204
    # classes here, 313 in the first 3,000 rows: 3.5 against 5.9 CPU-s)
    frame = adult.frame.iloc[:1000]
    _compare_with_pycanon(frame, ["sex", "age", "race"], ["salary-class", "marital-status"], [])


def test_pycanon_entropy_floor_of_two_equal_values():
    frame = pd.DataFrame({"q": ["a", "a"], "s": ["x", "y"]})
    m = measure_table(frame, qi=["q"], sa=["s"])
    assert m.models.l_entropy == pytest.approx(2.0) and m.models.pycanon_entropy_l == 1


def _pycanon_entropy_l(counts: list[int]) -> int:
    """pycanon 1.3.6's ``entropy_l_diversity`` of one class, in its own words: ``p`` a list,
    ``np.sum(p * np.log(p))`` (numpy's pairwise sum), ``int(np.exp(1) ** H)``."""
    p = [c / sum(counts) for c in counts]
    return int(np.exp(1) ** -np.sum(p * np.log(p)))


# pycanon itself (a second per class of 300 values: 22 s for all of 2..300) on the sizes where
# numpy's pairwise sum changes its shape — 8 terms unrolled, blocks of 128, halves beyond —
# and every size up to the first block and past it (the first flip is at 24)
PYCANON_SIZES = [*range(2, 131), 255, 256, 257, 299, 300]


def test_pycanon_entropy_l_sums_as_pycanon_over_2_to_300_equal_values():
    """pycanon adds a class's q·ln q terms with np.sum (pairwise); from 24 equally frequent
    values on, adding them one after the other lands on the other side of an integer."""
    anonymity, _ = _pycanon()
    differs_from_sequential = []
    for m in range(2, 301):
        values = [f"v{i:03d}" for i in range(m)]
        # one class with m equally frequent values, beside a class that does not set the minimum
        frame = pd.DataFrame({"q": ["a"] * m + ["b"] * (m + 1), "s": values + values + ["w"]})
        ours = measure_table(frame, qi=["q"], sa=["s"]).to_json_dict()["pycanon"]["entropy_l"]
        assert ours == min(_pycanon_entropy_l([1] * m), _pycanon_entropy_l([1] * (m + 1))), m
        if m in PYCANON_SIZES:
            assert ours == anonymity.entropy_l_diversity(_for_pycanon(frame), ["q"], ["s"]), m
        q = 1 / m
        if ours != int(math.e ** -sum(q * math.log(q) for _ in range(m))):
            differs_from_sequential.append(m)
    # the case the issue reported (pycanon 23, sequential 24), and flips at sizes pycanon itself checks past a block
    assert {24, 127, 256, 257, 299} <= set(differs_from_sequential)


# ------------------------------------------------------------------------------ properties

@settings(max_examples=60, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_properties(case, rnd):
    frame, qi, sa, continuous = case
    m = measure_table(frame, qi=qi, sa=sa, continuous=continuous)
    models = m.models
    assert np.all(models.k <= m.class_size)
    values = min(frame[s].nunique() for s in sa)
    assert 1 - 1e-12 <= models.l_entropy <= models.l_distinct + 1e-12
    assert models.l_distinct <= max(frame[s].nunique() for s in sa) and models.l_distinct <= values
    assert 0.0 <= models.t <= 1.0
    assert np.all((m.prosecutor_records > 0) & (m.prosecutor_records <= 1))
    assert 0 < m.prosecutor.average <= 1 and 0 < m.prosecutor.highest <= 1
    # invariance to row order and value renaming
    order = list(range(len(frame)))
    rnd.shuffle(order)
    shuffled = frame.iloc[order].reset_index(drop=True)
    renamed = shuffled.copy()
    for c in qi + [s for s in sa if s not in continuous]:
        renamed[c] = "v_" + renamed[c]
    for other in (shuffled, renamed):
        o = measure_table(other, qi=qi, sa=sa, continuous=continuous).to_json_dict()
        j = m.to_json_dict()
        for key in ("k", "l_distinct", "recursive_cl", "alpha_k", "classes", "xy_anonymity"):
            assert o[key] == j[key]
        for key in ("l_entropy", "t", "beta_basic", "beta_enhanced", "delta"):
            assert o[key] == pytest.approx(j[key], rel=1e-12, abs=1e-12)
        assert o["risk"]["prosecutor"] == j["risk"]["prosecutor"]


# ------------------------------------------------------------------------------ bad input

@pytest.mark.parametrize("kwargs, words", [
    (dict(qi=["Age", "Nope"], sa=["Disability"]), ["'Nope' not found", "t4.csv"]),
    (dict(qi=["Age"], sa=["Age"]), ["two roles", "'Age'"]),
    (dict(qi=[], sa=["Disability"]), ["no quasi-identifier"]),
    (dict(qi=["Age"], sa=["Disability"], sampling_fraction=0.0), ["sampling fraction", "outside (0, 1]"]),
    (dict(qi=["Age"], sa=["Disability"], sampling_fraction=1.5), ["outside (0, 1]"]),
    (dict(qi=["Age"], sa=["Disability"], risk_threshold=2), ["risk threshold"]),
    (dict(qi=["Age"], sa=["Disability"], continuous=["Disability"]), ["t4.csv", "row 2", "'Disability'",
                                                                      "not a number"]),
])
def test_bad_input(kwargs, words):
    table = Table(table_4(), name="t4.csv", kind="csv")
    with pytest.raises(InputError) as error:
        measure_table(table, **kwargs)
    for word in words:
        assert word in str(error.value)


def test_bad_sample_weights_name_row_and_column():
    frame = table_4().assign(w=["1", "2", "many", "3", "4"])
    with pytest.raises(InputError, match=r"t\.csv, row 4, column 'w': sample weight 'many' is not a number"):
        measure_table(Table(frame, name="t.csv", kind="csv"), qi=["Age"], sample_weight="w")
    frame = table_4().assign(w=["1", "2", "3", "-3", "4"])
    with pytest.raises(InputError, match=r"row 5, column 'w': sample weight -3 is negative"):
        measure_table(Table(frame, name="t.csv", kind="csv"), qi=["Age"], sample_weight="w")


def test_empty_table_and_everything_suppressed():
    with pytest.raises(InputError, match="no records"):
        measure_table(Table(table_4().iloc[:0], name="e.csv"), qi=["Age"])
    frame = pd.DataFrame({"a": ["*", "*"], "s": ["x", "y"]})
    with pytest.raises(InputError, match="every record is suppressed"):
        measure_table(frame, qi=["a"], sa=["s"], exclude_suppressed=True)


def test_population_without_the_published_records():
    source = pd.DataFrame({"q": ["a", "b"]})
    with pytest.raises(InputError, match="no record of the population has"):
        measure_table(pd.DataFrame({"q": ["a", "c"]}), qi=["q"], population=Table(source, name="source.csv"))


def test_values_absent_from_the_measured_rows_do_not_count(tmp_path):
    """m of the ordered EMD is the number of distinct values in the table measured: a
    release measured with its source's codes, or with suppressed rows excluded, counts
    only the values it holds."""
    from tklscore.core import Roles, Scorer
    from tklscore.core.risk.measures import measure_release

    source = Table(pd.DataFrame({"q": ["a", "a", "b", "b", "c"], "s": ["1", "2", "3", "9", "100"]}), name="s")
    roles = Roles(qi=["q"], sa=["s"], continuous=["s"])
    positions = np.array([0, 1, 2, 3])
    alone = measure_table(source.frame.iloc[positions].reset_index(drop=True), roles=roles)
    shared = measure_release(source, roles, positions, Scorer(source, roles))
    assert shared.models.t == pytest.approx(alone.models.t, rel=1e-12)
    # values 1, 2, 3, 9: class a holds 1, 2 → cumulative differences 1/4, 1/2, 1/4 over m − 1 = 3
    assert alone.models.t == pytest.approx((0.25 + 0.5 + 0.25) / 3)
    starred = pd.DataFrame({"q": ["a", "a", "b", "b", "*"], "s": ["1", "2", "3", "9", "100"]})
    excluded = measure_table(starred, qi=["q"], sa=["s"], continuous=["s"], exclude_suppressed=True)
    assert excluded.models.t == pytest.approx(alone.models.t, rel=1e-12)


def test_a_release_measured_with_its_scorers_codes_takes_only_the_other_columns():
    """The published rows of the coded columns are never read (their codes are the scorer's):
    the measures are those of the release measured alone, other columns (the sampling
    weights) still read from its rows."""
    from tklscore.core import Roles, Scorer
    from tklscore.core.risk.measures import measure_release

    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"q": rng.choice(list("abc"), 300), "r": rng.choice(list("xy"), 300),
                          "s": rng.choice(list("uvwz"), 300), "w": rng.integers(1, 9, 300).astype(str)})
    source = Table(frame, name="s")
    roles = Roles(qi=["q", "r"], sa=["s"])
    positions = np.sort(rng.choice(300, 120, replace=False))
    alone = measure_table(frame.iloc[positions].reset_index(drop=True), roles=roles, sample_weight="w",
                          population=Table(frame, name="s"))   # journalist risk against the source, as a release
    shared = measure_release(source, roles, positions, Scorer(source, roles), sample_weight="w")
    shared, alone = shared.to_json_dict(), alone.to_json_dict()
    # pycanon's average RIR sums in the codes' order: the scorer's and the rows' differ in the last digit
    assert shared["pycanon"].pop("average_rir") == pytest.approx(alone["pycanon"].pop("average_rir"), rel=1e-12)
    assert shared == alone
