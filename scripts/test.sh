#!/usr/bin/env bash
# Run the whole test suite on a fresh Debian machine with Python 3.11: installs what is missing
# (apt packages, .venv, Python packages) via scripts/setup.sh, then runs pytest. Safe to run twice.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE PYTHONUNBUFFERED=1
exec .venv/bin/python -m pytest -q -ra "$@"
