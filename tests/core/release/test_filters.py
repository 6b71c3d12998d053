"""The filter language (core/release/filters.py): hostile filters are refused by name and run
nothing — from the library, every CLI command taking --filter, a project file opened by
core and by the application —, numbers compare as numbers on a real table (UCI Adult), quotes
and backslashes mean one thing, and a filter selecting nothing is refused."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from filter_support import QUOTED, quote_table
from helpers import run_cli
from tklscore.core import InputError, Roles, load_table
from tklscore.core.examples import thesis_example, write_thesis_example
from tklscore.core.project import Project
from tklscore.core.release.filters import FilterError, parse_filter
from tklscore.core.release.selection import ReleaseDefinition, filter_positions, resolve_release

THESIS_ROLES = ["--id-column", "id", "--qi", "Job,City,Gender", "--sa", "Disease,Medication,Age,Initial Diagnosis",
                "--continuous", "Age"]


def hostile(marker) -> dict[str, str]:
    """Filters that ran code or read the tool's variables when pandas evaluated them."""
    touch = f"@pd.io.common.os.system('touch {marker}')"
    return {
        "at-call": f"{touch} == 0",
        "stealth": f"Age >= 40 and {touch} == 0",
        "variable": "Job == @expression",
        "attribute chain": f"Job.__class__.__init__.__globals__['os'].system('touch {marker}') == 0",
        "method": f"Job.str.contains('a') | City.map(lambda v: __import__('os').system('touch {marker}')) == 0",
        "dunder": f"__import__('os').system('touch {marker}') == 0",
        "lambda": f"(lambda: __import__('os').system('touch {marker}'))() == 0",
        "subscript": f"Job[0] == 'a' or City == 'x'",
        "call": f"len(Job) > 3",
        "f-string": f"Job == f'{{__import__(\"os\").system(\"touch {marker}\")}}'",
    }


REFUSED = {   # how each is refused: the fragment (its start: a long one is shortened) and the reason
    "at-call": ("`@pd.io.common.os.system('touch ", "'@' variables are not allowed in a filter"),
    "stealth": ("`@pd.io.common.os.system('touch ", "'@' variables are not allowed in a filter"),
    "variable": ("`@expression`", "'@' variables are not allowed in a filter"),
    "attribute chain": ("`Job.__class__.__init__.__globals__['os'].system(",
                        "names with double underscores are not allowed in a filter"),
    "method": ("`Job.str.contains('a')`", "method calls are not allowed in a filter"),
    "dunder": ("`__import__('os').system('touch ", "names with double underscores are not allowed in a filter"),
    "lambda": ("`lambda`", "lambda expressions are not allowed in a filter"),
    "subscript": ("`Job[0]`", "subscripts ('[...]') are not allowed in a filter"),
    "call": ("`len(Job)`", "function calls are not allowed in a filter"),
    "f-string": ("`f'{__import__(", "f-strings are not allowed in a filter: write plain quoted text"),
}


def assert_refused(message: str, case: str) -> None:
    fragment, reason = REFUSED[case]
    assert fragment in message and f"` — {reason}" in message, message
    assert message.index(fragment) < message.index(reason)


@pytest.fixture
def marker(tmp_path):
    path = tmp_path / "X"
    yield path
    assert not path.exists(), "a filter ran a command"


def test_the_payload_is_live_under_pandas_eval(tmp_path):
    """What the language replaces: pandas' eval runs the '@' form (so the tests below can fail)."""
    path = tmp_path / "X"
    frame = pd.DataFrame({"Age": [41]})
    frame.eval(f"Age >= 40 and @pd.io.common.os.system('touch {path}') == 0", engine="python")
    assert path.exists()


@pytest.mark.parametrize("case", list(REFUSED))
def test_hostile_filters_are_refused_by_name_and_run_nothing(case, marker):
    example = thesis_example()
    expression = hostile(marker)[case]
    with pytest.raises(FilterError) as refused:
        parse_filter(expression)
    assert_refused(str(refused.value), case)
    for attempt in (lambda: filter_positions(example.source, example.roles, expression),
                    lambda: resolve_release(ReleaseDefinition("h", "filter", expression=expression),
                                            example.source, example.roles)):
        with pytest.raises(FilterError, match="not allowed in a filter"):
            attempt()


