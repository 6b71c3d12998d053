"""The report's charts as SVG, without Qt (core/report/svg.py, charts.py): well-formed SVG
Tiny, axes in the data's units, long category names wrapped or abbreviated with a key."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tklscore.core.report import svg
from tklscore.core.report.charts import per_record_order, releases_chart
from tklscore.core.scoring.scores import ScoreSet

NS = "{http://www.w3.org/2000/svg}"


def texts(picture: str) -> list[str]:
    return [t.text for t in ET.fromstring(picture).iter(f"{NS}text")]


def test_nice_ticks_are_round_and_cover_the_range():
    assert svg.nice_ticks(0, 1) == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert svg.nice_ticks(0, 0.00042)[-1] >= 0.00042
    assert svg.nice_ticks(0, 3, whole=True) == [0, 1, 2, 3]      # counted things: no 0.5
    assert all(float(t).is_integer() for t in svg.nice_ticks(0, 1930, whole=True))


def test_short_names_stay_whole_long_ones_wrap_and_very_long_ones_get_a_key():
    assert svg.category_labels(["Scenario 1", "Scenario 2"], 400) == ([["Scenario 1"], ["Scenario 2"]], [])
    lines, key = svg.category_labels(["Never-married respondents of the census"], 300)
    assert key == [] and len(lines[0]) == 2 and " ".join(lines[0]) == "Never-married respondents of the census"
    names = ["Women of every age and race in the 1994 census extract (sex == Female)", "Never-married respondents"]
    lines, key = svg.category_labels(names, 200)
    assert lines == [["R1"], ["R2"]] and key == [f"R1 = {names[0]}", f"R2 = {names[1]}"]


def test_releases_chart_abbreviates_long_names_with_a_key_and_keeps_the_units():
    names = ["White men, the largest group of the census extract, for the regional health survey",
             "Everyone with a bachelor's degree or higher (Bachelors, Masters, Doctorate, Prof-school)",
             "Never-married respondents", "Women of every age and race"]
    scores = {name: ScoreSet(0.1 * (i + 1), 1.0, 0.3, None, 0.0004) for i, name in enumerate(names)}
    picture = releases_chart(scores, 1.0)
    shown = texts(picture)
    assert "R1" in shown and any(t.startswith("R1 = White men") for t in shown)
    assert all(name not in shown for name in names[:2])            # never a cut-off name under a bar
    assert "M-Score (x = 1)" in shown and "Score ÷ source table score" in shown
    assert not any(t and "×" in t for t in shown)                  # no scaled axis
    root = ET.fromstring(picture)
    assert root.get("baseProfile") == "tiny" and int(root.get("height")) > svg.HEIGHT   # taller: the key


def test_lines_and_histogram_are_well_formed_and_long_series_are_bounded():
    xs = np.arange(50_000, dtype=float)
    ys = np.sin(xs / 500) + 1
    ys[1234] = 10.0                                                 # a spike kept by the envelope
    picture = svg.lines(xs, [svg.Series("tkl-Score", (31, 119, 180), ys)], title="t", x_label="x", y_label="y")
    points = re.findall(r"points='([^']*)'", picture)
    assert len(points) == 1 and len(points[0].split()) <= svg.MAX_LINE_POINTS
    assert "10" in texts(picture) or "12" in texts(picture)       # the axis reaches the spike
    hist = svg.histogram(np.linspace(-3, 0, 11), np.arange(10), title="D", x_label="D(r)", y_label="Records",
                         color=(44, 160, 44), marker=(-2.0, "threshold 0.01"))
    assert "threshold 0.01" in texts(hist) and ET.fromstring(hist).tag == f"{NS}svg"


def test_per_record_order_is_the_thesis_order():
    import pandas as pd

    records = pd.DataFrame({"tkl": [3.0, 1.0, 2.0, 0.5], "l_severity": [0.2, 0.2, 0.1, 0.3]})
    assert list(per_record_order(records)) == [2, 1, 0, 3]          # ascending L, ties by tkl
    assert list(per_record_order(records, "tkl")) == [0, 2, 1, 3]


@pytest.mark.parametrize("value", [0.0, 1e-9, 5.0, 123456.0])
def test_one_value_still_makes_an_axis(value):
    picture = svg.grouped_bars(["a"], [svg.Series("s", (1, 2, 3), np.array([value]))], title="t", x_label="x",
                               y_label="y")
    assert ET.fromstring(picture) is not None
