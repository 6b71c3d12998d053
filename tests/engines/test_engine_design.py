"""A release design evaluated out of core (DuckDB) gives ReleaseDesigner.evaluate's numbers
and rows: random tables and designs (hypothesis: levels of QIs and SAs, removed columns,
suppression within a budget, row selections), the class order behind suppression's tie
rule, the thesis oracles, a Parquet source; and what it refuses."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

from tklscore.core import InputError, Roles, Weights, load_table, load_weights
from tklscore.core.engines import open_backend
from tklscore.core.engines.design import EngineDesigner
from tklscore.core.release.designer import ReleaseDesigner
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.release.transform import ReleaseDesign
from tklscore.core.tables.codes import group_ids, group_ids_of_groups

from helpers import examples

import duckdb  # noqa: E402,F401  (a hard dependency: its tests fail, never skip, without it)

TOLERANCE = 1e-12
QI = ["Job", "City", "Gender"]
SA = ["Disease", "Medication", "Age", "Initial Diagnosis"]
ROLES = Roles(qi=QI, sa=SA, continuous=["Age"], identifier="id")


def assert_same(engine, memory, path=""):
    """Equal JSON trees; numbers to 1e-12."""
    if isinstance(memory, dict):
        assert isinstance(engine, dict) and set(engine) == set(memory), (path, set(engine) ^ set(memory))
        for key in memory:
            assert_same(engine[key], memory[key], f"{path}.{key}")
    elif isinstance(memory, (list, tuple)):
        assert len(engine) == len(memory), path
        for i, (a, b) in enumerate(zip(engine, memory)):
            assert_same(a, b, f"{path}[{i}]")
    elif isinstance(memory, float) and not isinstance(memory, bool):
        if math.isnan(memory):
            assert engine is not None and math.isnan(engine), path
        else:
            assert engine == pytest.approx(memory, rel=TOLERANCE, abs=TOLERANCE), path
    else:
        assert engine == memory, path


def compare(engine_result, memory_result, designer):
    a, b = engine_result.to_json_dict(), memory_result.to_json_dict()
    a.pop("notes"), b.pop("notes")
    assert_same(a, b)
    ids = designer.published_ids()
    memory_ids = memory_result.transformed.source.frame[ROLES_ID].iloc[memory_result.transformed.published].tolist() \
        if ROLES_ID in memory_result.transformed.source.columns else \
        [str(p) for p in memory_result.transformed.published]
    assert ids == memory_ids


ROLES_ID = "id"


# ------------------------------------------------------------------ the class order behind the tie rule

@settings(max_examples=80, deadline=None)
@given(st.data())
def test_groups_numbered_as_group_ids_numbers_rows(data):
    n = data.draw(st.integers(1, 60))
    columns = []
    for _ in range(data.draw(st.integers(1, 4))):
        cardinality = data.draw(st.sampled_from([1, 2, 3, 50, 300, 5000]))
        codes = np.array(data.draw(st.lists(st.integers(0, cardinality - 1), min_size=n, max_size=n)))
        columns.append((codes, cardinality))
    ids, count = group_ids(columns, n)
    key = np.stack([c for c, _ in columns], axis=1)
    groups, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    ours = group_ids_of_groups([(groups[:, j], card) for j, (_, card) in enumerate(columns)], first, n)
    np.testing.assert_array_equal(ours[inverse.reshape(-1)], ids)
    assert len(set(ours)) == count


# ------------------------------------------------------------------ random tables and designs

@st.composite
def designs(draw):
    n = draw(st.integers(1, 40))
    n_qi = draw(st.integers(1, 3))
    columns = {"id": [f"r{i}" for i in range(n)]}
    hierarchies = {}
    for j in range(n_qi):
        values = [f"v{j}{x}" for x in range(draw(st.integers(1, 6)))]
        columns[f"q{j}"] = draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))
        if draw(st.booleans()):
            groups = {}
            for v in values:
                groups.setdefault(f"G{draw(st.integers(0, 2))}", []).append(v)
            hierarchies[f"q{j}"] = Hierarchy.groups(f"q{j}", [groups])
    columns["age"] = [str(x) for x in draw(st.lists(st.sampled_from([3, 7, 12, 15, 28, 41.5]), min_size=n,
                                                     max_size=n))]
    columns["disease"] = draw(st.lists(st.sampled_from(["flu", "hiv", "cold", ""]), min_size=n, max_size=n))
    columns["note"] = draw(st.lists(st.sampled_from(["a", "b,c", 'say "x"', ""]), min_size=n, max_size=n))
    columns["amount"] = [str(x) for x in draw(st.lists(st.sampled_from([0, 1.5, 2, 10, 1e6 / 3, -4]), min_size=n,
                                                        max_size=n))]
    if draw(st.booleans()):
        hierarchies["age"] = Hierarchy.intervals("age", [10, 20])
    if draw(st.booleans()):
        hierarchies["disease"] = Hierarchy.groups("disease", [{"infection": ["flu", "hiv", "cold"], "none": [""]}])
    if draw(st.booleans()):
        hierarchies["note"] = Hierarchy.masking("note")
    levels = {c: draw(st.integers(0, 2 if c in ("age", "note") else 1)) for c in hierarchies}
    removed = set(draw(st.lists(st.sampled_from([f"q{j}" for j in range(n_qi)] + ["age", "disease", "note"]),
                                max_size=2)))
    if {"age", "disease"} <= removed:
        removed.discard("age")
    below = draw(st.sampled_from([0, 2, 3, 4]))
    limit = draw(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]))
    selection = None
    if draw(st.booleans()):
        chosen = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
        selection = ReleaseDefinition("P", "ids", ids=tuple(f"r{i}" for i in chosen))
    roles = Roles(qi=[f"q{j}" for j in range(n_qi)], sa=["disease", "age"], continuous=["age"], identifier="id")
    microaggregate = {c: draw(st.sampled_from(["mean", "median"]))
                      for c in draw(st.lists(st.sampled_from(["amount", "age"]), max_size=2, unique=True))}
    design = ReleaseDesign("d", levels, below, limit, removed, microaggregate, selection=selection)
    return pd.DataFrame(columns), roles, hierarchies, design


WEIGHTS = Weights([("disease", "flu", 0.1), ("disease", "hiv", 0.6), ("disease", "cold", 0.05),
                   ("disease", "", 0.0), ("age", "[0,10)", 0.2), ("age", "[10,inf)", 0.35)])


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(designs(), st.sampled_from([1.0, 3.0, math.inf]), st.booleans())
def test_random_designs_evaluate_alike(case, x, parquet):
    frame, roles, hierarchies, design = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("s.parquet" if parquet else "s.csv")
        frame.to_parquet(path, index=False) if parquet else frame.to_csv(path, index=False)
        try:
            memory = ReleaseDesigner(load_table(path), roles, hierarchies).evaluate(design, WEIGHTS, x)
        except InputError as error:
            with open_backend("duckdb") as backend, pytest.raises(InputError) as refused:
                EngineDesigner(backend, str(path), roles, hierarchies).evaluate(design, WEIGHTS, x)
            assert str(refused.value) == str(error)
            return
        with open_backend("duckdb") as backend:
            designer = EngineDesigner(backend, str(path), roles, hierarchies)
            engine = designer.evaluate(design, WEIGHTS, x, preview=100)
            compare(engine, memory, designer)
            expected = memory.transformed.published_table()
            pd.testing.assert_frame_equal(engine.preview.reset_index(drop=True), expected.reset_index(drop=True),
                                          check_dtype=False)
            out = Path(folder) / "release.csv"
            designer.write_release(design, str(out))
            assert out.read_text(encoding="utf-8") == expected.to_csv(index=False, lineterminator="\n")
            designer.write_release(design, str(Path(folder) / "release.parquet"))
            written = pd.read_parquet(Path(folder) / "release.parquet")
            pd.testing.assert_frame_equal(written, expected, check_dtype=False)


def test_an_sa_published_as_it_is_after_a_removed_one_is_coded_by_the_whole_sources_codes(tmp_path):
    """Over the aggregate an SA published unchanged takes the whole source's codes, under its
    place in the release (the first SA removed: the second is the release's first)."""
    path = tmp_path / "s.parquet"
    pd.DataFrame({"id": [f"r{i}" for i in range(12)], "q0": list("aabbccaabbcc"),
                  "disease": ["flu", "hiv", "cold", "flu"] * 3,
                  "age": [3.0, 7.0, 12.0, 15.0, 28.0, 41.5, 3.0, 7.0, 12.0, 28.0, 28.0, 3.0]}).to_parquet(path, index=False)
    roles = Roles(qi=["q0"], sa=["disease", "age"], continuous=["age"], identifier="id")
    design = ReleaseDesign("d", {}, 2, 0.5, ["disease"])
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(path), roles, {}, cache=False)
        engine = designer.evaluate(design, WEIGHTS)
        assert designer._source_codes      # the whole source scored here: its codes kept and used
        compare(engine, ReleaseDesigner(load_table(path), roles, {}).evaluate(design, WEIGHTS), designer)
        assert backend.fetch("SELECT s0, c0 FROM codes_0 ORDER BY c0")["s0"].tolist() == [3.0, 7.0, 12.0, 15.0,
                                                                                             28.0, 41.5]