@pytest.mark.parametrize("expression, message", [
    ("Job is 'a'", "`is` — 'is' is not allowed in a filter: write == or !="),
    ("Job == None", "`None` — None is not a value in a filter"),
    ("Age + 1 > 3", "`Age + 1` — arithmetic ('+') is not allowed in a filter"),
    ("Age ** 2 > 3", "`**` — arithmetic ('**') is not allowed in a filter"),
    ("Job = 'a'", "`=` — '=' is not a comparison in a filter: write =="),
    ("Job == 'a' AND Age > 3", "`AND` — 'AND' is not a word of a filter: write and in lower case"),
    ("Job == {'a'}", "`{'a'}` — sets and dictionaries ('{...}') are not allowed in a filter"),
    ("Job == 'a'; Age > 1", "`;` — ';' is not allowed in a filter: a filter is one condition"),
    ("Job == 'a' # Age > 1", "`# Age > 1` — comments ('#') are not allowed in a filter"),
    ("Job == r'a'", "`r'a'` — string prefixes (r'...') are not allowed in a filter"),
    ("Age > 0x10", "`0x10` — not a number a filter reads"),
    ("Age > 1e400", "`1e400` — a number too large to compare"),
    ("Job == 'abc", "`'abc` — quoted text opened here is not closed"),
    ("`Initial Diagnosis == 'a'", "a backtick opens a column name that is not closed"),
    ("Job if Age else City", "`if` — 'if' is a Python word, not allowed in a filter"),
    ("Job == 'a' and", "ends too soon"),
    ("1 < 2", "1 < 2 compares two values, not a column"),
    ("Job", "`Job` on its own is not a condition; compare it, e.g. Job == 'value'"),
    ("Job in City", "a list of values such as ['a', 'b'] was expected"),
    ("Job in ['a', City]", "the list after 'in' holds the column City"),
    ("", "the filter expression is empty"),
])
def test_what_is_not_in_the_language_is_named(expression, message):
    with pytest.raises(FilterError) as refused:
        parse_filter(expression)
    assert message in str(refused.value)


def test_the_language(tmp_path):
    table = load_table_text(tmp_path, "Job,Initial Diagnosis,Age\nLawyer,Flu,30\nNurse,HIV,45\nCook,,\n"
                                      "Lawyer,Flu,7\n")
    cases = {
        "Job == 'Lawyer'": [0, 3], "Job != 'Lawyer'": [1, 2], "`Initial Diagnosis` == ''": [2],
        "Age >= 30": [0, 1], "Age < 30": [3], "Age != 30": [1, 2, 3], "not Age == 30": [1, 2, 3],
        "30 <= Age < 45": [0], "Age in [7, 45]": [1, 3], "Age not in (7, 45)": [0, 2], "Age == ''": [2],
        "Age == '30'": [0], "Age in ['', 45]": [1, 2], "Job == 'Lawyer' and Age > 10 or Job == 'Cook'": [0, 2],
        "Job == 'Lawyer' & (Age > 10 | Job == 'Cook')": [0], "~(Job == 'Lawyer')": [1, 2],
        "not not Job == 'Cook'": [2], "Job > 'Lawyer'": [1], "Job in []": [], "Job not in []": [0, 1, 2, 3],
        "Job == \"Lawyer\"": [0, 3], "Age >= -1e3": [0, 1, 3], "Age >= .5e1": [0, 1, 3],
    }
    roles = Roles(qi=["Job"], sa=["Age"])
    for expression, expected in cases.items():
        assert filter_positions(table, roles, expression).tolist() == expected, expression


def load_table_text(folder, text: str, name: str = "t.csv"):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return load_table(path)


# ---------------------------------------------------------------------------- quotes and backslashes

