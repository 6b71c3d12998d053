"""The fast paths of the command a user runs: typed Parquet columns factorised as numbers,
Arrow CSV reading, integer ids matched as integers, the column-wise JSON writer, and a
command line that does not load what a command does not need."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from helpers import run_cli
from tklscore.core.errors import InputError
from tklscore.core import Roles, Scorer, Table, load_table, load_weights, locate_by_ids, locate_table
from tklscore.core.tables.loading import _holds_quotes
from tklscore.core.files.records import float_text, records_csv, records_json
from tklscore.core.scoring.scores import RECORD_COLUMNS

QI = ["Job", "City", "Gender"]
SA = ["Disease", "Medication", "Age", "Initial Diagnosis"]
ROLES = Roles(qi=QI, sa=SA, continuous=["Age"], identifier="id")


@pytest.fixture
def thesis_frame(data_dir) -> pd.DataFrame:
    return pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)


def test_parquet_integers_stay_integers_and_score_like_csv(tmp_path, data_dir, thesis_frame):
    typed = thesis_frame.assign(id=thesis_frame["id"].astype(np.int64), Age=thesis_frame["Age"].astype(np.int64))
    typed.to_parquet(tmp_path / "s.parquet", index=False)
    table = load_table(tmp_path / "s.parquet")
    assert table.typed["id"].dtype == np.int64 and table.typed["Age"].dtype == np.int64
    assert table._frame is None  # no text view is built for scoring
    codes = table.codes("Job")
    assert sorted(codes.uniques.tolist()) == sorted(set(thesis_frame["Job"]))
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    report = Scorer(table, ROLES).score(locate_by_ids(table, ["3", "4", "5", "6"], "id"), weights)
    csv = load_table(data_dir / "thesis_table_3_1.csv")
    expected = Scorer(csv, ROLES).score(locate_by_ids(csv, ["3", "4", "5", "6"], "id"), weights)
    assert report.to_json_dict() == expected.to_json_dict()
    assert report.scores.tkl == pytest.approx(4.98258, abs=5e-6)  # the spec's Scenario 1
    assert table._frame is None
    assert table.frame["id"].tolist() == [str(i) for i in range(7)]  # the text view, on demand


def test_integer_ids_match_as_written(tmp_path, thesis_frame):
    typed = thesis_frame.assign(id=thesis_frame["id"].astype(np.int64) * 10)
    typed.to_parquet(tmp_path / "s.parquet", index=False)
    table = load_table(tmp_path / "s.parquet")
    release = locate_by_ids(table, ["30", "060", "6.0", "x", "-0", "10"], "id")
    assert release.positions.tolist() == [3, 1]
    assert release.ids.tolist() == ["30", "10"]
    assert release.unlocated == ["id '060'", "id '6.0'", "id 'x'", "id '-0'"]
    # a published Parquet file with integer ids is matched on the integers, ids kept as text
    typed.iloc[[5, 2]].to_parquet(tmp_path / "p.parquet", index=False)
    by_file = locate_table(table, load_table(tmp_path / "p.parquet"), "id")
    assert by_file.positions.tolist() == [5, 2] and by_file.ids.tolist() == ["50", "20"]


def _text_id_source(rows: int, ordered: bool) -> pd.DataFrame:
    """A registry's Parquet shape: text ids (increasing, or shuffled), text categories, an
    integer QI and an integer continuous SA."""
    rng = np.random.default_rng(7)
    ids = np.array([f"P{i:07d}" for i in range(rows)], dtype=object)
    if not ordered:
        ids = ids[rng.permutation(rows)]
    return pd.DataFrame({"id": ids, "age": rng.integers(17, 90, rows),
                         "job": rng.choice(["clerk", "nurse", "lawyer", ""], rows),
                         "disease": rng.choice(["flu", "hiv", "cold", "asthma"], rows),
                         "amount": rng.integers(0, 500, rows) * 100})


@pytest.mark.parametrize("ordered", [True, False])
def test_text_ids_of_a_large_parquet_file_stay_text_and_score_like_csv(tmp_path, ordered):
    rows = 80_000   # a dictionary of the ids over 64 KiB: read as plain Arrow text
    frame = _text_id_source(rows, ordered)
    frame.to_parquet(tmp_path / "s.parquet", index=False)
    frame.to_csv(tmp_path / "s.csv", index=False)
    picked = np.random.default_rng(3).choice(rows, 5_000, replace=False)
    published = frame.iloc[picked]
    published.to_parquet(tmp_path / "p.parquet", index=False)
    published.to_csv(tmp_path / "p.csv", index=False)
    table = load_table(tmp_path / "s.parquet")
    assert not isinstance(table.typed["id"].dtype, pd.CategoricalDtype)    # text, not a million categories
    assert isinstance(table.typed["job"].dtype, pd.CategoricalDtype)       # few values: codes for free
    assert table.typed["amount"].dtype == np.int64
    roles = Roles(qi=["age", "job"], sa=["disease", "amount"], continuous=["amount"], identifier="id")
    weights = load_weights(_weights_csv(tmp_path))
    located = locate_table(table, load_table(tmp_path / "p.parquet"), "id", sensitive=roles.sa,
                           continuous=roles.continuous)
    assert located.positions.tolist() == picked.tolist() and located.ids.tolist() == published["id"].tolist()
    report = Scorer(table, roles).score(located, weights)
    csv = load_table(tmp_path / "s.csv")
    expected = Scorer(csv, roles).score(locate_table(csv, load_table(tmp_path / "p.csv"), "id"), weights)
    assert report.to_json_dict() == expected.to_json_dict()
    # ids looked up as text: written otherwise, or absent, they are not found
    release = locate_by_ids(table, [frame["id"][10], " " + frame["id"][20], "P9999999", "p0000001", "P1"], "id")
    assert release.positions.tolist() == [10, 20]
    assert release.unlocated == ["id 'P9999999'", "id 'p0000001'", "id 'P1'"]


def test_repeated_and_empty_text_ids_of_a_large_parquet_file_are_refused(tmp_path):
    frame = _text_id_source(80_000, ordered=True)
    frame.loc[70_000, "id"] = frame["id"][12]
    frame.to_parquet(tmp_path / "d.parquet", index=False)
    with pytest.raises(InputError, match=r"identifier 'P0000012' appears 2 times \(rows 13, 70001\)"):
        Scorer(load_table(tmp_path / "d.parquet"), Roles(qi=["age"], sa=["disease"], identifier="id"))
    frame = _text_id_source(80_000, ordered=False)
    frame.loc[500, "id"] = None
    frame.to_parquet(tmp_path / "e.parquet", index=False)
    with pytest.raises(InputError, match="identifier is empty") as error:
        Scorer(load_table(tmp_path / "e.parquet"), Roles(qi=["age"], sa=["disease"], identifier="id"))
    assert error.value.row == 501


def test_the_riskiest_records_are_found_once_per_report(data_dir):
    """The Scores view highlights a report's riskiest records at every refresh: found once
    (in the background) and kept with the records; new records are looked at again."""
    import dataclasses

    from tklscore.core.scoring.scores import riskiest_mask

    table = load_table(data_dir / "thesis_table_3_1.csv")
    report = Scorer(table, ROLES).score(locate_by_ids(table, ["0", "1", "3", "4", "5", "6"], "id"),
                                        load_weights(data_dir / "thesis_table_4_2_weights.csv"))
    mask = report.riskiest()
    assert mask.tolist() == riskiest_mask(report.records["tkl"].to_numpy()).tolist() and mask.sum() == 1
    assert report.riskiest() is mask
    other = dataclasses.replace(report, records=report.records.iloc[::-1].reset_index(drop=True))
    assert other.riskiest().tolist() == mask[::-1].tolist()
    assert report.riskiest(0.5).sum() == 3


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["1", "1.0", "01", "-0", "0", "0.0", "2.5", "2.50", "1e3", "1000", "-7", " 3 "]),
                min_size=1, max_size=40))
def test_a_continuous_columns_ordered_codes_from_its_distinct_texts(values):
    """The ordered codes of a continuous column read as text come from its distinct texts
    parsed once: the very codes of factorising its numbers (texts of one number merged)."""
    from tklscore.core.tables.codes import factorize

    table = Table.from_frame(pd.DataFrame({"v": values}))
    expected = factorize(table.numeric("v"), ordered=True)
    fresh = Table.from_frame(pd.DataFrame({"v": values}))
    got = fresh.numeric_codes("v")
    assert got.codes.tolist() == expected.codes.tolist() and got.uniques.tolist() == expected.uniques.tolist()
    numbers, counts = fresh.numeric_counts("v")
    assert numbers.tolist() == expected.uniques.tolist() and counts.sum() == len(values)


def _weights_csv(folder: Path) -> Path:
    rows = ["attribute,value,weight"] + [f"disease,{v},0.{i + 1}" for i, v in enumerate(["flu", "hiv", "cold", "asthma"])]
    rows += ["amount,\"(-inf,20000)\",0.1", "amount,\"[20000,inf)\",0.3"]
    path = folder / "w.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_parquet_null_and_empty_text_are_one_value(tmp_path):
    frame = pd.DataFrame({"id": [1, 2, 3, 4], "Job": ["Lawyer", None, "", "Lawyer"],
                          "Disease": ["Flu", "Flu", "HIV", "HIV"]})
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    table = load_table(tmp_path / "t.parquet")
    codes = table.codes("Job")
    assert codes.cardinality == 2 and codes.codes[1] == codes.codes[2]
    assert table.empty_count("Job") == 2
    scorer = Scorer(table, Roles(qi=["Job"], sa=["Disease"], identifier="id"))
    assert scorer.factors.k.tolist() == [2, 2, 2, 2]


def test_csv_is_read_as_arrow_text_values_as_written(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('id,Job,Note\n007,"Law, yer",\n7," x ","two\nlines"\n', encoding="utf-8")
    table = load_table(path, keep_spaces=True)
    assert table.frame.values.tolist() == [["007", "Law, yer", ""], ["7", " x ", "two\nlines"]]
    assert str(table.frame["id"].dtype) == "str"
    # by default the spaces around a cell are removed (core/tables/spaces.py), nothing else changes
    assert load_table(path).frame.values.tolist() == [["007", "Law, yer", ""], ["7", "x", "two\nlines"]]
    plain = tmp_path / "plain.csv"  # no quote anywhere: Arrow reads it without looking for quoted line breaks
    plain.write_text("id,Job,Note\n007,Lawyer,\n7, x ,two lines\n", encoding="utf-8")
    assert _holds_quotes(path) and not _holds_quotes(plain)
    assert load_table(plain, keep_spaces=True).frame.values.tolist() == [["007", "Lawyer", ""], ["7", " x ", "two lines"]]
    assert load_table(plain).frame.values.tolist() == [["007", "Lawyer", ""], ["7", "x", "two lines"]]



def test_a_quote_is_found_in_whichever_piece_of_the_file_it_is(tmp_path, monkeypatch):
    import tklscore.core.tables.loading as loading

    monkeypatch.setattr(loading, "_QUOTE_SCAN_BYTES", 8)   # the file is searched 8 bytes at a time
    body = b"id,Job\n" + b"".join(b"%d,Lawyer\n" % i for i in range(20))
    for at in (0, 7, 8, 9, 15, 16, len(body) - 1):
        path = tmp_path / f"q{at}.csv"
        path.write_bytes(body[:at] + b'"' + body[at + 1:])
        assert _holds_quotes(path), at
    plain = tmp_path / "plain.csv"
    plain.write_bytes(body)
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    assert not _holds_quotes(plain) and not _holds_quotes(empty)

ids = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
floats = st.floats(allow_nan=False, allow_infinity=False)


def _frame(rows) -> pd.DataFrame:
    return pd.DataFrame({
        "id": pd.Series([r[0] for r in rows], dtype=object),
        "k": np.array([r[1] for r in rows], dtype=np.int64), "l": np.array([r[1] for r in rows], dtype=np.int64),
        "t": np.array([r[2] for r in rows], dtype=np.float64),
        "weight_sum": np.array([r[3] for r in rows], dtype=np.float64),
        "tkl": np.array([r[2] for r in rows], dtype=np.float64),
        "m_score": np.array([r[3] for r in rows], dtype=np.float64),
        "l_severity": np.array([r[2] for r in rows], dtype=np.float64),
    })


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ids, st.integers(1, 10**6), floats, floats), min_size=0, max_size=12))
def test_records_json_reads_back_exactly(rows):
    parsed = json.loads(records_json(_frame(rows), list(RECORD_COLUMNS)))
    assert parsed == [{"id": r[0], "k": r[1], "l": r[1], "t": r[2], "weight_sum": r[3], "tkl": r[2],
                       "m_score": r[3], "l_severity": r[2]} for r in rows]
    assert all(isinstance(record["t"], float) for record in parsed)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(ids, st.integers(1, 10**6), floats, floats), min_size=0, max_size=12))
def test_records_csv_and_json_write_what_pandas_and_json_write(rows):
    """The column-wise writers give the very text of ``DataFrame.to_csv`` and of
    ``json.dumps`` per record (floats as ``repr``, text quoted where needed)."""
    frame = _frame(rows)
    columns = list(RECORD_COLUMNS)
    text = records_csv(frame, columns)
    if not any("\r" in r[0] for r in rows):  # pandas leaves a lone carriage return unquoted; we quote it
        assert text == frame.to_csv(index=False, columns=columns, lineterminator="\n")
    read = list(csv.reader(io.StringIO(text, newline="")))
    assert read[0] == columns and [r[0] for r in read[1:]] == [r[0] for r in rows]
    assert [float(r[3]) for r in read[1:]] == [r[2] for r in rows]
    lines = [json.dumps(record, ensure_ascii=False) for record in frame.to_dict("records")]
    assert records_json(frame, columns) == ("[]" if not rows else "[\n    " + ",\n    ".join(lines) + "\n  ]")


@given(st.lists(floats, max_size=40))
def test_float_text_is_repr(values):
    edges = [0.0, -0.0, 3.0, 1e-4, 9.99e-5, 1e10, 9999999999.5, 1e16, 2.5e-300, 1e300, 0.1]
    values = values + edges
    assert float_text(np.array(values)).to_pylist() == [repr(v) for v in values]


def test_csv_output_equals_the_records_as_pandas_writes_them(capsys, data_dir, tmp_path):
    source = tmp_path / "source.csv"
    text = (data_dir / "thesis_table_3_1.csv").read_text(encoding="utf-8")
    source.write_text(text.replace("\n3,", '\n"3 ""b""",', 1), encoding="utf-8")  # an id to quote
    csv = load_table(source)
    ids = csv.text("id").tolist()
    code, out, err = run_cli(capsys, ["score", source, "--rows", ",".join(ids[3:7]),
                                      "--id-column", "id", "--qi", ",".join(QI), "--sa", ",".join(SA),
                                      "--continuous", "Age", "--weights", data_dir / "thesis_table_4_2_weights.csv",
                                      "--format", "csv"])
    report = Scorer(csv, ROLES).score(locate_by_ids(csv, ids[3:7], "id"),
                                      load_weights(data_dir / "thesis_table_4_2_weights.csv"))
    assert code == 0, err
    assert out == report.records.to_csv(index=False, columns=list(RECORD_COLUMNS), lineterminator="\n")
    assert '\n"3 ""b""",' in out and len(out.splitlines()) == 5


