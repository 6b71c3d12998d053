"""Loading tables: delimiters and encodings detected, values kept as written, Excel and
Parquet equivalent to CSV, multiset matching of a published table without an id
column, and the row numbers shown in messages."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers import run_cli
from tklscore.core import (InputError, Roles, Scorer, Table, load_table, load_weights, locate_by_ids,
                           locate_table)

QI = ["Job", "City", "Gender"]
SA = ["Disease", "Medication", "Age", "Initial Diagnosis"]
ROLES = Roles(qi=QI, sa=SA, continuous=["Age"], identifier="id")


def score_json(capsys, source: Path, weights: Path, *selection: str) -> dict:
    code, out, err = run_cli(capsys, ["score", source, *selection, "--qi", ",".join(QI), "--sa", ",".join(SA),
                                      "--continuous", "Age", "--weights", weights, "--format", "json"])
    assert code == 0, err
    assert "Traceback" not in err
    return json.loads(out)


@pytest.fixture(scope="module")
def thesis_frame(data_dir) -> pd.DataFrame:
    return pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)


@pytest.fixture
def weights_path(data_dir) -> Path:
    return data_dir / "thesis_table_4_2_weights.csv"


def write_csv(path: Path, rows: list[list[str]], delimiter: str = ",", encoding: str = "utf-8") -> Path:
    with open(path, "w", encoding=encoding, newline="") as handle:
        csv.writer(handle, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return path


def rows_of(frame: pd.DataFrame) -> list[list[str]]:
    return [list(frame.columns)] + frame.astype(str).values.tolist()


# --------------------------------------------------------------------------- delimiters

@pytest.mark.parametrize("delimiter,suffix", [(",", ".csv"), (";", ".csv"), ("\t", ".tsv"), ("\t", ".txt"),
                                              ("|", ".csv"), ("|", ".txt")])
def test_delimiter_detected(tmp_path, thesis_frame, delimiter, suffix):
    path = write_csv(tmp_path / f"t{suffix}", rows_of(thesis_frame), delimiter)
    table = load_table(path)
    assert table.delimiter == delimiter
    assert table.kind == "csv"
    assert table.columns == list(thesis_frame.columns)
    assert table.frame.values.tolist() == thesis_frame.values.tolist()


def test_delimiter_given_explicitly(tmp_path, thesis_frame):
    # values holding ';' would make ';' plausible too; --delimiter decides
    frame = thesis_frame.assign(Medication=thesis_frame["Medication"] + ";x")
    path = write_csv(tmp_path / "t.csv", rows_of(frame), "|")
    assert load_table(path).delimiter == "|"
    table = load_table(path, delimiter="|")
    assert table.frame["Medication"].tolist() == frame["Medication"].tolist()


def test_adult_semicolon(data_dir):
    table = load_table(data_dir / "adult" / "adult.csv")
    assert table.delimiter == ";"
    assert table.encoding == "utf-8"
    assert table.columns == ["sex", "age", "race", "marital-status", "education", "native-country",
                             "workclass", "occupation", "salary-class"]
    assert len(table) == 30162
    assert table.frame.iloc[0].tolist() == ["Male", "39", "White", "Never-married", "Bachelors",
                                            "United-States", "State-gov", "Adm-clerical", "<=50K"]
    assert all(pd.api.types.is_string_dtype(d) for d in table.frame.dtypes)  # text, as written


def test_single_column_file(tmp_path):
    table = load_table(write_csv(tmp_path / "one.csv", [["Disease"], ["Flu"], ["HIV"]]))
    assert table.columns == ["Disease"]
    assert table.frame["Disease"].tolist() == ["Flu", "HIV"]


# --------------------------------------------------------------------------- encodings

ACCENTED = [
    ["id", "Ville", "Nom", "Diagnostic"],
    ["1", "Montréal", "Zoë", "Grippe"],
    ["2", "Zürich", "Jürgen Müller", "Hépatite"],
    ["3", "São Paulo", "João", "Gripe"],
    ["4", "Besançon", "Françoise", "Migraine"],
    ["5", "Málaga", "Íñigo", "Dolor de cabeza"],
    ["6", "Reykjavik", "Björk", "Flu"],
    ["7", "Ærøskøbing", "Søren", "Influenza"],
]


@pytest.mark.parametrize("encoding,detected", [("utf-8", {"utf-8"}), ("utf-8-sig", {"utf-8-sig"}),
                                               ("cp1252", {"cp1252", "latin_1", "iso8859_15"}),
                                               ("latin-1", {"cp1252", "latin_1", "iso8859_15"})])
@pytest.mark.parametrize("delimiter", [",", ";"])
def test_encoding_detected(tmp_path, encoding, detected, delimiter):
    path = write_csv(tmp_path / "accents.csv", ACCENTED, delimiter, encoding)
    table = load_table(path)
    assert table.encoding in detected
    assert table.delimiter == delimiter
    assert table.columns == ACCENTED[0]  # no BOM left in the first column name
    assert table.frame.values.tolist() == ACCENTED[1:]


@pytest.mark.parametrize("rows", [
    [["id", "City"], ["1", "Montréal"]],
    [["id", "City"], ["1", "Zürich"], ["2", "Köln"]],
    [["id", "Produit", "Prix"], ["1", "Crème brûlée", "4 €"], ["2", "Œuvre", "12 €"], ["3", "l’été", "3 €"]],
])
def test_small_cp1252_files(tmp_path, rows):
    path = write_csv(tmp_path / "small.csv", rows, ",", "cp1252")
    table = load_table(path)
    assert table.frame.values.tolist() == rows[1:]


@pytest.mark.parametrize("encoding,rows", [
    ("cp1250", [["id", "Miasto"], ["1", "Kraków"], ["2", "Łódź"], ["3", "Gdańsk"], ["4", "Wrocław"]]),
    ("cp1251", [["id", "город", "диагноз"], ["1", "Москва", "грипп"], ["2", "Санкт-Петербург", "мигрень"],
                ["3", "Новосибирск", "гипертония"], ["4", "Екатеринбург", "грипп"], ["5", "Казань", "ВИЧ"]]),
])
def test_other_code_pages_are_not_taken_for_cp1252(tmp_path, encoding, rows):
    # cp1252 is preferred only for text that reads as Western European in it
    table = load_table(write_csv(tmp_path / "cp.csv", rows, ",", encoding))
    assert table.encoding == encoding
    assert table.frame.values.tolist() == rows[1:]


def test_encoding_given_explicitly(tmp_path):
    path = write_csv(tmp_path / "x.csv", ACCENTED, ",", "latin-1")
    table = load_table(path, encoding="latin-1")
    assert table.encoding == "latin-1"
    assert table.frame.values.tolist() == ACCENTED[1:]


def test_wrong_explicit_encoding_is_an_error(tmp_path):
    path = write_csv(tmp_path / "x.csv", ACCENTED, ",", "latin-1")
    with pytest.raises(InputError, match="cannot be decoded as utf-8"):
        load_table(path, encoding="utf-8")
    with pytest.raises(InputError, match="unknown encoding 'no-such-codec'"):
        load_table(path, encoding="no-such-codec")


def test_accented_values_score_like_ascii(capsys, tmp_path, thesis_frame, weights_path):
    # renaming values consistently (here: to accented ones, in cp1252) changes no score
    renamed = thesis_frame.replace({"Calgary": "Montréal", "Edmonton": "Québec", "Female": "Féminin"})
    source = write_csv(tmp_path / "accents.csv", rows_of(renamed), ";", "cp1252")
    plain = write_csv(tmp_path / "plain.csv", rows_of(thesis_frame))
    a = score_json(capsys, source, weights_path, "--rows", "3,4,5,6", "--id-column", "id")
    b = score_json(capsys, plain, weights_path, "--rows", "3,4,5,6", "--id-column", "id")
    assert a["scores"] == b["scores"] and a["records"] == b["records"]


# --------------------------------------------------------------------------- values as written

def test_ids_keep_leading_zeros(capsys, tmp_path, thesis_frame, weights_path):
    frame = thesis_frame.assign(id=["007", "7", "0070", "08", "8", "00", "0"])
    source = write_csv(tmp_path / "ids.csv", rows_of(frame))
    table = load_table(source)
    assert table.frame["id"].tolist() == ["007", "7", "0070", "08", "8", "00", "0"]
    release = locate_by_ids(table, ["007", "7", "00"], "id")
    assert release.positions.tolist() == [0, 1, 5]
    assert locate_by_ids(table, ["0007"], "id").unlocated == ["id '0007'"]
    report = score_json(capsys, source, weights_path, "--rows", "007,08,0", "--id-column", "id")
    assert [r["id"] for r in report["records"]] == ["007", "08", "0"]
    assert [r["k"] for r in report["records"]] == [1, 2, 2]


def test_numbers_are_not_reformatted(tmp_path):
    path = write_csv(tmp_path / "n.csv", [["id", "Age", "Zip", "Score"], ["001", "27.0", "02134", "1e3"],
                                          ["002", "NA", "null", "nan"]])
    table = load_table(path)
    assert table.frame.values.tolist() == [["001", "27.0", "02134", "1e3"], ["002", "NA", "null", "nan"]]


def test_quoted_commas_and_quotes(capsys, tmp_path, weights_path, thesis_frame):
    frame = thesis_frame.replace({"Calgary": "Calgary, AB", "Edmonton": 'Edmonton, "the capital"',
                                  "Flu": "Flu, seasonal"})
    source = write_csv(tmp_path / "quoted.csv", rows_of(frame))
    assert '"Calgary, AB"' in source.read_text()
    table = load_table(source)
    assert table.delimiter == ","
    assert table.frame.values.tolist() == frame.values.tolist()
    weights = tmp_path / "w.csv"
    weights.write_text(weights_path.read_text().replace("Flu,", '"Flu, seasonal",'))
    a = score_json(capsys, source, weights, "--rows", "0,3,4", "--id-column", "id")
    b = score_json(capsys, weights_path.parent / "thesis_table_3_1.csv", weights_path,
                   "--rows", "0,3,4", "--id-column", "id")
    assert a["records"] == b["records"]


def test_spaces_around_header_and_values_are_stripped_unless_kept(tmp_path):
    path = write_csv(tmp_path / "w.csv", [[" id", "Job "], ["1", " Lawyer"]])
    table = load_table(path)
    assert table.columns == ["id", "Job"]
    assert table.frame["Job"].tolist() == ["Lawyer"]
    assert table.spaces_stripped.columns == ("Job",)
    kept = load_table(path, keep_spaces=True)
    assert kept.columns == ["id", "Job"]
    assert kept.frame["Job"].tolist() == [" Lawyer"] and not kept.spaces_stripped


# --------------------------------------------------------------------------- Excel and Parquet

def _typed_thesis(thesis_frame: pd.DataFrame) -> pd.DataFrame:
    """Table 3.1 as a spreadsheet or Parquet writer would type it: numbers as numbers."""
    return thesis_frame.assign(id=thesis_frame["id"].astype(int), Age=thesis_frame["Age"].astype(int))


def _write(frame: pd.DataFrame, path: Path) -> Path:
    if path.suffix == ".xlsx":
        frame.to_excel(path, index=False, sheet_name="Table 3.1")
    elif path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("suffix,kind", [(".xlsx", "excel"), (".parquet", "parquet")])
def test_excel_and_parquet_score_like_csv(capsys, tmp_path, data_dir, thesis_frame, weights_path, suffix, kind):
    typed = _typed_thesis(thesis_frame)
    source = _write(typed, tmp_path / f"source{suffix}")
    published = _write(typed.iloc[3:7], tmp_path / f"published{suffix}")
    table = load_table(source)
    assert table.kind == kind
    assert table.frame.values.tolist() == thesis_frame.values.tolist()  # all text, as in the CSV

    csv_source = data_dir / "thesis_table_3_1.csv"
    expected = score_json(capsys, csv_source, weights_path, "--rows", "3,4,5,6", "--id-column", "id")
    assert score_json(capsys, source, weights_path, "--rows", "3,4,5,6", "--id-column", "id") == expected
    assert score_json(capsys, source, weights_path, "--published", published, "--id-column", "id") == expected
    # without an id column the published rows are matched on all columns (numbers compared as numbers)
    by_value = score_json(capsys, source, weights_path, "--published", published)
    assert [r["id"] for r in by_value["records"]] == ["3", "4", "5", "6"]
    assert by_value["scores"] == expected["scores"]
    # the spec's Scenario 1 oracle
    assert expected["scores"]["tkl"] == pytest.approx(4.98258, abs=5e-6)
    assert expected["normalized"]["source"]["tkl"] == pytest.approx(0.5686, abs=5e-5)

    weights = load_weights(weights_path)
    lib = Scorer(table, ROLES).score(locate_by_ids(table, ["3", "4", "5", "6"], "id"), weights)
    assert json.loads(json.dumps(lib.to_json_dict())) == expected


def test_excel_sheet_by_name_and_index(capsys, tmp_path, thesis_frame, weights_path):
    path = tmp_path / "book.xlsx"
    with pd.ExcelWriter(path) as writer:
        pd.DataFrame({"note": ["not this sheet"]}).to_excel(writer, index=False, sheet_name="Notes")
        thesis_frame.to_excel(writer, index=False, sheet_name="Data")
    assert load_table(path).columns == ["note"]
    assert load_table(path, sheet="Data").frame.values.tolist() == thesis_frame.values.tolist()
    assert load_table(path, sheet=1).columns == list(thesis_frame.columns)
    code, out, err = run_cli(capsys, ["score", path, "--sheet", "Data", "--rows", "0", "--id-column", "id",
                                      "--qi", ",".join(QI), "--sa", "Disease", "--weights", weights_path])
    assert code == 0, err
    code, out, err = run_cli(capsys, ["score", path, "--sheet", "Nope", "--rows", "0", "--qi", "note",
                                      "--sa", "note", "--weights", weights_path])
    assert code == 2 and f"tklscore: error: {path}" in err and "Nope" in err and "Traceback" not in err


def test_excel_and_parquet_keep_text_ids_and_missing_cells(tmp_path):
    frame = pd.DataFrame({"id": ["007", "7", "0070"], "Job": ["Lawyer", None, "Nurse"],
                          "Disease": ["Flu", "HIV", np.nan]})
    for suffix in (".xlsx", ".parquet"):
        table = load_table(_write(frame, tmp_path / f"t{suffix}"))
        assert table.frame.values.tolist() == [["007", "Lawyer", "Flu"], ["7", "", "HIV"], ["0070", "Nurse", ""]]


def test_damaged_excel_and_parquet_are_input_errors(tmp_path):
    for suffix, what in ((".xlsx", "Excel"), (".parquet", "Parquet")):
        path = tmp_path / f"broken{suffix}"
        path.write_bytes(b"this is not a real file\n")
        with pytest.raises(InputError, match=f"not a readable {what}|is not an Excel workbook"):
            load_table(path)


# --------------------------------------------------------------------------- multiset matching

def test_published_matched_as_multiset(capsys, tmp_path, weights_path):
    source_rows = [["Job", "City", "Disease"],
                   ["Lawyer", "Calgary", "Flu"],     # 0
                   ["Lawyer", "Calgary", "Flu"],     # 1  duplicate of 0
                   ["Nurse", "Calgary", "HIV"],      # 2
                   ["Lawyer", "Calgary", "Flu"],     # 3  third copy
                   ["Nurse", "Edmonton", "Flu"],     # 4
                   ["Nurse", "Edmonton", "Flu"]]     # 5
    published_rows = [["Job", "City", "Disease"],
                      ["Nurse", "Edmonton", "Flu"],
                      ["Lawyer", "Calgary", "Flu"],
                      ["Nurse", "Edmonton", "Flu"],
                      ["Lawyer", "Calgary", "Flu"]]
    source = write_csv(tmp_path / "s.csv", source_rows)
    published = write_csv(tmp_path / "p.csv", published_rows)
    release = locate_table(load_table(source), load_table(published))
    assert release.unlocated == []
    positions = release.positions.tolist()
    assert len(set(positions)) == 4  # each published row takes a distinct source row
    for row, position in zip(published_rows[1:], positions):
        assert source_rows[1 + position] == row
    assert release.ids.tolist() == [str(p) for p in positions]

    # scores equal publishing the same source rows by 0-based row number
    argv = ["--qi", "Job,City", "--sa", "Disease", "--weights", weights_path, "--format", "json"]
    code, out, err = run_cli(capsys, ["score", source, "--published", published, *argv])
    assert code == 0, err
    by_file = json.loads(out)
    code, out, err = run_cli(capsys, ["score", source, "--rows", ",".join(map(str, positions)), *argv])
    assert code == 0, err
    assert json.loads(out) == by_file
    assert [r["k"] for r in by_file["records"]] == [2, 3, 2, 3]


def test_published_with_fewer_columns_is_matched_on_those(tmp_path, data_dir):
    source = load_table(data_dir / "thesis_table_3_1.csv")
    published = Table.from_frame(pd.DataFrame({"Job": ["Lawyer"] * 2, "City": ["Edmonton"] * 2,
                                               "Gender": ["Female"] * 2, "Age": ["29.0", "29"]}))
    release = locate_table(source, published, continuous={"Age"})
    assert sorted(release.positions.tolist()) == [5, 6]
    # compared as text, "29.0" is not "29"
    assert locate_table(source, published).unlocated == ["row 1"]


def test_published_order_is_kept(tmp_path, data_dir, weights_path):
    source = load_table(data_dir / "thesis_table_3_1.csv")
    release = locate_by_ids(source, ["6", "0", "3"], "id")
    report = Scorer(source, ROLES).score(release, load_weights(weights_path))
    assert report.records["id"].tolist() == ["6", "0", "3"]
    assert report.records["k"].tolist() == [2, 1, 2]


# --------------------------------------------------------------------------- row numbers

def test_row_number_semantics(tmp_path, thesis_frame):
    typed = _typed_thesis(thesis_frame)
    tables = {
        "csv": load_table(_write(typed, tmp_path / "t.csv")),
        "excel": load_table(_write(typed, tmp_path / "t.xlsx")),
        "parquet": load_table(_write(typed, tmp_path / "t.parquet")),
        "memory": Table.from_frame(thesis_frame),
    }
    first_row = {"csv": 2, "excel": 2, "parquet": 1, "memory": 1}  # header = row 1 where there is one
    for kind, table in tables.items():
        assert table.kind == kind
        assert [table.row_number(i) for i in (0, 1, 6)] == [first_row[kind] + i for i in (0, 1, 6)]


@pytest.mark.parametrize("suffix,row", [(".csv", 6), (".xlsx", 6), (".parquet", 5)])
def test_error_row_numbers_by_format(tmp_path, thesis_frame, suffix, row):
    # record 4 (0-based) holds a bad Age: CSV/Excel row 6 (header = row 1), Parquet record 5
    frame = thesis_frame.copy()
    frame.loc[4, "Age"] = "seventy"
    table = load_table(_write(frame, tmp_path / f"t{suffix}"))
    with pytest.raises(InputError, match=rf"row {row}, column 'Age': continuous column holds 'seventy'"):
        table.numeric("Age")


def test_row_numbers_of_unlocated_published_rows(tmp_path, data_dir):
    source = load_table(data_dir / "thesis_table_3_1.csv")
    frame = pd.read_csv(data_dir / "thesis_table_3_6_published.csv", dtype=str).drop(columns="id")
    frame.loc[2, "Job"] = "Doctor"
    for suffix, row in ((".csv", "row 4"), (".parquet", "row 3")):
        published = load_table(_write(frame, tmp_path / f"p{suffix}"))
        assert locate_table(source, published, continuous={"Age"}).unlocated == [row]


def test_large_files_load_in_chunks_with_progress_and_can_be_cancelled(tmp_path, monkeypatch, data_dir):
    import tklscore.core.tables.loading as tables

    monkeypatch.setattr(tables, "_CHUNKED_BYTES", 100)
    monkeypatch.setattr(tables, "_CHUNK_ROWS", 2)
    seen = []
    chunked = load_table(data_dir / "thesis_table_3_1.csv", progress=seen.append)
    whole = load_table(data_dir / "thesis_table_3_1.csv")
    assert chunked.frame.equals(whole.frame) and len(seen) >= 2
    assert seen == sorted(seen) and 0 < seen[0] and seen[-1] <= 0.99

    class Cancelled(Exception):
        pass

    def cancel(fraction):
        raise Cancelled()

    with pytest.raises(Cancelled):
        load_table(data_dir / "thesis_table_3_1.csv", progress=cancel)
