"""``tklscore pia analyze`` / ``tklscore pia generate`` (tklscore.cli.pia)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli as run  # the real `tklscore` entry
from pia_support import EX, RES
from tklscore.core.pia import load_triples

SYN = "http://example.org/pia-synthetic#"
ISA = "urn:tklscore:pia#ISA"


BOB = ["pia", "analyze", "--ontology", RES / "bob_ontology.ttl", "--data", RES / "bob_data.ttl",
       "--rules", RES / "bob.rules", "--labels", RES / "bob_patterns.csv", "--threshold", "Medium"]


def test_bob_json(capsys, tmp_path):
    code, out, err = run(capsys, BOB + ["--format", "json", "--output-data", tmp_path / "released.ttl"])
    assert code == 0, err
    doc = json.loads(out)
    assert list(doc) == ["asserted", "inferred", "violations", "participants", "solutions_evaluated",
                         "solution", "timings_ms"]
    assert doc["asserted"] == 6
    assert isinstance(doc["inferred"], int) and doc["inferred"] > 0
    assert doc["violations"] == [[EX + "Bob", EX + "likelyHas", EX + "Hepatitis-C"]]
    assert doc["participants"] == [[EX + "Bob", EX + "treatedBy", EX + "Leonard"],
                                   [EX + "Leonard", ISA, EX + "Hepatologist"],
                                   [EX + "Bob", EX + "given", EX + "Interferon"]]
    assert doc["solutions_evaluated"] == 63
    assert doc["solution"] == {"alterations": [{"triple": [EX + "Bob", EX + "given", EX + "Interferon"],
                                                "new_object": EX + "Medication", "cost": 0.5}],
                               "cost": 0.5, "impact": None, "valid": True}
    assert set(doc["timings_ms"]) == {"load", "assess", "disruption", "total"}
    assert all(isinstance(v, float) for v in doc["timings_ms"].values())
    released = {tuple(map(str, t)) for t in load_triples(tmp_path / "released.ttl")}
    assert (EX + "Bob", EX + "given", EX + "Medication") in released
    assert (EX + "Bob", EX + "given", EX + "Interferon") not in released
    assert len(released) == 6


def test_bob_text(capsys):
    code, out, err = run(capsys, BOB)
    assert code == 0, err
    assert "violations: 1\n  (Bob, likelyHas, Hepatitis-C) [High]" in out
    assert "solutions evaluated: 63" in out
    assert "(Bob, given, Interferon) → (Bob, given, Medication)  (cost 0.5)" in out


def test_bob_safety_and_limits(capsys, tmp_path):
    safety = tmp_path / "safety.csv"
    safety.write_text("subject,predicate,object,safety\nBob,given,Interferon,3\n")
    code, out, err = run(capsys, BOB + ["--format", "json", "--safety", safety])
    doc = json.loads(out)
    assert code == 0 and doc["solutions_evaluated"] == 15
    assert doc["solution"] == {"alterations": [], "cost": 0.0, "impact": None, "valid": False}
    code, out, err = run(capsys, BOB + ["--max-solutions", "10"])
    assert code == 2 and out == ""
    assert "63 solutions (4^3 − 1 for 3 candidate facts), more than the limit of 10" in err
    prefs = tmp_path / "prefs.csv"
    prefs.write_text("subject,predicate,object,preference\nBob,given,Interferon,3\n")
    code, out, err = run(capsys, BOB + ["--method", "efficient", "--format", "json", "--preferences", prefs])
    assert code == 0, err  # the same JSON shape, with an impact
    doc = json.loads(out)
    assert doc["solution"]["valid"] is True and isinstance(doc["solution"]["impact"], float)
    assert doc["solution"]["cost"] == 0.5
    # the exhaustive method ignores preferences, and says so
    code, out, err = run(capsys, BOB + ["--preferences", prefs])
    assert code == 0 and "preferences are used by the efficient method only" in err


def test_bad_input(capsys, tmp_path):
    prefs = tmp_path / "prefs.csv"
    prefs.write_text("subject,predicate,object,preference\nBob,given,Leonard,2\n")
    code, out, err = run(capsys, BOB + ["--preferences", prefs])
    assert code == 2 and out == ""
    assert f"{prefs}, row 2: preference for (Bob, given, Leonard), which is not a fact of the data" in err
    code, _, err = run(capsys, [*BOB[:-1], "Secretish"])
    assert code == 2 and "'Secretish' is not a label of the order" in err
    code, _, err = run(capsys, [a if a != RES / "bob.rules" else tmp_path / "none.rules" for a in BOB])
    assert code == 2 and "none.rules: rule file not found" in err
    code, _, err = run(capsys, ["pia", "generate", "--patients", "0", "--violations", "1", "--dir", tmp_path])
    assert code == 2 and "must be at least 1" in err


def test_generated_database_json(capsys, tmp_path):
    folder = tmp_path / "gen"
    code, out, err = run(capsys, ["pia", "generate", "--patients", "300", "--violations", "2", "--seed", "4",
                                  "--dir", folder])
    assert code == 0, err
    assert out.split() == [str(folder / n) for n in ("ontology.ttl", "data.ttl", "rules.txt", "labels.csv",
                                                     "threshold.txt")]
    threshold = (folder / "threshold.txt").read_text().strip()
    argv = ["pia", "analyze", "--ontology", folder / "ontology.ttl", "--data", folder / "data.ttl",
            "--rules", folder / "rules.txt", "--labels", folder / "labels.csv", "--threshold", threshold,
            "--format", "json"]
    code, out, err = run(capsys, argv)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["asserted"] == len(load_triples(folder / "data.ttl"))
    assert len(doc["violations"]) == 2
    assert all(v[1] == SYN + "DiagnosedWith" and v[0].endswith(".v") for v in doc["violations"])
    assert len(doc["participants"]) == 6 and doc["solutions_evaluated"] == 4095
    sol = doc["solution"]
    assert sol["valid"] is True and sol["cost"] == 1.0 and sol["impact"] is None
    assert [a["cost"] for a in sol["alterations"]] == [0.5, 0.5]
    assert all(a["triple"] in doc["participants"] for a in sol["alterations"])
    # the default limit refuses 4 violations (10 participants → 1,048,575 solutions)
    run(capsys, ["pia", "generate", "--patients", "50", "--violations", "4", "--dir", tmp_path / "four"])
    four = [a if not str(a).startswith(str(folder)) else tmp_path / "four" / Path(a).name for a in argv]
    code, out, err = run(capsys, four)
    assert code == 2
    assert "1,048,575 solutions (4^10 − 1 for 10 candidate facts), more than the limit of 65,535" in err


def test_usage_errors_go_through_the_main_entry(capsys):
    code, out, err = run(capsys, ["pia", "analyze", "--ontology", RES / "bob_ontology.ttl"])
    assert code == 2 and out == ""
    assert err.startswith("tklscore: error: the following arguments are required: --data, --rules, --labels, "
                          "--threshold")