def test_suppression_budget_cuts_inside_a_size_as_in_memory(tmp_path):
    """Eight classes of size 1 and four of size 2 (k < 3 for all), interleaved; a budget
    that suppresses some classes of one size but not all keeps the in-memory choice."""
    rows = []
    for c in range(8):
        rows.append((f"a{(c * 5) % 8}", f"b{c % 3}"))
    for c in range(4):
        rows += [(f"x{c}", "y")] * 2
    rows += [("big", "z")] * 12
    order = np.random.default_rng(3).permutation(len(rows))
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(len(rows))],
                          "qa": [rows[i][0] for i in order], "qb": [rows[i][1] for i in order],
                          "disease": ["flu", "hiv"] * (len(rows) // 2), "age": ["3"] * len(rows)})
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    roles = Roles(qi=["qa", "qb"], sa=["disease", "age"], continuous=["age"], identifier="id")
    memory_designer = ReleaseDesigner(load_table(path), roles)
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(path), roles)
        for limit in (3 / 32, 5 / 32, 10 / 32, 13 / 32):
            design = ReleaseDesign("d", {}, 3, limit)
            memory = memory_designer.evaluate(design, WEIGHTS)
            assert 0 < len(memory.transformed.suppressed) < 16
            compare(designer.evaluate(design, WEIGHTS), memory, designer)


