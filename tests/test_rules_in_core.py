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


# ----------------------------------------------------------------------------- the Design view's rules

def _thesis_design(levels=None, **kwargs):
    from tklscore.core.examples import thesis_hierarchies
    from tklscore.core.release.designer import ReleaseDesigner
    from tklscore.core.release.selection import ReleaseDefinition
    from tklscore.core.release.transform import ReleaseDesign

    example = thesis_example()
    designer = ReleaseDesigner(example.source, example.roles, thesis_hierarchies())
    selection = ReleaseDefinition("Scenario 1", "ids", ids=tuple(example.published_ids))
    design = ReleaseDesign(levels=levels or {}, selection=selection, **kwargs)
    return example, designer, design


def test_a_designs_k_l_t_and_prosecutor_risk_are_the_cores():
    """k is the smallest published class, l and t the risk lens' (else computed on the
    designer), the highest prosecutor risk 1/k; both engines' results read the same way."""
    from tklscore.core.release.figures import design_figures, privacy_rows

    example, designer, design = _thesis_design({"City": 1})
    result = designer.evaluate(design, example.weights)
    figures = design_figures(result, designer)
    # Scenario 1 (records 3-6) with City → Alberta: classes Male {3,4} and Female {5,6}
    assert (figures.k, figures.selected_rows, figures.published_rows, figures.suppressed_rows) == (2, 4, 4, 0)
    assert figures.l == result.measures["l_distinct"] and figures.t == result.measures["t"]
    assert figures.prosecutor_risk == 0.5 and figures.generalised == frozenset({"City"})
    assert figures.rows_sentence() == "4 of the 4 records of 'Scenario 1' published, 0 suppressed"
    unmeasured = designer.evaluate(design, example.weights, measures=False)
    plain = design_figures(unmeasured, designer)
    assert (plain.k, plain.l, plain.t) == (figures.k, figures.l, pytest.approx(figures.t))
    assert privacy_rows(plain, None) == [("k-anonymity", "2"), ("distinct l-diversity", str(figures.l)),
                                         ("t-closeness", f"{figures.t:.4f}"), ("prosecutor risk (highest)", "0.5000")]
    shown = dict(privacy_rows(figures, result.measures))
    assert shown["k-anonymity"] == "2" and shown["prosecutor risk (highest)"] == "0.5000"
    # the threshold named where the share of records above it is shown
    assert shown["records at risk (prosecutor risk above 20 %)"] == \
        f"{result.measures['risk']['prosecutor']['records_at_risk']:.1%}"


def test_the_thesis_example_opens_with_its_hierarchies():
    from tklscore.core.examples import thesis_hierarchies
    from tklscore.core.release.session import DesignState

    state = DesignState()
    state.load({}, builtin="thesis")
    assert list(state.hierarchies) == ["City", "Gender", "Job", "Age"] == list(thesis_hierarchies())
    assert state.hierarchies["City"].labels(["Calgary"])[1][0] == "Alberta"
    other = DesignState()
    other.load({}, builtin=None)
    assert other.hierarchies == {}


def test_a_design_is_named_once_and_a_defined_release_keeps_its_name():
    from tklscore.core.release.session import DESIGNED, DesignState, named_as_saved, save_design

    _, designer, design = _thesis_design({"City": 1}, suppress_below=2)
    state = DesignState(hierarchies=dict(designer.hierarchies))
    state.apply(design)
    settings: dict = {}
    save_design(settings, state.design("Alberta", design.selection), ["Scenario 1", "Scenario 2"])
    assert named_as_saved(state.design(DESIGNED, design.selection), settings["saved"]).name == "Alberta"
    state.levels["City"] = 0
    assert named_as_saved(state.design(DESIGNED, design.selection), settings["saved"]).name == DESIGNED
    with pytest.raises(InputError, match="already a release named 'Scenario 1'"):
        save_design(settings, state.design("Scenario 1"), ["Scenario 1"])
    project = Project(settings={"design": settings})
    assert project.designed_names() == ["Alberta"] and project.designed("Alberta")["levels"] == {"City": 1}
    assert project.designed("Scenario 1") is None and project.designed(None) is None


def test_the_searched_sentence_says_how_much_of_the_lattice_was_seen():
    from tklscore.core.release.suggest import Suggestions

    assert Suggestions(6720, 5821, [], True).searched() == (
        "Lattice of 6,720 releases, 5,821 evaluated (the rest need not be: a release generalised less than one "
        "that misses k misses it too).")
    assert Suggestions(6720, 30, [], True, cancelled=True, visited=41).searched().startswith(
        "Cancelled after 41 of the lattice's 6,720 releases (30 evaluated")


def test_the_suggestions_say_how_many_meet_and_which_are_the_best_trade_offs():
    """In the officer's words, not "not dominated" (issue 22 §3, the screenshots)."""
    from tklscore.core.release.suggest import Constraints, suggest

    example, designer, base = _thesis_design()
    found = suggest(designer, example.weights, Constraints(k=2), base)
    meeting = sum(c.k >= 2 and c.suppressed_share == 0 for c in found.all_evaluated)   # l ≥ 1, t ≤ 1: any
    assert found.met and meeting > len(found.front) > 1 and found.message == (
        f"{meeting} releases meet the constraints; {len(found.front)} are the best trade-offs (no other is both "
        f"less misuseable and more useful)")
    cancelled = suggest(designer, example.weights, Constraints(k=2), base,
                        cancelled=iter([False] * 6 + [True] * 99).__next__)
    assert cancelled.cancelled and cancelled.message.startswith(
        "of the releases evaluated before the search was cancelled, ")
