import os
import sys
from pathlib import Path

# scripts/serving.py (start the dashboard and wait for health) is importable as ``serving`` in every test.
_SCRIPTS = str(Path(__file__).resolve().parents[1] / "scripts")
if _SCRIPTS not in sys.path:
    sys.path.insert(0, _SCRIPTS)

# One thread per test process, no OpenMP spin-waiting (see README: the CPU threads trap).
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
