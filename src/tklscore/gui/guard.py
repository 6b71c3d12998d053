"""The one error guard of the GUI: run an action; bad input becomes a specific message for
the user, never a traceback. Views report through ``workbench.failed`` (the main window
shows it as a dialog); the task runner (``gui/tasks.py``), the views' deferred refreshes
(``gui/when_shown.py``) and the application's last-resort hook (``gui/app.py``) say it in
the same words.

Bad input is an :class:`InputError` (core's own, naming file, row and column), a file that
cannot be read or written (``OSError``), and what the parsers of other libraries raise for
input they cannot read (``ValueError`` and its kin — Unicode, JSON, Arrow —, CSV, ZIP and
XML errors, nesting too deep for the recursion limit, a number too large, memory running
out). Anything else is a bug: it is said as one ("… failed unexpectedly"), with the details
on stderr."""

from __future__ import annotations

import csv
import sys
import traceback
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from xml.etree.ElementTree import ParseError
from xml.parsers.expat import ExpatError

from tklscore.core.errors import InputError, shorten

BAD_INPUT: tuple[type[BaseException], ...] = (
    InputError, OSError, ValueError, csv.Error, zipfile.BadZipFile, zlib.error, ParseError, ExpatError,
    RecursionError, OverflowError, MemoryError)


def is_bad_input(error: BaseException) -> bool:
    return isinstance(error, BAD_INPUT)


def error_text(error: BaseException, doing: str | None = None) -> str:
    """The message for ``error``; ``doing`` names the action (for errors that do not name
    their input themselves)."""
    if isinstance(error, InputError):
        return str(error)
    if isinstance(error, OSError):
        where = getattr(error, "filename", None) or ""
        return f"{where}: {error.strerror or error}" if where else str(error.strerror or error)
    prefix = f"{doing}: " if doing else ""
    if isinstance(error, MemoryError):
        return f"{prefix}not enough memory (the input is too large for this machine; try a smaller one)"
    if isinstance(error, RecursionError):
        return f"{prefix}the input is nested too deeply to be read"
    if isinstance(error, UnicodeError):
        return f"{prefix}the input holds text that is not in the expected encoding ({shorten(error, 200)})"
    if is_bad_input(error):
        return f"{prefix}the input cannot be read ({error.__class__.__name__}: {shorten(error, 200)})"
    return (f"{doing or 'The action'} failed unexpectedly: {error.__class__.__name__}: {shorten(error, 200)} "
            f"(please report it)")


@dataclass(frozen=True)
class Guarded:
    """What a guarded call gave: ``ok`` (true as a condition) and, when ok, the function's ``value``."""

    ok: bool
    value: object = None

    def __bool__(self) -> bool:
        return self.ok


def call_guarded(report: Callable[[str], object], function: Callable, *args) -> Guarded:
    """Call ``function(*args)`` and return what it gave; on bad input pass its message to
    ``report`` (not ok). A bug is reported too (never a silent failure), with its traceback on stderr."""
    try:
        return Guarded(True, function(*args))
    except Exception as error:  # noqa: BLE001 - the guard: every failure becomes a message
        if not is_bad_input(error):
            traceback.print_exc()
        report(error_text(error))
        return Guarded(False)


def run_guarded(report: Callable[[str], object], function: Callable, *args) -> bool:
    """:func:`call_guarded` where only whether it went well matters."""
    return call_guarded(report, function, *args).ok


def report_uncaught(report: Callable[[str], object]):
    """A ``sys.excepthook`` for the application: an exception no guard caught (raised in a
    Qt slot or event filter) is said through ``report``, not left as a traceback the user
    never sees; a bug's traceback still goes to stderr."""
    def hook(kind, error, trace) -> None:
        if not isinstance(error, Exception):
            sys.__excepthook__(kind, error, trace)
            return
        if not is_bad_input(error):
            traceback.print_exception(kind, error, trace)
        report(error_text(error))
    return hook
