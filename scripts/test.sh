#!/usr/bin/env bash
# Set up and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest "$@"