def test_every_quote_and_backslash_selects_its_own_record(tmp_path):
    path, table = quote_table(tmp_path)
    roles = Roles(qi=["Job"])
    for row, (value, literals) in enumerate(QUOTED.items()):
        for literal in literals:
            assert parse_filter(f"Job == {literal}").tree.right.value == value, literal
            assert filter_positions(table, roles, f"Job == {literal}").tolist() == [row], literal
    # the injection is a value like any other: ['x\\', ')) OR 1=1 --'] selects those two records
    listed = "Job in ['x\\\\', \"')) OR 1=1 --\"]"
    assert filter_positions(table, roles, listed).tolist() == sorted([list(QUOTED).index("x\\"),
                                                                      list(QUOTED).index("')) OR 1=1 --")])
    assert filter_positions(table, roles, "Job not in ['x\\\\', 'plain']").tolist() == \
        [i for i, v in enumerate(QUOTED) if v != "x\\"]


# ---------------------------------------------------------------------------- numbers on Adult

@pytest.fixture(scope="module")
def adult_path(data_dir):
    return data_dir / "adult" / "adult.csv"


@pytest.fixture(scope="module")
def adult(adult_path):
    return load_table(adult_path)


ADULT_ROLES = Roles(qi=["sex", "age", "race"], sa=["salary-class"])


def test_numbers_compare_as_numbers_on_adult(adult):
    age = adult.text("age").astype(int).to_numpy()
    assert filter_positions(adult, ADULT_ROLES, "age >= 60").tolist() == np.flatnonzero(age >= 60).tolist()
    assert len(filter_positions(adult, ADULT_ROLES, "age >= 60")) == 2082
    both = filter_positions(adult, ADULT_ROLES, "age >= 30 and age < 40.5 and `native-country` != 'Cuba'")
    country = adult.text("native-country").to_numpy()
    assert both.tolist() == np.flatnonzero((age >= 30) & (age < 40.5) & (country != "Cuba")).tolist()
    # text of a column of numbers: as written; ordered as text: refused
    assert filter_positions(adult, ADULT_ROLES, "age == '39'").tolist() == np.flatnonzero(age == 39).tolist()
    with pytest.raises(FilterError, match="'age' holds numbers, so `age >= '30'` would order them as text; "
                                          "write the number without quotes \\(age >= 30\\)"):
        filter_positions(adult, ADULT_ROLES, "age >= '30'")


@pytest.mark.parametrize("expression, message", [
    ("workclass > 3", "filter \"workclass > 3\": 'workclass' holds text such as 'State-gov' in row 2, not only "
                      "numbers, so it cannot be compared with the number 3 (compare its values as written with "
                      "quoted text, e.g. workclass == 'State-gov')"),
    ("sex in ['Male', 1]", "'sex' holds text such as 'Male' in row 2, not only numbers, so it cannot be compared "
                           "with the number 1"),
    ("age < workclass", "'workclass' holds text such as 'State-gov' in row 2, not only numbers, so `age < "
                        "workclass` cannot order it against the numbers of 'age'"),
    ("Age >= 30", "filter \"Age >= 30\": 'Age' is not a column of the source; did you mean 'age'?"),
    ("salary >= 30", "'salary' is not a column of the source; did you mean 'salary-class'?"),
])
def test_impossible_comparisons_name_the_column(adult, expression, message):
    with pytest.raises(FilterError) as refused:
        filter_positions(adult, ADULT_ROLES, expression)
    assert message in str(refused.value)


def test_the_help_text_example_works_on_adult(capsys, adult_path, adult, tmp_path):
    """`release --filter "age >= 30"` (the help's own example) and `score --filter "age >= 60"` on Adult."""
    from test_adult import WEIGHTS

    weights = tmp_path / "weights.csv"
    weights.write_text("attribute,value,weight\n" + "".join(f"{a},{v},{w}\n" for (a, v), w in WEIGHTS.items()))
    code, help_text, _ = run_cli(capsys, ["release", "--help"])
    assert code == 0 and 'e.g. "age >= 30"' in " ".join(help_text.split())
    age = adult.text("age").astype(int).to_numpy()
    common = [adult_path, "--qi", "sex,age,race", "--sa", "occupation,salary-class", "--weights", weights,
              "--format", "json"]
    code, out, err = run_cli(capsys, ["release", *common, "--filter", "age >= 30"])
    assert code == 0, err
    assert json.loads(out)["published_rows"] == int((age >= 30).sum()) == 21378
    code, out, err = run_cli(capsys, ["score", *common, "--filter", "age >= 60"])
    assert code == 0, err
    assert [int(r["id"]) for r in json.loads(out)["records"]] == np.flatnonzero(age >= 60).tolist()
    code, out, err = run_cli(capsys, ["score", *common, "--filter", "workclass >= 60"])
    assert code == 2 and "'workclass' holds text such as 'State-gov' in row 2" in err and "Traceback" not in err


