"""Studies across processes (docs/reliability.md): two drivers of one grid train each run key
once; Ctrl-C and SIGTERM stop a study with unstarted points left unstarted and exit code 130;
SIGKILL of the driver takes its pool workers with it; ``fedquad study cancel`` stops it.

Every driver is a real ``python -m fedquad_core study run`` in its own process group (a signal to
the group cannot reach pytest), on tiny digits; every test kills what is left of its groups."""
from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fedquad_core.runs.store import RunStore

from engine_helpers import finish

ROOT = Path(__file__).resolve().parents[3]
SMALL = ["--dataset", "digits", "--clients", "5", "--eval-points", "200", "--snapshot-points", "50",
         "--snapshot-every", "1000", "--quiet"]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ["PYTHONPATH"]]),
           "OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE"}


def _study(root: Path, name: str, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "fedquad_core", "study", "run", name, "--runs-dir", str(root),
                             *SMALL, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
                            start_new_session=True, cwd=ROOT)


@pytest.fixture
def groups():
    started: list[subprocess.Popen] = []
    yield started
    for proc in started:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


def _finish(proc: subprocess.Popen, timeout: float) -> tuple[int, str, str]:
    return finish(proc, timeout, f"the study did not end in {timeout} s")


def _statuses(root: Path) -> list[dict]:
    store = RunStore(root)
    return [store.read_status(r) for r in store.run_ids()]


def _wait_running(root: Path, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    store = RunStore(root)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the study ended early: {proc.communicate()}")
        for run_id in store.run_ids():
            if (root / run_id / "metrics.jsonl").exists() and store.read_metrics(run_id):
                return
        time.sleep(0.1)
    pytest.fail("no point reached its first round in time")


def _group_alive(pgid: int) -> list[int]:
    alive = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(int(entry.name))
    return alive


def test_two_concurrent_studies_train_each_key_once(tmp_path, groups):
    grid = ["--grid", "seed=0,1,2,3", "--rounds", "3", "--jobs", "1"]
    a, b = _study(tmp_path, "conc", *grid), _study(tmp_path, "conc", *grid)
    groups += [a, b]
    (ca, oa, ea), (cb, ob, eb) = _finish(a, 400), _finish(b, 400)
    assert (ca, cb) == (0, 0), (ea, eb)
    finished = collections.Counter(s["key"] for s in _statuses(tmp_path) if s["state"] == "finished")
    assert len(finished) == 4 and set(finished.values()) == {1}, finished  # 4 keys, each trained once
    assert len(RunStore(tmp_path).run_ids()) == 4  # and no extra folder either


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_study_leaves_unstarted_points_unstarted_and_exits_130(tmp_path, groups, sig):
    proc = _study(tmp_path, "stop", "--grid", "seed=0,1,2", "--rounds", "400", "--jobs", "1")
    groups.append(proc)
    _wait_running(tmp_path, proc)
    os.killpg(proc.pid, sig)  # as a terminal's Ctrl-C does: the whole group
    code, out, err = _finish(proc, 120)
    assert code == 130, err
    assert "Resume with: fedquad study run stop" in err and "0 of 3 points finished" in err
    states = [s["state"] for s in _statuses(tmp_path)]
    assert states == ["cancelled"], states  # one point ran and was cancelled; the other two never started
    import json

    study = json.loads((tmp_path / "studies" / "stop.json").read_text())
    assert sum(p["run_id"] is not None for p in study["points"]) == 1  # the cancelled run is recorded


def test_sigkill_of_the_driver_takes_its_workers_with_it(tmp_path, groups):
    proc = _study(tmp_path, "kill", "--grid", "seed=0,1", "--rounds", "400", "--jobs", "2")
    groups.append(proc)
    _wait_running(tmp_path, proc)
    assert len(_group_alive(proc.pid)) >= 2  # the driver and its workers
    os.kill(proc.pid, signal.SIGKILL)  # the driver only, not its group
    proc.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _group_alive(proc.pid) == []


def test_study_cancel_stops_a_running_study(tmp_path, groups, capsys):
    from fedquad_core.cli import main

    assert main(["study", "cancel", "none", "--runs-dir", str(tmp_path)]) == 0
    assert "not running" in capsys.readouterr().out
    proc = _study(tmp_path, "cancel-me", "--grid", "seed=0,1", "--rounds", "400", "--jobs", "1")
    groups.append(proc)
    _wait_running(tmp_path, proc)
    assert main(["cancel", "cancel-me", "--runs-dir", str(tmp_path)]) == 0  # `fedquad cancel` of a study
    assert "cancel requested for study cancel-me" in capsys.readouterr().out
    code, out, err = _finish(proc, 120)
    assert code == 130 and "stopped by fedquad study cancel" in err, err
    assert [s["state"] for s in _statuses(tmp_path)] == ["cancelled"]
