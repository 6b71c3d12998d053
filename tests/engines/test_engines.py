"""The out-of-core engine (DuckDB) gives the in-memory engine's numbers: the thesis
oracles, random tables (hypothesis), Parquet and CSV sources, per-record results
streamed to Parquet; and its bad input."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import examples, run_cli
from tklscore.core import InputError, Roles, Scorer, Weights, load_table, load_weights, locate_by_ids, locate_table
from tklscore.core.engines import parse_memory_limit, score_files

import duckdb  # noqa: E402,F401  (a hard dependency: its tests fail, never skip, without it)

QI = ["Job", "City", "Gender"]
SA = ["Disease", "Medication", "Age", "Initial Diagnosis"]
ROLES = Roles(qi=QI, sa=SA, continuous=["Age"], identifier="id")
TOLERANCE = 1e-12


def assert_same_report(engine, memory) -> None:
    """The same records' scores (to ``TOLERANCE``) and the same totals to the bit: both sum exactly."""
    assert engine.source_rows == memory.source_rows and engine.published_rows == memory.published_rows
    for name in ("scores", "normalized_source", "normalized_max"):
        ours, theirs = getattr(engine, name).as_dict(), getattr(memory, name).as_dict()
        assert ours == theirs, name
    a, b = engine.records.reset_index(drop=True), memory.records.reset_index(drop=True)
    assert a["id"].tolist() == b["id"].tolist()
    assert a["k"].tolist() == b["k"].tolist() and a["l"].tolist() == b["l"].tolist()
    for column in ("t", "weight_sum", "tkl", "m_score", "l_severity"):
        np.testing.assert_allclose(a[column].to_numpy(float), b[column].to_numpy(float), rtol=TOLERANCE,
                                   atol=TOLERANCE, err_msg=column)


def test_thesis_scenarios_match_the_oracle(data_dir):
    source = data_dir / "thesis_table_3_1.csv"
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    table = load_table(source)
    scorer = Scorer(table, ROLES)
    for ids in (["3", "4", "5", "6"], [str(i) for i in range(7)]):
        engine = score_files("duckdb", str(source), ROLES, weights, rows=ids)
        assert_same_report(engine, scorer.score(locate_by_ids(table, ids, "id"), weights))
    scenario_1 = score_files("duckdb", str(source), ROLES, weights, published=str(data_dir / "thesis_table_3_6_published.csv"))
    assert scenario_1.scores.tkl == pytest.approx(4.98258, abs=5e-6)
    assert scenario_1.normalized_source.tkl == pytest.approx(0.5686, abs=5e-5)
    assert scenario_1.records["id"].tolist() == ["3", "4", "5", "6"]


def test_parquet_source_and_records_streamed_to_parquet(tmp_path, data_dir):
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    typed = frame.assign(id=frame["id"].astype(np.int64), Age=frame["Age"].astype(np.int64))
    typed.to_parquet(tmp_path / "s.parquet", index=False)
    typed.iloc[[6, 3, 4]].to_parquet(tmp_path / "p.parquet", index=False)
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    out = tmp_path / "records.parquet"
    report = score_files("duckdb", str(tmp_path / "s.parquet"), ROLES, weights, published=str(tmp_path / "p.parquet"),
                         records_path=str(out), memory_limit="256MB")
    table = load_table(data_dir / "thesis_table_3_1.csv")
    memory = Scorer(table, ROLES).score(locate_by_ids(table, ["6", "3", "4"], "id"), weights)
    report.records = pd.read_parquet(out)
    assert report.records.columns.tolist() == ["id", "k", "l", "t", "weight_sum", "tkl", "m_score", "l_severity"]
    assert_same_report(report, memory)


