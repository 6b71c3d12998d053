"""Filter releases out of core (core/release/filters.py's SQL + Backend.open_published_filter):
the SQL selects exactly the records ``filter_positions`` selects in memory, its values passed
as parameters."""

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
from tklscore.core.tables.spaces import strip_frame
from tklscore.core.release.filters import ColumnKind, FilterError, SqlColumn, Text, parse_filter
from tklscore.core.release.selection import filter_positions

from helpers import examples

TEXTS = ["", "a", "b", "007", "7", "B b", "x'y", "Ü", "1.50", "30", "a\\b", "x\\", "\"", "1e400", " 5 "]
NUMBERS = ["3", "3.5", "-1", "0", "30", "1e2", "007", "", ".5", "+2", "1.", "-0"]
COLUMNS = ["Job", "Initial Diagnosis", "Age", "Note"]   # Age: numbers (and empty cells); the others mostly text
ROLES = Roles(qi=["Job"], sa=["Initial Diagnosis", "Age"], continuous=["Age"])
ANY_ROLES = Roles(qi=["Job"], sa=["Note"])      # roles that any drawn table fits (the filter ignores them)


@pytest.fixture(scope="module")
def backend():
    with DuckDBBackend() as engine:
        yield engine


def engine_ids(backend, path, roles, expression) -> list[str]:
    """The engine's selection; [] when it refuses a filter that selects nothing."""
    backend.open_source(str(path), roles)
    return filtered_ids(backend, roles, expression)


def filtered_ids(backend, roles, expression) -> list[str]:
    """:func:`engine_ids` of the source the back-end has open (several filters over one
    scan: a scan is a few Spark jobs)."""
    try:
        backend.open_published_filter(expression, roles)
    except FilterError as error:
        if "selects none" in str(error):
            return []
        raise
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
    except InputError as error:
        with pytest.raises(InputError) as refused:
            engine_ids(backend, path, roles, expression)
        assert str(refused.value) == str(error), expression   # the same words, from the same rule
        return
    assert engine_ids(backend, path, roles, expression) == expected, expression


# ---------------------------------------------------------------------------- translation

def test_translation_passes_every_value_as_a_parameter():
    columns = {"Job": SqlColumn('"Job"', '"Job"'), "Initial Diagnosis": SqlColumn('"ID"', '"ID"'),
               "Age": SqlColumn('"Age"', '"Age"')}
    kinds = {"Age": ColumnKind(True), "Job": ColumnKind(False, "a", 2)}
    parsed = parse_filter("`Initial Diagnosis` == 'Flu' & Age >= 30 | not Job in ['a', \"b's\", ')) OR 1=1 --']")
    sql, params = parsed.to_sql(columns, kinds)
    assert sql == ("(((\"ID\" = ?) AND COALESCE(TRY_CAST(TRIM(\"Age\") AS DOUBLE) >= ?, FALSE)) OR "
                   "(NOT (\"Job\" IN (?, ?, ?))))")
    assert params == ["Flu", 30.0, "a", "b's", ")) OR 1=1 --"]
    assert "'" not in sql and "Flu" not in sql                        # no value in the SQL text
    sql, params = parse_filter("1 < Age <= 3.5").to_sql(columns, kinds)
    assert sql == ("(COALESCE(TRY_CAST(TRIM(\"Age\") AS DOUBLE) > ?, FALSE) AND "
                   "COALESCE(TRY_CAST(TRIM(\"Age\") AS DOUBLE) <= ?, FALSE))") and params == [1.0, 3.5]
    sql, params = parse_filter("Age != -2").to_sql(columns, kinds)
    assert sql == "COALESCE(TRY_CAST(TRIM(\"Age\") AS DOUBLE) <> ?, TRUE)" and params == [-2.0]
    assert parse_filter("`Initial Diagnosis` == Job and Age > 1").columns == ("Initial Diagnosis", "Job", "Age")
    with pytest.raises(FilterError, match="'Job' holds text such as 'a' in row 2, not only numbers, so it cannot "
                                          "be compared with the number 3"):
        parse_filter("Job == 3").to_sql(columns, kinds)


