#!/usr/bin/env bash
# Set up and run the whole test suite (in parallel: one worker per core, a test file at a time per
# worker, the longest files first: tests/conftest.py orders them, --no-loadscope-reorder keeps it).
# The Spark standalone-cluster test (marker spark_cluster, about 5-10 minutes: it starts a master
# and two workers) runs apart, as CI runs it: bash scripts/test.sh -m spark_cluster
set -euo pipefail
cd "$(dirname "$0")/.."
# set up once per change of what the set-up installs (pip's check of an unchanged environment alone
# took 6 CPU-s, 36 s at load 10, on every run): the stamp is the hash of those files
stamp=$(cat pyproject.toml setup.py scripts/setup.sh | sha256sum | cut -c1-64)
if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.test-setup 2>/dev/null)" != "$stamp" ]; then
  bash scripts/setup.sh test
  echo "$stamp" > .venv/.test-setup
fi
export QT_QPA_PLATFORM=offscreen
# the sources compiled and the test modules' assertions rewritten once, not by every worker
.venv/bin/python scripts/warm_test_bytecode.py tests
exec .venv/bin/python -m pytest -n "${TEST_WORKERS:-auto}" --dist loadfile --no-loadscope-reorder -m "not spark_cluster" "$@"
