#!/usr/bin/env bash
# Run the whole test suite on a fresh Debian machine with Python 3.11: installs what is missing
# (apt packages, .venv, Python packages) via scripts/setup.sh, then runs pytest. Safe to run twice.
# The tests run on every core (pytest-xdist, at most 4 workers; FEDQUAD_TEST_WORKERS=N to choose,
# 0 for one process): a test file stays on one worker (the layout sweep is split by mode), the
# longest units start first (tests/conftest.py), and the 20 slowest tests are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# (nproc honours OMP_NUM_THREADS: counted without it, or one thread per test would mean one worker)
workers=${FEDQUAD_TEST_WORKERS:-$(n=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc); echo $(( n < 4 ? n : 4 )))}
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE PYTHONUNBUFFERED=1
exec .venv/bin/python -m pytest -q -ra -n "$workers" --dist loadgroup "$@"
