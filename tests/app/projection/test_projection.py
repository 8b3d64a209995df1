"""2-D projections: PCA determinism, exact Procrustes recovery, and the background UMAP job."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from app.projection import cache as projection
from app.projection import maths


def test_pca_is_deterministic_float32_and_independent_of_row_order():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(120, 16)) * np.linspace(3, 0.1, 16)
    xy = maths.pca_2d(z)
    assert xy.shape == (120, 2) and xy.dtype == np.float32
    np.testing.assert_array_equal(xy, maths.pca_2d(z))
    perm = rng.permutation(120)
    np.testing.assert_allclose(maths.pca_2d(z[perm]), xy[perm], atol=1e-5)
    assert maths.pca_2d(z[:1]).shape == (1, 2)


def test_procrustes_recovers_rotation_reflection_scale_and_shift_exactly():
    rng = np.random.default_rng(1)
    ref = rng.normal(size=(50, 2))
    theta = 0.8
    rotation = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    reflect = np.diag([1.0, -1.0])
    xy = 0.37 * ref @ rotation @ reflect + np.array([4.0, -2.0])
    np.testing.assert_allclose(maths.procrustes_align(xy, ref), ref, atol=1e-5)


def test_procrustes_without_reference_or_with_mismatch():
    xy = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(maths.procrustes_align(xy, None), xy)
    with pytest.raises(ValueError, match="corresponding"):
        maths.procrustes_align(xy, xy[:3])


@pytest.fixture
def fake_run(tmp_path):
    run = tmp_path / "run"
    (run / "embeddings").mkdir(parents=True)
    (run / "config.json").write_text('{"method": "fedavg", "dataset": "digits"}')  # a run folder, as the store reads it
    (run / "status.json").write_text('{"state": "finished"}')
    rng = np.random.default_rng(0)
    labels = np.arange(200) % 4
    z = rng.normal(size=(200, 16)) + 4.0 * labels[:, None]
    np.savez(run / "embeddings" / "round_0002.npz", embeddings=z.astype(np.float32), labels=labels,
             indices=np.arange(200))
    np.savez(run / "embeddings" / "round_0004.npz", embeddings=(1.5 * z).astype(np.float32), labels=labels,
             indices=np.arange(200))
    return run


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_markers_dead_pid_is_stale_fresh_empty_claim_is_pending(fake_run):
    marker = fake_run / "embeddings" / ".umap_round_0002.pending"
    marker.write_text(str(_dead_pid()))
    assert not projection.umap_pending(fake_run, 2)
    marker.write_text("")
    assert projection.umap_pending(fake_run, 2)
    old = time.time() - 2 * projection.CLAIM_GRACE_S
    os.utime(marker, (old, old))
    assert not projection.umap_pending(fake_run, 2)
    assert projection.request_umap(fake_run, 99) is False  # no such snapshot


def test_background_umap_job_writes_the_cache(fake_run):
    assert projection.umap_cached(fake_run, 2) is None
    assert projection.request_umap(fake_run, 2) is True
    assert projection.umap_pending(fake_run, 2)
    assert projection.request_umap(fake_run, 2) is False  # already pending: not started twice
    deadline = time.monotonic() + 300
    while projection.umap_pending(fake_run, 2) and time.monotonic() < deadline:
        time.sleep(0.5)
    xy = projection.umap_cached(fake_run, 2)
    log = (fake_run / "embeddings" / ".umap_round_0002.log").read_text()
    assert xy is not None, log
    assert xy.shape == (200, 2) and xy.dtype == np.float32 and np.isfinite(xy).all()
    assert not (fake_run / "embeddings" / ".umap_round_0002.pending").exists()
    assert projection.request_umap(fake_run, 2) is False  # cached
    # the same process went on to the run's other snapshot (numba compiles once per process)
    deadline = time.monotonic() + 120
    while projection.umap_cached(fake_run, 4) is None and time.monotonic() < deadline:
        time.sleep(0.5)
    assert projection.umap_cached(fake_run, 4).shape == (200, 2), log
    assert projection.request_umap(fake_run, 4) is False


def test_the_projection_process_names_a_pickled_snapshot_in_one_line(tmp_path):
    """Issue 34: `python -m app.projection` on a snapshot holding a pickled object array gave a
    ValueError traceback; it names the file in one line and exits 2."""
    import subprocess
    import sys

    import numpy as np

    run = tmp_path / "run"
    (run / "embeddings").mkdir(parents=True)
    (run / "config.json").write_text('{"method": "fedavg", "dataset": "digits"}')  # a run folder, as the store reads it
    (run / "status.json").write_text('{"state": "finished"}')
    np.savez(run / "embeddings" / "round_0001.npz", embeddings=np.array([object()], dtype=object), labels=np.array([1]))
    proc = subprocess.run([sys.executable, "-m", "app.projection", str(run), "1"], capture_output=True, text=True,
                          timeout=120, cwd=str(Path(__file__).resolve().parents[3]))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-800:]
    assert len(proc.stderr.strip().splitlines()) == 1 and "round_0001.npz" in proc.stderr
