"""scripts/record_studies.py --quick: a valid recorded root (studies, compacted runs, a UMAP
layout per stored snapshot) under the size budget, and a loud failure when over it."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fedquad_core.runs.store import RunStore
from fedquad_core.study import StudyStore, study_frame

REPO = Path(__file__).resolve().parents[2]


def _record(*args, timeout=600):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, str(REPO / "scripts" / "record_studies.py"), "--quick", *args],
                          capture_output=True, text=True, timeout=timeout, env=env, cwd=REPO)


@pytest.mark.slow
def test_quick_recording_is_a_valid_recorded_root_under_budget(tmp_path):
    out, scratch = tmp_path / "recorded", tmp_path / "scratch"
    proc = _record("--only", "digits-alpha", "--only", "digits-margins", "--out", str(out), "--scratch", str(scratch),
                   "--points", "200")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "MB of 60 MB" in proc.stdout
    studies = StudyStore(out)
    assert studies.names() == ["digits-alpha", "digits-margins"]
    runs = RunStore(out)
    used = set()
    for name in studies.names():
        study = studies.read(name)
        assert study["title"] and study["engine"]
        assert all(r["state"] == "finished" for r in study_frame(runs, study))
        used |= {p["run_id"] for p in study["points"]}
    assert set(runs.run_ids()) == used  # every run referenced, nothing else
    # digits-margins at alpha 0.1 reuses digits-alpha's alpha-0.1 runs: 4 + 1 distinct runs in all
    assert len(used) == 5
    animated = {p["run_id"] for p in studies.read("digits-alpha")["points"] if p["coords"]["seed"] == 0}
    for run_id in used:
        folder = out / run_id
        assert not (folder / "model.pt").exists() and not (folder / "log.txt").exists()
        status = json.loads((folder / "status.json").read_text())
        assert status["state"] == "finished" and status["key"] and status["recorded"]["embeddings"] == "float16"
        rounds = runs.snapshot_rounds(run_id)
        assert rounds == ([1, 2] if run_id in animated else [2])
        for r in rounds:
            snap = runs.read_snapshot(run_id, r)
            assert snap["embeddings"].dtype == np.float16 and len(snap["embeddings"]) <= 200
            assert len(snap["labels"]) == len(snap["embeddings"])
            umap = np.load(folder / "embeddings" / f"umap_round_{r:04d}.npy", allow_pickle=False)
            assert umap.shape == (len(snap["embeddings"]), 2) and np.isfinite(umap).all()
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert size < 30e6
    # over a (tiny) budget the script fails loudly; the runs are reused, nothing trained again
    proc = _record("--only", "digits-margins", "--out", str(out), "--scratch", str(scratch), "--points", "200",
                   "--budget-mb", "0.01")
    assert proc.returncode == 1 and "OVER BUDGET" in proc.stderr
    assert "0 to train" in proc.stderr


def test_a_bad_seed_list_is_one_line_before_any_work(tmp_path):
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "record_studies.py"), "--fmnist-seeds", "0,x",
                          "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=REPO)
    assert out.returncode == 2 and "'0,x' is not a comma list of integers" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "out").exists()
