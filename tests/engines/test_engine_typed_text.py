"""A typed Parquet source reads as the in-memory loader's text in every engine statement
(``Backend.column_text``): a float's NaN and missing cells as the empty text, an integer
column holding a missing cell as floats (``31.0``), booleans ``True``/``False``, dates and
text as written. Score, measures, a release design (over the aggregate and over the
records), the profile of ``describe`` and D(r) are memory's to 1e-12."""

from __future__ import annotations

import datetime
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tklscore.core import Roles, Scorer, Weights, load_table, locate_by_ids, locate_table
from tklscore.core.engines import open_backend, score_files
from tklscore.core.engines.design import EngineDesigner
from tklscore.core.engines.lens import release_risk_lens
from tklscore.core.engines.disclosure_risk import disclosure_files
from tklscore.core.engines.measures import measure_files
from tklscore.core.engines.source import profile_source
from tklscore.core.release.designer import ReleaseDesigner
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.release.transform import ReleaseDesign
from tklscore.core.risk import measure_table
from tklscore.core.risk.disclosure_risk import (DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_THRESHOLD,
                                                AttributeParameters, disclosure_risk)
from tklscore.core.risk.lens import risk_lens
from tklscore.core.tables.role_guesses import profile_table

from helpers import examples

import duckdb  # noqa: E402,F401  (a hard dependency: its tests fail, never skip, without it)

from test_engine_design import assert_same as assert_same_json
from test_engine_disclosure_risk import assert_same as assert_same_disclosure
from test_engine_filter import typed_tables
from test_engine_measures import assert_same as assert_same_measures
from test_engines import assert_same_report

NAN, DAY = float("nan"), datetime.date(2000, 1, 1)
IDS = [f"r{i}" for i in range(12)]
ROLES = Roles(qi=["f", "n", "b", "d"], sa=["s", "g", "Age"], continuous=["Age"], identifier="id")
WEIGHTS = Weights([("s", "flu", 0.1), ("s", "hiv", 0.6), ("s", "", 0.25), ("g", "2.5", 0.4), ("g", "", 0.3),
                   ("g", "nan", 0.9), ("g", "7.0", 0.05), ("Age", "[0,10)", 0.2), ("Age", "[10,inf)", 0.35)])


def typed_table() -> pa.Table:
    return pa.table({
        "id": pa.array(IDS),
        "f": pa.array([1.0, NAN, None, 1.0, None, NAN, 2.5, 1.0, 2.5, NAN, 1.0, 2.5]),
        "n": pa.array([31, None, 31, 40, 40, None, 31, 40, 31, 31, None, 40], pa.int64()),
        "b": pa.array([True, False, None, True, True, False, None, False, True, True, False, None]),
        "d": pa.array([DAY, None, DAY, DAY + datetime.timedelta(1), DAY, None, DAY, DAY, None, DAY,
                       DAY + datetime.timedelta(1), DAY], pa.date32()),
        "s": pa.array(["flu", "hiv", None, "flu", "hiv", "flu", None, "flu", "hiv", "hiv", "flu", "flu"]),
        "g": pa.array([2.5, NAN, None, 7.0, 2.5, NAN, 7.0, None, 2.5, 2.5, NAN, 7.0]),
        "Age": pa.array([3.0, 12.0, 41.5, 3.0, 7.0, 15.0, 28.0, 3.0, 12.0, 7.0, 41.5, 15.0]),
    })


@pytest.fixture()
def source(tmp_path) -> Path:
    path = tmp_path / "typed.parquet"
    pq.write_table(typed_table(), path)
    return path


def test_the_engine_reads_each_typed_column_as_the_loader_writes_it(source):
    """The text itself, cell by cell: the rule every statement uses."""
    frame = load_table(source).frame
    with open_backend("duckdb") as backend:
        scan = backend.scan(str(source), relation="__typed")
        read = ", ".join(f"{backend.column_text(scan, c)} AS c{k}" for k, c in enumerate(scan.columns))
        texts = backend.fetch(f"SELECT {read} FROM {scan.relation} ORDER BY __rid")
    for k, column in enumerate(scan.columns):
        assert texts[f"c{k}"].tolist() == frame[column].astype(str).tolist(), column
    assert texts["c1"].tolist()[:3] == ["1.0", "", ""] and texts["c2"].tolist()[:2] == ["31.0", ""]
    assert texts["c3"].tolist()[:3] == ["True", "False", ""]


