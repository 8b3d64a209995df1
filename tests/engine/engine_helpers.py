"""Shared by the engine tests (a module of its own: every test folder has a conftest.py, so
``from conftest import ...`` would pick whichever was imported first)."""
import os
import signal
import subprocess

import pytest

from fedquad_core.config import RunConfig


def tiny_config(**overrides) -> RunConfig:
    base = dict(dataset="digits", num_clients=6, alpha=0.5, rounds=2, local_epochs=1, batch_size=32,
                snapshot_every=1, snapshot_points=100, seed=3)
    base.update(overrides)
    return RunConfig(**base)


def finish(proc: subprocess.Popen, timeout: float, what: str) -> tuple[int, str, str]:
    """Wait for a process started in its own session; on timeout kill its group and fail with
    ``what`` (e.g. "the run did not stop") and its output."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{what}: {out} {err}")
    return proc.returncode, out, err
