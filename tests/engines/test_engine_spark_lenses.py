"""The measures, designs, disclosure risk, sources and filters on Spark (local[2], one session
for the module: tests/engines/conftest.py) give the in-memory engine's numbers: every measure
of the registry, the thesis table's measures, a release design and the table it writes, the
B2 oracle of D(r), a source described and filtered, filters on quotes, typed Parquet, odd
column names, spaces around values and a late line that is not UTF-8. The scores on Spark
and its bad input are in test_engine_spark.py (a module apart, so xdist runs the two on
different workers)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from test_engine_filter import (assert_odd_names_are_identifiers, check_against_reference, engine_ids,
                                memory_ids, sources, trees)
from test_engines import QI, ROLES, SA
from tklscore.core import InputError, Roles, load_table, load_weights
from tklscore.core.engines.spark_engine import SparkBackend
from tklscore.core.risk.registry import MEASURES


def test_measures_on_spark(spark, data_dir):
    """``measures --engine spark``: the thesis table's privacy models and risks as in memory."""
    from test_engine_measures import assert_same
    from tklscore.core.engines.measures import measure_files
    from tklscore.core.risk import measure_table

    path = data_dir / "thesis_table_3_1.csv"
    roles = Roles(qi=QI, sa=SA, continuous=["Age"], identifier="id")
    table = load_table(path)
    memory = measure_table(table, roles, population=table, sampling_fraction=0.5)
    with SparkBackend(session=spark) as backend:
        engine = measure_files("spark", str(path), roles, population=str(path), sampling_fraction=0.5,
                               backend=backend)
    assert engine.k == 1 and engine.models.t == pytest.approx(0.8571428571428571, abs=1e-15)
    assert_same(engine.to_json_dict(), memory.to_json_dict())


def test_a_release_design_on_spark_equals_memory(spark, tmp_path, data_dir):
    """The design's SQL (core/engines/design.py) runs on Spark as on DuckDB: scores, measures,
    utility and the published table written by Spark as the in-memory designer's."""
    from test_engine_design import assert_same

    from tklscore.core.engines.design import EngineDesigner
    from tklscore.core.release.designer import ReleaseDesigner
    from tklscore.core.release.hierarchy import Hierarchy
    from tklscore.core.release.selection import ReleaseDefinition
    from tklscore.core.release.transform import ReleaseDesign

    source = data_dir / "thesis_table_3_1.csv"
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    hierarchies = {"City": Hierarchy.groups("City", [{"Alberta": ["Calgary", "Edmonton"]}]),
                   "Age": Hierarchy.intervals("Age", [10, 20])}
    design = ReleaseDesign("d", {"City": 1, "Age": 1}, 2, 0.5, ["Gender"],
                           selection=ReleaseDefinition("P", "ids", ids=("0", "1", "2", "3", "4", "5")))
    memory = ReleaseDesigner(load_table(source), ROLES, hierarchies).evaluate(design, weights)
    with SparkBackend(session=spark) as backend:
        designer = EngineDesigner(backend, str(source), ROLES, hierarchies)
        engine = designer.evaluate(design, weights, preview=10)
        a, b = engine.to_json_dict(), memory.to_json_dict()
        a.pop("notes"), b.pop("notes")
        assert_same(a, b)
        designer.write_release(design, str(tmp_path / "release.parquet"))
    written = pd.read_parquet(tmp_path / "release.parquet")
    pd.testing.assert_frame_equal(written.reset_index(drop=True), memory.transformed.published_table(),
                                  check_dtype=False)


