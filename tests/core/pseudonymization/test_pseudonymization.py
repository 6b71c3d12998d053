"""Pseudonymisation risk (disclosure-risk.md Part A): the A7 oracles, removal, utility,
thresholds, blocking rules, the patients' preferences and the LTS."""

from __future__ import annotations

import collections
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from paths import DATA
from tklscore.core.errors import InputError
from tklscore.core.pia.preferences import save_preferences
from tklscore.core.pseudonymization.analysis import ThresholdChoice, remove_and_report, trimmed_frame
from tklscore.core.pseudonymization.blocking import BlockingRule, check_rules
from tklscore.core.pseudonymization.data_flow import DataFlowModel
from tklscore.core.pseudonymization.generator import health_survey, survey_tables
from tklscore.core.pseudonymization.lts import annotate, generate_lts, risk_edges, to_dot, to_json_dict
from tklscore.core.pseudonymization.preferences import load_people_from_preferences, westin_category
from tklscore.core.pseudonymization.removal import minimum_removal, remove_violations
from tklscore.core.pseudonymization.thresholds import (
    TABLE_5,
    PeoplePolicy,
    ThresholdPolicy,
    column_thresholds,
    policy_thresholds,
)
from tklscore.core.pseudonymization.utility import statistics, utility_report
from tklscore.core.pseudonymization.violations import ViolationEngine
from tklscore.core.tables.loading import Table, load_table
from tklscore.core.files.resources import resource_path

TABLE_3 = DATA / "pseudonymization_table_3.csv"
SET_1 = [70, 77, 78, 75, 79]
SET_2 = [70, 80, 74, 74, 74, 76]


def table_3() -> ViolationEngine:
    return ViolationEngine(load_table(TABLE_3), "weight", ["age", "height"], margin=5)


def table_2(values=None, operator="gt") -> ViolationEngine:
    values = values if values is not None else SET_1 + SET_2
    sets = ["1"] * len(SET_1) + ["2"] * len(SET_2) if values == SET_1 + SET_2 else ["1"] * len(values)
    return ViolationEngine(pd.DataFrame({"set": sets, "w": values}), "w", ["set"], margin=5, operator=operator)


def fractions(engine, qi_set):
    sizes = pd.Series(list(zip(*(engine.table.frame[c] for c in qi_set)))).map(
        collections.Counter(zip(*(engine.table.frame[c] for c in qi_set))))
    return [Fraction(round(r * s), s) for r, s in zip(engine.risks(qi_set), sizes)]


# --- Oracle A: Table 3 (row 4 = 111) -------------------------------------------------------

def test_oracle_a_counts_and_every_risk_fraction():
    engine = table_3()
    transitions = {t.qi_set: t for t in engine.all_transitions(np.full(6, 0.9))}
    assert list(transitions) == [("age",), ("height",), ("age", "height")]
    assert [t.violations for t in transitions.values()] == [2, 0, 4]
    F = Fraction
    assert fractions(engine, ["height"]) == [F(2, 4)] * 4 + [F(1, 2)] * 2
    assert fractions(engine, ["age"]) == [F(2, 2), F(2, 2), F(3, 4), F(3, 4), F(1, 4), F(3, 4)]
    assert fractions(engine, ["age", "height"]) == [F(2, 2)] * 4 + [F(1, 2)] * 2
    assert list(transitions[("age", "height")].violating_rows) == [0, 1, 2, 3]
    assert list(transitions[("age",)].violating_rows) == [0, 1]


def test_oracle_a_without_any_qi_and_the_row_4_reading():
    frame = load_table(TABLE_3).frame.assign(nothing="*")
    engine = ViolationEngine(frame, "weight", ["nothing", "age", "height"], margin=5)
    assert [Fraction(r).limit_denominator(6) for r in engine.risks(["nothing"])] == [
        Fraction(1, 3), Fraction(1, 3), Fraction(1, 2), Fraction(1, 2), Fraction(1, 6), Fraction(1, 2)]
    assert engine.transition(["nothing"], np.full(6, 0.9)).violations == 0
    readings = []
    for weight in range(60, 160):
        frame = load_table(TABLE_3).frame.copy()
        frame.loc[3, "weight"] = str(weight)
        engine = ViolationEngine(frame, "weight", ["age", "height"], margin=5)
        counts = [engine.transition(q, np.full(6, 0.9)).violations for q in (["height"], ["age"], ["age", "height"])]
        F = Fraction
        printed = (fractions(engine, ["height"]) == [F(2, 4)] * 4 + [F(1, 2)] * 2
                   and fractions(engine, ["age"]) == [F(2, 2), F(2, 2), F(3, 4), F(3, 4), F(1, 4), F(3, 4)]
                   and fractions(engine, ["age", "height"]) == [F(2, 2)] * 4 + [F(1, 2)] * 2)
        if counts == [0, 2, 4] and printed:
            readings.append(weight)
    assert readings == list(range(108, 116))


