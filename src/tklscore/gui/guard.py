"""The one error guard of the GUI: run an action; bad input (``InputError``) or a file that
cannot be read or written (``OSError``) becomes a specific message for the user, never a
traceback. Views report through ``workbench.failed`` (the main window shows it as a dialog)."""

from __future__ import annotations

from collections.abc import Callable

from tklscore.core.errors import InputError


def error_text(error: Exception) -> str:
    if isinstance(error, OSError):
        return f"{getattr(error, 'filename', None) or ''}: {error.strerror or error}"
    return str(error)


def run_guarded(report: Callable[[str], object], function: Callable, *args) -> bool:
    """Call ``function(*args)``; on bad input pass its message to ``report`` and return False."""
    try:
        function(*args)
        return True
    except (InputError, OSError) as error:
        report(error_text(error))
        return False
