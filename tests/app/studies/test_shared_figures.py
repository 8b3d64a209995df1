"""Explore's figures of recorded studies are built once per process and shared by every session
(``app/studies/shared.py``), keyed on the study's content; users' own studies keep their
per-session figures and are never served stale."""
from __future__ import annotations

import json
import os
import shutil
import threading
import time

import pytest

from app_helpers import move, shown, switcher
from app.studies import explore_panels as panels
from app.studies import shared
from explore_helpers import chart, open_explore, run_acc, seed_trace

RUN = "toy-alpha-alpha0.1-methodfedavg-seed0"  # a run at the default slider position (alpha 0.1)


@pytest.fixture(autouse=True)
def _fresh_store(monkeypatch):
    monkeypatch.delenv(shared.ENV, raising=False)  # the default: on
    shared.clear()
    yield
    shared.clear()


@pytest.fixture
def builds(monkeypatch):
    """How many times a position's figures were built (``explore_panels._position`` calls)."""
    calls = []
    real = panels._position

    def counting(view, points):
        calls.append((view.ref.id, tuple(view.pos.items()), view.talk))
        return real(view, points)

    monkeypatch.setattr(panels, "_position", counting)
    return calls


@pytest.fixture
def own_recorded(monkeypatch, tmp_path, _recorded_study):
    """A private copy of the synthetic recorded root (these tests rewrite its files)."""
    root = tmp_path / "recorded"
    shutil.copytree(_recorded_study[0], root)
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    return root


def rewrite_accuracy(root, run_id: str, acc: float) -> None:
    """Give every round of the run's metrics the test accuracy ``acc`` (a re-recorded run)."""
    path = root / run_id / "metrics.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    path.write_text("".join(json.dumps({**r, "test_accuracy": acc}) + "\n" for r in rows))


def test_a_second_session_gets_the_first_sessions_figures(own_recorded, builds):
    first = open_explore()
    assert not first.exception, first.exception
    assert len(builds) == 1  # the position shown; its neighbours come when the browser asks
    second = open_explore()
    assert not second.exception, second.exception
    assert len(builds) == 1, builds  # not built again for another session
    assert chart(second, "x_acc") == chart(first, "x_acc")
    assert switcher(second)["figures"] == switcher(first)["figures"]  # the same payload
    move(first, near=True)  # the browser asks for the neighbours: built once ...
    after_near = len(builds)
    assert after_near > 1
    move(second, near=True)  # ... and not again for the other session
    assert len(builds) == after_near
    assert switcher(second)["figures"] == switcher(first)["figures"]
    talk = open_explore({"talk": "1"})  # talk mode changes the figures: its own build
    assert not talk.exception, talk.exception
    assert len(builds) == after_near + 1
    assert all(k[1] == "recorded:toy-alpha" for k in shared.keys())


def test_with_the_store_off_every_session_builds_its_own(own_recorded, builds, monkeypatch):
    monkeypatch.setenv(shared.ENV, "0")
    open_explore()
    open_explore()
    assert len(builds) == 2
    assert shared.keys() == []


def test_concurrent_sessions_build_a_position_once(own_recorded, builds):
    sessions = [None] * 4
    barrier = threading.Barrier(len(sessions))

    def one(i):
        barrier.wait()
        sessions[i] = open_explore()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(sessions))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert all(at is not None and not at.exception for at in sessions)
    assert len(builds) == 1, builds
    assert len({json.dumps(switcher(at)["figures"], sort_keys=True) for at in sessions}) == 1


def test_touching_the_study_file_builds_afresh(own_recorded, builds):
    open_explore()
    assert len(builds) == 1
    study_file = own_recorded / "studies" / "toy-alpha.json"
    later = time.time() + 5
    os.utime(study_file, (later, later))
    open_explore()
    assert len(builds) == 2