@pytest.mark.parametrize("release", [dict(rows=IDS[:7]), dict(rows=IDS), dict(filter="f == '' or b == 'True'")])
def test_score_as_in_memory(source, release):
    table = load_table(source)
    scorer = Scorer(table, ROLES)
    engine = score_files("duckdb", str(source), ROLES, WEIGHTS, **release)
    if "rows" in release:
        ids = release["rows"]
    else:
        ids = [IDS[i] for i in range(12) if math.isnan(typed_table()["f"][i].as_py() or NAN)
               or typed_table()["b"][i].as_py() is True]
    memory = scorer.score(locate_by_ids(table, ids, "id"), WEIGHTS)
    assert_same_report(engine, memory)
    assert engine.records["id"].tolist() == ids


@pytest.mark.parametrize("by_id", [True, False])
def test_a_typed_published_file_located_as_in_memory(source, tmp_path, by_id):
    """A published Parquet file of the same types, located by id (its SAs compared with the
    source's: a NaN or missing cell is no conflict) or by all its columns."""
    published = tmp_path / "published.parquet"
    chosen = typed_table().take([1, 2, 5, 6, 9, 11])
    if not by_id:
        chosen = chosen.drop(["id"])
    pq.write_table(chosen, published)
    roles = ROLES if by_id else Roles(qi=ROLES.qi, sa=ROLES.sa, continuous=ROLES.continuous)
    table = load_table(source)
    release = locate_table(table, load_table(published), "id" if by_id else None, roles.continuous, roles.sa)
    assert release.conflicts == [] and len(release.positions) == 6
    memory = Scorer(table, roles).score(release, WEIGHTS)
    engine = score_files("duckdb", str(source), roles, WEIGHTS, published=str(published))
    assert engine.unlocated == release.unlocated == []
    assert_same_report(engine, memory)


def test_the_reproduction_a_float_qi_of_nan_and_missing_cells(tmp_path):
    """The lead's case: a QI [1.0, NaN, None, 1.0, None, NaN] is two classes of three in
    memory (L-Severity 1.0), not three classes (1.5) as 'nan' and '' apart made it."""
    path = tmp_path / "nan_qi.parquet"
    pq.write_table(pa.table({"id": list("abcdef"), "q": pa.array([1.0, NAN, None, 1.0, None, NAN]),
                             "s": list("uvuvvu")}), path)
    roles = Roles(qi=["q"], sa=["s"], identifier="id")
    weights = Weights([("s", "u", 0.3), ("s", "v", 0.7)])
    engine = score_files("duckdb", str(path), roles, weights, rows=list("abcdef"))
    table = load_table(path)
    memory = Scorer(table, roles).score(locate_by_ids(table, list("abcdef"), "id"), weights)
    assert memory.scores.l_severity == pytest.approx(1.0)
    assert_same_report(engine, memory)


@pytest.mark.parametrize("kind", [pa.int64(), pa.string(), pa.float64()])
def test_a_repeated_identifier_is_named_as_written_whatever_its_type(tmp_path, kind):
    """An integer identifier column is checked for repeats as numbers, a text or float one as
    its text: each names the first repeated id in text order ('10' before '9') as written."""
    from tklscore.core import InputError

    ids = [9, 10, 3, 10, 9, 4]
    column = pa.array([str(i) for i in ids]) if kind == pa.string() else pa.array(ids, kind)
    path = tmp_path / "repeated.parquet"
    pq.write_table(pa.table({"id": column, "q": list("aabbab"), "s": list("uvuvvu")}), path)
    written = "10.0" if kind == pa.float64() else "10"
    with open_backend("duckdb") as backend:
        with pytest.raises(InputError, match=rf"identifier '{written}' appears 2 times") as error:
            EngineDesigner(backend, str(path), Roles(qi=["q"], sa=["s"], identifier="id"), cache=False)
    assert error.value.column == "id"


