#!/usr/bin/env bash
# Set up (idempotent) and start the FedQuad Lab dashboard on http://127.0.0.1:${PORT:-8501}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
exec .venv/bin/streamlit run app/main.py --server.address 127.0.0.1 --server.port "${PORT:-8501}" \
  --server.fileWatcherType none --server.headless true
