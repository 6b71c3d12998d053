"""Real-world files read as a person expects (issue 22 §2): the spaces around values
(core/tables/spaces.py) on Adult as the UCI ships it (tests/data/adult/adult_uci.csv,
', '-separated), the role guesses (core/tables/personal_data.py, role_guesses.py) and
`tklscore describe`, and a new source in a project holding another table's work
(core/source_change.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from helpers import run_cli as _run_cli
from tklscore.core import InputError, load_table, load_weights
from tklscore.core.engines import open_backend
from tklscore.core.engines.source import column_values, describe_source, profile_source
from tklscore.core.examples import THESIS_ROLES
from tklscore.core.project import Project
from tklscore.core.release.hierarchy import Hierarchy, parse_rules, rule_line
from tklscore.core.release.selection import ReleaseDefinition
from tklscore.core.source_change import (filter_columns, keep_what_applies, source_change, start_new_project,
                                         table_columns)
from tklscore.core.tables.personal_data import personal_data_category
from tklscore.core.tables.role_guesses import guess_roles, guess_table_roles, profile_table
from tklscore.core.tables.roles import Role
from tklscore.core.tables.spaces import quote_value, split_delimiter, split_listed, visible_spaces

ADULT = Path(__file__).resolve().parent / "data" / "adult" / "adult_uci.csv"
UCI_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
               "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
               "salary"]
STRIPPED = UCI_COLUMNS[1:]  # every value after the first keeps a leading space in the file
RACE_GROUPS = "race=White->White;Black,Asian-Pac-Islander,Amer-Indian-Eskimo,Other->Non-white|White,Non-white->*"


@pytest.fixture(scope="module")
def adult():
    return load_table(ADULT)


@pytest.fixture(scope="module")
def weights(tmp_path_factory) -> Path:
    """Weights spelled as a person writes them: no spaces."""
    path = tmp_path_factory.mktemp("w") / "weights.csv"
    path.write_text("attribute,value,weight\nsalary,<=50K,0.1\nsalary,>50K,0.4\n", encoding="utf-8")
    return path


def run_cli(capsys, *argv):
    return _run_cli(capsys, list(argv))


# --------------------------------------------------------------------------- the test file

def test_adult_uci_file_is_the_uci_layout():
    lines = ADULT.read_text(encoding="ascii").splitlines()
    assert len(lines) == 30163
    assert lines[0].split(", ") == UCI_COLUMNS
    first = lines[1].split(", ")
    assert len(first) == 15 and first[0] == "39" and first[-1] == "<=50K" and ", State-gov, " in lines[1]


# --------------------------------------------------------------------------- the rule

def test_loader_strips_spaces_and_says_where(adult):
    assert adult.columns == UCI_COLUMNS and len(adult) == 30162
    assert adult.spaces_stripped.columns == tuple(STRIPPED)
    assert adult.spaces_stripped.leading and not adult.spaces_stripped.trailing
    assert adult.spaces_stripped.message().startswith("leading spaces removed in 14 columns (workclass, fnlwgt,")
    assert adult.frame.iloc[0, :4].tolist() == ["39", "State-gov", "218998", "Bachelors"]
    assert set(adult.frame["sex"]) == {"Male", "Female"}
    assert (adult.frame["sex"] == "Female").sum() == 9782


def test_keep_spaces_keeps_every_value_as_written():
    kept = load_table(ADULT, keep_spaces=True)
    assert not kept.spaces_stripped and kept.keep_spaces
    assert set(kept.frame["sex"]) == {" Male", " Female"}
    assert kept.frame.iloc[0, 0] == "39"


def test_delimiter_with_its_space_reads_as_the_delimiter_and_strip(adult):
    assert split_delimiter(", ") == (",", True) and split_delimiter(";  ") == (";", True)
    assert split_delimiter(",") == (",", False) and split_delimiter(" ") == (" ", False)
    spaced = load_table(ADULT, delimiter=", ")
    assert spaced.delimiter == "," and spaced.frame.equals(adult.frame)
    with pytest.raises(InputError, match="removes the spaces after each delimiter"):
        load_table(ADULT, delimiter=", ", keep_spaces=True)


def test_spaces_in_the_middle_of_a_value_and_trailing_ones(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('id;city;note\n1 ; New York ;"  quoted  "\n2;Paris;x\n', encoding="utf-8")
    table = load_table(path)
    assert table.frame.values.tolist() == [["1", "New York", "quoted"], ["2", "Paris", "x"]]
    assert table.spaces_stripped.columns == ("id", "city", "note")
    assert table.spaces_stripped.leading and table.spaces_stripped.trailing
    assert table.spaces_stripped.message("").startswith("leading and trailing spaces removed in 3 columns")


def test_duckdb_reads_as_the_loader(adult):
    summary = describe_source(ADULT, preview_rows=50)
    assert summary.rows == 30162 and summary.columns == UCI_COLUMNS
    assert summary.preview.values.tolist() == adult.frame.iloc[:50].values.tolist()
    assert summary.spaces_stripped == adult.spaces_stripped
    values = column_values(ADULT, "sex")
    assert values["value"].tolist() == ["Male", "Female"] and values["count"].tolist() == [20380, 9782]
    assert column_values(ADULT, "sex", keep_spaces=True)["value"].tolist() == [" Male", " Female"]
    kept = describe_source(ADULT, keep_spaces=True, preview_rows=1)
    assert not kept.spaces_stripped and kept.options == {"keep_spaces": True}
    assert kept.preview.iloc[0, 1] == " State-gov"


def test_visible_spaces_and_quoting():
    assert visible_spaces(" Female") == "␣Female" and visible_spaces("a b ") == "a b␣"
    assert visible_spaces("Female") == "Female" and visible_spaces("  ") == "␣␣"
    assert quote_value(" Female") == '" Female"' and quote_value("a,b") == '"a,b"'
    assert quote_value("<=50K") == "<=50K" and quote_value('say "x"') == '"say ""x"""'
    assert split_listed(' a , " b ",c') == [("a", False), (" b ", True), ("c", False)]
    with pytest.raises(ValueError):
        split_listed('"open')


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab ,->\"xé")), min_size=1, max_size=6)
                .filter(lambda v: v.strip(" ") != "" and "\n" not in v), min_size=1, max_size=4, unique=True),
       st.text(alphabet=st.sampled_from(list("GH -,\"")), min_size=1, max_size=5).filter(lambda g: g.strip(" ")))
