"""Filter releases out of core (core/engines/filter_sql.py + Backend.open_published_filter):
the SQL selects exactly the records ``filter_positions`` selects in memory."""

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

from tklscore.core import InputError, Roles, load_table
from tklscore.core.engines.duckdb_engine import DuckDBBackend
from tklscore.core.engines.filter_sql import FilterColumn, filter_to_sql, parse_filter
from tklscore.core.release.selection import filter_positions

TEXTS = ["", "a", "b", "007", "7", "B b", "x'y", "Ü", "1.50", "30"]
NUMBERS = ["3", "3.5", "-1", "0", "30", "1e2", "007"]
COLUMNS = ["Job", "Initial Diagnosis", "Age", "Note"]   # Age: continuous; the others text
ROLES = Roles(qi=["Job"], sa=["Initial Diagnosis", "Age"], continuous=["Age"])


@pytest.fixture(scope="module")
def backend():
    with DuckDBBackend() as engine:
        yield engine


def engine_ids(backend, path, roles, expression) -> list[str]:
    backend.open_source(str(path), roles)
    backend.open_published_filter(expression, roles)
    return backend.fetch("SELECT id FROM published ORDER BY pos")["id"].tolist()


def memory_ids(path, roles, expression) -> list[str]:
    table = load_table(path)
    positions = filter_positions(table, roles, expression)
    if roles.identifier:
        return table.text(roles.identifier).iloc[positions].tolist()
    return [str(p) for p in positions]


def assert_same_selection(backend, path, roles, expression) -> None:
    try:
        expected = memory_ids(path, roles, expression)
    except InputError:
        with pytest.raises(InputError):
            engine_ids(backend, path, roles, expression)
        return
    assert engine_ids(backend, path, roles, expression) == expected, expression


# ---------------------------------------------------------------------------- translation

def test_translation_of_the_grammar():
    columns = {"Job": FilterColumn('"Job"'), "Initial Diagnosis": FilterColumn('"ID"'),
               "Age": FilterColumn('"Age"', number="AGE")}
    sql = filter_to_sql("`Initial Diagnosis` == 'Flu' & Age >= 30 | not Job in ['a', \"b's\", 1]", columns)
    assert sql == "(((\"ID\" = 'Flu') AND (AGE >= CAST('30.0' AS DOUBLE))) OR (NOT (\"Job\" IN ('a', 'b''s'))))"
    assert filter_to_sql("1 < Age <= 3.5", columns) == \
        "((AGE > CAST('1.0' AS DOUBLE)) AND (AGE <= CAST('3.5' AS DOUBLE)))"
    assert filter_to_sql("Job == 3", columns) == "FALSE"       # text never equals a number
    assert filter_to_sql("~(Job != 3)", columns) == "(NOT TRUE)"
    assert filter_to_sql("Age == -2", columns) == "(AGE = CAST('-2.0' AS DOUBLE))"
    assert parse_filter("`Initial Diagnosis` == Job and Age > 1").columns == ["Initial Diagnosis", "Job", "Age"]


@pytest.mark.parametrize("expression, message", [
    ("", "the filter expression is empty"),
    ("Job.str.contains('a')", "the call `?Job`?.str.contains\\('a'\\) is not supported out of core"),
    ("Age + 1 > 3", "the arithmetic Age \\+ 1 is not supported out of core"),
    ("Job == 'a' and", "is not a valid expression"),
    ("`Initial Diagnosis == 'a'", "opens a backtick that is not closed"),
    ("Pay > 3", "names 'Pay', which is not a column of the source"),
    ("Job", "does not give true/false for each record"),
    ("Job in Note", "'in' Note \\(it needs a list"),
    ("Job is 'a'", "the operator 'is' is not supported out of core"),
    ("Job < 3", "orders the column 'Job' against the number 3"),
    ("@x == 1", "is not a valid expression"),
])
def test_what_is_not_supported_is_named(expression, message):
    columns = {c: FilterColumn(c, "N" if c == "Age" else None) for c in COLUMNS}
    with pytest.raises(InputError, match=message):
        filter_to_sql(expression, columns)


