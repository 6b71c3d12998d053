"""Errors for bad input: each names the file, row and column at fault and what is wrong."""

from __future__ import annotations

import os
import stat
from pathlib import Path


SHOWN_CHARACTERS = 60


def shorten(value, limit: int = SHOWN_CHARACTERS) -> str:
    """``value`` as text for a message: at most ``limit`` characters, a longer one cut with
    its length said, so that no message echoes a huge cell."""
    text = str(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


class Cancelled(Exception):
    """Long work stopped because the user cancelled it: not a failure. Raised by a progress
    callback or a cancellation check; a task that catches it reports "cancelled"."""


class InputError(ValueError):
    """Bad input the user can fix. ``str()`` is a complete, actionable message."""

    def __init__(self, message: str, *, file: str | None = None, row: int | None = None,
                 column: str | None = None, hint: str | None = None):
        self.message = message
        self.file = file
        self.row = row
        self.column = column
        self.hint = hint
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.file:
            where.append(str(self.file))
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column '{self.column}'")
        text = (": ".join([", ".join(where), self.message]) if where else self.message)
        if self.hint:
            text += f" ({self.hint})"
        return text


class MissingWeightsError(InputError):
    """Sensitive values that have no weight; ``pairs`` lists every (attribute, value). The
    hint names the command line's remedy; the application gives its own
    (:meth:`with_hint`)."""

    def __init__(self, pairs: list[tuple[str, str]], *, file: str | None = None,
                 interval_attributes: list[str] = (), hint: str | None = None):
        self.pairs = pairs
        self.interval_attributes = list(interval_attributes)
        shown = ", ".join(f"({shorten(a, 40)!r}, {shorten(v, 40)!r})" for a, v in pairs[:50])
        more = f" and {len(pairs) - 50} more" if len(pairs) > 50 else ""
        if hint is None and self.interval_attributes:
            names = ", ".join(f"'{a}'" for a in self.interval_attributes)
            flag = ",".join(self.interval_attributes)
            hint = (f"the weights file gives intervals such as [0,30) for {names}, which apply to a continuous "
                    f"column only: add --continuous {flag}")
        elif hint is None:
            hint = ("add them to the weights file, or treat missing weights as 0 explicitly "
                    "(--missing-weight-zero)")
        super().__init__(f"{len(pairs)} sensitive value(s) have no weight: {shown}{more}", file=file, hint=hint)

    def with_hint(self, hint: str) -> "MissingWeightsError":
        """The same refusal with another remedy (e.g. the application's own)."""
        return MissingWeightsError(self.pairs, file=self.file, interval_attributes=self.interval_attributes,
                                   hint=hint)


def _special_kind(mode: int) -> str | None:
    """What a non-regular, non-folder file is, in words (None for a regular file or a folder)."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def existing_file(path, what: str = "file", *, folder: bool = False):
    """``path`` as a Path if it is a regular file (with ``folder``: or a folder), else an
    error saying what is wrong. Decided from the file's status alone, before it is opened:
    a named pipe, a device or a socket is refused (reading one would block, or never end)."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(f"{what} not found", file=str(path)) from None
    except NotADirectoryError:
        raise InputError(f"{what} not found (a part of the path is a file, not a folder)", file=str(path)) from None
    except OSError as error:
        raise InputError(f"cannot be read: {error.strerror or error}", file=str(path)) from None
    if stat.S_ISDIR(mode) and not folder:
        raise InputError(f"is a folder, not a {what}", file=str(path))
    special = _special_kind(mode)
    if special:
        raise InputError(f"is {special}, not a regular {what}; it is refused before it is opened",
                         file=str(path), hint="save the data to a regular file and give that file")
    return path


def check_limit(count: int, limit: int, *, what: str, unit: str, verb: str = "evaluate",
                hint: str | None = None, file: str | None = None, column: str | None = None) -> None:
    """Refuse, before it starts, work whose size is known in advance and beyond ``limit``;
    the message says how much and the limit: "{what} would {verb} {count} {unit}; at most
    {limit} are allowed", e.g. "QI importance over 17 quasi-identifiers would evaluate
    131,071 subsets; at most 65,535 are allowed"."""
    if count > limit:
        raise InputError(f"{what} would {verb} {count:,} {unit}; at most {limit:,} are allowed",
                         file=file, column=column, hint=hint)


MAX_SEED = 2**63 - 1


def check_seed(seed, what: str = "seed") -> int:
    """A random seed as an int: a whole number from 0 to 2^63 − 1 (numpy's generators take
    no negative seed; one rule for every seed a user gives, so each is refused alike)."""
    if isinstance(seed, bool):
        raise InputError(f"{what} {seed!r} is not a whole number")
    try:
        value = int(seed) if not isinstance(seed, float) or seed.is_integer() else None
    except (TypeError, ValueError, OverflowError):
        value = None
    if value is None:
        raise InputError(f"{what} {shorten(seed)!r} is not a whole number",
                         hint=f"give a whole number from 0 to {MAX_SEED:,}")
    if not 0 <= value <= MAX_SEED:
        raise InputError(f"{what} {shorten(value)} is not allowed: a seed is a whole number from 0 to {MAX_SEED:,}",
                         hint="the same seed gives the same result; any seed in that range will do")
    return value
