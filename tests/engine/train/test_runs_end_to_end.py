"""Every method runs two rounds end to end on digits and writes a complete run folder."""
import json

import numpy as np
import pytest
import torch

from engine_helpers import tiny_config
from fedquad_core.methods import METHODS
from fedquad_core.train.runner import execute

SNAPSHOT_KEYS = {"intra", "inter", "ratio", "intra_l2", "inter_l2", "ratio_l2", "nc1", "effective_rank"}
LOCAL_KEYS = {"local_acc_all", "local_acc_own", "local_effective_rank", "local_ratio", "local_cka", "update_cosine",
              "update_norm"}


@pytest.mark.parametrize("method", list(METHODS))
def test_method_runs_two_rounds_and_writes_complete_folder(method, store):
    run_id = execute(tiny_config(method=method), store, progress=False)
    path = store.path(run_id)
    status = store.read_status(run_id)
    assert status["state"] == "finished", status.get("error")
    config = json.loads((path / "config.json").read_text())
    assert config["method"] == method
    assert set(config["method_params"]) == {f for f in METHODS[method].Params.__dataclass_fields__}
    rows = store.read_metrics(run_id)
    assert [r["round"] for r in rows] == [1, 2]
    for r in rows:
        assert 0.0 <= r["test_accuracy"] <= 1.0
        assert np.isfinite(r["train_loss"])
        assert r["clients"] == 6 and r["samples"] > 0
        assert SNAPSHOT_KEYS <= set(r)
        assert LOCAL_KEYS <= set(r) and r["local_measured"] == 6  # default 10: all 6 clients measured
        assert all(r[k] is not None and np.isfinite(r[k]) for k in LOCAL_KEYS)
        assert sorted(c["client"] for c in r["local"]) == list(range(6))
        assert all(0.0 <= c["local_acc_own"] <= 1.0 and c["classes"] for c in r["local"])
    assert rows[1]["samples_total"] == rows[0]["samples"] + rows[1]["samples"]
    part = store.read_partition(run_id)
    assert np.array(part["counts"]).shape == (6, 10) and sum(part["sizes"]) == 1400
    assert store.snapshot_rounds(run_id) == [1, 2]
    snap = store.read_snapshot(run_id, 2)
    assert snap["embeddings"].shape[0] == snap["labels"].shape[0] == 100
    assert snap["cdnv"].shape == (10, 10)
    assert store.local_snapshot_rounds(run_id) == [1, 2]
    local = store.read_local_snapshot(run_id, 2)
    assert local["embeddings"].shape == (6, 100, snap["embeddings"].shape[1]) and local["embeddings"].dtype == np.float16
    assert local["update_cosine"].shape == (6, 6)
    weights = torch.load(store.weights_path(run_id), weights_only=True)
    assert "classifier.weight" in weights


def test_tuple_methods_cost_extra_forward_passes_and_fedavg_does_not(store):
    fedavg = store.read_metrics(execute(tiny_config(method="fedavg"), store, progress=False))
    fedquad = store.read_metrics(execute(tiny_config(method="fedquad", method_params={"tuples_per_batch": 8}), store,
                                         progress=False))
    assert fedavg[0]["samples"] == 1400  # one local epoch: every training sample once
    assert fedquad[0]["samples"] > fedavg[0]["samples"]


def test_partial_participation_samples_at_least_one_client(store):
    rows = store.read_metrics(execute(tiny_config(participation=0.01, rounds=3), store, progress=False))
    assert [r["clients"] for r in rows] == [1, 1, 1]
    rows = store.read_metrics(execute(tiny_config(participation=0.5, rounds=2), store, progress=False))
    assert [r["clients"] for r in rows] == [3, 3]


def test_fedquad_counts_fallback_clients(store):
    cfg = tiny_config(method="fedquad", num_clients=20, alpha=0.05, min_size=5)
    run_id = execute(cfg, store, progress=False)
    part = store.read_partition(run_id)
    rows = store.read_metrics(run_id)
    assert part["clients_lt3_classes"] == part["clients_two_classes"] + part["clients_one_class"]
    # every client trains every round, so each round counts the partition's fallback clients
    assert rows[0]["clients_no_second_negative"] == part["clients_no_second_negative"]
    assert rows[0]["clients_ce_only"] == part["clients_ce_only"]
    assert part["clients_lt3_classes"] > 0
    assert part["clients_ce_only"] >= part["clients_one_class"]
