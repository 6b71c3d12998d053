"""The Scores view on the thesis example (real widgets, offscreen): summary, x, records,
explanation, charts and exports. Scores use the thesis' Table 4.2 weights (spec
scoring.md oracles); the example's own tkl-Data Model derives slightly different ones
(scoring.md erratum 5)."""

import math
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog

from tklscore.core.examples import write_thesis_example
from tklscore.core.numbers import number, score
from tklscore.gui.charts import RenderedChart
from tklscore.gui.scores.charts import SORT_TKL
from tklscore.gui.scores.view import ScoresView, riskiest_mask
from tklscore.gui.workbench import Workbench

TKL, TKL_MAX, M, M_INF, L = range(5)
RAW, BY_SOURCE, BY_MAX = range(3)


def wait_scores(qtbot, workbench, tkl):
    qtbot.waitUntil(lambda: workbench.current_report() is not None
                    and abs(workbench.current_report().scores.tkl - tkl) < 5e-6, timeout=15000)


@pytest.fixture
def view(qtbot, workbench, tmp_path):
    view = ScoresView(workbench)
    qtbot.addWidget(view)
    view.resize(1200, 900)
    view.show()
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: bool(workbench.reports), timeout=15000)
    files = {p.name: p for p in write_thesis_example(tmp_path / "example")}
    workbench.use_weights_file(str(files["weights_table_4_2.csv"]))
    wait_scores(qtbot, workbench, 4.98258)
    qtbot.waitUntil(lambda: not view.charts_pending())
    return view


def test_summary_and_releases(view, qtbot):
    assert view.summary_text(TKL, RAW) == "4.98258"
    assert view.summary_text(TKL, BY_SOURCE) == "0.5686"
    assert view.summary_text(TKL_MAX, RAW) == "1.54949"
    assert view.summary_text(M, RAW) == "1.6704"
    assert view.summary_text(L, BY_SOURCE) == "0.5055"
    assert view.summary_text(TKL, BY_MAX) == number(4.98258 / 8)
    assert view.release_combo.currentText() == "Scenario 1"
    view.release_combo.setCurrentText("Scenario 2")
    assert view.workbench.project.current_release == "Scenario 2"
    assert view.summary_text(TKL, RAW) == "8.76302"
    assert view.summary_text(TKL, BY_SOURCE) == "1"
    assert view.records_model.rowCount() == 7
    # the view follows the workbench too
    view.workbench.set_current_release("Scenario 1")
    assert view.release_combo.currentText() == "Scenario 1"
    assert view.summary_text(TKL, RAW) == "4.98258"


def test_x_infinite(view, qtbot):
    view.x_infinite.setChecked(True)
    assert math.isinf(view.workbench.project.x)
    qtbot.waitUntil(lambda: math.isinf(view.workbench.current_report().x), timeout=15000)
    assert view.summary_text(M, RAW) == "0.4176"
    assert view.summary_text(M_INF, BY_SOURCE) == "0.7143"
    assert "∞" in view.summary.verticalHeaderItem(M).text()
    assert not view.x_spin.isEnabled()
    view.x_infinite.setChecked(False)
    view.x_spin.setValue(10)
    qtbot.waitUntil(lambda: view.workbench.current_report().x == 10, timeout=15000)
    assert view.summary_text(M, RAW) == score(4 ** 0.1 * 0.41760)


def test_records_table_sorts_and_highlights(view):
    model = view.records_model
    assert model.rowCount() == 4
    tkl_column = list(model.frame.columns).index("tkl")
    view.records_view.sortByColumn(tkl_column, Qt.SortOrder.DescendingOrder)
    shown = [float(model.data(model.index(r, tkl_column), Qt.ItemDataRole.UserRole)) for r in range(4)]
    assert shown == sorted(shown, reverse=True)
    assert model.data(model.index(0, 0)) == "3"
    assert model.data(model.index(0, 0), Qt.ItemDataRole.BackgroundRole) is not None  # the riskiest
    assert model.data(model.index(3, 0), Qt.ItemDataRole.BackgroundRole) is None
    assert list(riskiest_mask([1.0, 3.0, 2.0] * 10)).count(True) == 3