def test_a_value_only_suppressed_records_hold_leaves_the_measured_values(tmp_path, monkeypatch):
    """Over the aggregate the release is measured from the scores' own codes (its combinations
    fetched: their pairs in Python): when the suppressed class holds the only records of a
    disease and of an age, the measures' codes are the released values only (t's ordered
    distance over them), as in memory."""
    from tklscore.core.engines import design as engine_design

    measured = []
    monkeypatch.setattr(engine_design, "_released_counts", lambda *args, _counts=engine_design._released_counts:
                        measured.append(_counts(*args)) or measured[-1])
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(13)],
                          "qa": ["a"] * 6 + ["b"] * 5 + ["c"] * 2,
                          "disease": ["flu", "cold", "flu", "cold", "flu", "flu", "cold", "flu", "cold", "cold",
                                      "flu", "hiv", "hiv"],
                          "age": ["3", "7", "12", "3", "7", "3", "12", "7", "3", "12", "7", "99", "41.5"]})
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    roles = Roles(qi=["qa"], sa=["disease", "age"], continuous=["age"], identifier="id")
    design = ReleaseDesign("d", {}, 3, 0.2)
    memory = ReleaseDesigner(load_table(path), roles).evaluate(design, WEIGHTS)
    assert memory.suppressed_rows == 2
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(path), roles)
        compare(designer.evaluate(design, WEIGHTS), memory, designer)
        (disease, age), = [m.pairs for m in measured]      # cold, flu; 3, 7, 12: hiv, 41.5 and 99 not released
        assert sorted(set(disease[1].tolist())) == [0, 1] and sorted(set(age[1].tolist())) == [0, 1, 2]
        assert measured[0].sizes.tolist() == [6, 5] and measured[0].suppressed_rows == 0
        # nothing suppressed (the scores' classes and codes are the release's: a view), then each
        # kind again in turn, over the relations (tables or views) the one before left
        selected = ReleaseDefinition("P", "ids", ids=("r0", "r1", "r11"))
        for again in (ReleaseDesign("all", {}, 0, 0.0), design, ReleaseDesign("all", {}, 0, 0.0),
                      ReleaseDesign("sel", {}, 3, 0.2, selection=selected), ReleaseDesign("all", {}, 0, 0.0), design):
            compare(designer.evaluate(again, WEIGHTS), ReleaseDesigner(load_table(path), roles).evaluate(again, WEIGHTS),
                    designer)


