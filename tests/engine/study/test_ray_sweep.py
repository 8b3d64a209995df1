"""``fedquad sweep --ray``: runs as Ray tasks on a local Ray instance, written into the store."""
from __future__ import annotations

import os

import pytest

ray = pytest.importorskip("ray", reason="Ray is an optional extra (pip install ray); the --ray sweep is untested without it")

from fedquad_core.config import RunConfig  # noqa: E402
from fedquad_core.study.ray import run_on_ray  # noqa: E402
from fedquad_core.train.runner import execute  # noqa: E402
from fedquad_core.runs.store import RunStore  # noqa: E402


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    """A local Ray instance kept on loopback: the network guard (tests/netguard) refuses anything
    else. Ray replaces 127.0.0.1 by this machine's own address, so its node is 127.0.0.2 (loopback
    too); its usage statistics are off; and its dashboard process, which asks cloud metadata hosts
    which cloud it runs on unless a cluster config names one, finds a local one in its home."""
    home = tmp_path_factory.mktemp("ray-home")
    (home / "ray_bootstrap_config.yaml").write_text("provider:\n  type: local\n")
    saved = {k: os.environ.get(k) for k in ("HOME", "RAY_USAGE_STATS_ENABLED")}
    os.environ.update(HOME=str(home), RAY_USAGE_STATS_ENABLED="0")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.2")
    yield
    ray.shutdown()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def test_sweep_runs_as_ray_tasks_into_the_store(tmp_path, local_ray):
    base = dict(num_clients=3, rounds=2, train_subset=200, min_size=5, local_epochs=1, snapshot_every=2,
                snapshot_points=50, eval_points=100, device="cpu")
    configs = [RunConfig(method=m, name=f"ray {m}", **base) for m in ("fedavg", "fedquad")]
    store = RunStore(tmp_path / "runs")
    run_ids = run_on_ray(configs, store, "local")
    assert len(run_ids) == 2 and sorted(store.run_ids()) == sorted(run_ids)
    for cfg, run_id in zip(configs, run_ids):
        assert store.read_status(run_id)["state"] == "finished"
        assert store.read_config(run_id)["method"] == cfg.method
        assert [row["round"] for row in store.read_metrics(run_id)] == [1, 2]
        assert store.snapshot_rounds(run_id)
    # the same run locally gives the same numbers
    local = RunStore(tmp_path / "local")
    local_id = execute(configs[1], local, progress=False)
    remote = [r["test_accuracy"] for r in store.read_metrics(run_ids[1])]
    assert remote == [r["test_accuracy"] for r in local.read_metrics(local_id)]


def test_unreachable_ray_address_is_a_one_line_error(tmp_path, capsys):
    pytest.importorskip("ray", reason="ray is not installed")
    from fedquad_core.cli import main

    code = main(["sweep", "--runs-dir", str(tmp_path), "--methods", "fedavg", "--rounds", "1", "--ray", "127.0.0.1:1"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fedquad: error: cannot reach a Ray cluster at '127.0.0.1:1'") and "\n" not in err
    assert not any(tmp_path.iterdir())
