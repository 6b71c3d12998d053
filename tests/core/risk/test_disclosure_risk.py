"""Orooji–Knapp record risk D(r) (spec disclosure-risk.md Part B): the B2 oracle, agreement
with a brute-force 2^m enumeration, and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from disclosure_support import PARAMS, VALUE_WEIGHTS, cases, table_1
from tklscore.core import InputError, Table, Weights
from tklscore.core.risk.disclosure_risk import (AttributeParameters, disclosure_risk, known_sets,
                                                load_attribute_parameters)


def test_b2_all_splits():
    risk = disclosure_risk(table_1(), PARAMS, VALUE_WEIGHTS, epsilon=0.0)
    assert risk.splits == 32 and len(risk.known_sets) == 32
    assert [round(float(d), 6) for d in risk.d] == [1.199909, 3.062323, 2.200833, 2.367966, 1.923946]


def test_b2_pruned_at_epsilon_0_01():
    risk = disclosure_risk(table_1(), PARAMS, VALUE_WEIGHTS, epsilon=0.01)
    assert [round(float(d), 6) for d in risk.d] == [1.194370, 3.055800, 2.195073, 2.345570, 1.918407]
    assert sorted(map(sorted, risk.known_sets)) == sorted(
        sorted(s) for r in range(4) for s in itertools.combinations(["Age", "Gender", "Race"], r))
    assert risk.known_sets[0] == ()
    # r4 by hand: Σ PK/count = 1.439, C = 1.63 for every KS ⊆ {A, G, R}
    assert risk.l_sum[3] == pytest.approx(1.439, rel=1e-12)
    assert risk.d[3] == pytest.approx(1.439 * 1.63, rel=1e-12)


def test_b2_single_terms():
    """L_{age,gender,race}(r4) = 0.084 and C_{income,disease}(r4) = 1.63."""
    only = [AttributeParameters("Age", 0.3, 0), AttributeParameters("Gender", 0.8, 0),
            AttributeParameters("Race", 0.7, 0)]
    # with every attribute known the complement is empty: D = α·(1/5·C_total ...) — use the complement instead
    all_known = disclosure_risk(table_1(), only, None, epsilon=0.0)
    assert all_known.d[3] == 0.0  # no weights: C = 0 everywhere
    l = 0.3 * 0.8 * 0.7 / 2
    assert round(l, 3) == 0.084
    c = disclosure_risk(table_1(), [AttributeParameters("Income", 0.0, 0.9), AttributeParameters("Disease", 0.0, 1)],
                        VALUE_WEIGHTS, epsilon=0.0)
    # only KS = ∅ is kept (PK 0): D = L_∅ · C_total = (1/5) · C_{income,disease}
    assert c.d[3] * 5 == pytest.approx(1.63, rel=1e-12)
    assert c.known_sets == [()]


def test_alpha_rescales_and_threshold_counts():
    risk = disclosure_risk(table_1(), PARAMS, VALUE_WEIGHTS, alpha=100, epsilon=0.01, threshold=250)
    assert risk.d[1] == pytest.approx(305.58, rel=1e-9)
    assert risk.above_threshold == 1  # r2 only
    j = risk.to_json_dict()
    assert list(j) == ["splits", "known_sets", "records", "above_threshold"]
    assert j["records"][0] == {"row": 0, "l_sum": pytest.approx(risk.l_sum[0]), "d": pytest.approx(risk.d[0])}
    assert risk.to_json_dict(ids=["a", "b", "c", "d", "e"])["records"][4]["id"] == "e"


def brute_force(frame: pd.DataFrame, params: list[AttributeParameters], value_weight, alpha: float) -> np.ndarray:
    """Equations (1)–(4) over all 2^m splits, record by record."""
    names = [p.attribute for p in params]
    n = len(frame)
    out = np.zeros(n)
    rows = frame[names].to_numpy(dtype=object)
    for r in range(n):
        total = 0.0
        for size in range(len(names) + 1):
            for ks in itertools.combinations(range(len(names)), size):
                pk = math.prod(params[j].pk for j in ks)
                count = sum(all(rows[o][j] == rows[r][j] for j in ks) for o in range(n))
                c = sum(params[j].weight * value_weight(names[j], rows[r][j]) for j in range(len(names))
                        if j not in ks)
                total += pk / count * c
        out[r] = alpha * total
    return out


@settings(max_examples=60, deadline=None)
@given(cases())
def test_agrees_with_brute_force_enumeration(case):
    frame, params, weights, alpha = case
    value_weights = Weights([(a, v, w) for (a, v), w in weights.items()])
    risk = disclosure_risk(frame, params, value_weights, alpha=alpha, epsilon=0.0)
    expected = brute_force(frame, params, lambda a, v: weights[(a, v)], alpha)
    assert risk.d == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # row order does not matter
    reversed_risk = disclosure_risk(frame.iloc[::-1].reset_index(drop=True), params, value_weights, alpha=alpha,
                                    epsilon=0.0)
    assert reversed_risk.d[::-1] == pytest.approx(risk.d, rel=1e-12, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.001, 0.05, 0.3, 0.5, 0.9, 1.0]), min_size=0, max_size=7),
       st.sampled_from([0.0, 0.001, 0.01, 0.1, 0.5]))
def test_known_sets_are_exactly_those_with_pk_above_epsilon(pk, epsilon):
    expected = {s for size in range(len(pk) + 1) for s in itertools.combinations(range(len(pk)), size)
                if math.prod(pk[j] for j in s) > epsilon}
    found = known_sets(pk, epsilon)
    assert len(found) == len(set(found)) and set(found) == expected
    # depth-first pre-order: every set comes after its parent
    position = {s: i for i, s in enumerate(found)}
    assert all(position[s[:-1]] < position[s] for s in found if s)


def test_numeric_attribute_takes_its_interval_weight_and_counts_exact_values():
    frame = pd.DataFrame({"Income": ["39.5", "40", "40.0"]})
    risk = disclosure_risk(frame, [AttributeParameters("Income", 0.5, 1.0)],
                           Weights([("Income", "[0,40)", 1.0), ("Income", "[40,70]", 0.7)]), epsilon=0.0)
    # ∅: 1/3 · W; {Income}: 0.5 / 1 · 0 (the value is known: the complement is empty)
    assert list(risk.d) == pytest.approx([1 / 3, 0.7 / 3, 0.7 / 3])
    assert list(risk.l_sum) == pytest.approx([1 / 3 + 0.5] * 3)  # "40" and "40.0" are different values


def test_too_many_known_sets_say_how_many():
    params = [AttributeParameters(f"a{j}", 0.9, 1.0) for j in range(31)]
    frame = pd.DataFrame({f"a{j}": ["x"] for j in range(31)})
    with pytest.raises(InputError, match=r"2,147,483,648 known sets would be enumerated for 31 attributes"):
        disclosure_risk(frame, params, epsilon=0.0)
    with pytest.raises(InputError, match=r"more than 1,048,576 known sets"):
        disclosure_risk(frame, params, epsilon=1e-9)


@pytest.mark.parametrize("params, kwargs, words", [
    ([AttributeParameters("Age", 1.5, 0, row=2)], {}, ["p.csv, row 2, column 'pk'", "outside [0, 1]"]),
    ([AttributeParameters("Age", 0.5, -0.1, row=3)], {}, ["row 3, column 'weight'", "outside [0, 1]"]),
    ([AttributeParameters("Nope", 0.5, 0, row=2)], {}, ["row 2, column 'attribute'", "'Nope' is not a column"]),
    ([AttributeParameters("Age", 0.5, 0, row=2), AttributeParameters("Age", 0.1, 0, row=3)], {},
     ["row 3", "listed twice"]),
    ([AttributeParameters("Age", 0.5, 0)], {"epsilon": -0.1}, ["ε = -0.1", "ε ≥ 0"]),
    ([AttributeParameters("Age", 0.5, 0)], {"alpha": 0}, ["α = 0", "> 0"]),
])
def test_bad_parameters(params, kwargs, words):
    with pytest.raises(InputError) as error:
        disclosure_risk(table_1(), params, parameters_name="p.csv", **kwargs)
    for word in words:
        assert word in str(error.value)


def test_value_weight_outside_0_1_and_non_numeric_cell(tmp_path):
    with pytest.raises(InputError, match=r"row 2, column 'weight': weight 1.5 is outside \[0, 1\]"):
        Weights([("Income", "[0,40)", 1.5, 2)], name="vw.csv")
    frame = table_1()
    frame.loc[2, "Income"] = "n/a"
    with pytest.raises(InputError, match=r"t1.csv, row 4, column 'Income'.*'n/a', which is not a number"):
        disclosure_risk(Table(frame, name="t1.csv", kind="csv"), PARAMS, VALUE_WEIGHTS)


def test_load_attribute_parameters(tmp_path):
    path = tmp_path / "params.csv"
    path.write_text("attribute,pk,weight\nAge,0.3,0\nIncome,0.005,0.9\n")
    params = load_attribute_parameters(path)
    assert [(p.attribute, p.pk, p.weight, p.row) for p in params] == [("Age", 0.3, 0.0, 2), ("Income", 0.005, 0.9, 3)]
    path.write_text("attribute,pk,weight\nAge,lots,0\n")
    with pytest.raises(InputError, match=r"params.csv, row 2, column 'pk': pk 'lots' is not a number"):
        load_attribute_parameters(path)
    path.write_text("attribute,pk,weight\nAge,-0.3,0\n")
    with pytest.raises(InputError, match=r"row 2, column 'pk': PK -0.3 of 'Age' is outside"):
        load_attribute_parameters(path)
    path.write_text("attribute,probability\nAge,0.3\n")
    with pytest.raises(InputError, match=r"row 1: the header lacks column\(s\) pk, weight"):
        load_attribute_parameters(path)
