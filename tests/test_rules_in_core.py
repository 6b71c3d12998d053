"""Each rule has one home in the core: the AHP consistency verdict, M-Score's x, the score
labels, the growth of a release, the kinds of table file."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tklscore.core.errors import InputError
from tklscore.core.examples import thesis_example
from tklscore.core.model.ahp import ahp, consistency_verdict
from tklscore.core.project import Project
from tklscore.core.scoring.scores import Scorer, cumulative_table_scores, parse_x, score_label, x_text
from tklscore.core.tables.loading import table_kind


@pytest.mark.parametrize("cr, group, level, threshold", [
    (0.0088, False, "acceptable", 0.10), (0.10, False, "acceptable", 0.10),
    (0.12, False, "borderline", 0.15), (0.18, False, "inconsistent", 0.15),
    (0.18, True, "borderline", 0.20), (0.3533, True, "inconsistent", 0.20),
])
def test_consistency_verdict_levels_and_thresholds(cr, group, level, threshold):
    verdict = consistency_verdict(cr, 4, group)
    assert (verdict.level, verdict.threshold) == (level, threshold)
    assert f"CR {cr:.4f}" in verdict.sentence and verdict.sentence.count("CR") == 1
    assert verdict.acceptable == (level == "acceptable")


def test_inconsistent_verdict_says_it_once():
    result = ahp([[1, 2, 1 / 4, 1 / 8], [1 / 2, 1, 2, 4], [4, 1 / 2, 1, 2], [8, 1 / 4, 1 / 2, 1]])
    assert result.verdict().sentence == (f"inconsistent (CR {result.cr:.4f} > 0.15 for one person's judgements): "
                                         f"revise the judgements")
    assert consistency_verdict(0.9, 2).level == "consistent"


def test_x_is_parsed_in_one_place():
    assert parse_x("inf") == parse_x("∞") == parse_x(" Infinity ") == math.inf
    assert parse_x("2.5") == 2.5 and parse_x(1) == 1.0
    for bad in ("0.5", "nan", "abc", True, None):
        with pytest.raises(InputError, match="x = "):
            parse_x(bad)
    assert x_text(math.inf) == "∞" and x_text(math.inf, "inf") == "inf" and x_text(2.0) == "2"


def test_a_project_with_a_bad_x_names_it(tmp_path):
    path = tmp_path / "p.tklproj"
    Project().save(path)
    text = path.read_text().replace('"x": 1.0', '"x": 0.5')
    path.write_text(text)
    with pytest.raises(InputError, match="p.tklproj.*x must be at least 1"):
        Project.load(path)


def test_score_labels():
    assert [score_label(k) for k in ("tkl", "tkl_max", "m_score", "m_score_inf", "l_severity")] == \
        ["tkl-Score", "tkl-Score_max", "M-Score", "M-Score (x → ∞)", "L-Severity"]
    assert score_label("m_score", 2.0) == "M-Score (x = 2)" and score_label("m_score", "{x}") == "M-Score (x = {x})"
    assert score_label("m_score_inf", infinity="inf") == "M-Score (x = inf)"


def test_cumulative_table_scores_end_at_the_release_scores():
    example = thesis_example()
    report = Scorer(example.source, example.roles).score([3, 4, 5, 6], example.weights, x=2.0)
    grown = cumulative_table_scores(report.records, 2.0)
    assert grown["tkl"][-1] == pytest.approx(report.scores.tkl)
    assert grown["l_severity"][-1] == pytest.approx(report.scores.l_severity)
    assert grown["m_score"][-1] == pytest.approx(report.scores.m_score)
    first = report.records["m_score"].iloc[0]
    np.testing.assert_allclose(grown["m_score"][:2], [first, math.sqrt(2) * report.records["m_score"][:2].max()])


@pytest.mark.parametrize("name, kind", [("a.csv", "text"), ("a.TSV", "text"), ("b.xlsx", "excel"),
                                        ("b.xls", "excel"), ("c.parquet", "parquet"), ("c.pq", "parquet"),
                                        ("d", "text")])
def test_table_kind_from_the_file_name(name, kind):
    assert table_kind(name) == kind


def test_the_reciprocal_of_a_previewed_judgement_is_set_in_core():
    """The AHP view previews a slider's judgement through core.model.ahp.with_judgement."""
    from tklscore.core.model.ahp import with_judgement

    matrix = np.array([[1, 2, np.nan], [0.5, 1, 2], [np.nan, 0.5, 1]])
    previewed = with_judgement(matrix, 0, 2, 4)
    assert previewed[0, 2] == 4 and previewed[2, 0] == 0.25 and np.isnan(matrix[0, 2])  # a copy
    cleared = with_judgement(previewed, 0, 1, None)
    assert np.isnan(cleared[0, 1]) and np.isnan(cleared[1, 0])
    for bad in (0, -3, math.inf, math.nan):
        with pytest.raises(InputError, match="must be a positive number"):
            with_judgement(matrix, 0, 1, bad)
    import inspect

    import tklscore.gui.ahp.view as ahp_view
    source = inspect.getsource(ahp_view)
    assert "with_judgement(" in source and "1.0 / value" not in source
