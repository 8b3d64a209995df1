"""``runs.locks.exclusive`` (``api.SharedFolder.update`` holds one): a lock held for one block, the classroom poll's
read-and-rewrite; another process waits, then gets ``TimeoutError``; the lock goes with the block."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest

from fedquad_core.runs import locks
from fedquad_core.safe_io import UnsafeFile

HOLD = "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(30)"


def test_a_lock_another_process_holds_times_out_and_a_released_one_is_taken(tmp_path):
    path = tmp_path / "x.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(TimeoutError, match="x.lock is held by another process"):
            with locks.exclusive(path, within=tmp_path, wait_s=0.2):
                pytest.fail("the block ran without the lock")
        assert 0.2 <= time.monotonic() - started < 5
    finally:
        holder.kill()
        holder.wait()
    ran = []
    with locks.exclusive(path, within=tmp_path, wait_s=2):
        ran.append(1)
    with locks.exclusive(path, within=tmp_path, wait_s=0):  # released when the block ended
        ran.append(2)
    assert ran == [1, 2]


def test_a_planted_link_at_the_lock_is_refused(tmp_path):
    (tmp_path / "target").write_text("keep")
    (tmp_path / "x.lock").symlink_to(tmp_path / "target")
    with pytest.raises(UnsafeFile):
        with locks.exclusive(tmp_path / "x.lock", within=tmp_path):
            pytest.fail("locked through a link")
    assert (tmp_path / "target").read_text() == "keep"