def test_selecting_a_record_explains_it(view):
    view.select_record(0)  # published record 3
    explanation = view.explanation
    assert explanation is not None and explanation.id == "3"
    assert explanation.class_ids == ["3", "4"]
    assert explanation.weight_sum == pytest.approx(0.83520, abs=5e-6)
    text = view.explain_browser.toPlainText()
    assert "{3, 4}" in text and "0.8352" in text and "Medication" in text


def test_charts(view, qtbot):
    assert view.per_record_chart.point_count() == 4
    assert view.growth_chart.point_count() == 4
    assert view.releases_chart.bar_count() == 2 * 5
    assert len(view.per_record_chart.legend.items) == 3
    assert len(view.releases_chart.legend.items) == 5
    assert view.per_record_chart.plot_item.getAxis("left").labelText
    # thesis order: ascending by L-Severity → the last point is record 3 (L = 0.41760 / 2.10240)
    tkl = view.per_record_chart.series["l_severity"].yData
    assert list(tkl) == sorted(tkl)
    assert tkl[-1] == pytest.approx(0.41760 / 2.10240, abs=1e-5)
    assert view.per_record_chart.ids[-1] == "3"
    view.order_combo.setCurrentIndex(view.order_combo.findData(SORT_TKL))
    assert view.per_record_chart.ids[0] == "3"
    # growth ends at the release's normalised scores
    growth = view.growth_chart.series
    assert growth["tkl"].yData[-1] == pytest.approx(0.5686, abs=1e-4)
    assert growth["m_score"].yData[-1] == pytest.approx(0.4082, abs=1e-4)
    assert growth["l_severity"].yData[-1] == pytest.approx(0.5055, abs=1e-4)
    view.workbench.set_current_release("Scenario 2")
    assert view.charts_pending()  # drawn in later event-loop turns, the window stays responsive
    qtbot.waitUntil(lambda: not view.charts_pending())
    assert view.per_record_chart.point_count() == 7


def test_chart_export(view, qtbot, tmp_path, monkeypatch):
    written = []   # the thread that encodes and writes each file
    write = RenderedChart.write
    monkeypatch.setattr(RenderedChart, "write", lambda self, inputs=(): (
        written.append(threading.current_thread() is threading.main_thread()), write(self, inputs))[1])
    for index, suffix in [(0, ".png"), (1, ".svg"), (2, ".png")]:
        view.chart_tabs.setCurrentIndex(index)
        target = tmp_path / f"chart{index}{suffix}"
        monkeypatch.setattr(QFileDialog, "getSaveFileName",
                            staticmethod(lambda *a, t=target, s=suffix: (str(t.with_suffix("")), f"(*{s})")))
        view.export_chart_button.click()
        qtbot.waitUntil(lambda: target.exists() and not view.workbench.runner.current, timeout=15000)
        assert target.stat().st_size > 0
    assert written == [False, False, False]   # drawn on the UI thread, written off it
    # the same image as the chart written at once, on this thread
    at_once = view.per_record_chart.export(tmp_path / "at_once.png")
    assert QImage(str(tmp_path / "chart0.png")) == QImage(str(at_once))
    assert not list(tmp_path.glob("*tklscore-tmp"))
    failures = []
    view.workbench.failed.connect(failures.append)
    assert not view.export_chart(str(tmp_path / "chart.gif"))
    assert failures and ".png or .svg" in failures[0]


