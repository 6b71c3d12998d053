"""Role guesses a person would make, before the roles are set: from a column's name (the
DPV personal-data categories of :mod:`tklscore.core.tables.personal_data`) and from its
values (:class:`ColumnProfile`: distinct values, numbers, unique per row, free text).
Each guess says it is one, with its reason; the user confirms or changes it.

The rules, in order, for each column:

1. **identifier** — a column whose name names an identifier (``id``, ``…_id``, ``key``,
   ``record``, a person's name, an e-mail address, a telephone number) and whose values
   are all present and unique per row is the identifier (the first such; any later one is
   insensitive, named as a direct identifier to leave out of a release);
2. **by name** — a name of a personal-data category is that category's usual role: age,
   sex/gender, race, ethnicity, marital status, nationality, education, postcode, birth
   date, occupation, family relationship, place are **quasi-identifiers**; income/salary,
   financial, health and diagnosis terms, religion, sexual orientation, politics, criminal
   records, genetic data are **sensitive**;
3. **by values** — without such a name: values unique per row (at least
   :data:`MIN_ROWS_FOR_UNIQUE` rows) make the identifier when there is none yet; free text
   (long values with spaces, nearly all different) and every other column are
   **insensitive**: what a column without a telling name means is the user's to say.

A sensitive column whose cells are all numbers with at least ``min(MANY_DISTINCT, rows/2)``
distinct values is **continuous**; any other column is categorical (the kind matters only
for a sensitive attribute, but it is said for every column).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tklscore.core.tables.personal_data import (DIRECT_IDENTIFIER, QUASI_IDENTIFIER, SENSITIVE, NameMatch,
                                                personal_data_category)
from tklscore.core.tables.roles import Role

MANY_DISTINCT = 10        # a numeric column with at least this many distinct values reads as continuous
MIN_ROWS_FOR_UNIQUE = 10  # in a smaller table any column may be unique by chance
FREE_TEXT_LENGTH = 25     # mean characters of a free-text value
CONTINUOUS = "continuous"
CATEGORICAL = "categorical"


@dataclass(frozen=True)
class ColumnProfile:
    """What the guesses read from a column's values."""

    name: str
    rows: int
    distinct: int              # distinct values (the empty cell counts as one)
    numeric: bool              # every cell is a finite number as written
    empty: int = 0             # empty cells
    mean_length: float = 0.0   # mean characters of the distinct values
    spaced: float = 0.0        # share of the distinct values holding a space inside
    integers: bool = False     # numeric, and every number whole

    @property
    def unique(self) -> bool:
        return self.rows >= 2 and self.empty == 0 and self.distinct == self.rows

    @property
    def free_text(self) -> bool:
        return (not self.numeric and self.rows >= 2 and self.distinct >= 0.5 * self.rows
                and self.mean_length >= FREE_TEXT_LENGTH and self.spaced >= 0.5)

    def many_numbers(self) -> bool:
        """Numbers with many distinct values: a continuous attribute, if sensitive."""
        many = max(2, min(MANY_DISTINCT, self.rows // 2))
        return self.numeric and self.distinct >= many


@dataclass(frozen=True)
class RoleGuess:
    """The guessed role of a column and why (``reason`` completes "guessed … because …")."""

    column: str
    role: Role
    continuous: bool
    reason: str
    profile: ColumnProfile
    match: NameMatch | None = None

    @property
    def kind(self) -> str:
        return CONTINUOUS if self.continuous else CATEGORICAL

    @property
    def dpv_class(self) -> str | None:
        return self.match.category.dpv_class if self.match is not None else None

    def to_json_dict(self) -> dict:
        """The column as ``tklscore describe --format json`` lists it."""
        return {"name": self.column, "distinct": self.profile.distinct, "numeric": self.profile.numeric,
                "guessed_role": self.role.value, "guessed_kind": self.kind, "reason": self.reason,
                "dpv_class": self.dpv_class}


def profile_table(table) -> list[ColumnProfile]:
    """Each column's profile from a loaded :class:`~tklscore.core.tables.loading.Table`
    (its codes: one pass per column, kept for scoring)."""
    rows = len(table)
    profiles = []
    for column in table.columns:
        codes = table.codes(column)
        uniques = np.asarray(codes.uniques, dtype=object).astype(str)
        empty_code = np.flatnonzero(uniques == "")
        empty = int(np.count_nonzero(codes.codes == empty_code[0])) if len(empty_code) else 0
        profiles.append(profile_of_uniques(str(column), rows, uniques, empty))
    return profiles


def profile_of_uniques(name: str, rows: int, uniques, empty: int) -> ColumnProfile:
    """A profile from a column's distinct values (text as written) and its empty cells."""
    uniques = pd.Series(np.asarray(uniques, dtype=object), dtype=object)
    present = uniques[uniques != ""]
    numbers = pd.to_numeric(present, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    numeric = bool(rows and empty == 0 and len(present) and np.isfinite(numbers).all())
    integers = numeric and bool((numbers == np.floor(numbers)).all())
    lengths = present.str.len()
    mean_length = float(lengths.mean()) if len(present) else 0.0
    spaced = float(present.str.strip().str.contains(" ", regex=False).mean()) if len(present) else 0.0
    return ColumnProfile(name, rows, int(len(uniques)), numeric, empty, mean_length, spaced, integers)


def guess_roles(profiles: list[ColumnProfile]) -> dict[str, RoleGuess]:
    """The guessed role of each column (see the module's rules), in column order."""
    guesses: dict[str, RoleGuess] = {}
    identifier_taken = False
    # the identifier goes to an identifier-named unique column before a merely unique one
    for profile in profiles:
        match = personal_data_category(profile.name)
        if match is not None and match.category.key == "Identifier" and profile.unique and not identifier_taken:
            guesses[profile.name] = RoleGuess(profile.name, Role.IDENTIFIER, False,
                                              f"{match.reason()} and every row has its own value", profile, match)
            identifier_taken = True
    for profile in profiles:
        if profile.name in guesses:
            continue
        guess = _guess(profile, identifier_taken)
        identifier_taken = identifier_taken or guess.role == Role.IDENTIFIER
        guesses[profile.name] = guess
    return {p.name: guesses[p.name] for p in profiles}


def _guess(profile: ColumnProfile, identifier_taken: bool) -> RoleGuess:
    match = personal_data_category(profile.name)
    name = profile.name
    if profile.rows and profile.empty == profile.rows:
        return RoleGuess(name, Role.INSENSITIVE, False, "every cell is empty", profile, match)
    if match is not None:
        category = match.category
        if category.usual_role == DIRECT_IDENTIFIER:
            if profile.unique and not identifier_taken:
                return RoleGuess(name, Role.IDENTIFIER, False,
                                 f"{match.reason()} and every row has its own value", profile, match)
            repeat = "" if profile.unique else f"; {profile.rows - profile.distinct:,} values repeat, so it " \
                                               f"cannot be the identifier"
            return RoleGuess(name, Role.INSENSITIVE, False,
                             f"{match.reason()}, a direct identifier: leave it out of a release{repeat}",
                             profile, match)
        if category.usual_role == QUASI_IDENTIFIER:
            return RoleGuess(name, Role.QUASI_IDENTIFIER, False, f"{match.reason()}; {category.why}",
                             profile, match)
        if category.usual_role == SENSITIVE:
            continuous = profile.many_numbers()
            kind = f"; {profile.distinct:,} distinct numbers, so continuous" if continuous else ""
            return RoleGuess(name, Role.SENSITIVE, continuous, f"{match.reason()}; {category.why}{kind}",
                             profile, match)
    if profile.unique and profile.rows >= MIN_ROWS_FOR_UNIQUE and not profile.free_text:
        if not identifier_taken and (profile.integers or not profile.numeric):
            return RoleGuess(name, Role.IDENTIFIER, False, "every row has its own value, as an identifier's",
                             profile)
        return RoleGuess(name, Role.INSENSITIVE, False,
                         "every row has its own value, like an identifier: leave it out of a release, or "
                         "choose a role if it says something about a person", profile)
    if profile.free_text:
        return RoleGuess(name, Role.INSENSITIVE, False,
                         "free text (long values, nearly all different): it may name people or hold "
                         "health details — read it before release; it cannot be grouped", profile)
    if profile.many_numbers():
        return RoleGuess(name, Role.INSENSITIVE, True,
                         f"{profile.distinct:,} distinct numbers and a name that names no personal data: "
                         f"make it sensitive (continuous) if it says something a person would not want known",
                         profile)
    return RoleGuess(name, Role.INSENSITIVE, False,
                     "its name names no personal data: choose a role if it says something about a person", profile)


def guess_table_roles(table) -> dict[str, RoleGuess]:
    """:func:`guess_roles` of a loaded table."""
    return guess_roles(profile_table(table))