@pytest.mark.parametrize("expression, message", [
    ("", "the filter expression is empty"),
    ("Job.str.contains('a')", "`Job.str.contains\\('a'\\)` — method calls are not allowed in a filter"),
    ("Age + 1 > 3", "`Age \\+ 1` — arithmetic \\('\\+'\\) is not allowed in a filter"),
    ("Job == 'a' and", "ends too soon"),
    ("`Initial Diagnosis == 'a'", "a backtick opens a column name that is not closed"),
    ("Pay > 3", "'Pay' is not a column of the source"),
    ("Job", "`Job` on its own is not a condition"),
    ("Job in Note", "a list of values such as \\['a', 'b'\\] was expected"),
    ("Job is 'a'", "'is' is not allowed in a filter: write == or !="),
    ("Job < 3", "'Job' holds text such as 'Lawyer' in row 2, not only numbers"),
    ("@x == 1", "`@x` — '@' variables are not allowed in a filter"),
])
def test_what_is_refused_is_named(backend, data_dir, expression, message):
    roles = Roles(qi=["Job"], sa=["Age"], continuous=["Age"], identifier="id")
    path = data_dir / "thesis_table_3_1.csv"
    with pytest.raises(FilterError, match=message):
        memory_ids(path, roles, expression)
    with pytest.raises(FilterError, match=message):
        engine_ids(backend, path, roles, expression)


def quote_cases():
    """Each quote/backslash value with its literals, and lists mixing them with an injection."""
    from filter_support import QUOTED

    cases = [f"Job == {literal}" for literals in QUOTED.values() for literal in literals]
    cases += [f"Job != {literals[0]}" for literals in QUOTED.values()]
    cases += ["Job in ['x\\\\', \"')) OR 1=1 --\"]", "Job in ('x\\\\', ')) OR 1=1 --')",
              "Job not in ['\\\\', \"'\", '\"', 'a\\b']", "Job > '\\\\' and Job < 'a\\b'",
              "Job == '\\\\' or Job == '\\\\\\\\' or Job == 'x\\\\\\\\'"]
    return cases


def assert_quotes_select_as_in_memory(backend, folder) -> None:
    """Every quote/backslash combination selects on the engine exactly the records memory
    selects, and memory the one record holding the value (tests/core/release/test_filters.py)."""
    from filter_support import QUOTED, quote_table

    path, table = quote_table(folder)
    roles = Roles(qi=["Job"], identifier="id")
    for row, literals in enumerate(QUOTED.values()):
        for literal in literals:
            assert memory_ids(path, roles, f"Job == {literal}") == [str(row)], literal
    backend.open_source(str(path), roles)
    for expression in quote_cases():
        expected = memory_ids(path, roles, expression)
        assert filtered_ids(backend, roles, expression) == expected, (backend.name, expression)
    injected = memory_ids(path, roles, "Job in ['x\\\\', \"')) OR 1=1 --\"]")
    assert injected == [str(list(QUOTED).index("')) OR 1=1 --")), str(list(QUOTED).index("x\\"))]


def test_quotes_and_backslashes_select_as_in_memory(backend, tmp_path):
    assert_quotes_select_as_in_memory(backend, tmp_path)


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
    cases = {"n == '31.0'": ["0", "3"], "k == '10'": ["3"], "k < 2": ["0"], "f == '1e+20'": ["2"],
             "f == ''": ["1", "3"], "b == 'True'": ["0", "3"], "b == ''": ["1"], "d >= '2000'": ["0"],
             "Age > 35 and s != ''": ["3"], "s == ''": ["1", "2"], "n == 31": ["0", "3"], "n != 31": ["1", "2"],
             "f > 1": ["2"], "not f > 1": ["0", "1", "3"], "k in [3, '10']": ["2", "3"]}
    for expression, ids in cases.items():
        assert memory_ids(path, roles, expression) == ids, expression
        assert engine_ids(backend, path, roles, expression) == ids, expression
    for expression, message in {"k < '2'": "'k' holds numbers, so `k < '2'` would order them as text",
                                "b == 1": "'b' holds text such as 'True' in row 1, not only numbers",
                                "d < 3": "'d' holds text such as '2020-01-02' in row 1"}.items():
        with pytest.raises(FilterError, match=message):
            memory_ids(path, roles, expression)
        with pytest.raises(FilterError, match=message):
            engine_ids(backend, path, roles, expression)