@pytest.mark.parametrize("zeros", [[-0.0, 0.0, 0.0, 1.0], [0.0, -0.0, -0.0, 1.0]])
def test_a_float_column_s_zeros_are_one_value_written_as_the_first(tmp_path, zeros):
    """The loader reads 0.0 and -0.0 as one value, written as the column's first zero: one
    class of three, not two classes."""
    path = tmp_path / "zeros.parquet"
    pq.write_table(pa.table({"id": list("abcd"), "q": pa.array(zeros), "s": list("uvuv")}), path)
    roles = Roles(qi=["q"], sa=["s"], identifier="id")
    weights = Weights([("s", "u", 0.3), ("s", "v", 0.7)])
    table = load_table(path)
    memory = Scorer(table, roles).score(locate_by_ids(table, list("abcd"), "id"), weights)
    engine = score_files("duckdb", str(path), roles, weights, rows=list("abcd"))
    assert memory.records["k"].tolist() == [3, 3, 3, 1]
    assert_same_report(engine, memory)


def test_measures_as_in_memory(source):
    roles = Roles(qi=["f", "b", "d"], sa=["s", "g"], identifier="id")
    memory = measure_table(load_table(source), roles, population=load_table(source), identifier_columns=["n"])
    engine = measure_files("duckdb", str(source), roles, population=str(source), identifying=["n"])
    assert_same_measures(engine.to_json_dict(), memory.to_json_dict())


HIERARCHIES = {"f": Hierarchy.groups("f", [{"known": ["1.0", "2.5"], "unknown": [""]}]),
               "n": Hierarchy.masking("n"), "Age": Hierarchy.intervals("Age", [10, 20])}


@pytest.mark.parametrize("design", [
    ReleaseDesign("aggregate", {"f": 1}, 2, 0.5),
    ReleaseDesign("records", {"n": 1}, 2, 0.5, selection=ReleaseDefinition("P", "ids", ids=tuple(IDS[2:10]))),
    ReleaseDesign("micro", {}, 3, 1.0, {"b"}, {"Age": "mean"}),
])
def test_a_release_design_as_in_memory(source, tmp_path, design):
    memory = ReleaseDesigner(load_table(source), ROLES, HIERARCHIES).evaluate(design, WEIGHTS)
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(source), ROLES, HIERARCHIES)
        engine = designer.evaluate(design, WEIGHTS, preview=100)
        a, b = engine.to_json_dict(), memory.to_json_dict()
        a.pop("notes"), b.pop("notes")
        assert_same_json(a, b)
        frame = memory.transformed.source.frame
        assert designer.published_ids() == frame["id"].iloc[memory.transformed.published].tolist()
        assert designer.suppressed_ids(100) == frame["id"].iloc[memory.transformed.suppressed].tolist()
        expected = memory.transformed.published_table()
        pd.testing.assert_frame_equal(engine.preview.reset_index(drop=True), expected.reset_index(drop=True),
                                      check_dtype=False)
        designer.write_release(design, str(tmp_path / "release.csv"))
        assert (tmp_path / "release.csv").read_text(encoding="utf-8") == expected.to_csv(index=False,
                                                                                        lineterminator="\n")
        assert designer.column("g").values.tolist() == ["2.5", "", "7.0"]   # a column of no role


def test_describe_profiles_as_in_memory(source):
    """Distinct values, empty cells, numbers (a value's mean length is counted over the rows
    out of core and over the distinct values in memory, for CSV sources as well)."""
    def counted(profiles):
        return [(p.name, p.rows, p.distinct, p.numeric, p.empty, p.integers) for p in profiles]

    with open_backend("duckdb") as backend:
        engine = profile_source(source, backend=backend)
    assert counted(engine) == counted(profile_table(load_table(source)))
    assert [(p.distinct, p.empty) for p in engine[1:5]] == [(3, 5), (3, 3), (3, 3), (3, 3)]


