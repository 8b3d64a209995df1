"""Background runs from the launcher: a burst of launches runs at most ``slots`` at a time with
the rest shown as queued, all finish, and no zombie child is left once they end."""
from __future__ import annotations

import time
from pathlib import Path

from fedquad_core.runs.launcher import acquire_slot, launch
from fedquad_core.runs.store import ACTIVE

from engine_helpers import tiny_config

TINY = dict(num_clients=4, rounds=2, snapshot_points=50, eval_points=200)


def _proc_state(pid: int) -> str | None:
    """'Z' for a zombie, another letter for a live process, None when it is gone (reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def test_eight_launches_on_two_slots_run_two_at_a_time_all_finish_and_leave_no_zombie(store):
    """One test for both (each run costs ~6 s of CPU, mostly importing torch): no launch call
    after the burst, so only the launcher's reaper threads can collect the children."""
    ids = [launch(tiny_config(**TINY, seed=i), store.root, slots=2) for i in range(8)]
    pids = [store.read_status(r)["pid"] for r in ids]
    most_running, seen_queued = 0, set()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        states = [store.read_status(r)["state"] for r in ids]
        most_running = max(most_running, states.count("running"))
        seen_queued |= {r for r, s in zip(ids, states) if s == "queued"}
        if not any(s in ACTIVE for s in states):
            break
        time.sleep(0.1)
    assert states == ["finished"] * 8, [(r, store.read_status(r)) for r in ids]
    assert most_running == 2  # never more than the slots, and the slots were used
    assert len(seen_queued) >= 6  # the others waited their turn in state 'queued'
    deadline = time.monotonic() + 20
    while any(_proc_state(p) is not None for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [_proc_state(p) for p in pids] == [None] * 8  # 'Z' would be a zombie left behind


def test_cancelling_a_queued_run_ends_it_cancelled_before_it_loads_anything(store):
    slot = acquire_slot(store.root, 1)  # the only slot is taken: the launched run must wait
    try:
        run_id = launch(tiny_config(**TINY), store.root, slots=1)
        pid = store.read_status(run_id)["pid"]
        time.sleep(1.0)
        assert store.read_status(run_id)["state"] == "queued"
        assert b"slot_wait" in Path(f"/proc/{pid}/cmdline").read_bytes()  # waiting without torch
        store.request_cancel(run_id)  # the cancel file, which the waiting process polls
        deadline = time.monotonic() + 30
        while store.read_status(run_id)["state"] == "queued" and time.monotonic() < deadline:
            time.sleep(0.1)
        status = store.read_status(run_id)
        assert status["state"] == "cancelled" and status["round"] == 0, status
        assert not store.read_metrics(run_id)
    finally:
        slot.close()
