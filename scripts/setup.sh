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
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
else
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e .
fi
