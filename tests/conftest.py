import gc
import json
import os
import time
from pathlib import Path

import pytest
from hypothesis import settings

from paths import DATA, TESTS
from tklscore.gui.qt_import import import_qt

# Qt imported here, before pytest-qt and the GUI tests import it, so that PySide6's import hook is
# not left on every import statement of every test (tklscore/gui/qt_import.py: the core's and
# hypothesis' tests took 1.1-1.16x the CPU with it), as the application's commands import Qt
import_qt()

# Hypothesis's 200 ms deadline per example times the machine, not the code: on a loaded 2-core
# machine an unchanged test missed it (300 ms). The suite proves speed with benchmarks, not timed tests.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

# The longest modules first, longest of all at the head: with ``--dist loadfile
# --no-loadscope-reorder`` (scripts/test.sh) xdist hands modules to its workers in collection
# order, so the Spark module (one session, a third of the suite's CPU) starts at once on one
# worker while the other takes the rest, and the run ends on small modules only (the longest
# first schedule: a worker that finishes early never waits for a long module started late on the
# other). By default xdist orders modules by their number of tests and started Spark late,
# leaving it as the run's tail. (Split in two, one session per worker, it took longer: two JVMs
# warming up on two shared cores.) Measured with TKLSCORE_TEST_TIMELINE (scripts/test_timeline.py):
# every module of 3.5 s or more of wall time in CI21 (load 3), by that time; the others, all
# shorter, follow in collection order, so neither worker ends on a module of several seconds.
LONGEST_FIRST = (
    "engines/test_engine_spark.py", "test_offline.py", "test_properties.py", "core/release/test_release_design.py",
    "engines/test_engine_design.py", "core/risk/test_risk_measures.py", "engines/test_engine_finest.py",
    "engines/test_engine_suggest.py", "engines/test_engine_measures.py", "engines/test_engines.py",
    "test_hostile_inputs.py", "core/risk/test_population_uniqueness.py", "engines/test_engine_filter.py",
    "gui/test_gui_scores_out_of_core.py", "core/tables/test_group_engine.py", "gui/test_gui_scores.py",
    "gui/test_report.py", "engines/test_engine_typed_text.py", "test_nothing_lost.py", "engines/test_bench_100m.py",
    "gui/test_gui_design.py", "gui/test_gui_design_workflow.py", "gui/test_gui_risk.py", "test_real_files.py",
    "gui/test_gui_navigation.py", "engines/test_engine_disclosure_risk.py", "gui/test_gui_model_building.py",
    "engines/test_record_store.py", "core/pia/test_pia_efficient.py", "core/tables/test_fast_paths.py",
    "gui/test_gui_app.py", "gui/test_gui_design_out_of_core.py", "core/pia/test_pia_disruption.py",
    "core/pia/test_pia_reasoner.py", "core/pseudonymization/test_pseudonymization.py", "gui/test_gui_model.py",
    "core/pia/test_pia_oracles_generated.py", "gui/test_gui_release.py", "gui/test_gui_workbench.py",
    "gui/test_gui_ahp.py", "core/model/test_taxonomy.py", "core/learn/test_learn_tasks.py", "test_layers.py",
    "gui/test_gui_defects.py", "core/pia/test_pia_violations.py", "engines/test_engine_source.py",
    "core/learn/test_learn_datasets.py", "core/risk/test_disclosure_risk.py", "gui/test_gui_release_out_of_core.py",
    "core/pia/test_pia_closure_oxigraph.py")


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def place(item) -> int:
        try:
            return rank.get(item.path.relative_to(TESTS).as_posix(), len(rank))
        except ValueError:  # a test outside tests/ (a run of pytester's)
            return len(rank)

    items.sort(key=place)  # stable: the others keep their order


def pytest_collection_finish(session):
    """What the imports and the collection made (pandas, Qt, DuckDB, hypothesis, every test module:
    about 100,000 objects) lives till the end: frozen, out of the cycle collector's way, it is not
    walked again by each full collection the tests' work triggers (measured: the collector's time
    in a worker's tests about halved, 1.9 -> 1.2 s on six engine and core modules)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def data_dir() -> Path:
    assert DATA.is_dir(), f"test data not found at {DATA}"
    return DATA


@pytest.fixture(autouse=True, scope="session")
def _aggregate_cache(tmp_path_factory):
    """The engines' aggregate cache (core/engines/finest.py) in the session's temporary
    folder, never the user's ~/.cache."""
    import os

    folder = tmp_path_factory.mktemp("aggregate-cache")
    before = os.environ.get("TKLSCORE_CACHE_DIR")
    os.environ["TKLSCORE_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("TKLSCORE_CACHE_DIR", None)
    else:
        os.environ["TKLSCORE_CACHE_DIR"] = before


def _tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a process, its live descendants (a Spark JVM) and the
    children they have reaped, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total, stack = 0.0, [pid]
    while stack:
        p = stack.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15]) / tick
            for task in Path(f"/proc/{p}/task").iterdir():
                stack.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError, IndexError):
            continue
    return total


_OUTCOME = pytest.StashKey[str]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """The worst outcome of a test's phases, for the timeline."""
    report = (yield).get_result()
    if report.outcome != "passed" and item.stash.get(_OUTCOME, "passed") != "failed":
        item.stash[_OUTCOME] = report.outcome


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """With TKLSCORE_TEST_TIMELINE=FILE, each test's start, end, worker and CPU (the worker's
    process tree, a Spark JVM included) is appended to FILE as a JSON line: the schedule of a
    parallel run (scripts/test_timeline.py summarises it)."""
    out = os.environ.get("TKLSCORE_TEST_TIMELINE")
    if not out:
        yield
        return
    pid = os.getpid()
    start, cpu = time.time(), _tree_cpu(pid)
    yield
    line = {"worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "test": item.nodeid,
            "outcome": item.stash.get(_OUTCOME, "passed"),
            "file": item.nodeid.split("::", 1)[0], "start": start, "end": time.time(),
            "cpu": _tree_cpu(pid) - cpu, "load": os.getloadavg()[0]}
    with open(out, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