def test_thesis_oracles_out_of_core(data_dir):
    source = data_dir / "thesis_table_3_1.csv"
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    hierarchies = {"City": Hierarchy.groups("City", [{"Alberta": ["Calgary", "Edmonton"]}]),
                   "Age": Hierarchy.intervals("Age", [10, 20])}
    memory_designer = ReleaseDesigner(load_table(source), ROLES, hierarchies)
    with open_backend("duckdb", "256MB") as backend:
        designer = EngineDesigner(backend, str(source), ROLES, hierarchies)
        scenario = ReleaseDesign(selection=ReleaseDefinition("P", "ids", ids=("3", "4", "5", "6")))
        result = designer.evaluate(scenario, weights)
        assert result.report.scores.tkl == pytest.approx(4.98258, abs=5e-6)
        assert result.report.normalized_source.tkl == pytest.approx(0.5686, abs=5e-5)
        whole = designer.evaluate(ReleaseDesign(), weights)
        assert whole.report.scores.tkl == pytest.approx(8.76302, abs=5e-6)
        design = ReleaseDesign("d", {"City": 1, "Age": 1}, 2, 0.5, ["Gender"])
        result = designer.evaluate(design, weights)
        compare(result, memory_designer.evaluate(design, weights), designer)
        assert result.utility.precision == pytest.approx(
            memory_designer.evaluate(design, weights).utility.precision, rel=1e-12)
        some = ReleaseDesign("d", {"City": 1}, 2, 0.5, selection=ReleaseDefinition(
            "Some", "filter", expression="Gender == 'Female' or Age >= 60"))
        result, memory = designer.evaluate(some, weights), memory_designer.evaluate(some, weights)
        compare(result, memory, designer)
        assert result.selected_rows == len(memory.transformed.selected) and 0 < result.selected_rows < 7


@pytest.mark.parametrize("share", [0.25, 0.0])
def test_small_sources_keep_uncompressed_relations_large_ones_compressed_with_the_same_numbers(data_dir, share,
                                                                                              monkeypatch):
    """The relations of a source whose rows fit a share of the memory limit are temporary
    (uncompressed) tables and its combinations are fetched once for t and the whole source's
    totals, else the work database's compressed tables and statements grouped SA by SA: the
    same numbers either way, and DuckDB draws no progress bar into a command's output."""
    from tklscore.core.engines import duckdb_engine, scoring

    monkeypatch.setattr(duckdb_engine, "UNCOMPRESSED_SHARE", share)
    monkeypatch.setattr(scoring, "FETCHED_SHARE", share)
    source = data_dir / "thesis_table_3_1.csv"
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    hierarchies = {"City": Hierarchy.groups("City", [{"Alberta": ["Calgary", "Edmonton"]}]),
                   "Age": Hierarchy.intervals("Age", [10, 20])}
    design = ReleaseDesign("d", {"City": 1, "Age": 1}, 2, 0.5, ["Gender"])
    with open_backend("duckdb", "256MB") as backend:
        assert backend.con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0] is False
        designer = EngineDesigner(backend, str(source), ROLES, hierarchies)
        compare(designer.evaluate(design, weights), ReleaseDesigner(load_table(source), ROLES, hierarchies)
                .evaluate(design, weights), designer)
        kinds = dict(backend.con.execute("SELECT table_name, temporary FROM duckdb_tables() "
                                         "WHERE table_name IN ('gsrc', 'combos', 'fin')").fetchall())
        # the aggregate a view over its cache file (written there from the records, or reused),
        # a compressed table only where it could not be cached
        assert kinds.pop("fin", None) is (None if designer.finest.path is not None else False)
        assert kinds == {"combos": share > 0}      # over the aggregate the generalised source a view
        assert backend.fetch("SELECT table_type FROM information_schema.tables WHERE table_name = 'gsrc'")[
            "table_type"].tolist() == ["VIEW"]
        backend.expect_rows(0)     # the kind changes: the other kind's table of a name is dropped
        backend.materialize("gsrc", "SELECT 1 AS x")
        assert backend.con.execute("SELECT COUNT(*) FROM duckdb_tables() WHERE table_name = 'gsrc'").fetchone() == (1,)
        assert backend.fetch("SELECT x FROM gsrc")["x"].tolist() == [1]


