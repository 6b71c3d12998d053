"""``tklscore measures``, ``tklscore disclosure-risk`` and ``score --measures``."""

from __future__ import annotations

import json

import pytest

from helpers import run_cli

TABLE_4 = ("Age;Gender;City;Disability;person;w\n[35-40);Male;Elva;No;1;5\n[35-40);Male;Elva;Yes;2;5\n"
           "[35-40);Male;Tartu;No;3;5\n[40-45);Female;Tartu;Yes;4;10\n[40-45);Female;Tartu;No;4;10\n")
TABLE_1 = ("id,Age,Gender,Race,Income,Disease\nr1,34,Male,Black,60,Flu\nr2,19,Female,White,36,Flu\n"
           "r3,40,Male,Asian-Pac-Islander,45,Flu\nr4,34,Male,Black,50,Cancer\nr5,51,Female,Black,65,Flu\n")
PARAMS = "attribute,pk,weight\nAge,0.3,0\nGender,0.8,0\nRace,0.7,0\nIncome,0.005,0.9\nDisease,0.001,1\n"
VALUE_WEIGHTS = ("attribute,value,weight\nIncome,\"[0,40)\",1\nIncome,\"[40,70]\",0.7\nDisease,Flu,0.2\n"
                 "Disease,Cancer,1\n")


def error_of(capsys, argv) -> str:
    code, out, err = run_cli(capsys, argv)
    assert code == 2, (code, out, err)
    assert err.startswith("tklscore: error: ") and "Traceback" not in err and "internal error" not in err
    return err


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in (("t4.csv", TABLE_4), ("t1.csv", TABLE_1), ("params.csv", PARAMS), ("vw.csv", VALUE_WEIGHTS)):
        (tmp_path / name).write_text(text)
        paths[name] = tmp_path / name
    return paths


def test_measures_json(capsys, files):
    code, out, err = run_cli(capsys, ["measures", files["t4.csv"], "--qi", "Age,Gender", "--sa", "Disability",
                                      "--identifier-columns", "person", "--population", files["t4.csv"],
                                      "--sampling-fraction", "0.5", "--sample-weight", "w", "--qi-importance",
                                      "--format", "json"])
    assert code == 0, err
    j = json.loads(out)
    assert j["k"] == 2 and j["l_distinct"] == 2 and round(j["l_entropy"], 4) == 1.8899
    assert j["recursive_cl"] == {"c": 3, "l": 2}
    assert j["xy_anonymity"] == 1  # the [40-45) class holds one person (4) twice
    assert j["risk"]["journalist"]["highest"] == 0.5 and j["risk"]["marketer"] == pytest.approx(0.4)
    assert set(j["risk"]["population_uniques"]) == {"pitman", "zayatz", "snb", "dankar"}
    assert len(j["risk"]["individual_risk"]["records"]) == 5
    assert len(j["qi_importance"]) == 3
    assert j["pycanon"]["entropy_l"] == 1


def test_measures_table_for_people_and_output_file(capsys, files, tmp_path):
    code, out, err = run_cli(capsys, ["measures", files["t4.csv"], "--qi", "Age,Gender,City", "--sa", "Disability"])
    assert code == 0, err
    assert "k-anonymity" in out and "every record shares its quasi-identifier values" in out
    assert "prosecutor         100 %" in out                  # risks as percentages, as the verdict says them
    assert "enhanced β-likeness (pycanon's figure)" in out and "not Cao and Karras' enhanced β-likeness" in out
    assert "δ-disclosure (values present)" in out and "not Brickell and Shmatikov's δ-disclosure" in out
    target = tmp_path / "m.json"
    code, out, err = run_cli(capsys, ["measures", files["t4.csv"], "--qi", "Age", "--format", "json",
                                      "--output", target])
    assert code == 0 and out == "" and json.loads(target.read_text())["k"] == 2


@pytest.mark.parametrize("extra, fragments", [
    (["--qi", "Age,Nope"], ["t4.csv", "'Nope' not found"]),
    (["--qi", "Age", "--sa", "Age"], ["t4.csv, column 'Age'", "two roles"]),
    (["--qi", "Age", "--sampling-fraction", "0"], ["sampling fraction", "outside (0, 1]"]),
    (["--qi", "Age", "--sampling-fraction", "1.01"], ["outside (0, 1]"]),
    (["--qi", "Age", "--sample-weight", "City"], ["t4.csv, row 2, column 'City'", "not a number"]),
    (["--qi", "Age", "--sa", "Disability", "--continuous", "Disability"], ["row 2, column 'Disability'"]),
])
def test_measures_bad_input(capsys, files, extra, fragments):
    err = error_of(capsys, ["measures", files["t4.csv"], *extra])
    for fragment in fragments:
        assert fragment in err


def test_measures_negative_weight_and_empty_table(capsys, files, tmp_path):
    path = tmp_path / "neg.csv"
    path.write_text(TABLE_4.replace("No;3;5", "No;3;-5"))
    assert "row 4, column 'w': sample weight -5 is negative" in error_of(
        capsys, ["measures", path, "--qi", "Age", "--sample-weight", "w"])
    empty = tmp_path / "empty.csv"
    empty.write_text("Age;Gender\n")
    assert "no records" in error_of(capsys, ["measures", empty, "--qi", "Age"])


