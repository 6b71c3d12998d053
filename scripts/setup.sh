#!/usr/bin/env bash
# Create .venv (once) and install tklscore into it; "bash scripts/setup.sh test" adds the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
if [ "${1:-}" = "test" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test,spark]"
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
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps "pycanon==1.3.6"
else
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
fi
# the package's bytecode, as installing a wheel writes it: an editable install leaves it to the first
# import, which never writes it where PYTHONDONTWRITEBYTECODE is set (each start, and each view's
# first show, then compiles its modules from source); compileall writes it whatever that says
.venv/bin/python -m compileall -q src/tklscore
