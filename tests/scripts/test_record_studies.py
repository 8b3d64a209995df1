"""scripts/record_studies.py --quick: a valid recorded root (studies, compacted runs, a UMAP
layout per stored snapshot) under the size budget, and a loud failure when over it. The recording
is made once for this file and the Lesson's test (tests/conftest.py's ``quick_recording``)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fedquad_core.runs.store import RunStore
from fedquad_core.study import StudyStore, study_frame

REPO = Path(__file__).resolve().parents[2]


def _record(*args, timeout=600):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join([str(REPO), os.environ["PYTHONPATH"]])}
    return subprocess.run([sys.executable, str(REPO / "scripts" / "record_studies.py"), "--quick", *args],
                          capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO)


@pytest.mark.slow
def test_quick_recording_is_a_valid_recorded_root_under_budget(quick_recording, tmp_path):
    """The tests' quick recording (tests/conftest.py's ``quick_recording``: every study the repo
    ships, one seed, two rounds, 200 points a snapshot)."""
    out = quick_recording.root
    assert "MB of 60 MB" in quick_recording.stdout or not quick_recording.stdout  # (a recording given by path)
    studies = StudyStore(out)
    assert studies.names() == StudyStore(REPO / "assets" / "recorded").names()  # every study a clone ships
    runs = RunStore(out)
    used: dict[str, set[str]] = {}
    for name in studies.names():
        study = studies.read(name)
        assert study["title"] and study["engine"]
        assert all(r["state"] == "finished" for r in study_frame(runs, study))
        used[name] = {p["run_id"] for p in study["points"]}
    assert set(runs.run_ids()) == set().union(*used.values())  # every run referenced, nothing else
    # digits-margins at alpha 0.1 reuses digits-alpha's alpha-0.1 runs: 4 + 1 distinct runs in the two
    assert len(used["digits-alpha"]) == 4 and len(used["digits-alpha"] | used["digits-margins"]) == 5
    animated = {p["run_id"] for p in studies.read("digits-alpha")["points"] if p["coords"]["seed"] == 0}
    for run_id in runs.run_ids():
        folder = out / run_id
        assert not (folder / "model.pt").exists() and not (folder / "log.txt").exists()
        status = json.loads((folder / "status.json").read_text())
        assert status["state"] == "finished" and status["key"] and status["recorded"]["embeddings"] == "float16"
        rounds = runs.snapshot_rounds(run_id)
        assert rounds == ([1, 2] if run_id in animated else [2]), run_id
        for r in rounds:
            snap = runs.read_snapshot(run_id, r)
            assert snap["embeddings"].dtype == np.float16 and len(snap["embeddings"]) <= 200
            assert len(snap["labels"]) == len(snap["embeddings"])
            umap = np.load(folder / "embeddings" / f"umap_round_{r:04d}.npy", allow_pickle=False)
            assert umap.shape == (len(snap["embeddings"]), 2) and np.isfinite(umap).all()
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert size < 30e6
    # over a (tiny) budget the script fails loudly; the runs are reused, nothing trained again (on a
    # copy: the Lesson's test reads the recording too)
    copy = tmp_path / "recorded"
    shutil.copytree(out, copy)
    proc = _record("--only", "digits-margins", "--out", str(copy), "--scratch", str(quick_recording.scratch),
                   "--points", "200", "--budget-mb", "0.01")
    assert proc.returncode == 1 and "OVER BUDGET" in proc.stderr
    assert "0 to train" in proc.stderr


def test_a_bad_seed_list_is_one_line_before_any_work(tmp_path):
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "record_studies.py"), "--fmnist-seeds", "0,x",
                          "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 2 and "'0,x' is not a comma list of integers" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "out").exists()


def _fake_run(src: Path, points: int = 40) -> None:
    """A scratch run folder: two rounds, per-client local rows, a local snapshot of the last one."""
    (src / "embeddings").mkdir(parents=True)
    (src / "status.json").write_text(json.dumps({"state": "finished", "key": "k1"}))
    (src / "config.json").write_text("{}")
    rows = [{"round": r, "test_accuracy": 0.5, "local_acc_all": 0.4, "local": [{"client": 0, "local_acc_all": 0.4}]}
            for r in (1, 2)]
    (src / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    labels = np.arange(points) % 10
    for r in (1, 2):
        np.savez(src / "embeddings" / f"round_{r:04d}.npz", embeddings=np.random.rand(points, 8), labels=labels,
                 indices=np.arange(points))
    np.savez(src / "embeddings" / "local_round_0002.npz", embeddings=np.random.rand(3, points, 8),
             start_embeddings=np.random.rand(points, 8))


def test_a_run_two_studies_share_keeps_what_either_stores(tmp_path):
    """fmnist-methods reuses fmnist-skew's runs: recording it after fmnist-skew must not strip the
    per-client rows, the local snapshot or the smaller point count that fmnist-skew stored (the
    Clients page reads them); recording fmnist-skew alone keeps them as before."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import record_studies as rs
    finally:
        sys.path.remove(str(REPO / "scripts"))
    src, dst = tmp_path / "src", tmp_path / "out" / "run"
    _fake_run(src)
    rs.compact_run(src, dst, all_rounds=False, max_points=20, local=True, client_rows=True)  # fmnist-skew
    rs.compact_run(src, dst, all_rounds=False, max_points=30, local=False, client_rows=False)  # fmnist-methods
    rows = [json.loads(line) for line in (dst / "metrics.jsonl").read_text().splitlines()]
    assert all("local" in row for row in rows)
    assert (dst / "embeddings" / "local_round_0002.npz").exists()
    status = json.loads((dst / "status.json").read_text())["recorded"]
    assert status["max_points"] == 20 and status["local_embeddings"] == "final round"
    with np.load(dst / "embeddings" / "round_0002.npz") as snap, np.load(dst / "embeddings" / "local_round_0002.npz") as local:
        assert len(snap["labels"]) == 20 and local["embeddings"].shape[1] == 20
    # a run only the lighter study holds stays light
    alone = tmp_path / "out" / "alone"
    rs.compact_run(src, alone, all_rounds=False, max_points=30, local=False, client_rows=False)
    assert not any("local" in json.loads(line) for line in (alone / "metrics.jsonl").read_text().splitlines())
    assert not (alone / "embeddings" / "local_round_0002.npz").exists()