def test_the_whole_sources_totals_from_fetched_combinations_are_the_engines(tmp_path, monkeypatch):
    """The whole source's totals summed in Python from its fetched combinations (a small
    source) are those of the engine's statement over them (a large one): the same l-DF,
    weights and record scores to the last bit (maxima and counts equal), the sums exact."""
    from tklscore.core.engines import scoring

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(500)], "q0": rng.choice(list("abcd"), 500),
                          "q1": rng.integers(0, 6, 500).astype(str), "s": rng.choice(["flu", "cold", "hiv"], 500),
                          "age": rng.choice(["3", "7", "12", "41.5", "99"], 500)})
    frame.loc[:40, "s"] = "hiv"        # some weights above one (W over both SAs)
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    roles = Roles(qi=["q0", "q1"], sa=["s", "age"], continuous=["age"], identifier="id")
    weights = Weights([("s", "flu", 0.3), ("s", "cold", 0.1), ("s", "hiv", 0.9), ("age", "[0,10)", 0.2),
                       ("age", "[10,inf)", 0.35)])
    found = []
    for share in (scoring.FETCHED_SHARE, 0.0):
        monkeypatch.setattr(scoring, "FETCHED_SHARE", share)
        with open_backend("duckdb") as backend:
            totals, _ = EngineDesigner(backend, str(path), roles, cache=False).whole_source(weights)
        found.append(totals)
    python, engine = found
    for key in ("n", "w_above", "tkl_max", "m_inf", "w_max"):
        assert python[key] == engine[key], key
    assert python["w_above"] > 0
    for key in ("tkl", "l_severity"):
        assert python[key] == pytest.approx(engine[key], rel=1e-13), key
    memory = ReleaseDesigner(load_table(path), roles).scorer.whole_source_scores(weights, 1.0)
    assert (python["tkl"], python["l_severity"]) == (memory.tkl, memory.l_severity)   # both exact sums


def test_refused_and_bad_designs_name_the_option_or_column(data_dir):
    source = data_dir / "thesis_table_3_1.csv"
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(source), ROLES, {"City": Hierarchy.masking("City")})
        with pytest.raises(InputError, match="noise is drawn from numpy's seeded stream") as error:
            designer.evaluate(ReleaseDesign(noise={"Age": 5.0}), weights)
        assert error.value.column == "Age"
        with pytest.raises(InputError, match="microaggregation of a quasi-identifier") as error:
            designer.evaluate(ReleaseDesign(microaggregate={"Job": "mean"}), weights)
        assert error.value.column == "Job"
        with pytest.raises(InputError, match="microaggregation needs numbers, but the column holds text such as "
                                             "'H1N1'") as error:
            designer.evaluate(ReleaseDesign(microaggregate={"Disease": "median"}), weights)
        assert error.value.column == "Disease" and error.value.row == 2
        with pytest.raises(InputError, match="no hierarchy") as error:
            designer.evaluate(ReleaseDesign(levels={"Job": 1}), weights)
        assert error.value.column == "Job"
        with pytest.raises(InputError, match="out of range"):
            designer.evaluate(ReleaseDesign(levels={"City": 99}), weights)
        with pytest.raises(InputError, match="not found"):
            designer.evaluate(ReleaseDesign(removed=["Nope"]), weights)
        with pytest.raises(InputError, match="every sensitive attribute is removed"):
            designer.evaluate(ReleaseDesign(removed=SA), weights)
        with pytest.raises(InputError, match="overwrite the source"):
            designer.evaluate(ReleaseDesign(), weights)
            designer.write_release(ReleaseDesign(), str(source))
    with open_backend("duckdb") as backend, pytest.raises(InputError, match="at least one quasi-identifier"):
        EngineDesigner(backend, str(source), Roles(qi=[], sa=["Disease"]))
    with open_backend("duckdb") as backend, pytest.raises(InputError, match="hierarchy is given for column "
                                                                          "'Town', which the table lacks") as error:
        EngineDesigner(backend, str(source), ROLES, {"Town": Hierarchy.masking("Town")})
    assert error.value.file == str(source)


# ------------------------------------------------------------------ the command line

def test_cli_release_engine_duckdb_prints_and_writes_what_memory_does(capsys, tmp_path, data_dir):
    import json

    from helpers import run_cli

    argv = ["release", data_dir / "thesis_table_3_1.csv", "--id-column", "id", "--qi", ",".join(QI),
            "--sa", ",".join(SA), "--continuous", "Age", "--weights", data_dir / "thesis_table_4_2_weights.csv",
            "--groups", "City=Calgary,Edmonton->Alberta", "--keep-ungrouped", "--interval", "Age=10,20",
            "--levels", "City=1,Age=1", "--suppress-below", "2", "--suppression-limit", "0.5", "--remove", "Gender"]
    code, memory, err = run_cli(capsys, argv + ["--format", "json", "--output", tmp_path / "m.csv"])
    assert code == 0, err
    code, engine, err = run_cli(capsys, argv + ["--format", "json", "--engine", "duckdb", "--memory-limit", "1GB",
                                                "--output", tmp_path / "e.csv"])
    assert code == 0, err
    assert_same(json.loads(engine), json.loads(memory))
    assert (tmp_path / "e.csv").read_text() == (tmp_path / "m.csv").read_text()
    code, table, err = run_cli(capsys, argv + ["--engine", "duckdb", "--output", tmp_path / "e.parquet"])
    assert code == 0, err
    assert "records published" in table and "tkl-Score" in table
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "e.parquet"),
                                  pd.read_csv(tmp_path / "m.csv", dtype=str, keep_default_na=False))


