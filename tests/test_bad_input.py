"""Bad input: every case gives an actionable message (file, row, column, what is wrong)
through the CLI (exit status 2, ``tklscore: error:`` on stderr, no traceback) and, where
natural, an :class:`InputError` through the library. Empty cells in categorical
columns are not an error: they are a value of their own (README, "Missing values")."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers import run_cli
from tklscore.cli import main
from tklscore.core import (InputError, MissingWeightsError, Roles, Scorer, Weights, load_table,
                           load_weights, locate_by_ids, locate_table)

THESIS_QI = "Job,City,Gender"
THESIS_SA = "Disease,Medication,Age,Initial Diagnosis"

SMALL_WEIGHTS = "attribute,value,weight\nDisease,Flu,0.1\nDisease,HIV,0.4\n"


# --------------------------------------------------------------------------- helpers

def assert_cli_error(capsys, argv, *fragments: str) -> str:
    """Exit status 2, one ``tklscore: error:`` message containing every fragment, no traceback."""
    code, out, err = run_cli(capsys, argv)
    assert code == 2, (code, out, err)
    assert err.startswith("tklscore: error: "), err
    assert "Traceback" not in err and "Traceback" not in out
    assert "internal error" not in err
    for fragment in fragments:
        assert fragment in err, f"{fragment!r} not in {err!r}"
    return err


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_bytes(text.encode(encoding))
    return path


@pytest.fixture
def thesis(data_dir):
    """Paths of the thesis source table and the Table 4.2 weights (read-only)."""
    return data_dir / "thesis_table_3_1.csv", data_dir / "thesis_table_4_2_weights.csv"


def thesis_argv(source, weights, *extra) -> list[str]:
    return ["score", source, "--rows", "3,4", "--id-column", "id", "--qi", THESIS_QI,
            "--sa", THESIS_SA, "--continuous", "Age", "--weights", weights, *extra]


def thesis_with(tmp_path: Path, data_dir: Path, row: int, column: str, value: str) -> Path:
    """A copy of Table 3.1 in tmp_path with one cell changed (``row``: 0-based record)."""
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    frame.loc[row, column] = value
    path = tmp_path / "source.csv"
    frame.to_csv(path, index=False)
    return path


def small_source(tmp_path: Path) -> Path:
    return write(tmp_path / "small.csv", "id,Job,Disease\n0,Lawyer,Flu\n1,Lawyer,HIV\n2,Nurse,Flu\n")


# --------------------------------------------------------------------------- roles / columns

@pytest.mark.parametrize("role", ["qi", "sa", "id"])
def test_missing_column(capsys, tmp_path, thesis, role):
    source, weights = thesis
    qi, sa, ident = "Job,Town", "Disease", "id"
    if role == "sa":
        qi, sa = "Job", "Disease,Illness"
    elif role == "id":
        qi, ident = "Job", "record_no"
    missing = {"qi": "Town", "sa": "Illness", "id": "record_no"}[role]
    err = assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", ident, "--qi", qi,
                                    "--sa", sa, "--weights", weights],
                           str(source), f"'{missing}' not found", "'Initial Diagnosis'")
    assert "'Job'" in err  # the message lists the columns the table does have
    with pytest.raises(InputError, match=re.escape(f"'{missing}' not found")):
        Scorer(load_table(source), Roles(qi=qi.split(","), sa=sa.split(","), identifier=ident))


@pytest.mark.parametrize("qi,sa,ident,column,roles", [
    ("Job,City", "Disease,City", "id", "City", "quasi-identifier and sensitive"),
    ("Job,id", "Disease", "id", "id", "quasi-identifier and identifier"),
])
def test_column_with_two_roles(capsys, thesis, qi, sa, ident, column, roles):
    source, weights = thesis
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", ident, "--qi", qi,
                              "--sa", sa, "--weights", weights],
                     f"column '{column}'", f"has two roles ({roles})")
    with pytest.raises(InputError, match=re.escape(f"column '{column}': has two roles ({roles})")):
        Roles(qi=qi.split(","), sa=sa.split(","), identifier=ident)


def test_column_named_twice_in_one_role(capsys, thesis):
    source, weights = thesis
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--qi", "Job,Job", "--sa", "Disease",
                              "--weights", weights], "column 'Job'", "named twice as quasi-identifier")


def test_continuous_column_that_is_not_sensitive(capsys, thesis):
    source, weights = thesis
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", THESIS_QI,
                              "--sa", "Disease", "--continuous", "Age", "--weights", weights],
                     "column 'Age'", "declared continuous but not sensitive")
    with pytest.raises(InputError, match="column 'Age': declared continuous but not sensitive"):
        Roles(qi=["Job"], sa=["Disease"], continuous=["Age"])


# --------------------------------------------------------------------------- continuous SAs

def test_continuous_sa_with_text(capsys, tmp_path, data_dir):
    # record 3 is row 5 (header = row 1); a second bad cell further down is only counted
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    frame.loc[3, "Age"] = "forty-nine"
    frame.loc[5, "Age"] = "n/a"
    source = tmp_path / "source.csv"
    frame.to_csv(source, index=False)
    weights = data_dir / "thesis_table_4_2_weights.csv"
    assert_cli_error(capsys, thesis_argv(source, weights),
                     f"{source}, row 5, column 'Age'", "'forty-nine'", "not a number",
                     "2 such cell(s)")
    with pytest.raises(InputError, match=r"row 5, column 'Age'.*'forty-nine', which is not a number"):
        Scorer(load_table(source), Roles(qi=["Job"], sa=["Age"], continuous=["Age"]))


def test_continuous_sa_with_categorical_column(capsys, thesis):
    source, weights = thesis
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", THESIS_QI,
                              "--sa", "Disease", "--continuous", "Disease", "--weights", weights],
                     f"{source}, row 2, column 'Disease'", "'H1N1'", "not a number")


def test_empty_cell_in_continuous_sa(capsys, tmp_path, data_dir):
    source = thesis_with(tmp_path, data_dir, 1, "Age", "")
    weights = data_dir / "thesis_table_4_2_weights.csv"
    assert_cli_error(capsys, thesis_argv(source, weights),
                     f"{source}, row 3, column 'Age'", "an empty cell", "not a number")
    with pytest.raises(InputError, match=r"row 3, column 'Age'.*an empty cell"):
        Scorer(load_table(source), Roles(qi=["Job"], sa=["Age"], continuous=["Age"]))


# --------------------------------------------------------------------------- empty categorical cells

EMPTY_CELLS = "id,Job,Disease\n0,Lawyer,Flu\n1,,Flu\n2,,HIV\n3,Doctor,\n4,Doctor,Flu\n"
# Job: Lawyer | '' '' | Doctor Doctor  ->  k = 1, 2, 2, 2, 2
# Disease in the classes: {Flu} | {Flu, HIV} | {'', Flu}  ->  l = 1, 2, 2, 2, 2
# the table: Flu 3/5, HIV 1/5, '' 1/5  ->  t = 0.4, 0.3, 0.3, 0.3, 0.3
EXPECTED_K = [1, 2, 2, 2, 2]
EXPECTED_L = [1, 2, 2, 2, 2]
EXPECTED_T = [0.4, 0.3, 0.3, 0.3, 0.3]
EMPTY_WEIGHTS = "attribute,value,weight\nDisease,Flu,0.1\nDisease,HIV,0.4\nDisease,,0.2\n"
EXPECTED_W = [0.1, 0.1, 0.4, 0.2, 0.1]


def _empty_cells_source(tmp_path: Path, kind: str) -> Path:
    if kind == "csv":
        return write(tmp_path / "empty_cells.csv", EMPTY_CELLS)
    frame = pd.DataFrame({"id": ["0", "1", "2", "3", "4"],
                          "Job": ["Lawyer", None, np.nan, "Doctor", "Doctor"],
                          "Disease": ["Flu", "Flu", "HIV", None, "Flu"]})
    path = tmp_path / "empty_cells.parquet"
    frame.to_parquet(path, index=False)
    return path


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_empty_cells_in_categorical_columns_are_a_value(capsys, tmp_path, kind):
    source = _empty_cells_source(tmp_path, kind)
    weights = write(tmp_path / "w.csv", EMPTY_WEIGHTS)
    code, out, err = run_cli(capsys, ["score", source, "--rows", "0,1,2,3,4", "--id-column", "id",
                                      "--qi", "Job", "--sa", "Disease", "--weights", weights,
                                      "--format", "json"])
    assert code == 0, err
    assert "error" not in err and "Traceback" not in err
    assert "warning: column 'Job' has 2 empty cell(s)" in err
    assert "warning: column 'Disease' has 1 empty cell(s)" in err
    records = json.loads(out)["records"]
    assert [r["k"] for r in records] == EXPECTED_K
    assert [r["l"] for r in records] == EXPECTED_L
    assert [r["t"] for r in records] == pytest.approx(EXPECTED_T, abs=1e-12)
    assert [r["weight_sum"] for r in records] == pytest.approx(EXPECTED_W, abs=1e-12)

    scorer = Scorer(load_table(source), Roles(qi=["Job"], sa=["Disease"], identifier="id"))
    report = scorer.score(np.arange(5), load_weights(weights))
    assert report.records["k"].tolist() == EXPECTED_K
    assert report.records["l"].tolist() == EXPECTED_L
    assert any("'Job' has 2 empty cell(s)" in w for w in report.warnings)
    assert any("'Disease' has 1 empty cell(s)" in w for w in report.warnings)


def test_empty_value_needs_a_weight_like_any_other(capsys, tmp_path):
    source = write(tmp_path / "empty_cells.csv", EMPTY_CELLS)
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS)
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     str(weights), "1 sensitive value(s) have no weight", "('Disease', '')")


def test_empty_identifier(capsys, tmp_path):
    source = write(tmp_path / "s.csv", "id,Job,Disease\n0,Lawyer,Flu\n,Nurse,HIV\n")
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS)
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     f"{source}, row 3, column 'id'", "identifier is empty")


# --------------------------------------------------------------------------- published records

def test_published_ids_not_in_source(capsys, thesis):
    source, weights = thesis
    assert_cli_error(capsys, thesis_argv(source, weights)[:2] + ["--rows", "0,99,77"]
                     + thesis_argv(source, weights)[4:],
                     "--rows", "2 published record(s) cannot be located", "id '99'", "id '77'")
    release = locate_by_ids(load_table(source), ["0", "99", "77"], "id")
    assert release.unlocated == ["id '99'", "id '77'"]
    assert release.positions.tolist() == [0]
    with pytest.raises(InputError, match=r"2 published record\(s\) cannot be located.*id '99'; id '77'"):
        release.require_all_located()


def test_published_file_ids_not_in_source(capsys, tmp_path, thesis):
    source, weights = thesis
    published = write(tmp_path / "published.csv",
                      open(source, encoding="utf-8").read().splitlines()[0] + "\n"
                      "3,Lawyer,Edmonton,Male,HIV,ARV,49,HIV\n"
                      "12,Lawyer,Edmonton,Male,HIV,ARV,49,HIV\n")
    argv = ["score", source, "--published", published, "--id-column", "id", "--qi", THESIS_QI,
            "--sa", THESIS_SA, "--continuous", "Age", "--weights", weights, "--format", "json"]
    assert_cli_error(capsys, argv, str(published), "1 published record(s) cannot be located", "id '12'")
    # --skip-unlocated scores the rest and warns
    code, out, err = run_cli(capsys, argv + ["--skip-unlocated"])
    assert code == 0, err
    assert "warning: 1 published record(s) could not be located" in err and "id '12'" in err
    report = json.loads(out)
    assert report["published_rows"] == 1 and [r["id"] for r in report["records"]] == ["3"]


def test_published_id_listed_twice(capsys, thesis):
    source, weights = thesis
    argv = thesis_argv(source, weights)
    argv[3] = "3,4,3"
    assert_cli_error(capsys, argv, "--rows", "id '3' is listed more than once")


def test_published_rows_not_in_source_without_id_column(capsys, tmp_path):
    # the source holds (Lawyer, Flu) twice; the published table three times -> its third
    # occurrence (row 4) is not in the source, and neither is (Doctor, HIV) (row 6)
    source = write(tmp_path / "s.csv", "Job,Disease\nLawyer,Flu\nLawyer,Flu\nNurse,HIV\n")
    published = write(tmp_path / "p.csv",
                      "Job,Disease\nLawyer,Flu\nLawyer,Flu\nLawyer,Flu\nNurse,HIV\nDoctor,HIV\n")
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS)
    assert_cli_error(capsys, ["score", source, "--published", published, "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     str(published), "2 published record(s) cannot be located", "row 4; row 6")
    release = locate_table(load_table(source), load_table(published))
    assert release.unlocated == ["row 4", "row 6"]
    assert sorted(release.positions.tolist()) == [0, 1, 2]


def test_published_table_with_a_column_the_source_lacks(capsys, tmp_path):
    source = write(tmp_path / "s.csv", "Job,Disease\nLawyer,Flu\nNurse,HIV\n")
    published = write(tmp_path / "p.csv", "Job,Disease,Note\nLawyer,Flu,x\n")
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS)
    assert_cli_error(capsys, ["score", source, "--published", published, "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     str(published), "'Note'", "not in the source")


def test_duplicate_ids_in_source(capsys, tmp_path):
    source = write(tmp_path / "s.csv",
                   "id,Job,Disease\n7,Lawyer,Flu\n8,Nurse,HIV\n7,Nurse,Flu\n9,Nurse,Flu\n9,Lawyer,HIV\n")
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS)
    assert_cli_error(capsys, ["score", source, "--rows", "8", "--id-column", "id", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     f"{source}, column 'id'", "identifier '7' appears 2 times (rows 2, 4)",
                     "2 id(s) are duplicated")
    with pytest.raises(InputError, match=r"identifier '7' appears 2 times"):
        Scorer(load_table(source), Roles(qi=["Job"], sa=["Disease"], identifier="id"))


# --------------------------------------------------------------------------- empty / malformed files

def test_empty_source_header_only(capsys, tmp_path):
    source = write(tmp_path / "s.csv", "id,Job,Disease\n")
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS)
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     str(source), "the source table has no records")
    with pytest.raises(InputError, match="the source table has no records"):
        Scorer(load_table(source), Roles(qi=["Job"], sa=["Disease"]))


@pytest.mark.parametrize("content", ["", "\n\n", "   \r\n"])
def test_completely_empty_file(capsys, tmp_path, content):
    source = write(tmp_path / "s.csv", content)
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS)
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--qi", "Job", "--sa", "Disease",
                              "--weights", weights], f"{source}: the file is empty")
    with pytest.raises(InputError, match="the file is empty"):
        load_table(source)


def test_empty_published_file(capsys, tmp_path):
    source = small_source(tmp_path)
    published = write(tmp_path / "p.csv", "")
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS)
    assert_cli_error(capsys, ["score", source, "--published", published, "--qi", "Job",
                              "--sa", "Disease", "--weights", weights], f"{published}: the file is empty")


@pytest.mark.parametrize("text,row,fields", [
    ("id,Job,Disease\n0,Lawyer,Flu\n1,Nurse,HIV,extra\n2,Doctor,Flu\n", 3, 4),   # one field too many
    ("id,Job,Disease\n0,Lawyer,Flu\n1,Nurse,HIV\n2,Doctor\n", 4, 2),             # one field short
    ("id,Job,Disease\n0,Lawyer,Flu,extra\n1,Nurse,HIV\n2,Doctor,Flu\n", 2, 4),   # first record too long
    ("id,Job,Disease\n0,Lawyer,Flu,x\n1,Nurse,HIV,y\n", 2, 4),                   # every record too long
])
def test_ragged_rows(capsys, tmp_path, text, row, fields):
    source = write(tmp_path / "s.csv", text)
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS + "Disease,,0\n")
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     f"{source}, row {row}:", f"has {fields} field(s) but the header has 3")
    with pytest.raises(InputError, match=rf"row {row}: has {fields} field\(s\) but the header has 3"):
        load_table(source)


def test_trailing_empty_cells_are_not_ragged(tmp_path):
    # an empty last cell written with its delimiter is a value, not a missing field
    table = load_table(write(tmp_path / "s.csv", "id,Job,Disease\n0,Lawyer,\n1,Nurse,HIV\n"))
    assert table.frame["Disease"].tolist() == ["", "HIV"]


@pytest.mark.parametrize("which", ["source", "published", "weights"])
def test_nonexistent_file(capsys, tmp_path, which):
    source, published, weights = small_source(tmp_path), tmp_path / "p.csv", write(tmp_path / "w.csv",
                                                                                    SMALL_WEIGHTS)
    write(published, "id,Job,Disease\n0,Lawyer,Flu\n")
    missing = tmp_path / "no_such_file.csv"
    paths = {"source": source, "published": published, "weights": weights, which: missing}
    err = assert_cli_error(capsys, ["score", paths["source"], "--published", paths["published"],
                                    "--id-column", "id", "--qi", "Job", "--sa", "Disease",
                                    "--weights", paths["weights"]], str(missing), "not found")
    assert err.count("\n") == 1
    loader = load_weights if which == "weights" else load_table
    with pytest.raises(InputError, match="not found"):
        loader(missing)


@pytest.mark.parametrize("which", ["source", "published", "weights"])
def test_directory_instead_of_file(capsys, tmp_path, which):
    source, published, weights = small_source(tmp_path), tmp_path / "p.csv", write(tmp_path / "w.csv",
                                                                                    SMALL_WEIGHTS)
    write(published, "id,Job,Disease\n0,Lawyer,Flu\n")
    folder = tmp_path / "a_folder.csv"
    folder.mkdir()
    paths = {"source": source, "published": published, "weights": weights, which: folder}
    assert_cli_error(capsys, ["score", paths["source"], "--published", paths["published"],
                              "--id-column", "id", "--qi", "Job", "--sa", "Disease",
                              "--weights", paths["weights"]], str(folder), "is a folder")
    loader = load_weights if which == "weights" else load_table
    with pytest.raises(InputError, match="is a folder"):
        loader(folder)


def test_duplicate_column_names_in_header(capsys, tmp_path):
    source = write(tmp_path / "s.csv", "id,Job,Disease,Job\n0,Lawyer,Flu,Nurse\n")
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS)
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--qi", "Job", "--sa", "Disease",
                              "--weights", weights],
                     f"{source}, row 1:", "column name 'Job' appears twice in the header (columns 2 and 4)")
    with pytest.raises(InputError, match="'Job' appears twice"):
        load_table(source)


def test_header_column_without_name(capsys, tmp_path):
    source = write(tmp_path / "s.csv", "id,,Disease\n0,Lawyer,Flu\n")
    with pytest.raises(InputError, match=r"row 1: column 2 of the header has no name"):
        load_table(source)


# --------------------------------------------------------------------------- weights files

def _score_small(capsys, tmp_path, weights_text: str, *extra):
    source = small_source(tmp_path)
    weights = write(tmp_path / "weights.csv", weights_text)
    return weights, run_cli(capsys, ["score", source, "--rows", "0,1,2", "--id-column", "id", "--qi", "Job",
                                     "--sa", "Disease", "--weights", weights, "--format", "json", *extra])


@pytest.mark.parametrize("raw", ["abc", "0,5", "", "nan", "inf"])
def test_weights_file_with_a_bad_number(capsys, tmp_path, raw):
    text = f'attribute,value,weight\nDisease,Flu,0.1\nDisease,HIV,"{raw}"\n'
    weights = write(tmp_path / "weights.csv", text)
    assert_cli_error(capsys, ["score", small_source(tmp_path), "--rows", "0", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     f"{weights}, row 3, column 'weight'", "is not a number")
    with pytest.raises(InputError, match=r"row 3, column 'weight': weight .* is not a number"):
        load_weights(weights)


@pytest.mark.parametrize("raw", ["1.5", "1.0000001", "-0.2", "-1e-9"])
def test_weight_outside_0_1(capsys, tmp_path, raw):
    weights = write(tmp_path / "weights.csv", f"attribute,value,weight\nDisease,Flu,0.1\nDisease,HIV,{raw}\n")
    assert_cli_error(capsys, ["score", small_source(tmp_path), "--rows", "0", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     f"{weights}, row 3, column 'weight'", "is outside [0, 1]")
    with pytest.raises(InputError, match=re.escape("is outside [0, 1]")):
        load_weights(weights)
    with pytest.raises(InputError, match=re.escape("is outside [0, 1]")):
        Weights([("Disease", "HIV", float(raw))])


def test_weights_bounds_are_allowed(capsys, tmp_path):
    _, (code, out, err) = _score_small(capsys, tmp_path,
                                       "attribute,value,weight\nDisease,Flu,0\nDisease,HIV,1\n")
    assert code == 0, err
    assert [r["weight_sum"] for r in json.loads(out)["records"]] == [0.0, 1.0, 0.0]


@pytest.mark.parametrize("header,lacks", [("attribute,weight", "value"), ("attr,value,weight", "attribute"),
                                          ("attribute,value", "weight")])
def test_weights_file_missing_a_column(capsys, tmp_path, header, lacks):
    weights = write(tmp_path / "weights.csv", header + "\nDisease,0.1\n")
    assert_cli_error(capsys, ["score", small_source(tmp_path), "--rows", "0", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     f"{weights}, row 1", f"lacks column(s) {lacks}")
    with pytest.raises(InputError, match=rf"lacks column\(s\) {lacks}"):
        load_weights(weights)


def test_weights_row_too_short(capsys, tmp_path):
    weights = write(tmp_path / "weights.csv", "attribute,value,weight\nDisease,Flu,0.1\nDisease,HIV\n")
    assert_cli_error(capsys, ["score", small_source(tmp_path), "--rows", "0", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     f"{weights}, row 3", "has 2 field(s)")


def test_empty_weights_file(capsys, tmp_path):
    weights = write(tmp_path / "weights.csv", "")
    assert_cli_error(capsys, ["score", small_source(tmp_path), "--rows", "0", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights], str(weights), "empty")


def test_value_with_two_weights(capsys, tmp_path):
    weights = write(tmp_path / "weights.csv",
                    "attribute,value,weight\nDisease,Flu,0.1\nDisease,HIV,0.4\nDisease,Flu,0.3\n")
    assert_cli_error(capsys, ["score", small_source(tmp_path), "--rows", "0", "--qi", "Job",
                              "--sa", "Disease", "--weights", weights],
                     f"{weights}, row 4", "('Disease', 'Flu') has two weights", "(row 2)")


MISSING_SOURCE = ("id,Job,Disease,Medication\n0,Lawyer,Flu,Tamiflu\n1,Lawyer,HIV,ARV\n"
                  "2,Nurse,Flu,Rest\n3,Nurse,Cold,Rest\n")
MISSING_PAIRS = [("Disease", "Cold"), ("Medication", "Tamiflu"), ("Medication", "ARV"), ("Medication", "Rest")]


def test_missing_weights_listed_pair_by_pair(capsys, tmp_path):
    source = write(tmp_path / "s.csv", MISSING_SOURCE)
    # Medication has no weight at all, Disease lacks Cold; Unrelated is not sensitive (ignored)
    weights = write(tmp_path / "w.csv", SMALL_WEIGHTS + "Unrelated,x,0.5\n")
    argv = ["score", source, "--rows", "0,1", "--id-column", "id", "--qi", "Job",
            "--sa", "Disease,Medication", "--weights", weights, "--format", "json"]
    err = assert_cli_error(capsys, argv, str(weights), "4 sensitive value(s) have no weight",
                           "--missing-weight-zero")
    for attribute, value in MISSING_PAIRS:
        assert f"({attribute!r}, {value!r})" in err
    assert "Unrelated" not in err

    scorer = Scorer(load_table(source), Roles(qi=["Job"], sa=["Disease", "Medication"], identifier="id"))
    with pytest.raises(MissingWeightsError) as info:
        scorer.score(np.arange(2), load_weights(weights))
    assert sorted(info.value.pairs) == sorted(MISSING_PAIRS)

    # --missing-weight-zero: scored with those weights as 0, and a warning lists them
    code, out, err = run_cli(capsys, argv + ["--missing-weight-zero"])
    assert code == 0, err
    assert "warning: 4 sensitive value(s) have no weight and count as 0" in err
    for attribute, value in MISSING_PAIRS:
        assert f"({attribute!r}, {value!r})" in err
    records = json.loads(out)["records"]
    assert [r["weight_sum"] for r in records] == pytest.approx([0.1, 0.4], abs=1e-15)
    report = scorer.score(np.arange(4), load_weights(weights), missing_weight_zero=True)
    assert report.records["weight_sum"].tolist() == pytest.approx([0.1, 0.4, 0.1, 0.0], abs=1e-15)


def test_missing_weights_of_a_continuous_attribute(capsys, thesis, tmp_path):
    source, _ = thesis
    # Age 70 falls in no interval: [0,30) and [30,60) only
    weights = write(tmp_path / "w.csv", 'attribute,value,weight\nAge,"[0,30)",0.1\nAge,"[30,60)",0.2\n')
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", THESIS_QI,
                              "--sa", "Age", "--continuous", "Age", "--weights", weights],
                     "1 sensitive value(s) have no weight", "('Age', '70')")


@pytest.mark.parametrize("intervals,first,second", [
    (['"[0,30)"', '"[20,50)"'], "[0,30) (row 2)", "[20,50)"),
    (['"[0,30]"', '"[30,inf)"'], "[0,30] (row 2)", "[30,inf)"),       # share the point 30
    (['"[0,100)"', "49"], "[0,100) (row 2)", "[49,49]"),               # a single number inside
])
def test_overlapping_intervals(capsys, thesis, tmp_path, intervals, first, second):
    source, _ = thesis
    weights = write(tmp_path / "w.csv", "attribute,value,weight\n"
                    + "".join(f"Age,{v},0.1\n" for v in intervals))
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", THESIS_QI,
                              "--sa", "Age", "--continuous", "Age", "--weights", weights],
                     f"{weights}, row 3, column 'value'", f"intervals {first} and {second}", "overlap")


def test_touching_intervals_do_not_overlap(capsys, thesis, tmp_path):
    source, _ = thesis
    weights = write(tmp_path / "w.csv", 'attribute,value,weight\nAge,"[0,30)",0.1\nAge,"[30,inf)",0.2\n')
    code, out, err = run_cli(capsys, ["score", source, "--rows", "0,3", "--id-column", "id", "--qi", THESIS_QI,
                                      "--sa", "Age", "--continuous", "Age", "--weights", weights,
                                      "--format", "json"])
    assert code == 0, err
    assert [r["weight_sum"] for r in json.loads(out)["records"]] == [0.1, 0.2]


@pytest.mark.parametrize("value", ["young", "[30,20)", "(5,5)", "[0,30", "inf"])
def test_non_interval_value_for_continuous_attribute(capsys, thesis, tmp_path, value):
    source, _ = thesis
    weights = write(tmp_path / "w.csv", f'attribute,value,weight\nAge,"[0,1)",0.1\nAge,"{value}",0.1\n')
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", THESIS_QI,
                              "--sa", "Age", "--continuous", "Age", "--weights", weights],
                     f"{weights}, row 3, column 'value'", f"'{value}' is not an interval", "'Age' is continuous")


# --------------------------------------------------------------------------- x

@pytest.mark.parametrize("x", ["0.5", "0", "-3", "nan", "abc"])
def test_x_below_one(capsys, thesis, x):
    source, weights = thesis
    code, out, err = run_cli(capsys, thesis_argv(source, weights, "--x", x))
    assert code == 2
    assert "Traceback" not in err
    assert "--x" in err and ("at least 1" in err or "not a number" in err), err
    if x not in ("abc",):
        scorer = Scorer(load_table(source), Roles(qi=["Job"], sa=["Disease"]))
        weights_ = load_weights(weights)
        with pytest.raises(InputError, match=r"x = .* is not allowed; M-Score's x must be at least 1"):
            scorer.score(np.arange(2), weights_, x=float(x))


def test_x_inf_and_one_are_allowed(capsys, thesis):
    source, weights = thesis
    for x in ("1", "inf"):
        code, out, err = run_cli(capsys, thesis_argv(source, weights, "--x", x, "--format", "json"))
        assert code == 0, err
        assert json.loads(out)["x"] == (1.0 if x == "1" else "inf")
        assert math.isfinite(json.loads(out)["scores"]["m_score"])


def test_x_below_one_uses_the_documented_error_prefix(capsys, thesis):
    source, weights = thesis
    code = main([str(a) for a in thesis_argv(source, weights, "--x", "0.5")])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("tklscore: error:") and "x must be at least 1" in err and "usage" not in err


@pytest.mark.parametrize("line", ["Age,[0,30),0.1", "Age,[0,30),0.1,0.2"])
def test_weights_row_with_an_unquoted_interval(capsys, thesis, tmp_path, line):
    source, _ = thesis
    weights = write(tmp_path / "w.csv", f'attribute,value,weight\nAge,"[30,inf)",0.2\n{line}\n')
    assert_cli_error(capsys, ["score", source, "--rows", "0", "--id-column", "id", "--qi", THESIS_QI,
                              "--sa", "Age", "--continuous", "Age", "--weights", weights],
                     f"{weights}, row 3:", f"has {line.count(',') + 1} field(s); expected 3", '"[0,30)"')
    with pytest.raises(InputError, match=r"row 3: has \d field\(s\); expected 3"):
        load_weights(weights)


def test_weights_rows_with_trailing_empty_fields_are_fine(tmp_path):
    weights = load_weights(write(tmp_path / "w.csv", "attribute,value,weight\nDisease,Flu,0.1,\nDisease,HIV,0.4,,\n"))
    assert [(e.attribute, e.value, e.weight) for e in weights.entries] == [("Disease", "Flu", 0.1),
                                                                          ("Disease", "HIV", 0.4)]
