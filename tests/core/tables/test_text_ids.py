"""A text identifier column is checked and looked up as Arrow text (tables/published.py:
``TextIds``): the same releases, errors and conflicts as a plain look-up of Python strings,
whichever side Arrow hashes and whether or not the ids come in increasing order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from tklscore.core import InputError, Table
from tklscore.core.tables.published import TextIds, locate_by_ids, locate_table, source_ids


def _table(ids, **columns) -> Table:
    return Table(pd.DataFrame({"id": pd.Series(ids, dtype="str"), **{k: pd.Series(v, dtype="str")
                                                                      for k, v in columns.items()}}), name="s.csv")


@settings(max_examples=60, deadline=None)
@given(ids=st.lists(st.text("ab7 ", min_size=1, max_size=4), min_size=1, max_size=30, unique=True),
       data=st.data())
def test_positions_of_agrees_with_a_dictionary_of_the_ids(ids, data):
    wanted = data.draw(st.lists(st.text("ab7 ", min_size=1, max_size=4), max_size=40, unique=True))
    found = TextIds(_table(ids).text("id")).positions_of(np.asarray(wanted, dtype=object))
    where = {v: i for i, v in enumerate(ids)}
    assert found.tolist() == [where.get(w, -1) for w in wanted]   # few or many wanted: both sides hashed alike


def test_ids_in_any_order_are_checked_for_repeats_and_empties():
    assert source_ids(_table(["P3", "P1", "P2"]), "id").positions_of(["P2", "P9"]).tolist() == [2, -1]
    with pytest.raises(InputError, match=r"identifier 'P1' appears 2 times \(rows 1, 4\)"):
        source_ids(_table(["P1", "P2", "P0", "P1"]), "id")
    with pytest.raises(InputError, match=r"identifier 'P1' appears 2 times"):
        source_ids(_table(["P0", "P1", "P1"]), "id")   # in order, but not increasing
    with pytest.raises(InputError, match="identifier is empty") as raised:
        source_ids(_table(["P0", "P1", ""]), "id")
    assert raised.value.row == 3   # a table without a header line counts from 1


def test_a_release_located_by_text_ids_with_its_conflicts():
    source = _table([f"P{i:03d}" for i in range(100)], disease=["flu"] * 100, amount=[str(i) for i in range(100)])
    published = _table(["P007", "P050", "P099"], disease=["flu", "hiv", "flu"], amount=["7", "50", "x"])
    release = locate_table(source, published, "id", frozenset({"amount"}), ["disease", "amount"])
    assert release.positions.tolist() == [7, 50, 99] and release.ids.tolist() == ["P007", "P050", "P099"]
    assert release.conflicts == ["id 'P050' (row 2): disease 'hiv' (source 'flu')",
                                 "id 'P099' (row 3): amount 'x' (source '99')"]
    missing = locate_by_ids(source, ["P001", "Q1", " P002 "], "id")
    assert missing.positions.tolist() == [1, 2] and missing.unlocated == ["id 'Q1'"]


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.text("0123456789", min_size=1, max_size=3), max_size=30, unique=True))
def test_row_numbers_as_a_project_keeps_them_are_read_as_before(rows):
    """Text of plain digits takes Arrow's path; the same ids as ints (the general path) give
    the same release, unless two name one row ("7" and "07"), which the general path reads."""
    source = _table([f"r{i}" for i in range(120)])
    release = locate_by_ids(source, rows)
    expected = [(r, int(r)) for r in rows if int(r) < 120]
    assert list(zip(release.ids.tolist(), release.positions.tolist())) == expected
    assert release.unlocated == [f"id '{r}'" for r in rows if int(r) >= 120]
    if len({int(r) for r in rows}) == len(rows) and all(r == str(int(r)) for r in rows):
        plain = locate_by_ids(source, [int(r) for r in rows])
        assert plain.positions.tolist() == release.positions.tolist() and plain.ids.tolist() == release.ids.tolist()
    with pytest.raises(InputError, match="listed more than once"):
        locate_by_ids(source, ["3", "4", "3"])
