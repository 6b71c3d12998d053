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

    def validate(self, source, numbers: bool = True) -> None:
        """Every named column exists in ``source`` — a loaded ``Table``, or what is known
        of a source not loaded: its column names (a list, or anything with ``columns`` and
        ``path``, such as an out-of-core ``SourceSummary``); with ``numbers``, a Table's
        continuous SAs parse as numbers (out of core the engine checks them as it reads the
        source; the Scorer as it factorises the columns)."""
        columns = list(source) if isinstance(source, (list, tuple)) else list(source.columns)
        name = getattr(source, "name", None) if hasattr(source, "numeric") else getattr(source, "path", None)
        named = list(self.qi) + list(self.sa) + ([self.identifier] if self.identifier else [])
        missing = [c for c in named if c not in columns]
        if missing:
            raise InputError(f"column {', '.join(repr(shorten(c)) for c in missing)} not found; the table has "
                             f"columns {', '.join(repr(shorten(c)) for c in columns)}", file=name)
        if numbers and hasattr(source, "numeric"):
            for column in self.sa:
                if column in self.continuous:
                    source.numeric(column)
