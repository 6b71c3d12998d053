"""Learn mode's tasks and quiz: answers equal what `release` and `measures` compute; the quiz
marks right answers right and wrong ones wrong for every template."""

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from helpers import run_cli
from tklscore.core.errors import InputError
from tklscore.core.learn import datasets, questions, quiz, tasks
from tklscore.core.release.hierarchy import Hierarchy


def cli_release_and_measures(capsys, tmp_path, task):
    """Run the task's recipe through `tklscore release`, then `tklscore measures` on what it wrote."""
    recipe = task.recipe
    source = tmp_path / "source.csv"
    table = tasks.source_table(task)
    table.to_csv(source, index=False)
    weights = tmp_path / "weights.csv"
    datasets.weights_frame([recipe.sensitive]).to_csv(weights, index=False)
    continuous = list(tasks.continuous(recipe, table))
    argv = ["release", str(source), "--qi", ",".join(recipe.qi), "--sa", recipe.sensitive,
            "--weights", str(weights), "--format", "json", "--output", str(tmp_path / "release.csv")]
    if continuous:
        argv += ["--continuous", ",".join(continuous)]
    if recipe.suppress_below:
        argv += ["--suppress-below", str(recipe.suppress_below),
                 "--suppression-limit", str(recipe.suppression_limit)]
    for column, epsilon in recipe.noise:
        argv += ["--noise", f"{column}={epsilon:g}"]
    for column, hierarchy in tasks.hierarchies(recipe).items():
        path = tmp_path / f"{column}.csv"
        hierarchy.save_arx_csv(path, table[column].astype(str).unique())
        argv += ["--hierarchy", f"{column}={path}"]
    argv += ["--levels", ",".join(f"{c}=1" for c in tasks.hierarchies(recipe))]
    if recipe.removed:
        argv += ["--remove", ",".join(recipe.removed)]
    code, out, err = run_cli(capsys, argv)
    assert code == 0, err
    released = json.loads(out)
    measured = ["measures", str(tmp_path / "release.csv"), "--qi", ",".join(recipe.qi), "--sa", recipe.sensitive,
                "--format", "json"]
    if recipe.identifiers:
        measured += ["--identifier-columns", ",".join(recipe.identifiers)]
    if continuous:
        measured += ["--continuous", ",".join(continuous)]
    code, out, err = run_cli(capsys, measured)
    assert code == 0, err
    return released, json.loads(out)


@pytest.mark.parametrize("number", range(1, len(tasks.TASKS) + 1))
def test_task_answers_equal_release_then_measures(capsys, tmp_path, number):
    task = tasks.task(number)
    answers = tasks.answers(task)
    released, measured = cli_release_and_measures(capsys, tmp_path, task)
    assert answers["suppressed_rows"] == released["suppressed_rows"]
    assert answers["published_rows"] == released["published_rows"]
    assert answers["utility"] == pytest.approx(released["utility"], rel=1e-12)
    assert answers["scores"] == pytest.approx(released["scores"], rel=1e-12)
    assert answers["normalized"] == pytest.approx(released["normalized"]["source"], rel=1e-12)
    assert answers["k"] == measured["k"]
    assert answers["groups"] == measured["classes"]["count"]
    assert answers["smallest_group"] == measured["classes"]["min"]
    assert answers["largest_group"] == measured["classes"]["max"]
    if "xy_k" in answers:
        assert answers["xy_k"] == measured["xy_anonymity"]
    if "l_distinct" in answers:
        assert answers["l_distinct"] == measured["l_distinct"]
        assert answers["l_entropy"] == pytest.approx(measured["l_entropy"], abs=1e-12)
    if "t" in answers:
        assert answers["t"] == pytest.approx(measured["t"], abs=1e-12)


def test_shipped_tables_teach_what_the_tasks_say():
    a = {t.number: tasks.answers(t) for t in tasks.TASKS}
    assert a[1]["k"] == 2 and a[2]["k"] > a[1]["k"]              # generalising gender raises k
    assert a[3]["k"] == 2                                        # task 3 with gender generalised (the key's 2)
    without_gender = tasks.apply(tasks.R, tasks.source_table(tasks.task(3)))
    assert without_gender.measures.k == 1                        # ... and 1 with task 1's exact recipe
    assert a[4]["xy_k"] < a[4]["k"]                              # rows overstate the people
    assert a[6]["l_distinct"] == 1 and a[6]["single_valued_groups"] > 0
    assert a[7]["l_distinct"] >= 2
    assert a[8]["legacy_failing_groups"] > a[8]["groups"] / 2     # "mostly does not match"
    assert 0 < a[9]["largest_change_percent"] <= 10