def test_disclosure_risk_json(capsys, files):
    code, out, err = run_cli(capsys, ["disclosure-risk", files["t1.csv"], "--attributes", files["params.csv"],
                                      "--value-weights", files["vw.csv"], "--id-column", "id", "--format", "json"])
    assert code == 0, err
    j = json.loads(out)
    assert j["splits"] == 32 and len(j["known_sets"]) == 8 and j["known_sets"][0] == []
    assert [r["id"] for r in j["records"]] == ["r1", "r2", "r3", "r4", "r5"]
    assert [round(r["d"], 6) for r in j["records"]] == [1.194370, 3.055800, 2.195073, 2.345570, 1.918407]
    assert j["above_threshold"] == 5
    code, out, err = run_cli(capsys, ["disclosure-risk", files["t1.csv"], "--attributes", files["params.csv"],
                                      "--value-weights", files["vw.csv"], "--epsilon", "0", "--alpha", "1",
                                      "--threshold", "2.3", "--format", "json"])
    j = json.loads(out)
    assert len(j["known_sets"]) == 32 and j["records"][3] == {"row": 3, "l_sum": pytest.approx(j["records"][3]["l_sum"]),
                                                              "d": pytest.approx(2.367966, abs=5e-7)}
    assert j["above_threshold"] == 2  # r2 (3.06) and r4 (2.37)


def test_disclosure_risk_table(capsys, files):
    code, out, err = run_cli(capsys, ["disclosure-risk", files["t1.csv"], "--attributes", files["params.csv"],
                                      "--value-weights", files["vw.csv"], "--id-column", "id"])
    assert code == 0, err
    assert "Known sets kept (PK > ε = 0.01): 8" in out and "r4" in out and "2.34557" in out   # spec: 2.34557


@pytest.mark.parametrize("params, extra, fragments", [
    ("attribute,pk,weight\nAge,1.2,0\n", [], ["params.csv, row 2, column 'pk'", "outside [0, 1]"]),
    ("attribute,pk,weight\nAge,0.2,2\n", [], ["row 2, column 'weight'", "outside [0, 1]"]),
    ("attribute,pk,weight\nSalary,0.2,0\n", [], ["row 2, column 'attribute'", "'Salary' is not a column"]),
    ("attribute,pk,weight\nAge,0.2,0\n", ["--epsilon", "-1"], ["ε = -1"]),
    ("attribute,pk,weight\nAge,0.2,0\n", ["--alpha", "0"], ["α = 0"]),
    ("attribute,pk,weight\n" + "".join(f"a{i},0.5,0\n" for i in range(31)), ["--epsilon", "0"],
     ["2,147,483,648 known sets would be enumerated for 31 attributes"]),
])
def test_disclosure_risk_bad_input(capsys, tmp_path, files, params, extra, fragments):
    path = tmp_path / "params.csv"
    path.write_text(params)
    table = files["t1.csv"]
    if "a30" in params:
        table = tmp_path / "wide.csv"
        table.write_text(",".join(f"a{i}" for i in range(31)) + "\n" + ",".join("x" * 31) + "\n")
    err = error_of(capsys, ["disclosure-risk", table, "--attributes", path, *extra])
    for fragment in fragments:
        assert fragment in err


def test_disclosure_risk_value_weight_outside_range(capsys, tmp_path, files):
    path = tmp_path / "vw.csv"
    path.write_text("attribute,value,weight\nDisease,Flu,1.5\n")
    err = error_of(capsys, ["disclosure-risk", files["t1.csv"], "--attributes", files["params.csv"],
                            "--value-weights", path])
    assert "vw.csv, row 2, column 'weight': weight 1.5 is outside [0, 1]" in err


def test_score_with_measures(capsys, tmp_path):
    code, out, _ = run_cli(capsys, ["example", "thesis", "--dir", tmp_path])
    assert code == 0
    argv = ["score", tmp_path / "table_3_1.csv", "--published", tmp_path / "table_3_6.csv", "--id-column", "id",
            "--qi", "Job,City,Gender", "--sa", "Disease,Medication,Age,Initial Diagnosis", "--continuous", "Age",
            "--weights", tmp_path / "weights_table_4_2.csv", "--format", "json", "--measures"]
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    j = json.loads(out)
    assert round(j["scores"]["tkl"], 5) == 4.98258  # the scores are unchanged
    m = j["measures"]
    assert m["rows"] == 4 and m["k"] == 2 and m["classes"]["count"] == 2
    assert m["risk"]["journalist"] is not None and m["risk"]["marketer"] == pytest.approx(0.5)
    assert set(m["t_by_attribute"]) == {"Disease", "Medication", "Age", "Initial Diagnosis"}
    code, out, err = run_cli(capsys, argv[:-3] + ["--format", "table", "--measures"])
    assert code == 0 and "tkl-Score" in out and "k-anonymity" in out


def test_outputs_never_overwrite_an_input(capsys, files):
    """measures and disclosure-risk write through cli/output.py: an --output that is one of
    the inputs is refused, and the input is left as it was."""
    before = files["t1.csv"].read_text()
    err = error_of(capsys, ["measures", files["t1.csv"], "--qi", "Age,Gender", "--sa", "Disease",
                            "--output", files["t1.csv"]])
    assert "t1.csv" in err
    err = error_of(capsys, ["disclosure-risk", files["t1.csv"], "--attributes", files["params.csv"],
                            "--output", files["params.csv"]])
    assert "params.csv" in err
    assert files["t1.csv"].read_text() == before and files["params.csv"].read_text() == PARAMS
