"""Errors for bad input: each names the file, row and column at fault and what is wrong."""

from __future__ import annotations


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
    """Sensitive values that have no weight; ``pairs`` lists every (attribute, value)."""

    def __init__(self, pairs: list[tuple[str, str]], *, file: str | None = None,
                 interval_attributes: list[str] = ()):
        self.pairs = pairs
        self.interval_attributes = list(interval_attributes)
        shown = ", ".join(f"({shorten(a, 40)!r}, {shorten(v, 40)!r})" for a, v in pairs[:50])
        more = f" and {len(pairs) - 50} more" if len(pairs) > 50 else ""
        if self.interval_attributes:
            names = ", ".join(f"'{a}'" for a in self.interval_attributes)
            flag = ",".join(self.interval_attributes)
            hint = (f"the weights file gives intervals such as [0,30) for {names}, which apply to a continuous "
                    f"column only: add --continuous {flag} (in the application: make it continuous)")
        else:
            hint = ("add them to the weights file, or treat missing weights as 0 explicitly "
                    "(--missing-weight-zero)")
        super().__init__(f"{len(pairs)} sensitive value(s) have no weight: {shown}{more}", file=file, hint=hint)


def existing_file(path, what: str = "file"):
    """``path`` as a Path if it is a readable file, else an error saying what is wrong."""
    from pathlib import Path

    path = Path(path)
    if path.is_dir():
        raise InputError(f"is a folder, not a {what}", file=str(path))
    if not path.is_file():
        raise InputError(f"{what} not found", file=str(path))
    return path