def test_oracle_a_personalised_thresholds_and_the_50_percent_rule():
    engine = table_3()
    thresholds = np.array([0.9, 0.9, 0.7, 0.7, 0.9, 0.9])
    counts = {t.qi_set: t.violations for t in engine.all_transitions(thresholds)}
    assert counts == {("height",): 0, ("age",): 4, ("age", "height"): 4}
    rule = BlockingRule.parse("IF violations > 50% THEN block")
    uniform = {t.qi_set: t.violations for t in engine.all_transitions(np.full(6, 0.9))}
    assert rule.evaluate(uniform[("age", "height")], 6) == (True, "4 violations (67% of 6) > 50%")
    assert rule.evaluate(uniform[("age",)], 6)[0] is False
    assert rule.evaluate(uniform[("height",)], 6)[0] is False


def test_oracle_a_thresholds_from_westin_categories():
    table = load_table(TABLE_3)
    frame = table.frame.assign(category=["pragmatist", "pragmatist", "pragmatist", "fundamentalist",
                                         "pragmatist", "pragmatist"],
                               special=["no", "no", "yes", "no", "no", "no"])
    policy = ThresholdPolicy({"pragmatist": (0.9, 0.7), "fundamentalist": (0.7, 0.7)})
    thresholds, warnings = policy_thresholds(Table.from_frame(frame), policy, "category", "special")
    assert list(thresholds) == [0.9, 0.9, 0.7, 0.7, 0.9, 0.9] and warnings == []


# --- Oracle B: Table 2 ---------------------------------------------------------------------

def test_oracle_b_violations_per_set():
    engine = table_2()
    t = engine.transition(["set"], np.full(11, 0.75))
    counts = np.round(t.risks * np.array([5] * 5 + [6] * 6)).astype(int)
    assert list(counts) == [2, 4, 4, 5, 4, 4, 2, 5, 5, 5, 5]
    assert t.violations == 8
    assert list(t.violating_rows) == [1, 2, 3, 4, 7, 8, 9, 10]


def violations_without(values, drop, operator="gt"):
    kept = [v for i, v in enumerate(values) if i not in drop]
    engine = ViolationEngine(pd.DataFrame({"s": ["x"] * len(kept), "w": kept}), "w", ["s"], margin=5,
                             operator=operator)
    return engine.transition(["s"], np.full(len(kept), 0.75)).violations


def test_oracle_b_removal_narrative():
    assert violations_without(SET_1, {3}) == 0                       # 75 alone clears set 1
    assert [violations_without(SET_1, {i}) for i in (1, 2, 4)] == [1, 1, 1]   # 75 stays at 4/4
    assert violations_without(SET_1, {3}, operator="ge") == 3         # ≥ reading: 3/4 = 0.75
    assert violations_without(SET_1, {1, 2, 3, 4}) == 1               # [70] alone is 1/1
    assert violations_without(SET_2, {5}) == 4                        # remove 76: 70, 74, 74, 74
    assert violations_without(SET_2, {2}) == 3                        # remove a 74: 3, not the paper's 2
    assert minimum_removal(SET_1, [0.75] * 5, 5, "gt", upper=5) == (1, "exact")
    assert minimum_removal(SET_2, [0.75] * 6, 5, "gt", upper=6) == (2, "exact")