def test_legacy_t_check_against_a_naive_count():
    applied = tasks.apply(tasks.R, tasks.source_table(tasks.task(8)))
    full, recipe = applied.full, applied.recipe
    table_share = full[recipe.sensitive].value_counts(normalize=True)
    naive = 0
    for _, group in full.groupby(list(recipe.qi)):
        shares = group[recipe.sensitive].value_counts(normalize=True)
        naive += any(abs(share - table_share[value]) > 0.1 for value, share in shares.items())
    assert len(tasks.legacy_t_failures(applied)) == naive


def test_guess_probability_is_the_share_in_the_group():
    applied = tasks.apply(tasks.R, tasks.source_table(tasks.task(7)))
    group, value, share = tasks.guess_example(applied)
    rows = applied.full
    for column, shown in group.items():
        rows = rows[rows[column].astype(str) == shown]
    assert share == pytest.approx((rows[applied.recipe.sensitive] == value).mean())


def test_check_applied():
    task = tasks.task(2)
    assert tasks.check_applied(task, task.recipe) == []
    spaced = replace(task.recipe, rules=(("city", "Tallinn, Tartu,Paide -> large city\nViljandi,Türi,Jõgeva->Medium city\n"
                                                   "Vändra,Rapla,Põltsamaa,Elva->Small city"),
                                          ("gender", "Male,Female->any gender")))
    assert tasks.check_applied(task, spaced) == []
    problems = tasks.check_applied(task, tasks.R)
    assert problems == ["Generalise gender with the rules Female,Male->any gender."]
    wrong = replace(task.recipe, qi=("age", "city"), intervals=(("age", 5),))
    assert any("QIDs should be age, gender and city" in p for p in tasks.check_applied(task, wrong))
    assert any("intervals of size 10" in p for p in tasks.check_applied(task, wrong))


def test_recipe_errors_in_plain_words():
    table = tasks.source_table(tasks.task(1))
    with pytest.raises(InputError, match="QID not defined"):
        tasks.apply(replace(tasks.R, qi=()), table)
    with pytest.raises(InputError, match="no column salary"):
        tasks.apply(replace(tasks.R, sensitive="salary"), table)
    with pytest.raises(InputError, match="there is no task 11"):
        tasks.task(11)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_quiz_marks_right_answers_right_and_wrong_ones_wrong(seed):
    drawn = quiz.draw(questions.templates(), seed)
    assert [q.task for q in drawn] == list(range(1, 11))
    right = quiz.mark(drawn, [q.correct for q in drawn])
    assert right.score == right.total == 10
    rng = np.random.default_rng(seed)
    wrong_answers = [int(rng.choice([i for i in range(len(q.options)) if i != q.correct])) for q in drawn]
    wrong = quiz.mark(drawn, wrong_answers)
    assert wrong.score == 0
    assert all(len(q.options) >= 3 for q in drawn)


def test_every_template_is_computed_from_the_data():
    by_name = {(t.task, t.name): t for t in questions.templates()}
    assert {task for task, _ in by_name} == set(range(1, 11))
    rng = np.random.default_rng(0)
    k1 = by_name[(1, "k")].build(rng)
    assert k1.options[k1.correct] == str(tasks.answers(tasks.task(1))["k"])
    t8 = by_name[(8, "t")].build(rng)
    assert t8.options[t8.correct] == f"{tasks.answers(tasks.task(8))['t']:.3f}"
    xy = by_name[(4, "xy")].build(rng)
    assert xy.options[xy.correct] == str(tasks.answers(tasks.task(4))["xy_k"])
    ten = tasks.answers(tasks.task(10))
    suppressed = by_name[(10, "suppressed")].build(rng)
    assert suppressed.options[suppressed.correct] == str(ten["suppressed_rows"]) == "5"
    precision = by_name[(10, "precision")].build(rng)
    assert precision.options[precision.correct] == f"{ten['utility']['precision']:.3f}"
    tkl = by_name[(10, "tkl")].build(rng)
    smaller = ten["normalized"]["tkl"] < tasks.answers(tasks.task(3))["normalized"]["tkl"]
    assert tkl.options[tkl.correct].startswith("Leaving out" if smaller else "Generalising")


