"""Project files and release definitions (core, no Qt)."""

import json
import math

import pytest

from tklscore.core import InputError, Roles
from tklscore.core.examples import thesis_example, thesis_model
from tklscore.core.project import Project
from tklscore.core.release.selection import ReleaseDefinition, filter_positions, resolve_release


def test_release_definitions_resolve(tmp_path):
    example = thesis_example()
    by_ids = resolve_release(ReleaseDefinition("S1", "ids", ids=("3", "4", "5", "6")), example.source, example.roles)
    assert by_ids.positions.tolist() == [3, 4, 5, 6] and by_ids.name == "S1"
    by_filter = resolve_release(ReleaseDefinition("S1f", "filter", expression="City == 'Edmonton'"),
                                example.source, example.roles)
    assert by_filter.positions.tolist() == [3, 4, 5, 6] and by_filter.ids.tolist() == ["3", "4", "5", "6"]
    assert filter_positions(example.source, example.roles, "Age >= 30 and `Initial Diagnosis` != 'HIV'").tolist() == [4]
    published = tmp_path / "p.csv"
    published.write_text("id,Job\n3,Lawyer\n99,Lawyer\n")
    by_file = resolve_release(ReleaseDefinition("F", "file", path=str(published)), example.source, example.roles)
    assert by_file.positions.tolist() == [3] and by_file.unlocated == ["id '99'"]


@pytest.mark.parametrize("expression,message", [
    ("", "the filter expression is empty"),
    ("Age >>= 3", "arithmetic \\('>>'\\) is not allowed"),
    ("Nope == 1", "'Nope' is not a column of the source"),
    ("Age + 1", "arithmetic \\('\\+'\\) is not allowed"),
    ("Age", "on its own is not a condition"),
])
def test_bad_filters(expression, message):
    example = thesis_example()
    with pytest.raises(InputError, match=message):
        filter_positions(example.source, example.roles, expression)


def test_bad_release_definitions():
    with pytest.raises(InputError, match="unknown kind 'rows'"):
        ReleaseDefinition("x", "rows")
    with pytest.raises(InputError, match="needs a name"):
        ReleaseDefinition("  ")


def test_project_round_trip_with_relative_paths(tmp_path):
    (tmp_path / "data").mkdir()
    source = tmp_path / "data" / "source.csv"
    source.write_text("id,a\n1,x\n")
    project = Project(source_path=str(source), source_options={"delimiter": ","},
                      roles=Roles(qi=["a"], sa=["b"], continuous=["b"], identifier="id"),
                      releases=[ReleaseDefinition("one", "ids", ids=("1",)),
                                ReleaseDefinition("file", "file", path=str(tmp_path / "data" / "p.csv")),
                                ReleaseDefinition("f", "filter", expression="a == 'x'")],
                      current_release="f", model_turtle=thesis_model().to_graph().serialize(format="turtle"),
                      x=math.inf, settings={"chart": "growth"})
    path = tmp_path / "p.tklproj"
    project.save(path)
    stored = json.loads(path.read_text())
    assert stored["source"]["path"] == "data/source.csv" and stored["x"] == "inf"
    assert stored["releases"][1]["path"] == "data/p.csv"
    again = Project.load(path)
    assert again == project
    # moving the whole folder keeps the project working
    moved = tmp_path.parent / (tmp_path.name + "-moved")
    tmp_path.rename(moved)
    assert Project.load(moved / "p.tklproj").source_path == str((moved / "data" / "source.csv").resolve())


@pytest.mark.parametrize("text,message", [
    ("not json", "not JSON"),
    ("[1, 2]", "is not a tkl-Score Workbench project"),
    ('{"format": "other"}', "is not a tkl-Score Workbench project"),
    ('{"format": "tklscore-project", "version": 99}', "newer version"),
    ('{"format": "tklscore-project", "version": 1}', "is damaged"),
    ('{"format": "tklscore-project", "version": 1, "source": {}, "roles": {"qi": ["a"], "sa": ["a"]}}',
     "has two roles"),
])
def test_bad_project_files(tmp_path, text, message):
    path = tmp_path / "bad.tklproj"
    path.write_text(text)
    with pytest.raises(InputError, match=message) as caught:
        Project.load(path)
    assert str(path) in str(caught.value)


def test_a_release_definition_hashes_its_ids_once_and_compares_by_value():
    import dataclasses

    ids = tuple(str(i) for i in range(100_000))
    a = ReleaseDefinition("sample", "ids", ids=ids)
    b = ReleaseDefinition("sample", "ids", ids=list(range(100_000)))  # numbers become their text
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert hash(a) == hash(("sample", "ids", ids, None, None))      # the fields' hash, kept
    assert a.__dict__["_hash"] == hash(a)
    other = dataclasses.replace(a, name="other")
    assert other != a and hash(other) == hash(("other", "ids", ids, None, None))
    assert ReleaseDefinition("f", "file", path="x.csv", options={"delimiter": ";"}) == \
        ReleaseDefinition("f", "file", path="x.csv")                 # options do not count, as before
    assert a.to_dict() == {"name": "sample", "kind": "ids", "ids": list(ids)}
