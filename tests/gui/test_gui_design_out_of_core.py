"""The Design view on a source evaluated out of core (workbench.memory_share tiny): the
sliders come from the hierarchies over the file's distinct values, each evaluation runs
through DuckDB on the task runner, and the figures equal the in-memory Design view's on the
same file, and so are the suggested releases; a saved design is re-evaluated out of
core when the project reopens; the published table is exported by the engine."""

import json
import shlex

import pandas as pd
import pytest

from helpers import run_cli
from tklscore.core import Roles
from tklscore.core.release.designer import DesignResult
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.gui.design.view import DesignView
from tklscore.gui.workbench import Workbench

ROLES = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Medication", "Age", "Initial Diagnosis"],
              continuous=["Age"], identifier="id")
HIERARCHIES = {"City": Hierarchy.groups("City", [{"Alberta": ["Calgary", "Edmonton"]}]),
               "Age": Hierarchy.intervals("Age", [10, 30])}


def open_view(qtbot, data_dir, share: float):
    workbench = Workbench()
    workbench.autosave_timer.stop()
    workbench.memory_share = share
    workbench.project.settings["design"] = {"hierarchies": [h.to_dict() for h in HIERARCHIES.values()]}
    view = DesignView(workbench)
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.show()
    workbench.use_weights_file(str(data_dir / "thesis_table_4_2_weights.csv"))
    workbench.open_source(str(data_dir / "thesis_table_3_1.csv"), roles=ROLES)
    out_of_core = share < 1   # one DesignResult for both engines; in memory it holds the transformed release
    qtbot.waitUntil(lambda: isinstance(view.result, DesignResult) and (view.result.transformed is None) == out_of_core
                    and view.sliders.get("City") is not None
                    and view.sliders["City"].isEnabled(), timeout=60000)
    return workbench, view


def finish(workbench):
    workbench.runner.cancel_all()
    workbench.runner.wait()


def texts(table):
    return [[table.item(r, c).text() if table.item(r, c) else "" for c in range(table.columnCount())]
            for r in range(table.rowCount())]


