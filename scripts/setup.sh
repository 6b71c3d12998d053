#!/usr/bin/env bash
# Create .venv (once) and install tklscore into it; "bash scripts/setup.sh test" adds the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
# .venv is made without pip, and this Python's pip, when it can install into it (--python, pip 22.3 or
# later), puts the index's pip there uncompiled (1.5 CPU-s): venv's ensurepip installing and compiling
# a pip, only for the next step to replace it, took 6.8 CPU-s with the upgrade. That pip, not this
# Python's, installs the rest: pip 23.2 took 24 CPU-s where 26.3 took 16.
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv --without-pip .venv
fi
if ! .venv/bin/python -c "import pip" 2>/dev/null; then
  if "$PYTHON" -c 'import sys, pip; sys.exit(tuple(map(int, pip.__version__.split(".")[:2])) < (22, 3))' 2>/dev/null; then
    "$PYTHON" -m pip --python .venv/bin/python install --quiet --disable-pip-version-check --no-compile pip
  else
    .venv/bin/python -m ensurepip --default-pip
  fi
fi
# pip compiles nothing it installs (--no-compile): all of it is compiled once at the end, in parallel
# and without the packages' own test suites (pip compiled every file in one process: 20 CPU-s; this
# takes 15.5 CPU-s in under half the wall time on two cores)
install=(.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-compile)
if [ "${1:-}" = "test" ]; then
  "${install[@]}" "pip>=23" -e ".[test,spark]"
  # the Spark back-end's tests need a Java runtime; a clean machine (CI) gets one from Debian
  if ! command -v java >/dev/null 2>&1 && [ -z "${JAVA_HOME:-}" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null
  fi
  # the offline test (tests/test_offline.py) traces each engine's network calls with strace
  if ! command -v strace >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null
  fi
  # pycanon 1.3.6 (the peer the risk tests compare with) pins exact pandas/numpy versions; its
  # checks run on ours, so it is installed without its pins (its runtime needs are in [test])
  "${install[@]}" --no-deps "pycanon==1.3.6"
else
  "${install[@]}" "pip>=23" -e .
fi
# the bytecode of the package and of what it installed, as installing a wheel writes it: an editable
# install leaves it to the first import, which never writes it where PYTHONDONTWRITEBYTECODE is set
# (each start, and each view's first show, would compile its modules from source); compileall writes
# it whatever that says. One process per core; the installed packages' own tests (half the files:
# pandas/tests alone has 1,100) are never imported. -qq and "|| true": a template shipped as .py
# (PySide6's deploy recipes) is not Python and stays uncompiled, as pip left it
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
.venv/bin/python -m compileall -qq -j 0 -x '[/\\]tests[/\\]' "$site" || true
.venv/bin/python -m compileall -q -j 0 src/tklscore   # ours compiles, or the set-up fails here
