#!/usr/bin/env bash
# Set up and run tklscore on the built-in example (the thesis' Table 3.1, Table 3.6, Table 4.2).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/tklscore demo "$@"
