"""The app's helper processes and the store's shared files, as the door offers them (``api.Helper``,
``api.Job``, ``api.SharedFolder``: ``runs/helpers.py``, ``runs/shared.py``): a helper is alive
while it holds its lock, and stops on its stop request; a job's marker names the live process
doing it (a dead pid is stale, an empty one is "being started" for its grace period) and only its
own process drops it; a shared file reads back, is rewritten under its lock, and a change that
fails writes nothing."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from fedquad_core import api
from fedquad_core.runs import locks
from fedquad_core.safe_io import DamagedFile, UnsafeFile

HOLD = ("import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
        "print('held', flush=True); time.sleep(30)")


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_helper_is_alive_while_it_holds_its_lock_and_its_files_are_named_by_it(tmp_path):
    helper = api.Helper(tmp_path, "some_helper")
    assert [p.name for p in (helper.lock, helper.log, helper.stop_file)] == [
        ".some_helper.lock", ".some_helper.log", ".some_helper.stop"]
    assert not helper.alive() and helper.pid() is None and helper.stop(timeout=0.1) is False
    fd = locks.take(helper.lock)  # this process serves as the helper
    try:
        assert helper.alive() and helper.pid() == os.getpid()
        assert helper.start([sys.executable, "-c", "pass"]) is False  # one is alive: none started
    finally:
        os.close(fd)
    assert not helper.alive()


def test_a_helper_started_serves_until_asked_to_stop(tmp_path):
    code = ("import sys, time; from fedquad_core.runs.helpers import Helper; "
            "fd = Helper(sys.argv[1], 'h').serve(None, 0.05); print('serving' if fd else 'taken', flush=True); "
            "time.sleep(60)")
    helper = api.Helper(tmp_path, "h")
    env = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    assert helper.start([sys.executable, "-c", code, str(tmp_path)], env=env) is True
    assert helper.start([sys.executable, "-c", code, str(tmp_path)], env=env) is False  # still taking its lock
    deadline = time.monotonic() + 60
    while "serving" not in helper.log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert helper.alive() and helper.pid() not in (None, os.getpid()), helper.log.read_text()
    assert helper.stop(timeout=20) is True and not helper.alive() and not helper.stop_file.exists()


def test_a_planted_link_at_a_helpers_lock_starts_nothing(tmp_path):
    (tmp_path / "target").write_text("keep")
    (tmp_path / ".h.lock").symlink_to(tmp_path / "target")
    with pytest.raises(UnsafeFile):
        api.Helper(tmp_path, "h").start([sys.executable, "-c", "raise SystemExit('started')"])
    assert (tmp_path / "target").read_text() == "keep" and not (tmp_path / ".h.log").exists()


def test_a_jobs_marker_names_the_live_process_and_only_its_own_drops_it(tmp_path):
    job = api.Job(tmp_path / ".x.pending", tmp_path / ".x.log", tmp_path / ".x.request", grace_s=30)
    assert not job.running() and not job.asked()
    assert job.claim() and job.running() and job.marker.read_text() == str(os.getpid())
    assert job.claim() is False  # this process has it: not twice
    job.marker.write_text(str(_dead_pid()))
    assert not job.running() and job.claim()  # a dead pid is stale: replaced
    job.release()
    assert not job.marker.exists()
    job.marker.write_text("1")  # another live process's (init's) marker
    job.release()
    assert job.marker.exists() and job.running()
    job.marker.write_text("")  # being started: live for its grace period only
    assert job.running()
    old = time.time() - 60
    os.utime(job.marker, (old, old))
    assert not job.running()
    assert job.ask() and job.asked()


def test_a_job_started_holds_its_pid_and_a_planted_log_starts_none(tmp_path):
    job = api.Job(tmp_path / ".x.pending", tmp_path / ".x.log")
    assert job.start([sys.executable, "-c", "import time; print('working', flush=True); time.sleep(30)"], name="x")
    pid = int(job.marker.read_text())
    try:
        assert job.running() and job.start([sys.executable, "-c", "pass"], name="x") is False
    finally:
        os.kill(pid, 9)
    other = api.Job(tmp_path / ".y.pending", tmp_path / ".y.log")
    os.mkfifo(other.log)
    assert other.start([sys.executable, "-c", "raise SystemExit('started')"], name="y") is False
    assert not other.marker.exists()  # no job left claimed
    other.fail("it failed")
    assert other.log.read_text() == "it failed"  # the pipe replaced by the error, never written into


def test_a_shared_file_reads_back_and_is_rewritten_under_its_lock(tmp_path):
    shared = api.SharedFolder(tmp_path)
    with pytest.raises(FileNotFoundError):
        shared.read("a.json", 1000)
    shared.write("a.json", {"n": 1})
    assert shared.read("a.json", 1000) == {"n": 1} and shared.path("a.json") == tmp_path / "follow" / "a.json"
    assert shared.shown("a.json") == "follow/a.json"
    assert shared.update("a.json", lambda: {"n": shared.read("a.json", 1000)["n"] + 1}) == {"n": 2}
    with pytest.raises(RuntimeError):
        shared.update("a.json", lambda: (_ for _ in ()).throw(RuntimeError("no")))
    assert shared.read("a.json", 1000) == {"n": 2}  # a change that failed wrote nothing
    (tmp_path / "follow" / "big.json").write_text('{"x": "' + "y" * 2000 + '"}')
    with pytest.raises(DamagedFile):
        shared.read("big.json", 1000)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "follow" / "a.lock")],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(TimeoutError):
            shared.update("a.json", lambda: {"n": 99}, wait_s=0.2)
    finally:
        holder.kill()
        holder.wait()
    assert shared.read("a.json", 1000) == {"n": 2}