def test_cli_engine_refusals_exit_2_with_the_reason(capsys, tmp_path, data_dir):
    from helpers import run_cli

    base = [data_dir / "thesis_table_3_1.csv", "--qi", ",".join(QI), "--sa", "Disease",
            "--weights", data_dir / "thesis_table_4_2_weights.csv"]
    code, _, err = run_cli(capsys, ["suggest", *base, "--engine", "duckdb", "--k", "2", "--filter", "Job == 'Lawyer'"])
    assert code == 2 and "a row selection needs the records" in err and "search in memory" in err
    code, _, err = run_cli(capsys, ["release", *base, "--engine", "duckdb", "--noise", "Disease=5"])
    assert code == 2 and "noise" in err and "--engine memory" in err
    code, _, err = run_cli(capsys, ["release", *base, "--memory-limit", "1GB"])
    assert code == 2 and "--engine duckdb or spark" in err
    code, _, err = run_cli(capsys, ["release", *base, "--engine", "duckdb", "--memory-limit", "lots"])
    assert code == 2 and "not a size" in err
    code, _, err = run_cli(capsys, ["release", *base, "--engine", "duckdb", "--output", tmp_path / "x.json"])
    assert code == 2 and "choose .csv or .parquet" in err


def _release_source(tmp_path):
    """A 400-record source with two QIs (q1 with a hierarchy), a categorical and a continuous
    SA: its path, roles, weights and hierarchies."""
    rng = np.random.default_rng(11)
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(400)], "q0": rng.choice(list("abcdefg"), 400),
                          "q1": rng.integers(0, 30, 400).astype(str), "s": rng.choice(["flu", "cold", "hiv"], 400),
                          "age": rng.choice(["3", "7", "12", "41.5", "99"], 400)})
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    roles = Roles(qi=["q0", "q1"], sa=["s", "age"], continuous=["age"], identifier="id")
    weights = Weights([("s", "flu", 0.3), ("s", "cold", 0.1), ("s", "hiv", 0.9), ("age", "[0,10)", 0.2),
                       ("age", "[10,inf)", 0.35)])
    return path, roles, weights, {"q1": Hierarchy.intervals("q1", [10, 20])}


@pytest.mark.parametrize("levels, below", [({}, 2), ({"q1": 1}, 17)])
def test_a_releases_totals_from_fetched_combinations_are_the_engines(tmp_path, monkeypatch, levels, below):
    """A release's totals over the aggregate summed in Python from its fetched combinations,
    less the records of the suppressed classes (a small source), are those of the engine's
    statement over them (a large one): counts and maxima equal, the sums to 1e-13 — and the
    in-memory designer's to the last bit (both exact sums)."""
    from tklscore.core.engines import scoring

    path, roles, weights, hierarchies = _release_source(tmp_path)
    design = ReleaseDesign("d", levels, below, 0.3)
    found, fetched = [], []
    for share in (scoring.FETCHED_SHARE, 0.0):
        monkeypatch.setattr(scoring, "FETCHED_SHARE", share)
        with open_backend("duckdb") as backend:
            designer = EngineDesigner(backend, str(path), roles, hierarchies, cache=False)
            summed = []
            monkeypatch.setattr(scoring, "combination_totals", lambda *args, _sum=scoring.combination_totals:
                                summed.append(args[-1] is not None) or _sum(*args))
            found.append(designer.evaluate(design, weights))
            fetched.append(any(summed))
    assert fetched == [True, False]        # summed in Python, then by the engine's statement
    python, engine = found
    assert 0 < python.suppressed_rows == engine.suppressed_rows
    for key in ("tkl_max", "m_score_inf"):
        assert getattr(python.report.scores, key) == getattr(engine.report.scores, key), key
    assert python.report.published_rows == engine.report.published_rows
    for key in ("tkl", "l_severity"):
        assert getattr(python.report.scores, key) == pytest.approx(getattr(engine.report.scores, key), rel=1e-13), key
    memory = ReleaseDesigner(load_table(path), roles, hierarchies).evaluate(design, weights)
    assert memory.suppressed_rows == python.suppressed_rows
    assert (python.report.scores.tkl, python.report.scores.l_severity) == (memory.report.scores.tkl,
                                                                          memory.report.scores.l_severity)


