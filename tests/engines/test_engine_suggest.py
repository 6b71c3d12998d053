"""Suggested releases out of core (core/engines/lattice.py; issue 23 §1): the lattice nodes
rolled up from the source's finest aggregate give the in-memory search's front — the same
releases with the same numbers — on random tables (hypothesis) and on Adult, from the core,
the command line and with a cached aggregate."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from paths import DATA

from tklscore.core import InputError, Roles, Weights, load_table
from tklscore.core.engines import open_backend
from tklscore.core.engines.design import EngineDesigner
from tklscore.core.engines.lattice import WHOLE_ROW_BYTES
from tklscore.core.release.designer import ReleaseDesigner
from tklscore.core.release.hierarchy import Hierarchy, load_arx_csv
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.release.suggest import Constraints, suggest
from tklscore.core.release.transform import ReleaseDesign

from helpers import examples

ADULT = DATA / "adult"
ADULT_QI = ["sex", "age", "race", "marital-status", "education", "native-country"]
TOLERANCE = 1e-12


def same_number(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=TOLERANCE, abs=TOLERANCE)


def same_bits(a: float, b: float) -> bool:
    """The same figure to the last bit (both engines sum a table score exactly, in any order)."""
    return (math.isnan(a) and math.isnan(b)) or a == b


def assert_same_suggestions(engine, memory):
    assert (engine.lattice_size, engine.evaluated, engine.met, engine.message) == \
           (memory.lattice_size, memory.evaluated, memory.met, memory.message)
    assert [c.levels for c in engine.front] == [c.levels for c in memory.front]
    for a, b in zip(engine.front, memory.front):
        assert (a.k, a.l) == (b.k, b.l), a.levels
        for field in ("utility_loss", "t", "suppressed_share", "shortfall"):
            assert same_number(getattr(a, field), getattr(b, field)), (a.levels, field, a, b)
        assert same_bits(a.tkl_normalized, b.tkl_normalized), (a.levels, a, b)
    assert [c.levels for c in engine.all_evaluated] == [c.levels for c in memory.all_evaluated]
    for a, b in zip(engine.all_evaluated, memory.all_evaluated):
        assert (a.k, a.l) == (b.k, b.l) and same_number(a.suppressed_share, b.suppressed_share), a.levels
        assert same_number(a.utility_loss, b.utility_loss) and same_bits(a.tkl_normalized, b.tkl_normalized)


def suggest_both(path, roles, hierarchies, weights, constraints, base=None, **reading):
    memory = suggest(ReleaseDesigner(load_table(path, **reading), roles, hierarchies), weights, constraints, base)
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(path), roles, hierarchies, delimiter=reading.get("delimiter"))
        engine = suggest(designer.lattice(), weights, constraints, base)
    return engine, memory


@st.composite
def tables(draw):
    n = draw(st.integers(4, 40))
    frame = pd.DataFrame({
        "a": [str(draw(st.integers(0, 9))) for _ in range(n)],
        "b": [draw(st.sampled_from(["x", "y", "z", "w"])) for _ in range(n)],
        "c": [draw(st.sampled_from(["u", "v"])) for _ in range(n)],
        "s": [draw(st.sampled_from(["p", "q", "r"])) for _ in range(n)],
        "m": [draw(st.sampled_from(["1", "2.5", "4", "10"])) for _ in range(n)],
    })
    hierarchies = {"a": Hierarchy.intervals("a", [2, 4]),
                   "b": Hierarchy.groups("b", [{"xy": ["x", "y"], "zw": ["z", "w"]}])}
    sa = draw(st.sampled_from([["s"], ["s", "m"], ["m"]]))
    roles = Roles(qi=["a", "b", "c"], sa=sa, continuous=[c for c in sa if c == "m"])
    weights = Weights([("s", "p", 0.2), ("s", "q", 0.5), ("s", "r", 0.9), ("m", "1", 0.1), ("m", "2.5", 0.3),
                       ("m", "4", 0.6), ("m", "10", 0.8)])
    constraints = Constraints(k=draw(st.integers(1, 5)), l=draw(st.integers(1, 2)),
                              t=draw(st.sampled_from([0.3, 0.6, 1.0])),
                              max_tkl=draw(st.sampled_from([math.inf, 0.9])),
                              suppression_limit=draw(st.sampled_from([0.0, 0.1, 0.3])))
    removed = draw(st.sampled_from([(), ("c",)]))
    return frame, roles, hierarchies, weights, constraints, ReleaseDesign(removed=removed)


@settings(max_examples=examples(26), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=tables())
def test_random_tables_give_the_in_memory_front(case):
    frame, roles, hierarchies, weights, constraints, base = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.csv"
        frame.to_csv(path, index=False)
        engine, memory = suggest_both(path, roles, hierarchies, weights, constraints, base)
    assert_same_suggestions(engine, memory)


def test_a_near_tie_sums_to_the_same_last_bit_out_of_core_and_in_memory(tmp_path):
    """Session 10's repro: on six rows out of core summed ``cnt · score`` per combination and
    the whole source in the engine's order, giving the top node 1.0000000000000002 where
    memory gives 1.0; both engines now sum exactly, so every figure is the same double."""
    frame = pd.DataFrame({"a": ["0"] * 6, "b": ["x", "x", "x", "y", "x", "x"], "c": ["u"] * 4 + ["v"] * 2,
                          "s": ["p"] * 6, "m": ["1"] * 6})
    hierarchies = {"a": Hierarchy.intervals("a", [2, 4]),
                   "b": Hierarchy.groups("b", [{"xy": ["x", "y"], "zw": ["z", "w"]}])}
    weights = Weights([("s", "p", 0.2), ("s", "q", 0.5), ("s", "r", 0.9)])
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    engine, memory = suggest_both(path, Roles(qi=["a", "b", "c"], sa=["s"]), hierarchies, weights,
                                  Constraints(k=1, l=1, t=0.3, max_tkl=0.9, suppression_limit=0.0))
    figures = [[(c.levels, c.tkl_normalized, c.utility_loss, c.k, c.l, c.t) for c in found.all_evaluated]
               for found in (engine, memory)]
    assert figures[0] == figures[1]
    assert [(c.levels, c.tkl_normalized) for c in engine.front][0] == ({"a": 0, "b": 0}, 1.0)
    assert [c.levels for c in engine.front] == [c.levels for c in memory.front]


def adult_case():
    roles = Roles(qi=ADULT_QI, sa=["occupation", "salary-class"])
    hierarchies = {c: load_arx_csv(ADULT / f"adult_hierarchy_{c}.csv", c) for c in ADULT_QI}
    table = load_table(ADULT / "adult_subset.csv", delimiter=";")
    weights = Weights([("occupation", v, 0.1 + 0.05 * i) for i, v in enumerate(sorted(set(table.frame["occupation"])))]
                      + [("salary-class", "<=50K", 0.2), ("salary-class", ">50K", 0.7)])
    return roles, hierarchies, weights


@pytest.mark.parametrize("constraints", [Constraints(k=5, suppression_limit=0.05),
                                         Constraints(k=3, l=2, t=0.4, suppression_limit=0.02),
                                         Constraints(k=100000)])
def test_adult_gives_the_in_memory_front(constraints):
    roles, hierarchies, weights = adult_case()
    engine, memory = suggest_both(ADULT / "adult_subset.csv", roles, hierarchies, weights, constraints,
                                  delimiter=";")
    assert engine.lattice_size == 5 * 2 * 2 * 3 * 4 * 3
    assert_same_suggestions(engine, memory)
    assert engine.front


def test_a_row_selection_is_refused_out_of_core_with_the_remedy():
    roles, hierarchies, weights = adult_case()
    base = ReleaseDesign(selection=ReleaseDefinition("women", "filter", expression="sex == 'Female'"))
    with open_backend("duckdb") as backend:
        lattice = EngineDesigner(backend, str(ADULT / "adult_subset.csv"), roles, hierarchies,
                                 delimiter=";").lattice()
        with pytest.raises(InputError, match="a row selection needs the records"):
            suggest(lattice, weights, Constraints(k=2), base)


def test_cli_suggest_with_an_engine_gives_the_in_memory_json(capsys, tmp_path):
    from helpers import run_cli
    from adult_support import adult_args

    args = ["suggest", *adult_args(tmp_path), "--k", "5", "--suppression-limit", "0.05", "--format", "json"]
    code, memory, err = run_cli(capsys, args)
    assert code == 0, err
    code, engine, err = run_cli(capsys, args + ["--engine", "duckdb", "--memory-limit", "1GB"])
    assert code == 0, err
    engine, memory = json.loads(engine), json.loads(memory)
    assert engine["lattice_size"] == memory["lattice_size"] and engine["evaluated"] == memory["evaluated"]
    assert [c["levels"] for c in engine["front"]] == [c["levels"] for c in memory["front"]]
    for a, b in zip(engine["front"], memory["front"]):
        for key in ("tkl_normalized", "utility_loss", "t", "suppressed_share"):
            assert same_number(a[key], b[key]), key
    code, again, err = run_cli(capsys, args + ["--engine", "duckdb"])
    assert code == 0 and "aggregate of the source reused from the cache" in err
    assert json.loads(again) == engine
    code, _, err = run_cli(capsys, args + ["--engine", "duckdb", "--filter", "sex == 'Female'"])
    assert code == 2 and "a row selection needs the records" in err


def pieces_budget(chunk_rows: int) -> int:
    """A search budget whose pieces hold at most ``2 · chunk_rows`` rows."""
    from tklscore.core.engines.lattice import NODES_AT_ONCE, PIECE_ROW_BYTES

    return NODES_AT_ONCE * 2 * PIECE_ROW_BYTES * chunk_rows


def suggest_in_pieces(monkeypatch, budget, path, roles, hierarchies, weights, constraints, base=None, **reading):
    """The out-of-core search within a budget of ``budget`` bytes, and the most rows its l-DF
    (:func:`l_of_classes`) or t (``class_t``) was given at once."""
    from tklscore.core.engines import lattice as module

    seen = []
    counted, t_of = module.l_of_classes, module.class_t

    def recorded(classes, groups, known=None, step=None):
        seen.append(len(classes[0]))
        return counted(classes, groups, known, step)

    def recorded_t(classes, *args, **kwargs):
        seen.append(len(classes))
        return t_of(classes, *args, **kwargs)

    monkeypatch.setattr(module, "l_of_classes", recorded)
    monkeypatch.setattr(module, "class_t", recorded_t)
    with open_backend("duckdb") as backend:
        designer = EngineDesigner(backend, str(path), roles, hierarchies, delimiter=reading.get("delimiter"))
        lattice = module.AggregateLattice(designer, budget)
        found = suggest(lattice, weights, constraints, base)
    return found, lattice, max(seen, default=0)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=tables(), chunk_rows=st.integers(1, 6), tabled=st.sampled_from(["rows", "table", "cells"]),
       gathered=st.booleans())
def test_counting_a_node_in_tiny_pieces_gives_the_in_memory_front(case, chunk_rows, tabled, gathered):
    frame, roles, hierarchies, weights, constraints, base = case
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as monkeypatch:
        if tabled == "rows":     # every categorical SA counted over the rows, not rolled up from its value table
            monkeypatch.setattr("tklscore.core.engines.lattice.TABLE_CELLS_A_ROW", 0)
        # a value table kept whole, or as its occupied cells only
        monkeypatch.setattr("tklscore.core.engines.lattice.PAIRS_A_CELL", 0.0 if tabled == "table" else 1.0)
        if gathered:       # a large class's rows read at their full SA groups, never at their combinations
            monkeypatch.setattr("tklscore.core.engines.lattice.AggregateLattice._full_is_combo",
                                lambda self, groups: False)
        path = Path(folder) / "s.csv"
        frame.to_csv(path, index=False)
        memory = suggest(ReleaseDesigner(load_table(path), roles, hierarchies), weights, constraints, base)
        engine, lattice, most = suggest_in_pieces(monkeypatch, pieces_budget(chunk_rows), path, roles, hierarchies,
                                                  weights, constraints, base)
    assert_same_suggestions(engine, memory)
    # a small aggregate fits the budget whole; a larger one comes in pieces of whole classes of at most
    # twice the chunk, a larger class over its distinct SA groups or values
    assert lattice.whole == (lattice.rows * WHOLE_ROW_BYTES <= pieces_budget(chunk_rows))
    if lattice.whole:
        assert most <= lattice.rows == lattice.chunk_rows
    else:
        assert lattice.chunk_rows == chunk_rows and most <= max(2 * chunk_rows, lattice.combos)


def test_adult_in_pieces_bounds_what_is_counted_at_once_and_gives_the_same_front(monkeypatch):
    roles, hierarchies, weights = adult_case()
    constraints = Constraints(k=3, l=2, t=0.4, suppression_limit=0.02)
    path = ADULT / "adult_subset.csv"
    memory = suggest(ReleaseDesigner(load_table(path, delimiter=";"), roles, hierarchies), weights, constraints)
    from tklscore.core.scoring.distinguishing_factors import LatticeL

    read, known = [], LatticeL.known

    def recorded(self, *args, **kwargs):
        masks = known(self, *args, **kwargs)
        read.extend(m for m in masks or () if m is not None)
        return masks

    monkeypatch.setattr(LatticeL, "known", recorded)
    import threading
    import time

    from tklscore.core.engines import lattice as module

    inside, most_inside, lock, own, own_class, counted = [0], [0], threading.Lock(), [], module._own_class, []

    def own_counted(self, piece, class_of_finest, sizes, dropped, kept, groups, representative, w, masks, t):
        rows = module._ranges(self.offsets[piece[0]], self.finest_rows[piece[0]])
        own.append(len(rows))
        large = len(rows) > self.own_rows
        with lock:
            inside[0] += large
            most_inside[0] = max(most_inside[0], inside[0])
        try:
            time.sleep(0.002 * large)     # long enough for the other worker to come in, were it let in
            mine = [None] * len(masks)
            found = own_class(self, piece, class_of_finest, sizes, dropped, kept, groups, representative, w, mine, t)
        finally:
            with lock:
                inside[0] -= large
        counted.append((self, rows, found, mine, class_of_finest, sizes, dropped, kept, groups, w, t))
        module._assemble(masks, [None if m is None else m[rows] for m in mine], rows, self.rows)
        return found

    monkeypatch.setattr(module, "_own_class", own_counted)
    engine, lattice, most = suggest_in_pieces(monkeypatch, pieces_budget(200), path, roles, hierarchies, weights,
                                              constraints, delimiter=";")
    assert_same_suggestions(engine, memory)
    # the generalisations' masks are read a bit a row: no node unpacks them whole
    assert read and all(m.dtype == np.uint8 and len(m) == -(-lattice.rows // 8) for m in read)
    # a class larger than a piece over its own distinct SA combinations, one of more than own_rows rows
    # read in parts of at most own_rows, one node at a time
    assert most_inside[0] == 1
    assert lattice.own_rows == 4 * 200 and min(own) > 200 and max(own) > 2 * lattice.own_rows
    # its scores and masks over its own combinations (in parts) are the direct count over its rows
    for self, rows, found, mine, class_of_finest, sizes, dropped, kept, groups, w, t in counted:
        cls = int(class_of_finest[np.searchsorted(self.offsets, rows[0], side="right") - 1])
        at_rows = module._RowGroups(groups, self.combo[rows], [self.combo_s[i] for i in kept])
        direct, direct_masks = self._scored_rows(kept, at_rows, np.zeros(len(rows), dtype=np.int64),
                                                 sizes[cls:cls + 1], ~dropped[cls:cls + 1], at_rows.at(w),
                                                 self.cnt[rows], None, t[cls:cls + 1])
        assert math.fsum(found) == math.fsum(direct)
        for mask, expected in zip(mine, direct_masks):     # None: every row open
            ones = np.ones(len(rows), dtype=np.bool_)
            assert np.array_equal(ones if mask is None else mask[rows], ones if expected is None else expected)
    assert not lattice.whole and lattice.chunk_rows == 200
    assert lattice.rows > 10 * 200     # many pieces, and the top nodes' classes larger than one
    assert most <= max(400, lattice.combos) < lattice.rows


def test_the_whole_aggregate_at_once_and_in_pieces_give_the_same_search():
    """Within the budget every row is counted at once, above it in pieces of whole classes:
    the same releases with the same numbers (every evaluated node), and only the piece size
    follows the budget."""
    from tklscore.core.engines import lattice as lattice_module
    from tklscore.core.engines.lattice import AggregateLattice, WHOLE_ROW_BYTES, fetch_rows, piece_rows

    rng = np.random.default_rng(23)
    frame = pd.DataFrame({"a": rng.integers(0, 10, 400).astype(str), "b": rng.choice(list("xyzw"), 400),
                          "c": rng.choice(list("uv"), 400), "s": rng.choice(list("pqr"), 400),
                          "m": rng.choice(["1", "2.5", "4", "10"], 400)})
    roles = Roles(qi=["a", "b", "c"], sa=["s", "m"], continuous=["m"])
    hierarchies = {"a": Hierarchy.intervals("a", [2, 4]),
                   "b": Hierarchy.groups("b", [{"xy": ["x", "y"], "zw": ["z", "w"]}])}
    weights = Weights([("s", "p", 0.2), ("s", "q", 0.5), ("s", "r", 0.9), ("m", "1", 0.1), ("m", "2.5", 0.3),
                       ("m", "4", 0.6), ("m", "10", 0.8)])
    constraints = Constraints(k=20, l=2, t=0.6, suppression_limit=0.5)    # some classes suppressed
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.csv"
        frame.to_csv(path, index=False)
        with open_backend("duckdb") as backend:
            designer = EngineDesigner(backend, str(path), roles, hierarchies)
            whole = AggregateLattice(designer, None)       # no limit: the machine's memory
            found_whole = suggest(whole, weights, constraints)
            fitting = AggregateLattice(designer, whole.rows * WHOLE_ROW_BYTES)
            over = AggregateLattice(designer, whole.rows * WHOLE_ROW_BYTES - 1)
            lattice_module._POSITIONS[0] = np.zeros(0, dtype=np.int64)
            pieces = AggregateLattice(designer, pieces_budget(20))
            # the set-up's positions of every row freed with it: what the search keeps is a piece's
            assert len(lattice_module._POSITIONS[0]) < pieces.rows
            found_pieces = suggest(pieces, weights, constraints)
            aggregate = backend.fetch("SELECT q0, q1, q2, s0, s1, cnt, rid FROM fin")
        # the aggregate read in one batch and in batches of 8 rows (a small budget's) gives the
        # lattice as SQL numbers it: finest classes by first record, SA combinations in code order
        assert fetch_rows(pieces_budget(20)) == 8 < whole.rows <= fetch_rows(1 << 30)
        expected_lattice(aggregate, whole)
        expected_lattice(aggregate, pieces)
        memory = suggest(ReleaseDesigner(load_table(path), roles, hierarchies), weights, constraints)
    assert whole.whole and fitting.whole and whole.chunk_rows == fitting.chunk_rows == whole.rows > 100
    assert not over.whole and over.chunk_rows == piece_rows(over.rows, whole.rows * WHOLE_ROW_BYTES - 1) < over.rows
    assert not pieces.whole and pieces.chunk_rows == 20
    assert found_whole.front and found_whole.evaluated > 10
    assert_same_suggestions(found_whole, memory)
    assert_same_suggestions(found_pieces, found_whole)
    # once every node is scored, the l-DF masks and the groupings only scoring reads are freed
    for lattice in (whole, pieces):
        assert not lattice._lattice_l._masks and not lattice._sa_groups and not lattice._row_groups


def expected_lattice(aggregate: pd.DataFrame, lattice) -> None:
    """``lattice``'s arrays are those of the aggregate's rows (QIs ``q*``, SAs ``s*``, cnt, rid)
    counted here by pandas: the finest classes numbered by their first record, the distinct SA
    combinations by their values' codes (each SA's values in sorted order), the rows ordered
    by (finest class, combination)."""
    qi = [c for c in aggregate.columns if c.startswith("q")]
    sa = [c for c in aggregate.columns if c.startswith("s")]
    frame = aggregate.copy()
    for i, column in enumerate(sa):
        assert list(lattice.uniques[i]) == sorted(frame[column].unique())
        frame[column] = frame[column].map({v: c for c, v in enumerate(lattice.uniques[i])})
    classes = frame.groupby(qi).agg(n=("cnt", "size"), cnt=("cnt", "sum"), rid=("rid", "min")).sort_values("rid")
    assert list(lattice.finest_rid) == list(classes["rid"]) and list(lattice.finest_cnt) == list(classes["cnt"])
    assert list(lattice.finest_rows) == list(classes["n"]) and lattice.rows == len(frame)
    for j, column in enumerate(qi):
        values = lattice.designer.column(lattice.roles.qi[j]).values
        assert list(values[lattice.finest_q[j]]) == list(classes.index.get_level_values(column))
    combos = frame[sa].drop_duplicates().sort_values(sa)
    assert lattice.combos == len(combos)
    for i, column in enumerate(sa):
        assert list(lattice.combo_s[i]) == list(combos[column])
    frame["f"] = frame.set_index(qi).index.map(pd.Series(np.arange(len(classes)), index=classes.index))
    frame["c"] = frame.set_index(sa).index.map(pd.Series(np.arange(len(combos)), index=pd.MultiIndex.from_frame(combos)))
    frame = frame.sort_values(["f", "c"])
    assert list(lattice.combo) == list(frame["c"]) and list(lattice.cnt) == list(frame["cnt"])


def test_the_search_budget_is_the_limit_less_what_the_process_and_the_search_hold(monkeypatch):
    """The search's budget: the memory limit less the process's resident memory and the
    engine's share (half the limit where the resident memory cannot be read); the pieces are
    sized from what is left once the combinations' groupings and the l-DF masks are counted."""
    from tklscore.core.engines import lattice as module
    from tklscore.core.engines.backend import ENGINE_SHARE

    limit = 1 << 30
    monkeypatch.setattr(module, "_resident_bytes", lambda: 300 << 20)
    assert module.search_budget(limit) == int((1 - ENGINE_SHARE) * limit) - (300 << 20)
    monkeypatch.setattr(module, "_resident_bytes", lambda: None)
    assert module.search_budget(limit) == limit // 2
    monkeypatch.undo()
    resident = module._resident_bytes()
    assert resident is None or 10 << 20 < resident < 64 << 30     # this process's, where it can be read

    backend = type("Backend", (), {"memory_limit": 2 << 30})()
    # the fields the piece sizing reads, of an aggregate of 10M rows, 2M SA combinations and 4 SAs
    aggregate = module.AggregateLattice.__new__(module.AggregateLattice)
    aggregate.rows, aggregate.combos, aggregate.uniques = 10_000_000, 2_000_000, [None] * 4
    aggregate.tables = type("Tables", (), {"bytes": 8 << 20})()     # the categorical SAs' value tables
    monkeypatch.setattr(module, "search_budget", lambda memory_limit: 1 << 30 if memory_limit == 2 << 30 else 0)
    aggregate._size_pieces(backend, None)
    assert aggregate._lattice_l.budget == module.MASKS_KEPT
    # two nodes in flight, each assembling a byte a row and SA and reading a bit a row and SA
    held = (module.COMBINATION_BYTES * 2_000_000 + module.MASKS_KEPT + 2 * (4 * 10_000_000 + 4 * 10_000_000 // 8)
            + (8 << 20))
    assert aggregate.held_bytes() == held
    assert aggregate.chunk_rows == module.piece_rows(10_000_000, (1 << 30) - held) and not aggregate.whole
    # the largest pieces of the two nodes in flight (twice the chunk each) and what is held fit the budget
    assert aggregate.chunk_rows == ((1 << 30) - held) // (2 * 2 * module.PIECE_ROW_BYTES) == 713_647
    assert 2 * 2 * aggregate.chunk_rows * module.PIECE_ROW_BYTES + held <= 1 << 30
    # a class counted over its own SA combinations takes at most what a piece may: two of them in flight fit too
    assert aggregate.own_rows > aggregate.chunk_rows
    assert 2 * aggregate.own_rows * module.OWN_CLASS_ROW_BYTES + held <= 1 << 30
    monkeypatch.setattr(module, "search_budget", lambda memory_limit: 30 << 20)   # little left: the fewest rows
    aggregate._size_pieces(backend, None)
    assert aggregate._lattice_l.budget == 2 * 4 * 10_000_000 // 8    # two nodes' masks (a bit a row) at least
    assert aggregate.chunk_rows == module.MIN_PIECE_ROWS


def test_the_engine_gives_its_memory_to_the_search_and_takes_it_back():
    """While the out-of-core search counts, DuckDB's limit is lowered (its buffers given back)
    and restored afterwards: to the limit it was opened with, or to its default."""
    for opened in ("1GB", None):
        with open_backend("duckdb", opened) as backend:
            def setting():
                return backend.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]

            before = setting()
            assert backend.engine_memory(256 << 20) and setting() == "256.0 MiB"
            assert backend.engine_memory(None) and setting() == before


