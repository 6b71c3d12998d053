"""The Qt binding the application runs on must not corrupt the interpreter.

PySide6 6.12.0 returns None from void calls without a new reference; on Python 3.11 that
drains None's reference count until the interpreter aborts ("none_dealloc") after a few
thousand calls. pyproject.toml excludes it; this test catches any binding that does so."""

import sys


def test_void_qt_calls_keep_references_to_none(qapp):
    # a leak is one reference per call (5,000 here); other work in the process (queued events,
    # threads) moves the count by tens, so the bound is a fifth of the calls
    calls = 5000
    before = sys.getrefcount(None)
    for _ in range(calls):
        qapp.processEvents()
    assert abs(sys.getrefcount(None) - before) < calls // 5