# ---------------------------------------------------------------------------- hypothesis

def _name(column: str) -> str:
    return f"`{column}`" if " " in column else column


# random filters as trees, written as text and evaluated by a row-by-row reference (below)
TEXT_LITERALS = TEXTS + ["B", "", "Flu"]
NUMBER_LITERALS = ["3", "3.5", "-1", "0", "30", "100", "7", "1e2", ".5", "-0", "1e400"]
OPS = ["==", "!=", "<", "<=", ">", ">="]


def _literal(draw):
    if draw(st.booleans()):
        return ("number", draw(st.sampled_from(NUMBER_LITERALS)))
    return ("text", draw(st.sampled_from(TEXT_LITERALS)))


def _written(value) -> str:
    kind, text = value
    return text if kind == "number" else repr(text)   # Python's repr is the filter's quoting for these


@st.composite
def leaves(draw):
    column = draw(st.sampled_from(COLUMNS))
    shape = draw(st.sampled_from(["op", "swapped", "chain", "in", "columns"]))
    op = draw(st.sampled_from(OPS))
    if shape == "op":
        return ("cmp", column, op, _literal(draw))
    if shape == "swapped":
        return ("swapped", column, op, _literal(draw))
    if shape == "chain":
        return ("chain", _literal(draw), op, column, draw(st.sampled_from(["<", "<=", "=="])), _literal(draw))
    if shape == "in":
        return ("in", column, draw(st.booleans()), tuple(_literal(draw) for _ in range(draw(st.integers(0, 3)))))
    return ("columns", column, op, draw(st.sampled_from(COLUMNS)))


trees = st.recursive(leaves(), lambda inner: st.one_of(
    st.tuples(st.sampled_from(["and", "or", "&", "|"]), inner, inner),
    st.tuples(st.sampled_from(["not", "~"]), inner)), max_leaves=5)


def render(tree) -> str:
    kind = tree[0]
    if kind in ("and", "or", "&", "|"):
        return f"({render(tree[1])}) {kind} ({render(tree[2])})"
    if kind in ("not", "~"):
        return f"{kind} ({render(tree[1])})"
    if kind == "cmp":
        return f"{_name(tree[1])} {tree[2]} {_written(tree[3])}"
    if kind == "swapped":
        return f"{_written(tree[3])} {tree[2]} {_name(tree[1])}"
    if kind == "chain":
        return f"{_written(tree[1])} {tree[2]} {_name(tree[3])} {tree[4]} {_written(tree[5])}"
    if kind == "in":
        return f"{_name(tree[1])} {'not in' if tree[2] else 'in'} [{', '.join(map(_written, tree[3]))}]"
    return f"{_name(tree[1])} {tree[2]} {_name(tree[3])}"


class Refused(Exception):
    pass