def test_an_idle_engine_gives_back_every_buffer_it_keeps():
    """Before the search counts (minutes without a statement) DuckDB gives back the pages it
    keeps up to its limit — not only those beyond the engine's share — and its tables still
    read as before; its limit is then the share of the memory limit. No limit: nothing done."""
    from tklscore.core.engines.backend import ENGINE_SHARE, IDLE_ENGINE_BYTES

    with open_backend("duckdb", "1GB") as backend:
        def held():
            return backend.con.execute("SELECT COALESCE(SUM(memory_usage_bytes), 0) FROM duckdb_memory()").fetchone()[0]

        backend.materialize("t", "SELECT range AS a, range % 1000 AS b FROM range(2000000)")
        assert backend.engine_memory(int(ENGINE_SHARE * backend.memory_limit)) and held() > 2 << 20
        assert backend.idle_engine() and held() <= IDLE_ENGINE_BYTES
        limit = backend.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        assert limit == f"{(int(ENGINE_SHARE * backend.memory_limit) >> 20):.1f} MiB"
        assert backend.fetch("SELECT SUM(a) AS s FROM t")["s"].iloc[0] == 1999999 * 2000000 // 2
    with open_backend("duckdb", None) as backend:
        assert not backend.idle_engine()


def test_the_engine_is_bounded_by_what_the_process_holds_beside_it(monkeypatch):
    """Under a memory limit the engine first gives its buffers back, then takes the limit less
    the engine's share, what the process holds and what it is about to fill — never less than
    the engine's share; without a limit, or where the resident memory cannot be read, its
    limit is left as opened."""
    from tklscore.core.engines import backend as module

    class Recording(module.Backend):
        def __init__(self, limit):
            self.memory_limit, self.limits = limit, []

        def engine_memory(self, limit):
            self.limits.append(limit)
            return True

    gib, mib = 1 << 30, 1 << 20
    engine = Recording(2 * gib)
    monkeypatch.setattr(module, "resident_bytes", lambda: 300 * mib)
    assert engine.bound_engine(100 * mib)
    # 2 GiB less its eighth (256 MiB), the 300 MiB held and the 100 MiB to come: 1,392 MiB
    assert engine.limits == [256 * mib, 1392 * mib]
    monkeypatch.setattr(module, "resident_bytes", lambda: 1900 * mib)     # the process holds nearly all
    engine.limits.clear()
    assert engine.bound_engine() and engine.limits == [256 * mib, 256 * mib]
    monkeypatch.setattr(module, "resident_bytes", lambda: None)
    engine.limits.clear()
    assert not engine.bound_engine() and engine.limits == [256 * mib, None]
    unbounded = Recording(None)
    assert not unbounded.bound_engine() and unbounded.limits == []


