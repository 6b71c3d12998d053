"""Qt imported without the import hook PySide6 leaves behind (itself Qt-free until called)."""

from __future__ import annotations

import builtins


def import_qt() -> None:
    """Import PySide6 and keep Python's own ``builtins.__import__``.

    Importing PySide6 replaces ``builtins.__import__`` by shiboken's ``__feature_import__``,
    which serves only ``from __feature__ import snake_case, true_property`` (the application
    uses neither) and otherwise calls a Python function on every import statement the process
    runs from then on, and reads the source of each module imported afterwards. pandas (and
    hypothesis) import inside functions they call often: with the hook, reading, scoring,
    measuring and suggesting the thesis example in a process that had loaded Qt took 1.14x the
    CPU (benchmarks/bench_qt_import.py), the property and release-design tests 1.16x. Called
    before anything else imports Qt — the ``gui`` and PDF ``report`` commands, the test suite's
    conftest —; once Qt was imported first, the hook stays."""
    original = builtins.__import__
    import PySide6.QtCore  # noqa: F401  (shiboken installs its hook on its first import)

    if builtins.__import__ is not original and getattr(builtins.__import__, "__name__", "") == "__feature_import__":
        builtins.__import__ = original
