"""The measures with the out-of-core engine (``measures --engine duckdb``, ``score --measures
--engine duckdb``) are the in-memory engine's: random tables (hypothesis), the thesis
table, the CLI; the measures the engines do not compute are refused by name."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import examples, run_cli
from tklscore.core import Roles, load_table
from tklscore.core.engines.measures import measure_files
from tklscore.core.risk import measure_table

TOLERANCE = 1e-12


def assert_same(engine, memory, path: str = "") -> None:
    """Equal, floats to 1e-12: JSON, dataclasses field by field, arrays element by element."""
    import dataclasses

    if dataclasses.is_dataclass(memory):
        for f in dataclasses.fields(memory):
            assert_same(getattr(engine, f.name), getattr(memory, f.name), f"{path}.{f.name}")
        return
    numeric = (int, float, np.integer, np.floating)
    assert type(engine) is type(memory) or (isinstance(engine, numeric) and isinstance(memory, numeric)) or \
        (isinstance(engine, (list, tuple, np.ndarray)) and isinstance(memory, (list, tuple, np.ndarray))), path
    if isinstance(memory, dict):
        assert engine.keys() == memory.keys(), path
        for key in memory:
            assert_same(engine[key], memory[key], f"{path}.{key}")
    elif isinstance(memory, (list, tuple, np.ndarray)):
        assert len(engine) == len(memory), path
        for i, (a, b) in enumerate(zip(engine, memory)):
            assert_same(a, b, f"{path}[{i}]")
    elif isinstance(memory, (float, np.floating)):
        assert engine == pytest.approx(memory, rel=TOLERANCE, abs=TOLERANCE, nan_ok=True), path
    else:
        assert engine == memory, path


@st.composite
def measured_tables(draw):
    n = draw(st.integers(1, 25))
    frame = pd.DataFrame({
        "q0": draw(st.lists(st.sampled_from(["x", "y", "*"]), min_size=n, max_size=n)),
        "q1": draw(st.lists(st.sampled_from(["1", "2", "*", ""]), min_size=n, max_size=n)),
        "s0": draw(st.lists(st.sampled_from(["a", "b", "c", ""]), min_size=n, max_size=n)),
        "s1": draw(st.lists(st.sampled_from(["0", "1.5", "2", "30"]), min_size=n, max_size=n)),
        "who": draw(st.lists(st.sampled_from(["ann", "bob", "cy"]), min_size=n, max_size=n)),
        "w": draw(st.lists(st.sampled_from(["1", "2.5", "10", "0", "1000", "3.25"]), min_size=n, max_size=n)),
    })
    extra = draw(st.integers(0, 5))  # population records beyond the table
    population = pd.concat([frame, frame.sample(extra, replace=True, random_state=1) if extra else frame.iloc[:0]])
    sa = draw(st.sampled_from([["s0"], ["s0", "s1"], ["s1"], []]))
    options = {"exclude_suppressed": draw(st.booleans()),
               "sampling_fraction": None,  # population uniques: the thesis test (Pitman divides by zero on some tiny tables in memory)
               "identifying": draw(st.sampled_from([(), ("who",)])),
               "risk_threshold": draw(st.sampled_from([0.2, 0.5])),
               "sample_weight": draw(st.sampled_from([None, "w"])),
               "qi_importance": draw(st.booleans())}
    return frame, population, sa, options


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(measured_tables())
def test_random_tables_measure_as_in_memory(case):
    frame, population_frame, sa, options = case
    roles = Roles(qi=["q0", "q1"], sa=sa, continuous=["s1"] if "s1" in sa else [])
    with tempfile.TemporaryDirectory() as folder:
        table_path, population_path = Path(folder) / "t.csv", Path(folder) / "p.csv"
        frame.to_csv(table_path, index=False)
        population_frame.to_csv(population_path, index=False)
        table, population = load_table(table_path), load_table(population_path)
        if options["exclude_suppressed"] and ((frame["q0"] == "*") & (frame["q1"] == "*")).all():
            with pytest.raises(Exception, match="every record is suppressed"):
                measure_files("duckdb", str(table_path), roles, exclude_suppressed=True)
            return
        memory = measure_table(table, roles, population=population, sampling_fraction=options["sampling_fraction"],
                               identifier_columns=options["identifying"], risk_threshold=options["risk_threshold"],
                               exclude_suppressed=options["exclude_suppressed"],
                               sample_weight=options["sample_weight"], qi_importance=options["qi_importance"])
        engine = measure_files("duckdb", str(table_path), roles, population=str(population_path),
                               sampling_fraction=options["sampling_fraction"], identifying=options["identifying"],
                               risk_threshold=options["risk_threshold"],
                               exclude_suppressed=options["exclude_suppressed"],
                               sample_weight=options["sample_weight"], qi_importance=options["qi_importance"])
    assert_same(engine.to_json_dict(), memory.to_json_dict())


def test_thesis_table_measures_in_the_cli(capsys, data_dir):
    argv = ["measures", data_dir / "thesis_table_3_1.csv", "--qi", "Job,City,Gender",
            "--sa", "Disease,Medication,Age,Initial Diagnosis", "--continuous", "Age", "--id-column", "id",
            "--population", data_dir / "thesis_table_3_1.csv", "--sampling-fraction", "0.5", "--format", "json"]
    code, memory, err = run_cli(capsys, argv)
    assert code == 0, err
    code, engine, err = run_cli(capsys, argv + ["--engine", "duckdb", "--memory-limit", "512MB"])
    assert code == 0, err
    expected = json.loads(memory)
    assert expected["k"] == 1 and expected["t"] == pytest.approx(0.8571428571428571)
    assert_same(json.loads(engine), expected)
    code, table, err = run_cli(capsys, argv[:-2] + ["--engine", "duckdb"])
    assert code == 0 and "k-anonymity" in table and "journalist" in table


def test_score_measures_with_the_engine(capsys, tmp_path, data_dir):
    argv = ["score", data_dir / "thesis_table_3_1.csv", "--published", data_dir / "thesis_table_3_6_published.csv",
            "--qi", "Job,City,Gender", "--sa", "Disease,Medication,Age,Initial Diagnosis", "--continuous", "Age",
            "--weights", data_dir / "thesis_table_4_2_weights.csv", "--measures", "--format", "json"]
    code, memory, err = run_cli(capsys, argv)
    assert code == 0, err
    code, engine, err = run_cli(capsys, argv + ["--engine", "duckdb"])
    assert code == 0, err
    expected = json.loads(memory)
    assert expected["measures"]["k"] == 2 and expected["measures"]["risk"]["journalist"] is not None
    assert_same(json.loads(engine)["measures"], expected["measures"])
    code, out, err = run_cli(capsys, argv + ["--engine", "duckdb", "--output", tmp_path / "r.parquet"])
    assert code == 0, err
    assert_same(json.loads(out)["measures"], expected["measures"])


def test_individual_risk_and_qi_importance_with_the_engine(capsys, data_dir, tmp_path):
    """sdcMicro's individual risk and QI importance of the thesis table, as in memory; a
    sampling weight that is not a number or negative names its row; too many QIs for QI
    importance out of core say so."""
    argv = ["measures", data_dir / "thesis_table_3_1.csv", "--qi", "Job,City,Gender", "--sa", "Disease",
            "--sample-weight", "Age", "--qi-importance", "--format", "json"]
    code, memory, err = run_cli(capsys, argv)
    assert code == 0, err
    code, engine, err = run_cli(capsys, argv + ["--engine", "duckdb"])
    assert code == 0, err
    expected = json.loads(memory)
    assert len(expected["qi_importance"]) == 7 and expected["risk"]["individual_risk"]["global"] > 0
    assert_same(json.loads(engine), expected)
    bad = tmp_path / "bad.csv"
    bad.write_text("q,w\na,1\nb,x\na,-2\n")
    code, _, err = run_cli(capsys, ["measures", bad, "--qi", "q", "--sample-weight", "w", "--engine", "duckdb"])
    assert code == 2 and "row 3" in err and "sample weight 'x' is not a number (1 such cell(s))" in err
    bad.write_text("q,w\na,1\nb,2\na,-2\n")
    code, _, err = run_cli(capsys, ["measures", bad, "--qi", "q", "--sample-weight", "w", "--engine", "duckdb"])
    assert code == 2 and "row 4" in err and "sample weight -2 is negative" in err
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"c{i}" for i in range(13)) + "\n" + ",".join("1" * 13) + "\n")
    code, _, err = run_cli(capsys, ["measures", wide, "--qi", ",".join(f"c{i}" for i in range(13)),
                                    "--qi-importance", "--engine", "duckdb"])
    assert code == 2 and "at most 12 quasi-identifiers are allowed out of core" in err


def test_pitman_solver_far_from_its_solution_returns_instead_of_looping():
    """Found by the random tables above: with sampling fraction 0.1 the Newton steps of
    Pitman's estimator went to arguments near -1e300, where ψ's recurrence never ends."""
    from tklscore.core.risk.population_uniqueness import digamma, trigamma

    values = np.array([-1e300, -math.inf, math.nan, 2.5])
    assert np.isnan(digamma(values)[:3]).all() and np.isnan(trigamma(values)[:3]).all()
    assert digamma(values)[3] == pytest.approx(0.7031566406452432, rel=1e-12)
    assert trigamma(values)[3] == pytest.approx(0.4903577561002349, rel=1e-12)


# ---------------------------------------------------------------------------------------
# every registered measure (core/risk/registry.py), on every engine: a new measure is
# compared here by being registered

from tklscore.core.risk.aggregates import CLASS_SIZES, MemoryAggregates  # noqa: E402
from tklscore.core.risk.registry import MEASURES, MeasureRequest, compute  # noqa: E402


def registry_cases(folder: Path) -> list[tuple[str, Path, Roles, dict, dict]]:
    """Tables with every option a measure needs: a population, identifier columns, sampling
    weights, a sampling fraction, QI importance, suppressed records."""
    rng = np.random.default_rng(11)
    cases = []
    for i, n in enumerate((7, 40, 300)):
        frame = pd.DataFrame({"q0": rng.choice(["x", "y", "*"], n), "q1": rng.choice(["1", "2", "*", ""], n),
                              "s0": rng.choice(["a", "b", "c", ""], n), "s1": rng.choice(["0", "1.5", "2", "30"], n),
                              "who": rng.choice(["ann", "bob", "cy"], n), "w": rng.choice(["1", "2.5", "10"], n)})
        path, population = folder / f"t{i}.csv", folder / f"p{i}.csv"
        frame.to_csv(path, index=False)
        pd.concat([frame, frame.iloc[:3]]).to_csv(population, index=False)
        roles = Roles(qi=["q0", "q1"], sa=["s0", "s1"], continuous=["s1"])
        memory = {"population": load_table(population), "identifier_columns": ["who"], "sample_weight": "w",
                  "sampling_fraction": 0.5, "qi_importance": True, "exclude_suppressed": bool(i % 2)}
        engine = {"population": str(population), "identifying": ("who",), "sample_weight": "w",
                  "sampling_fraction": 0.5, "qi_importance": True, "exclude_suppressed": bool(i % 2)}
        cases.append((f"random{i}", path, roles, memory, engine))
    return cases


@pytest.fixture(scope="module")
def measured(tmp_path_factory, data_dir):
    """Each case measured once by each engine (DuckDB here; Spark in test_engine_spark.py)."""
    folder = tmp_path_factory.mktemp("registry")
    cases = registry_cases(folder)
    thesis = data_dir / "thesis_table_3_1.csv"
    cases.append(("thesis", thesis, Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Age"], continuous=["Age"]),
                  {"population": load_table(thesis), "sampling_fraction": 0.5, "qi_importance": True},
                  {"population": str(thesis), "sampling_fraction": 0.5, "qi_importance": True}))
    out = []
    for name, path, roles, memory_options, engine_options in cases:
        memory = measure_table(load_table(path), roles, **memory_options)
        engine = measure_files("duckdb", str(path), roles, **engine_options)
        out.append((name, memory, engine))
    return out


@pytest.mark.parametrize("key", [m.key for m in MEASURES])
def test_every_registered_measure_is_the_same_on_duckdb(measured, key):
    # every measure has a value on some case (else the comparison would say nothing)
    assert any(memory.value(key) is not None for _, memory, _ in measured), key
    for name, memory, engine in measured:
        if key == "records":   # per-record arrays: in memory; an engine keeps the records
            arrays = memory.value(key)
            assert len(arrays["record_rows"]) == len(arrays["prosecutor_records"]) == memory.classes.mean * \
                memory.classes.count
            assert len(engine.value(key)["record_rows"]) == 0
            continue
        assert_same(engine.value(key), memory.value(key), f"{name}: {key}")


def test_a_measure_fetches_only_the_aggregates_it_needs(tmp_path):
    """k needs the class sizes and nothing more: the plan runs no (class, value) group-by
    for it, in memory or in the engine."""
    from tklscore.core.engines import open_backend
    from tklscore.core.engines.measures import EngineAggregates
    from tklscore.core.tables.codes import factorize

    frame = pd.DataFrame({"q": ["a", "a", "b"], "s": ["x", "y", "x"]})
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    roles = Roles(qi=["q"], sa=["s"])
    request = MeasureRequest()
    memory = MemoryAggregates({"q": factorize(frame["q"])}, {"s": factorize(frame["s"])}, set(), 3, marker="*",
                              exclude_suppressed=False)
    assert compute(memory, request, ["k"]).values == {"k": 1} and memory.fetched == [CLASS_SIZES]
    with open_backend("duckdb") as backend:
        backend.open_source(str(path), roles)
        engine = EngineAggregates(backend, roles)
        assert compute(engine, request, ["k"]).values == {"k": 1} and engine.fetched == [CLASS_SIZES]
        computed = compute(engine, request, ["recursive_c"])   # reads l_distinct first
        assert set(computed.values) == {"l_distinct", "recursive_c"}
        assert computed.fetched == [CLASS_SIZES, "value counts of s", "(class, value) pairs of s"]


def test_the_registry_declares_what_each_measure_reads():
    from tklscore.core.risk.aggregates import AGGREGATES
    from tklscore.core.risk.registry import BY_KEY

    assert len(BY_KEY) == len(MEASURES)
    for measure in MEASURES:
        assert measure.needs and measure.needs <= set(AGGREGATES), measure.key
        assert all(key in BY_KEY for key in measure.after), measure.key


@pytest.mark.parametrize("marker", ["'", "\\", "x\\", "')) OR 1=1 --", "a\\'b"])
def test_a_suppressed_marker_with_quotes_and_backslashes_is_a_value(tmp_path, marker):
    """The marker reaches the engine as a parameter, never as SQL text (issue 19 §1)."""
    frame = pd.DataFrame({"q0": [marker, "x", marker, "y"], "q1": [marker, "1", marker, marker],
                          "s0": ["a", "b", "a", "c"]})
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    roles = Roles(qi=["q0", "q1"], sa=["s0"])
    memory = measure_table(load_table(path), roles, suppressed_marker=marker, exclude_suppressed=True)
    engine = measure_files("duckdb", str(path), roles, suppressed_marker=marker, exclude_suppressed=True)
    assert memory.record_rows.tolist() == [1, 3]           # rows 0 and 2 hold the marker in every QI
    assert_same(engine.to_json_dict(), memory.to_json_dict())


@pytest.mark.parametrize("rows", [1, 3, 8])
def test_measures_read_the_pairs_in_batches_to_the_same_numbers(tmp_path, rows):
    """The (class, value) pairs streamed a few at a time (every class whole in one batch):
    every measure is the very number read from one batch, and the in-memory engine's."""
    from tklscore.core.engines import scoring

    rng = np.random.default_rng(rows)
    n = 400
    frame = pd.DataFrame({"q0": rng.choice(["x", "y", "z"], n), "q1": rng.choice(["1", "2", "3", "4"], n),
                          "s0": rng.choice(["a", "b", "c", "d"], n),
                          "s1": rng.choice(["0", "1.5", "2", "30", "7.25", "8"], n)})
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    roles = Roles(qi=["q0", "q1"], sa=["s0", "s1"], continuous=["s1"])
    whole = measure_files("duckdb", str(path), roles)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scoring, "PAIR_BATCH_ROWS", rows)
        batched = measure_files("duckdb", str(path), roles)
    memory = measure_table(load_table(path), roles)
    assert batched.models.l_distinct > 1 and batched.models.recursive_c is not None
    for key in [m.key for m in MEASURES if m.key != "records"]:
        assert batched.value(key) == whole.value(key), key
        assert_same(batched.value(key), memory.value(key), key)