def test_out_of_core_design_view_equals_the_in_memory_one(qtbot, tmp_path, data_dir, capsys):
    workbench, view = open_view(qtbot, data_dir, 1e-9)
    memory_bench, memory_view = open_view(qtbot, data_dir, 1.0)
    try:
        assert workbench.out_of_core and workbench.table is None and not memory_bench.out_of_core
        assert not view.engine_note.isHidden() and "Out of core" in view.engine_note.text()
        assert "seconds to minutes" in view.engine_note.text()
        assert view.suggest_button.isEnabled() and "source's aggregate" in view.suggest_message.text()
        # suggested releases out of core: the in-memory view's front (core/engines/lattice.py)
        for v in (view, memory_view):
            v.k_min.setValue(2)
            v.budget.setValue(30.0)
            v.run_suggest()
        qtbot.waitUntil(lambda: view.front_table.rowCount() > 0 and memory_view.front_table.rowCount() > 0
                        and not workbench.runner.current and not memory_bench.runner.current, timeout=120000)
        assert texts(view.front_table) == texts(memory_view.front_table)
        assert "releases meet the constraints" in view.suggest_message.text()
        assert view.suggest_message.text() == memory_view.suggest_message.text()
        view.budget.setValue(0.0), memory_view.budget.setValue(0.0)
        view.k_min.setValue(1), memory_view.k_min.setValue(1)
        assert view.sliders["City"].maximum() == memory_view.sliders["City"].maximum() == 2
        how = view.perturb_boxes["Age"][0]
        assert [how.itemData(i) for i in range(how.count())] == [None, "mean", "median"]   # no noise out of core
        for v in (view, memory_view):
            before = v.result
            v.sliders["City"].setValue(1)
            v.sliders["Age"].setValue(1)
            v.suppress_below.setValue(2)
            v.budget.setValue(50.0)
            v.perturb_boxes["Medication"]  # a text column: offered, refused by name when chosen (below)
            v.set_perturbed("Age", "median")
            qtbot.waitUntil(lambda v=v, before=before: v.result is not before and v.result.design.level("Age") == 1
                            if v.result.transformed is None else
                            v.result is not before and v.result.transformed.design.level("Age") == 1
                            and v.result.transformed.design.suppress_below == 2, timeout=60000)
        qtbot.waitUntil(lambda: view.result.design.suppress_below == 2 and view.result.design.level("City") == 1,
                        timeout=60000)
        qtbot.waitUntil(lambda: not workbench.runner.current, timeout=60000)
        engine, memory = view.result, memory_view.result
        assert engine.report.scores.tkl == pytest.approx(memory.report.scores.tkl, rel=1e-12)
        assert engine.suppressed_rows == len(memory.transformed.suppressed)
        assert texts(view.scores) == texts(memory_view.scores)
        assert texts(view.utility_table) == texts(memory_view.utility_table)
        assert texts(view.privacy_table) == texts(memory_view.privacy_table)
        assert view.headline.text() == memory_view.headline.text()
        pd.testing.assert_frame_equal(view.preview_model.frame.reset_index(drop=True),
                                      memory_view.preview_model.frame.reset_index(drop=True), check_dtype=False)
        assert view.preview_model.marked == memory_view.preview_model.marked
        assert view.suppressed_list.count() == memory_view.suppressed_list.count()
        assert dict(view.result.design.microaggregate) == {"Age": "median"}
        # exported by the engine: the in-memory export's bytes
        view.export_table(str(tmp_path / "engine.csv"))
        memory_view.export_table(str(tmp_path / "memory.csv"))
        qtbot.waitUntil(lambda: (tmp_path / "engine.csv").exists() and (tmp_path / "memory.csv").exists(),
                        timeout=60000)
        assert (tmp_path / "engine.csv").read_text() == (tmp_path / "memory.csv").read_text()
        # copied as a command, it evaluates with DuckDB as the view did, to the same numbers
        (tmp_path / "recipe").mkdir()
        argv = shlex.split(view.copy_as_command(str(tmp_path / "recipe")))
        assert argv[argv.index("--engine") + 1] == "duckdb" and argv[2] == str(data_dir / "thesis_table_3_1.csv")
        assert "--engine" not in shlex.split(memory_view.copy_as_command(str(tmp_path / "recipe")))
        code, printed, err = run_cli(capsys, [*argv[1:], "--format", "json"])   # main, in this process
        assert code == 0, err
        out, expected = json.loads(printed), json.loads(json.dumps(engine.to_json_dict()))
        for key in ("levels", "published_rows", "suppressed_rows", "scores", "normalized", "utility"):
            assert out[key] == expected[key], key
        # saved, then re-evaluated out of core when the project reopens
        view.save_as_release("Alberta, ages by 10")
        assert workbench.reports["Alberta, ages by 10"].scores == engine.report.scores
        path = tmp_path / "designed.tklproj"
        workbench.save_project(str(path))
    finally:
        finish(workbench)
        finish(memory_bench)
    reopened = Workbench()
    reopened.autosave_timer.stop()
    reopened.memory_share = 1e-9
    try:
        reopened.open_project(str(path))
        qtbot.waitUntil(lambda: "Alberta, ages by 10" in reopened.reports, timeout=60000)
        assert reopened.out_of_core
        assert reopened.reports["Alberta, ages by 10"].scores.tkl == pytest.approx(engine.report.scores.tkl,
                                                                                  rel=1e-12)
        assert reopened.measures["Alberta, ages by 10"].models.k == engine.risk.models.k
    finally:
        finish(reopened)


def test_a_superseded_evaluation_interrupts_the_engine_at_once():
    """A statement over a large file takes minutes: cancelling the task interrupts it."""
    import threading
    import time

    from tklscore.core.engines import open_backend
    from tklscore.core.release.session import interruptible
    from tklscore.gui.tasks import Cancelled

    class Control:
        def __init__(self):
            self.flag = threading.Event()

        @property
        def cancelled(self):
            return self.flag.is_set()

        def check(self):
            if self.flag.is_set():
                raise Cancelled()

    control = Control()
    with open_backend("duckdb") as backend:
        threading.Timer(0.3, control.flag.set).start()
        start = time.perf_counter()
        with pytest.raises(Cancelled):
            interruptible(lambda: control.cancelled, backend, lambda: backend.fetch(
                "SELECT SUM(a.range * b.range) AS s FROM range(100000000) AS a, range(1000) AS b"))
        assert time.perf_counter() - start < 10
        assert int(backend.fetch("SELECT 42 AS v")["v"].iloc[0]) == 42   # the engine works on