def test_oracle_b_algorithm_2_distribution_over_seeds():
    engine = table_2()
    outcomes = collections.Counter()
    seeds = 2000
    for seed in range(seeds):
        result = remove_violations(engine, ["set"], np.full(11, 0.75), seed=seed, removal_threshold=0.75,
                                   search=False)
        rows = result.removed_rows
        outcomes[(int((rows < 5).sum()), int((rows >= 5).sum()))] += 1
        assert engine.transition(["set"], 0.75, present=_present(11, rows)).violations == 0
    assert set(outcomes) == {(1, 2), (2, 2)}                          # set 2 always removes 2
    assert outcomes[(1, 2)] / seeds == pytest.approx(0.25, abs=0.03)  # spec: p ≈ 0.25 (20,000 seeds)
    result = remove_violations(engine, ["set"], np.full(11, 0.75), seed=7, removal_threshold=0.75)
    assert [(c.violations, c.minimum) for c in result.classes] == [(4, 1), (4, 2)]
    assert result.minimum == 2 + 1 and result.violations_before == 8


def _present(n, removed):
    mask = np.ones(n, dtype=bool)
    mask[removed] = False
    return mask


def test_removal_is_seeded():
    engine = table_2()
    runs = [remove_violations(engine, ["set"], np.full(11, 0.75), seed=3, removal_threshold=0.75).removed_rows
            for _ in range(2)]
    assert list(runs[0]) == list(runs[1])


def test_exact_minimum_says_when_a_set_is_too_large_to_search():
    values = list(range(0, 60, 2))
    minimum, note = minimum_removal(values, [0.1] * 30, 50, "gt", upper=12)
    assert minimum is None and note.startswith("not searched: a set of 30 values needs")


# --- Oracle C: a 1,103-record set shaped by Table 4 (plausibility) --------------------------

def oracle_c_counts(frame):
    table = Table.from_frame(frame)
    thresholds, _ = policy_thresholds(table, ThresholdPolicy(), "category", "weight_sensitive")
    engine = ViolationEngine(table, "weight", ["sex", "age", "race", "height"], margin=5)
    full = engine.transition(engine.qi, thresholds).violations
    left_out = {q: engine.transition([c for c in engine.qi if c != q], thresholds).violations for q in engine.qi}
    return engine, thresholds, full, left_out


def test_oracle_c_plausibility():
    frame = health_survey(seed=0)
    assert len(frame) == 1103
    assert frame["weight"].mean() == pytest.approx(81.87, abs=1.5)                 # paper: 81.87, SD 13.06
    assert frame["weight"].std() == pytest.approx(13.06, abs=1.5)
    released = frame[frame["sex"] != "*"]
    assert released.groupby(["sex", "age", "race", "height"]).size().min() >= 2    # 2-anonymous
    assert (frame.loc[frame["sex"] == "*", ["age", "race", "height"]] == "*").all().all()
    engine, thresholds, full, left_out = oracle_c_counts(frame)
    assert (full, left_out["sex"], left_out["race"], left_out["height"], left_out["age"]) == (107, 96, 69, 33, 3)
    assert 0.05 < full / 1103 < 0.15                                                # paper: 116 (10.5%)
    report = remove_and_report(engine, engine.qi, thresholds, seed=1, removal_threshold=0.9)
    assert report.violations_after == 0
    assert report.removal.removed >= report.removal.violations_before * 0.8
    assert abs(report.statistics["delta"]["mean"]) < 1.5 and abs(report.statistics["delta"]["std"]) < 1.5


@pytest.mark.parametrize("seed", range(4))
def test_oracle_c_leaving_out_qis_lowers_the_count_in_the_papers_order(seed):
    """Fig. 6: all four QIs 116 > without sex 107 > without race 67 > without height 38 >
    without age 29 — the same order for every seed of the generator."""
    _, _, full, left_out = oracle_c_counts(health_survey(seed=seed))
    assert full > left_out["sex"] > left_out["race"] > left_out["height"] > left_out["age"]


def test_survey_tables_are_the_original_and_its_release():
    original, released = survey_tables(seed=0)
    assert list(original.columns) == ["id", "sex", "age", "race", "height", "weight", "category", "weight_sensitive"]
    assert "weight" not in released.columns and (original["id"] == released["id"]).all()
    kept = released["sex"] != "*"
    low = released.loc[kept, "age"].str.split("-").str[0].astype(int)
    assert ((original.loc[kept, "age"] >= low) & (original.loc[kept, "age"] <= low + 1)).all()


# --- utility ------------------------------------------------------------------------------

def commons_math(values):
    x = np.asarray(values, dtype=float)
    n, mean, s = len(x), x.mean(), x.std(ddof=1)
    skew = n / ((n - 1) * (n - 2)) * (((x - mean) / s) ** 3).sum()
    kurt = (n * (n + 1) / ((n - 1) * (n - 2) * (n - 3)) * (((x - mean) / s) ** 4).sum()
            - 3 * (n - 1) ** 2 / ((n - 2) * (n - 3)))
    return skew, kurt, s