def test_unanswered_quiz_is_refused_and_results_save(tmp_path):
    drawn = quiz.draw(questions.templates(), 1)
    with pytest.raises(InputError, match="answer every question"):
        quiz.mark(drawn, [None] * len(drawn))
    result = quiz.mark(drawn, [q.correct for q in drawn[:-1]] + [(drawn[-1].correct + 1) % len(drawn[-1].options)])
    path = quiz.save_results(result, tmp_path / "results.html", student="Ada")
    page = path.read_text()
    assert "PPDP quiz: 9 / 10" in page and "Student: Ada" in page and "wrong" in page


def test_cli_learn(capsys, tmp_path):
    code, out, err = run_cli(capsys, ["learn", "datasets", "--dir", str(tmp_path / "d")])
    assert code == 0 and (tmp_path / "d" / "Job_Large.csv").is_file()
    code, out, err = run_cli(capsys, ["learn", "tasks", "--format", "json"])
    listed = json.loads(out)
    assert [item["task"] for item in listed] == list(range(1, 11))
    assert listed[0]["dataset"] == "Job_Large" and listed[0]["answers"]["k"] == tasks.answers(tasks.task(1))["k"]
    assert set(listed[0]) >= {"task", "dataset", "recipe", "answers"}
    ten = listed[9]
    assert ten["answers"]["suppressed_rows"] == 5 and ten["answers"]["k"] == 2
    assert ten["answers"]["utility"]["suppressed_share"] == 0.25
    assert ten["answers"]["normalized"] == pytest.approx(tasks.answers(tasks.task(10))["normalized"])
    assert any("Suppress (leave out)" in step for step in ten["recipe"])


def test_definitions_pages_match_the_engine_table_4_and_example_2_5():
    """The worked examples printed on the definitions pages are what the engine computes."""
    from tklscore.core.files.resources import resource_path
    from tklscore.core.risk.measures import measure_table

    table_4 = pd.DataFrame({"Age": ["[35-40)"] * 3 + ["[40-45)"] * 2,
                            "Gender": ["Male"] * 3 + ["Female"] * 2,
                            "City": ["Elva", "Elva", "Tartu", "Tartu", "Tartu"],
                            "Disability": ["No", "Yes", "No", "Yes", "No"]})
    assert measure_table(table_4, qi=["Age", "Gender"], sa=["Disability"]).k == 2
    assert measure_table(table_4, qi=["Age", "Gender", "City"], sa=["Disability"]).k == 1
    group_1 = measure_table(table_4.iloc[:3], qi=["Age", "Gender"], sa=["Disability"]).models
    group_2 = measure_table(table_4.iloc[3:], qi=["Age", "Gender"], sa=["Disability"]).models
    assert round(group_1.l_entropy, 4) == 1.8899 and group_2.l_entropy == pytest.approx(2.0)
    whole = measure_table(table_4, qi=["Age", "Gender"], sa=["Disability"]).models
    assert round(whole.l_entropy, 4) == 1.8899
    assert whole.recursive_c == 3                     # (c,2)-diverse exactly for c > 2
    pages = resource_path("learn/definitions/k_anonymity.html").read_text() + \
        resource_path("learn/definitions/l_diversity.html").read_text()
    for printed in ("<b>2-anonymous</b>", "<b>1-anonymous</b>", "<b>1.8899</b>", "c &gt; 2"):
        assert printed in pages


def test_suppression_leaves_out_the_rows_of_small_groups_within_the_budget():
    table = tasks.source_table(tasks.task(10))
    plain = tasks.apply(tasks.R, table)
    lone = {i for i, c in enumerate(plain.class_ids) if plain.class_sizes[c] == 1}
    assert plain.measures.k == 1 and len(lone) == 5
    applied = tasks.apply(tasks.task(10).recipe, table)
    assert set(applied.transformed.suppressed) == lone
    assert applied.measures.k == 2 and len(applied.published) == 15
    assert applied.suppressed.equals(table.iloc[sorted(lone)])
    tight = tasks.apply(replace(tasks.task(10).recipe, suppression_limit=0.2), table)
    assert len(tight.transformed.suppressed) == 4 and tight.measures.k == 1    # the budget holds 4 of 5
    assert "Suppress (leave out) the rows of QID groups smaller than 2, at most 25 % of the rows." \
        in tasks.task(10).recipe.steps()
    with pytest.raises(InputError, match="every row is suppressed"):
        tasks.apply(replace(tasks.R, suppress_below=50), table)