def reference(tree, frame: pd.DataFrame) -> list[bool]:
    """The filter's meaning, row by row, written independently of core/release/filters.py."""
    import math
    import operator
    import re

    compare = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
               ">=": operator.ge}
    swap = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}

    def number(text):
        if re.fullmatch(r" *[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)? *", text, re.ASCII) and \
                math.isfinite(float(text)):
            return float(text)
        return None

    def holds_numbers(column) -> bool:
        values = [v for v in frame[column] if v != ""]
        return bool(values) and all(number(v) is not None for v in values)

    def literal_value(value):
        return float(value[1]) if value[0] == "number" else value[1]

    def one(row, column, op, value) -> bool:
        cell = frame[column].iloc[row]
        if value[0] == "text":
            if op not in ("==", "!=") and holds_numbers(column):
                raise Refused
            return compare[op](cell, value[1])
        if not holds_numbers(column):
            raise Refused
        target = float(value[1])
        if not math.isfinite(target):
            raise Refused
        mine = number(cell)
        return op == "!=" if mine is None else compare[op](mine, target)

    def holds(node, row) -> bool:
        kind = node[0]
        if kind in ("and", "&"):
            a, b = holds(node[1], row), holds(node[2], row)
            return a and b
        if kind in ("or", "|"):
            a, b = holds(node[1], row), holds(node[2], row)
            return a or b
        if kind in ("not", "~"):
            return not holds(node[1], row)
        if kind == "cmp":
            return one(row, node[1], node[2], node[3])
        if kind == "swapped":
            return one(row, node[1], swap[node[2]], node[3])
        if kind == "chain":
            a = one(row, node[3], swap[node[2]], node[1])
            b = one(row, node[3], node[4], node[5])
            return a and b
        if kind == "in":
            hit = [one(row, node[1], "==", v) for v in node[3]]   # each member is checked, even after a hit
            hit = any(hit)
            return not hit if node[2] else hit
        left, op, right = node[1], node[2], node[3]
        a, b = frame[left].iloc[row], frame[right].iloc[row]
        numbers_a, numbers_b = holds_numbers(left), holds_numbers(right)
        if numbers_a and numbers_b:
            x, y = number(a), number(b)
            return op == "!=" if x is None or y is None else compare[op](x, y)
        if op not in ("==", "!=") and (numbers_a or numbers_b):
            raise Refused
        return compare[op](a, b)

    return [holds(tree, row) for row in range(len(frame))]


@st.composite
def sources(draw):
    n = draw(st.integers(1, 12))
    texts = st.sampled_from(TEXTS)
    numbers = st.sampled_from(NUMBERS)

    def column(values):
        return draw(st.lists(values, min_size=n, max_size=n))

    # a column of text, of numbers (as written, some cells empty) or of both
    return pd.DataFrame({"Job": column(texts), "Initial Diagnosis": column(texts | numbers),
                         "Age": column(numbers), "Note": column(draw(st.sampled_from([texts, numbers])))},
                        dtype=object)


def check_against_reference(frame: pd.DataFrame, tree, path: Path, backends) -> None:
    """The reference's selection (or refusal) = memory's = each engine's."""
    expression = render(tree)
    frame.to_csv(path, index=False)
    table = load_table(path)
    frame, _ = strip_frame(frame)    # spaces around a cell are not part of its value (core/tables/spaces.py)
    assert table.frame.values.tolist() == frame.values.tolist()    # the file holds the values as drawn
    try:
        expected = [str(i) for i, hit in enumerate(reference(tree, frame)) if hit]
    except Refused:
        with pytest.raises(FilterError):
            filter_positions(table, ANY_ROLES, expression)
        for backend in backends:
            with pytest.raises(FilterError):
                engine_ids(backend, path, ANY_ROLES, expression)
        return
    assert [str(p) for p in filter_positions(table, ANY_ROLES, expression)] == expected, expression
    for backend in backends:
        assert engine_ids(backend, path, ANY_ROLES, expression) == expected, (backend.name, expression)


