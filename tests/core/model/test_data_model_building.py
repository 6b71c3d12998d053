"""A tkl-Data Model for any table (issue 20 §1, §2; data-model.md §1-3, §6): the shipped DPV 2.3
vocabulary, class suggestions, bins, a new model from the source with default labels marked
not yet judged, following the table, checking a model against a table, judging a group from a
matrix — on UCI Adult as the expert would, and the bad input of each step."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import adult_model
from tklscore.core.errors import InputError
from tklscore.core.examples import THESIS_ROLES, thesis_example
from tklscore.core.files.resources import resource_path
from tklscore.core.model.bins import (bins_from_edges, check_bins, parse_edges, quantile_bins, round_number_bins,
                                      round_width, uncovered)
from tklscore.core.model.class_suggestions import suggest_class, suggested_local_name
from tklscore.core.model.data_model import Kind, TklDataModel
from tklscore.core.model.data_model.building import new_model, source_name
from tklscore.core.model.data_model.check import check_model
from tklscore.core.model.data_model.derivation import criterion_effects
from tklscore.core.model.data_model.table_sync import edit_bin, follow_table, set_bins
from tklscore.core.model.vocabulary import DPV, DPV_PD, SHIPPED, Vocabulary
from tklscore.core.release.selection import ReleaseDefinition, resolve_release
from tklscore.core.scoring.scores import Scorer
from tklscore.core.tables.loading import Table, load_table
from tklscore.core.tables.roles import Roles

PD = DPV_PD


@pytest.fixture(scope="module")
def adult(data_dir):
    return load_table(data_dir / "adult" / "adult.csv")


@pytest.fixture(scope="module")
def subset(data_dir):
    return load_table(data_dir / "adult" / "adult_subset.csv")


@pytest.fixture(scope="module")
def dpv():
    return Vocabulary.shipped("dpv-2.3")


@pytest.fixture(scope="module")
def expert_model(adult, dpv):
    return adult_model.build(adult, dpv)


# ---------------------------------------------------------------------- the shipped vocabulary


def test_dpv_2_3_is_shipped_unmodified_with_the_w3c_notice(data_dir, dpv):
    for shipped, original in (("dpv/dpv-2.3-pd.ttl", "dpv/2.3/pd/pd.ttl"),
                              ("dpv/dpv-2.3-personal_data.ttl", "dpv/2.3/dpv/modules/personal_data.ttl")):
        assert resource_path(shipped).read_bytes() == (data_dir / original).read_bytes()
    notice = resource_path("dpv/README.md").read_text(encoding="utf-8")
    assert "https://www.w3.org/copyright/software-license-2023/" in notice and "Changes: none" in notice
    assert "Copyright ©" in notice and "World Wide Web Consortium" in notice
    assert "W3C Software and Document" in resource_path("dpv/LICENSE.md").read_text(encoding="utf-8")
    assert set(SHIPPED) == {"thesis", "dpv-2.3"}
    assert dpv.default_root == DPV + "PersonalData" and len(dpv) >= 260
    # classes by prefix:name, by local name (the label is the DPV prefLabel), by full IRI
    assert dpv.resolve("pd:Job") == dpv.resolve("dpv-pd:Job") == dpv.resolve("Job") == PD + "Job"
    assert dpv.resolve("dpv:PersonalData") == DPV + "PersonalData"
    assert dpv.label(PD + "MaritalStatus") == "Marital Status" and dpv.short(PD + "Income") == "pd:Income"
    with pytest.raises(InputError, match=r"no class pd:Jobb .*did you mean Job"):
        dpv.resolve("pd:Jobb")
    # the thesis' taxonomy stays choosable, its classes as dpv:Health
    thesis = Vocabulary.shipped("thesis")
    assert len(thesis) == 9 and thesis.resolve("dpv:Health") == "http://www.w3.org/ns/dpv#Health"


def test_a_vocabulary_file_keeps_its_own_prefixes(tmp_path):
    path = tmp_path / "mini.ttl"
    path.write_text("@prefix ex: <https://example.org/cat#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                    "ex:Top a rdfs:Class .\nex:Pay rdfs:subClassOf ex:Top .\n", encoding="utf-8")
    vocabulary = Vocabulary.named(str(path))
    assert vocabulary.resolve("ex:Pay") == "https://example.org/cat#Pay" and vocabulary.key is None


# ---------------------------------------------------------------------- suggestions


@pytest.mark.parametrize("column, expected", [
    ("occupation", "Job"), ("salary-class", "Salary"), ("income", "Income"), ("native-country", "Nationality"),
    ("NativeCountry", "Nationality"), ("marital_status", "MaritalStatus"), ("age", "Age"), ("sex", "Gender"),
    ("race", "Race"), ("education", "Education"), ("workclass", "CurrentEmployment"), ("diagnosis", "Health"),
    ("Initial Diagnosis", "HealthRecord"), ("Medication", "Prescription"), ("zip", "PostalCode"),
])
def test_class_suggested_from_the_column_name(column, expected, dpv):
    suggestion = suggest_class(column, [], dpv)
    assert suggestion.iri == PD + expected and "column name" in suggestion.reason


@pytest.mark.parametrize("values, expected, what", [
    (["<=50K", ">50K"], "IncomeBracket", "income brackets"), (["Male", "Female"], "Gender", "sexes"),
    (["Flu", "HIV", "Hypertension", "Migraine"], "Health", "diseases"), (["J45.9", "E11", "I10"], "Health", "ICD-10"),
    (["United-States", "Mexico", "Philippines"], "Country", "country names"),
    (["Tamiflu", "Statin", "ARV"], "Prescription", "medicines"),
    (["Exec-managerial", "Craft-repair", "Sales"], "Job", "occupations"),
])
def test_class_suggested_from_the_values(values, expected, what, dpv):
    suggestion = suggest_class("col7", values, dpv)
    assert suggestion.iri == PD + expected and what in suggestion.reason


def test_no_suggestion_says_why_and_a_small_vocabulary_gets_the_broader_class():
    thesis = Vocabulary.shipped("thesis")
    assert not suggest_class("x", ["a", "b"], Vocabulary.shipped("dpv-2.3"))
    sex = suggest_class("sex", [], thesis)
    assert sex.label == "PhysicalCharacteristic" and "no Gender, its broader class" in sex.reason
    job = suggest_class("occupation", [], thesis)
    assert job.iri is None and "has no class Job" in job.reason and "open DPV 2.3" in job.reason
    assert suggested_local_name("Disease") == ("Health", "the column name 'Disease' reads as health or diagnosis "
                                                         "('disease*')")


# ---------------------------------------------------------------------- bins


def test_quantile_and_round_number_bins_of_adult_age(adult):
    age = adult.numeric("age")
    assert quantile_bins(age) == ["[0,28)", "[28,37)", "[37,47)", "[47,inf)"]
    counts = [np.count_nonzero((age >= lo) & (age < hi)) for lo, hi in ((0, 28), (28, 37), (37, 47), (47, 1e9))]
    assert sum(counts) == len(adult) and max(counts) / min(counts) < 1.3   # about a quarter each
    assert round_width(age) == 20 and round_number_bins(age) == ["[0,20)", "[20,40)", "[40,60)", "[60,80)",
                                                                 "[80,inf)"]
    assert round_number_bins(age, 25) == ["[0,25)", "[25,50)", "[50,75)", "[75,inf)"]
    assert round_number_bins([-3.2, 5, 17.5]) == ["(-inf,0)", "[0,5)", "[5,10)", "[10,15)", "[15,inf)"]
    assert bins_from_edges(parse_edges("0:30:inf")) == ["[0,30)", "[30,inf)"]
    assert bins_from_edges(parse_edges("0, 30, 90")) == ["[0,30)", "[30,90]"]
    for bins in (quantile_bins(age), round_number_bins(age), quantile_bins(age, 7)):
        assert uncovered(check_bins(bins, "age"), age) is None


@pytest.mark.parametrize("bins, message", [
    (["[0,30)", "[20,inf)"], r"column 'age': bins \[0,30\) and \[20,inf\) overlap.*e\.g\. \[0,20\)"),
    (["[0,30)", "[40,inf)"], r"leave a gap: values from 30 to 40 fall in no bin.*\[30,inf\)"),
    (["[0,30)", "(30,inf)"], r"leave a gap: the value 30 falls in no bin"),
    (["[30,20)"], r"bin \[30,20\) is empty"),
    (["young"], r"'young' is not a bin such as \[0,30\)"),
    ([], r"needs at least one bin"),
])
def test_bins_that_overlap_or_leave_gaps_are_refused_by_name(bins, message):
    with pytest.raises(InputError, match=message):
        check_bins(bins, "age")


def test_bad_edges():
    with pytest.raises(InputError, match="bin edge 'thirty' of 'age' is not a number"):
        parse_edges("0:thirty:inf", "age")
    with pytest.raises(InputError, match="must increase: 30 is followed by 20"):
        parse_edges("0:30:20", "age")


def test_values_outside_the_bins_are_counted(adult):
    assert uncovered(check_bins(["[20,40)", "[40,inf)"], "age"), adult.numeric("age")) == (1369, 17.0, 19.0)
    # from the column's distinct numbers and their counts (kept by the table): the same
    assert uncovered(check_bins(["[20,40)", "[40,inf)"], "age"), *adult.numeric_counts("age")) == (1369, 17.0, 19.0)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(-50, 50) | st.floats(-60, 60, allow_nan=False), min_size=1, max_size=60),
       edges=st.lists(st.integers(-40, 40), min_size=1, max_size=5, unique=True),
       closed_right=st.booleans())
def test_uncovered_from_distinct_numbers_equals_uncovered_from_every_value(values, edges, closed_right):
    edges = sorted(edges)
    bins = [f"[{low},{high})" for low, high in zip(edges, edges[1:])] + [f"[{edges[-1]},60{']' if closed_right else ')'}"]
    intervals = check_bins(bins, "v")
    numbers = np.asarray(values, dtype=np.float64)
    assert uncovered(intervals, *np.unique(numbers, return_counts=True)) == uncovered(intervals, numbers)


# ---------------------------------------------------------------------- a new model from the source


def test_new_model_of_adult_from_the_suggestions(adult, dpv):
    roles = Roles(sa=["occupation", "salary-class", "native-country", "age"], continuous=["age"])
    built = new_model(adult, roles, dpv)
    model = built.model
    assert model.source == "adult.csv" and model.vocabulary == "dpv-2.3"
    assert model.namespace == "https://tklscore.org/tables/adult#"
    assert built.suggested == ["occupation", "salary-class", "native-country", "age"] and not built.unaligned
    assert {c: model.nodes[model.attribute(c).parent].label for c in model.columns} == {
        "occupation": "Job", "salary-class": "Salary", "native-country": "Nationality", "age": "Age"}
    assert model.suggested_alignments() == ["occupation", "salary-class", "native-country", "age"]
    assert model.root == DPV + "PersonalData"
    # §1 naming, the values of the table, the bins; every first-level value labelled "normal", not yet judged
    assert model.attribute("native-country").label == "A.native-country"
    assert len(model.values_of("occupation")) == 14 and len(model.values_of("native-country")) == 41
    assert [n.label for n in model.values_of("age")] == ["V.LT-28", "V.GEQ-28-LT-37", "V.GEQ-37-LT-47", "V.GEQ-47"]
    assert model.find("V.Exec-managerial").value == "Exec-managerial"
    values = [n for n in model.nodes.values() if n.kind == Kind.VALUE]
    assert len(values) == 14 + 2 + 41 + 4 and all(n.qualitative == "normal" and n.provisional for n in values)
    assert len(model.unjudged()) == 61 and not model.unlabelled()
    # the defaults give weights already; the groups need judgements
    assert [model.nodes[p].label for p in model.groups()] == ["Personal Data", "External", "Professional"]
    assert model.problems() == [
        "the criteria group under Personal Data (External, Social) needs pairwise judgements",
        "the criteria group under External (Nationality, Physical Characteristic) needs pairwise judgements",
        "the criteria group under Professional (Job, Salary) needs pairwise judgements"]
    assert check_model(model, adult) == []


def test_new_model_keeps_values_of_two_columns_apart_and_takes_the_experts_choices():
    example = thesis_example()
    thesis = Vocabulary.shipped("thesis")
    built = new_model(example.source, THESIS_ROLES, thesis,
                      {"Disease": "dpv:Health", "Initial Diagnosis": "HealthRecord"}, {"Age": ["[0,30)", "[30,inf)"]},
                      keep_parent={"MedicalHealth": "SpecialCategoryPersonalData"},
                      labels={"Disease:HIV": "very restricted", "V.ARV": "restricted"})
    model = built.model
    # Flu is a value of Disease and of Initial Diagnosis: V-0.Flu and V-1.Flu (data-model.md §1)
    assert model.find("V-0.Flu").column == "Disease" and model.find("V-1.Flu").column == "Initial Diagnosis"
    assert [n.label for n in model.values_of("Age")] == ["V.LT-30", "V.GEQ-30"]
    assert built.suggested == ["Medication", "Age"]          # the others were the expert's
    assert model.suggested_alignments() == ["Medication", "Age"]
    assert not model.attribute("Disease").provisional
    assert model.nodes[model.find("MedicalHealth").iri].parent == model.find("SpecialCategoryPersonalData").iri
    hiv = model.find("V-0.HIV")
    assert (hiv.qualitative, hiv.provisional) == ("very restricted", False)
    assert (model.find("V-1.HIV").qualitative, model.find("V-1.HIV").provisional) == ("normal", True)


def test_the_model_file_keeps_what_is_not_yet_judged(tmp_path, adult, dpv):
    model = new_model(adult, Roles(sa=["occupation", "age"], continuous=["age"]), dpv, {"age": "pd:Age"}).model
    model.set_label(model.find("V.Sales").iri, "low")
    path = tmp_path / "m.ttl"
    model.save(path)
    again = TklDataModel.load(path)
    assert again.state() == model.state()
    assert again.source == "adult.csv" and again.vocabulary == "dpv-2.3"
    assert again.suggested_alignments() == ["occupation"] and len(again.unjudged()) == 13 + 4


def test_new_model_bad_input(adult, dpv, tmp_path):
    with pytest.raises(InputError, match="choose the sensitive columns first"):
        new_model(adult, Roles(qi=["sex"]), dpv)
    with pytest.raises(InputError, match=r"column 'occupation': no class pd:Jobs .*did you mean Job"):
        new_model(adult, Roles(sa=["occupation"]), dpv, {"occupation": "pd:Jobs"})
    with pytest.raises(InputError, match="'sex' is aligned with pd:Gender but is not a sensitive column"):
        new_model(adult, Roles(sa=["occupation"]), dpv, {"sex": "pd:Gender"})
    with pytest.raises(InputError, match="no sensitive column has a class.*has no class Job"):
        new_model(adult, Roles(sa=["occupation"]), Vocabulary.shipped("thesis"))
    with pytest.raises(InputError, match=r"column 'age': bins \[0,30\) and \[20,inf\) overlap"):
        new_model(adult, Roles(sa=["age"], continuous=["age"]), dpv, bins={"age": ["[0,30)", "[20,inf)"]})
    with pytest.raises(InputError, match="'low-ish' is not a label of the scale"):
        new_model(adult, Roles(sa=["occupation"]), dpv, labels={"occupation:Sales": "low-ish"})
    with pytest.raises(InputError, match="column 'occupation' has no value 'Astronaut' in the model"):
        new_model(adult, Roles(sa=["occupation"]), dpv, labels={"occupation:Astronaut": "low"})
    bad = tmp_path / "not-rdf.ttl"
    bad.write_text("this is not Turtle {", encoding="utf-8")
    with pytest.raises(InputError, match="not-rdf.ttl"):
        Vocabulary.named(str(bad))


# ---------------------------------------------------------------------- judging


def test_a_group_judged_from_a_matrix_in_any_order(expert_model):
    model = expert_model.copy()
    root = model.find("Personal Data").iri
    model.set_judgements(root, ["Tracking", "External", "Social"],
                         [[1, 1 / 2, 1 / 5], [2, 1, 1 / 3], [5, 3, 1]])
    assert model.state() == expert_model.state()
    result = model.derive().groups[root]
    assert result.cr <= 0.10
    for wrong, message in (
            ((["External", "Social"], [[1, 2], [1 / 2, 1]]), "compares 2 criteria, but the criteria group under "
                                                             "'Personal Data' has 3"),
            ((["External", "Social", "Money"], np.ones((3, 3))), "'Money' is not a criterion.*External, Social"),
            ((["External", "Social", "Tracking"], np.full((3, 3), np.nan)), "holds no judgement")):
        with pytest.raises(InputError, match=message):
            model.set_judgements(root, *wrong)
    assert model.state() == expert_model.state()
    with pytest.raises(InputError, match="a group of one needs no judgements"):
        model.set_judgements(model.find("Job").iri, ["A.occupation"], [[1]])


# ---------------------------------------------------------------------- the expert's model, end to end


def test_adult_expert_model_aligned_judged_labelled_and_scored(expert_model, adult, tmp_path):
    model = expert_model
    for column in model.columns:   # every sensitive column aligned with a DPV 2.x class, as the expert chose
        assert model.attribute(column).parent.startswith(PD) and not model.attribute(column).provisional
    derived = model.derive()
    assert {model.nodes[p].label for p in derived.groups} == {"Personal Data", "Professional"}
    assert all(result.cr <= 0.10 for result in derived.groups.values())
    assert not model.unjudged() and not model.unlabelled() and not derived.problems
    weights = {(a, v): w for a, v, w in model.weight_triples()}
    assert len(weights) == 14 + 2 + 41 + 3
    # weight(v) = label × Π priorities on the path (§3): Armed-Forces = 1.0 × p(Job) × p(Social)
    p = derived.priorities
    assert weights[("occupation", "Armed-Forces")] == pytest.approx(1.0 * p[model.find("Job").iri]
                                                                    * p[model.find("Social").iri], abs=1e-12)
    assert weights[("native-country", "United-States")] == pytest.approx(0.2 * p[model.find("Tracking").iri])
    # saved, reopened by the officer: the same weights, and a release scored with them
    path = tmp_path / "adult-model.ttl"
    model.save(path)
    officer = TklDataModel.load(path)
    assert officer.weight_triples() == model.weight_triples()
    roles = adult_model.ROLES
    release = resolve_release(ReleaseDefinition("first half", "ids", ids=tuple(str(i) for i in range(0, 30162, 2))),
                              adult, roles)
    report = Scorer(adult, roles).score(release, officer.to_weights(), 1.0)
    assert report.published_rows == 15081 and 0 < report.scores.tkl < report.published_rows
    assert check_model(officer, adult, roles.sa, roles.continuous) == []


def test_the_effect_of_a_criteria_groups_priorities_on_the_weights(expert_model):
    """What the AHP view shows beside each criterion: the sensitive columns below it and its
    weight factor — the weight a value below it labelled at the top of the scale gets."""
    model = expert_model
    derived = model.derive()
    weights = {(a, v): w for a, v, w in model.weight_triples()}
    top = model.find("Personal Data").iri
    effects = criterion_effects(model, top, derived.groups[top].priorities)
    assert [(e.label, e.columns) for e in effects] == [("External", ("age",)),
                                                       ("Social", ("occupation", "salary-class")),
                                                       ("Tracking", ("native-country",))]
    assert [e.factor for e in effects] == pytest.approx(list(derived.groups[top].priorities), abs=1e-15)
    professional = model.find("Professional").iri
    job, salary = criterion_effects(model, professional, derived.groups[professional].priorities)
    assert job.factor == pytest.approx(weights[("occupation", "Armed-Forces")], abs=1e-15)       # very restricted: 1.0
    assert salary.factor * 0.8 == pytest.approx(weights[("salary-class", ">50K")], abs=1e-15)    # restricted: 0.8
    # a previewed judgement's priorities (Job = Salary) carry the Social priority above them
    social = derived.priorities[model.find("Social").iri]
    assert [e.factor for e in criterion_effects(model, professional, [0.5, 0.5])] == pytest.approx([social / 2] * 2)
    # a group above not judged yet: no factor
    unjudged = model.copy()
    unjudged.judgements.pop(top)
    assert all(math.isnan(e.factor) for e in criterion_effects(unjudged, professional, [0.5, 0.5]))


# ---------------------------------------------------------------------- following the table (§6)


def test_following_new_and_removed_sensitive_columns_keeps_what_applies(expert_model, adult, dpv):
    model = expert_model.copy()
    professional = model.find("Professional").iri
    kept = dict(model.judgements[professional])
    labels = {n.iri: n.qualitative for n in model.values_of("occupation")}
    roles = Roles(sa=["occupation", "salary-class", "race", "age"], continuous=["age"])
    changes = follow_table(model, adult, roles, dpv)
    assert changes.added_attributes == ["race"] and changes.removed_attributes == ["native-country"]
    assert changes.aligned == {"race": "Race"}
    assert model.attribute("race").provisional and len(model.values_of("race")) == 5
    assert all(n.qualitative == "normal" and n.provisional for n in model.values_of("race"))
    assert ("race", "White") in changes.added_values and not changes.dropped_values
    # Professional's judgements and the occupation labels still apply: kept
    assert model.judgements[professional] == kept
    assert {n.iri: n.qualitative for n in model.values_of("occupation")} == labels
    assert "Tracking" not in {n.label for n in model.nodes.values()}    # no column below it any more
    # the root's group changed (Tracking left, External gained Race beside Age): it needs judgements again
    assert "Personal Data" in changes.needs_judgement or "External" in changes.needs_judgement
    lines = "\n".join(changes.lines())
    assert "new sensitive column race, aligned with Race (suggested)" in lines
    assert "column native-country is no longer sensitive" in lines
    # nothing new: nothing changes
    again = follow_table(model, adult, roles, dpv)
    assert not again.changed


def test_following_values_that_appear_or_vanish(expert_model, adult, subset, dpv):
    model = expert_model.copy()
    changes = follow_table(model, subset, adult_model.ROLES, dpv)   # the subset lacks a few values
    assert sorted(changes.dropped_values) == [("native-country", "Cambodia", "moderate"),
                                              ("native-country", "Hungary", "moderate"),
                                              ("native-country", "Yugoslavia", "moderate"),
                                              ("occupation", "Armed-Forces", "very restricted")]
    assert "4 value(s)" not in "\n".join(changes.lines())   # listed per column
    assert "3 value(s) of native-country no longer in the table were dropped" in "\n".join(changes.lines())
    back = follow_table(model, adult, adult_model.ROLES, dpv)        # they come back: default label, not judged
    assert sorted(back.added_values) == [("native-country", "Cambodia"), ("native-country", "Hungary"),
                                         ("native-country", "Yugoslavia"), ("occupation", "Armed-Forces")]
    assert model.find("V.Armed-Forces").qualitative == "normal" and model.find("V.Armed-Forces").provisional
    assert model.judgements == expert_model.judgements   # every judgement kept throughout


def test_following_a_change_of_bins_and_of_kind(expert_model, adult, dpv):
    model = expert_model.copy()
    changes = follow_table(model, adult, adult_model.ROLES, dpv, bins={"age": ["[0,30)", "[30,40)", "[40,50)",
                                                                               "[50,inf)"]})
    (rebinned,) = changes.rebinned
    assert rebinned.kept == ["[0,30)", "[50,inf)"] and rebinned.added == ["[30,40)", "[40,50)"]
    assert rebinned.removed == [("[30,50)", "low")]
    bins = {n.value: (n.qualitative, n.provisional) for n in model.values_of("age")}
    assert bins == {"[0,30)": ("normal", False), "[30,40)": ("low", True), "[40,50)": ("low", True),
                    "[50,inf)": ("moderate", False)}
    categorical = Roles(sa=adult_model.SA + ("age",))
    changes = follow_table(model, adult, categorical, dpv)
    assert changes.kind_changed == ["age"] and not model.attribute("age").continuous
    assert len(model.values_of("age")) == 72 and model.attribute("age").parent == model.find("Age").iri


def test_bins_edited_in_place_keep_their_label_and_move_the_shared_edge(expert_model):
    model = expert_model.copy()
    changes = edit_bin(model, model.nodes.value_of("age", "[0,30)"), "[0,25)")
    assert changes.kept == ["[50,inf)"] and changes.added == ["[0,25)", "[25,50)"]
    assert [(n.label, n.value, n.qualitative, n.provisional) for n in model.values_of("age")] == [
        ("V.LT-25", "[0,25)", "normal", False), ("V.GEQ-25-LT-50", "[25,50)", "low", False),
        ("V.GEQ-50", "[50,inf)", "moderate", False)]


def test_bad_bin_edits_change_nothing(expert_model):
    model = expert_model.copy()
    before = model.state()
    with pytest.raises(InputError, match=r"bins \[0,60\) and \[30,50\) overlap"):
        edit_bin(model, model.nodes.value_of("age", "[0,30)"), "[0,60)")
    with pytest.raises(InputError, match=r"'\[0,' is not a bin"):
        edit_bin(model, model.nodes.value_of("age", "[0,30)"), "[0,")
    with pytest.raises(InputError, match="'occupation' is not continuous"):
        set_bins(model, "occupation", ["[0,1)"])
    with pytest.raises(InputError, match=r"bins \[0,30\) and \[40,inf\) leave a gap"):
        set_bins(model, "age", ["[0,30)", "[40,inf)"])
    assert model.state() == before


# ---------------------------------------------------------------------- a model checked against a table


def test_a_model_checked_against_another_table(expert_model, subset, adult):
    found = check_model(expert_model, subset)
    assert [(m.column, m.kind, m.blocking) for m in found] == [
        ("occupation", "values not in the table", False), ("native-country", "values not in the table", False)]
    assert "'Armed-Forces'" in found[0].message
    found = check_model(expert_model, adult, ["occupation", "sex", "age"], {"age"})
    assert [(m.column, m.kind, m.blocking) for m in found] == [
        ("salary-class", "not sensitive", False), ("native-country", "not sensitive", False),
        ("sex", "no attribute", True)]
    found = check_model(expert_model, adult, ["occupation", "age"], set())
    assert [(m.column, m.kind) for m in found] == [("salary-class", "not sensitive"),
                                                   ("native-country", "not sensitive"), ("age", "continuous")]
    narrow = expert_model.copy()
    set_bins(narrow, "age", ["[20,40)", "[40,inf)"])
    (outside,) = check_model(narrow, adult)
    assert (outside.column, outside.kind, outside.blocking) == ("age", "values in no bin", True)
    assert outside.message == "1,369 value(s) from 17 to 19 fall in no bin of the model: they have no weight"
    other = Table.from_frame(adult.frame.head(200).assign(occupation="Astronaut"), name="other.csv")
    (first, *_rest) = [m for m in check_model(expert_model, other) if m.column == "occupation"]
    assert first.kind == "values without a node" and first.blocking and "'Astronaut'" in first.message
    assert check_model(expert_model, None, columns=["occupation"])[0].kind == "missing column"


def test_source_name_is_the_file_name(adult):
    assert source_name(adult) == "adult.csv" and Path(adult.name).name == "adult.csv"
    assert math.isfinite(len(adult))
