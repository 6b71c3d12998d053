"""Defects a new user met on the command line (issue 9 §3), through ``tklscore.cli.main``."""

from __future__ import annotations

import json
import os
import re
import stat

import pytest

from helpers import run_cli

QI = "Job,City,Gender"
SA = "Disease,Medication,Age,Initial Diagnosis"


@pytest.fixture
def ex(tmp_path, capsys):
    code, out, _ = run_cli(capsys, ["example", "thesis", "--dir", tmp_path / "ex"])
    assert code == 0
    return {os.path.basename(p): tmp_path / "ex" / os.path.basename(p) for p in out.split()}


def score_argv(ex, *extra, published=None, weights=None):
    return ["score", ex["table_3_1.csv"], "--published", published or ex["table_3_6.csv"], "--id-column", "id",
            "--qi", QI, "--sa", SA, "--continuous", "Age", "--weights", weights or ex["weights_table_4_2.csv"],
            *extra]


# ----------------------------------------------------------------- output files

def test_output_gets_the_umask_mode_and_an_existing_files_mode(ex, tmp_path, capsys):
    previous = os.umask(0o022)
    try:
        out = tmp_path / "o.json"
        assert run_cli(capsys, score_argv(ex, "--format", "json", "--output", out))[0] == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o644
        out.chmod(0o604)
        assert run_cli(capsys, score_argv(ex, "--format", "csv", "--output", out))[0] == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o604 and out.read_text().startswith("id,k,l,t,")
    finally:
        os.umask(previous)


@pytest.mark.parametrize("which", ["table_3_1.csv", "table_3_6.csv", "weights_table_4_2.csv"])
def test_output_onto_an_input_is_refused(ex, capsys, which):
    before = ex[which].read_bytes()
    code, _, err = run_cli(capsys, score_argv(ex, "--output", ex[which]))
    assert code == 2
    assert f"{ex[which]}: is also an input" in err and "refusing to overwrite it" in err
    assert ex[which].read_bytes() == before


def test_output_through_a_symlink_and_onto_a_read_only_file(ex, tmp_path, capsys):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert run_cli(capsys, score_argv(ex, "--format", "json", "--output", link))[0] == 0
    assert link.is_symlink() and json.loads(target.read_text())["published_rows"] == 4
    target.chmod(0o444)
    code, _, err = run_cli(capsys, score_argv(ex, "--format", "json", "--output", link))
    assert code == 2 and f"{link}: is read-only; refusing to replace it" in err


def test_output_into_a_missing_folder_names_the_given_path(ex, tmp_path, capsys):
    given = tmp_path / "nofolder" / "o.json"
    code, _, err = run_cli(capsys, score_argv(ex, "--output", given))
    assert code == 2
    assert err.startswith(f"tklscore: error: {given}: the folder {tmp_path / 'nofolder'} does not exist")
    assert ".tmp" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ex"]


# ----------------------------------------------------------------- score output

def test_table_with_x_inf_prints_the_m_score_row_once(ex, capsys):
    code, out, _ = run_cli(capsys, score_argv(ex, "--x", "inf"))
    assert code == 0
    assert out.count("M-Score (x = inf)") == 1 and out.count("\nM-Score") == 1
    assert re.search(r"\nM-Score \(x = inf\) +0\.4176 +0\.7143 +0\.4176\n", out)
    code, out, _ = run_cli(capsys, score_argv(ex, "--x", "2"))
    assert re.search(r"\nM-Score \(x = 2\) +0\.8352 +0\.5399 +0\.4176\n", out) and out.count("M-Score (x = inf)") == 1


def test_csv_prints_shortest_round_trip_floats(ex, capsys):
    code, out, _ = run_cli(capsys, score_argv(ex, "--format", "csv"))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "id,k,l,t,weight_sum,tkl,m_score,l_severity"
    assert lines[3] == "5,2,1,0.7142857142857143,0.32544,1.0397257142857144,0.16272,0.16272"
    for line in lines[1:]:
        for cell in line.split(",")[3:]:
            assert cell == repr(float(cell))


# ----------------------------------------------------------------- contradicting published rows

def contradicting(ex, tmp_path):
    text = ex["table_3_6.csv"].read_text().replace("3,Lawyer,Edmonton,Male,HIV,ARV,49,HIV",
                                                    "3,Lawyer,Edmonton,Male,Flu,ARV,50,HIV")
    path = tmp_path / "published.csv"
    path.write_text(text)
    return path


def test_a_published_row_contradicting_the_source_is_warned_about(ex, tmp_path, capsys):
    published = contradicting(ex, tmp_path)
    code, out, err = run_cli(capsys, score_argv(ex, "--format", "json", published=published))
    assert code == 0
    assert json.loads(out)["scores"]["tkl"] == pytest.approx(4.98258, abs=5e-6)  # the source's values
    assert ("tklscore: warning: 1 published record(s) hold sensitive values that contradict the source record "
            "with the same id, and are scored with the source's values: id '3' (row 2): Disease 'Flu' "
            "(source 'HIV'), Age '50' (source '49')") in err