def test_disclosure_risk_on_spark(spark, tmp_path):
    """``disclosure-risk --engine spark``: Table 1 of Orooji & Knapp as in memory (the B2 oracle)."""
    from disclosure_support import PARAMS, VALUE_WEIGHTS, table_1
    from tklscore.core.engines.disclosure_risk import disclosure_files
    from tklscore.core.risk.disclosure_risk import disclosure_risk
    from tklscore.core.risk.lens import disclosure_histogram

    path = tmp_path / "table_1.csv"
    table_1().to_csv(path, index=False)
    memory = disclosure_risk(table_1(), PARAMS, VALUE_WEIGHTS, epsilon=0.0, alpha=100, threshold=250)
    with SparkBackend(session=spark) as backend:
        engine = disclosure_files("spark", str(path), PARAMS, VALUE_WEIGHTS, epsilon=0.0, alpha=100, threshold=250,
                                  backend=backend)
    assert [round(float(d) / 100, 6) for d in engine.d] == [1.199909, 3.062323, 2.200833, 2.367966, 1.923946]
    assert engine.d == pytest.approx(memory.d, rel=1e-12) and engine.l_sum == pytest.approx(memory.l_sum, rel=1e-12)
    assert engine.above_threshold == 1
    assert engine.histogram.counts.tolist() == disclosure_histogram(memory.d, 250).counts.tolist()


def test_source_described_counted_and_filtered_on_spark(spark, data_dir):
    """core/engines/source.py and the filter's SQL through Spark's scan, as with DuckDB."""
    from tklscore.core.engines.source import column_values, describe_source

    source = data_dir / "thesis_table_3_1.csv"
    table = load_table(source)
    roles = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Age", "Initial Diagnosis"], continuous=["Age"],
                  identifier="id")
    expression = "Age >= 30 and `Initial Diagnosis` != 'Flu' or City in ['Calgary']"
    with SparkBackend(session=spark) as backend:
        summary = describe_source(source, backend=backend, preview_rows=3)
        values = column_values(source, "City", backend=backend)
        backend.open_source(str(source), roles)
        backend.open_published_filter(expression, roles)
        ids = backend.fetch("SELECT id FROM published ORDER BY pos")["id"].tolist()
    assert summary.rows == 7 and summary.columns == table.columns
    assert summary.preview.values.tolist() == table.frame.iloc[:3].values.tolist()
    codes = table.codes("City")
    assert values["value"].tolist() == list(codes.uniques) == ["Calgary", "Edmonton"]
    assert values["count"].tolist() == [3, 4]
    from tklscore.core.release.selection import filter_positions

    assert ids == table.text("id").iloc[filter_positions(table, roles, expression)].tolist() == ["0", "1", "2", "3", "4"]


@pytest.fixture(scope="module")
def measured_on_spark(spark, tmp_path_factory):
    """Two of the registry's cases (test_engine_measures.py) measured in memory and on Spark."""
    from test_engine_measures import registry_cases
    from tklscore.core.engines.measures import measure_files
    from tklscore.core.risk import measure_table

    out = []
    for name, path, roles, memory_options, engine_options in registry_cases(tmp_path_factory.mktemp("spark"))[:2]:
        memory = measure_table(load_table(path), roles, **memory_options)
        with SparkBackend(session=spark) as backend:
            engine = measure_files("spark", str(path), roles, backend=backend, **engine_options)
        out.append((name, memory, engine))
    return out


@pytest.mark.parametrize("key", [m.key for m in MEASURES if m.key != "records"])   # records: kept by the engine
def test_every_registered_measure_is_the_same_on_spark(measured_on_spark, key):
    from test_engine_measures import assert_same

    for name, memory, engine in measured_on_spark:
        assert_same(engine.value(key), memory.value(key), f"{name}: {key}")


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_filters_on_spark_select_what_the_reference_selects(spark, data):
    """A few random filters (Spark is slow): the reference = memory = DuckDB = Spark."""
    from tklscore.core.engines.duckdb_engine import DuckDBBackend

    frame, tree = data.draw(sources()), data.draw(trees)
    with tempfile.TemporaryDirectory() as folder, SparkBackend(session=spark) as on_spark, \
            DuckDBBackend() as on_duckdb:
        check_against_reference(frame, tree, Path(folder) / "source.csv", [on_duckdb, on_spark])


