"""Each rule has one home in the core: the AHP consistency verdict, M-Score's x, the score
labels, the growth of a release, the kinds of table file, the riskiest tenth of a release,
the share of D(r) above its threshold, the verdict bands, the pseudonymisation's record
count, share, limits and removal excess, the thesis example's hierarchies, what PIA works
out from a patient's record, a Learn student's recipe from the columns' set-up and the
groups' counts of the Learn statistics, a D(r) parameter as typed, why QI importance is
not measured, a designed release made current."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tklscore.core.errors import InputError
from tklscore.core.examples import THESIS_HIERARCHIES, thesis_example
from tklscore.core.model.ahp import ahp, consistency_verdict
from tklscore.core.project import Project
from tklscore.core.learn import tasks
from tklscore.core.pia.analysis import analyze_files
from tklscore.core.pia.reasoner import Reasoner
from tklscore.core.pseudonymization.analysis import ThresholdChoice, analyse
from tklscore.core.pseudonymization.blocking import BlockingRule
from tklscore.core.pseudonymization.data_flow import DataFlowModel
from tklscore.core.pseudonymization.generator import survey_example
from tklscore.core.files.resources import resource_path
from tklscore.core.release.hierarchy import Hierarchy
from tklscore.core.risk.disclosure_risk import AttributeParameters, disclosure_risk, parameter_value, share_above
from tklscore.core.risk.lens import QI_IMPORTANCE_MAX, qi_importance_skipped
from tklscore.core.scoring.meaning import BANDS, BANDS_NOTE, bands_text, verdict
from tklscore.core.scoring.scores import (RISKIEST_SHARE, Scorer, cumulative_table_scores, parse_x, riskiest_mask,
                                          score_label, x_text)
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
    from tklscore.core.numbers import number, percent
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
                                         ("t-closeness", number(figures.t)), ("prosecutor risk (highest)", "50 %")]
    shown = dict(privacy_rows(figures, result.measures))
    assert shown["k-anonymity"] == "2" and shown["prosecutor risk (highest)"] == "50 %"
    # the threshold named where the share of records above it is shown
    assert shown["records at risk (prosecutor risk above 20 %)"] == \
        percent(result.measures['risk']['prosecutor']['records_at_risk']) == "100 %"


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


def test_what_the_design_view_offers_is_the_cores_by_source(tmp_path, data_dir):
    """Suggestions, noise, the report, the engine's note and the copied command's engine
    depend on where the source is evaluated: core says (the view asks ``DesignOffer``)."""
    from tklscore.core.release.session import REPORT_IN_MEMORY, SUGGEST_OUT_OF_CORE, DesignOffer
    from tklscore.core.source import EngineSource, MemorySource

    example = thesis_example()
    memory = MemorySource(example.source, example.roles)
    engine = EngineSource(data_dir / "thesis_table_3_1.csv", example.roles, "duckdb")
    assert DesignOffer.of(None) == DesignOffer.of(memory) == DesignOffer(None, None, True, None, None)
    offer = DesignOffer.of(engine, 1_000_000)
    assert offer.suggest_refused is None and offer.report_refused == REPORT_IN_MEMORY   # suggested over the aggregate
    assert offer.suggest_note == SUGGEST_OUT_OF_CORE and DesignOffer.of(memory).suggest_note is None
    assert offer.engine == "duckdb" and not offer.noise
    assert "This source (1,000,000 records) is larger than the memory share" in offer.note
    assert "evaluated by DuckDB reading the file" in offer.note
    assert "a source too large for memory" in DesignOffer.of(engine).note


def test_what_a_design_session_designs_over_or_what_is_missing():
    from tklscore.core.release.session import DesignSession, DesignSource, DesignState, design_source
    from tklscore.core.source import EngineSource, MemorySource
    from tklscore.core.tables.roles import Roles

    example = thesis_example()
    memory = MemorySource(example.source, example.roles)
    assert design_source(None, False, {}) == "Open a source table and choose its quasi-identifiers and " \
                                             "sensitive attributes."
    assert design_source(memory.with_roles(Roles(qi=["City"])), True, {}).startswith("Open a source table")
    engine = EngineSource("any.csv", example.roles, "duckdb")
    assert design_source(engine, False, {}) == "Reading the source out of core…"
    assert design_source(engine.with_roles(Roles(sa=["Disease"])), True, {}).startswith("Choose the quasi-identifiers")
    chosen = design_source(memory, True, {})
    assert isinstance(chosen, DesignSource) and chosen.source is memory and chosen.roles == example.roles
    assert chosen.title == "Designing the release" and not chosen.reports_progress
    outside = design_source(engine, True, {})
    assert outside.title == "Designing the release out of core" and outside.reports_progress
    # the session's designer is the source's (a stand-in source counts the asks)
    asked = []

    class Counted(MemorySource):
        def designer(self, hierarchies=None, elements=None, **options):
            asked.append(dict(hierarchies or {}))
            return super().designer(hierarchies, elements, **options)

    _, designer, design = _thesis_design({"City": 1})
    source = Counted(example.source, example.roles)
    session = DesignSession()
    first = session.evaluate(DesignSource(source, dict(designer.hierarchies)), design, example.weights)
    again = session.evaluate(DesignSource(source, dict(designer.hierarchies)), design, example.weights)
    assert len(asked) == 1 and first.result.report.scores == again.result.report.scores
    assert first.figures.k == 2
    # where noise is not offered (an engine), a noised column is published as it is
    state = DesignState(perturbed={"Age": ("noise", 10.0), "Disease": ("mean", 0.0), "City": ("mean", 0.0)})
    state.restrict(list(example.source.columns), example.roles, noise=False)
    assert state.perturbed == {"Disease": ("mean", 0.0)}   # and a QI is never perturbed
    state = DesignState(perturbed={"Age": ("noise", 10.0)})
    state.restrict(list(example.source.columns), example.roles)
    assert state.perturbed == {"Age": ("noise", 10.0)}


def test_the_histogram_of_d_bins_by_one_rule():
    """A record's bin is how many inner edges, as values of D, are ≤ its D (never through a
    logarithm: an engine's LOG10 differs from numpy's by an ulp); the edges are
    numpy.histogram's over log10 D, the range widened to the threshold."""
    from tklscore.core.risk.disclosure_risk import bin_bounds, bin_counts, disclosure_histogram, histogram_edges

    edges = histogram_edges(0.01, 0.36, 0.01)
    assert edges[0] == -2.0 and edges[-1] == pytest.approx(np.log10(0.36)) and len(edges) == 41
    bounds = bin_bounds(edges)
    assert bounds[19] == pytest.approx(0.06, rel=1e-15)   # the middle edge: 10 ** ((−2 + log10 0.36) / 2)
    assert bin_counts(np.array([bounds[19], np.nextafter(bounds[19], 0)]), bounds)[19:21].tolist() == [1, 1]
    drawn = disclosure_histogram(np.array([0.0, 0.01, 0.06, 0.36]), 0.01)
    assert drawn.zero == 1 and drawn.counts.sum() == 3 and drawn.counts[0] == 1 and drawn.counts[-1] == 1
    assert histogram_edges(0.5, 0.5, 0.0, 4).tolist() == pytest.approx(np.linspace(np.log10(0.5) - 0.5,
                                                                                   np.log10(0.5) + 0.5, 5).tolist())


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