def test_a_rewritten_run_is_not_served_stale(own_recorded, builds, monkeypatch):
    monkeypatch.setattr(shared, "WALK_TTL", 0.0)  # walk the run folders on every page run
    at = open_explore()
    assert seed_trace(chart(at, "x_acc"), "fedavg", 0) == pytest.approx(run_acc(own_recorded, RUN))
    rewrite_accuracy(own_recorded, RUN, 0.4321)
    again = open_explore()
    assert len(builds) == 2
    assert seed_trace(chart(again, "x_acc"), "fedavg", 0) == pytest.approx([0.4321] * 6)


def test_a_run_rewritten_within_the_walk_ttl_is_seen_after_it(own_recorded, builds, monkeypatch):
    monkeypatch.setattr(shared, "WALK_TTL", 0.5)
    open_explore()
    rewrite_accuracy(own_recorded, RUN, 0.25)
    time.sleep(0.6)
    at = open_explore()
    assert len(builds) == 2
    assert seed_trace(chart(at, "x_acc"), "fedavg", 0) == pytest.approx([0.25] * 6)


def test_users_studies_keep_per_session_figures_and_are_never_stale(empty_store, builds):
    from study_helpers import write_study

    write_study(empty_store, "my-alpha", {"alpha": [0.1, None], "method": ["fedavg", "fedquad"], "seed": [0, 1]},
                points=60, dim=8, rounds=6, title="My alpha study")
    run = "my-alpha-alpha0.1-methodfedavg-seed0"
    at = open_explore({"x_study": "mine:my-alpha"})
    assert not at.exception, at.exception
    assert at.selectbox(key="x_study").value == "mine:my-alpha"
    assert seed_trace(chart(at, "x_acc"), "fedavg", 0) == pytest.approx(run_acc(empty_store, run))
    open_explore({"x_study": "mine:my-alpha"})
    assert len(builds) == 2  # each session its own, as before: never from the shared store
    assert shared.keys() == []
    rewrite_accuracy(empty_store, run, 0.3)  # the run redone: its status changes too
    status = empty_store / run / "status.json"
    status.write_text(status.read_text())
    later = time.time() + 5
    os.utime(status, (later, later))
    at.run()  # the same session's next page run sees the new numbers
    assert seed_trace(chart(at, "x_acc"), "fedavg", 0) == pytest.approx([0.3] * 6)
    assert shown(at, "acc") is not None


def test_get_builds_once_for_concurrent_callers():
    started = threading.Event()
    calls = []

    def build():
        calls.append(1)
        started.set()
        time.sleep(0.3)
        return object()

    got = [None] * 8
    barrier = threading.Barrier(len(got))

    def one(i):
        barrier.wait()
        got[i] = shared.get(("test", "k"), build)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(got))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(calls) == 1
    assert all(g is got[0] for g in got)
    assert shared.get(("test", "k"), build) is got[0] and len(calls) == 1


def test_a_failed_build_lets_a_waiting_caller_build():
    release = threading.Event()

    def failing():
        release.wait(5)
        raise RuntimeError("interrupted")

    errors, got = [], []

    def first():
        try:
            shared.get(("test", "f"), failing)
        except RuntimeError as e:
            errors.append(e)

    a = threading.Thread(target=first)
    a.start()
    time.sleep(0.1)  # a is building
    b = threading.Thread(target=lambda: got.append(shared.get(("test", "f"), lambda: "built by b")))
    b.start()
    time.sleep(0.1)  # b waits for a
    release.set()
    a.join(5)
    b.join(5)
    assert len(errors) == 1 and got == ["built by b"]
    assert shared.get(("test", "f"), lambda: "not again") == "built by b"


def test_the_store_keeps_at_most_max_entries(monkeypatch):
    monkeypatch.setattr(shared, "MAX_ENTRIES", 3)
    for i in range(5):
        shared.get(("test", i), lambda i=i: i)
    assert shared.keys() == [("test", 2), ("test", 3), ("test", 4)]