def test_cli_engine_duckdb_equals_memory(capsys, tmp_path, data_dir):
    argv = ["score", data_dir / "thesis_table_3_1.csv", "--rows", "3,4,5,6", "--id-column", "id",
            "--qi", ",".join(QI), "--sa", ",".join(SA), "--continuous", "Age",
            "--weights", data_dir / "thesis_table_4_2_weights.csv", "--format", "json"]
    code, memory, err = run_cli(capsys, argv)
    assert code == 0, err
    code, engine, err = run_cli(capsys, argv + ["--engine", "duckdb", "--memory-limit", "1GB"])
    assert code == 0, err
    import json

    a, b = json.loads(memory), json.loads(engine)
    assert a["records"] == b["records"] and a["scores"] == b["scores"]
    code, out, err = run_cli(capsys, argv + ["--engine", "duckdb", "--output", tmp_path / "r.parquet"])
    assert code == 0, err
    assert json.loads(out)["records_file"] == str(tmp_path / "r.parquet")
    assert pd.read_parquet(tmp_path / "r.parquet")["tkl"].tolist() == [r["tkl"] for r in a["records"]]


def test_totals_are_the_in_memory_sums_to_the_bit_on_several_threads(tmp_path):
    """Record scores spread over twelve orders of magnitude: the engine's own sum of them
    (SUM of doubles, its order the threads') missed the exact sum in the last bits (tkl
    507.0489814430112 for 507.0489814430111, L-Severity 51.55733164884856 for …861); as integer
    sums by power of two (Plan.totals) added exactly (sums.sum_of_units) they are the in-memory totals."""
    from tklscore.core.engines.duckdb_engine import DuckDBBackend

    rng = np.random.default_rng(7)
    n = 3000
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(n)], "q0": [f"v{x}" for x in rng.integers(0, 40, n)],
                          "q1": [f"u{x}" for x in rng.integers(0, 7, n)],
                          "s0": rng.choice(["a", "b", "c", "d", "e"], n), "s1": rng.choice(["x", "y", "z"], n)})
    weights = Weights([("s0", "a", 0.9), ("s0", "b", 1e-9), ("s0", "c", 1 / 3), ("s0", "d", 3e-5), ("s0", "e", 0.1),
                       ("s1", "x", 1e-13), ("s1", "y", 0.7), ("s1", "z", 1 / 7)])
    roles = Roles(qi=["q0", "q1"], sa=["s0", "s1"], identifier="id")
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    table = load_table(path)
    ids = [f"r{i}" for i in range(0, n, 3)]
    memory = Scorer(table, roles).score(locate_by_ids(table, ids, "id"), weights)
    with DuckDBBackend(threads=4) as backend:
        engine = score_files("duckdb", str(path), roles, weights, rows=ids, backend=backend)
    assert memory.scores.tkl == 507.0489814430111 and memory.scores.l_severity == 51.55733164884861
    assert_same_report(engine, memory)


def test_engine_totals_are_exact_over_the_doubles_range_in_any_order():
    """Plan.totals' integer sums by unit, added by fetch_totals: exact_sum of the same terms
    (each times its count) over scores from 2**-1074 to 1e300, on four threads, over records
    or weighted rows; NaN or inf as numpy sums them; no rows, nothing."""
    from tklscore.core.engines.duckdb_engine import DuckDBBackend
    from tklscore.core.engines.plan import Plan
    from tklscore.core.engines.scoring import fetch_totals
    from tklscore.core.scoring.sums import exact_sum

    rng = np.random.default_rng(3)
    n = 20000
    x = rng.random(n) * 10.0 ** rng.integers(-300, 300, n)
    x[:6] = [0.0, 5e-324, 2.2250738585072014e-308, 1e299, 1.0, 1.0 + 2.0 ** -52]
    x[6:20] = 2.0 ** rng.integers(-1074, 1000, 14)
    cnt = rng.integers(1, 1 << 15, n)
    cnt[:2] = [1 << 33, 12345678901]      # far more records than a row holds
    frame = pd.DataFrame({"tkl": x, "l_severity": x[::-1].copy(), "m_score": x / 2, "w": x, "cnt": cnt})
    plan = Plan(1, (False,))
    with DuckDBBackend(threads=4) as backend:
        backend.register("scores", frame)
        backend.materialize("t", "SELECT * FROM scores")
        weighted, records = fetch_totals(backend, plan, "t", weighted=True), fetch_totals(backend, plan, "t")
        assert weighted["tkl"] == exact_sum(x, cnt) and weighted["l_severity"] == exact_sum(x[::-1], cnt)
        assert records["tkl"] == exact_sum(x) and records["l_severity"] == exact_sum(x[::-1])
        assert weighted["n"] == cnt.sum() and records["n"] == n and records["tkl_max"] == x.max()
        assert weighted["w_above"] == cnt[x > 1.0 + 1e-12].sum() and records["m_inf"] == x.max() / 2
        backend.materialize("odd", "SELECT CAST(t AS DOUBLE) AS tkl, CAST(l AS DOUBLE) AS l_severity, 0.5 AS m_score, "
                                   "0.5 AS w FROM (VALUES ('1', '1'), ('inf', 'nan'), ('2', 'inf')) AS v(t, l)")
        odd = fetch_totals(backend, plan, "odd")
        assert odd["tkl"] == math.inf and math.isnan(odd["l_severity"]) and odd["n"] == 3
        none = fetch_totals(backend, plan, "(SELECT * FROM t WHERE cnt < 0)", weighted=True)
        assert (none["n"], none["tkl"], none["l_severity"], none["w_above"]) == (0, 0.0, 0.0, 0)