def test_the_reciprocal_of_a_previewed_judgement_is_set_in_core():
    """The AHP view previews a slider's judgement through core.model.ahp.with_judgement."""
    from tklscore.core.model.ahp import with_judgement

    matrix = np.array([[1, 2, np.nan], [0.5, 1, 2], [np.nan, 0.5, 1]])
    previewed = with_judgement(matrix, 0, 2, 4)
    assert previewed[0, 2] == 4 and previewed[2, 0] == 0.25 and np.isnan(matrix[0, 2])  # a copy
    cleared = with_judgement(previewed, 0, 1, None)
    assert np.isnan(cleared[0, 1]) and np.isnan(cleared[1, 0])
    for bad in (0, -3, math.inf, math.nan, 10, 1e300):  # ahp.check_judgement, as every judgement
        with pytest.raises(InputError, match="is not positive|is not a finite number|outside Saaty's scale"):
            with_judgement(matrix, 0, 1, bad)
    import inspect

    import tklscore.gui.ahp.view as ahp_view
    source = inspect.getsource(ahp_view)
    assert "with_judgement(" in source and "1.0 / value" not in source


def test_the_riskiest_tenth_by_tkl():
    assert RISKIEST_SHARE == 0.10
    tkl = np.array([0.5, 3.0, 1.0, 2.0, 0.1] * 4)          # 20 records: the 2 highest
    mask = riskiest_mask(tkl)
    assert mask.dtype == bool and mask.sum() == 2 and set(tkl[mask]) == {3.0}
    assert riskiest_mask([1.0, 2.0, 0.5]).tolist() == [False, True, False]   # ceil(0.3) = 1: at least one
    assert riskiest_mask(np.arange(11.0)).sum() == 2                         # ceil(1.1) = 2
    assert riskiest_mask([]).tolist() == []
    assert riskiest_mask([1.0, 5.0, 3.0, 4.0], share=0.5).tolist() == [False, True, False, True]


def test_the_share_of_d_above_its_threshold():
    example = thesis_example()
    parameters = [AttributeParameters(a, 0.5, 0.5) for a in example.roles.qi + example.roles.sa]
    risk = disclosure_risk(example.source, parameters, example.weights, threshold=1.0)
    assert 0 < risk.above_threshold < risk.n
    assert risk.above_threshold_share == pytest.approx(risk.above_threshold / 7)
    assert share_above(3, 4) == 0.75 and share_above(0, 0) == 0.0


