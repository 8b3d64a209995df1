"""A run's process is its pid AND that pid's start time: a status pointing at an unrelated live
process (a reused pid) is not running, gets no signal from `cancel`, and can be deleted."""
import os
import signal
import subprocess
import time

import pytest

from fedquad_core.cli import main
from fedquad_core.runs.store import RunStore, StoreError, process_identity, process_start, run_process_alive


@pytest.fixture
def sleeper():
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


@pytest.fixture
def fedquad_named_sleeper():
    """A process whose command line mentions fedquad, as an old run's process would."""
    proc = subprocess.Popen(["bash", "-c", "exec -a fedquad-lookalike sleep 60"])
    time.sleep(0.2)  # let bash exec
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _run(tmp_path, status):
    store = RunStore(tmp_path)
    w = store.create({"method": "fedavg"}, "r1")
    w.set_status("running", **status)
    return store


def _survives(proc) -> bool:
    time.sleep(0.2)
    return proc.poll() is None


def test_start_time_names_one_process(sleeper):
    start = process_start(sleeper.pid)
    assert isinstance(start, int) and start >= process_start(os.getpid())
    assert process_start(sleeper.pid) == start  # stable
    assert process_identity(sleeper.pid) == {"pid": sleeper.pid, "pid_start": start}
    assert process_start(2 ** 22 + 12345) is None


def test_reused_pid_is_not_the_run(tmp_path, sleeper, capsys):
    store = _run(tmp_path, {"pid": sleeper.pid, "pid_start": process_start(sleeper.pid) + 1})
    status = store.read_status("r1")
    assert status["state"] == "failed" and "ended unexpectedly" in status["error"]
    assert main(["list", "--runs-dir", str(tmp_path)]) == 0 and "failed" in capsys.readouterr().out
    with pytest.raises(StoreError, match="already ended"):  # the run is not alive: nothing to signal
        store.request_cancel("r1")
    assert _survives(sleeper)
    store.delete("r1")
    assert not store.run_ids()


def test_a_forged_status_naming_a_live_process_never_gets_it_signalled(tmp_path, sleeper, capsys):
    """status.json copied from /proc of an unrelated process (pid and pid_start right): the run
    reads as running, but cancel only writes the cancel file the run's own process polls."""
    store = _run(tmp_path, process_identity(sleeper.pid))
    assert store.read_status("r1")["state"] == "running"
    with pytest.raises(Exception, match="cancel it before deleting"):
        store.delete("r1")
    assert main(["cancel", "r1", "--runs-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "cancel file written" in out and "no process was signalled" in out
    assert (tmp_path / "r1" / "cancel").exists()
    assert _survives(sleeper) and _survives(sleeper)  # still alive 0.4 s later: SIGUSR1 would have killed it


def test_old_status_without_start_time_pointing_at_an_unrelated_process(tmp_path, sleeper):
    store = _run(tmp_path, {"pid": sleeper.pid})
    assert store.read_status("r1")["state"] == "failed"
    with pytest.raises(StoreError, match="already ended"):
        store.request_cancel("r1")
    assert _survives(sleeper)
    store.delete("r1")


def test_old_status_without_start_time_is_never_signalled(tmp_path, fedquad_named_sleeper):
    """Conservative for old folders: a fedquad-looking process keeps the run 'running' (no false
    'failed', no deleting under a live writer) but gets no signal: cancel leaves only the cancel file."""
    proc = fedquad_named_sleeper
    store = _run(tmp_path, {"pid": proc.pid})
    assert store.read_status("r1")["state"] == "running"
    assert not run_process_alive({"pid": proc.pid}, signal_ok=True)
    store.request_cancel("r1")
    assert _survives(proc) and (tmp_path / "r1" / "cancel").exists()
    with pytest.raises(Exception, match="cancel it before deleting"):
        store.delete("r1")


@pytest.mark.parametrize("pid", [None, 0, -1, True, "123", 2 ** 40])
def test_nonsense_pids_are_not_alive(pid):
    assert not run_process_alive({"pid": pid, "pid_start": 1})
