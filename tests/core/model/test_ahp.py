"""AHP (spec data-model.md §4; thesis Appendix A.1 and Table 4.1): oracles, properties,
Harker completion, group aggregation, hierarchical synthesis and bad input through the
library and through ``tklscore ahp``."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from tklscore.core.model.ahp import (
    RANDOM_INDEX,
    SAATY_SCALE,
    AHPResult,
    Judgement,
    JudgementError,
    aggregate_judgements,
    ahp,
    check_matrix,
    group_ahp,
    harker_complete,
    hierarchical_synthesis,
    parse_judgement,
    random_index,
    reciprocal_matrix,
    snap_to_scale,
)
from tklscore.core.errors import InputError

TABLE_A1 = [[1, 2, 6], [1 / 2, 1, 3], [1 / 6, 1 / 3, 1]]          # thesis Table A.1
TABLE_4_1 = [[1, 2, 3], [1 / 2, 1, 2], [1 / 3, 1 / 2, 1]]         # Health, HealthRecord, Prescription
TABLE_A5 = [[1, 1 / 4], [4, 1]]                                   # PhysicalCharacteristic, MedicalHealth
CSV_4_1 = ",Health,HealthRecord,Prescription\nHealth,1,2,3\nHealthRecord,,1,2\nPrescription,,,1\n"
METHODS = ["eigenvector", "geometric"]


# --------------------------------------------------------------------------- oracles

@pytest.mark.parametrize("method", METHODS)
def test_table_a1_is_consistent(method):
    r = ahp(TABLE_A1, method=method)
    np.testing.assert_allclose(r.priorities, [0.6, 0.3, 0.1], atol=1e-12)
    assert r.lambda_max == pytest.approx(3.0, abs=1e-12)
    assert r.ci == pytest.approx(0.0, abs=1e-12) and r.cr == pytest.approx(0.0, abs=1e-12)
    assert r.random_index == 0.52
    assert r.most_inconsistent is None and r.acceptable()
    np.testing.assert_array_equal(r.completed_matrix, np.array(TABLE_A1))


def test_table_a1_unit_eigenvector_and_thesis_erratum():
    """The thesis prints the unit eigenvector of Table A.1 as {0.88465174, 0.44232587,
    0.44232587}; the third entry is 0.14744196 (the printed vector would normalise to
    (0.5, 0.25, 0.25), not the (0.6, 0.3, 0.1) the thesis then states)."""
    values, vectors = np.linalg.eig(np.array(TABLE_A1))
    v = np.abs(vectors[:, int(np.argmax(values.real))].real)
    np.testing.assert_allclose(v, [0.88465174, 0.44232587, 0.14744196], atol=1e-8)
    printed = np.array([0.88465174, 0.44232587, 0.44232587])
    np.testing.assert_allclose(printed / printed.sum(), [0.5, 0.25, 0.25], atol=1e-8)


@pytest.mark.parametrize("method", METHODS)
def test_table_4_1(method):
    r = ahp(TABLE_4_1, method=method, criteria=["Health", "HealthRecord", "Prescription"])
    assert [round(float(p), 4) for p in r.priorities] == [0.5396, 0.2970, 0.1634]
    np.testing.assert_allclose(r.priorities, [0.53961455, 0.29696133, 0.16342412], atol=1e-8)
    assert round(r.lambda_max, 4) == 3.0092
    assert round(r.ci, 4) == 0.0046
    assert round(r.cr, 4) == 0.0088 and round(r.cr, 2) == 0.01  # the thesis prints 0.01
    assert r.acceptable() and r.as_dict()["Health"] == pytest.approx(0.5396145502)
    # every judgement of a 3×3 matrix deviates equally (ε = 1.1006); the first is named
    assert r.most_inconsistent == Judgement(row=0, column=1, value=2.0, suggested=2.0)


def test_table_4_1_priorities_match_the_spec_table_to_3_decimals():
    r = ahp(TABLE_4_1)
    assert [round(float(p), 3) for p in r.priorities] == [0.540, 0.297, 0.163]


@pytest.mark.parametrize("method", METHODS)
def test_table_a5(method):
    r = ahp(TABLE_A5, method=method)
    np.testing.assert_allclose(r.priorities, [0.2, 0.8], atol=1e-12)
    assert (r.lambda_max, r.ci, r.cr, r.most_inconsistent) == (2.0, 0.0, 0.0, None)


def test_single_criterion():
    r = ahp([[1]])
    assert r.priorities.tolist() == [1.0] and r.cr == 0 and r.lambda_max == 1


def test_inconsistent_matrix_names_the_worst_judgement():
    # B > C > D consistent, A's judgements of C and D strongly reversed
    a = [[1, 2, 1 / 4, 1 / 8], [1 / 2, 1, 2, 4], [4, 1 / 2, 1, 2], [8, 1 / 4, 1 / 2, 1]]
    r = ahp(a, criteria="ABCD")
    assert r.cr > 0.10 and not r.acceptable()
    worst = r.most_inconsistent
    w = r.priorities
    eps = np.array(a) * w[None, :] / w[:, None]
    dev = np.maximum(eps, 1 / eps)
    assert dev[worst.row, worst.column] == pytest.approx(dev[np.triu_indices(4, 1)].max())
    assert worst.row < worst.column and worst.value == a[worst.row][worst.column]
    assert worst.suggested == snap_to_scale(w[worst.row] / w[worst.column])


def test_random_index_tables():
    assert RANDOM_INDEX["thesis"] == (0, 0, 0.52, 0.89, 1.11, 1.25, 1.35, 1.40, 1.45, 1.49)
    assert RANDOM_INDEX["saaty1980"] == (0, 0, 0.58, 0.90, 1.12, 1.24, 1.32, 1.41, 1.45, 1.49)
    assert RANDOM_INDEX["donegan-dodd"][2:10] == (0.4914, 0.8286, 1.0591, 1.1797, 1.2519, 1.3171, 1.3733, 1.4055)
    assert ahp(TABLE_4_1, ri="saaty1980").cr == pytest.approx(0.0046013563571 / 0.58)
    assert ahp(TABLE_4_1, ri="donegan-dodd").random_index == 0.4914
    with pytest.raises(InputError, match=r"'thesis' stops at n = 10.*n = 11"):
        ahp(np.ones((11, 11)))
    assert ahp(np.ones((11, 11)), ri="donegan-dodd").cr == pytest.approx(0, abs=1e-12)
    with pytest.raises(InputError, match="unknown random index table 'nope'"):
        ahp(TABLE_4_1, ri="nope")
    with pytest.raises(InputError, match="unknown AHP method"):
        ahp(TABLE_4_1, method="mean")
    assert random_index(3) == 0.52


# --------------------------------------------------------------------------- scale and parsing

def test_saaty_scale_and_snap():
    assert sorted(SAATY_SCALE) == list(range(1, 10))
    assert SAATY_SCALE[1] == "equal importance" and "extreme" in SAATY_SCALE[9]
    assert "very strong" in SAATY_SCALE[7] and "strong" in SAATY_SCALE[5] and "moderate" in SAATY_SCALE[3]
    assert [snap_to_scale(x) for x in (1, 1.4, 1.5, 2.4, 20, 0.3, 0.34, 1 / 20)] == \
        [1, 1, 2, 2, 9, 1 / 3, 1 / 3, 1 / 9]
    assert snap_to_scale(math.sqrt(2)) in (1.0, 2.0)  # log-midpoint
    for bad in (0, -1, math.inf, math.nan, "x"):
        with pytest.raises(InputError):
            snap_to_scale(bad)


def test_parse_judgement():
    assert parse_judgement("3") == 3 and parse_judgement(" 1/3 ") == pytest.approx(1 / 3)
    assert parse_judgement("0.5") == 0.5 and parse_judgement("2 / 4") == 0.5
    assert parse_judgement("") is None and parse_judgement("  ") is None and parse_judgement("—") is None
    assert parse_judgement(None) is None and parse_judgement(4) == 4.0
    for bad, fragment in [("x", "'x' is not a judgement"), ("0", "not positive"), ("-3", "not positive"),
                          ("1/0", "not a finite"), ("1/x", "not a judgement"), ("inf", "not a finite"),
                          ("1/2/3", "not a judgement")]:
        with pytest.raises(InputError, match=fragment):
            parse_judgement(bad)


def test_reciprocal_matrix():
    a = reciprocal_matrix(3, {(0, 1): 2, (0, 2): "3", (2, 1): 1 / 2})
    np.testing.assert_allclose(a, TABLE_4_1)
    b = reciprocal_matrix(3, {(0, 1): 2, (1, 2): None})
    assert np.isnan(b[1, 2]) and np.isnan(b[2, 1]) and np.isnan(b[0, 2]) and b[1, 0] == 0.5
    assert np.diag(b).tolist() == [1, 1, 1]
    with pytest.raises(InputError, match="outside a 3×3"):
        reciprocal_matrix(3, {(0, 3): 2})
    with pytest.raises(InputError, match="must be 1"):
        reciprocal_matrix(3, {(1, 1): 2})
    with pytest.raises(InputError, match="judged twice"):
        reciprocal_matrix(3, {(0, 1): 2, (1, 0): 2})
    with pytest.raises(InputError, match="not positive"):
        reciprocal_matrix(3, {(0, 1): -2})


# --------------------------------------------------------------------------- bad matrices (library)

@pytest.mark.parametrize("matrix, cell, fragments", [
    ([[1, 2, 3], [0.4, 1, 2], [1 / 3, 1 / 2, 1]], (1, 0), ["a['B', 'A'] = 0.4", "reciprocal", "1/2"]),
    ([[1, -2, 3], [-0.5, 1, 2], [1 / 3, 1 / 2, 1]], (0, 1), ["a['A', 'B'] is -2", "positive"]),
    ([[1, 0, 3], [np.inf, 1, 2], [1 / 3, 1 / 2, 1]], (0, 1), ["a['A', 'B'] is 0", "positive"]),
    ([[1, 2, 3], [1 / 2, 2, 2], [1 / 3, 1 / 2, 1]], (1, 1), ["a['B', 'B'] is 2", "diagonal must be 1"]),
    ([[1, 2, np.nan], [1 / 2, 1, 2], [1 / 3, 1 / 2, 1]], (0, 2), ["a['A', 'C'] is missing", "a['C', 'A'] = 0.333"]),
])
def test_check_matrix_names_the_first_bad_cell(matrix, cell, fragments):
    with pytest.raises(JudgementError) as caught:
        check_matrix(matrix, criteria=["A", "B", "C"], name="expert.csv")
    assert caught.value.cell == cell and caught.value.file == "expert.csv"
    for fragment in fragments:
        assert fragment in str(caught.value)
    with pytest.raises(InputError):
        ahp(matrix)


@pytest.mark.parametrize("matrix, fragment", [
    ([[1, 2, 3], [1 / 2, 1, 2]], "must be square; it is 2×3"),
    ([1, 2, 3], "must be square"),
    ([[1, "x"], ["y", 1]], "not a number"),
    (np.ones((0, 0)), "empty"),
])
def test_check_matrix_shape_and_type(matrix, fragment):
    with pytest.raises(InputError, match=fragment):
        ahp(matrix)


def test_check_matrix_names_and_tolerance():
    with pytest.raises(InputError, match="2 criteria names for a 3×3"):
        check_matrix(TABLE_4_1, criteria=["A", "B"])
    with pytest.raises(InputError, match="repeat: 'A'"):
        check_matrix(TABLE_4_1, criteria=["A", "B", "A"])
    ok = np.array(TABLE_4_1)
    ok[1, 0] *= 1 + 5e-7
    check_matrix(ok)  # reciprocal within 1e-6 relative
    ok[1, 0] *= 1 + 5e-6
    with pytest.raises(JudgementError):
        check_matrix(ok)
    with pytest.raises(JudgementError, match="0.33"):  # a typical typo: 0.33 for 1/3
        check_matrix([[1, 3], [0.33, 1]])


# --------------------------------------------------------------------------- Harker

def test_harker_completion_of_a_consistent_matrix_with_a_hole():
    full = reciprocal_matrix(4, {(0, 1): 2, (0, 2): 6, (0, 3): 12, (1, 2): 3, (1, 3): 6, (2, 3): 2})
    holes = full.copy()
    for i, j in [(0, 2), (0, 3), (1, 3)]:
        holes[i, j] = holes[j, i] = np.nan
    np.testing.assert_allclose(harker_complete(holes), full, rtol=1e-12)
    r = ahp(holes, criteria="ABCD")
    np.testing.assert_allclose(r.priorities, np.array([12, 6, 2, 1]) / 21, rtol=1e-12)
    assert r.cr == pytest.approx(0, abs=1e-12) and r.most_inconsistent is None
    assert not np.isnan(r.completed_matrix).any()


def test_harker_matches_its_definition_on_an_inconsistent_matrix():
    a = reciprocal_matrix(4, {(0, 1): 3, (1, 2): 5, (2, 3): 1 / 2, (0, 3): 7})  # (0,2), (1,3) missing
    h = np.nan_to_num(a, nan=0.0)
    h[np.diag_indices(4)] = [2, 2, 2, 2]
    values, vectors = np.linalg.eig(h)
    w = np.abs(vectors[:, np.argmax(values.real)].real)
    w /= w.sum()
    completed = harker_complete(a)
    assert completed[0, 2] == pytest.approx(w[0] / w[2]) and completed[3, 1] == pytest.approx(w[3] / w[1])
    r = ahp(a)
    np.testing.assert_allclose(r.priorities, w, rtol=1e-10)  # the completed matrix keeps Harker's vector
    assert r.most_inconsistent is not None and (r.most_inconsistent.row, r.most_inconsistent.column) \
        not in [(0, 2), (1, 3)]  # only judgements actually given are named


def test_harker_complete_matrix_is_returned_unchanged():
    np.testing.assert_array_equal(harker_complete(TABLE_4_1), np.array(TABLE_4_1))


def test_disconnected_judgements():
    a = reciprocal_matrix(4, {(0, 1): 2, (2, 3): 3})
    with pytest.raises(InputError, match=r"do not connect all criteria.*\{A, B\} \| \{C, D\}") as caught:
        ahp(a, criteria="ABCD", name="m.csv")
    assert "add at least one judgement" in str(caught.value) and caught.value.file == "m.csv"
    with pytest.raises(InputError, match="do not connect"):
        harker_complete(reciprocal_matrix(3, {}))


# --------------------------------------------------------------------------- groups and hierarchies

def test_aggregate_and_group():
    e1 = reciprocal_matrix(3, {(0, 1): 2, (0, 2): 4, (1, 2): 2})
    e2 = reciprocal_matrix(3, {(0, 1): 8, (0, 2): 1, (1, 2): None})
    agg = aggregate_judgements([e1, e2])
    assert agg[0, 1] == pytest.approx(4) and agg[0, 2] == pytest.approx(2) and agg[1, 2] == pytest.approx(2)
    assert agg[2, 1] == pytest.approx(1 / 2) and np.diag(agg).tolist() == [1, 1, 1]
    nobody = aggregate_judgements([reciprocal_matrix(3, {(0, 1): 2, (1, 2): 3}),
                                   reciprocal_matrix(3, {(0, 1): 8, (1, 2): 3})])
    assert np.isnan(nobody[0, 2]) and nobody[0, 1] == pytest.approx(4)
    group, each = group_ahp([TABLE_A1, TABLE_4_1])
    assert isinstance(group, AHPResult) and len(each) == 2
    np.testing.assert_allclose(each[0].priorities, [0.6, 0.3, 0.1])
    np.testing.assert_allclose(group.completed_matrix, np.sqrt(np.array(TABLE_A1) * np.array(TABLE_4_1)))
    with pytest.raises(InputError, match="differ in size"):
        aggregate_judgements([TABLE_A1, TABLE_A5])
    with pytest.raises(InputError, match="expert 2"):
        aggregate_judgements([TABLE_A1, [[1, 2, 3], [0.4, 1, 2], [1 / 3, 1 / 2, 1]]])


def test_hierarchical_synthesis_thesis_taxonomy():
    tree = {"PersonalDataCategory": ["External"], "External": ["PhysicalCharacteristic", "MedicalHealth"],
            "MedicalHealth": ["Health", "HealthRecord", "Prescription"], "PhysicalCharacteristic": ["Age"]}
    top, med = ahp(TABLE_A5).priorities, ahp(TABLE_4_1).priorities
    local = {"External": 1.0, "PhysicalCharacteristic": top[0], "MedicalHealth": top[1], "Age": 1.0,
             "Health": med[0], "HealthRecord": med[1], "Prescription": med[2]}
    g = hierarchical_synthesis(tree, local, "PersonalDataCategory")
    assert g["PersonalDataCategory"] == 1 and g["External"] == 1
    assert g["Age"] == pytest.approx(0.2) and g["Health"] == pytest.approx(0.8 * 0.53961455)
    assert g["Prescription"] == pytest.approx(0.8 * 0.16342412)
    leaves = ["Age", "Health", "HealthRecord", "Prescription"]
    assert sum(g[x] for x in leaves) == pytest.approx(1.0)
    with pytest.raises(InputError, match="'Age'.*no local priority"):
        hierarchical_synthesis(tree, {k: v for k, v in local.items() if k != "Age"}, "PersonalDataCategory")
    with pytest.raises(InputError, match="reached twice"):
        hierarchical_synthesis({"r": ["a"], "a": ["r"]}, {"a": 1, "r": 1}, "r")


# --------------------------------------------------------------------------- properties

positive = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False, allow_infinity=False)
saaty = st.sampled_from([1 / 9, 1 / 8, 1 / 7, 1 / 6, 1 / 5, 1 / 4, 1 / 3, 1 / 2, 1, 2, 3, 4, 5, 6, 7, 8, 9])


@st.composite
def judgement_matrices(draw, min_n=1, max_n=9):
    n = draw(st.integers(min_n, max_n))
    upper = {(i, j): draw(saaty) for i in range(n) for j in range(i + 1, n)}
    return reciprocal_matrix(n, upper)


@settings(max_examples=80, deadline=None)
@given(judgement_matrices(), st.sampled_from(METHODS))
def test_priorities_positive_sum_one(a, method):
    r = ahp(a, method=method)
    assert (r.priorities > 0).all() and r.priorities.sum() == pytest.approx(1.0, abs=1e-12)
    assert r.lambda_max >= len(a) - 1e-9 and r.ci >= 0 and r.cr >= 0
    if r.most_inconsistent is not None:
        assert r.most_inconsistent.row < r.most_inconsistent.column
        assert r.most_inconsistent.suggested in [1 / k for k in range(9, 1, -1)] + list(range(1, 10))


@settings(max_examples=80, deadline=None)
@given(st.lists(positive, min_size=1, max_size=9), st.sampled_from(METHODS))
def test_consistent_matrix_gives_its_vector(w, method):
    w = np.array(w)
    a = w[:, None] / w[None, :]
    r = ahp(a, method=method)
    assert abs(r.cr) < 1e-9
    np.testing.assert_allclose(r.priorities, w / w.sum(), rtol=1e-8, atol=1e-12)
    assert r.most_inconsistent is None or max(
        np.max(a * r.priorities[None, :] / r.priorities[:, None]), 1) - 1 < 1e-6


@settings(max_examples=60, deadline=None)
@given(judgement_matrices(min_n=2), st.randoms(use_true_random=False), st.sampled_from(METHODS))
def test_permuting_criteria_permutes_priorities(a, rnd, method):
    perm = list(range(len(a)))
    rnd.shuffle(perm)
    r, rp = ahp(a, method=method), ahp(a[np.ix_(perm, perm)], method=method)
    np.testing.assert_allclose(rp.priorities, r.priorities[perm], rtol=1e-9, atol=1e-12)
    assert rp.cr == pytest.approx(r.cr, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(positive, min_size=3, max_size=9), st.data())
def test_harker_restores_a_consistent_matrix(w, data):
    w = np.array(w)
    n = len(w)
    full = w[:, None] / w[None, :]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    # keep a random spanning tree (connected), drop a random subset of the other judgements
    order = data.draw(st.permutations(range(n)))
    tree = {tuple(sorted((order[k], order[data.draw(st.integers(0, k - 1))]))) for k in range(1, n)}
    dropped = [p for p in pairs if p not in tree and data.draw(st.booleans())]
    holes = full.copy()
    for i, j in dropped:
        holes[i, j] = holes[j, i] = np.nan
    np.testing.assert_allclose(harker_complete(holes), full, rtol=1e-8)
    np.testing.assert_allclose(ahp(holes).priorities, w / w.sum(), rtol=1e-8)


@settings(max_examples=40, deadline=None)
@given(judgement_matrices(), st.integers(1, 5))
def test_aggregating_identical_matrices_gives_the_matrix(a, k):
    np.testing.assert_allclose(aggregate_judgements([a] * k), a, rtol=1e-12)


# --------------------------------------------------------------------------- CLI

@pytest.fixture()
def write(tmp_path):
    def _write(text: str, name: str = "m.csv"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path
    return _write


def test_cli_json_table_4_1(capsys, write):
    code, out, err = run_cli(capsys, ["ahp", write(CSV_4_1), "--format", "json"])
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert list(doc) == ["criteria", "priorities", "lambda_max", "ci", "cr", "random_index", "completed_matrix",
                         "most_inconsistent"]
    assert doc["criteria"] == ["Health", "HealthRecord", "Prescription"]
    assert {k: round(v, 4) for k, v in doc["priorities"].items()} == \
        {"Health": 0.5396, "HealthRecord": 0.2970, "Prescription": 0.1634}
    assert round(doc["lambda_max"], 4) == 3.0092 and round(doc["cr"], 4) == 0.0088
    assert round(doc["ci"], 4) == 0.0046 and doc["random_index"] == 0.52
    np.testing.assert_allclose(doc["completed_matrix"], TABLE_4_1)
    assert doc["most_inconsistent"] == {"row": "Health", "column": "HealthRecord", "value": 2.0, "suggested": 2.0}


def test_cli_options_and_delimiters(capsys, write):
    code, out, _ = run_cli(capsys, ["ahp", write(CSV_4_1.replace(",", ";"), "m2.csv"), "--format", "json",
                                    "--ri", "saaty1980", "--method", "geometric"])
    doc = json.loads(out)
    assert code == 0 and doc["random_index"] == 0.58 and round(doc["cr"], 4) == round(0.0046013564 / 0.58, 4)
    code, out, _ = run_cli(capsys, ["ahp", write(CSV_4_1.replace(",", "\t"), "m.tsv"), "--format", "json",
                                    "--ri", "donegan-dodd"])
    assert code == 0 and json.loads(out)["random_index"] == 0.4914
    code, out, _ = run_cli(capsys, ["ahp", write(",A,B\nA,1,1/4\nB,4,1\n"), "--format", "json"])
    doc = json.loads(out)
    assert doc["priorities"] == pytest.approx({"A": 0.2, "B": 0.8}) and doc["cr"] == 0
    assert doc["most_inconsistent"] is None


def test_cli_table(capsys, write):
    code, out, err = run_cli(capsys, ["ahp", write(CSV_4_1)])
    assert code == 0 and err == ""
    assert "Health          0.5396" in out and "Prescription    0.1634" in out
    assert "λ_max = 3.0092" in out and "CR    = 0.0088" in out and "acceptable" in out
    assert ("Most inconsistent judgement: Health vs HealthRecord = 2; the priorities imply 1.82, no value of the "
            "scale is closer, so there is nothing to change") in out
    assert "suggested" not in out
    bad = ",A,B,C,D\nA,1,2,1/4,1/8\nB,,1,2,4\nC,,,1,2\nD,,,,1\n"
    code, out, _ = run_cli(capsys, ["ahp", write(bad, "bad.csv")])
    assert code == 0 and "inconsistent (CR 0.7876 > 0.15 for one person's judgements): revise the judgements" in out


def test_cli_missing_judgements(capsys, write):
    text = ",A,B,C,D\nA,1,2,,\nB,,1,3,\nC,,,1,2\nD,,,,1\n"
    code, out, _ = run_cli(capsys, ["ahp", write(text), "--format", "json"])
    doc = json.loads(out)
    assert code == 0 and doc["cr"] == pytest.approx(0, abs=1e-12)
    assert doc["priorities"] == pytest.approx({"A": 12 / 21, "B": 6 / 21, "C": 2 / 21, "D": 1 / 21})
    assert doc["completed_matrix"][0][3] == pytest.approx(12)
    code, out, _ = run_cli(capsys, ["ahp", write(text)])
    assert "completed (Harker): A vs C = 6, A vs D = 12, B vs D = 6" in out


def assert_cli_error(capsys, argv, *fragments):
    code, out, err = run_cli(capsys, argv)
    assert code == 2, (code, out, err)
    assert err.startswith("tklscore: error: ") and "Traceback" not in err + out
    for fragment in fragments:
        assert fragment in err, (fragment, err)


@pytest.mark.parametrize("text, fragments", [
    (",A,B,C\nA,1,2,3\nB,0.4,1,2\nC,,,1\n", ["m.csv, row 3, column 'A'", "reciprocal", "1/2"]),
    (",A,B,C\nA,1,-2,3\nB,,1,2\nC,,,1\n", ["m.csv, row 2, column 'B'", "not positive"]),
    (",A,B,C\nA,1,0,3\nB,,1,2\nC,,,1\n", ["m.csv, row 2, column 'B'", "not positive"]),
    (",A,B,C\nA,1,2,x\nB,,1,2\nC,,,1\n", ["m.csv, row 2, column 'C'", "'x' is not a judgement"]),
    (",A,B,C\nA,1,2,3\nB,,2,2\nC,,,1\n", ["m.csv, row 3, column 'B'", "diagonal must be 1"]),
    (",A,B,C,D\nA,1,2,,\nB,,1,,\nC,,,1,2\nD,,,,1\n", ["m.csv", "do not connect all criteria", "{A, B} | {C, D}"]),
    (",A,B,C\nA,1,2,3\nB,,1,2\n", ["m.csv", "2 criterion row(s) for 3 criteria"]),
    (",A,B,C\nA,1,2\nB,,1,2\nC,,,1\n", ["m.csv, row 2", "expected 4"]),
    (",A,B,C\nA,1,2,3\nX,,1,2\nC,,,1\n", ["m.csv, row 3", "row name 'X' differs from column name 'B'"]),
    (",A,B,A\nA,1,2,3\nB,,1,2\nA,,,1\n", ["m.csv, row 1, column 'A'", "named twice"]),
    ("", ["m.csv", "empty"]),
    (",A,B,C,D,E,F,G,H,I,J,K\n" + "".join(f"{c}" + ",1" * 11 + "\n" for c in "ABCDEFGHIJK"),
     ["m.csv", "'thesis' stops at n = 10", "n = 11"]),
])
def test_cli_bad_input(capsys, write, text, fragments):
    assert_cli_error(capsys, ["ahp", write(text)], *fragments)


def test_cli_bad_arguments(capsys, write, tmp_path):
    assert_cli_error(capsys, ["ahp", write(CSV_4_1), "--ri", "nope"], "invalid choice: 'nope'")
    assert_cli_error(capsys, ["ahp", write(CSV_4_1), "--method", "mean"], "invalid choice")
    assert_cli_error(capsys, ["ahp", tmp_path / "absent.csv"], "absent.csv", "not found")
    assert_cli_error(capsys, ["ahp", tmp_path], "folder")