def test_strict_refuses_a_published_row_contradicting_the_source(ex, tmp_path, capsys):
    published = contradicting(ex, tmp_path)
    code, out, err = run_cli(capsys, score_argv(ex, "--strict", published=published))
    assert code == 2 and out == ""
    assert err.startswith(f"tklscore: error: {published}: 1 published record(s) hold sensitive values")
    code, _, err = run_cli(capsys, score_argv(ex, "--strict"))
    assert code == 0 and "contradict" not in err


# ----------------------------------------------------------------- missing weights

def test_missing_weights_of_a_column_with_interval_weights_hint_at_continuous(ex, capsys):
    argv = score_argv(ex)
    argv[argv.index("--continuous"):argv.index("--continuous") + 2] = []
    code, _, err = run_cli(capsys, argv)
    assert code == 2
    assert "6 sensitive value(s) have no weight: ('Age', '27'), ('Age', '19')" in err
    assert ("the weights file gives intervals such as [0,30) for 'Age', which apply to a continuous column "
            "only: add --continuous Age") in err
    code, _, err = run_cli(capsys, score_argv(ex, weights=ex["weights_table_4_2.csv"]).__add__([]))
    assert code == 0


def test_missing_categorical_weights_keep_the_plain_hint(ex, tmp_path, capsys):
    weights = tmp_path / "w.csv"
    weights.write_text("\n".join(l for l in ex["weights_table_4_2.csv"].read_text().splitlines()
                                 if not l.startswith("Disease,Flu")) + "\n")
    code, _, err = run_cli(capsys, score_argv(ex, weights=weights))
    assert code == 2 and "('Disease', 'Flu')" in err and "--missing-weight-zero" in err
    assert "--continuous" not in err


# ----------------------------------------------------------------- pia and ahp

def pia_bob(tmp_path):
    from pia_support import RES

    return ["pia", "analyze", "--ontology", RES / "bob_ontology.ttl", "--data", RES / "bob_data.ttl",
            "--rules", RES / "bob.rules", "--labels", RES / "bob_patterns.csv"]


def test_pia_generate_help_explains_every_option(capsys):
    code, out, _ = run_cli(capsys, ["pia", "generate", "--help"])
    assert code == 0
    for option, words in [("--patients N", "number of patients"), ("--violations V", "number of privacy violations"),
                          ("--seed S", "random seed"), ("--dir DIR", "folder to write to")]:
        line = next(l for l in out.splitlines() if l.strip().startswith(option))
        assert words in line or words in out.split(option, 1)[1].split("\n  --", 1)[0], (option, out)


@pytest.mark.parametrize("threshold", ["Secret", "--format"])
def test_pia_threshold_that_is_not_a_label(tmp_path, capsys, threshold):
    code, out, err = run_cli(capsys, pia_bob(tmp_path) + [f"--threshold={threshold}"])
    assert code == 2 and out == ""
    assert err.startswith(f"tklscore: error: the threshold '{threshold}' is not a label of the order "
                          "Public < Low < Medium < High")
    assert "column" not in err


def test_pia_threshold_missing_its_value_is_a_usage_error(tmp_path, capsys):
    code, _, err = run_cli(capsys, pia_bob(tmp_path) + ["--threshold", "--format", "json"])
    assert code == 2 and "argument --threshold: expected one argument" in err


def test_pia_output_data_onto_an_input_is_refused(tmp_path, capsys):
    data = tmp_path / "data.ttl"
    from pia_support import RES

    data.write_bytes((RES / "bob_data.ttl").read_bytes())
    argv = pia_bob(tmp_path)
    argv[argv.index("--data") + 1] = data
    code, _, err = run_cli(capsys, argv + ["--threshold", "Medium", "--output-data", data])
    assert code == 2 and f"{data}: is also an input" in err
    assert data.read_bytes() == (RES / "bob_data.ttl").read_bytes()


def test_ahp_never_suggests_the_value_already_set(tmp_path, capsys):
    matrix = tmp_path / "m.csv"
    matrix.write_text(",Health,HealthRecord,Prescription\nHealth,1,2,3\nHealthRecord,,1,2\nPrescription,,,1\n")
    code, out, _ = run_cli(capsys, ["ahp", matrix])
    assert code == 0
    assert ("Most inconsistent judgement: Health vs HealthRecord = 2; the priorities imply 1.82, no value of "
            "the scale is closer, so there is nothing to change") in out
    matrix.write_text(",A,B,C,D\nA,1,2,1/4,1/8\nB,,1,2,4\nC,,,1,2\nD,,,,1\n")
    code, out, _ = run_cli(capsys, ["ahp", matrix])
    assert "Most inconsistent judgement: A vs B = 2; the priorities imply 0.45, suggested 1/2" in out