def test_report_export(view, qtbot, tmp_path, monkeypatch):
    written = {}
    for suffix in (".html", ".pdf", ".csv"):
        target = tmp_path / f"report{suffix}"
        monkeypatch.setattr(QFileDialog, "getSaveFileName",
                            staticmethod(lambda *a, t=target: (str(t), "")))
        view.export_report_button.click()  # written in the background
        qtbot.waitUntil(lambda t=target: t.exists() and not view.workbench.runner.current, timeout=15000)
        assert target.stat().st_size > 0 and not list(tmp_path.glob(".*.tmp"))
        written[suffix] = target
    text = written[".html"].read_text(encoding="utf-8")
    for expected in ("4.98258", "0.5686", "1.54949", "Scenario 2", "8.76302", "<svg xmlns=",
                     "Where the weights come from", "Weights from the weights file"):
        assert expected in text
    # the risk lens, measured in the background before its charts are drawn
    for expected in ("Risk of re-identification of Scenario 1", "Attacker models side by side",
                     "8 of 128 known sets are kept", "Riskiest records"):
        assert expected in text
    assert text.count("<svg xmlns=") == 5
    assert written[".pdf"].read_bytes().startswith(b"%PDF")
    lines = written[".csv"].read_text().strip().splitlines()
    assert lines[0] == "id,k,l,t,weight_sum,tkl,m_score,l_severity,prosecutor_risk,journalist_risk,disclosure_risk"
    assert len(lines) == 1 + 4


def test_large_series_are_decimated(qtbot):
    import numpy as np
    import pandas as pd

    from tklscore.core.scoring.scores import ScoreSet
    from tklscore.gui.scores.charts import MAX_POINTS, GrowthChart, PerRecordChart

    rng = np.random.default_rng(0)
    n = 50_000
    records = pd.DataFrame({"id": np.arange(n).astype(str), "tkl": rng.random(n), "m_score": rng.random(n),
                            "l_severity": rng.random(n)})
    whole = ScoreSet(float(n), 1.0, float(n), 1.0, float(n))
    for chart in (PerRecordChart(), GrowthChart()):
        qtbot.addWidget(chart)
        chart.set_data(records, whole, math.inf)
        assert 0 < chart.point_count() <= MAX_POINTS
    assert chart.series["tkl"].yData[-1] == pytest.approx(records["tkl"].sum() / n)
    assert chart.series["m_score"].yData[-1] == pytest.approx(records["m_score"].max() / n)


def test_a_long_series_is_drawn_as_its_pixel_columns_extremes_and_looks_the_same(qtbot):
    """20,000 points on a plot some 800 pixels wide: each pixel column's lowest and highest
    value are drawn (a few thousand segments, not 20,000), the data stay whole, and the
    exported image is the one every point gives."""
    import numpy as np
    import pandas as pd

    from tklscore.core.scoring.scores import ScoreSet
    from tklscore.gui.scores.charts import MAX_POINTS, PerRecordChart

    rng = np.random.default_rng(3)
    n = MAX_POINTS
    spikes = (rng.random(n) < 0.2) * rng.random(n)
    records = pd.DataFrame({"id": np.arange(n).astype(str), "tkl": np.linspace(1, 2, n) + spikes,
                            "m_score": rng.random(n), "l_severity": np.linspace(0, 3, n) ** 2})
    whole = ScoreSet(1.0, 1.0, 1.0, 1.0, 1.0)
    images = []
    for peaks in (True, False):
        chart = PerRecordChart()
        qtbot.addWidget(chart)
        chart.resize(900, 300)
        chart.show()
        qtbot.waitExposed(chart)
        chart.set_data(records, whole, 1.0)
        if not peaks:
            for item in chart.series.values():
                item.setDownsampling(auto=False)
        chart.viewport().repaint()
        item = chart.series["tkl"]
        assert len(item.xData) == n   # the data, whole
        width = chart.plot_item.getViewBox().width()
        drawn = item.curve.yData
        if peaks:
            assert 0 < len(drawn) <= 2.1 * width   # two a bin, bins of a whole number of points
            order = np.sort(records["tkl"].to_numpy())
            assert drawn.max() == order[-1] and drawn.min() == order[0]   # the highest and lowest record drawn
        else:
            assert len(drawn) == n
        image = chart.render("unused.png").image.convertToFormat(QImage.Format.Format_RGB32)
        images.append(np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4)[..., :3]
                      .astype(int))
    assert images[0].shape == images[1].shape
    apart = np.abs(images[0] - images[1]).max(axis=2) > 96
    assert apart.mean() < 0.02, apart.mean()