def test_the_aggregate_is_built_within_what_the_process_leaves_the_engine(tmp_path, monkeypatch):
    """The finest aggregate, the lattice's tables and its fetch run under the engine's limit
    less what the process holds (a fixed 200 MiB here) and, for the fetch, the arrays it fills;
    the limit as opened again once the aggregate is read."""
    from tklscore.core.engines import backend as module
    from tklscore.core.engines import lattice

    frame = pd.DataFrame({"a": ["1", "2", "3", "4"] * 3, "b": ["x", "y"] * 6, "s": ["p", "q", "r"] * 4})
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    mib = 1 << 20
    monkeypatch.setattr(module, "resident_bytes", lambda: 200 * mib)
    monkeypatch.setattr(lattice, "_resident_bytes", lambda: 200 * mib)     # the search's budget, its batches' size
    with open_backend("duckdb", "1GiB") as backend:
        def setting():
            return backend.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]

        seen = {}
        materialize, batches = backend.materialize, backend.fetch_batches
        monkeypatch.setattr(backend, "materialize", lambda name, sql, params=None: (
            seen.setdefault(name, setting()), materialize(name, sql, params)))
        monkeypatch.setattr(backend, "fetch_batches", lambda sql, rows: (
            seen.setdefault("fetch", setting()), batches(sql, rows))[1])
        designer = EngineDesigner(backend, str(path), Roles(qi=["a", "b"], sa=["s"]),
                                  {"a": Hierarchy.intervals("a", [2])}, cache=False)
        assert setting() == "1.0 GiB"       # as opened, once the aggregate is built
        aggregate = designer.lattice()
        batch = lattice.fetch_rows(lattice.search_budget(backend.memory_limit))
    # the aggregate's rows as the fetch fills them: 3 one-byte codes, cnt and rid
    fetched = aggregate.rows * (3 + 16) + 2 * batch * lattice.BATCH_ROW_BYTES
    # 1 GiB less its eighth and the 200 MiB held: 696 MiB; the fetch, less the arrays it fills too
    assert seen["fin"] == "696.0 MiB" and batch == lattice.BATCH_ROWS and aggregate.rows == 12
    assert seen["fetch"] == f"{(696 * mib - fetched) >> 20}.0 MiB" == "595.0 MiB"    # whole MiB