def test_the_verdict_bands_are_written_from_the_bands():
    assert bands_text() == "low ≤ 0.25 < moderate ≤ 0.50 < high ≤ 0.75 < very high"
    assert bands_text(percent=True) == "low ≤ 25 % < moderate ≤ 50 % < high ≤ 75 % < very high"
    assert f"({bands_text()})" in BANDS_NOTE
    for limit, level, _ in BANDS[:-1]:
        assert verdict(limit).level == level and verdict(limit + 1e-9).level != level


@pytest.fixture(scope="module")
def survey_analysis():
    original, pseudonymised = survey_example()
    return analyse(original, pseudonymised, "weight", ["sex", "age", "race", "height"],
                   ThresholdChoice(category_column="category", sensitive_flag_column="weight_sensitive"),
                   margin=5, id_column="id",
                   model=DataFlowModel.load(resource_path("pseudonymization/health_survey.json")))


def test_the_pseudonymisation_counts_its_people_once(survey_analysis):
    analysis = survey_analysis
    weights = survey_example()[0].frame["weight"]
    assert analysis.records == int((weights.astype(str).str.strip() != "").sum()) == 1103
    assert analysis.records == int(analysis.engine.present.sum())
    maximum = analysis.maximum
    assert analysis.share(maximum) == pytest.approx(maximum.violations / 1103)
    order = analysis.largest_first()
    assert order[0].qi_set == maximum.qi_set and len(order) == len(analysis.transitions)
    assert [len(t.qi_set) for t in order] == sorted((len(t.qi_set) for t in order), reverse=True)


def test_limits_are_judged_in_core_and_mark_the_lts(survey_analysis):
    analysis = survey_analysis
    assert analysis.blocked_reason(analysis.maximum.qi_set) is None
    try:
        analysis.apply_rules([BlockingRule.parse("IF violations > 0 THEN block")])
        refused = {t.qi_set for t in analysis.transitions if t.violations > 0}
        assert refused and all(analysis.blocked_reason(q) for q in refused)
        assert all(analysis.blocked_reason(t.qi_set) is None for t in analysis.transitions if not t.violations)
        edges = [d for _, _, d in analysis.lts.edges(data=True) if d["kind"] == "risk"]
        assert edges and any(d["blocked"] for d in edges)
        assert all(d["blocked"] == bool(d["reason"]) for d in edges)
    finally:
        analysis.apply_rules([])
    assert not any(blocked for blocked, _ in analysis.blocked.values())


def test_the_removal_s_excess_over_the_exact_minimum(survey_analysis):
    removal = survey_analysis.reports[survey_analysis.maximum.qi_set].removal
    assert removal.minimum is not None
    assert removal.heuristic_excess == removal.removed - removal.minimum >= 0
    assert removal.minimum_json()["heuristic_excess"] == removal.heuristic_excess


def test_the_thesis_example_s_hierarchies_live_with_the_example():
    source = thesis_example().source.frame
    labels = {h.column: [list(level) for level in h.labels(source[h.column])] for h in THESIS_HIERARCHIES}
    assert all(isinstance(h, Hierarchy) for h in THESIS_HIERARCHIES)
    assert labels["City"][1] == ["Alberta"] * 7 and labels["Gender"][1] == ["Person"] * 7
    assert labels["Job"][1] == ["Legal"] * 7
    assert labels["Age"][1:3] == [["[20, 30)", "[10, 20)", "[20, 30)", "[40, 50)", "[70, 80)", "[20, 30)", "[20, 30)"],
                                  ["[0, 30)", "[0, 30)", "[0, 30)", "[30, 60)", "[60, 90)", "[0, 30)", "[0, 30)"]]
    assert all(level == ["*"] * 7 for level in (column[-1] for column in labels.values()))


def test_what_is_worked_out_from_a_patient_s_record():
    pia = {name: resource_path(f"pia/{name}") for name in ("bob_ontology.ttl", "bob_data.ttl", "bob.rules",
                                                           "bob_patterns.csv")}
    run = analyze_files(pia["bob_ontology.ttl"], pia["bob_data.ttl"], pia["bob.rules"], pia["bob_patterns.csv"],
                        "Medium", method="efficient")
    worked_out = run.worked_out()
    assert [str(t) for t in worked_out] == ["(Bob, ISA, Person)", "(Bob, likelyHas, Hepatitis-C)",
                                            "(Bob, treatedBy, Person)", "(Bob, treatedBy, Physician)",
                                            "(Leonard, ISA, Person)"]
    knowledge = Reasoner(run.rules).materialize(run.ontology).triples()
    closure = set(run.assessment.closure.triples())
    assert all(t in closure and t not in knowledge and t not in set(run.data) for t in worked_out)
    assert {v.triple for v in run.assessment.violations} <= set(worked_out)