def test_statistics_are_commons_math_definitions():
    values = [100, 102, 110, 111, 80, 110]
    stats = statistics(values)
    skew, kurt, sd = commons_math(values)
    assert stats["skewness"] == pytest.approx(skew, rel=1e-12)
    assert stats["kurtosis"] == pytest.approx(kurt, rel=1e-12)
    assert stats["std"] == pytest.approx(sd, rel=1e-12)
    assert (stats["max"], stats["min"], stats["median"]) == (111, 80, 106)
    assert stats["mean"] == pytest.approx(613 / 6)
    report = utility_report(values, [100, 102, np.nan, np.nan, 80, 110])
    assert report["delta"]["mean"] == pytest.approx(98 - 613 / 6)          # δ = trimmed − original
    assert report["trimmed"]["max"] == 110 and report["delta"]["max"] == -1


# --- thresholds ---------------------------------------------------------------------------

def test_table_5_and_clamping():
    policy = ThresholdPolicy()
    assert policy.table == TABLE_5
    assert policy.threshold("Fundamentalist", True) == 0.7
    assert ThresholdPolicy(clamp=(0.75, 0.85)).threshold("unconcerned", False) == 0.85
    assert ThresholdPolicy(clamp=(0.75, 0.85)).threshold("fundamentalist", True) == 0.75


