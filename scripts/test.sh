#!/usr/bin/env bash
# Set up and run the whole test suite (in parallel: one worker per core, a test file per worker).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest -n "${TEST_WORKERS:-auto}" --dist loadfile "$@"