def test_report_shows_judgement_consistency(qtbot):
    from tklscore.core.report import build_report_html
    from tklscore.gui.report import report_input

    workbench = Workbench()
    workbench.autosave_timer.stop()
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: bool(workbench.reports), timeout=15000)
    text = build_report_html(report_input(workbench))
    assert "MedicalHealth" in text and "CR" in text and "Weights derived from the tkl-Data Model" in text


def test_record_axes_show_whole_records_and_nothing_is_cut_off(view):
    from tklscore.gui.charts import WholeNumberAxis

    growth = view.growth_chart
    axis = growth.plot_item.getAxis("bottom")
    assert isinstance(axis, WholeNumberAxis)
    for low, high in ((0.5, 4.5), (0.9, 1.6), (0.5, 40_000.5)):
        ticks = [v for _, values in axis.tickValues(low, high, 600) for v in values]
        assert ticks and all(float(v).is_integer() for v in ticks), (low, high, ticks)
    (x_low, x_high), (y_low, y_high) = growth.plot_item.viewRange()
    assert x_low < 1 and x_high > 4 and y_low <= 0  # the 4th growth point is inside
    assert y_high > max(growth.series["tkl"].yData) * 1.2  # room for the legend above the lines
    per_record = view.per_record_chart
    (x_low, x_high), _ = per_record.plot_item.viewRange()
    assert x_low < 0 and x_high > 3  # the last record is inside


def test_the_weights_source_is_shown_and_the_officer_can_switch(view, qtbot):
    from tklscore.core.examples import thesis_example
    from tklscore.core.model.lseverity_model import thesis_lseverity_model
    from tklscore.core.model.mscore_model import thesis_example_model
    from tklscore.core.scoring.scores import Scorer
    from tklscore.core.scoring.weights import Weights, WeightsPerScore
    from tklscore.core.scoring.weights_source import FILE, MODEL, SCORE_MODELS

    bench = view.workbench
    assert view.weights_label.text().startswith("Weights from the weights file ")
    assert view.weights_label.text().endswith("weights_table_4_2.csv.")
    combo = view.weights_combo
    assert [combo.itemData(i) for i in range(combo.count())] == [MODEL, FILE, SCORE_MODELS]
    assert combo.currentData() == FILE and combo.isEnabled()
    assert "the riskiest record by tkl is highlighted." in view.info_label.text()
    from tklscore.gui.main_window import weights_source as header_phrase

    assert header_phrase(bench) == "weights from weights_table_4_2.csv"  # the window's header says the same

    combo.setCurrentIndex(combo.findData(MODEL))
    combo.activated.emit(combo.currentIndex())
    wait_scores(qtbot, bench, 4.92534)  # the model's own weights (scoring.md erratum 5)
    qtbot.waitUntil(lambda: "Weights derived from the tkl-Data Model" in view.weights_label.text())
    assert "the least consistent, MedicalHealth, is acceptable (CR 0.0088 ≤ 0.10)" in view.weights_label.text()
    assert bench.project.weights_use == MODEL and header_phrase(bench) == "weights from the tkl-Data Model"

    bench.set_weights_use(SCORE_MODELS)
    example = thesis_example()
    expected = Scorer(example.source, example.roles).score_with_own_weights(
        bench.current_release(), WeightsPerScore(bench.model.to_weights(), Weights(thesis_example_model().weights()),
                                                 thesis_lseverity_model().to_weights()), 1.0, True)
    qtbot.waitUntil(lambda: not bench.runner.current and bench.current_report() is not None
                    and bench.current_report().scores.l_severity == pytest.approx(expected.scores.l_severity),
                    timeout=15000)
    report = bench.current_report()
    assert round(report.scores.tkl, 5) == 4.92534
    assert report.scores.m_score == pytest.approx(expected.scores.m_score)
    assert report.scores.l_severity != pytest.approx(1.06272)  # Table 3.7's weights, not Table 4.2's
    qtbot.waitUntil(lambda: "each score's own model" in view.weights_label.text())
    assert "M-Score and L-Severity from the thesis' Figure 3.1 and Table 3.7" in view.weights_label.text()
    assert header_phrase(bench) == "weights from each score's own model"


