"""The Release view and the workbench for a source scored out of core (the memory share
set tiny): the source described without loading it, pytest-qt offscreen."""

import pandas as pd
import pytest

from tklscore.core import load_table
from tklscore.gui.workbench import Workbench


@pytest.fixture
def out_of_core(workbench):
    workbench.memory_share = 1e-9  # every source is "larger than" a billionth of memory
    return workbench


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_the_source_is_described_on_the_task_runner(qtbot, out_of_core, tmp_path, data_dir, suffix):
    source = data_dir / "thesis_table_3_1.csv"
    if suffix == "parquet":
        load_table(source).frame.to_parquet(tmp_path / "t.parquet")
        source = tmp_path / "t.parquet"
    with qtbot.waitSignal(out_of_core.sourceChanged, timeout=10000,
                          check_params_cb=lambda: out_of_core.source_summary is not None):
        out_of_core.open_source(str(source))
    summary = out_of_core.source_summary
    assert out_of_core.out_of_core and out_of_core.table is None
    table = load_table(source)
    assert summary.rows == len(table) == 7 and summary.columns == table.columns
    pd.testing.assert_frame_equal(summary.preview, table.frame.astype(object), check_dtype=False)
    out_of_core.memory_share = 1.0
    out_of_core.open_source(str(source))
    assert not out_of_core.out_of_core and out_of_core.source_summary is None
    qtbot.waitUntil(lambda: out_of_core.table is not None, timeout=10000)


# ---------------------------------------------------------------------------- the Release view

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog  # noqa: E402

from tklscore.core.release.selection import ReleaseDefinition  # noqa: E402
from tklscore.core.tables.roles import Role, Roles  # noqa: E402
from tklscore.gui.release.view import PublishedFileDialog, ReleaseView  # noqa: E402

TIMEOUT = 30_000
ROLES = {"id": Role.IDENTIFIER, "Job": Role.QUASI_IDENTIFIER, "City": Role.QUASI_IDENTIFIER,
         "Gender": Role.QUASI_IDENTIFIER, "Disease": Role.SENSITIVE, "Medication": Role.SENSITIVE,
         "Age": Role.SENSITIVE, "Initial Diagnosis": Role.SENSITIVE}
FILTER = "Age >= 30 and `Initial Diagnosis` != 'Flu'"


def click(qtbot, button) -> None:
    assert button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def answer(monkeypatch, multiline: str) -> None:
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda parent, title, label, echo=None, text="", *a, **k:
                                                              (text, True)))
    monkeypatch.setattr(QInputDialog, "getMultiLineText", staticmethod(lambda *a, **k: (multiline, True)))


def choose_file(monkeypatch, path) -> None:
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))


def texts(widget, column) -> list[str]:
    """The texts of a column of a table widget, or of a table view over a model."""
    if hasattr(widget, "item"):
        return [widget.item(row, column).text() for row in range(widget.rowCount())]
    model = widget.model()
    return [model.index(row, column).data() for row in range(model.rowCount())]


