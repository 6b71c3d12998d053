"""Issue 19 §4–§6: hostile and unusual inputs end in a specific error or a correct result —
never a silent wrong result, a hang, unbounded work, an internal error or a traceback.
One test (at least) per item of the issue; the inputs are built in ``hostile.py``."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers import run_cli
from hostile import THESIS_QI, THESIS_SA, fifo, mixed_encoding_csv
from tklscore.core import InputError, load_table
from tklscore.core.files.text import InputNote, decode_lines, decode_text


@pytest.fixture
def thesis(data_dir):
    return data_dir / "thesis_table_3_1.csv", data_dir / "thesis_table_4_2_weights.csv"


def score_argv(source, weights, *extra):
    return ["score", source, "--rows", "3,4", "--id-column", "id", "--qi", THESIS_QI, "--sa", THESIS_SA,
            "--continuous", "Age", "--weights", weights, "--format", "json", *extra]


def cli_error(capsys, argv, *fragments: str) -> str:
    """Exit status 2, one ``tklscore: error:`` line holding every fragment, no traceback."""
    code, out, err = run_cli(capsys, argv)
    assert code == 2, (code, out[:300], err)
    assert err.startswith("tklscore: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    for fragment in fragments:
        assert fragment in err, f"{fragment!r} not in {err!r}"
    return err


def cli_json(capsys, argv) -> tuple[dict, str]:
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    return json.loads(out), err


# --------------------------------------------------------------------------- §4 encodings

def test_a_utf8_file_with_one_cp1252_line_is_read_line_by_line(tmp_path, thesis):
    source = mixed_encoding_csv(tmp_path / "mixed.csv", thesis[0].read_text(encoding="utf-8"))
    with pytest.warns(InputNote, match=r"mixed.csv: the file is UTF-8 but line 9 is not; read as Windows-1252"):
        table = load_table(source)
    assert sorted(set(table.frame["City"])) == ["Edmonton", "Montréal"]  # never 'MontrÃ©al'
    assert table.encoding == "utf-8" and len(table.notes) == 1 and len(table) == 8


def test_a_cp1252_line_beyond_the_sample_is_read_in_its_own_encoding(tmp_path):
    path = tmp_path / "long.csv"
    rows = ["id,City"] + [f"{i},Montréal" for i in range(30_000)]
    path.write_bytes("\n".join(rows).encode("utf-8") + "\n30000,Montréal\n".encode("cp1252"))
    with pytest.warns(InputNote, match="line 30002 is not"):
        table = load_table(path)
    assert table.frame["City"].unique().tolist() == ["Montréal"] and len(table) == 30_001


def test_the_mixed_file_scores_as_its_utf8_twin(tmp_path, capsys, thesis):
    source, weights = thesis
    mixed = mixed_encoding_csv(tmp_path / "mixed.csv", source.read_text(encoding="utf-8"))
    twin = tmp_path / "twin.csv"
    twin.write_bytes(mixed.read_bytes().decode("utf-8", "replace").replace("Montr\ufffdal", "Montréal")
                     .encode("utf-8"))
    got, err = cli_json(capsys, score_argv(mixed, weights))
    assert err.startswith("tklscore: note: ") and "line 9 is not" in err
    expected, _ = cli_json(capsys, score_argv(twin, weights))
    assert got["scores"] == expected["scores"]


def test_valid_utf8_is_never_redecoded_and_a_cp1252_file_is_read_whole():
    assert decode_lines("Montréal\nZürich\n".encode("utf-8"), "x") is None
    assert decode_lines("Montréal\nZürich\n".encode("cp1252"), "x") is None
    assert decode_text("Montréal\nZürich\n".encode("cp1252"), "x") == ("Montréal\nZürich\n", "cp1252")
    # 'Ã©' written in cp1252 is valid UTF-8 ('é'): a valid line is never re-decoded
    text, lines = decode_lines("a,Ã©\n".encode("cp1252") + "b,é\n".encode("cp1252") + "c,ü\n".encode(), "x")
    assert text == "a,é\nb,é\nc,ü\n" and lines == [2]


def test_a_line_neither_encoding_reads_is_named():
    with pytest.raises(InputError, match=r"x, row 3: the line is neither UTF-8.*byte 0x81"):
        decode_lines("é\nb\n\x81\n".encode("utf-8").replace(b"\xc2\x81", b"\x81") + "é\n".encode("cp1252"), "x")


def test_small_text_files_are_read_line_by_line_too(tmp_path, capsys, thesis):
    source, _ = thesis
    weights = tmp_path / "weights.csv"
    weights.write_bytes("attribute,value,weight\nCity,Montréal,0.5\n".encode("utf-8")
                        + "City,Zürich,0.25\n".encode("cp1252"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputNote)
        from tklscore.core import load_weights

        loaded = load_weights(weights)
    assert loaded.weights_of("City", np.array(["Zürich", "Montréal"], dtype=object), False).tolist() == [0.25, 0.5]


def test_the_engines_refuse_a_mixed_file_naming_the_line(tmp_path, capsys, thesis):
    source, weights = thesis
    mixed = mixed_encoding_csv(tmp_path / "mixed.csv", source.read_text(encoding="utf-8"))
    cli_error(capsys, score_argv(mixed, weights, "--engine", "duckdb"),
              "mixed.csv, row 9: the file is UTF-8 but line 9 is not (Windows-1252); the duckdb engine reads a file "
              "in one encoding", "read it in memory")


# --------------------------------------------------------------------------- §4 duplicated columns

def _with_duplicate_job(frame: pd.DataFrame) -> pd.DataFrame:
    copy = frame.copy()
    copy.insert(2, "Job_copy", "X")
    return copy


def test_excel_refuses_a_repeated_column_name(tmp_path, capsys, thesis):
    import openpyxl

    source, weights = thesis
    path = tmp_path / "dup.xlsx"
    _with_duplicate_job(pd.read_csv(source, dtype=str)).to_excel(path, index=False)
    book = openpyxl.load_workbook(path)
    book.active.cell(1, 3).value = "Job"
    book.save(path)
    cli_error(capsys, score_argv(path, weights), "dup.xlsx, row 1: column name 'Job' appears twice in the header "
                                                 "(columns 2 and 3)")


def test_an_excel_header_is_read_as_written(tmp_path, thesis):
    source, _ = thesis
    path = tmp_path / "plain.xlsx"
    pd.read_csv(source, dtype=str).to_excel(path, index=False)
    table = load_table(path)
    assert table.columns == pd.read_csv(source, nrows=0).columns.tolist()
    assert table.frame.equals(load_table(source).frame.astype(object)) and table.row_number(0) == 2


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_repeated_column_name_is_refused_by_every_engine(tmp_path, capsys, thesis, engine):
    source, weights = thesis
    lines = source.read_text(encoding="utf-8").splitlines()
    csv = tmp_path / "dup.csv"
    csv.write_text("\n".join([lines[0].replace("City", "Job")] + lines[1:]) + "\n", encoding="utf-8")
    cli_error(capsys, score_argv(csv, weights, "--engine", engine),
              "dup.csv, row 1: column name 'Job' appears twice in the header (columns 2 and 3)")
    frame = pd.read_csv(source, dtype=str)
    table = pa.Table.from_arrays([pa.array(frame[c]) for c in frame.columns] + [pa.array(frame["City"])],
                                 names=list(frame.columns) + ["Job"])
    pq.write_table(table, tmp_path / "dup.parquet")
    cli_error(capsys, score_argv(tmp_path / "dup.parquet", weights, "--engine", engine),
              "dup.parquet, row 1: column name 'Job' appears twice in the header (columns 2 and 9)")


# --------------------------------------------------------------------------- §5 special files

@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_fifo_source_is_refused_before_it_is_opened(tmp_path, capsys, thesis, engine):
    _, weights = thesis
    with fifo(tmp_path / "source.csv") as source:
        cli_error(capsys, score_argv(source, weights, "--engine", engine),
                  "source.csv: is a named pipe (FIFO), not a regular table file; it is refused before it is opened")


def test_a_character_device_or_a_folder_is_refused(tmp_path, capsys, thesis):
    _, weights = thesis
    cli_error(capsys, score_argv("/dev/zero", weights), "/dev/zero: is a character device, not a regular table file")
    cli_error(capsys, score_argv(tmp_path, weights, "--engine", "duckdb"), "is a folder, not a table file")


@pytest.mark.parametrize("what", ["weights", "describe", "project", "ahp", "pia-rules", "vocabulary"])
def test_every_input_refuses_a_fifo(tmp_path, capsys, thesis, what):
    source, weights = thesis
    with fifo(tmp_path / "input") as pipe:
        if what == "weights":
            cli_error(capsys, ["score", source, "--rows", "3", "--id-column", "id", "--qi", "Job", "--sa", "Disease",
                               "--weights", pipe], "is a named pipe (FIFO), not a regular weights file")
        elif what == "describe":
            from tklscore.core.engines.source import describe_source

            with pytest.raises(InputError, match="is a named pipe"):
                describe_source(pipe)
        elif what == "project":
            from tklscore.core.project import Project

            with pytest.raises(InputError, match="is a named pipe"):
                Project.load(pipe)
        elif what == "ahp":
            cli_error(capsys, ["ahp", pipe], "is a named pipe (FIFO), not a regular judgement matrix file")
        elif what == "pia-rules":
            from tklscore.core.pia.rules import load_rules

            with pytest.raises(InputError, match="is a named pipe"):
                load_rules(pipe)
        else:
            cli_error(capsys, ["taxonomy", "--vocabulary", pipe, "--map", "A=B"], "is a named pipe")


# --------------------------------------------------------------------------- §6 nested Parquet

@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_nested_parquet_columns_are_refused_by_name(tmp_path, capsys, thesis, engine):
    source, weights = thesis
    frame = pd.read_csv(source, dtype=str)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.append_column("meta", pa.array([{"a": 1, "b": "x"}] * len(frame)))
    table = table.append_column("tags", pa.array([[1, 2]] * len(frame)))
    pq.write_table(table, tmp_path / "nested.parquet")
    cli_error(capsys, score_argv(tmp_path / "nested.parquet", weights, "--engine", engine),
              "nested.parquet: columns 'meta' (struct<a: int64, b: string>), 'tags' (list<element: int64>) hold "
              "nested values", "flatten the nested column")
    cli_error(capsys, ["measures", tmp_path / "nested.parquet", "--qi", "Job", "--engine", engine],
              "columns 'meta'")