# ---------------------------------------------------------------------------- selecting nothing

def test_a_filter_selecting_nothing_is_refused(adult):
    with pytest.raises(FilterError) as refused:
        resolve_release(ReleaseDefinition("old", "filter", expression="age > 200"), adult, ADULT_ROLES)
    assert str(refused.value).startswith("the filter \"age > 200\" selects none of the 30,162 source records: "
                                         "no record has age > 200")
    with pytest.raises(FilterError) as refused:
        resolve_release(ReleaseDefinition("f", "filter", expression="sex == 'female' and age > 20"), adult,
                        ADULT_ROLES)
    assert "no record has sex == 'female' ('sex' holds values such as 'Male', 'Female')" in str(refused.value)
    # filter_positions itself answers the question (an empty selection is not an error there)
    assert filter_positions(adult, ADULT_ROLES, "age > 200").tolist() == []


@pytest.mark.parametrize("command", ["score", "release", "suggest", "report"])
def test_cli_refuses_a_filter_selecting_nothing(capsys, command, data_dir, tmp_path):
    argv = [command, data_dir / "thesis_table_3_1.csv", "--filter", "Age > 200", *THESIS_ROLES,
            "--weights", data_dir / "thesis_table_4_2_weights.csv"] + (["--mask", "City"] if command == "suggest"
                                                                       else [])
    if command == "report":
        argv += ["--output", tmp_path / "report.html"]
    code, _, err = run_cli(capsys, argv)
    assert code == 2, err
    assert "the filter \"Age > 200\" selects none of the 7 source records" in err and "Traceback" not in err
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize("command", ["score", "release", "suggest", "report"])
@pytest.mark.parametrize("case", ["at-call", "stealth", "variable"])
def test_cli_refuses_hostile_filters(capsys, command, case, marker, data_dir, tmp_path):
    argv = [command, data_dir / "thesis_table_3_1.csv", "--filter", hostile(marker)[case], *THESIS_ROLES,
            "--weights", data_dir / "thesis_table_4_2_weights.csv"] + (["--mask", "City"] if command == "suggest"
                                                                       else [])
    if command == "report":
        argv += ["--output", tmp_path / "report.html"]
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and out == ""
    assert_refused(err, case)
    assert "Traceback" not in err


def test_cli_engines_refuse_hostile_filters(capsys, marker, data_dir):
    argv = ["score", data_dir / "thesis_table_3_1.csv", "--filter", hostile(marker)["stealth"], *THESIS_ROLES,
            "--weights", data_dir / "thesis_table_4_2_weights.csv", "--engine", "duckdb"]
    code, out, err = run_cli(capsys, argv)
    assert code == 2 and "'@' variables are not allowed in a filter" in err


# ---------------------------------------------------------------------------- project files

def hostile_project(folder, marker) -> tuple[Project, object]:
    write_thesis_example(folder)
    releases = [ReleaseDefinition("Scenario 1", "ids", ids=("3", "4", "5", "6")),
                ReleaseDefinition("Hostile", "filter", expression=hostile(marker)["at-call"]),
                ReleaseDefinition("Stealth", "filter", expression=hostile(marker)["stealth"]),
                ReleaseDefinition("Nothing", "filter", expression="Age > 200"),
                ReleaseDefinition("Edmonton", "filter", expression="City == 'Edmonton'")]
    project = Project(source_path=str(folder / "table_3_1.csv"),
                      roles=Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Medication", "Age",
                                                                    "Initial Diagnosis"],
                                  continuous=["Age"], identifier="id"),
                      releases=releases, current_release="Hostile",
                      weights_path=str(folder / "weights_table_4_2.csv"), weights_use="file")
    path = folder / "hostile.tklproj"
    project.save(path)
    assert hostile(marker)["at-call"] in path.read_text()
    return project, path