def test_disclosure_risk_as_in_memory(source):
    params = [AttributeParameters("f", 0.5, 1.0), AttributeParameters("n", 0.25, 1.0),
              AttributeParameters("b", 0.5, 0.5), AttributeParameters("g", 0.75, 1.0),
              AttributeParameters("d", 0.5, 1.0)]
    weights = Weights([("f", "", 0.5), ("f", "1.0", 0.25), ("n", "31.0", 0.6), ("b", "True", 0.3),
                       ("g", "", 0.4), ("g", "nan", 0.9), ("d", "2000-01-01", 0.2)])
    memory = disclosure_risk(load_table(source), params, weights, epsilon=0.0)
    engine = disclosure_files("duckdb", str(source), params, weights, epsilon=0.0, id_column="id")
    assert engine.ids.tolist() == IDS
    assert_same_disclosure(engine, memory)


def test_a_release_s_risk_lens_as_in_memory(source):
    """The Risk view out of core: D(r) over the release's typed columns, the riskiest records."""
    params = [AttributeParameters("f", 0.5, 1.0), AttributeParameters("n", 0.25, 1.0),
              AttributeParameters("b", 0.5, 0.5), AttributeParameters("s", 0.75, 1.0)]
    weights = Weights([("f", "", 0.5), ("f", "1.0", 0.25), ("n", "31.0", 0.6), ("b", "True", 0.3),
                       ("s", "", 0.4), ("s", "flu", 0.1), ("s", "hiv", 0.6), ("g", "", 0.3), ("g", "2.5", 0.4),
                       ("g", "7.0", 0.05), ("Age", "[0,10)", 0.2), ("Age", "[10,inf)", 0.35)])
    ids = IDS[1:10]
    table = load_table(source)
    memory = risk_lens(table, ROLES, locate_by_ids(table, ids, "id").positions, ids=np.array(ids, dtype=object),
                       weights=weights, parameters=params)
    with open_backend("duckdb") as backend:
        backend.open_source(str(source), ROLES)
        backend.open_published_ids(ids)
        engine = release_risk_lens(backend, ROLES, params, weights, alpha=DEFAULT_ALPHA, epsilon=DEFAULT_EPSILON,
                                   threshold=DEFAULT_THRESHOLD)
    pd.testing.assert_frame_equal(engine.riskiest(), memory.riskiest(), check_dtype=False, rtol=1e-12, atol=1e-12)
    drawn, histogram = memory.disclosure_histogram(), engine.disclosure_histogram()
    assert histogram.counts.tolist() == drawn.counts.tolist() and histogram.zero == drawn.zero
    assert engine.disclosure.d_max == pytest.approx(float(memory.disclosure.d.max()), rel=1e-12, abs=1e-12)


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed_tables(), st.lists(st.sampled_from(list("ijfbd")), min_size=1, max_size=3, unique=True),
       st.sampled_from(list("sfbj")))
def test_random_typed_tables_score_as_in_memory(table, qi, sa):
    """Tables of test_engine_filter.py: integers with and without missing cells, floats with
    NaN, 0.0 and -0.0 and 1e20, booleans, dates and text, as QIs and an SA."""
    qi = [c for c in qi if c != sa]
    roles = Roles(qi=qi or ["d"], sa=[sa, "Age"], continuous=["Age"])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "typed.parquet"
        pq.write_table(table, path)
        loaded = load_table(path)
        values = sorted(set(loaded.frame[sa].astype(str)) | {"nan", "true", "false"})
        weights = Weights([(sa, v, (k + 1) / (len(values) + 1)) for k, v in enumerate(values)]
                          + [("Age", "[-10,10)", 0.2), ("Age", "[10,inf)", 0.35)])
        rows = [str(i) for i in range(0, len(loaded), 2)]
        memory = Scorer(loaded, roles).score(locate_by_ids(loaded, rows), weights)
        engine = score_files("duckdb", str(path), roles, weights, rows=rows)
        assert_same_report(engine, memory)
