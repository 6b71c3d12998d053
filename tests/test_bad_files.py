"""Odd files a new user feeds the tool (issue 9 §3): every one gives an error naming the
file, row and column (exit 2 through the CLI), never "internal error", a traceback or a
message echoing a huge cell."""

from __future__ import annotations

import json
import warnings

import pytest

from helpers import run_cli
from tklscore.core.errors import shorten

SA = "Disease,Medication,Age,Initial Diagnosis"
LONG = 200_000


@pytest.fixture
def thesis(data_dir):
    return ((data_dir / "thesis_table_3_1.csv").read_text(encoding="utf-8"),
            (data_dir / "thesis_table_4_2_weights.csv").read_text(encoding="utf-8"))


def score(tmp_path, table: str, weights: str, *extra, table_bytes: bytes | None = None,
          weights_bytes: bytes | None = None):
    source, weight_file = tmp_path / "source.csv", tmp_path / "weights.csv"
    source.write_bytes(table_bytes if table_bytes is not None else table.encode("utf-8"))
    weight_file.write_bytes(weights_bytes if weights_bytes is not None else weights.encode("utf-8"))
    return ["score", source, "--rows", "3,4", "--id-column", "id", "--qi", "Job,City,Gender", "--sa", SA,
            "--continuous", "Age", "--weights", weight_file, "--format", "json", *extra]


def error_of(capsys, argv) -> str:
    code, out, err = run_cli(capsys, argv)
    assert code == 2, (code, out, err[:500])
    assert err.startswith("tklscore: error: ") and err.count("\n") == 1, err[:500]
    assert "internal error" not in err and "Traceback" not in err
    assert len(err) < 600, f"the message is {len(err)} characters long"
    return err


def tkl_of(capsys, argv) -> float:
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    return json.loads(out)["scores"]["tkl"]


def test_a_long_cell_is_named(tmp_path, capsys, thesis):
    table, weights = thesis
    lines = table.splitlines()
    lines[3] = lines[3].replace("Antibiotics", "A" * LONG)
    err = error_of(capsys, score(tmp_path, "\n".join(lines) + "\n", weights))
    assert "source.csv, row 4, column 'Medication': the cell has 200,000 characters; " \
           "a cell may hold at most 131,072" in err


def test_a_long_column_name_is_named(tmp_path, capsys, thesis):
    table, weights = thesis
    err = error_of(capsys, score(tmp_path, table.replace("Gender", "G" * LONG, 1), weights))
    assert "source.csv, row 1: the name of column 4 has 200,000 characters" in err


@pytest.mark.parametrize("cell, column", [("value", "value"), ("weight", "weight")])
def test_a_long_weights_value_is_named(tmp_path, capsys, thesis, cell, column):
    table, weights = thesis
    row = "Disease,Flu2,0.5" if cell == "weight" else "Disease,Flu2,0.5"
    row = row.replace("Flu2", "F" * LONG) if cell == "value" else row.replace("0.5", "5" * LONG)
    err = error_of(capsys, score(tmp_path, table, weights + row + "\n"))
    assert f"weights.csv, row 17, column '{column}': the cell has 200,000 characters" in err


def test_cr_only_line_endings_read_like_lf(tmp_path, capsys, thesis):
    table, weights = thesis
    expected = tkl_of(capsys, score(tmp_path, table, weights))
    assert expected == pytest.approx(2.903131, abs=5e-6)
    assert tkl_of(capsys, score(tmp_path, table.replace("\n", "\r"), weights.replace("\n", "\r"))) == expected
    matrix = tmp_path / "m.csv"
    matrix.write_bytes(b",A,B,C\rA,1,2,3\rB,,1,2\rC,,,1\r")
    code, out, err = run_cli(capsys, ["ahp", matrix, "--format", "json"])
    assert code == 0, err
    assert json.loads(out)["priorities"]["A"] == pytest.approx(0.5396, abs=5e-5)


def test_binary_files_are_refused_as_binary(tmp_path, capsys, thesis):
    table, weights = thesis
    junk = bytes(range(256)) * 40
    matrix = tmp_path / "m.csv"
    matrix.write_bytes(junk)
    assert "m.csv, row 1: holds binary data (a zero byte), not the text of a judgement matrix file" \
        in error_of(capsys, ["ahp", matrix])
    assert "source.csv, row 1: holds binary data (a zero byte), not the text of a CSV/TSV table" \
        in error_of(capsys, score(tmp_path, "", weights, table_bytes=junk))
    assert "weights.csv, row 1: holds binary data" in error_of(capsys, score(tmp_path, table, "", weights_bytes=junk))


def test_a_weights_file_in_cp1252_with_an_undefined_byte(tmp_path, capsys, thesis):
    table, weights = thesis
    data = (weights + "Disease,Caf\u00e9,0.2\nDisease,X\x81,0.1\n").encode("latin-1")
    err = error_of(capsys, score(tmp_path, table, "", weights_bytes=data))
    assert "weights.csv, row 18: cannot be decoded as UTF-8 nor as Windows-1252 (cp1252): byte 0x81" in err
    readable = (weights + "Disease,Caf\u00e9,0.2\n").encode("cp1252")
    assert tkl_of(capsys, score(tmp_path, table, "", weights_bytes=readable)) == pytest.approx(2.903131, abs=5e-6)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_weights_file_is_decoded(tmp_path, capsys, thesis, encoding):
    table, weights = thesis
    argv = score(tmp_path, table, "", weights_bytes=weights.encode(encoding),
                 table_bytes=table.encode(encoding))
    assert tkl_of(capsys, argv) == pytest.approx(2.903131, abs=5e-6)


@pytest.mark.parametrize("delimiter", ["ab", ",,", "", "\n", "x"])
def test_a_bad_delimiter_is_named(tmp_path, capsys, thesis, delimiter):
    table, weights = thesis
    err = error_of(capsys, score(tmp_path, table, weights, "--delimiter", delimiter))
    assert "the delimiter must be one character such as , ; | or \\t (tab)" in err


def test_a_tab_may_be_spelled(tmp_path, capsys, thesis):
    table, weights = thesis
    assert tkl_of(capsys, score(tmp_path, table.replace(",", "\t"), weights, "--delimiter", "\\t")) == \
        pytest.approx(2.903131, abs=5e-6)


@pytest.mark.parametrize("value", ["1e308", "1e-308", "10", "0.1"])
def test_a_judgement_off_saatys_scale_is_named(tmp_path, capsys, value):
    matrix = tmp_path / "m.csv"
    matrix.write_text(f",A,B,C\nA,1,{value},2\nB,,1,3\nC,,,1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning either
        err = error_of(capsys, ["ahp", matrix])
    assert f"m.csv, row 2, column 'B': judgement '{value}' is outside Saaty's scale (1/9 to 9)" in err


def test_messages_never_echo_a_huge_cell(tmp_path, capsys, thesis):
    table, weights = thesis
    lines = table.splitlines()
    lines[2] = lines[2].replace(",19,", ",1" + "9" * 100_000 + "x,")
    err = error_of(capsys, score(tmp_path, "\n".join(lines) + "\n", weights))
    assert "source.csv, row 3, column 'Age': continuous column holds '1999999" in err
    assert "… (100,002 characters)', which is not a number" in err
    assert shorten("a" * 10_000_000).endswith("… (10,000,000 characters)")
    assert shorten("short") == "short"
