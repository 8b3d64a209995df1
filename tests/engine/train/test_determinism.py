import pytest
import torch

from engine_helpers import tiny_config
from fedquad_core.train.runner import execute

TIMES = {"round_time", "elapsed"}


def _strip(rows):
    return [{k: v for k, v in r.items() if k not in TIMES} for r in rows]


@pytest.mark.parametrize("method", ["fedquad", "moon"])
def test_same_config_and_seed_give_identical_metrics(method, store):
    cfg = tiny_config(method=method, participation=0.5, rounds=3)
    a = execute(cfg, store, progress=False)
    b = execute(cfg, store, progress=False)
    assert _strip(store.read_metrics(a)) == _strip(store.read_metrics(b))
    wa = torch.load(store.weights_path(a), weights_only=True)
    wb = torch.load(store.weights_path(b), weights_only=True)
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def test_different_seed_gives_different_run(store):
    a = execute(tiny_config(seed=1), store, progress=False)
    b = execute(tiny_config(seed=2), store, progress=False)
    assert _strip(store.read_metrics(a)) != _strip(store.read_metrics(b))


def test_fedprox_with_mu_zero_equals_fedavg_exactly(store):
    a = execute(tiny_config(method="fedavg"), store, progress=False)
    b = execute(tiny_config(method="fedprox", method_params={"mu": 0.0}), store, progress=False)
    wa = torch.load(store.weights_path(a), weights_only=True)
    wb = torch.load(store.weights_path(b), weights_only=True)
    assert wa.keys() == wb.keys()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    c = execute(tiny_config(method="fedprox", method_params={"mu": 1.0}), store, progress=False)
    wc = torch.load(store.weights_path(c), weights_only=True)
    assert not all(torch.equal(wa[k], wc[k]) for k in wa)


def test_all_methods_share_partition_and_initial_model(store):
    a = execute(tiny_config(method="fedavg"), store, progress=False)
    b = execute(tiny_config(method="moon"), store, progress=False)
    assert store.read_partition(a)["counts"] == store.read_partition(b)["counts"]


def test_parallel_workers_only_when_the_round_has_enough_work():
    from fedquad_core.train.runner import auto_workers

    import os

    cores = len(os.sched_getaffinity(0))
    expected = min(cores, 50) if cores >= 2 else 0
    assert auto_workers(tiny_config(num_clients=50)) == 0  # digits: 1,400 samples a round
    assert auto_workers(tiny_config(dataset="fashion-mnist", train_subset=12000, num_clients=50, device="cpu")) == expected
    assert auto_workers(tiny_config(dataset="fashion-mnist", train_subset=6000, num_clients=50)) == 0
    assert auto_workers(tiny_config(dataset="fashion-mnist", num_clients=50, device="cpu")) == expected
    assert auto_workers(tiny_config(dataset="fashion-mnist", num_clients=50, participation=0.02, device="cpu")) == 0
