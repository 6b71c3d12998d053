"""Joining two teaching tables on rules (ppdp-prototype.md §1.3 Join view, §2.5)."""

import pandas as pd
import pytest

from tklscore.core.errors import InputError
from tklscore.core.learn import datasets
from tklscore.core.learn.join import JoinRule, join, parse_rule

P, J = "Person_Relational", "Job_Relational"


def test_person_job_join_on_id():
    tables = datasets.generate()
    rule = parse_rule("Job_Relational.id = Person_Relational.id", P, J)
    assert rule == JoinRule("id", "id")
    joined = join(tables[P], tables[J], [rule], P, J)
    assert list(joined.columns) == ["id", "name", "last name", "age", "gender", "job"]
    assert len(joined) == 20
    expected = tables[J].set_index("id")["job"]
    assert all(expected[row.id] == row.job for row in joined.itertuples())


def test_clashing_columns_are_both_kept():
    left = pd.DataFrame({"id": [1, 2], "name": ["a", "b"]})
    right = pd.DataFrame({"pid": [2, 1], "name": ["x", "y"]})
    joined = join(left, right, [JoinRule("id", "pid")], "L", "R")
    assert list(joined.columns) == ["id", "L.name", "R.name"]
    assert joined.set_index("id")["R.name"].to_dict() == {1: "y", 2: "x"}


def test_keys_of_different_types_still_match():
    joined = join(pd.DataFrame({"id": [1, 2]}), pd.DataFrame({"id": ["2", "1"], "j": ["b", "a"]}),
                  [JoinRule("id", "id")], "L", "R")
    assert joined["j"].tolist() == ["a", "b"]


@pytest.mark.parametrize("text, fragment", [
    ("Person_Relational.id", "write it as"),
    ("Person_Relational.id = Person_Relational.name", "one side must be"),
    ("Other.id = Job_Relational.id", "must name a column"),
])
def test_bad_rules(text, fragment):
    with pytest.raises(InputError, match=fragment):
        parse_rule(text, P, J)


def test_no_rules_and_empty_join_are_said_plainly():
    tables = datasets.generate()
    with pytest.raises(InputError, match="No rules defined"):
        join(tables[P], tables[J], [], P, J)
    with pytest.raises(InputError, match="no rows match"):
        join(tables[P], tables[J], [JoinRule("name", "job")], P, J)
    with pytest.raises(InputError, match="has no column 'city'"):
        join(tables[P], tables[J], [JoinRule("city", "id")], P, J)