@pytest.mark.parametrize("levels, below", [({}, 2), ({"q1": 1}, 17)])
def test_a_releases_combinations_fetched_in_pieces_of_whole_classes_give_the_same_numbers(tmp_path, monkeypatch,
                                                                                         levels, below):
    """Combinations too many to fetch at once (a share of the memory limit too small for them)
    are fetched in pieces of whole classes, each class's t, l-DF and scores counted in its
    piece: the release's numbers are those of the combinations fetched whole, to the last bit,
    and the in-memory designer's."""
    from tklscore.core.engines import scoring
    from tklscore.core.engines.backend import memory_bytes

    path, roles, weights, hierarchies = _release_source(tmp_path)
    design = ReleaseDesign("d", levels, below, 0.3)
    found, pieces, kept, made = [], [], [], []
    for rows in (None, 150):     # fetched whole, then in pieces of at most 150 combinations
        share = scoring.FETCHED_SHARE if rows is None else rows * (2 + 2) * 8 / memory_bytes(None)
        monkeypatch.setattr(scoring, "FETCHED_SHARE", share)
        with open_backend("duckdb") as backend:
            designer = EngineDesigner(backend, str(path), roles, hierarchies, cache=False)
            read = []
            monkeypatch.setattr(backend, "fetch_arrow", lambda sql, _fetch=backend.fetch_arrow:
                                read.append(sql) or _fetch(sql))
            monkeypatch.setattr(backend, "materialize", lambda name, sql, params=None, _made=backend.materialize:
                                made.append(name) or _made(name, sql, params))
            found.append(designer.evaluate(design, weights))
            pieces.append(sum("WHERE cid >= " in sql for sql in read))
            # the whole source's in pieces too: kept in the engine, the design's classes counted from
            # its classes, its combinations grouped from the source's by a class map
            kept.append(designer._source_rows.relation)
            if rows is not None:     # the design's classes and combinations by the engine's statements
                designer._source_rows, made_by_engine = None, len(made)
                found.append(designer.evaluate(design, weights))
                assert ("coded" in made[made_by_engine:]) == (levels == {})
    whole, pieced, by_engine = found
    assert by_engine.to_json_dict() == pieced.to_json_dict()
    assert pieces[0] == 0 and pieces[1] >= 3      # 150 combinations a piece, whole classes
    assert kept == [None, "source_combos"]
    # the design's pairs kept from its pieces while they fit a piece's room (q1 at level 1: few classes;
    # not every value's): measured from them, no coded release in the engine
    assert ("coded" in made) == (levels == {})
    assert 0 < pieced.suppressed_rows == whole.suppressed_rows
    assert pieced.report.scores == whole.report.scores
    assert pieced.report.normalized_source == whole.report.normalized_source
    a, b = pieced.to_json_dict(), whole.to_json_dict()
    assert a == b
    memory = ReleaseDesigner(load_table(path), roles, hierarchies).evaluate(design, weights)
    a, b = pieced.to_json_dict(), memory.to_json_dict()
    a.pop("notes"), b.pop("notes")
    assert_same(a, b)


def test_a_releases_numbering_is_one_rule():
    """The suppressed classes left out and the rest numbered again in class order; an SA's codes
    ranked again only when one is no longer released (what both back-ends apply)."""
    from tklscore.core.engines.design_classes import released_numbering

    class_id, codes = released_numbering(np.array([True, False, True, True]),
                                         [np.array([True, True]), np.array([False, True, False, True])])
    assert class_id.tolist() == [0, -1, 1, 2]
    assert codes[0] is None and codes[1].tolist() == [-1, 0, -1, 1]


def test_suppressed_records_of_an_unknown_combination_are_an_error_not_a_wrong_count():
    """Combinations.released takes each suppressed combination's records from its own row; one
    that is not among the combinations raises (a miss would index the last row), also under -O."""
    from tklscore.core.engines.scoring import Combinations

    rows = {"cid": np.array([0, 0, 1]), "c0": np.array([0, 1, 0]), "cnt": np.array([3, 2, 4])}
    combinations = Combinations(rows, np.array([5, 4]), np.zeros(2), [np.array(["a", "b"])], [np.zeros(2)])
    places = (2, 1)    # key = cid * 2 + c0
    gone = pd.DataFrame({"key": [2], "cnt": [4]})
    assert combinations.released(gone, places).tolist() == [3, 2, 0]
    both = pd.DataFrame({"cid": [0], "c0": [1], "cnt": [2]})
    assert combinations.released(both, None).tolist() == [3, 0, 4]
    with pytest.raises(RuntimeError, match="1 suppressed combination"):
        combinations.released(pd.DataFrame({"key": [3], "cnt": [1]}), places)