def test_a_search_that_fails_gives_the_engine_its_memory_back(tmp_path, monkeypatch):
    """An error while the nodes are scored still restores the engine's limit and frees the masks."""
    from tklscore.core.engines import lattice as module

    frame = pd.DataFrame({"a": ["1", "2", "3", "4"] * 3, "b": ["x", "y"] * 6, "s": ["p", "q", "r"] * 4})
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    weights = Weights([("s", "p", 0.2), ("s", "q", 0.5), ("s", "r", 0.9)])

    def broken(self, *args):
        raise RuntimeError("disk gone")

    monkeypatch.setattr(module.AggregateNode, "score_and_done", broken)
    with open_backend("duckdb", "1GB") as backend:
        before = backend.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
        designer = EngineDesigner(backend, str(path), Roles(qi=["a", "b"], sa=["s"]),
                                  {"a": Hierarchy.intervals("a", [2])})
        aggregate = designer.lattice()
        with pytest.raises(RuntimeError, match="disk gone"):
            suggest(aggregate, weights, Constraints(k=1, l=1, t=1.0, max_tkl=1.0, suppression_limit=0.0))
        assert backend.con.execute("SELECT current_setting('memory_limit')").fetchone()[0] == before
        assert aggregate._row_groups == {} and aggregate._sa_groups == {}


