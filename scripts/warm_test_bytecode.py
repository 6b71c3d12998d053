"""Compile the sources and rewrite the test modules' assertions once, in one process, before a
parallel test run (scripts/test.sh).

Every pytest-xdist worker collects the whole suite, and pytest rewrites each test module's
assertions (a pure-Python pass over its syntax tree) unless it finds the rewritten module cached
in ``__pycache__``. In a fresh clone both workers found no cache and each rewrote every module —
about 9 of the 15 CPU-seconds a worker spent collecting, at load 13 — and with
``PYTHONDONTWRITEBYTECODE`` set nothing was ever cached, so every run paid it twice. Here it is
done once and cached (pytest reads the cache whatever ``PYTHONDONTWRITEBYTECODE`` says, and
checks each cached module against its source's hash, so a stale one is rewritten again); the
modules already cached are left as they are.

This reaches into pytest's assertion-rewriting module: if a pytest version no longer has those
names, the script says so and the run goes on as before (each worker rewrites its modules).

    .venv/bin/python scripts/warm_test_bytecode.py [TEST_FOLDER]
"""

from __future__ import annotations

import compileall
import fnmatch
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


class RewriteOnce:
    """A plugin that rewrites the test modules at the start of a session and collects nothing."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.rewritten = self.cached = 0
        self.missing: str | None = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session):
        try:
            from _pytest.assertion.rewrite import (PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc,
                                                   assertstate_key, get_cache_dir)
        except ImportError as missing:
            self.missing = str(missing)
            return True
        config = session.config
        state = config.stash[assertstate_key]
        patterns = config.getini("python_files")
        for path in sorted(self.folder.rglob("*.py")):
            if path.name != "conftest.py" and not any(fnmatch.fnmatch(path.name, p) for p in patterns):
                continue
            cache = get_cache_dir(path)
            cache.mkdir(exist_ok=True)
            pyc = cache / (path.name[:-3] + PYC_TAIL)
            if _read_pyc(path, pyc) is not None:
                self.cached += 1
                continue
            try:
                source_hash, code = _rewrite_test(path, config)
            except (SyntaxError, ValueError, OSError):
                continue   # the worker that collects it reports what is wrong, as it would have
            _write_pyc(state, code, source_hash, pyc)
            self.rewritten += 1
        return True   # nothing collected, nothing imported


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    folder = (Path(argv[0]) if argv else ROOT / "tests").resolve()
    start = time.process_time()
    compileall.compile_dir(ROOT / "src", quiet=1)
    compileall.compile_dir(folder, quiet=1)   # the tests' helper modules (not rewritten by pytest)
    warm = RewriteOnce(folder)
    code = pytest.main(["-qq", "-p", "no:cacheprovider", "-p", "no:xdist", "--collect-only", "--rootdir", str(ROOT),
                        str(folder)], plugins=[warm])
    if warm.missing:
        print(f"warm_test_bytecode: pytest's assertion rewriting is not where this script looks ({warm.missing}); "
              f"each worker rewrites the test modules itself")
    else:
        print(f"warm_test_bytecode: {warm.rewritten} test modules rewritten, {warm.cached} already cached "
              f"({time.process_time() - start:.1f} CPU-s)")
    if code not in (0, 5):   # 5: no tests collected, as intended
        print(f"warm_test_bytecode: pytest ended with status {int(code)}; the run goes on without the warm-up")
    return 0   # never stops the run: at worst each worker rewrites the test modules itself


if __name__ == "__main__":
    sys.exit(main())