# ------------------------------------------------------------------ random tables

@st.composite
def tables(draw):
    n = draw(st.integers(1, 30))
    n_qi = draw(st.integers(1, 3))
    n_sa = draw(st.integers(1, 3))
    columns = {"id": [f"r{i}" for i in range(n)]}
    for j in range(n_qi):
        levels = draw(st.integers(1, 3))
        columns[f"q{j}"] = [f"v{x}" for x in draw(st.lists(st.integers(0, levels - 1), min_size=n, max_size=n))]
    continuous = []
    for j in range(n_sa):
        if draw(st.booleans()):
            continuous.append(f"s{j}")
            columns[f"s{j}"] = [str(x) for x in draw(st.lists(st.sampled_from([0, 1.5, 2, 7.25, 30]),
                                                                  min_size=n, max_size=n))]
        else:
            columns[f"s{j}"] = draw(st.lists(st.sampled_from(["a", "b", "", "c"]), min_size=n, max_size=n))
    published = draw(st.lists(st.integers(0, n - 1), min_size=0, max_size=n, unique=True))
    return pd.DataFrame(columns), n_qi, n_sa, continuous, published


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from([1.0, 2.0, math.inf]))
def test_random_tables_score_alike(case, x):
    assert_random_case_scores_alike(case, x, lambda path, roles, weights, ids: score_files(
        "duckdb", path, roles, weights, rows=ids, x=x))


@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(1, 4))
def test_random_tables_score_alike_with_pairs_streamed_in_small_batches(case, rows):
    """A continuous SA's (class, value) pairs are read a batch at a time (a class split
    between two fetched batches is joined): the same t, so the same report."""
    from tklscore.core.engines import scoring

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(scoring, "PAIR_BATCH_ROWS", rows)
        assert_random_case_scores_alike(case, 1.0, lambda path, roles, weights, ids: score_files(
            "duckdb", path, roles, weights, rows=ids))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=12), st.integers(1, 7))
def test_pairs_come_in_batches_of_whole_classes(class_sizes, rows):
    """Every row once, in order, and a class never split between two batches, whatever the
    size of the batches the engine hands over (here exactly ``rows``: Arrow's batches)."""
    from tklscore.core.engines.backend import Backend
    from tklscore.core.engines.scoring import whole_class_batches

    cid = np.repeat(np.arange(len(class_sizes)), class_sizes)
    frame = pd.DataFrame({"cid": cid, "idx": np.arange(len(cid)), "c": np.arange(len(cid)) % 5 + 1})

    class Rows(Backend):
        def fetch(self, sql, params=None):
            return frame

    batches = list(whole_class_batches(Rows(), "pairs", rows))
    for j, column in enumerate(("cid", "idx", "c")):
        assert np.concatenate([b[j] for b in batches]).tolist() == frame[column].tolist()
    seen = [set(b[0].tolist()) for b in batches]
    assert all(not (a & b) for i, a in enumerate(seen) for b in seen[i + 1:])
    # a batch is what was handed over up to its last whole class, and the class before it
    assert all(len(b[0]) < rows + 2 * max(class_sizes) for b in batches)
    if rows < len(class_sizes) and max(class_sizes) < rows:
        assert len(batches) > 1


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 9), st.integers(1, 1 << 40)), max_size=20))
def test_value_counts_of_pairs_sum_each_code_exactly(rows):
    """The records holding each value code, summed from (class, code, count) pairs: exact for
    counts beyond 2^32, one entry per code up to the largest, none without pairs."""
    from tklscore.core.engines.scoring import value_counts_of_pairs

    cid, idx, c = (np.array([r[j] for r in rows], dtype=np.int64) for j in range(3))
    counts = value_counts_of_pairs((cid, idx, c))
    expected = [sum(r[2] for r in rows if r[1] == code) for code in range(max(idx, default=-1) + 1)]
    assert counts.dtype == np.int64 and counts.tolist() == expected


