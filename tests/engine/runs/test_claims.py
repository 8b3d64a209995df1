"""Claims of run keys (fedquad_core/runs/claims.py): one live holder at a time, a dead holder's claim
taken over, the holder's pid only a note; a plain `fedquad run` of a finished key reuses it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from fedquad_core.runs.claims import claim, claim_path, holder_pid, release, try_claim
from fedquad_core.cli import main
from fedquad_core.runs.store import RunStore

KEY = "0123456789abcdef"
HOLD = ("import sys, time\nfrom fedquad_core.runs.claims import try_claim\n"
        "f = try_claim(sys.argv[1], sys.argv[2]); print('held' if f else 'busy', flush=True); time.sleep(60)")


@pytest.fixture
def holder(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path), KEY], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ["PYTHONPATH"]])})
    assert proc.stdout.readline().strip() == "held"
    yield proc
    proc.kill()
    proc.wait(timeout=10)


def test_a_live_holder_keeps_the_claim_and_a_dead_ones_is_taken_over(tmp_path, holder):
    assert try_claim(tmp_path, KEY) is None
    assert holder_pid(tmp_path, KEY) == holder.pid
    waited = []
    assert claim(tmp_path, KEY, should_stop=lambda: bool(waited), on_wait=waited.append, poll_s=0.01) is None
    assert waited == [holder.pid]
    holder.send_signal(signal.SIGKILL)  # a crash: the kernel drops its lock
    holder.wait(timeout=10)
    f = claim(tmp_path, KEY, should_stop=lambda: time.sleep(0.05) or False)
    assert f is not None and holder_pid(tmp_path, KEY) == os.getpid()
    release(f)


def test_the_claim_file_content_decides_nothing(tmp_path):
    path = claim_path(tmp_path, KEY)
    path.parent.mkdir(parents=True)
    path.write_text(f"{os.getppid()}\n")  # a live process named in the file, holding nothing
    f = try_claim(tmp_path, KEY)
    assert f is not None
    release(f)
    with pytest.raises(ValueError):
        claim_path(tmp_path, "../../etc/passwd")


def test_a_plain_run_of_a_finished_key_is_reused_unless_again(tmp_path, capsys):
    argv = ["run", "--runs-dir", str(tmp_path), "--rounds", "1", "--clients", "4", "--snapshot-points", "50",
            "--eval-points", "100", "--no-progress"]
    assert main(argv) == 0
    first = RunStore(tmp_path).run_ids()
    assert len(first) == 1
    capsys.readouterr()
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"run {first[0]}: finished already with these exact settings" in out and "not trained again" in out
    assert RunStore(tmp_path).run_ids() == first
    assert main([*argv, "--again"]) == 0
    assert len(RunStore(tmp_path).run_ids()) == 2