def test_people_policy_maps_records_to_people_and_reports_the_unknown(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("id,category,sensitive_fields\nann,fundamentalist,weight\nbob,unconcerned,\n")
    people = PeoplePolicy.load(path)
    table = Table.from_frame(pd.DataFrame({"id": ["ann", "bob", "ann", "cy", "dee"], "weight": [1, 2, 3, 4, 5]}))
    thresholds, warnings = people.thresholds(table, "id", "weight", ThresholdPolicy())
    assert list(thresholds) == [0.7, 1.0, 0.7, 0.9, 0.9]
    assert warnings == [f"2 person(s) (2 record(s)) have no policy in {path}: cy, dee; the default category "
                        "'pragmatist' with 'weight' as a normal field applied"]


def test_patients_preferences_become_policy_rows(tmp_path):
    ex = "http://example.org/pia#"
    from rdflib import URIRef
    prefs = {(URIRef(ex + "Ann"), URIRef(ex + "weight"), URIRef(ex + "Heavy")): 3,
             (URIRef(ex + "Ann"), URIRef(ex + "age"), URIRef(ex + "Thirties")): 1,
             (URIRef(ex + "Bob"), URIRef(ex + "weight"), URIRef(ex + "Light")): 0,
             (URIRef(ex + "Cy"), URIRef(ex + "weight"), URIRef(ex + "Light")): 2,
             (URIRef(ex + "Cy"), URIRef(ex + "age"), URIRef(ex + "Old")): 1}
    path = save_preferences(tmp_path / "preferences.csv", prefs)
    people = load_people_from_preferences(path)
    assert people.categories == {"Ann": "fundamentalist", "Bob": "unconcerned", "Cy": "pragmatist"}
    assert people.sensitive_fields == {"Ann": frozenset({"weight"}), "Bob": frozenset(), "Cy": frozenset()}
    table = Table.from_frame(pd.DataFrame({"id": ["Ann", "Bob", "Cy"], "weight": [1, 2, 3]}))
    assert list(people.thresholds(table, "id", "weight", ThresholdPolicy())[0]) == [0.7, 1.0, 0.9]
    assert [westin_category(m) for m in (0, 0.99, 1, 1.99, 2, 3)] == [
        "unconcerned", "unconcerned", "pragmatist", "pragmatist", "fundamentalist", "fundamentalist"]


# --- blocking rules -----------------------------------------------------------------------

def test_blocking_rules_parse_and_combine():
    rule = BlockingRule.parse("IF violations > 10 AND delta(std) > 0.5 THEN block")
    assert str(rule) == "IF violations > 10 AND delta(std) > 0.5 THEN block"
    assert rule.evaluate(11, 100, {"std": -0.6}) == (True, "11 violations (11% of 100) > 10 AND |δ std| = 0.6 > 0.5")
    assert rule.evaluate(11, 100, {"std": 0.2})[0] is False
    either = BlockingRule.parse("violations > 10 OR delta(mean) > 1")
    assert either.evaluate(3, 100, {"mean": 1.5}) == (True, "|δ mean| = 1.5 > 1")
    assert check_rules([rule, either], 3, 100, {"mean": 0.1, "std": 0}) == (False, "")
    assert BlockingRule.from_dict(rule.to_dict()) == rule
    with pytest.raises(InputError, match="not understood"):
        BlockingRule.parse("block everything")
    with pytest.raises(InputError, match="statistic 'spread'"):
        BlockingRule.parse("violations > 1 and delta(spread) > 2")


# --- LTS ----------------------------------------------------------------------------------

EXAMPLE = resource_path("pseudonymization/health_research.json")


def test_lts_of_the_example_has_fig_4_risk_transitions():
    graph = generate_lts(DataFlowModel.load(EXAMPLE))
    states = [n for n, kind in graph.nodes(data="kind") if kind == "state"]
    assert states == ["s0", "s1", "s2", "s3"]
    assert [d["action"] for _, _, d in graph.edges(data=True) if d["kind"] == "flow"] == ["read", "anon", "read"]
    assert graph.nodes["s3"]["at_risk"] and not graph.nodes["s2"].get("at_risk")
    assert ("Researcher", "weight.anon") in graph.nodes["s3"]["has"]
    assert ("Researcher", "weight.anon") in graph.nodes["s2"]["could"]
    assert ("Researcher", "weight.anon") not in graph.nodes["s1"]["could"]
    risks = risk_edges(graph)
    assert [(u, d["actor"], d["sensitive"], d["qi_order"], d["maximum"], d["allowed"]) for u, _, _, d in risks] == [
        ("s3", "Researcher", "weight", ("age",), False, False),
        ("s3", "Researcher", "weight", ("height",), False, False),
        ("s3", "Researcher", "weight", ("age", "height"), True, False)]
    engine = table_3()
    annotate(graph, {t.qi_set: t.violations for t in engine.all_transitions(np.full(6, 0.9))}, sensitive="weight")
    assert [d["violations"] for _, _, _, d in risk_edges(graph)] == [2, 0, 4]
    dot = to_dot(graph)
    assert dot.count("style=dotted") == 3 and "N_v = 4" in dot
    doc = to_json_dict(graph)
    assert [e["violations"] for e in doc["edges"] if e["kind"] == "risk"] == [2, 0, 4]


def model(**changes):
    base = {"actors": ["Admin", "Researcher"],
            "datastores": [{"id": "DB", "schema": ["age", {"field": "weight", "sensitive": True}]},
                           {"id": "Copy", "schema": ["age.anon", {"field": "weight.anon", "sensitive": True}]}],
            "flows": [{"order": 1, "from": "DB", "to": "Admin", "fields": ["age", "weight"]},
                      {"order": 2, "action": "anon", "by": "Admin", "from": "DB", "to": "Copy",
                       "fields": ["age", "weight"]},
                      {"order": 3, "from": "Copy", "to": "Researcher", "fields": ["age.anon", "weight.anon"]}]}
    base.update(changes)
    return base


def test_bad_models_are_refused_with_specific_errors():
    with pytest.raises(InputError, match="flow 3 goes to 'Reseacher', which is neither an actor nor a datastore"):
        DataFlowModel.from_dict(model(flows=model()["flows"][:2] + [
            {"order": 3, "from": "Copy", "to": "Reseacher", "fields": ["age.anon"]}]))
    with pytest.raises(InputError, match="flow 1 carries field 'wieght', which is not in datastore 'DB's schema"):
        DataFlowModel.from_dict(model(flows=[{"from": "DB", "to": "Admin", "fields": ["wieght"]}]))
    no_anon = DataFlowModel.from_dict(model(flows=[{"from": "DB", "to": "Admin", "fields": ["age"]}]))
    with pytest.raises(InputError, match="has no anon step"):
        generate_lts(no_anon)
    assert len(risk_edges(generate_lts(DataFlowModel.from_dict(model())))) == 1


# --- properties ---------------------------------------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402


@st.composite
def datasets(draw):
    n = draw(st.integers(1, 30))
    a = draw(st.lists(st.sampled_from("ab"), min_size=n, max_size=n))
    b = draw(st.lists(st.sampled_from("xyz"), min_size=n, max_size=n))
    w = draw(st.lists(st.integers(40, 70), min_size=n, max_size=n))
    t = draw(st.lists(st.sampled_from([0.5, 0.7, 0.75, 0.8, 0.9, 1.0]), min_size=n, max_size=n))
    margin = draw(st.sampled_from([0, 1, 2.5, 5]))
    operator = draw(st.sampled_from(["gt", "ge"]))
    return pd.DataFrame({"a": a, "b": b, "w": w}), np.array(t), margin, operator


def naive(frame, qi_set, margin):
    keys = list(zip(*(frame[c] for c in qi_set)))
    risks = []
    for key, x in zip(keys, frame["w"]):
        members = [y for k, y in zip(keys, frame["w"]) if k == key]
        risks.append(sum(abs(y - x) <= margin for y in members) / len(members))
    return np.array(risks)


@settings(max_examples=60, deadline=None)
@given(datasets())
def test_engine_matches_pairwise_definition_and_counts_stay_within_rows(case):
    frame, thresholds, margin, operator = case
    engine = ViolationEngine(frame, "w", ["a", "b"], margin=margin, operator=operator)
    for t in engine.all_transitions(thresholds):
        expected = naive(frame, t.qi_set, margin)
        assert np.allclose(t.risks, expected)
        flags = expected > thresholds if operator == "gt" else expected >= thresholds
        assert list(t.violating_rows) == list(np.flatnonzero(flags))
        assert 0 <= t.violations <= len(frame)


@settings(max_examples=40, deadline=None)
@given(datasets(), st.integers(0, 1000))
def test_removal_leaves_no_violation_and_touches_only_removed_rows(case, seed):
    frame, thresholds, margin, operator = case
    engine = ViolationEngine(frame, "w", ["a", "b"], margin=margin, operator=operator)
    report = remove_and_report(engine, ["a", "b"], thresholds, seed=seed, removal_threshold=0.8)
    assert report.violations_after == 0
    removal = report.removal
    if removal.minimum is not None:
        assert removal.minimum <= removal.removed
    trimmed = trimmed_frame(engine.table, "w", removal.removed_rows)
    untouched = np.setdiff1d(np.arange(len(frame)), removal.removed_rows)
    assert trimmed.iloc[untouched].equals(engine.table.frame.iloc[untouched])
    assert (trimmed.iloc[removal.removed_rows]["w"] == "").all()
    assert (trimmed.iloc[removal.removed_rows][["a", "b"]].equals(engine.table.frame.iloc[removal.removed_rows][["a", "b"]]))


@st.composite
def kernel_cases(draw):
    n = draw(st.integers(1, 60))
    groups = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    decimals = draw(st.sampled_from([0, 1]))
    values = draw(st.lists(st.integers(0, 400), min_size=n, max_size=n))
    present = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    margin = draw(st.sampled_from([0, 0.5, 2, 5, 12.5, 30]))
    return np.array(groups), (np.array(values), 10 ** decimals), np.array(present), margin


@pytest.mark.parametrize("kernel", ["dense", "sorted"])
@settings(max_examples=80, deadline=None)
@given(kernel_cases())
def test_both_counting_kernels_match_the_pairwise_definition(kernel, case):
    """The dense count and the sorted walk (stepping or searchsorted, by the window's reach)
    give every present row |{j in its group: |x_j − x_i| ≤ margin}| / |group|, the
    difference taken as written (0.6 − 0.1 is exactly 0.5)."""
    import tklscore.core.pseudonymization.violations as module

    groups, (units, scale), present, margin = case
    values = units / scale
    frame = pd.DataFrame({"g": groups.astype(str), "w": [f"{v:g}" for v in values]})
    engine = ViolationEngine(frame, "w", ["g"], margin=margin)
    dense_cells = module._dense_cells
    module._dense_cells = (lambda m: 1 << 40) if kernel == "dense" else (lambda m: 0)
    try:
        risks = engine.risks(["g"], present)
    finally:
        module._dense_cells = dense_cells
    for i in range(len(values)):
        if not present[i]:
            assert np.isnan(risks[i])
            continue
        members = units[(groups == groups[i]) & present]  # in whole units: no rounding
        assert risks[i] == np.sum(np.abs(members - units[i]) <= margin * scale) / len(members)


@pytest.mark.parametrize("limit", [1 << 62, 16])
def test_subset_keys_from_their_parents_group_rows_as_the_shared_engine(limit, monkeypatch):
    """Every subset's keys, built from its parent's by ``codes.extend_keys`` (compacting
    when the key space reaches ``limit``), partition the rows as ``codes.group_ids``."""
    from tklscore.core.tables.codes import group_ids

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({c: rng.integers(0, k, 300).astype(str) for c, k in zip("abcd", (2, 7, 5, 11))}
                         | {"w": rng.integers(40, 90, 300).astype(str)})
    engine = ViolationEngine(frame, "w", list("abcd"), margin=2)
    monkeypatch.setattr(ViolationEngine, "_key_limit", property(lambda self: limit))
    seen = []
    for qi_set, (key, size) in engine.subset_keys():
        seen.append(qi_set)
        assert key.min() >= 0 and key.max() < size and size <= max(limit, len(frame))
        ids, _ = group_ids([engine._codes[c] for c in qi_set], len(frame))
        pairs = set(zip(key.tolist(), ids.tolist()))
        assert len(pairs) == len(set(key.tolist())) == len(set(ids.tolist()))   # the same partition
    assert sorted(seen) == sorted(engine.subsets())


def test_large_numeric_keys_take_the_sorting_path_with_the_same_result():
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"a": rng.integers(0, 3000, 20000).astype(str), "b": rng.integers(0, 200, 20000).astype(str),
                          "w": np.round(rng.normal(80, 13, 20000), 1)})
    engine = ViolationEngine(frame, "w", ["a", "b"], margin=2.5)
    risks = engine.risks(["a", "b"])  # 3000·200 groups × ~900 values: sorted keys, not a bincount
    small = frame.iloc[:2000]
    keys = small["a"] + "|" + small["b"]
    for key in keys.unique()[:50]:
        rows = np.flatnonzero((frame["a"] + "|" + frame["b"]).to_numpy() == key)
        x = frame["w"].to_numpy()[rows]
        expected = (np.abs(x[:, None] - x[None, :]) <= 2.5).sum(axis=1) / len(rows)
        assert np.allclose(risks[rows], expected)


