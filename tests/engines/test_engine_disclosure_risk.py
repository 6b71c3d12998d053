"""Orooji–Knapp D(r) with the out-of-core engine (``disclosure-risk --engine duckdb``) is the
in-memory engine's: the B2 oracles, random tables (hypothesis) from CSV and Parquet, the
histogram the Risk view draws, the CLI (records fetched, or streamed to Parquet with the
summary printed), and bad input."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from disclosure_support import PARAMS, VALUE_WEIGHTS, cases, table_1
from helpers import examples, run_cli
from tklscore.core import InputError, Weights
from tklscore.core.engines.disclosure_risk import disclosure_files
from tklscore.core.risk.disclosure_risk import AttributeParameters, disclosure_risk
from tklscore.core.risk.lens import disclosure_histogram

TOLERANCE = 1e-12


def write(frame: pd.DataFrame, folder: Path, kind: str) -> Path:
    path = folder / f"table.{kind}"
    if kind == "csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path


def assert_same(engine, memory) -> None:
    assert engine.n == len(memory.d)
    assert engine.known_sets == memory.known_sets and engine.splits == memory.splits
    assert engine.l_sum == pytest.approx(memory.l_sum, rel=TOLERANCE, abs=TOLERANCE)
    assert engine.d == pytest.approx(memory.d, rel=TOLERANCE, abs=TOLERANCE)
    assert engine.above_threshold == memory.above_threshold
    assert engine.d_max == pytest.approx(float(memory.d.max()), rel=TOLERANCE, abs=TOLERANCE)
    drawn = disclosure_histogram(memory.d, memory.threshold)
    assert engine.histogram.zero == drawn.zero
    assert engine.histogram.counts.tolist() == drawn.counts.tolist()
    assert engine.histogram.edges == pytest.approx(drawn.edges, rel=TOLERANCE, abs=TOLERANCE)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("epsilon, printed", [
    (0.0, [1.199909, 3.062323, 2.200833, 2.367966, 1.923946]),
    (0.01, [1.194370, 3.055800, 2.195073, 2.345570, 1.918407]),
])
def test_b2_oracles(tmp_path, kind, epsilon, printed):
    """Table 1 of the paper: the printed D(r), as the in-memory engine gives them."""
    path = write(table_1(), tmp_path, kind)
    engine = disclosure_files("duckdb", str(path), PARAMS, VALUE_WEIGHTS, epsilon=epsilon)
    assert [round(float(d), 6) for d in engine.d] == printed
    assert_same(engine, disclosure_risk(table_1(), PARAMS, VALUE_WEIGHTS, epsilon=epsilon))
    assert engine.ids.tolist() == ["0", "1", "2", "3", "4"]


@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cases(), st.sampled_from([0.0, 0.01, 0.2]), st.sampled_from(["csv", "parquet"]),
       st.sampled_from([0.01, 0.5, 0.0]))
def test_random_tables_as_in_memory(case, epsilon, kind, threshold):
    frame, params, weights, alpha = case
    value_weights = Weights([(a, v, w) for (a, v), w in weights.items()])
    memory = disclosure_risk(frame, params, value_weights, alpha=alpha, epsilon=epsilon, threshold=threshold)
    with tempfile.TemporaryDirectory() as folder:
        path = write(frame, Path(folder), kind)
        engine = disclosure_files("duckdb", str(path), params, value_weights, alpha=alpha, epsilon=epsilon,
                                  threshold=threshold)
    assert_same(engine, memory)


def test_numbers_weighed_by_interval_and_empty_cells(tmp_path):
    """A numeric attribute takes its interval's weight, counted on its exact values; an
    empty categorical cell is a value of its own."""
    frame = pd.DataFrame({"Income": ["39.5", "40", "40.0", "12"], "Job": ["a", "", "", "a"]})
    params = [AttributeParameters("Income", 0.5, 1.0), AttributeParameters("Job", 0.9, 0.5)]
    weights = Weights([("Income", "[0,40)", 0.25), ("Income", "[40,inf)", 1.0), ("Job", "a", 1.0)])
    path = tmp_path / "t.csv"
    path.write_text("Income,Job\n39.5,a\n40,\n40.0,\n12,a\n")
    engine = disclosure_files("duckdb", str(path), params, weights, epsilon=0.0)
    assert_same(engine, disclosure_risk(frame, params, weights, epsilon=0.0))


def test_no_weight_anywhere_gives_zero_risk(tmp_path):
    path = write(table_1(), tmp_path, "csv")
    params = [AttributeParameters("Age", 0.5, 0.0), AttributeParameters("Race", 0.5, 0.0)]
    engine = disclosure_files("duckdb", str(path), params, None, epsilon=0.0)
    assert engine.d.tolist() == [0.0] * 5 and engine.zero == 5 and len(engine.histogram.counts) == 0
    assert_same(engine, disclosure_risk(table_1(), params, None, epsilon=0.0))


def b2_files(folder: Path) -> list[str]:
    table = folder / "t1.csv"
    table_1().to_csv(table, index=False)
    params = folder / "params.csv"
    params.write_text("attribute,pk,weight\nAge,0.3,0\nGender,0.8,0\nRace,0.7,0\nIncome,0.005,0.9\n"
                      "Disease,0.001,1\n")
    weights = folder / "vw.csv"
    weights.write_text('attribute,value,weight\nIncome,"[0,40)",1\nIncome,"[40,70]",0.7\nDisease,Flu,0.2\n'
                       "Disease,Cancer,1\n")
    return ["disclosure-risk", table, "--attributes", params, "--value-weights", weights]


@pytest.mark.parametrize("extra", [[], ["--format", "json"], ["--format", "json", "--id-column", "Income"]])
def test_cli_prints_what_the_in_memory_command_prints(capsys, tmp_path, extra):
    argv = b2_files(tmp_path) + extra
    code, memory, _ = run_cli(capsys, argv)
    assert code == 0
    code, engine, err = run_cli(capsys, argv + ["--engine", "duckdb", "--memory-limit", "512MB"])
    assert code == 0 and err == ""
    assert engine == memory


def test_cli_streams_the_records_to_parquet_and_prints_the_summary(capsys, tmp_path):
    argv = b2_files(tmp_path) + ["--engine", "duckdb", "--epsilon", "0", "--alpha", "100", "--threshold", "250"]
    out = tmp_path / "records.parquet"
    code, printed, _ = run_cli(capsys, argv + ["--output", out])
    assert code == 0
    assert "Known sets kept (PK > ε = 0): 32" in printed and "records with D > 250: 1 (20 %)" in printed
    assert "largest D = 306.2" in printed and f"Per-record results: {out} (Parquet)" in printed
    records = pd.read_parquet(out)
    assert list(records.columns) == ["row", "l_sum", "d"] and records["row"].tolist() == [0, 1, 2, 3, 4]
    memory = disclosure_risk(table_1(), PARAMS, VALUE_WEIGHTS, alpha=100, epsilon=0.0, threshold=250)
    assert records["d"].to_numpy() == pytest.approx(memory.d, rel=TOLERANCE)
    code, printed, _ = run_cli(capsys, argv + ["--output", out, "--format", "json", "--id-column", "Income"])
    summary = json.loads(printed)
    assert summary["above_threshold"] == 1 and summary["records"] == 5 and summary["splits"] == 32
    assert summary["records_file"] == str(out) and sum(summary["histogram"]["counts"]) == 5
    assert pd.read_parquet(out)["id"].tolist() == ["60", "36", "45", "50", "65"]


def test_bad_input(capsys, tmp_path):
    argv = b2_files(tmp_path)
    code, _, err = run_cli(capsys, argv + ["--engine", "duckdb", "--memory-limit", "lots"])
    assert code == 2 and "--memory-limit 'lots' is not a size" in err
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not really")
    code, _, err = run_cli(capsys, ["disclosure-risk", broken] + argv[2:] + ["--engine", "duckdb"])
    assert code == 2 and str(broken) in err and "Traceback" not in err
    code, _, err = run_cli(capsys, argv + ["--memory-limit", "1GB"])
    assert code == 2 and "apply to --engine duckdb or spark" in err
    code, _, err = run_cli(capsys, argv + ["--engine", "duckdb", "--id-column", "Disease"])
    assert code == 2 and "identifier 'Flu' appears 4 times" in err
    with pytest.raises(InputError, match="attribute 'Salary' is not a column"):
        disclosure_files("duckdb", str(tmp_path / "t1.csv"), [AttributeParameters("Salary", 0.5, 1.0)])
    odd = tmp_path / "odd.csv"
    odd.write_text("Income\n10\nten\n20\n")
    with pytest.raises(InputError) as error:
        disclosure_files("duckdb", str(odd), [AttributeParameters("Income", 0.5, 1.0)],
                         Weights([("Income", "[0,40)", 1.0)]))
    assert error.value.row == 3 and error.value.column == "Income" and "'ten'" in str(error.value)


def test_histogram_bins_every_d_by_one_rule_in_sql_and_in_memory():
    """The bug hypothesis found: three records with D = 0.06 binned 19 on one side, 20 on the
    other, because DuckDB's LOG10 and numpy's differ by an ulp (0.6, 0.75, …) and 0.06 lies on
    the middle edge of [0.01, 0.36]. Bins are now decided on D against the edges as values of D
    (``bin_bounds``), the same comparisons in SQL and numpy: D on an edge, an ulp either side,
    and the values whose logarithms differ land in the same bin everywhere."""
    from tklscore.core.engines import open_backend
    from tklscore.core.engines.plan import DisclosurePlan
    from tklscore.core.risk.disclosure_risk import bin_bounds, bin_counts, histogram_edges

    edges = histogram_edges(0.01, 0.36, 0.01)
    bounds = bin_bounds(edges)
    assert len(edges) == 41 and len(bounds) == 39
    assert np.log10(0.06) == pytest.approx(edges[20], rel=1e-15)   # 0.06 on the middle edge
    on_edges = np.concatenate([bounds, np.nextafter(bounds, 0), np.nextafter(bounds, 1)])
    d = np.concatenate([[0.01, 0.06, 0.06, 0.06, 0.36, 0.6, 0.75, 0.0], on_edges,
                        np.random.default_rng(7).uniform(0.01, 0.36, 500)])
    d = d[(d == 0) | ((d >= 0.01) & (d <= 0.36))]
    memory = bin_counts(d[d > 0], bounds)
    backend = open_backend("duckdb")
    try:
        backend.register("dr_records", pd.DataFrame({"d": d}))
        binned = backend.fetch(DisclosurePlan.histogram(bounds))
    finally:
        backend.close()
    engine = np.zeros(40, dtype=np.int64)
    engine[binned["b"].to_numpy(dtype=np.int64)] = binned["c"].to_numpy(dtype=np.int64)
    assert engine.tolist() == memory.tolist() and memory.sum() == (d > 0).sum()
    assert memory[np.searchsorted(bounds, 0.06, side="right")] >= 3
    # away from the edges the bins are numpy.histogram's over log10 D
    inside = d[(d > 0) & (np.abs(np.log10(np.maximum(d, 1e-300))[:, None] - edges[None, :]).min(axis=1) > 1e-9)]
    assert bin_counts(inside, bounds).tolist() == np.histogram(np.log10(inside), bins=40,
                                                              range=(edges[0], edges[-1]))[0].tolist()


@settings(deadline=None)
@given(st.lists(st.sampled_from([0.9, 0.6, 0.3, 0.05]), min_size=1, max_size=6), st.sampled_from([0.0, 0.01, 0.1]),
       st.lists(st.integers(1, 40), min_size=6, max_size=6), st.integers(1, 10 ** 6))
def test_each_known_set_is_counted_once_from_a_superset_made_before_it(pk, epsilon, cards, n):
    """Only the sets no other known set contains read the records; every other set sums the
    counts of a strict superset made before it, the one with the fewest possible groups."""
    from tklscore.core.engines.plan import DisclosurePlan
    from tklscore.core.risk.disclosure_risk import known_sets

    sets = tuple(known_sets(pk, epsilon))
    plan = DisclosurePlan(sets, tuple(pk), (), tuple((j, cards[j]) for j in range(len(pk))), n, 1.0)
    order = plan.count_order()
    assert sorted(order) == list(range(1, len(sets)))
    made: set[int] = set()
    for i in order:
        source = plan.rolled_up_from(i)
        inside_another = any(set(sets[i]) < set(t) for t in sets)
        assert (source is None) == (not inside_another)
        if source is not None:
            assert source in made and set(sets[i]) < set(sets[source])
            assert f"FROM dr_ks{source} " in plan.set_counts(i)
        else:
            assert "FROM dr_src " in plan.set_counts(i)
        made.add(i)