@pytest.fixture(scope="module")
def tabled_lattice(tmp_path_factory):
    """A small aggregate whose categorical SAs are tabled (:class:`ValueTables`), beside a continuous one."""
    rng = np.random.default_rng(11)
    n = 300
    frame = pd.DataFrame({"a": rng.integers(0, 12, n).astype(str), "b": rng.choice(list("xyzw"), n),
                          "s": rng.choice(list("pqro"), n, p=[0.5, 0.3, 0.15, 0.05]),
                          "d": rng.choice(list("ABCDEFG"), n), "m": rng.choice(["1", "2.5", "4"], n)})
    path = tmp_path_factory.mktemp("tables") / "s.csv"
    frame.to_csv(path, index=False)
    roles = Roles(qi=["a", "b"], sa=["s", "d", "m"], continuous=["m"])
    with open_backend("duckdb") as backend:
        yield EngineDesigner(backend, str(path), roles, {"a": Hierarchy.intervals("a", [4])}).lattice()


@settings(max_examples=examples(21), deadline=None)
@given(data=st.data())
def test_a_nodes_value_counts_rolled_up_from_the_finest_tables_are_the_rows_counted(tabled_lattice, data):
    """A node's t over the tabled SAs, and its published l and t, rolled up from the (finest class,
    value) tables are the rows' own: the same doubles as the rows' counts give (class_t), and a
    direct count's figures."""
    from tklscore.core.engines.lattice import _Classes, class_t

    lattice = tabled_lattice
    assert lattice.tables.tabled == {0, 1}
    finest = len(lattice.finest_rows)
    groups = data.draw(st.integers(1, finest))
    of_finest = np.unique(data.draw(st.lists(st.integers(0, groups - 1), min_size=finest, max_size=finest)),
                          return_inverse=True)[1].astype(np.int64)
    classes = _Classes(of_finest, int(of_finest.max()) + 1)
    published = np.array(data.draw(st.lists(st.booleans(), min_size=classes.count, max_size=classes.count)))
    row_class = np.repeat(of_finest, lattice.finest_rows)
    cnt = lattice.cnt.astype(np.int64)
    sizes = np.bincount(row_class, weights=cnt, minlength=classes.count).astype(np.int64)
    expected_t = np.zeros(classes.count)
    for i in (0, 1):
        m, codes = len(lattice.uniques[i]), lattice.combo_s[i][lattice.combo].astype(np.int64)
        by_rows = class_t(row_class, classes.count, sizes, codes, m, cnt, False, lattice.value_counts(i))
        np.maximum(expected_t, by_rows, out=expected_t)
        # a direct count: each class's records of each value
        counts = np.zeros((classes.count, m), dtype=np.int64)
        np.add.at(counts, (row_class, codes), cnt)
        whole = counts.sum(axis=0)
        naive = 0.5 * np.abs(counts / sizes[:, None] - whole / whole.sum()).sum(axis=1)
        assert by_rows == pytest.approx(naive, abs=1e-12)
        if published.any():
            l, t = lattice.tables.models(i, classes, published, sizes)
            shown = counts[published]
            assert l == np.count_nonzero(shown, axis=1).min()
            table = shown.sum(axis=0)
            assert t == pytest.approx((0.5 * np.abs(shown / shown.sum(axis=1)[:, None] - table / table.sum())
                                       .sum(axis=1)).max(), abs=1e-12)
            rows = published[row_class]
            assert t == class_t(row_class[rows], classes.count, sizes, codes[rows], m, cnt[rows], False,
                                (table, int(table.sum())))[published].max()
    assert np.array_equal(lattice.tables.t([0, 1, 2], classes, sizes), expected_t)     # to the last bit
    assert not lattice.tables.t([2], classes, sizes).any()     # a continuous SA is counted over the rows
    # a large class's rows are read at their SA combinations (no gather) only when they are the full groups
    groups, _ = lattice.sa_groups([0, 1, 2])
    assert np.array_equal(groups.full[0], np.arange(lattice.combos)) and lattice._full_is_combo(groups)
    groups, _ = lattice.sa_groups([0, 2])
    assert groups.full[1] < lattice.combos and not lattice._full_is_combo(groups)