@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sources(), trees)
def test_memory_and_duckdb_select_what_the_reference_selects(backend, frame, tree):
    with tempfile.TemporaryDirectory() as folder:
        check_against_reference(frame, tree, Path(folder) / "source.csv", [backend])


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
    for engine in ([], ["--engine", "duckdb"]):
        code, _, err = run_cli(capsys, argv[:3] + ["Job.str.len() > 3"] + argv[4:] + engine)
        assert code == 2 and "`Job.str.len()` — method calls are not allowed in a filter" in err
        assert "Traceback" not in err


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


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
            if data.draw(st.booleans()):   # a number: compares with a column of numbers as numbers
                return f"{column} {op} {data.draw(st.sampled_from(['0', '2', '-3', '0.5', '1e20', '3e-8', '12']))}"
            return f"{column} {op} {data.draw(st.sampled_from(texts))!r}"

        expression = comparison()
        for _ in range(data.draw(st.integers(0, 2))):
            expression = f"({expression}) {data.draw(st.sampled_from(['and', 'or']))} ({comparison()})"
        expression += f" or Age {data.draw(st.sampled_from(['<', '>=']))} {data.draw(st.sampled_from([0, 2.5, 30]))}"
        assert_same_selection(backend, path, roles, expression)


def test_a_parquet_float_whose_nan_its_statistics_leave_out_is_read_as_empty(backend, tmp_path):
    """A Parquet writer leaves NaN out of a float column's min/max; DuckDB must not take those
    bounds to mean there is no NaN (it folded isnan() to false, and the filter then named
    the NaN cell as text 'nan' where memory reads it as empty)."""
    path = tmp_path / "nan.parquet"
    pq.write_table(pa.table({"f": pa.array([0.5, -0.0, float("nan")]), "j": pa.array([None] * 3, pa.int32()),
                             "Age": pa.array([1.0, 2.5, 30.0])}), path)
    roles = Roles(qi=["f"], sa=["Age"], continuous=["Age"])
    assert memory_ids(path, roles, "f == 0") == engine_ids(backend, path, roles, "f == 0") == ["1"]
    assert memory_ids(path, roles, "f == ''") == engine_ids(backend, path, roles, "f == ''") == ["2"]
    assert_same_selection(backend, path, roles, "(f == 0) and (j == 0) or Age < 0")
    with pytest.raises(InputError, match="'j' holds no numbers"):
        engine_ids(backend, path, roles, "(f == 0) and (j == 0) or Age < 0")


ODD_NAMES = ['a"b', "it's", "back\\slash", "se;mi --", "x`y"]


def odd_names_table(folder) -> Path:
    """Column names holding quotes, a backslash, SQL comment signs and a backtick."""
    frame = pd.DataFrame({name: [f"{i}{name}" for i in range(3)] for name in ODD_NAMES} | {"n": ["1", "2", "3"]})
    path = folder / "odd.csv"
    frame.to_csv(path, index=False)
    assert load_table(path).columns == ODD_NAMES + ["n"]
    return path


def assert_odd_names_are_identifiers(backend, folder) -> None:
    path = odd_names_table(folder)
    roles = Roles(qi=["n"])
    backend.open_source(str(path), roles)
    for i, name in enumerate(ODD_NAMES[:-1]):   # a backtick cannot be written inside a backticked name
        expression = f"`{name}` == {str(Text(f'1{name}'))} or n >= 3"
        assert memory_ids(path, roles, expression) == ["1", "2"], expression
        assert filtered_ids(backend, roles, expression) == ["1", "2"], (backend.name, expression)


def test_column_names_are_quoted_identifiers(backend, tmp_path):
    assert_odd_names_are_identifiers(backend, tmp_path)


def test_paths_and_delimiters_with_quotes_are_literals(backend, tmp_path):
    """A file name holding a quote and a backslash, a quote as delimiter: DuckDB's string
    literals (no backslash escapes; quotes doubled) name them exactly."""
    folder = tmp_path / "it's \\ here"
    folder.mkdir()
    path = folder / "o'neil\\'x.csv"
    path.write_text("id'Job\n1'a\n2'b\n", encoding="utf-8")
    backend.open_source(str(path), Roles(qi=["Job"], identifier="id"), delimiter="'")
    backend.open_published_filter("Job == 'b'", Roles(qi=["Job"], identifier="id"))
    assert backend.fetch("SELECT id FROM published")["id"].tolist() == ["2"]