def test_filter_numbers_of_typed_parquet_on_spark(spark, tmp_path):
    """Spark writes floats as 1.0E20, not as the loader does: their numbers compare, their text is refused."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from tklscore.core.release.filters import FilterError

    path = tmp_path / "typed.parquet"
    pq.write_table(pa.table({"f": pa.array([0.5, None, 1e20, float("nan")]), "k": pa.array([1, 2, 3, 10])}), path)
    roles = Roles(qi=["k"], sa=["f"])
    with SparkBackend(session=spark) as backend:
        for expression in ("f > 1", "f != 0.5", "k >= 3 or f == 0.5", "k == '10'"):
            assert engine_ids(backend, path, roles, expression) == memory_ids(path, roles, expression), expression
        with pytest.raises(FilterError, match="'f' holds floating-point numbers that this engine does not write "
                                              "as the loader does"):
            engine_ids(backend, path, roles, "f == '1e+20'")


def test_filter_column_names_are_quoted_identifiers_on_spark(spark, tmp_path):
    """Quotes, a backslash and a backtick in column names: Spark's scan and the filter quote them."""

    with SparkBackend(session=spark) as backend:
        assert_odd_names_are_identifiers(backend, tmp_path)


def test_spaces_around_values_stripped_on_spark_as_in_memory(spark, tmp_path):
    """core/tables/spaces.py on Spark: a ', '-separated file reads as the loader reads it,
    the spaces kept with keep_spaces, and where they were is said alike."""
    from tklscore.core.engines.source import column_values, describe_source

    path = tmp_path / "spaced.csv"
    path.write_text("age, sex, salary\n39, Male, <=50K\n50, Female, >50K\n38, Male, <=50K\n", encoding="utf-8")
    table = load_table(path)
    with SparkBackend(session=spark) as backend:
        summary = describe_source(path, backend=backend)
        values = column_values(path, "sex", backend=backend)
        kept = column_values(path, "sex", backend=backend, keep_spaces=True)
    assert summary.preview.values.tolist() == table.frame.values.tolist()
    assert summary.spaces_stripped == table.spaces_stripped
    assert summary.spaces_stripped.columns == ("sex", "salary")
    assert values["value"].tolist() == ["Male", "Female"] and values["count"].tolist() == [2, 1]
    assert kept["value"].tolist() == [" Male", " Female"]


def test_spark_names_a_line_that_is_not_utf8_past_the_sample(spark, tmp_path):
    """Spark's scan checks every line of a local CSV first (Spark would read 'Montr\ufffdal')."""
    path = tmp_path / "late.csv"
    rows = "".join(f"{i},Edmonton\n" for i in range(40_000))
    path.write_bytes(("id,City\n" + rows).encode("utf-8") + "40000,Montréal\n".encode("cp1252"))
    with SparkBackend(session=spark) as backend, \
            pytest.raises(InputError, match=r"late.csv, row 40002: the line is not UTF-8"):
        backend.scan(str(path))


def test_spark_detects_the_delimiter_as_the_loader_does(spark, data_dir):
    """Adult as the ARX project ships it is ';'-separated: Spark reads it without
    --delimiter, as memory and DuckDB do (Spark's reader alone would take ',')."""
    from tklscore.core.engines.source import column_values, describe_source

    path = data_dir / "adult" / "adult_subset.csv"
    table = load_table(path)
    with SparkBackend(session=spark) as backend:
        summary = describe_source(path, backend=backend, preview_rows=5)
        values = column_values(path, "sex", backend=backend)
        scan = backend.scan(str(path))    # the back-end itself, given no delimiter
    assert scan.columns == table.columns
    assert summary.columns == table.columns and len(table.columns) == 9
    assert summary.rows == len(table.frame)
    assert summary.preview.values.tolist() == table.frame.iloc[:5].values.tolist()
    codes = table.codes("sex")
    assert sorted(values["value"].tolist()) == sorted(codes.uniques)