def test_a_student_s_recipe_from_the_columns_set_up():
    recipe = tasks.recipe_from_columns([
        ("name", "id", tasks.REMOVE, ""), ("age", "qid", tasks.GENERALISE, " 10 "),
        ("city", "qid", tasks.GENERALISE, "Calgary,Edmonton->Alberta; Paris->France"),
        ("salary", "nonsensitive", tasks.NOISE, "12.5"), ("hobby", "", tasks.REMOVE, ""),
        ("job", "sensitive", tasks.KEEP, "")], join_rule="A.id = B.id")
    assert recipe == tasks.Recipe(qi=("age", "city"), sensitive="job", identifiers=("name",),
                                  intervals=(("age", 10),), rules=(("city", "Calgary,Edmonton->Alberta\nParis->France"),),
                                  noise=(("salary", 12.5),), removed=("hobby",), join_rule="A.id = B.id")
    for columns, message in (
            ([("name", "id", tasks.KEEP, "")], "name is an ID: identifiers are always removed; set its action to "
                                                "'Remove column'"),
            ([("age", "qid", tasks.GENERALISE, "")], "age: type an interval size"),
            ([("age", "qid", tasks.GENERALISE, "0")], "age: the interval size must be a positive whole number"),
            ([("salary", "", tasks.NOISE, "ten")], "salary: type the noise ε as a percentage"),
            ([("salary", "", tasks.NOISE, "100")], "salary: the noise ε must lie between 0 and 100 %"),
            ([("a", "sensitive", tasks.KEEP, ""), ("b", "sensitive", tasks.KEEP, "")],
             "Mark only one column as Sensitive \\(you marked a, b\\)")):
        with pytest.raises(InputError, match=message):
            tasks.recipe_from_columns(columns)


def test_the_learn_statistics_count_groups_in_core():
    task = tasks.task(6)
    applied = tasks.apply(task.recipe, tasks.source_table(task))
    distinct = applied.groups["distinct"]
    assert applied.single_valued_groups == int((distinct == 1).sum()) > 0
    assert applied.most_distinct == int(distinct.max()) >= applied.measures.models.l_distinct
    answers = tasks.answers(task)
    assert (answers["single_valued_groups"], answers["most_distinct"]) == (applied.single_valued_groups,
                                                                             applied.most_distinct)
    four = tasks.task(4)
    applied = tasks.apply(four.recipe, tasks.source_table(four))
    assert applied.most_persons == int(applied.groups["persons"].max()) == tasks.answers(four)["most_persons"]


def test_a_d_r_parameter_as_typed():
    assert parameter_value("0.5") == 0.5 and parameter_value(" 1 ") == 1.0 and parameter_value("0") == 0.0
    for bad in ("2", "-0.1", "nan", "inf", "abc", ""):
        with pytest.raises(InputError, match=r"is not a number in \[0, 1\]"):
            parameter_value(bad)


def test_why_qi_importance_is_not_measured():
    assert qi_importance_skipped(QI_IMPORTANCE_MAX) is None and qi_importance_skipped(1) is None
    assert qi_importance_skipped(9) == ("Not computed: QI importance measures every subset of the quasi-identifiers, "
                                        "and 9 of them have 511 subsets (at most 8 quasi-identifiers are measured).")


def test_a_designed_release_made_current_is_the_design_being_built():
    from tklscore.core.release.selection import ReleaseDefinition
    from tklscore.core.release.session import DESIGNED, take_up_designed
    from tklscore.core.release.transform import ReleaseDesign

    scenario = ReleaseDefinition("Scenario 1", "ids", ids=("1", "2", "3"))
    alberta = ReleaseDesign("Alberta", {"City": 1, "Age": 2}, suppress_below=2, suppression_limit=0.5,
                            removed={"Medication"}, selection=scenario)
    project = Project(builtin="thesis", releases=[scenario], current_release="Scenario 1",
                      settings={"design": {"saved": [alberta.to_dict()]}})
    assert not take_up_designed(project) and "current" not in project.settings["design"]   # a defined release
    with pytest.raises(InputError, match="no release named 'Edmonton'"):
        project.make_current("Edmonton")
    project.make_current("Alberta")                  # as the Release chooser makes it current
    assert project.current_release == "Alberta"
    current = ReleaseDesign.from_dict(project.settings["design"]["current"])
    assert current == ReleaseDesign(DESIGNED, {"City": 1, "Age": 2}, 2, 0.5, {"Medication"}, selection=scenario)
    assert [h["column"] for h in project.settings["design"]["hierarchies"]] == [h.column for h in THESIS_HIERARCHIES]