def test_demo_says_where_its_weights_come_from(capsys):
    from tklscore.cli.main import main

    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "Weights from: the thesis' Table 4.2, as a weights file" in out
    assert "there Scenario 1 scores tkl 4.92534" in out and "4.98258" in out


def test_a_large_release_s_chart_is_sorted_in_the_background(view, qtbot, monkeypatch):
    from tklscore.gui.scores import charts_panel
    from tklscore.core.report.charts import per_record_order
    from tklscore.gui.tasks import SIDE

    monkeypatch.setattr(charts_panel, "SORT_IN_BACKGROUND", 2)  # the 4 records of Scenario 1 count as large
    runner = view.workbench.runner
    started, start = [], runner.start
    monkeypatch.setattr(runner, "start", lambda name, *args, **kwargs: (started.append((name, kwargs.get("lane"))),
                                                                        start(name, *args, **kwargs))[1])
    view.per_record_chart.set_data(None, None, 1.0)
    view.refresh()
    assert view.charts_pending()
    qtbot.waitUntil(lambda: not view.charts_pending() and not runner.current, timeout=15000)
    assert view.per_record_chart.point_count() == 4
    assert ("Sorting the records for the chart", SIDE) in started  # beside the scores, never ahead of them
    records = view.workbench.current_report().records
    order = per_record_order(records, view.per_record_chart.order)
    assert view.per_record_chart.ids == [str(i) for i in records["id"].to_numpy()[order]]


def test_charts_off_screen_wait_until_the_view_is_shown(qtbot, tmp_path):
    """In the window, a Scores view the officer is not looking at draws no chart after a
    rescore; shown, it draws the current scores; an export draws them first."""
    from PySide6.QtCore import QSettings

    from tklscore.gui.main_window import MainWindow

    window = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(window)
    window.workbench.autosave_timer.stop()
    window.resize(1400, 900)
    window.show()
    workbench, view = window.workbench, window.views["scores"]
    files = {p.name: p for p in write_thesis_example(tmp_path / "example")}
    workbench.load_example("thesis")
    qtbot.waitUntil(lambda: bool(workbench.reports), timeout=15000)
    workbench.use_weights_file(str(files["weights_table_4_2.csv"]))
    window.show_view("scores")
    wait_scores(qtbot, workbench, 4.98258)
    qtbot.waitUntil(lambda: not view.charts_pending() and view.per_record_chart.point_count() == 4, timeout=15000)
    assert view.growth_chart.series["tkl"].yData[-1] == pytest.approx(0.5686, abs=1e-4)

    window.show_view("ahp")
    workbench.set_current_release("Scenario 2")           # 7 records
    qtbot.wait(50)
    assert view.charts_pending() and view.per_record_chart.point_count() == 4  # not drawn off screen
    assert view.summary_text(TKL, RAW) == "8.76302"       # the numbers themselves are current
    window.show_view("scores")
    qtbot.waitUntil(lambda: not view.charts_pending(), timeout=15000)
    assert view.per_record_chart.point_count() == 7 and view.growth_chart.point_count() == 7
    assert view.growth_chart.series["tkl"].yData[-1] == pytest.approx(1.0)  # the source whole
    assert view.releases_chart.bar_count() == 2 * 5

    window.show_view("ahp")
    workbench.set_current_release("Scenario 1")
    qtbot.wait(50)
    assert view.charts_pending()
    assert view.export_chart(str(tmp_path / "per_record.png"), view.per_record_chart)
    assert not view.charts_pending() and view.per_record_chart.point_count() == 4  # drawn before the export
    assert view.per_record_chart.ids[-1] == "3"
    workbench.runner.cancel_all()
    workbench.runner.wait()
    workbench.undo_stack.setClean()
    workbench._mark(False)  # closing asks nothing


