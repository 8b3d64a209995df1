"""benchmarks/reproduce.py: only a run in the published setting counts as a reproduction;
everything else is labelled a smoke test, and missing cells say "not run yet"."""
import argparse
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import reproduce  # noqa: E402
from reproduction_report import render_report  # noqa: E402


def _args(**kw):
    base = dict(rounds=None, local_epochs=None, train_subset=None, data_dir=None, device="cpu")
    return argparse.Namespace(**{**base, **kw})


def test_niid_bench_fashion_mnist_setting():
    cfg = reproduce.make_config("fashion-mnist", "fedprox", 0, _args()).resolved()
    assert (cfg.num_clients, cfg.alpha, cfg.model, cfg.local_epochs, cfg.rounds) == (10, 0.5, "cnn", 10, 50)
    assert (cfg.lr, cfg.batch_size, cfg.momentum, cfg.weight_decay, cfg.augment) == (0.01, 64, 0.9, 1e-5, False)
    assert cfg.method_params["mu"] == 0.01
    assert reproduce.is_published_setting(cfg)
    assert not reproduce.is_published_setting(reproduce.make_config("fashion-mnist", "fedavg", 0, _args(rounds=1)))
    assert not reproduce.is_published_setting(reproduce.make_config("fashion-mnist", "fedavg", 0, _args(train_subset=2000)))


def test_paper_cifar_setting_and_moon_mu():
    cfg = reproduce.make_config("cifar10", "moon", 0, _args(data_dir="/data"))
    assert (cfg.num_clients, cfg.alpha, cfg.data_dir, cfg.method_params["mu"]) == (200, 0.3, "/data", 5.0)


def test_report_keeps_smoke_runs_out_of_the_published_table():
    smoke = {"dataset": "fashion-mnist", "method": "fedavg", "seed": 0, "run_id": "x", "state": "finished",
             "final_accuracy": 0.1, "rounds": 1, "local_epochs": 1, "train_subset": 2000, "wall_s": 5.0,
             "kind": "smoke", "command": "c", "machine": "m"}
    text = render_report({"runs": [smoke], "estimates": []}, reproduce.PUBLISHED, reproduce.SETTINGS, reproduce.SGD)
    table = text.split("## Smoke tests")[0]
    assert "| fashion-mnist | fedavg | 88.4 | Flower's NIID-Bench reproduction | not run yet |" in table
    assert "| fashion-mnist | fedavg | 0 | finished | 1 | 1 | 2000 | 10.0 |" in text.split("## Smoke tests")[1]
    full = dict(smoke, kind="reproduction", final_accuracy=0.88, rounds=50, local_epochs=10, train_subset=None)
    text = render_report({"runs": [full], "estimates": []}, reproduce.PUBLISHED, reproduce.SETTINGS, reproduce.SGD)
    assert "| fashion-mnist | fedavg | 88.4 | Flower's NIID-Bench reproduction | 88.0 | 0 |" in text