def test_pia_refuses_a_mapping_that_is_not_monotone_naming_both_lines(tmp_path, capsys):
    from pia_support import RES

    labels = tmp_path / "labels.csv"
    labels.write_text((RES / "bob_patterns.csv").read_text().rstrip("\n") + "\n*,diagnosedWith,Hepatitis-C,Public\n")
    lines = labels.read_text().splitlines()
    broad = next(i for i, l in enumerate(lines, 1) if l.startswith("*,diagnosedWith,*,"))
    argv = pia_bob(tmp_path)
    argv[argv.index("--labels") + 1] = labels
    code, out, err = run_cli(capsys, argv + ["--threshold", "Medium"])
    assert code == 2 and out == ""
    assert err.startswith(f"tklscore: error: {labels}: the privacy mapping is not monotone: "
                          f"(*, diagnosedWith, Hepatitis-C) → Public [{labels}, row {len(lines)}] is contained in "
                          f"(*, diagnosedWith, *) → Low [{labels}, row {broad}] but its label is not at least as high")


# ----------------------------------------------------------------- tkl-Data Model

def test_a_model_with_a_subclassof_cycle_is_refused(ex, tmp_path, capsys):
    text = ex["model.ttl"].read_text()
    start = text.index("t:A.Disease a dso:DiscreteAttribute")
    cyclic = text[:start] + text[start:].replace("rdfs:subClassOf <http://www.w3.org/ns/dpv#Health>",
                                                 "rdfs:subClassOf t:E.Viral", 1)
    model = tmp_path / "cyclic.ttl"
    model.write_text(cyclic)
    expected = (f"tklscore: error: {model}: the rdfs:subClassOf links form a cycle: 'A.Disease' → 'E.Viral' → "
                f"'A.Disease' (every node must lead up to the root; remove one of these links)")
    code, _, err = run_cli(capsys, ["model", "weights", model])
    assert code == 2 and err.strip() == expected
    argv = score_argv(ex)
    argv[argv.index("--weights"):argv.index("--weights") + 2] = ["--model", model]
    code, _, err = run_cli(capsys, argv)
    assert code == 2 and err.strip() == expected


# ----------------------------------------------------------------- fuzzing as a new user

def test_odd_files_into_score_and_example(ex, tmp_path, capsys):
    a_file = tmp_path / "afile"
    a_file.write_text("hi\n")
    code, _, err = run_cli(capsys, ["example", "thesis", "--dir", a_file])
    assert code == 2 and err.strip() == f"tklscore: error: {a_file}: is a file, not a folder"
    code, _, err = run_cli(capsys, ["pia", "generate", "--patients", "1", "--violations", "0", "--dir", a_file])
    assert code == 2 and err.strip() == f"tklscore: error: {a_file}: is a file, not a folder"
    code, _, err = run_cli(capsys, score_argv(ex, weights=ex["model.ttl"]))
    assert code == 2 and "expected attribute,value,weight (this looks like RDF: give a tkl-Data Model with --model)" in err
    empty = tmp_path / "empty.csv"
    empty.write_text(ex["table_3_6.csv"].read_text().splitlines()[0] + "\n")
    code, _, err = run_cli(capsys, score_argv(ex, published=empty))
    assert code == 2 and err.strip().startswith(f"tklscore: error: {empty}: the published table has no records")
    fake = tmp_path / "source.xlsx"
    fake.write_text("not a workbook")
    argv = score_argv(ex)
    argv[1] = fake
    code, _, err = run_cli(capsys, argv)
    assert code == 2 and err.strip().startswith(f"tklscore: error: {fake}: is not an Excel workbook")


# ----------------------------------------------------------------- numeric options

def test_numeric_options_are_read_as_numbers_beside_the_number_formatter(ex, tmp_path, capsys):
    """disclosure-risk and measures import the formatter ``core.numbers.number`` beside the
    argument type ``cli.arguments.number``: the option must still be read as a number."""
    params = tmp_path / "params.csv"
    params.write_text("attribute,pk,weight\nCity,0.5,0.4\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, ["disclosure-risk", ex["table_3_1.csv"], "--attributes", params,
                                    "--alpha", "0.5", "--epsilon", "0.1", "--threshold", "0.25"])
    assert code == 0
    assert "Known sets kept (PK > ε = 0.1): 2" in out and "α = 0.5; records with D > 0.25: 0 (0 %)" in out
    code, out, _ = run_cli(capsys, ["measures", ex["table_3_1.csv"], "--qi", "City", "--risk-threshold", "0.25",
                                    "--sampling-fraction", "0.5"])
    assert code == 0
    assert "(at risk: share of records whose risk exceeds 25 %)" in out
    assert run_cli(capsys, ["measures", ex["table_3_1.csv"], "--qi", "City", "--risk-threshold", "nan"])[0] != 0