@settings(max_examples=examples(8), deadline=None)
@given(cards=st.lists(st.integers(1, 5), min_size=1, max_size=3), data=st.data())
def test_a_large_classs_l_over_its_own_sa_combinations_is_the_direct_count(cards, data):
    """One class's l-DF over its own distinct SA combinations (each one's line along each SA: its
    group of the others) is the direct count of l_of_classes, and each SA's table opens exactly
    the lines holding a combination of l above 1."""
    from tklscore.core.engines.lattice import _l_of_own_groups
    from tklscore.core.scoring.distinguishing_factors import l_of_classes, sa_groups
    from tklscore.core.tables.codes import Codes

    every = np.array(list(np.ndindex(*cards)), dtype=np.int64).reshape(-1, len(cards))
    chosen = data.draw(st.lists(st.integers(0, len(every) - 1), min_size=1, max_size=len(every), unique=True))
    combos = every[np.sort(chosen)]       # the class's distinct SA combinations, in the order of their codes
    groups = sa_groups([Codes(combos[:, i], np.arange(c)) for i, c in enumerate(cards)], len(combos))
    expected, _ = l_of_classes((np.zeros(len(combos), dtype=np.int64), 1), groups)
    # a used map (not cleared): only the entries written are read
    number = np.full(len(combos), len(combos) + 7, dtype=np.int32)
    l, tables = _l_of_own_groups([None if o is None else o[0] for o in groups.others], len(combos), number)
    assert np.array_equal(l, expected)
    for axis, table in enumerate(tables):
        others = np.delete(combos, axis, axis=1)
        live = {tuple(row) for row in others[expected > 1]}
        assert table.tolist() == [tuple(row) in live for row in others]


def test_values_given_in_parts_are_numbered_as_first_met_through_a_map_never_cleared():
    """A class's full SA groups met part by part: each numbered once, in the order first met,
    through a map holding another class's numbers (an entry counts only when its number's value is it)."""
    from tklscore.core.engines.lattice import _Numbering

    number = np.array([0, 1, 5, -3, 2, 0, 1, 4], dtype=np.int32)   # left by earlier classes
    numbering = _Numbering(number)
    parts = [np.array([6, 6, 2]), np.array([0, 2, 7, 6]), np.array([5, 0, 5])]
    found = [numbering.add(part).tolist() for part in parts]
    assert numbering.values.tolist() == [6, 2, 0, 7, 5]
    assert found == [[0, 0, 1], [2, 1, 3, 0], [4, 2, 4]]