def test_a_design_is_evaluated_within_what_the_process_leaves_the_engine(tmp_path, monkeypatch):
    """Under a memory limit a design's statements run under the engine's limit less its share,
    what the process holds (a fixed 200 MiB here) and the room of the combinations it fetches;
    the limit as opened again once evaluated, also when the evaluation fails."""
    from tklscore.core.engines import backend as module

    path = tmp_path / "s.csv"
    pd.DataFrame({"a": ["1", "2", "3", "4"] * 3, "s": ["p", "q", "r"] * 4}).to_csv(path, index=False)
    monkeypatch.setattr(module, "resident_bytes", lambda: 200 * (1 << 20))
    with open_backend("duckdb", "1GiB") as backend:
        def setting():
            return backend.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]

        seen = []
        materialize = backend.materialize
        monkeypatch.setattr(backend, "materialize", lambda name, sql, params=None: (
            seen.append((name, setting())), materialize(name, sql, params)))
        designer = EngineDesigner(backend, str(path), Roles(qi=["a"], sa=["s"]), cache=False)
        seen.clear()
        weights = Weights([("s", "p", 0.5), ("s", "q", 0.2), ("s", "r", 0.1)])
        result = designer.evaluate(ReleaseDesign("d", {}, 3, 0.5), weights)
        assert result.suppressed_rows == 0 and setting() == "1.0 GiB"
        # 1 GiB less its eighth, the 200 MiB held and twice a sixteenth for the fetched combinations
        assert {name for name, _ in seen} >= {"classes", "source_codes_0"}
        assert {limit for _, limit in seen} == {"568.0 MiB"}
        monkeypatch.setattr(backend, "fetch", lambda *args: (_ for _ in ()).throw(RuntimeError("disk gone")))
        with pytest.raises(RuntimeError, match="disk gone"):
            designer.evaluate(ReleaseDesign("e", {}, 2, 0.5), weights)
        assert setting() == "1.0 GiB"


def test_a_designs_classes_counted_in_python_are_the_engines(tmp_path):
    """A design over the aggregate after the whole source was scored in the process: its classes
    and combinations counted in Python from the source's (the QIs' values through the design's
    groups, the classes numbered in the order of their labels as text: "10" before "9", "Z"
    before "Ä"; every QI removed: every label the marker) give the engine's statements' numbers
    to the last bit, and the in-memory designer's."""
    rng = np.random.default_rng(5)
    path = tmp_path / "s.csv"
    pd.DataFrame({"id": [f"r{i}" for i in range(300)], "q0": rng.choice(["9", "10", "100", "Ärger", "Zoo", "a"], 300),
                  "q1": rng.integers(0, 30, 300).astype(str), "s": rng.choice(["flu", "cold", "hiv"], 300),
                  "age": rng.choice(["3", "7", "12", "41.5", "99"], 300)}).to_csv(path, index=False)
    roles = Roles(qi=["q0", "q1"], sa=["s", "age"], continuous=["age"], identifier="id")
    groups = {"Ä-Z": ["Ärger", "Zoo"], "10": ["10", "100"], "9": ["9"], "a": ["a"]}
    hierarchies = {"q1": Hierarchy.intervals("q1", [10, 20]), "q0": Hierarchy.groups("q0", [groups])}
    weights = Weights([("s", "flu", 0.3), ("s", "cold", 0.1), ("s", "hiv", 0.9), ("age", "[0,10)", 0.2),
                       ("age", "[10,inf)", 0.35)])
    memory_designer = ReleaseDesigner(load_table(path), roles, hierarchies)
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(path), roles, hierarchies, cache=False)
        designer.whole_source(weights)
        counted = designer._source_rows
        assert counted is not None
        for design in (ReleaseDesign("d", {"q1": 1}, 4, 0.3), ReleaseDesign("e", {"q0": 1}, 3, 0.2, ["s"]),
                       ReleaseDesign("all", {}, 2, 0.1, ["q0", "q1"])):
            found = []
            for source_rows in (counted, None):     # counted in Python, then by the engine's statements
                designer._source_rows = source_rows
                found.append(designer.evaluate(design, weights).to_json_dict())
            assert found[0] == found[1]
            memory = memory_designer.evaluate(design, weights).to_json_dict()
            found[0].pop("notes"), memory.pop("notes")
            assert_same(found[0], memory)
    assert found[0]["measures"]["suppressed_rows"] == 300 - found[0]["suppressed_rows"] > 0