def test_a_written_rule_reads_back_as_its_values(values, group):
    """The rule the "Group the selected values" button writes groups exactly those values."""
    assert parse_rules(rule_line(values, group)) == [(group.strip(" "), tuple(values))]


def test_value_groups_match_the_stripped_values(adult):
    hierarchy = Hierarchy.from_rules("race", ["White->White\nBlack,Asian-Pac-Islander,Amer-Indian-Eskimo,Other->Non-white",
                                              "White,Non-white->*"])
    levels = hierarchy.labels(adult.frame["race"].to_numpy(dtype=object))
    assert set(levels[1]) == {"White", "Non-white"} and set(levels[2]) == {"*"}


def test_quoted_values_in_rules_and_weights_keep_their_spaces(tmp_path):
    assert parse_rules('" Male", " Female" -> Any') == [("Any", (" Male", " Female"))]
    assert parse_rules("Male , Female->Any") == [("Any", ("Male", "Female"))]
    path = tmp_path / "w.csv"
    path.write_text('attribute,value,weight\nsalary, <=50K ,0.1\nsalary," >50K",0.4\n', encoding="utf-8")
    weights = load_weights(path)
    assert [(e.value, e.weight) for e in weights.entries] == [("<=50K", 0.1), (" >50K", 0.4)]


# --------------------------------------------------------------------------- role guesses

@pytest.mark.parametrize("name, key, role", [
    ("age", "Age", "quasi-identifier"), ("sex", "Gender", "quasi-identifier"), ("Gender", "Gender", "quasi-identifier"),
    ("race", "Race", "quasi-identifier"), ("ethnicity", "EthnicOrigin", "quasi-identifier"),
    ("marital-status", "MaritalStatus", "quasi-identifier"), ("MaritalStatus", "MaritalStatus", "quasi-identifier"),
    ("native-country", "Nationality", "quasi-identifier"), ("nationality", "Nationality", "quasi-identifier"),
    ("education", "Education", "quasi-identifier"), ("ZIPCode", "PostalCode", "quasi-identifier"),
    ("postcode", "PostalCode", "quasi-identifier"), ("date_of_birth", "BirthDate", "quasi-identifier"),
    ("occupation", "Job", "quasi-identifier"), ("salary", "Salary", "sensitive"), ("income", "Salary", "sensitive"),
    ("Initial Diagnosis", "MedicalHealth", "sensitive"), ("disease", "MedicalHealth", "sensitive"),
    ("health_status", "MedicalHealth", "sensitive"), ("religion", "Religion", "sensitive"),
    ("Patient_ID", "Identifier", "direct identifier"), ("last name", "Name", "direct identifier"),
])
def test_names_a_person_reads(name, key, role):
    match = personal_data_category(name)
    assert match is not None and (match.category.key, match.category.usual_role) == (key, role)
    assert match.category.dpv_class == f"https://w3id.org/dpv/pd#{key}"


