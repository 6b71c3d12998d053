"""The Risk view of a source scored out of core (pytest-qt, offscreen): with
``engines/memory_share`` tiny the thesis table is measured by DuckDB on the task runner,
and every panel shows what the same file loaded in memory (share 1.0) shows — verdict,
privacy models, attacker models, distribution, QI importance, D(r) with an edited
parameter, the riskiest records; the report's risk section too."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tklscore.core import Roles, load_table
from tklscore.core.release.selection import ReleaseDefinition
from helpers import close_window, window_with_memory_share
from tklscore.gui.main_window import MainWindow

ROLES = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Medication", "Age", "Initial Diagnosis"],
              continuous=["Age"], identifier="id")


def open_window(qtbot, tmp_path, data_dir, share: float, name: str) -> MainWindow:
    window = window_with_memory_share(tmp_path, share, name)
    workbench = window.workbench
    source = data_dir / "thesis_table_3_1.csv"
    workbench.use_weights_file(str(data_dir / "thesis_table_4_2_weights.csv"))
    workbench.open_source(str(source), roles=ROLES)
    ids = tuple(load_table(source).frame["id"])[:6]
    workbench.add_release(ReleaseDefinition("Six", "ids", ids))
    workbench.set_current_release("Six")
    qtbot.waitUntil(lambda: "Six" in workbench.reports and not workbench.runner.current, timeout=60000)
    window.show_view("risk")
    view = window.views["risk"]
    qtbot.waitUntil(lambda: view.lens is not None and not workbench.runner.current, timeout=60000)
    assert workbench.out_of_core == (share < 0.5)
    return window


close = close_window


def texts(table) -> list[list[str]]:
    return [[table.item(r, c).text() if table.item(r, c) else "" for c in range(table.columnCount())]
            for r in range(table.rowCount())]


def shown(view) -> dict:
    lens = view.lens
    return {"verdict": view.verdict_label.text(),
            "models": texts(view.models_table), "attackers": texts(view.attackers_table),
            "importance": texts(view.importance_table), "riskiest": texts(view.riskiest_table),
            "disclosure": view.disclosure_label.text(),
            "histogram": lens.disclosure_histogram().counts.tolist(),
            "distribution": {k: v.tolist() for k, v in lens.risk_distribution().items()}}


@pytest.fixture
def windows(qtbot, tmp_path, data_dir):
    memory = open_window(qtbot, tmp_path, data_dir, 1.0, "memory")
    out_of_core = open_window(qtbot, tmp_path, data_dir, 1e-9, "duckdb")
    yield memory, out_of_core
    close(out_of_core)
    close(memory)


def test_the_risk_view_out_of_core_shows_the_in_memory_numbers(qtbot, windows):
    memory, out_of_core = windows
    a, b = memory.views["risk"], out_of_core.views["risk"]
    assert b.lens.out_of_core and not a.lens.out_of_core and out_of_core.workbench.table is None
    assert not b.engine_note.isHidden() and "out of core by DuckDB" in b.engine_note.text()
    assert a.engine_note.isHidden()
    assert shown(b) == shown(a)
    assert b.importance_table.rowCount() == 7 and len(texts(b.riskiest_table)) == 6
    assert b.lens.measures.k == a.lens.measures.k and b.lens.disclosure.n == 6
    # the measures the scoring run took out of core are the workbench's, as in memory
    assert out_of_core.workbench.measures["Six"].to_json_dict() == memory.workbench.measures["Six"].to_json_dict()

    # an edited D(r) parameter: recomputed on the task runner, the UI thread not held
    for window in (memory, out_of_core):
        view = window.views["risk"]
        before = view.lens
        started = time.perf_counter()
        view.set_parameter("Job", pk=0.9, weight=0.3)
        assert time.perf_counter() - started < 0.1
        qtbot.waitUntil(lambda: view.lens is not before and not window.workbench.runner.current, timeout=60000)
    assert shown(b) == shown(a)
    assert b.lens.disclosure.d_max == pytest.approx(float(np.max(a.lens.disclosure.d)), rel=1e-12)

    # the report's risk section, out of core as in memory
    from tklscore.core.report import build_report_html, complete_risk
    from tklscore.gui.report import report_input

    sections = []
    for window in (memory, out_of_core):
        window.workbench.risk_lens = None  # measured again for the report
        data = report_input(window.workbench)
        complete_risk(data)
        assert data.risk is not None and data.risk.out_of_core == window.workbench.out_of_core
        html = build_report_html(data)
        start = html.index("Risk of re-identification of Six")
        sections.append(html[start:html.index("Riskiest records", start)])
    assert sections[1] == sections[0]
