import os

# One thread per test process, no OpenMP spin-waiting (see docs/performance.md: one thread a process).
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