def assert_random_case_scores_alike(case, x, score_in_engine) -> None:
    """A drawn :func:`tables` case written as CSV, scored in memory and by
    ``score_in_engine(path, roles, weights, ids)``: the same report."""
    frame, n_qi, n_sa, continuous, published = case
    roles = Roles(qi=[f"q{j}" for j in range(n_qi)], sa=[f"s{j}" for j in range(n_sa)], continuous=continuous,
                  identifier="id")
    entries = []
    for j in range(n_sa):
        if f"s{j}" in continuous:
            entries += [(f"s{j}", "[0,2)", 0.125), (f"s{j}", "[2,inf)", 0.3)]
        else:
            entries += [(f"s{j}", v, w) for v, w in (("a", 0.1), ("b", 0.45), ("", 0.2), ("c", 0.05))]
    weights = Weights(entries)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.csv"
        frame.to_csv(path, index=False)
        table = load_table(path)
        ids = [f"r{i}" for i in published]
        memory = Scorer(table, roles).score(locate_by_ids(table, ids, "id"), weights, x)
        engine = score_in_engine(str(path), roles, weights, ids)
    assert_same_report(engine, memory)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.sampled_from([1.0, math.inf]))
def test_random_tables_score_alike_when_no_combination_key_fits(case, x):
    """With the (class, SA values) key wider than a BIGINT the combinations are their
    columns: the same scores."""
    from unittest import mock

    from tklscore.core.engines import plan

    with mock.patch.object(plan, "KEY_SPACE", 1):
        assert_random_case_scores_alike(case, x, lambda path, roles, weights, ids: score_files(
            "duckdb", path, roles, weights, rows=ids, x=x))


