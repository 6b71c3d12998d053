"""The Scores view of a release scored out of core (pytest-qt, offscreen): the records stay
on disk and the view pages through them (PagedRecordsModel: the first page, more on
fetchMore, sorted pages), with the totals, the riskiest count and highlight, and the charts
as the same release loaded in memory shows them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import Qt

from tklscore.core import Roles
from tklscore.core.release.selection import ReleaseDefinition
from helpers import close_window, window_with_memory_share
from tklscore.gui.main_window import MainWindow
from tklscore.gui.scores import paged_model

ROLES = Roles(qi=["q0", "q1"], sa=["s0", "s1"], continuous=["s1"], identifier="id")
N = 1500


def open_window(qtbot, tmp_path, share: float, name: str) -> MainWindow:
    window = window_with_memory_share(tmp_path, share, name)
    workbench = window.workbench
    workbench.use_weights_file(str(tmp_path / "w.csv"))
    workbench.open_source(str(tmp_path / "s.parquet"), roles=ROLES)
    workbench.add_release(ReleaseDefinition("Most", "filter", expression="q0 != '1'"))
    workbench.set_current_release("Most")
    qtbot.waitUntil(lambda: "Most" in workbench.reports and not workbench.runner.current, timeout=60000)
    window.show_view("scores")
    assert workbench.out_of_core == (share < 0.5)
    return window


close = close_window


@pytest.fixture
def windows(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(paged_model, "PAGE_ROWS", 100)
    rng = np.random.default_rng(3)
    pd.DataFrame({"id": [f"p{i}" for i in range(N)], "q0": rng.integers(0, 5, N).astype(str),
                  "q1": rng.choice(["x", "y", "z"], N), "s0": rng.choice(["a", "b", "c"], N),
                  "s1": rng.integers(0, 80, N)}).to_parquet(tmp_path / "s.parquet", index=False)
    (tmp_path / "w.csv").write_text("attribute,value,weight\ns0,a,0.1\ns0,b,0.2\ns0,c,0.3\ns1,\"[0,40)\",0.2\n"
                                    "s1,\"[40,100)\",0.45\n")
    memory = open_window(qtbot, tmp_path, 1.0, "memory")
    out_of_core = open_window(qtbot, tmp_path, 1e-9, "duckdb")
    yield memory, out_of_core
    close(out_of_core)
    close(memory)


def cells(view, model, rows) -> list[list[str]]:
    return [[model.data(model.index(r, c)) for c in range(model.columnCount())] for r in rows]


def test_the_scores_view_pages_through_records_kept_on_disk(qtbot, windows):
    memory, out_of_core = windows
    ours, theirs = out_of_core.views["scores"], memory.views["scores"]
    report = out_of_core.workbench.current_report()
    assert report.stored is not None and report.records.empty and len(report.stored) == report.published_rows
    model = ours.paged_model
    assert ours.records_view.model() is model and theirs.records_view.model() is theirs.records_model
    qtbot.waitUntil(lambda: model.rowCount() == 100 and model.border is not None, timeout=30000)
    total = report.published_rows
    assert model.total_rows == total > 1000 and model.canFetchMore()
    # the totals and the first rows as in memory
    for row in range(5):
        for column in range(3):
            assert ours.summary_text(row, column) == theirs.summary_text(row, column)
    assert ours.info_label.text().split(";")[:2] == theirs.info_label.text().split(";")[:2]
    assert cells(ours, model, range(100)) == cells(theirs, theirs.records_model, range(100))
    # more on scroll: the view asks for the next page when it reaches the end
    ours.records_view.scrollToBottom()
    qtbot.waitUntil(lambda: model.rowCount() >= 200, timeout=30000)
    assert cells(ours, model, range(100, 200)) == cells(theirs, theirs.records_model, range(100, 200))
    while model.canFetchMore():
        model.fetchMore()
        qtbot.waitUntil(lambda: not model.loading, timeout=30000)
    assert model.rowCount() == total and not model.canFetchMore()
    # the riskiest highlighted: as many as memory highlights, the highest tkl
    highlighted = [r for r in range(total) if model.data(model.index(r, 0), Qt.ItemDataRole.BackgroundRole)]
    expected = int(theirs._riskiest.sum())
    assert len(highlighted) == expected
    tkl = [model.data(model.index(r, 5), Qt.ItemDataRole.UserRole) for r in range(total)]
    assert min(tkl[r] for r in highlighted) >= max(t for r, t in enumerate(tkl) if r not in set(highlighted))
    # sorted by RS tkl, riskiest first: the first page of that order
    ours.records_view.sortByColumn(5, Qt.SortOrder.DescendingOrder)
    qtbot.waitUntil(lambda: model.order == ("tkl", True) and model.rowCount() == 100 and not model.loading,
                    timeout=30000)
    shown = [model.data(model.index(r, 5), Qt.ItemDataRole.UserRole) for r in range(100)]
    assert shown == sorted(theirs.records_model.frame["tkl"], reverse=True)[:100]
    # a record selected: its numbers, and why it is not explained
    ours.records_view.selectRow(0)
    assert "Record " in ours.explain_browser.toPlainText() and "out of core" in ours.explain_browser.toPlainText()


def test_the_charts_of_records_kept_on_disk_are_memory_s(qtbot, windows):
    memory, out_of_core = windows
    ours, theirs = out_of_core.views["scores"], memory.views["scores"]
    for view in (ours, theirs):
        view._draw_charts_then(lambda: None, pytest.fail)
    qtbot.waitUntil(lambda: not ours.charts_panel.pending() and ours.growth_chart.point_count() > 0, timeout=30000)
    for name in ("tkl", "m_score", "l_severity"):
        a, b = ours.per_record_chart.series[name], theirs.per_record_chart.series[name]
        np.testing.assert_array_equal(a.xData, b.xData)
        np.testing.assert_allclose(a.yData, b.yData, rtol=1e-12)
        g, h = ours.growth_chart.series[name], theirs.growth_chart.series[name]
        np.testing.assert_array_equal(g.xData, h.xData)
        np.testing.assert_allclose(g.yData, h.yData, rtol=1e-12)
    assert ours.per_record_chart.ids == theirs.per_record_chart.ids


def test_the_report_of_records_kept_on_disk(qtbot, windows, tmp_path):
    memory, out_of_core = windows
    written = {}
    for name, window in (("memory", memory), ("duckdb", out_of_core)):
        view = window.views["scores"]
        for suffix in ("csv", "html"):
            path = tmp_path / f"{name}.{suffix}"
            assert view.export_report(str(path))
            qtbot.waitUntil(lambda: path.exists() and not window.workbench.runner.current, timeout=60000)
            written[name, suffix] = path.read_text(encoding="utf-8")
    ours = pd.read_csv(tmp_path / "duckdb.csv", dtype={"id": str})
    theirs = pd.read_csv(tmp_path / "memory.csv", dtype={"id": str})
    assert list(ours.columns[:8]) == list(theirs.columns[:8]) and len(ours) == len(theirs)
    pd.testing.assert_frame_equal(ours[ours.columns[:8]], theirs[theirs.columns[:8]], rtol=1e-12)
    # the per-record section: the riskiest records by tkl, as in memory
    section = [w.split("Per-record scores (riskiest by tkl first)")[1] for w in (written["duckdb", "html"],
                                                                               written["memory", "html"])]
    assert section[0].split("</table>")[0] == section[1].split("</table>")[0]
    # the charts, drawn from points read at evenly spaced ranks (all of them: the release is small)
    for title in ("Per-record scores ÷ the whole source table", "How the scores grow as records are added"):
        assert written["duckdb", "html"].count(title) == written["memory", "html"].count(title) >= 1


def test_a_chart_of_records_kept_on_disk_is_exported_with_its_points_read_off_the_ui_thread(qtbot, windows,
                                                                                              tmp_path):
    """The export reads the points of every chart still to draw in a task (never on the UI
    thread), then draws them and writes the file here, atomically; it is the chart memory
    draws, and a project's input is never overwritten."""
    import threading

    from PySide6.QtGui import QImage

    from tklscore.gui.scores.charts import SORT_TKL

    memory, out_of_core = windows
    ours, theirs = out_of_core.views["scores"], memory.views["scores"]
    store = out_of_core.workbench.current_report().stored
    threads = []
    for name in ("at_ranks", "cumulative_at"):
        method = getattr(store, name)

        def watched(*args, method=method, name=name, **kwargs):
            threads.append((name, threading.current_thread() is threading.main_thread()))
            return method(*args, **kwargs)
        setattr(store, name, watched)
    statuses = []
    out_of_core.workbench.status.connect(statuses.append)
    for view in (ours, theirs):
        qtbot.waitUntil(lambda view=view: not view.charts_pending(), timeout=30000)
        view.order_combo.setCurrentIndex(view.order_combo.findData(SORT_TKL))   # its points are to read again
        view.charts_panel.steps = [view.charts_panel.draw_growth]               # and the growth chart's
    threads.clear()
    paths = {}
    for name, view in (("duckdb", ours), ("memory", theirs)):
        for chart in ("per_record_chart", "growth_chart"):
            paths[name, chart] = tmp_path / f"{name}-{chart}.png"
            assert view.export_chart(str(paths[name, chart]), getattr(view, chart))
    assert not paths["duckdb", "per_record_chart"].exists() and ours.charts_pending()   # read in the background
    qtbot.waitUntil(lambda: all(p.exists() for p in paths.values()) and not ours.charts_pending(), timeout=30000)
    assert sorted(threads) == [("at_ranks", False), ("cumulative_at", False)]   # once each, off the UI thread
    assert f"Chart written to {paths['duckdb', 'per_record_chart']}" in statuses
    for chart in ("per_record_chart", "growth_chart"):
        a, b = getattr(ours, chart), getattr(theirs, chart)
        for series in ("tkl", "m_score", "l_severity"):
            np.testing.assert_allclose(a.series[series].yData, b.series[series].yData, rtol=1e-12)
        image = QImage(str(paths["duckdb", chart]))
        assert not image.isNull() and image.width() >= 800
        colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
        assert len(colours) > 3   # drawn: lines and text on the white ground
    assert ours.per_record_chart.ids == theirs.per_record_chart.ids
    bottom = ours.per_record_chart.plot_item.getAxis("bottom").labelText
    assert bottom == theirs.per_record_chart.plot_item.getAxis("bottom").labelText and "by tkl-Score" in bottom
    assert not list(tmp_path.glob("*tklscore-tmp"))
    # an input of the project is refused at once, and left as it was
    failures = []
    out_of_core.workbench.failed.connect(failures.append)
    source = tmp_path / "s.parquet"
    before = source.read_bytes()
    parquet_as_png = tmp_path / "s.png"
    parquet_as_png.symlink_to(source)
    assert not ours.export_chart(str(parquet_as_png))
    assert failures and "is also an input" in failures[-1] and source.read_bytes() == before


