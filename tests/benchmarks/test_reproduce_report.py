"""benchmarks/reproduce.py: only a run in the published setting counts as a reproduction;
everything else is labelled a smoke test, and missing cells say "not run yet"."""
import argparse

from benchmarks import reproduce
from benchmarks.reproduction_report import render_report


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
    table = text.split("## Shorter runs")[0]
    assert "| fashion-mnist | fedavg | 88.4 | Flower's NIID-Bench reproduction | not run yet |" in table
    assert "| fashion-mnist | fedavg | 0 | finished | 1 | 1 | 2000 | 10.0 |" in text.split("## Shorter runs")[1]
    full = dict(smoke, kind="reproduction", final_accuracy=0.88, rounds=50, local_epochs=10, train_subset=None)
    text = render_report({"runs": [full], "estimates": []}, reproduce.PUBLISHED, reproduce.SETTINGS, reproduce.SGD)
    assert "| fashion-mnist | fedavg | 88.4 | Flower's NIID-Bench reproduction | 88.0 | -0.4 | 0 |" in text
    assert "### Each run in the published setting" in text


def test_report_gives_mean_std_and_each_run():
    base = {"dataset": "fashion-mnist", "method": "fedprox", "state": "finished", "rounds": 50, "local_epochs": 10,
            "train_subset": None, "wall_s": 3600.0, "kind": "reproduction", "command": "c", "machine": "m"}
    runs = [dict(base, seed=0, run_id="a", final_accuracy=0.885, best_accuracy=0.89,
                 accuracy_at={"1": 0.5, "10": 0.86, "50": 0.885}, final_ratio=0.3, final_effective_rank=6.0,
                 geometry_round=50),
            dict(base, seed=1, run_id="b", final_accuracy=0.875)]  # a row from before these fields existed
    text = render_report({"runs": runs, "estimates": []}, reproduce.PUBLISHED, reproduce.SETTINGS, reproduce.SGD)
    assert "| fashion-mnist | fedprox | 88.6 | Flower's NIID-Bench reproduction | 88.0 ± 0.7 | -0.6 | 0, 1 |" in text
    each = text.split("### Each run in the published setting")[1].split("## Shorter runs")[0]
    assert "| round 10 | round 50 | ratio |" in each  # round 1 is left out
    assert "| fashion-mnist | fedprox | 0 | 88.5 | 89.0 | 86.0 | 88.5 | 0.300 (round 50) | 6.0 | 1.00 h | `a` |" in each
    assert "| fashion-mnist | fedprox | 1 | 87.5 | — | — | — | — | — | 1.00 h | `b` |" in each


def test_measured_reads_the_store():
    class Store:  # the two RunStore methods measured() calls
        def read_metrics(self, run_id):
            return [{"round": 1, "test_accuracy": 0.5, "ratio": 0.4, "effective_rank": 5.0},
                    {"round": 2, "test_accuracy": 0.7}, {"round": 10, "test_accuracy": 0.6, "ratio": 0.3}]

        def read_status(self, run_id):
            return {"state": "finished"}

    got = reproduce.measured(Store(), "x")
    assert got == {"state": "finished", "rounds_done": 10, "final_accuracy": 0.6, "best_accuracy": 0.7,
                   "accuracy_at": {"1": 0.5, "10": 0.6}, "final_ratio": 0.3, "final_effective_rank": None,
                   "geometry_round": 10}


def test_a_cut_run_shows_its_rounds_and_geometry():
    cut = {"dataset": "fashion-mnist", "method": "fedquad", "seed": 0, "run_id": "q", "state": "cancelled",
           "rounds_done": 7, "final_accuracy": 0.8, "final_ratio": 0.25, "final_effective_rank": 9.5,
           "geometry_round": 1, "rounds": 10, "local_epochs": 10, "train_subset": None, "wall_s": 60.0,
           "kind": "smoke", "command": "c", "machine": "m"}
    text = render_report({"runs": [cut], "estimates": []}, reproduce.PUBLISHED, reproduce.SETTINGS, reproduce.SGD)
    shorter = text.split("## Shorter runs")[1]
    assert "| fashion-mnist | fedquad | 0 | cancelled | 7 of 10 | 10 | all | 80.0 | 0.250 (round 1) | 9.5 | 60.0 |" in shorter
    assert "fedquad | — | no published number for this setting | not run yet" in text.split("## Shorter runs")[0]