def test_combination_key_is_mixed_radix_and_zeroes_one_code_per_group():
    from tklscore.core.engines.plan import KEY_SPACE, Plan

    p = Plan(2, (False, True))
    sizes = (7, 3, 5)                      # classes, codes of s0, codes of s1
    assert p.radix(sizes) == (15, 5, 1)
    assert p.combination(sizes) == ["key"]
    assert p.combination_key(sizes, ["cid", "c0", "c1"]) == "cid * 15 + c0 * 5 + c1"
    assert "key - key % 15 + key % 5 AS g0, key - key % 5 + key % 1 AS g1" in p.combinations(sizes)
    assert p.radix((KEY_SPACE, 2, 1)) is None and p.combination((KEY_SPACE, 2, 1)) == ["cid", "c0", "c1"]
    assert p.radix((KEY_SPACE // 2, 2, 1)) == (2, 1, 1)


def test_combinations_read_the_class_and_codes_back_from_the_key():
    """Grouped by key (below 2**53), a combination's class id, codes and group keys are read
    back from the key: each the same as the records' own (the rows counted, the first kept)."""
    from tklscore.core.engines.duckdb_engine import connect
    from tklscore.core.engines.plan import Plan

    rng = np.random.default_rng(5)
    sizes, n = (40, 3, 7), 2000
    cid, c0, c1 = (rng.integers(0, size, n) for size in sizes)
    con = connect()
    src = pd.DataFrame({"rid": np.arange(n), "id": np.arange(n).astype(str), "q0": cid.astype(str),
                        "s0": c0.astype(str), "s1": c1.astype(str)})
    classes = pd.DataFrame({"q0": np.arange(40).astype(str), "cid": np.arange(40)})
    codes_0, codes_1 = (pd.DataFrame({f"s{i}": np.arange(size).astype(str), f"c{i}": np.arange(size)})
                        for i, size in ((0, 3), (1, 7)))
    for name, frame in (("src", src), ("classes", classes), ("codes_0", codes_0), ("codes_1", codes_1)):
        con.register(name, frame)
    sql = Plan(1, (False, False)).combinations(sizes)
    assert "MIN(cid)" not in sql
    got = con.execute(sql).df().sort_values("key").reset_index(drop=True)
    key = cid * 21 + c0 * 7 + c1
    want = (pd.DataFrame({"key": key, "cid": cid, "c0": c0, "c1": c1, "rid": np.arange(n)})
            .groupby("key").agg(cid=("cid", "first"), c0=("c0", "first"), c1=("c1", "first"),
                                cnt=("rid", "size"), rid=("rid", "min")).reset_index())
    want["g0"], want["g1"] = want["key"] - want["c0"] * 7, want["key"] - want["c1"]
    assert len(got) == len(want) > 300
    for column in ("key", "cid", "c0", "c1", "cnt", "rid", "g0", "g1"):
        assert got[column].astype(np.int64).tolist() == want[column].astype(np.int64).tolist(), column


@st.composite
def published_by_position(draw):
    """A source with repeated rows and a published file of some of its rows (all columns
    or a few, shuffled, perhaps with a row the source does not hold)."""
    n = draw(st.integers(1, 12))
    frame = pd.DataFrame({"q0": draw(st.lists(st.sampled_from(["x", "y"]), min_size=n, max_size=n)),
                          "q1": draw(st.lists(st.sampled_from(["1", "2", ""]), min_size=n, max_size=n)),
                          "s0": draw(st.lists(st.sampled_from(["a", "b"]), min_size=n, max_size=n)),
                          "s1": draw(st.lists(st.sampled_from(["0", "1.5", "30"]), min_size=n, max_size=n))})
    rows = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    published = frame.iloc[draw(st.permutations(rows))]
    if draw(st.booleans()):
        published = published[draw(st.sampled_from([["q0", "s0"], ["s1", "q1", "q0"]]))]
    if draw(st.booleans()):
        stranger = {c: "zz" if c != "s1" else "99" for c in published.columns}
        published = pd.concat([published, pd.DataFrame([stranger])], ignore_index=True)
    return frame, published


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(published_by_position())
def test_published_file_located_by_position_as_in_memory(case):
    """Without --id-column the engine locates a published file's rows as locate_table does."""
    source_frame, published_frame = case
    roles = Roles(qi=["q0", "q1"], sa=["s0", "s1"], continuous=["s1"])
    weights = Weights([("s0", "a", 0.25), ("s0", "b", 0.5), ("s1", "[0,2)", 0.125), ("s1", "[2,inf)", 0.3)])
    with tempfile.TemporaryDirectory() as folder:
        source, published = Path(folder) / "s.csv", Path(folder) / "p.csv"
        source_frame.to_csv(source, index=False)
        published_frame.to_csv(published, index=False)
        table = load_table(source)
        release = locate_table(table, load_table(published), None, roles.continuous, roles.sa)
        memory = Scorer(table, roles).score(release, weights)
        engine = score_files("duckdb", str(source), roles, weights, published=str(published), skip_unlocated=True)
    assert engine.unlocated == release.unlocated
    assert_same_report(engine, memory)


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("text", ["lots", "2", "GB", "-1GB", "2 parsecs", ""])
def test_memory_limit_that_is_not_a_size(text):
    with pytest.raises(InputError, match="is not a size; give a number and a unit, such as 2GB"):
        parse_memory_limit(text)


def test_memory_limit_sizes():
    assert parse_memory_limit("2GB") == "1907MiB"
    assert parse_memory_limit("512 MiB") == "512MiB"
    assert parse_memory_limit("1.5gib") == "1536MiB"


def test_unreadable_parquet_is_named(capsys, tmp_path, data_dir):
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 this is not parquet")
    code, out, err = run_cli(capsys, ["score", broken, "--rows", "0", "--id-column", "id", "--qi", "Job",
                                      "--sa", "Disease", "--weights", data_dir / "thesis_table_4_2_weights.csv",
                                      "--engine", "duckdb"])
    assert code == 2 and f"tklscore: error: {broken}: not a readable Parquet file" in err
    assert "Traceback" not in err


def test_engine_errors_name_what_is_wrong(capsys, tmp_path, data_dir):
    base = ["score", data_dir / "thesis_table_3_1.csv", "--qi", "Job", "--sa", "Disease",
            "--weights", data_dir / "thesis_table_4_2_weights.csv", "--engine", "duckdb"]
    code, _, err = run_cli(capsys, base + ["--rows", "0", "--id-column", "id", "--memory-limit", "plenty"])
    assert code == 2 and "--memory-limit 'plenty' is not a size" in err
    code, _, err = run_cli(capsys, base + ["--rows", "0,99", "--id-column", "id"])
    assert code == 2 and "1 published record(s) cannot be located in the source: id '99'" in err
    stranger = tmp_path / "stranger.csv"
    published = pd.read_csv(data_dir / "thesis_table_3_6_published.csv", dtype=str, keep_default_na=False)
    published.loc[2, "Job"] = "Astronaut"
    published.to_csv(stranger, index=False)
    code, _, err = run_cli(capsys, base + ["--published", stranger])
    assert code == 2 and "1 published record(s) cannot be located in the source: row 4" in err
    code, _, err = run_cli(capsys, base + ["--published", stranger, "--strict"])
    assert code == 2 and "--strict (the published file's sensitive values against the source's) is checked" in err
    code, _, err = run_cli(capsys, base + ["--rows", "0", "--id-column", "nope"])
    assert code == 2 and "column 'nope' not found" in err
    bad_age = tmp_path / "age.csv"
    frame = pd.read_csv(data_dir / "thesis_table_3_1.csv", dtype=str, keep_default_na=False)
    frame.loc[4, "Age"] = "seventy"
    frame.to_csv(bad_age, index=False)
    code, _, err = run_cli(capsys, ["score", bad_age, "--rows", "0", "--id-column", "id", "--qi", "Job",
                                    "--sa", "Age", "--continuous", "Age", "--weights",
                                    data_dir / "thesis_table_4_2_weights.csv", "--engine", "duckdb"])
    assert code == 2 and "row 6, column 'Age': continuous column holds 'seventy'" in err


def test_source_checks_name_the_first_bad_record_of_each_and_count_them(tmp_path):
    """The continuous SAs' cells that hold no number and an empty id are found in one statement:
    each error names its first record and counts the rest; the first SA's before the second's,
    both before an empty id; ids listed twice name the first repeated one, as memory does."""
    from tklscore.core.engines import open_backend

    roles = Roles(qi=["Job"], sa=["Age", "Height"], continuous=["Age", "Height"], identifier="id")
    good = {"id": ["a", "b", "c", "d"], "Job": ["x", "y", "x", "y"], "Age": ["30", "40", "50", "60"],
            "Height": ["1.5", "1.6", "1.7", "1.8"]}

    def opened(**changed) -> None:
        path = tmp_path / "s.csv"
        pd.DataFrame({**good, **changed}).to_csv(path, index=False)
        with open_backend("duckdb") as backend:
            backend.open_source(str(path), roles)

    with pytest.raises(InputError, match=r"row 3, column 'Height': continuous column holds 'tall', which is not a "
                                         r"number \(3 such cell\(s\) in all\)"):
        opened(Height=["1.5", "tall", "", "inf"], id=["a", "", "c", "d"])
    with pytest.raises(InputError, match=r"row 4, column 'Age': continuous column holds an empty cell.*\(2 such"):
        opened(Age=["30", "40", "", "nan"], Height=["1.5", "tall", "1.7", "1.8"])
    with pytest.raises(InputError, match=r"row 5, column 'id': identifier is empty"):
        opened(id=["a", "b", "c", ""])
    opened()
    with open_backend("duckdb") as backend, pytest.raises(InputError, match=r"--rows: id 'b' is listed more than once"):
        backend.open_published_ids(["a", "b", "c", "b ", "a"])
    with pytest.raises(InputError, match=r"id 'b' is listed more than once"):   # memory names the same one
        locate_by_ids(load_table(tmp_path / "s.csv"), ["a", "b", "c", "b", "a"], "id")
