"""A large study stops on SIGTERM within seconds (issue 34, item 3): no new point starts after the
signal, the study file is whole and names what finished, memory stays bounded; and a grid above
the hard cap is refused even with --yes-large-grid."""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fedquad_core.cli import main
from fedquad_core.config.limits import GRID_POINTS_HARD_MAX

ROOT = Path(__file__).resolve().parents[3]
POINTS = 5_000  # five times the default cap: a large grid, prepared in seconds


def _finished(runs: Path) -> int:
    return sum(1 for p in runs.glob("*/status.json") if '"finished"' in p.read_text())


def test_sigterm_stops_a_large_study_within_seconds(tmp_path):
    runs = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ["PYTHONPATH"]]),
           "OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE"}
    seeds = ",".join(map(str, range(POINTS)))
    proc = subprocess.Popen([sys.executable, "-m", "fedquad_core", "study", "run", "big", "--runs-dir", str(runs),
                             "--grid", f"seed={seeds}", "--yes-large-grid", "--jobs", "1", "--rounds", "1",
                             "--clients", "2", "--snapshot-points", "50", "--eval-points", "100"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True, cwd=ROOT)
    deadline = time.monotonic() + 240
    while _finished(runs) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None and _finished(runs) >= 2, "the study did not start training in time"
    os.kill(proc.pid, signal.SIGTERM)
    signalled = time.monotonic()
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("the study driver ignored SIGTERM for 60 s")
    took = time.monotonic() - signalled
    after = _finished(runs)
    assert took < 30, took
    assert proc.returncode == 130 and "stopped by SIGTERM" in err, (proc.returncode, err[-500:])
    time.sleep(2)
    assert _finished(runs) == after  # no point started after the signal kept training
    study = json.loads((runs / "studies" / "big.json").read_text())
    assert len(study["points"]) == POINTS
    named = sum(1 for p in study["points"] if p["run_id"])
    assert named >= after - 1 and named <= after + 2, (named, after)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    assert peak_mb < 2_000, peak_mb


def test_a_grid_above_the_hard_cap_is_refused_even_with_yes_large_grid(tmp_path, capsys):
    side = int(GRID_POINTS_HARD_MAX ** 0.5) + 1
    values = ",".join(map(str, range(side)))
    assert main(["study", "run", "huge", "--runs-dir", str(tmp_path / "runs"), "--grid", f"seed={values}",
                 "--grid", f"min_size={values}", "--yes-large-grid"]) == 2
    err = capsys.readouterr().err
    assert "the most one study holds even with --yes-large-grid" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "runs" / "studies" / "huge.json").exists()