def test_json_output_equals_the_dictionary(capsys, data_dir):
    code, out, err = run_cli(capsys, ["score", data_dir / "thesis_table_3_1.csv", "--rows", "3,4,5,6",
                                      "--id-column", "id", "--qi", ",".join(QI), "--sa", ",".join(SA),
                                      "--continuous", "Age", "--weights", data_dir / "thesis_table_4_2_weights.csv",
                                      "--format", "json"])
    assert code == 0, err
    csv = load_table(data_dir / "thesis_table_3_1.csv")
    report = Scorer(csv, ROLES).score(locate_by_ids(csv, ["3", "4", "5", "6"], "id"),
                                      load_weights(data_dir / "thesis_table_4_2_weights.csv"))
    assert json.loads(out) == json.loads(json.dumps(report.to_json_dict()))


def test_version_and_score_do_not_load_rdf_or_qt():
    code = ("import sys; from tklscore.cli import main; assert main(['--version']) == 0; "
            "assert 'pandas' not in sys.modules, 'pandas'; "
            "main(['score', '/nonexistent.csv', '--rows', '0', '--sa', 'a', '--weights', 'w.csv']); "
            "loaded = [m for m in ('rdflib', 'PySide6', 'networkx', 'pyqtgraph', 'duckdb', 'scipy', "
            "'tklscore.core.risk') if m in sys.modules]; "
            "assert not loaded, loaded")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parent)
    assert done.returncode == 0, done.stderr
    assert "tklscore 0.1.0" in done.stdout and "file not found" in done.stderr