def test_check_applied_suppression():
    task = tasks.task(10)
    assert tasks.check_applied(task, task.recipe) == []
    assert tasks.check_applied(task, tasks.R) == [
        "Suppress the rows of QID groups smaller than 2, at most 25 % of the rows."]
    assert tasks.check_applied(tasks.task(1), task.recipe) == ["Suppress no rows in this task."]


def test_usefulness_of_task_10_by_hand():
    from tklscore.core.learn.usefulness import usefulness

    applied = tasks.apply(tasks.task(10).recipe, tasks.source_table(tasks.task(10)))
    u = usefulness(applied)
    assert u.original.precision == 1.0 and u.original.suppressed_share == 0.0
    assert u.original.non_uniform_entropy == 0.0
    # age and city at level 1 of height 2 (value → interval or town size → *), gender kept;
    # a suppressed row's cells count as fully generalised: (1 - (5 + 15·½)/20)·2 + (1 - 5/20), over 3
    assert u.current.precision == pytest.approx(((1 - 12.5 / 20) * 2 + 0.75) / 3)
    sizes = applied.class_sizes
    assert u.current.discernibility == float((sizes ** 2).sum() + 5 * 20)
    assert u.current.suppressed_share == 0.25
    assert u.current.average_class_size == pytest.approx((15 / len(sizes)) / 2)
    assert [r.key for r in u.rows] == ["precision", "discernibility", "average_class_size",
                                       "non_uniform_entropy", "suppressed_share"]
    assert all(r.meaning for r in u.rows)


def test_scores_use_the_teaching_weights_or_say_they_are_conservative():
    from tklscore.core.learn.scores import scores
    from tklscore.core.release.designer import ReleaseDesigner
    from tklscore.core.scoring.weights import Weights
    from tklscore.core.tables.loading import Table
    from tklscore.core.tables.roles import Roles

    task = tasks.task(1)
    applied = tasks.apply(task.recipe, tasks.source_table(task))
    scored = scores(applied, task.datasets)
    assert "teaching weights of 'job'" in scored.weights_source and "Job_Large_weights.csv" in scored.weights_source
    source = Table.from_frame(tasks.source_table(task))
    designer = ReleaseDesigner(source, Roles(qi=task.recipe.qi, sa=["job"]), tasks.hierarchies(task.recipe))
    weights = Weights(list(datasets.weights_frame(["job"]).itertuples(index=False, name=None)))
    result = designer.evaluate(tasks.design(task.recipe), weights, 1.0, measures=False)
    assert scored.raw == result.report.scores and scored.normalised == result.report.normalized_source
    assert scored.original.tkl > scored.raw.tkl > 0
    assert [r.key for r in scored.rows] == ["tkl", "tkl_max", "m_score", "l_severity"]
    assert scored.rows[0].normalised == pytest.approx(scored.raw.tkl / scored.original.tkl)
    city = replace(task.recipe, qi=("age", "gender"), sensitive="city", rules=())
    other = scores(tasks.apply(city, tasks.source_table(task)), task.datasets)
    assert "no teaching weights exist for 'city'" in other.weights_source and "weighs 1" in other.weights_source
    assert scores(tasks.apply(replace(task.recipe, sensitive=None), tasks.source_table(task)), task.datasets) is None