def test_a_chart_export_waiting_for_its_points_can_be_cancelled(qtbot, windows, tmp_path):
    import threading

    _memory, out_of_core = windows
    view, workbench = out_of_core.views["scores"], out_of_core.workbench
    qtbot.waitUntil(lambda: not view.charts_pending(), timeout=30000)
    store, began, release = workbench.current_report().stored, threading.Event(), threading.Event()
    cumulative_at = store.cumulative_at

    def slow(*args, **kwargs):
        began.set()
        release.wait(10)
        return cumulative_at(*args, **kwargs)
    store.cumulative_at = slow
    statuses, progress = [], []
    workbench.status.connect(statuses.append)
    workbench.runner.progress.connect(lambda percent, text: progress.append(text))
    view.charts_panel.steps = [view.charts_panel.draw_growth]
    path, second = tmp_path / "growth.svg", tmp_path / "per_record.png"
    assert view.export_chart(str(path), view.growth_chart)
    assert view.export_chart(str(second), view.per_record_chart)   # asked for meanwhile: it follows the first
    qtbot.waitUntil(began.is_set, timeout=10000)
    workbench.runner.cancel_all()   # the window's Cancel button
    release.set()
    qtbot.waitUntil(lambda: not workbench.runner.current and not view.charts_pending(), timeout=30000)
    assert not path.exists() and not second.exists()
    assert f"Chart export cancelled: {path}" in statuses and f"Chart export cancelled: {second}" in statuses
    assert "Reading the chart's points" in progress