@pytest.mark.parametrize("dtype", ["str", object])
def test_spaces_and_long_cells_are_found_alike_in_arrow_and_object_text(tmp_path, dtype):
    """The loader's checks read Arrow text with Arrow's kernels and other text with pandas:
    the same columns stripped, the same spaces said, the same cell refused."""
    from tklscore.core.errors import InputError
    from tklscore.core.files.text import FIELD_LIMIT
    from tklscore.core.tables.loading import _check_cell_lengths
    from tklscore.core.tables.spaces import strip_frame

    frame = pd.DataFrame({"a": pd.Series(["x", " y", "z"], dtype=dtype), "b": pd.Series(["x", "y ", ""], dtype=dtype),
                          "c": pd.Series(["x", "y", "é z"], dtype=dtype)})
    stripped, where = strip_frame(frame)
    assert (where.columns, where.leading, where.trailing) == (("a", "b"), True, True)
    assert stripped["a"].tolist() == ["x", "y", "z"] and stripped["b"].tolist() == ["x", "y", ""]
    assert strip_frame(frame[["c"]])[1].columns == ()
    _check_cell_lengths(frame, "t.csv")
    long = pd.DataFrame({"a": pd.Series(["x", "é" * FIELD_LIMIT, "y" * (FIELD_LIMIT + 1)], dtype=dtype)})
    with pytest.raises(InputError) as raised:   # 2 bytes a character: more bytes than the limit, not more characters
        _check_cell_lengths(long, "t.csv")
    assert raised.value.row == 4


