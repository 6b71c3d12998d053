"""Joining two teaching tables on rules (the prototype's Join view, MultiRelational k-anonymity).

A rule says that a column of the first table equals a column of the second
(``Job_Relational.id = Person_Relational.id``). The join is an inner join on every rule.
Columns that a rule equates become one column; any other column name the two tables share
is kept twice, prefixed with its table's name (the prototype let the later table win,
silently losing a column).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from tklscore.core.errors import InputError


@dataclass(frozen=True)
class JoinRule:
    left: str
    right: str

    def text(self, left_name: str, right_name: str) -> str:
        return f"{left_name}.{self.left} = {right_name}.{self.right}"


def parse_rule(text: str, left_name: str, right_name: str) -> JoinRule:
    """``Left.col = Right.col`` (either order) as a rule between the two named tables."""
    parts = [p.strip() for p in text.split("=")]
    if len(parts) != 2 or not all(parts):
        raise InputError(f"join rule '{text}': write it as {left_name}.column = {right_name}.column")
    sides = {}
    for part in parts:
        table, dot, column = part.partition(".")
        if not dot or table.strip() not in (left_name, right_name):
            raise InputError(f"join rule '{text}': '{part}' must name a column of {left_name} or {right_name}, "
                             f"as {left_name}.column")
        if table.strip() in sides:
            raise InputError(f"join rule '{text}': one side must be a column of {left_name}, "
                             f"the other a column of {right_name}")
        sides[table.strip()] = column.strip()
    return JoinRule(sides[left_name], sides[right_name])


def join(left: pd.DataFrame, right: pd.DataFrame, rules: list[JoinRule],
         left_name: str = "left", right_name: str = "right") -> pd.DataFrame:
    if not rules:
        raise InputError("No rules defined: add a rule saying which column of one table equals a column of the other")
    for rule in rules:
        if rule.left not in left.columns:
            raise InputError(f"join rule {rule.text(left_name, right_name)}: {left_name} has no column '{rule.left}'")
        if rule.right not in right.columns:
            raise InputError(f"join rule {rule.text(left_name, right_name)}: {right_name} has no column '{rule.right}'")
    left_keys = [rule.left for rule in rules]
    right_keys = [rule.right for rule in rules]
    clash = (set(left.columns) & set(right.columns)) - set(left_keys) - set(right_keys)
    lhs = left.rename(columns={c: f"{left_name}.{c}" for c in clash})
    rhs = right.rename(columns={c: f"{right_name}.{c}" for c in clash})
    if any(left[l].dtype != right[r].dtype for l, r in zip(left_keys, right_keys)):
        lhs, rhs = lhs.astype({c: str for c in left_keys}), rhs.astype({c: str for c in right_keys})
    joined = lhs.merge(rhs, how="inner", left_on=left_keys, right_on=right_keys, sort=False)
    joined = joined.drop(columns=[c for c in right_keys if c not in left_keys and c in joined.columns])
    if joined.empty:
        raise InputError("The rules are defined but no rows match them: check the rules and remove any incorrect "
                         "ones (can you expect a job to be equal to a disease?)")
    return joined.reset_index(drop=True)
