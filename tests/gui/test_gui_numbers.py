"""Numbers and tables a reader can read in the views (issue 22 §4): the Pareto chart in the
table's units, the Release view's tables whole at 1600×1000 with long release names, the
views' figures through the one formatter."""

import pytest
from PySide6.QtCore import Qt

from tklscore.core.numbers import number, percent, score
from tklscore.core.release.selection import ReleaseDefinition

LONG = ("White men, the largest group of the census extract, for the regional health survey of 1994 "
        "(race == White and sex == Male)")


def test_release_view_tables_fit_a_1600_by_1000_window_with_long_names(thesis_window, qtbot):
    thesis_window.workbench.add_release(ReleaseDefinition(LONG, "ids", ids=("0", "1", "2")))
    qtbot.waitUntil(lambda: LONG in thesis_window.workbench.reports and not thesis_window.workbench.runner.current,
                    timeout=20000)
    thesis_window.show_view("release")
    view = thesis_window.views["release"]
    qtbot.wait(50)
    for table in (view.roles_table, view.releases_table):
        assert table.horizontalScrollBar().maximum() == 0, table.objectName()   # no column beyond the edge
    model = view.releases_table.model()

    def shown(row, column, role=Qt.ItemDataRole.DisplayRole):
        return model.data(model.index(row, column), role)

    row = [shown(r, 0) for r in range(model.rowCount())].index(LONG)
    assert shown(row, 0, Qt.ItemDataRole.ToolTipRole) == LONG                  # elided on screen, whole here
    assert view.releases_table.columnWidth(0) < view.releases_table.fontMetrics().horizontalAdvance(LONG)
    assert shown(row, 4) == score(thesis_window.workbench.reports[LONG].scores.tkl)
    for column in (2, 3, 4):   # the counts and the score are never cut
        width = view.releases_table.columnWidth(column)
        assert view.releases_table.fontMetrics().horizontalAdvance(shown(row, column)) < width


def test_pareto_chart_shows_the_table_s_units_with_titles(thesis_window, qtbot):
    thesis_window.show_view("design")
    view = thesis_window.views["design"]
    qtbot.waitUntil(lambda: view.result is not None and not thesis_window.workbench.runner.current, timeout=20000)
    view.run_suggest()
    qtbot.waitUntil(lambda: view.front_table.rowCount() > 0 and not thesis_window.workbench.runner.current,
                    timeout=30000)
    plot = view.chart.getPlotItem()
    for axis in ("left", "bottom"):
        assert plot.getAxis(axis).autoSIPrefix is False        # no ×0.001 beside the axis
        assert plot.getAxis(axis).autoSIPrefixScale == 1.0
    assert "utility loss" in plot.getAxis("bottom").labelText and "tkl-Score" in plot.getAxis("left").labelText
    assert plot.titleLabel.text.startswith("Suggested releases")
    # the front's table in the same units, through the one formatter
    front = view.suggestions.front if hasattr(view.suggestions, "front") else None
    first = view.front_table.item(0, 0).text()
    assert first == number(float(first)) and view.front_table.item(0, 5).text().endswith("%")
    if front:
        assert view.front_table.item(0, 1).text() == number(front[0].utility_loss)


def test_risk_view_speaks_in_percentages_as_its_verdict(thesis_window, qtbot):
    thesis_window.show_view("risk")
    view = thesis_window.views["risk"]
    qtbot.waitUntil(lambda: view.measures is not None and not thesis_window.workbench.runner.current, timeout=20000)
    p = view.measures.prosecutor
    assert view.attackers_table.item(0, 0).text() == percent(p.highest)
    assert percent(p.highest) in view.verdict_label.text()
    d = view.riskiest_table.item(0, 4).text()
    assert d == number(float(d))
    names = [view.models_table.item(r, 0).text() for r in range(view.models_table.rowCount())]
    meanings = {n: view.models_table.item(r, 2).text() for r, n in enumerate(names)}
    assert "not Cao and Karras' enhanced β-likeness" in meanings["enhanced β-likeness (pycanon's figure)"]
    assert "not Brickell and Shmatikov's δ-disclosure" in meanings["δ-disclosure (values present)"]


def test_chart_axes_tick_in_plain_decimals_and_the_status_line_through_the_formatter(thesis_window, qtbot):
    """Per-record shares of a large table are tiny: the axes say 0.00005, never 5e-05, in the
    Scores view's charts and the Pareto chart alike; the status line's tkl-Score is the
    formatter's (no 3495.13258 beside a table's 3,495.13)."""
    thesis_window.show_view("scores")
    view = thesis_window.views["scores"]
    for chart in (view.per_record_chart, view.releases_chart, view.growth_chart, thesis_window.views["design"].chart):
        left = chart.getPlotItem().getAxis("left")
        assert left.tickStrings([0.0, 0.00005, 0.0001, 0.00035], 1.0, 0.00005) == ["0", "0.00005", "0.0001",
                                                                                  "0.00035"]
        assert left.tickStrings([0.0, 2500.0, 5000.0], 1.0, 2500.0) == ["0", "2,500", "5,000"]
    report = thesis_window.workbench.current_report()
    assert thesis_window.statusBar().currentMessage().startswith(
        f"{thesis_window.workbench.project.current_release}: tkl-Score {score(report.scores.tkl)}, ")


def test_chart_legends_keep_to_one_row_above_the_data(thesis_window, qtbot):
    """The Releases chart's five scores in one legend row (two rows covered the bars)."""
    thesis_window.show_view("scores")
    view = thesis_window.views["scores"]
    qtbot.waitUntil(lambda: view.releases_chart.bar_count() > 0, timeout=20000)
    for chart in (view.per_record_chart, view.releases_chart, view.growth_chart):
        assert chart.legend.layout.rowCount() == 1, chart.title_text
    assert len(view.releases_chart.legend.items) == 5


def test_number_boxes_show_no_trailing_zeros(qtbot):
    """A number box reads like the rest of the window: 0.01, not 0.010000 (issue 22 §4)."""
    from tklscore.gui.number_spin import NumberSpinBox
    from tklscore.gui.risk.disclosure_panel import DisclosurePanel

    box = NumberSpinBox()
    qtbot.addWidget(box)
    box.setDecimals(6)
    box.setRange(0, 1e9)
    for value, text in [(0.01, "0.01"), (3.0, "3"), (0.123456, "0.123456"), (0.0, "0"), (1500.5, "1500.5")]:
        box.setValue(value)
        assert box.text() == text
    box.lineEdit().setText("0.000125")
    box.interpretText()
    assert box.value() == 0.000125
    panel = DisclosurePanel()
    qtbot.addWidget(panel)
    assert panel.epsilon_spin.text() == "0.01" and panel.threshold_spin.text() != "0.010000"