def thesis_source(tmp_path, data_dir, suffix):
    source = data_dir / "thesis_table_3_1.csv"
    if suffix == "parquet":
        frame = load_table(source).frame.copy()
        frame["Age"] = frame["Age"].astype("int64")  # a typed column, read by the engine as a number
        frame.to_parquet(tmp_path / "thesis.parquet")
        source = tmp_path / "thesis.parquet"
    return source


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_release_view_out_of_core_scores_as_in_memory(qtbot, out_of_core, tmp_path, data_dir, monkeypatch, suffix):
    workbench = out_of_core
    source = thesis_source(tmp_path, data_dir, suffix)
    workbench.use_weights_file(str(data_dir / "thesis_table_4_2_weights.csv"))
    view = ReleaseView(workbench)
    qtbot.addWidget(view)
    view.resize(1400, 900)
    view.show()
    choose_file(monkeypatch, source)
    click(qtbot, view.open_button)
    qtbot.waitUntil(lambda: workbench.source_summary is not None, timeout=TIMEOUT)
    assert workbench.table is None and workbench.out_of_core
    # the source panel: why it is out of core, and the first rows of how many
    banner = view.source.engine_banner
    assert banner.isVisible() and "DuckDB reads it out of core" in banner.text() and "more than" in banner.text()
    assert "Showing the first 7 of 7 records" in banner.text()
    assert view.frame_model.rowCount() == 7 and view.frame_model.frame["id"].tolist()[:2] == ["0", "1"]
    # the roles panel lists the columns; the officer chooses the roles like in memory
    assert texts(view.roles_table, 0) == load_table(source).columns
    qtbot.waitUntil(lambda: "distinct" in view.roles_table.item(7, 3).text(), timeout=TIMEOUT)
    assert view.roles_table.item(1, 3).text() == "1 distinct: Lawyer"  # counted by the engine
    assert view.roles_table.item(0, 3).text() == "7 distinct: 0, 1, 2, 3, …"
    for column, role in ROLES.items():
        view.role_combo(column).setCurrentIndex(view.role_combo(column).findData(role))
    view.kind_combo("Age").setCurrentIndex(1)
    click(qtbot, view.apply_roles_button)
    roles = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Medication", "Age", "Initial Diagnosis"],
                  continuous=["Age"], identifier="id")
    assert workbench.project.roles == roles
    # three releases: by ids, from a file, by a filter
    answer(monkeypatch, "3,4,5,6")
    click(qtbot, view.ids_button)
    published = tmp_path / "published.csv"
    frame = load_table(data_dir / "thesis_table_3_1.csv").frame
    frame[frame["id"].isin(["2", "5"])].to_csv(published, index=False)
    published.write_text(published.read_text() + "99,Nurse,Banff,Male,Flu,Paracetamol,40,Flu\n")
    choose_file(monkeypatch, published)
    monkeypatch.setattr(PublishedFileDialog, "exec", lambda self: QDialog.DialogCode.Accepted)
    click(qtbot, view.from_file_button)
    answer(monkeypatch, FILTER)
    click(qtbot, view.filter_button)
    names = ["Ids 1", "published", FILTER[:39] + "…"]
    qtbot.waitUntil(lambda: all(n in workbench.reports for n in names) and not workbench.runner.current,
                    timeout=TIMEOUT)
    # the same file in memory (share 1.0), the same releases
    memory = Workbench()
    memory.use_weights_file(str(data_dir / "thesis_table_4_2_weights.csv"))
    memory.open_source(str(source), roles=roles)
    for definition in workbench.project.releases:
        memory.add_release(ReleaseDefinition.from_dict(definition.to_dict()))
    qtbot.waitUntil(lambda: all(n in memory.reports for n in names) and not memory.runner.current, timeout=TIMEOUT)
    for name in names:
        engine, expected = workbench.reports[name], memory.reports[name]
        assert engine.published_rows == expected.published_rows
        for score in ("tkl", "m_score", "l_severity"):
            assert getattr(engine.scores, score) == pytest.approx(getattr(expected.scores, score), rel=1e-12, abs=1e-12)
        records = engine.all_records()   # out of core kept on disk (engine.stored)
        assert records["id"].tolist() == expected.records["id"].tolist()
        assert records["tkl"].tolist() == pytest.approx(expected.records["tkl"].tolist(), rel=1e-12, abs=1e-12)
    assert workbench.reports["Ids 1"].scores.tkl == pytest.approx(4.98258, abs=5e-6)
    # the releases panel: counts from the engine's report, the stranger listed
    view.releases.refresh()
    assert texts(view.releases_table, 2) == [str(memory.reports[n].published_rows) for n in names]
    assert texts(view.releases_table, 3) == ["0", "1", "0"]
    view.releases_table.selectRow(1)
    assert view.unlocated_box.isVisible() and view.unlocated_box.items() == ["id '99'"]
    assert "2 of 7 source records are published" in view.release_info.text()
    memory.runner.cancel_all()
    memory.runner.wait()
    # text in a continuous column: reported by file, row and column, never a traceback
    view.role_combo("Job").setCurrentIndex(view.role_combo("Job").findData(Role.SENSITIVE))
    view.kind_combo("Job").setCurrentIndex(1)
    with qtbot.waitSignal(workbench.failed, timeout=TIMEOUT) as blocker:
        click(qtbot, view.apply_roles_button)
    message = blocker.args[0]
    assert source.name in message and "column 'Job'" in message
    assert f"row {2 if suffix == 'csv' else 1}," in message  # as in memory: a CSV's header is row 1
    assert "'Lawyer', which is not a number" in message and "Traceback" not in message
    qtbot.waitUntil(lambda: not workbench.runner.current, timeout=TIMEOUT)
    assert texts(view.releases_table, 2) == ["error"] * 3


def test_roles_are_validated_against_the_columns(qtbot, out_of_core, tmp_path, data_dir):
    workbench = out_of_core
    with qtbot.waitSignal(workbench.sourceChanged, timeout=TIMEOUT,
                          check_params_cb=lambda: workbench.source_summary is not None):
        workbench.open_source(str(data_dir / "thesis_table_3_1.csv"))
    from tklscore.core import InputError

    with pytest.raises(InputError, match="column 'Pay' not found; the table has columns 'id', 'Job'"):
        workbench.set_roles(Roles(qi=["Job"], sa=["Pay"]))
    with pytest.raises(InputError, match="'Pay' is not a column of the source"):
        workbench.add_release(ReleaseDefinition("Rich", "filter", expression="Pay > 3"))
    assert workbench.release_names() == []