def test_thesis_filter_with_an_identifier(backend, data_dir):
    roles = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Age", "Initial Diagnosis"], continuous=["Age"],
                  identifier="id")
    path = data_dir / "thesis_table_3_1.csv"
    for expression in ["Job == 'Lawyer'", "Age >= 40 and `Initial Diagnosis` != 'Flu'",
                       "City in ['Oslo', 'Bergen'] or not Gender == 'F'", "id > '3'", "Job < 3"]:
        assert_same_selection(backend, path, roles, expression)
    assert engine_ids(backend, path, roles, "Job == 'Lawyer'") == memory_ids(path, roles, "Job == 'Lawyer'") != []


def test_parquet_typed_columns_compare_as_their_text(backend, tmp_path):
    table = pa.table({"n": pa.array([31, None, 45, 31], pa.int64()), "k": pa.array([1, 2, 3, 10], pa.int32()),
                      "f": pa.array([0.5, None, 1e20, float("nan")]), "b": pa.array([True, None, False, True]),
                      "d": pa.array([datetime.date(2020, 1, 2), None, datetime.date(1999, 12, 31), None]),
                      "Age": pa.array([30.0, 40.0, 50.0, 60.0]), "s": pa.array(["x", None, "", "y"])})
    path = tmp_path / "typed.parquet"
    pq.write_table(table, path)
    roles = Roles(qi=["s"], sa=["Age"], continuous=["Age"])
    cases = {"n == '31.0'": ["0", "3"], "k == '10'": ["3"], "k < '2'": ["0", "3"], "f == '1e+20'": ["2"],
             "f == ''": ["1", "3"], "b == 'True'": ["0", "3"], "b == ''": ["1"], "d >= '2000'": ["0"],
             "Age > 35 and s != ''": ["3"], "s == ''": ["1", "2"]}
    for expression, ids in cases.items():
        assert memory_ids(path, roles, expression) == ids, expression
        assert engine_ids(backend, path, roles, expression) == ids, expression


# ---------------------------------------------------------------------------- hypothesis

def _name(column: str) -> str:
    return f"`{column}`" if " " in column else column


@st.composite
def comparisons(draw):
    column = draw(st.sampled_from(COLUMNS))
    numeric = column == "Age"
    literal = (st.sampled_from(["3", "3.5", "-1", "0", "30", "100", "7"]) if numeric
               else st.sampled_from([repr(t) for t in TEXTS]))
    mixed = st.sampled_from(["3", "'a'", "'30'"])
    shape = draw(st.sampled_from(["op", "swapped", "chain", "in", "columns", "mixed"]))
    op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
    if shape == "op":
        return f"{_name(column)} {op} {draw(literal)}"
    if shape == "swapped":
        return f"{draw(literal)} {op} {_name(column)}"
    if shape == "chain":
        return f"{draw(literal)} {op} {_name(column)} {draw(st.sampled_from(['<', '<=', '==']))} {draw(literal)}"
    if shape == "in":
        members = draw(st.lists(literal | mixed, max_size=3))
        return f"{_name(column)} {draw(st.sampled_from(['in', 'not in']))} [{', '.join(members)}]"
    if shape == "columns":
        other = draw(st.sampled_from([c for c in COLUMNS if (c == "Age") == numeric]))
        return f"{_name(column)} {op} {_name(other)}"
    return f"{_name(column)} {draw(st.sampled_from(['==', '!=']))} {draw(mixed)}"


expressions = st.recursive(
    comparisons(),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["and", "or", "&", "|"]), inner).map(lambda t: f"({t[0]}) {t[1]} ({t[2]})"),
        st.tuples(inner, st.sampled_from(["and", "or", "&", "|"]), comparisons()).map(
            lambda t: f"{t[0]} {t[1]} {t[2]}" if t[1] in ("&", "|") else f"({t[0]}) {t[1]} {t[2]}"),
        inner.map(lambda e: f"not ({e})"),
        inner.map(lambda e: f"~({e})"),
    ),
    max_leaves=5)


@st.composite
def sources(draw):
    n = draw(st.integers(1, 12))
    return pd.DataFrame({"Job": draw(st.lists(st.sampled_from(TEXTS), min_size=n, max_size=n)),
                         "Initial Diagnosis": draw(st.lists(st.sampled_from(TEXTS), min_size=n, max_size=n)),
                         "Age": draw(st.lists(st.sampled_from(NUMBERS), min_size=n, max_size=n)),
                         "Note": draw(st.lists(st.sampled_from(TEXTS), min_size=n, max_size=n))})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sources(), expressions)