def test_a_refused_weights_file_is_not_claimed_and_names_the_application_s_remedy(view, qtbot, tmp_path):
    """Weights that leave sensitive values without a weight score nothing: the earlier scores
    go, the header and the Scores view say the weights are not used, and the message names
    what to do in the application (issue 22 §4)."""
    from tklscore.gui.main_window import weights_source

    workbench = view.workbench
    lines = (tmp_path / "example" / "weights_table_4_2.csv").read_text().splitlines()
    refused = tmp_path / "missing.csv"
    refused.write_text("\n".join(line for line in lines if ",HIV," not in line) + "\n")
    messages = []
    workbench.failed.connect(messages.append)
    workbench.use_weights_file(str(refused))
    qtbot.waitUntil(lambda: bool(messages) and not workbench.runner.current, timeout=15000)
    message = messages[-1]
    assert "('Disease', 'HIV')" in message and "Weights file…" in message and "tkl-Data Model" in message
    assert "--missing-weight-zero" not in message
    assert workbench.weights is None and workbench.reports == {} and workbench.current_report() is None
    assert weights_source(workbench) == "weights not used (see the Scores view)"
    assert view.weights_label.text().startswith("These weights are not used")
    assert view.summary_text(TKL, RAW) == ""     # no score of the earlier weights under the refused file's name
    # choosing the model again scores again
    workbench.set_weights_use("model")
    qtbot.waitUntil(lambda: workbench.current_report() is not None and not workbench.runner.current, timeout=15000)
    assert weights_source(workbench) == "weights from the tkl-Data Model"


def test_the_comparison_shows_each_release_s_measures_once_they_come(view, qtbot):
    """The releases are measured after their scores; the comparison fills in k, l, t and the
    average risk when they come, without another drawing of the charts."""
    workbench = view.workbench
    qtbot.waitUntil(lambda: not workbench.measures_pending() and not workbench.runner.current, timeout=15000)
    kept = dict(workbench.measures)
    workbench.measures.clear()
    view.charts_panel.draw_releases()
    assert {r[0]: r for r in view.charts_panel.comparison_rows()}["Scenario 1"][4:] == ["n/a"] * 4
    workbench.measures.update(kept)
    workbench.measuresChanged.emit()
    rows = {r[0]: r for r in view.charts_panel.comparison_rows()}
    assert rows["Scenario 1"][4:] == ["2", "1", "0.5", "50 %"] and rows["Scenario 2"][4] == "1"


def test_the_charts_behind_the_first_tab_are_built_when_drawn_or_shown(qtbot, workbench):
    from pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu import ViewBoxMenu

    from tklscore.gui.scores.charts_panel import ChartsPanel

    panel = ChartsPanel(workbench)
    qtbot.addWidget(panel)
    assert panel._releases_chart is None and panel._growth_chart is None   # the view's first show builds one chart
    panel.setCurrentIndex(2)                                                # the Growth tab shown: its chart built
    assert panel._releases_chart is None and panel.growth_page.layout().itemAt(0).widget() is panel.growth_chart
    releases = panel.releases_chart                                         # drawn (or exported): built
    assert panel.releases_page.widget(0) is releases and panel.releases_page.widget(1) is panel.comparison
    assert panel.charts() == [panel.per_record_chart, releases, panel.growth_chart]
    box = panel.per_record_chart.plot_item.vb                               # the context menu: on demand
    assert box.menu is None and box.menuEnabled()
    menu = box.getMenu(None)
    assert isinstance(menu, ViewBoxMenu) and box.getMenu(None) is menu and box.getContextMenus(None)
    assert "View All" in [action.text() for action in menu.actions()]