def test_actions_that_do_not_fit_their_column_are_explained():
    table = tasks.source_table(tasks.task(1))
    with pytest.raises(InputError, match="gender holds text such as '(Female|Male)': interval sizes are for numbers"):
        tasks.apply(replace(tasks.R, intervals=(("age", 10), ("gender", 5))), table)
    short = "Tallinn,Tartu,Paide->Large city\nViljandi,Türi,Jõgeva->Medium city"
    with pytest.raises(InputError, match=r"city: .*(Elva|Rapla).* no rule; add"):
        tasks.apply(replace(tasks.R, rules=(("city", short),)), table)
    with pytest.raises(InputError, match="age is a QID: noise is for a sensitive number"):
        tasks.apply(replace(tasks.R, noise=(("age", 10.0),)), table)
    with pytest.raises(InputError, match="job holds text such as .*noise can only be added to numbers"):
        tasks.apply(replace(tasks.R, noise=(("job", 10.0),)), table)
    with pytest.raises(InputError, match="has no '->'"):
        tasks.apply(replace(tasks.R, rules=(("city", "Tallinn Tartu"),)), table)


def test_repeated_people_and_single_valued_groups():
    xy = tasks.apply(tasks.task(4).recipe, tasks.source_table(tasks.task(4)))
    assert xy.repeated_people
    for number in (1, 3):
        applied = tasks.apply(tasks.R, tasks.source_table(tasks.task(number)))
        repeated = applied.full.groupby(list(tasks.R.qi) + ["name", "last name"]).size().max() > 1
        assert applied.repeated_people == repeated
    mono = tasks.apply(tasks.R, tasks.source_table(tasks.task(6)))
    single = mono.single_valued_rows
    by_group = mono.full.assign(single=single).groupby(list(tasks.R.qi))
    for _, group in by_group:
        assert group["single"].all() == (group["job"].nunique() == 1)
        assert group["single"].nunique() == 1


def test_export_writes_the_anonymised_table(tmp_path):
    applied = tasks.apply(tasks.task(10).recipe, tasks.source_table(tasks.task(10)))
    path = tasks.export(applied, tmp_path / "out.csv")
    again = pd.read_csv(path, dtype=str, keep_default_na=False)
    assert again.equals(applied.published.astype(str).reset_index(drop=True)) and len(again) == 15
    with pytest.raises(InputError, match="exported as CSV"):
        tasks.export(applied, tmp_path / "out.xlsx")


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 12), st.floats(0.0, 1.0))
def test_suppression_properties(below, limit):
    """Rows of groups smaller than k go first, smallest groups first, never beyond the budget;
    with the budget sufficing, the release is at least k-anonymous."""
    table = tasks.source_table(tasks.task(1))
    plain = tasks.apply(tasks.R, table)
    small_rows = int(plain.class_sizes[plain.class_sizes < below].sum())
    recipe = replace(tasks.R, suppress_below=below, suppression_limit=limit)
    try:
        applied = tasks.apply(recipe, table)
    except InputError as error:
        assert "every row is suppressed" in str(error) and small_rows == len(table) and limit == 1.0
        return
    suppressed = len(applied.transformed.suppressed)
    assert suppressed <= limit * len(table) + 1e-9 and suppressed <= small_rows
    assert len(applied.published) + suppressed == len(table)
    if small_rows <= limit * len(table):
        assert suppressed == small_rows and applied.measures.k >= below
    else:
        assert applied.transformed.below_limit_left == small_rows - suppressed > 0
    from tklscore.core.learn.usefulness import usefulness
    assert usefulness(applied).current.suppressed_share == suppressed / len(table)


def test_a_removed_qid_splits_no_group_and_a_removed_sensitive_column_is_explained():
    from tklscore.core.learn.scores import scores
    from tklscore.core.learn.usefulness import usefulness

    table = tasks.source_table(tasks.task(1))
    removed = replace(tasks.R, removed=("city",), rules=())
    applied = tasks.apply(removed, table)
    without = tasks.apply(replace(tasks.R, qi=("age", "gender"), rules=()), table)
    assert "city" not in applied.published.columns
    assert applied.measures.k == without.measures.k and applied.measures.classes.count == without.measures.classes.count
    # a removed QID counts as fully generalised for precision: age ½, gender 1, city 0
    assert usefulness(applied).current.precision == pytest.approx((0.5 + 1 + 0) / 3)
    assert scores(applied, ("Job_Large",)).raw.tkl > 0
    with pytest.raises(InputError, match="Every QID column is removed"):
        tasks.apply(replace(tasks.R, removed=("age", "gender", "city")), table)
    with pytest.raises(InputError, match="job is the Sensitive column: keep it"):
        tasks.apply(replace(tasks.R, removed=("job",)), table)
