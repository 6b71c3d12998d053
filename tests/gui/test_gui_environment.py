"""The Qt binding the application runs on must not corrupt the interpreter.

PySide6 6.12.0 returns None from void calls without a new reference; on Python 3.11 that
drains None's reference count until the interpreter aborts ("none_dealloc") after a few
thousand calls. pyproject.toml excludes it; this test catches any binding that does so."""

import sys


def test_void_qt_calls_keep_references_to_none(qapp):
    before = sys.getrefcount(None)
    for _ in range(2000):
        qapp.processEvents()
    assert abs(sys.getrefcount(None) - before) < 100