# --- bad input ----------------------------------------------------------------------------

def test_bad_input_is_specific(tmp_path):
    table = load_table(TABLE_3)
    with pytest.raises(InputError, match=r"row 2, column 'age': a margin of 5 needs a numeric field, but it holds '30-40'"):
        ViolationEngine(table, "age", ["height"], margin=5)
    with pytest.raises(InputError, match="margin -1 must be a finite number ≥ 0"):
        ViolationEngine(table, "weight", ["age"], margin=-1)
    with pytest.raises(InputError, match="threshold 1.5 is outside"):
        ThresholdChoice(uniform=1.5).thresholds(table, "weight")
    table.frame.assign(t=["0.9", "0.9", "2", "0.9", "0.9", "0.9"]).to_csv(tmp_path / "t.csv", index=False)
    bad = load_table(tmp_path / "t.csv")
    with pytest.raises(InputError, match=r"row 4, column 't': threshold '2' is not a number in \[0, 1\]"):
        column_thresholds(bad, "t")
    policy_file = tmp_path / "policy.csv"
    policy_file.write_text("category,normal,sensitive\nunconcerned,1,0.9\npragmatist,0.9,1.2\n")
    with pytest.raises(InputError, match=r"policy.csv, row 3, column 'sensitive': threshold 1.2 is outside"):
        ThresholdPolicy.load(policy_file)
    table.frame.assign(c=["pragmatist"] * 5 + ["paranoid"]).to_csv(tmp_path / "c.csv", index=False)
    categories = load_table(tmp_path / "c.csv")
    with pytest.raises(InputError, match=r"row 7, column 'c': Westin category 'paranoid' is not in the policy table"):
        policy_thresholds(categories, ThresholdPolicy(), "c")
    table.frame.assign(c=["pragmatist"] * 4 + ["", ""]).to_csv(tmp_path / "e.csv", index=False)
    empty = load_table(tmp_path / "e.csv")
    _, warnings = policy_thresholds(empty, ThresholdPolicy(), "c")
    assert warnings == ["2 record(s) have no Westin category (rows 6, 7); the default category 'pragmatist' applied"]
    with pytest.raises(InputError, match="QI set height, zip must be a non-empty subset"):
        table_3().transition(["height", "zip"], 0.9)
