"""benchmarks/umap_ready.py's latency probe is a run the store and the projection worker read: the
benchmark once waited forever on a probe the worker skipped (no run file) and then refused (a
snapshot without its test points' indices). Checked without starting the worker: its queue finds
the probe's snapshot, and the store reads it."""
from benchmarks.umap_ready import fake_snapshot, probe_run
from app.projection.worker import Queue
from fedquad_core import api


def test_the_probe_is_a_run_whose_snapshot_the_store_reads_and_the_worker_queues(tmp_path):
    run = probe_run(tmp_path)
    fake_snapshot(run / "embeddings" / "round_0001.npz")
    snap = api.run_view(tmp_path).store.read_snapshot(run.name, 1)
    assert snap["embeddings"].shape == (397, 64) and len(snap["indices"]) == 397
    assert Queue(tmp_path, since=0).jobs() == [(run, 1)]