@pytest.mark.parametrize("name", ["fnlwgt", "hours-per-week", "page", "usage", "stage",
                                  "product name"])
def test_names_without_personal_data(name):
    assert personal_data_category(name) is None


def test_adult_guesses(adult):
    guesses = guess_table_roles(adult)
    roles = {c: g.role for c, g in guesses.items()}
    for column in ("age", "sex", "race", "marital-status", "education", "native-country"):
        assert roles[column] == Role.QUASI_IDENTIFIER, column
    assert roles["salary"] == Role.SENSITIVE and not guesses["salary"].continuous
    assert roles["fnlwgt"] == roles["hours-per-week"] == Role.INSENSITIVE  # numbers say nothing by themselves
    assert guesses["capital-gain"].role == Role.SENSITIVE and guesses["capital-gain"].continuous
    assert guesses["age"].reason == "its name says age (DPV pd:Age); others may know it and link it"
    assert guesses["sex"].profile.distinct == 2 and not guesses["sex"].profile.numeric
    assert guesses["age"].profile.numeric and guesses["age"].profile.distinct == 72


def test_values_make_an_identifier_and_free_text():
    import pandas as pd
    from tklscore.core.tables.loading import Table

    n = 30
    frame = pd.DataFrame({"Patient ID": [str(i) for i in range(n)],
                          "Code": [f"X{i:03d}" for i in range(n)],
                          "Weight": [str(50 + i % 25) for i in range(n)],
                          "Notes": [f"patient {i} came in with a cough and a mild fever" for i in range(n)],
                          "Stage": [str(i % 3) for i in range(n)]})
    guesses = guess_table_roles(Table.from_frame(frame))
    assert guesses["Patient ID"].role == Role.IDENTIFIER
    assert guesses["Code"].role == Role.INSENSITIVE and "every row has its own value" in guesses["Code"].reason
    assert guesses["Weight"].role == Role.INSENSITIVE and guesses["Weight"].continuous
    assert guesses["Notes"].role == Role.INSENSITIVE and guesses["Notes"].reason.startswith("free text")
    assert guesses["Stage"].role == Role.INSENSITIVE and not guesses["Stage"].continuous
    without = guess_table_roles(Table.from_frame(frame.drop(columns=["Patient ID"])))
    assert without["Code"].role == Role.IDENTIFIER  # unique per row: the identifier when none is named
    repeated = guess_table_roles(Table.from_frame(pd.DataFrame({"id": ["1", "1", "2"], "x": ["a", "b", "c"]})))
    assert repeated["id"].role == Role.INSENSITIVE


def test_out_of_core_profiles_equal_the_loaded_ones(adult):
    with open_backend("duckdb") as backend:
        engine = profile_source(ADULT, backend=backend)
    memory = profile_table(adult)
    assert [(p.name, p.distinct, p.numeric, p.empty, p.integers) for p in engine] == \
           [(p.name, p.distinct, p.numeric, p.empty, p.integers) for p in memory]
    assert {c: g.role for c, g in guess_roles(engine).items()} == {c: g.role for c, g in guess_roles(memory).items()}


