"""``tklscore pseudonymization violations|remove|lts`` through the real entry point."""

from __future__ import annotations

import json

import pandas as pd

from helpers import run_cli as run
from paths import DATA
from tklscore.core.files.resources import resource_path

TABLE_3 = DATA / "pseudonymization_table_3.csv"
BASE = ["--sensitive", "weight", "--qi", "age,height", "--margin", "5"]
MODEL = resource_path("pseudonymization/health_research.json")


def test_violations_json_lists_every_subset_maximum_last(capsys):
    code, out, err = run(capsys, ["pseudonymization", "violations", TABLE_3, *BASE, "--threshold", "0.9",
                                  "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    assert list(doc) == ["transitions"]
    assert [list(t) for t in doc["transitions"]] == [["qi_set", "violations", "violating_rows", "risks"]] * 3
    assert [(t["qi_set"], t["violations"], t["violating_rows"]) for t in doc["transitions"]] == [
        (["age"], 2, [0, 1]), (["height"], 0, []), (["age", "height"], 4, [0, 1, 2, 3])]
    assert doc["transitions"][0]["risks"] == [1.0, 1.0, 0.75, 0.75, 0.25, 0.75]


def test_violations_with_policy_per_record(capsys, tmp_path):
    frame = pd.read_csv(TABLE_3, dtype=str)
    frame["westin"] = ["pragmatist", "pragmatist", "pragmatist", "fundamentalist", "pragmatist", "pragmatist"]
    frame["special"] = ["no", "no", "yes", "no", "no", "no"]
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "policy.csv").write_text("category,normal,sensitive\npragmatist,0.9,0.7\nfundamentalist,0.7,0.7\n")
    code, out, err = run(capsys, ["pseudonymization", "violations", tmp_path / "data.csv", *BASE,
                                  "--policy", tmp_path / "policy.csv", "--category-column", "westin",
                                  "--sensitive-flag-column", "special", "--format", "json"])
    assert code == 0, err
    assert [t["violations"] for t in json.loads(out)["transitions"]] == [4, 0, 4]
    code, out, err = run(capsys, ["pseudonymization", "violations", tmp_path / "data.csv", *BASE,
                                  "--operator", "ge", "--threshold", "0.75", "--format", "json"])
    assert [t["violations"] for t in json.loads(out)["transitions"]] == [5, 0, 4]


def test_remove_json_and_trimmed_output(capsys, tmp_path):
    out_file = tmp_path / "trimmed.csv"
    code, out, err = run(capsys, ["pseudonymization", "remove", TABLE_3, *BASE, "--threshold", "0.9",
                                  "--qi-set", "age,height", "--seed", "1", "--output", out_file, "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    assert list(doc) == ["violations_before", "removed", "violations_after", "removed_rows", "statistics",
                         "exact_minimum"]
    assert (doc["violations_before"], doc["removed"], doc["violations_after"]) == (4, 4, 0)
    exact = doc["exact_minimum"]
    assert (exact["total"], exact["heuristic_excess"], exact["sets"], exact["searched"]) == (4, 0, 2, 2)
    assert [(c["rows"], c["violations"], c["removed"], c["minimum"]) for c in exact["classes"]] == [
        ([0, 1], 2, 2, 2), ([2, 3], 2, 2, 2)]
    assert doc["removed_rows"] == [0, 1, 2, 3]
    assert list(doc["statistics"]) == ["original", "trimmed", "delta"]
    for part in doc["statistics"].values():
        assert list(part) == ["max", "min", "skewness", "kurtosis", "median", "mean", "std"]
    assert doc["statistics"]["original"]["max"] == 111 and doc["statistics"]["trimmed"]["max"] == 110
    assert doc["statistics"]["delta"]["mean"] == 95 - 613 / 6
    trimmed = pd.read_csv(out_file, dtype=str, keep_default_na=False)
    assert list(trimmed["weight"]) == ["", "", "", "", "80", "110"]
    assert list(trimmed["age"]) == list(pd.read_csv(TABLE_3, dtype=str)["age"])


def test_remove_table_reports_the_exact_minimum(capsys, tmp_path):
    data = tmp_path / "table2.csv"
    pd.DataFrame({"set": ["1"] * 5 + ["2"] * 6, "w": [70, 77, 78, 75, 79, 70, 80, 74, 74, 74, 76]}).to_csv(data, index=False)
    code, out, err = run(capsys, ["pseudonymization", "remove", data, "--sensitive", "w", "--qi", "set", "--margin", "5",
                                  "--threshold", "0.75", "--qi-set", "set", "--seed", "2"])
    assert code == 0, err
    assert "Violations before: 8" in out and "violations after: 0" in out
    assert "Exact minimum removal: 3" in out
    code, out, err = run(capsys, ["pseudonymization", "remove", data, "--sensitive", "w", "--qi", "set", "--margin", "5",
                                  "--threshold", "0.75", "--qi-set", "set", "--seed", "2", "--format", "json"])
    exact = json.loads(out)["exact_minimum"]
    assert (exact["total"], exact["at_least"], exact["at_most"], exact["searched"], exact["sets"]) == (3, 3, 3, 2, 2)
    assert exact["heuristic_excess"] == json.loads(out)["removed"] - 3
    assert [(c["rows"], c["minimum"]) for c in exact["classes"]] == [([0, 1, 2, 3, 4], 1), ([5, 6, 7, 8, 9, 10], 2)]


def test_remove_json_says_where_the_minimum_was_not_searched(capsys, tmp_path):
    data = tmp_path / "big.csv"
    values = [50 + (i % 7) for i in range(60)] + [90, 91]
    pd.DataFrame({"set": ["a"] * 60 + ["b"] * 2, "w": values}).to_csv(data, index=False)
    code, out, err = run(capsys, ["pseudonymization", "remove", data, "--sensitive", "w", "--qi", "set", "--margin", "3",
                                  "--threshold", "0.5", "--qi-set", "set", "--seed", "0", "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    exact = doc["exact_minimum"]
    unsearched = [c for c in exact["classes"] if c["minimum"] is None]
    assert exact["total"] is None and exact["heuristic_excess"] is None and len(unsearched) == 1
    assert unsearched[0]["rows"] == list(range(60)) and unsearched[0]["note"].startswith("not searched: a set of 60 values")
    assert exact["at_least"] <= exact["at_most"] == doc["removed"]


def test_lts_json_and_dot(capsys):
    code, out, err = run(capsys, ["pseudonymization", "lts", MODEL, "--format", "json"])
    assert code == 0, err
    doc = json.loads(out)
    risks = [e for e in doc["edges"] if e["kind"] == "risk"]
    assert [(e["qi_set"], e["maximum"], e["allowed"]) for e in risks] == [
        (["age"], False, False), (["height"], False, False), (["age", "height"], True, False)]
    code, out, err = run(capsys, ["pseudonymization", "lts", MODEL, "--format", "dot"])
    assert code == 0 and out.startswith("digraph") and out.count("style=dotted") == 3


def test_bad_input_exits_2_with_the_reason(capsys, tmp_path):
    cases = [
        (["violations", TABLE_3, "--sensitive", "age", "--qi", "height", "--margin", "5", "--threshold", "0.9"],
         "column 'age': a margin of 5 needs a numeric field"),
        (["violations", TABLE_3, *BASE[:4], "--margin", "-2", "--threshold", "0.9"], "margin -2.0 must be a finite number ≥ 0"),
        (["violations", TABLE_3, *BASE, "--threshold", "1.5"], "threshold 1.5 is outside [0, 1]"),
        (["violations", TABLE_3, *BASE, "--people", tmp_path / "nobody.csv", "--id-column", "age"],
         "people policy file not found"),
        (["remove", TABLE_3, *BASE, "--threshold", "0.9", "--qi-set", "age,zip", "--seed", "1"],
         "QI set age, zip must be a non-empty subset"),
        (["remove", TABLE_3, *BASE, "--threshold", "0.9", "--qi-set", "age", "--seed", "1", "--output", TABLE_3],
         "is an input file"),
        (["violations", TABLE_3, *BASE, "--threshold", "0.9", "--policy", "table5"], "--policy needs --category-column"),
    ]
    before = TABLE_3.read_bytes()
    for argv, message in cases:
        code, out, err = run(capsys, ["pseudonymization", *argv])
        assert code == 2, (argv, err)
        assert message in err and out == "" and "Traceback" not in err
    assert TABLE_3.read_bytes() == before
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"actors": ["A"], "datastores": [{"id": "DB", "schema": ["x"]}],
                                 "flows": [{"from": "DB", "to": "A", "fields": ["x"]}]}))
    code, _, err = run(capsys, ["pseudonymization", "lts", model])
    assert code == 2 and "has no anon step" in err


def test_people_without_policy_are_counted_on_stderr(capsys, tmp_path):
    data = tmp_path / "data.csv"
    frame = pd.read_csv(TABLE_3, dtype=str)
    frame["person"] = ["a", "b", "c", "d", "e", "f"]
    frame.to_csv(data, index=False)
    (tmp_path / "people.csv").write_text("id,category,sensitive_fields\na,fundamentalist,weight\nb,unconcerned,\n")
    code, out, err = run(capsys, ["pseudonymization", "violations", data, *BASE, "--people", tmp_path / "people.csv",
                                  "--id-column", "person", "--format", "json"])
    assert code == 0
    assert "4 person(s) (4 record(s)) have no policy" in err and "c, d, e, f" in err
    assert "default category 'pragmatist'" in err
    assert [t["violations"] for t in json.loads(out)["transitions"]] == [1, 0, 3]
