"""No write through a planted link, no hang on a planted pipe (issue 47). At every file the engine
writes or locks in a run store (``bad_inputs.PLANTED``) a symbolic link to a file outside the store,
and a named pipe, are planted in turn; the code that opens that file runs (under an alarm: a hang
fails), and then the file outside is byte for byte what it was, nothing was created beside it, and
a refusal is one line naming the path and saying to remove it. The dashboard's own files (the UMAP
worker's) are in tests/app/projection/test_planted_worker_files.py."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from bad_inputs import PLANTED
from planted import SECRET, contents as _snapshot, no_hang, plant, refusal, victim_folder
from fedquad_core import safe_io
from fedquad_core.runs import claims, launcher, locks
from fedquad_core.runs.store import RunStore, atomic_write_json, atomic_write_text
from fedquad_core.study import stopping as study_stopping

from engine_helpers import tiny_config

KEY = "0123456789abcdef"


@pytest.fixture
def store(tmp_path_factory):
    """A short store path (the warm server's socket needs one) with one queued run ``r1``."""
    base = tmp_path_factory.mktemp("p")
    root = base / "s"
    root.mkdir()
    store = RunStore(root)
    store.create(tiny_config(method="fedavg").resolved().to_dict(), "r1")
    return store, victim_folder(base)


def _spawn(log):
    return lambda s: launcher.spawn_detached(["true"], log(s), name="t", within=s.root)


def _prefork_lock(s):
    with pytest.raises(safe_io.UnsafeFile):  # the server itself, started by hand, takes no such lock
        locks.take(s.root / launcher.LOCK_NAME)
    launcher.ensure_warm_server(s.root, parent=os.getpid())  # nor is one started on it


# each planted path: what opens it, and what must come of it ("refused": one UnsafeFile line;
# "replaced": an atomic write renames a new file over the name, the link's target untouched;
# "not held": a lock that is a link or a pipe is held by no one, without waiting)
ACTIONS = {
    ".claims/{key}.lock": ("refused", lambda s: claims.try_claim(s.root, KEY)),
    ".prefork.lock": ("refused", _prefork_lock),
    ".prefork.log": ("refused", lambda s: launcher.ensure_warm_server(s.root, parent=os.getpid())),
    ".slots/slot-0": ("refused", lambda s: launcher.acquire_slot(s.root, 1)),
    "studies/.grid.running": ("refused", lambda s: study_stopping.hold_running_lock(s.root, "grid")),
    "studies/.grid.cancel": ("replaced", lambda s: atomic_write_text(study_stopping.cancel_path(s.root, "grid"), "cancel\n",
                                                                     within=s.root)),
    ".studies/grid.log": ("refused", _spawn(lambda s: launcher.study_files(s.root, "grid")[3])),
    ".studies/grid.pid": ("replaced", lambda s: atomic_write_json(launcher.study_files(s.root, "grid")[2], {"pid": 1},
                                                                  within=s.root)),
    "RUN/metrics.jsonl": ("refused", lambda s: s.writer("r1").append_metrics({"round": 1})),
    "RUN/log.txt": ("refused", _spawn(lambda s: s.path("r1") / "log.txt")),
    "RUN/cancel": ("refused", lambda s: s.request_cancel("r1")),
    "RUN/status.json": ("replaced", lambda s: s.writer("r1").set_status("running")),
}
ENGINE_PATHS = [p for p in PLANTED if "projection_worker" not in p and "umap" not in p]


def _where(rel: str) -> str:
    return rel.replace("{key}", KEY).replace("RUN/", "r1/")


@pytest.mark.parametrize("kind", ["link", "fifo"])
@pytest.mark.parametrize("rel", ENGINE_PATHS)
def test_a_planted_link_or_pipe_is_never_written_through_nor_waited_on(store, rel, kind):
    store, outside = store
    outcome, action = ACTIONS[rel]
    path = store.root / _where(rel)
    plant(path, kind, outside)
    before = _snapshot(outside)
    with no_hang():
        if outcome == "refused":
            with pytest.raises(safe_io.UnsafeFile) as refused:
                action(store)
            assert str(refused.value) == refusal(_where(rel), kind)
        else:
            action(store)
            assert path.is_file() and not path.is_symlink()  # the name now holds the store's own file
    assert _snapshot(outside) == before  # the victim's bytes, and nothing new beside it
    assert not list(store.root.glob("**/.*.tmp")), "a temp file was left behind"


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_locks_that_are_links_or_pipes_are_held_by_no_one(store, kind):
    store, outside = store
    for rel, held in ((".prefork.lock", lambda: launcher.server_alive(store.root)),
                      ("studies/.grid.running", lambda: study_stopping.study_running(store.root, "grid"))):
        plant(store.root / rel, kind, outside)
        with no_hang():
            assert held() is False
    assert claims.holder_pid(store.root, KEY) is None
    plant(claims.claim_path(store.root, KEY), kind, outside)
    with no_hang():
        assert claims.holder_pid(store.root, KEY) is None


def test_a_folder_of_the_store_that_is_a_link_is_refused(store):
    store, outside = store
    (store.root / ".claims").symlink_to(outside)
    with pytest.raises(safe_io.UnsafeFile, match=r"^run store: \.claims is a symbolic link, not a folder: remove it$"):
        claims.try_claim(store.root, KEY)
    (store.root / "r1" / "embeddings").rename(store.root / "r1" / "old")
    (store.root / "r1" / "embeddings").symlink_to(outside)
    with pytest.raises(safe_io.UnsafeFile, match="r1/embeddings is a symbolic link, not a folder"):
        store.writer("r1").save_snapshot(1, {"embeddings": np.zeros((2, 2))})
    assert _snapshot(outside) == {"victim.txt": SECRET}


def test_a_hard_link_to_another_file_is_refused(store):
    store, outside = store
    lock = claims.claim_path(store.root, KEY)
    lock.parent.mkdir()
    os.link(outside / "victim.txt", lock)
    with pytest.raises(safe_io.UnsafeFile, match="has 2 names"):
        claims.try_claim(store.root, KEY)
    assert (outside / "victim.txt").read_bytes() == SECRET


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_atomic_write_never_follows_a_link_planted_at_its_temp_name(tmp_path, monkeypatch, kind):
    outside = victim_folder(tmp_path)
    target = tmp_path / "status.json"
    names = iter([tmp_path / ".status.json.guessed.tmp", tmp_path / ".status.json.second.tmp"])
    monkeypatch.setattr(safe_io, "_temp_name", lambda path: next(names))
    plant(tmp_path / ".status.json.guessed.tmp", kind, outside)
    with no_hang():
        atomic_write_text(target, "{}\n")
    assert target.read_text() == "{}\n" and (outside / "victim.txt").read_bytes() == SECRET
    assert os.path.lexists(tmp_path / ".status.json.guessed.tmp")  # left as it was, not used


def test_a_queued_run_whose_slot_is_a_pipe_fails_with_one_line(store):
    store, _ = store
    os.makedirs(store.root / ".slots")
    os.mkfifo(store.root / ".slots" / "slot-0")
    done = subprocess.run([sys.executable, "-m", "fedquad_core.runs.slot_wait", str(store.root), "1", "r1", "--", "/bin/true"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "run store: .slots/slot-0 is a named pipe, not a regular file: remove it" in done.stderr
    status = store.read_status("r1")
    assert status["state"] == "failed" and ".slots/slot-0 is a named pipe" in status["error"]


@pytest.mark.parametrize("kind", ["link", "fifo"])
def test_fedquad_run_again_with_a_planted_claim_lock(tmp_path_factory, kind):
    """The attack of the issue: a run key read from a status.json, a link planted at its claim
    lock, and ``fedquad run ... --again`` (which used to write its pid into the link's target)."""
    base = tmp_path_factory.mktemp("again")
    root, outside = base / "runs", victim_folder(base)
    argv = [sys.executable, "-m", "fedquad_core", "run", "--runs-dir", str(root), "--rounds", "1", "--clients", "4",
            "--snapshot-points", "50", "--eval-points", "100", "--no-progress"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    first = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
    assert first.returncode == 0, first.stderr
    (run_id,) = RunStore(root).run_ids()
    key = RunStore(root).read_status(run_id)["key"]
    plant(claims.claim_path(root, key), kind, outside)
    again = subprocess.run([*argv, "--again"], capture_output=True, text=True, timeout=300, env=env,
                           stdin=subprocess.DEVNULL)
    assert again.returncode == 2 and "Traceback" not in again.stderr, again.stderr
    errors = [line for line in again.stderr.splitlines() if "error" in line]  # (a line before says where the data came from)
    assert errors == [f"fedquad: error: {refusal(f'.claims/{key}.lock', kind)}"], again.stderr
    assert (outside / "victim.txt").read_bytes() == SECRET and _snapshot(outside) == {"victim.txt": SECRET}
    assert RunStore(root).run_ids() == [run_id]  # refused before a run folder was made