def test_a_project_with_hostile_filters_opened_by_core_runs_nothing(tmp_path, marker):
    _, path = hostile_project(tmp_path, marker)
    project = Project.load(path)     # opening reads the document: nothing runs
    assert [r.name for r in project.releases] == ["Scenario 1", "Hostile", "Stealth", "Nothing", "Edmonton"]
    source = load_table(project.source_path)
    outcome = {}
    for definition in project.releases:
        try:
            outcome[definition.name] = len(resolve_release(definition, source, project.roles))
        except InputError as error:
            outcome[definition.name] = error
    assert outcome["Scenario 1"] == 4 and outcome["Edmonton"] == 4
    for name in ("Hostile", "Stealth"):
        assert isinstance(outcome[name], FilterError) and "'@' variables are not allowed" in str(outcome[name])
    assert isinstance(outcome["Nothing"], FilterError) and "selects none of the 7" in str(outcome["Nothing"])


def test_a_project_with_hostile_filters_opened_by_the_application(qtbot, tmp_path, marker):
    from PySide6.QtCore import Qt

    from tklscore.gui.main_window import release_summary
    from tklscore.gui.release.view import ReleaseView
    from tklscore.core.report.sections.scores import releases_section
    from tklscore.gui.report import report_input
    from tklscore.gui.workbench import Workbench

    _, path = hostile_project(tmp_path, marker)
    workbench = Workbench()
    view = ReleaseView(workbench)
    qtbot.addWidget(view)
    try:
        workbench.open_project(str(path))
        qtbot.waitUntil(lambda: "Scenario 1" in workbench.reports and not workbench.runner.current, timeout=20000)
        assert set(workbench.reports) == {"Scenario 1", "Edmonton"}
        assert workbench.refused_releases == {"Hostile", "Stealth", "Nothing"}
        assert "'@' variables are not allowed in a filter" in workbench.release_errors["Hostile"]
        assert "selects none of the 7 source records" in workbench.release_errors["Nothing"]
        # marked where the release appears: the releases table, the current release's line, the status, the report
        view.releases.refresh()
        model = view.releases_table.model()
        rows = {model.index(r, 0).data(): r for r in range(model.rowCount())}
        assert model.index(rows["Hostile"], 2).data() == "refused" and model.index(rows["Nothing"], 2).data() == "refused"
        assert "'@' variables are not allowed" in model.index(rows["Hostile"], 2).data(Qt.ItemDataRole.ToolTipRole)
        assert model.index(rows["Scenario 1"], 2).data() == "4"
        assert "filter refused, not scored" in view.release_info.text()
        assert "'@' variables are not allowed in a filter" in view.release_info.text()
        assert release_summary(workbench) == "Release: Hostile (filter refused, not scored: see the Release view)"
        html = "".join(s.body for s in releases_section(report_input(workbench)))
        assert "Releases not scored" in html and "Hostile" in html and "selects none of the 7" in html
    finally:
        workbench.runner.cancel_all()
        workbench.runner.wait(5000)


def test_the_application_refuses_a_filter_selecting_nothing_when_it_is_defined(qtbot):
    from tklscore.gui.workbench import Workbench

    workbench = Workbench()
    try:
        workbench.load_example("thesis")
        qtbot.waitUntil(lambda: workbench.table is not None, timeout=20000)
        with pytest.raises(FilterError, match="the filter \"City == 'Paris'\" selects none of the 7 source records: "
                                              "no record has City == 'Paris'"):
            workbench.add_release(ReleaseDefinition("Paris", "filter", expression="City == 'Paris'"))
        assert "Paris" not in workbench.release_names()
    finally:
        workbench.runner.cancel_all()
        workbench.runner.wait(5000)


