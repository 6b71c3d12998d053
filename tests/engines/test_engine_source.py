"""A source described out of core (core/engines/source.py): the same columns, records and
text as the in-memory loader, and each column's distinct values as ``Table.codes`` has them."""

from __future__ import annotations

import datetime
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import examples
from tklscore.core import InputError, load_table
from tklscore.core.engines.duckdb_engine import DuckDBBackend
from tklscore.core.engines.source import SourceSummary, column_values, describe_source


@pytest.fixture(scope="module")
def backend():
    with DuckDBBackend() as engine:
        yield engine


def assert_like_memory(path: Path, backend, preview_rows: int = 5, **options) -> SourceSummary:
    table = load_table(path, **options)
    summary = describe_source(path, preview_rows=preview_rows, backend=backend, **options)
    assert summary.columns == table.columns
    assert summary.rows == len(table)
    expected = table.frame.iloc[:preview_rows].astype(object)
    assert summary.preview.shape == expected.shape
    for column in table.columns:
        assert summary.preview[column].tolist() == expected[column].tolist(), column
        codes = table.codes(column)
        values = column_values(path, column, backend=backend, **options)
        assert values["value"].tolist() == [str(v) for v in codes.uniques], column
        assert values["count"].tolist() == np.bincount(codes.codes, minlength=codes.cardinality).tolist(), column
        assert values.attrs == {"distinct": codes.cardinality, "beyond": 0}
        shown = column_values(path, column, limit=1, backend=backend, **options)
        assert shown["value"].tolist() == [str(v) for v in codes.uniques[:1]]
        assert shown.attrs == {"distinct": codes.cardinality, "beyond": codes.cardinality - len(shown)}
    return summary


def test_mixed_parquet_reads_as_in_memory(tmp_path, backend):
    table = pa.table({
        "id": pa.array(["007", "8", "9", "10"]),
        "age": pa.array([31, 45, None, 45], pa.int64()),
        "small": pa.array([5, 6, 7, 5], pa.int32()),
        "score": pa.array([0.5, None, float("nan"), -0.0]),
        "city": pa.array(["Oslo", None, "", " Bergen "]),
        "seen": pa.array([datetime.date(2020, 1, 1), None, datetime.date(2021, 2, 3), datetime.date(2020, 1, 1)]),
        "flag": pa.array([True, False, None, True]),
        "at": pa.array([datetime.datetime(2020, 1, 1, 3), None, None, datetime.datetime(2020, 1, 1, 3)]),
    })
    pq.write_table(table, tmp_path / "mixed.parquet")
    summary = assert_like_memory(tmp_path / "mixed.parquet", backend)
    assert summary.kind == "Parquet" and summary.name == "mixed.parquet"
    assert summary.preview["age"].tolist() == ["31.0", "45.0", "", "45.0"]  # as the loader writes them
    assert summary.preview["seen"].tolist() == ["2020-01-01", "", "2021-02-03", "2020-01-01"]
    assert column_values(tmp_path / "mixed.parquet", "score", backend=backend)["value"].tolist() == ["0.5", "", "-0.0"]


def test_csv_keeps_values_as_written(tmp_path, backend):
    path = tmp_path / "people.csv"
    path.write_text(' id ;name ;note\n007; a b ;"x;""y"""\n8;;\n9;a b;"two\nlines"\n', encoding="utf-8")
    summary = assert_like_memory(path, backend)
    assert summary.delimiter == ";" and summary.columns == ["id", "name", "note"]
    assert summary.preview["id"].tolist() == ["007", "8", "9"]
    assert summary.preview["note"].tolist() == ['x;"y"', "", "two\nlines"]