def test_score_model_files_are_read_off_the_ui_thread_and_never_score_stale(view, qtbot, monkeypatch, tmp_path):
    """M-Score's and L-Severity's model files are never parsed on the UI thread (its parser
    refuses there), read once while the files are unchanged; while they are read no score is
    shown, and a bad file changes nothing and is named."""
    import os
    import threading

    from tklscore.core.examples import thesis_example
    from tklscore.core.model.lseverity_model import thesis_lseverity_model
    from tklscore.core.model.mscore_model import thesis_example_model
    from tklscore.core.scoring.scores import Scorer
    from tklscore.core.scoring.weights import Weights, WeightsPerScore
    from tklscore.core.scoring.weights_source import FILE, SCORE_MODELS
    from tklscore.gui import weights_state

    bench = view.workbench
    folder = str(tmp_path / "example")   # the fixture's thesis files
    m_file, l_file = os.path.join(folder, "mscore_model.ttl"), os.path.join(folder, "lseverity_model.ttl")
    example = thesis_example()
    expected = Scorer(example.source, example.roles).score_with_own_weights(
        bench.current_release(), WeightsPerScore(bench.model.to_weights(), Weights(thesis_example_model().weights()),
                                                 thesis_lseverity_model().to_weights()), 1.0, True)

    from tklscore.core.model import weight_models

    parse, parsed_on = weight_models.parse_rdf_file, []

    def off_the_ui_thread(*args, **kwargs):
        parsed_on.append(threading.current_thread())
        if threading.current_thread() is threading.main_thread():
            raise AssertionError("RDF parsed on the UI thread")
        return parse(*args, **kwargs)

    monkeypatch.setattr(weight_models, "parse_rdf_file", off_the_ui_thread)
    reads, read = [], weights_state.load_score_models

    def counted(paths, **options):
        reads.append(paths)
        return read(paths, **options)

    monkeypatch.setattr(weights_state, "load_score_models", counted)
    bench.use_score_models([l_file, m_file])
    assert bench.project.weights_use == FILE and bench.weights is not None   # nothing changed until read
    qtbot.waitUntil(lambda: bench.project.weights_use == SCORE_MODELS and not bench.runner.current
                    and bench.current_report() is not None, timeout=30000)
    report = bench.current_report()
    assert report.scores.m_score == expected.scores.m_score
    assert report.scores.l_severity == expected.scores.l_severity and round(report.scores.tkl, 5) == 4.92534
    assert bench.project.score_model_paths == [l_file, m_file] and len(reads) == 1
    assert len(parsed_on) == 2 and threading.main_thread() not in parsed_on   # small files: in a thread, not apart
    bench.set_weights_use(FILE)
    bench.set_weights_use(SCORE_MODELS)   # the files unchanged: their weights at once, not read again
    assert bench.weights_per_score is not None and len(reads) == 1

    stat = os.stat(m_file)
    os.utime(m_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))   # changed on disk: read again
    bench.set_weights_use(SCORE_MODELS)
    assert bench.weights is None and not bench.reports   # no score from the models as they were
    assert bench.weights_problem == "Reading the score models lseverity_model.ttl and mscore_model.ttl…"
    qtbot.waitUntil(lambda: bench.weights is not None and bench.current_report() is not None
                    and not bench.runner.current, timeout=30000)
    assert bench.current_report().scores.l_severity == expected.scores.l_severity and len(reads) == 2

    broken = os.path.join(folder, "broken.ttl")
    with open(broken, "w", encoding="utf-8") as handle:
        handle.write("@prefix ls: <urn:x#> .\nls:a ls:b \n")
    for paths, said in (([m_file, m_file], "choose one M-Score model and one L-Severity model (mscore_model.ttl "
                                           "holds an M-Score model; mscore_model.ttl holds an M-Score model)"),
                        ([m_file, broken], "broken.ttl")):
        with qtbot.waitSignal(bench.failed, timeout=30000) as failed:
            bench.use_score_models(paths)
        assert said in failed.args[0]
        assert bench.project.score_model_paths == [l_file, m_file] and bench.weights_per_score is not None
        # kept: the files in use as they are now and those read last, not the files before the edit
        assert list(bench._score_models_cache) == [weights_state._files_key([l_file, m_file]),
                                                   weights_state._files_key(paths)]
    bench.set_weights_use(FILE)
    bench.set_weights_use(SCORE_MODELS)   # the files in use kept through the failed choices: not read again
    assert bench.weights_per_score is not None and len(reads) == 4