def test_sql_selection_equals_filter_positions(backend, frame, expression):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "source.csv"
        frame.to_csv(path, index=False)
        assert_same_selection(backend, path, ROLES, expression)


# ---------------------------------------------------------------------------- the CLI

def test_cli_score_filter_in_memory_and_out_of_core(capsys, data_dir):
    import json

    from helpers import run_cli

    argv = ["score", data_dir / "thesis_table_3_1.csv", "--filter", "Age >= 30 and `Initial Diagnosis` != 'Flu'",
            "--id-column", "id", "--qi", "Job,City,Gender", "--sa", "Disease,Medication,Age,Initial Diagnosis",
            "--continuous", "Age", "--weights", data_dir / "thesis_table_4_2_weights.csv", "--format", "json"]
    code, memory, err = run_cli(capsys, argv)
    assert code == 0, err
    code, engine, err = run_cli(capsys, argv + ["--engine", "duckdb"])
    assert code == 0, err
    a, b = json.loads(memory), json.loads(engine)
    table = load_table(data_dir / "thesis_table_3_1.csv")
    chosen = table.frame[(table.numeric("Age") >= 30) & (table.frame["Initial Diagnosis"] != "Flu")]["id"].tolist()
    assert [r["id"] for r in a["records"]] == [r["id"] for r in b["records"]] == chosen != []
    for x, y in zip(a["records"], b["records"]):
        assert x["tkl"] == pytest.approx(y["tkl"], rel=1e-12, abs=1e-12)
    assert a["scores"]["tkl"] == pytest.approx(b["scores"]["tkl"], rel=1e-12)
    code, _, err = run_cli(capsys, argv[:3] + ["Job.str.len() > 3"] + argv[4:] + ["--engine", "duckdb"])
    assert code == 2 and "is not supported out of core" in err and "Traceback" not in err


@st.composite
def typed_tables(draw):
    n = draw(st.integers(1, 10))

    def column(values, kind):
        return pa.array(draw(st.lists(values, min_size=n, max_size=n)), kind)

    return pa.table({
        "i": column(st.integers(-3, 12), pa.int64()),
        "j": column(st.none() | st.integers(-3, 12), pa.int32()),
        "f": column(st.none() | st.sampled_from([0.5, -0.0, 2.0, 1e20, 1e-7, float("nan"), 0.1 + 0.2]), pa.float64()),
        "b": column(st.none() | st.booleans(), pa.bool_()),
        "d": column(st.none() | st.dates(datetime.date(1999, 12, 30), datetime.date(2000, 1, 2)), pa.date32()),
        "s": column(st.none() | st.sampled_from(TEXTS), pa.string()),
        "Age": column(st.sampled_from([1.0, 2.5, 30.0, -4.0]), pa.float64()),
    })


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(typed_tables(), st.data())
def test_sql_selection_equals_filter_positions_on_typed_parquet(backend, table, data):
    roles = Roles(qi=["s"], sa=["Age"], continuous=["Age"])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "typed.parquet"
        pq.write_table(table, path)
        frame = load_table(path).frame
        texts = sorted({v for c in "ijfbds" for v in frame[c]} | {"", "1", "True", "2000"})

        def comparison():
            column = data.draw(st.sampled_from(list("ijfbds")))
            if data.draw(st.booleans()):
                members = data.draw(st.lists(st.sampled_from(texts), max_size=3))
                return f"{column} {data.draw(st.sampled_from(['in', 'not in']))} {members!r}"
            op = data.draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]))
            return f"{column} {op} {data.draw(st.sampled_from(texts))!r}"

        expression = comparison()
        for _ in range(data.draw(st.integers(0, 2))):
            expression = f"({expression}) {data.draw(st.sampled_from(['and', 'or']))} ({comparison()})"
        expression += f" or Age {data.draw(st.sampled_from(['<', '>=']))} {data.draw(st.sampled_from([0, 2.5, 30]))}"
        assert_same_selection(backend, path, roles, expression)