def test_a_refused_release_is_said_once_not_at_every_rescoring(qtbot, tmp_path, marker):
    from tklscore.gui.workbench import Workbench

    _, path = hostile_project(tmp_path, marker)
    workbench = Workbench()
    said = []
    workbench.failed.connect(said.append)
    try:
        workbench.open_project(str(path))
        qtbot.waitUntil(lambda: "Scenario 1" in workbench.reports and not workbench.runner.current, timeout=20000)
        assert sorted(m.split(":")[0] for m in said) == ["Release 'Hostile'", "Release 'Nothing'", "Release 'Stealth'"]
        workbench.set_x(2.0)                      # scores again: the same refusals are not said again
        qtbot.waitUntil(lambda: workbench.reports["Scenario 1"].x == 2.0 and not workbench.runner.current,
                        timeout=20000)
        assert len(said) == 3 and workbench.refused_releases == {"Hostile", "Stealth", "Nothing"}
    finally:
        workbench.runner.cancel_all()
        workbench.runner.wait(5000)


def test_the_design_selection_reads_the_filter_too(marker):
    """The Design view's row selection (a release definition) goes through the same language,
    in memory and out of core."""
    from tklscore.core.release.transform import LevelCache, ReleaseDesign

    def select_rows(source, roles, design):
        return LevelCache(source, roles, {}).selected(design.selection)

    example = thesis_example()
    design = ReleaseDesign(selection=ReleaseDefinition("h", "filter", expression=hostile(marker)["stealth"]))
    with pytest.raises(FilterError, match="'@' variables are not allowed in a filter"):
        select_rows(example.source, example.roles, design)
    chosen = ReleaseDesign(selection=ReleaseDefinition("a", "filter", expression="Age >= 30 and City == 'Edmonton'"))
    assert select_rows(example.source, example.roles, chosen)[0].tolist() == [3, 4]


def test_the_engine_design_selection_reads_the_filter_too(marker, data_dir):
    from tklscore.core.engines.design import EngineDesigner
    from tklscore.core.engines.duckdb_engine import DuckDBBackend
    from tklscore.core.release.transform import ReleaseDesign
    from tklscore.core.scoring.weights import load_weights

    roles = Roles(qi=["Job", "City", "Gender"], sa=["Disease", "Age"], continuous=["Age"], identifier="id")
    weights = load_weights(data_dir / "thesis_table_4_2_weights.csv")
    design = ReleaseDesign(selection=ReleaseDefinition("h", "filter", expression=hostile(marker)["at-call"]))
    with DuckDBBackend() as backend:
        designer = EngineDesigner(backend, str(data_dir / "thesis_table_3_1.csv"), roles)
        with pytest.raises(FilterError, match="'@' variables are not allowed in a filter"):
            designer.evaluate(design, weights, missing_weight_zero=True)
        nothing = ReleaseDesign(selection=ReleaseDefinition("n", "filter", expression="Age > 200"))
        with pytest.raises(FilterError, match="the filter \"Age > 200\" selects none of the 7 source records"):
            designer.evaluate(nothing, weights, missing_weight_zero=True)


def test_deep_nesting_is_refused_not_a_crash():
    deep = "(" * 5000 + "Job == 'a'" + ")" * 5000
    with pytest.raises(FilterError, match="nests parentheses and 'not' more than 100 deep"):
        parse_filter(deep)
    with pytest.raises(FilterError, match="more than 100 deep"):
        parse_filter("not " * 5000 + "Job == 'a'")
    assert len(parse_filter("(" * 50 + "not " * 40 + "Job == 'a'" + ")" * 50).columns) == 1
    long = " or ".join(f"Job == '{i}'" for i in range(5000))      # long but flat: read
    example = thesis_example()
    assert filter_positions(example.source, example.roles, long + " or Job == 'Lawyer'").tolist() == list(range(7))


@pytest.mark.parametrize("expression, message", [
    ("2nd == 'x'", "`2nd` — a column name that starts with a digit goes in backticks (`2nd`)"),
    ("Job == ‘Flu’", "`‘` — typographic quotes are not quotes in a filter: write ' or \""),
    ("Age > 1_000", "`1_000` — not a number a filter reads"),
])
def test_slips_a_person_makes_are_named(expression, message):
    with pytest.raises(FilterError) as refused:
        parse_filter(expression)
    assert message in str(refused.value)
    assert parse_filter("`2nd` == 'x'").columns == ("2nd",)
