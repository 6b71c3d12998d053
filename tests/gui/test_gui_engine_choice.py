"""The application scores a source larger than its share of free memory out of core with
DuckDB, and says so (the rule in core.engines.choice; the share a setting): pytest-qt with
the share set tiny, offscreen."""

import pytest
from PySide6.QtCore import QSettings

from tklscore.core import InputError, Roles, Scorer, load_table, load_weights, locate_by_ids
from tklscore.core.engines.choice import choose_engine
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.gui.main_window import MainWindow
from tklscore.gui.workbench import Workbench

ROLES = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Medication", "Age", "Initial Diagnosis"],
              continuous=["Age"], identifier="id")


def test_the_rule(data_dir):
    source = data_dir / "thesis_table_3_1.csv"
    size = source.stat().st_size
    assert choose_engine(source, 0.5, available=10 * size).engine == "memory"
    tight = choose_engine(source, 0.5, available=size)      # 3 × its size on disk > half of it
    assert tight.engine == "duckdb" and tight.estimated == 3 * size
    assert "scored out of core by DuckDB" in tight.message("t.csv") and "more than 50%" in tight.message("t.csv")
    assert choose_engine(source, 1.0, available=4 * size).engine == "memory"


def test_large_source_is_scored_out_of_core_and_the_window_says_so(qtbot, tmp_path, monkeypatch, data_dir):
    monkeypatch.setenv("HOME", str(tmp_path))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue("engines/memory_share", 1e-9)  # every source is "larger than" a billionth of memory
    workbench = Workbench()
    window = MainWindow(workbench, settings)
    qtbot.addWidget(window)
    assert workbench.memory_share == pytest.approx(1e-9)
    source = data_dir / "thesis_table_3_1.csv"
    workbench.use_weights_file(str(data_dir / "thesis_table_4_2_weights.csv"))
    with qtbot.waitSignal(workbench.engineChanged, timeout=5000) as said:
        workbench.open_source(str(source), roles=ROLES)
    assert "scored out of core by DuckDB" in said.args[0]
    assert workbench.engine_choice.out_of_core and workbench.table is None
    assert not window.engine_banner.isHidden() and "DuckDB" in window.engine_banner.text()
    workbench.add_release(ReleaseDefinition("Scenario 1", "ids", ("3", "4", "5", "6")))
    qtbot.waitUntil(lambda: "Scenario 1" in workbench.reports and not workbench.runner.current, timeout=30000)
    table = load_table(source)
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    memory = Scorer(table, ROLES).score(locate_by_ids(table, ["3", "4", "5", "6"], "id"), weights)
    engine = workbench.reports["Scenario 1"]
    assert engine.scores.tkl == pytest.approx(memory.scores.tkl, rel=1e-12) == pytest.approx(4.98258, abs=5e-6)
    assert engine.records.empty and engine.stored is not None   # out of core the records stay on disk
    assert engine.all_records()["tkl"].tolist() == pytest.approx(memory.records["tkl"].tolist(), rel=1e-12)
    # a filter release is selected by the engine; one it cannot translate is refused by name, the others scored
    workbench.add_release(ReleaseDefinition("Lawyers", "filter", expression="Job == 'Lawyer'"))
    with pytest.raises(InputError, match="method calls are not allowed in a filter"):
        workbench.add_release(ReleaseDefinition("Called", "filter", expression="Job.str.contains('a')"))
    qtbot.waitUntil(lambda: "Lawyers" in workbench.reports and not workbench.runner.current, timeout=30000)
    lawyers = locate_by_ids(table, table.frame.loc[table.frame["Job"] == "Lawyer", "id"].tolist(), "id")
    assert workbench.reports["Lawyers"].scores.tkl == pytest.approx(
        Scorer(table, ROLES).score(lawyers, weights).scores.tkl, rel=1e-12)
    assert "Scenario 1" in workbench.reports
    # back to a share the source fits in: loaded, the banner gone
    workbench.memory_share = 1.0
    with qtbot.waitSignal(workbench.engineChanged, timeout=5000) as said:
        workbench.open_source(str(source), roles=ROLES)
    assert said.args[0] == "" and window.engine_banner.isHidden()
    qtbot.waitUntil(lambda: workbench.table is not None and not workbench.runner.current, timeout=30000)
    workbench.runner.cancel_all()
    workbench.runner.wait()
    workbench.undo_stack.setClean()
    workbench._mark(False)  # closing the window asks nothing


def test_the_share_is_chosen_in_the_window_and_applies_to_the_open_source(qtbot, tmp_path, monkeypatch, data_dir):
    monkeypatch.setenv("HOME", str(tmp_path))
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    workbench = Workbench()
    window = MainWindow(workbench, settings)
    qtbot.addWidget(window)
    menu_texts = [a.text() for m in window.menuBar().actions() if m.menu() for a in m.menu().actions()]
    assert "&Memory for sources…" in menu_texts
    source = data_dir / "thesis_table_3_1.csv"
    workbench.use_weights_file(str(data_dir / "thesis_table_4_2_weights.csv"))
    workbench.open_source(str(source), roles=ROLES)
    qtbot.waitUntil(lambda: workbench.table is not None and not workbench.runner.current, timeout=30000)
    assert not workbench.out_of_core
    with qtbot.waitSignal(workbench.engineChanged, timeout=5000) as said:
        window.set_memory_share(1e-9)
    assert "scored out of core by DuckDB" in said.args[0] and workbench.out_of_core and workbench.table is None
    assert float(settings.value("engines/memory_share")) == pytest.approx(1e-9)
    assert workbench.project.roles == ROLES  # the roles and releases stay; only where it is scored changes
    with qtbot.waitSignal(workbench.engineChanged, timeout=5000) as said:
        window.set_memory_share(1.0)
    assert said.args[0] == "" and not workbench.out_of_core
    qtbot.waitUntil(lambda: workbench.table is not None and not workbench.runner.current, timeout=30000)
    shown = []
    monkeypatch.setattr(window, "show_error", shown.append)
    window.set_memory_share(1.5)
    assert shown and "between 0 % and 100 %" in shown[0]
    assert float(settings.value("engines/memory_share")) == pytest.approx(1.0)
    workbench.runner.cancel_all()
    workbench.runner.wait()
    workbench._mark(False)


def test_a_memory_share_moves_a_source_where_the_rule_says(tmp_path):
    """core/engines/choice.py: whether a new share moves a file between memory and out of
    core, and which shares are refused — the rule the window's setting follows."""
    from tklscore.core.engines.choice import check_share, choose_engine, moves_source
    from tklscore.core.errors import InputError

    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n" * 1000)
    tiny, whole = 1e-12, 1.0
    assert moves_source(path, tiny, None) and not moves_source(path, whole, None)
    out = choose_engine(path, tiny)
    assert out.out_of_core and moves_source(path, whole, out) and not moves_source(path, tiny, out)
    assert not moves_source(tmp_path / "gone.csv", tiny, None)
    assert check_share("0.25") == 0.25
    for bad in (-0.1, 1.5):
        with pytest.raises(InputError, match="between 0 % and 100 %"):
            check_share(bad)
