"""Attribute roles (thesis Definitions 1-4): identifier, quasi-identifier, sensitive, insensitive.

A column has exactly one role. A sensitive attribute is continuous (ordered, numeric) or
categorical; every column without a role is insensitive.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tklscore.core.errors import InputError, shorten


class Role(Enum):
    IDENTIFIER = "identifier"
    QUASI_IDENTIFIER = "quasi-identifier"
    SENSITIVE = "sensitive"
    INSENSITIVE = "insensitive"


@dataclass(frozen=True)
class Roles:
    """Which columns are quasi-identifiers (``qi``) and sensitive attributes (``sa``),
    which SAs are continuous, and the identifier column locating published records."""

    qi: tuple[str, ...] = ()
    sa: tuple[str, ...] = ()
    continuous: frozenset[str] = frozenset()
    identifier: str | None = None

    def __init__(self, qi=(), sa=(), continuous=(), identifier: str | None = None):
        object.__setattr__(self, "qi", tuple(qi))
        object.__setattr__(self, "sa", tuple(sa))
        object.__setattr__(self, "continuous", frozenset(continuous))
        object.__setattr__(self, "identifier", identifier or None)
        self._check_consistent()

    def _check_consistent(self) -> None:
        claimed: dict[str, str] = {}
        named = [(c, Role.QUASI_IDENTIFIER) for c in self.qi] + [(c, Role.SENSITIVE) for c in self.sa]
        if self.identifier is not None:
            named.append((self.identifier, Role.IDENTIFIER))
        for column, role in named:
            if column in claimed:
                if claimed[column] == role.value:
                    raise InputError(f"is named twice as {role.value}", column=column)
                raise InputError(f"has two roles ({claimed[column]} and {role.value}); a column has one role",
                                 column=column)
            claimed[column] = role.value
        stray = sorted(self.continuous - set(self.sa))
        if stray:
            raise InputError("declared continuous but not sensitive; only sensitive attributes are "
                             "continuous or categorical", column=stray[0])

    def role_of(self, column: str) -> Role:
        if column == self.identifier:
            return Role.IDENTIFIER
        if column in self.qi:
            return Role.QUASI_IDENTIFIER
        if column in self.sa:
            return Role.SENSITIVE
        return Role.INSENSITIVE

    def is_continuous(self, column: str) -> bool:
        return column in self.continuous

    def validate(self, source) -> None:
        """Every named column exists in ``source`` — a loaded ``Table``, or what is known
        of a source not loaded: its column names (a list, or anything with ``columns`` and
        ``path``, such as an out-of-core ``SourceSummary``); a Table's continuous SAs parse
        as numbers (out of core the engine checks them as it reads the source)."""
        columns = list(source) if isinstance(source, (list, tuple)) else list(source.columns)
        name = getattr(source, "name", None) if hasattr(source, "numeric") else getattr(source, "path", None)
        named = list(self.qi) + list(self.sa) + ([self.identifier] if self.identifier else [])
        missing = [c for c in named if c not in columns]
        if missing:
            raise InputError(f"column {', '.join(repr(shorten(c)) for c in missing)} not found; the table has "
                             f"columns {', '.join(repr(shorten(c)) for c in columns)}", file=name)
        if hasattr(source, "numeric"):
            for column in self.sa:
                if column in self.continuous:
                    source.numeric(column)


# ---------------------------------------------------------------------------- guesses

_ID_NAMES = {"id", "identifier", "key", "record", "recordid", "record_id", "record id", "rowid", "row_id",
             "patientid", "patient_id", "patient id"}
_QUICK = 1000
MANY_DISTINCT = 20  # a numeric column with at least this many distinct values reads as continuous


def _looks_like_id(name: str) -> bool:
    lowered = name.strip().lower()
    return lowered in _ID_NAMES or lowered.endswith(("_id", " id", "-id"))


def guess_roles(table, sample_rows: int | None = None) -> dict[str, tuple[Role, bool]]:
    """Suggested ``(role, continuous)`` for each column of ``table``, for the user to confirm.

    The rules are deliberately simple (they only pre-fill the form):

    * the first column named like an id (``id``, ``identifier``, ``key``, ``…_id``, ``… id``)
      whose values are all non-empty and unique is the **identifier** (any other id-like
      column is insensitive);
    * a column whose cells all parse as numbers and that has many distinct values
      (at least ``min(MANY_DISTINCT, half the rows)``, and at least 2) is a **continuous
      sensitive** attribute;
    * every other column is **insensitive**: quasi-identifiers and categorical sensitive
      attributes depend on what the data means, so the user chooses them.

    With ``sample_rows`` the numeric test looks at the first ``sample_rows`` rows only (fast
    for a large table; applying the roles still checks every cell of a continuous column).
    """
    import pandas as pd

    frame = table.frame
    rows = len(frame)
    many = max(2, min(MANY_DISTINCT, min(rows, sample_rows or rows) // 2))
    guesses: dict[str, tuple[Role, bool]] = {}
    identifier_found = False
    for column in frame.columns:
        values = frame[column]
        if _looks_like_id(str(column)):
            unique = rows > 0 and not (values == "").any() and values.is_unique
            guesses[column] = (Role.IDENTIFIER if unique and not identifier_found else Role.INSENSITIVE, False)
            identifier_found = identifier_found or unique
            continue
        # a small sample rejects text columns cheaply; a numeric-looking column is then checked
        if rows and pd.to_numeric(values.iloc[:_QUICK], errors="coerce").notna().all():
            numbers = pd.to_numeric(values if sample_rows is None else values.iloc[:sample_rows], errors="coerce")
            if numbers.notna().all() and numbers.nunique() >= many and _finite(numbers):
                guesses[column] = (Role.SENSITIVE, True)
                continue
        guesses[column] = (Role.INSENSITIVE, False)
    return guesses


def _finite(numbers) -> bool:
    import numpy as np

    return bool(np.isfinite(numbers.to_numpy(dtype="float64")).all())