def test_describe_json_on_adult(capsys):
    code, out, err = run_cli(capsys, "describe", str(ADULT), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert {"path", "delimiter", "encoding", "rows", "spaces_stripped", "columns"} <= set(data)
    assert (data["delimiter"], data["encoding"], data["rows"]) == (",", "utf-8", 30162)
    assert data["spaces_stripped"] == STRIPPED
    columns = {c["name"]: c for c in data["columns"]}
    assert list(columns) == UCI_COLUMNS
    assert set(columns["age"]) >= {"name", "distinct", "numeric", "guessed_role", "guessed_kind", "reason"}
    for name in ("age", "sex", "race"):
        assert columns[name]["guessed_role"] == "quasi-identifier"
    assert columns["salary"]["guessed_role"] == "sensitive" and columns["salary"]["guessed_kind"] == "categorical"
    assert columns["age"] == {"name": "age", "distinct": 72, "numeric": True, "guessed_role": "quasi-identifier",
                              "guessed_kind": "categorical", "dpv_class": "https://w3id.org/dpv/pd#Age",
                              "reason": "its name says age (DPV pd:Age); others may know it and link it"}
    code, out_engine, _ = run_cli(capsys, "describe", str(ADULT), "--format", "json", "--engine", "duckdb")
    engine = json.loads(out_engine)
    assert engine["columns"] == data["columns"] and engine["spaces_stripped"] == STRIPPED
    code, text, _ = run_cli(capsys, "describe", str(ADULT))
    assert "Leading spaces removed in 14 columns" in text and "--qi age,workclass" in text
    assert any(line.split()[:4] == ["sex", "2", "no", "quasi-identifier"] for line in text.splitlines())
    code, kept, _ = run_cli(capsys, "describe", str(ADULT), "--format", "json", "--keep-spaces")
    assert json.loads(kept)["spaces_stripped"] == []


# --------------------------------------------------------------------------- Adult end to end in the CLI

def test_score_a_filter_on_adult_with_weights_without_spaces(capsys, weights):
    code, out, err = run_cli(capsys, "score", str(ADULT), "--qi", "age,sex,race", "--sa", "salary",
                             "--weights", str(weights), "--filter", "sex == 'Female'", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["published_rows"] == 9782
    assert "leading spaces removed in 14 columns" in err and "--keep-spaces keeps them" in err
    code, out_engine, err = run_cli(capsys, "score", str(ADULT), "--qi", "age,sex,race", "--sa", "salary",
                                    "--weights", str(weights), "--filter", "sex == 'Female'", "--format", "json",
                                    "--engine", "duckdb")
    assert code == 0, err
    engine = json.loads(out_engine)
    assert "leading spaces removed in 14 columns" in err  # the engine says it too
    assert engine["published_rows"] == 9782
    assert engine["scores"]["tkl"] == pytest.approx(data["scores"]["tkl"], rel=1e-12)


def test_release_with_value_groups_in_memory_and_duckdb(capsys, weights):
    args = ["release", str(ADULT), "--qi", "sex,race,age", "--sa", "salary", "--weights", str(weights),
            "--groups", RACE_GROUPS, "--groups", "sex=Male,Female->*", "--interval", "age=10",
            "--levels", "race=1,sex=1,age=1", "--format", "json"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    memory = json.loads(out)
    code, out, err = run_cli(capsys, *args, "--engine", "duckdb")
    assert code == 0, err
    engine = json.loads(out)
    assert memory["measures"]["classes"]["count"] == engine["measures"]["classes"]["count"] == 2 * 9  # ages 17..90 in 9 decades
    for key, value in memory["scores"].items():
        assert engine["scores"][key] == pytest.approx(value, rel=1e-9), key


def test_suggest_with_value_groups_on_adult(capsys, weights):
    code, out, err = run_cli(capsys, "suggest", str(ADULT), "--qi", "sex,race", "--sa", "salary",
                             "--weights", str(weights), "--groups", RACE_GROUPS, "--groups", "sex=Male,Female->*",
                             "--k", "10", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["lattice_size"] == 6 and data["front"]
    assert {tuple(sorted(c["levels"].items())) for c in data["front"]} >= {(("race", 1), ("sex", 0))}


def test_keep_spaces_needs_quoted_values(capsys, tmp_path):
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('attribute,value,weight\nsalary," <=50K",0.1\nsalary," >50K",0.4\n', encoding="utf-8")
    base = ["release", str(ADULT), "--qi", "sex", "--sa", "salary", "--keep-spaces", "--levels", "sex=1",
            "--weights", str(quoted), "--format", "json"]
    code, _, err = run_cli(capsys, *base, "--groups", "sex=Male,Female->*")
    assert code == 2 and "' Female', ' Male' have no group" in err and 'e.g. " Female"' in err
    code, out, err = run_cli(capsys, *base, "--groups", 'sex=" Male"," Female"->*')
    assert code == 0, err
    assert json.loads(out)["measures"]["classes"]["count"] == 1
    code, _, err = run_cli(capsys, "score", str(ADULT), "--delimiter", ", ", "--keep-spaces", "--qi", "sex",
                           "--sa", "salary", "--weights", str(quoted), "--rows", "0")
    assert code == 2 and "removes the spaces after each delimiter" in err


# --------------------------------------------------------------------------- a new source

def _thesis_project(tmp_path) -> Project:
    published = tmp_path / "published.csv"
    published.write_text("sex,race\nMale,White\n", encoding="utf-8")
    return Project(builtin="thesis", roles=THESIS_ROLES, model_turtle="(the model)",
                   releases=[ReleaseDefinition("Scenario 1", "ids", ids=("3", "4", "5", "6")),
                             ReleaseDefinition("Women", "filter", expression="Gender == 'Female'"),
                             ReleaseDefinition("Adult-like", "file", path=str(published)),
                             ReleaseDefinition("Older", "filter", expression="age >= 60 and `native-country` != 'x'")],
                   current_release="Scenario 1")


def test_what_applies_to_another_table(tmp_path):
    project = _thesis_project(tmp_path)
    change = source_change(project, str(ADULT), table_columns(ADULT), ["Disease", "Medication"])
    assert change.holds_work and not change.same_table
    applies = {(w.kind, w.name): w.applies for w in change.work}
    assert applies == {("roles", "roles"): False,
                       ("release", "Scenario 1"): False, ("release", "Women"): False,
                       ("release", "Adult-like"): True, ("release", "Older"): True, ("model", "model"): False}
    question = change.question()
    assert "its 4 ids name records of the other table" in question
    assert "its filter names 'Gender', not columns of the new table" in question
    assert "The roles: 'Job', 'City', 'Gender', 'Disease', 'Medication', 'Age' and 2 more are not columns" in question
    kept = keep_what_applies(project, change, str(ADULT))
    assert [r.name for r in kept.releases] == ["Adult-like", "Older"] and kept.current_release == "Adult-like"
    assert kept.model_turtle is None and not kept.roles.qi and kept.builtin is None
    assert kept.source_path == str(ADULT)
    fresh = start_new_project(str(ADULT), {"keep_spaces": True})
    assert fresh.releases == [] and fresh.source_options == {"keep_spaces": True}


def test_the_same_file_read_again_keeps_everything(tmp_path):
    project = Project(source_path=str(ADULT), releases=[ReleaseDefinition("a", "ids", ids=("1",))])
    change = source_change(project, str(ADULT), table_columns(ADULT))
    assert change.same_table and not change.holds_work
    assert not source_change(Project(), str(ADULT), table_columns(ADULT)).holds_work


def test_filter_columns():
    assert filter_columns("sex == 'Female' and `marital-status` != 'a b' or age >= 30") == \
        ["sex", "marital-status", "age"]
    from tklscore.core.release.filters import FilterError

    with pytest.raises(FilterError, match="`Job.isin\\(\\['Lawyer'\\]\\)` — method calls are not allowed in a filter"):
        filter_columns("Job.isin(['Lawyer']) and not (City == \"x\")")


_cell = st.text(alphabet=st.sampled_from(list("ab xé-")), max_size=5)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(_cell, min_size=3, max_size=3), min_size=1, max_size=8), st.booleans())
def test_loader_and_duckdb_read_spaces_alike(rows, keep):
    """One rule in memory and out of core: each cell stripped of the spaces around it, or
    kept as written; and both say the same columns had them."""
    import csv
    import io
    import tempfile

    rows = [[cell if cell.strip() else "v" for cell in row] for row in rows]  # an all-space row reads as empty
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.csv"
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_ALL).writerows([["a", "b", "c"]] + rows)
        path.write_text(buffer.getvalue(), encoding="utf-8")
        table = load_table(path, keep_spaces=keep)
        summary = describe_source(path, keep_spaces=keep)
    expected = [[cell if keep else cell.strip(" ") for cell in row] for row in rows]
    assert table.frame.values.tolist() == expected
    assert summary.preview.values.tolist() == expected
    assert summary.spaces_stripped == table.spaces_stripped
    changed = [name for j, name in enumerate("abc") if any(row[j] != row[j].strip(" ") for row in rows)]
    assert list(table.spaces_stripped.columns) == ([] if keep else changed)