def test_preview_is_the_first_rows_and_limit_counts_the_rest(tmp_path, backend):
    frame = pd.DataFrame({"k": [f"v{i % 7}" for i in range(50)], "n": [str(i) for i in range(50)]})
    frame.to_csv(tmp_path / "t.csv", index=False)
    summary = describe_source(tmp_path / "t.csv", preview_rows=10, backend=backend)
    assert summary.rows == 50 and summary.preview_rows == 10
    assert summary.preview["n"].tolist() == [str(i) for i in range(10)]
    shown = column_values(tmp_path / "t.csv", "k", limit=3, backend=backend)
    assert shown["value"].tolist() == ["v0", "v1", "v2"] and shown["count"].tolist() == [8, 7, 7]
    assert shown.attrs == {"distinct": 7, "beyond": 4}


def test_own_duckdb_when_no_backend_is_given(tmp_path):
    pd.DataFrame({"a": ["1", "2"]}).to_parquet(tmp_path / "t.parquet")
    assert describe_source(tmp_path / "t.parquet").preview["a"].tolist() == ["1", "2"]
    assert column_values(tmp_path / "t.parquet", "a")["count"].tolist() == [1, 1]


def test_bad_sources_are_named(tmp_path, backend):
    with pytest.raises(InputError, match="file not found"):
        describe_source(tmp_path / "absent.csv", backend=backend)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(InputError, match="broken.parquet"):
        describe_source(broken, backend=backend)
    twice = tmp_path / "twice.csv"
    twice.write_text("a,a\n1,2\n", encoding="utf-8")
    with pytest.raises(InputError, match="appears twice"):
        describe_source(twice, backend=backend)
    pd.DataFrame({"a": ["1"]}).to_csv(tmp_path / "ok.csv", index=False)
    with pytest.raises(InputError, match="column 'b' not found"):
        column_values(tmp_path / "ok.csv", "b", backend=backend)


# ---------------------------------------------------------------------------- hypothesis

_TEXT = st.sampled_from(["", "a", "007", "7", " b ", "x,y", 'q"q', "Ünï", "1.50"])


@st.composite
def parquet_tables(draw):
    n = draw(st.integers(1, 12))
    columns = {}
    for j in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["int", "int_null", "float", "text", "date", "bool", "dict"]))
        if kind == "int":
            columns[f"c{j}"] = pa.array(draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)), pa.int64())
        elif kind == "int_null":
            columns[f"c{j}"] = pa.array(draw(st.lists(st.none() | st.integers(-3, 3), min_size=n, max_size=n)),
                                        pa.int32())
        elif kind == "float":
            floats = st.none() | st.sampled_from([0.0, -0.0, 1.5, 2.0, 1e20, 1e-7, float("nan"), 0.1 + 0.2])
            columns[f"c{j}"] = pa.array(draw(st.lists(floats, min_size=n, max_size=n)), pa.float64())
        elif kind == "date":
            dates = st.none() | st.dates(datetime.date(1990, 1, 1), datetime.date(1990, 1, 5))
            columns[f"c{j}"] = pa.array(draw(st.lists(dates, min_size=n, max_size=n)), pa.date32())
        elif kind == "bool":
            columns[f"c{j}"] = pa.array(draw(st.lists(st.none() | st.booleans(), min_size=n, max_size=n)))
        else:
            texts = pa.array(draw(st.lists(st.none() | _TEXT, min_size=n, max_size=n)), pa.string())
            columns[f"c{j}"] = texts.dictionary_encode() if kind == "dict" else texts
    return pa.table(columns)


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parquet_tables())
def test_random_parquet_reads_as_load_table(backend, table):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.parquet"
        pq.write_table(table, path)
        assert_like_memory(path, backend, preview_rows=4)


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(1, 10).flatmap(lambda n: st.lists(st.lists(_TEXT, min_size=n, max_size=n), min_size=1,
                                                     max_size=4)),
       st.sampled_from([",", ";", "\t"]))
def test_random_csv_reads_as_load_table(backend, columns, delimiter):
    frame = pd.DataFrame({f"col {j}": values for j, values in enumerate(columns)})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.csv"
        frame.to_csv(path, index=False, sep=delimiter)
        assert_like_memory(path, backend, preview_rows=4, delimiter=delimiter)