def test_a_column_without_a_space_byte_is_not_tested_cell_by_cell_and_one_with_a_space_anywhere_is(monkeypatch):
    """Arrow text whose bytes hold no space has no cell to strip (the per-cell test is
    skipped); a space inside a cell, or beyond a sliced column's cells, sends it to that test."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from tklscore.core.tables import spaces

    tested = []
    starts_with = pc.starts_with
    monkeypatch.setattr(pc, "starts_with", lambda *a, **k: tested.append(1) or starts_with(*a, **k))
    monkeypatch.setattr(spaces, "_SCAN_BYTES", 4)          # the scan reads several pieces
    plain = pd.Series(["alpha", "beta", "gamma"] * 5, dtype="str")
    assert spaces.strip_frame(pd.DataFrame({"a": plain}))[1].columns == () and tested == []
    inner = pd.Series(["alpha", "be ta"] * 5 + ["gamma "], dtype="str")   # the space in the last piece
    stripped, where = spaces.strip_frame(pd.DataFrame({"a": inner}))
    assert where.columns == ("a",) and stripped["a"].iloc[-1] == "gamma" and len(tested) == 1
    sliced = pa.array(["a b", "cd", "ef"]).slice(1)                        # the space lies outside the cells
    assert spaces._may_hold_space(sliced) and spaces._has_spaces(pd.Series(pd.arrays.ArrowStringArray(
        pa.chunked_array([sliced.cast(pa.large_string())])))) == (False, False)
