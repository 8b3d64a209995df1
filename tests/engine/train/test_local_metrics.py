"""Each client's local model measured at snapshot rounds (``local_metrics``): values by hand on a
model whose outputs are known, the same numbers on the three execution paths, the same clients
for every method, training untouched, off with ``local_clients=0``, damaged files named."""
import dataclasses
import math

import numpy as np
import pytest
import torch

from engine_helpers import tiny_config
from fedquad_core.cli import main
from fedquad_core.config import holding
from fedquad_core.train.client import ClientResult
from fedquad_core.train.local_metrics import (CLIENT_METRICS, HOLD_OF_EVEN, ROW_METRICS, LocalProbe, held_classes,
                                              measured_clients)
from fedquad_core.train.runner import execute
from fedquad_core.runs.store import DamagedRun


class _Fixed(torch.nn.Module):
    """Always predicts class 3; its embedding is the input's first two values shifted by ``w``."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros(2))

    def forward(self, x):
        logits = torch.zeros(x.shape[0], 5) + 0 * self.w.sum()
        logits[:, 3] = 1.0
        return logits, x[:, :2] + self.w


def _result(client, w):
    return ClientResult(client, {"w": torch.tensor(w)}, 10, 0.0, 1, 10, {}, {})


def test_values_by_hand_on_a_model_with_known_outputs():
    counts = np.zeros((3, 5), dtype=int)
    counts[0, 3] = 12  # client 0: one class (3)
    counts[1, [1, 3]] = [4, 6]  # client 1: classes 1 and 3
    counts[2, 0] = 7
    y = torch.tensor([0, 1, 2, 3, 3, 4, 3, 1])
    x = torch.randn(len(y), 4, generator=torch.Generator().manual_seed(0))
    model = _Fixed()
    start = {"w": torch.zeros(2)}
    probe = LocalProbe(k=2, seed=0, counts=counts)
    row, arrays = probe.measure(model, [_result(0, [1.0, 0.0]), _result(1, [0.0, 2.0])], start, x, y,
                                lambda t: t, round_=1)
    by = {c["client"]: c for c in row["local"]}
    assert by[0]["classes"] == [3] and by[0]["samples"] == 12 and by[1]["classes"] == [1, 3]
    # every point predicted 3: all of a one-class client's own points (class 3) are right
    assert by[0]["local_acc_own"] == 1.0
    assert by[0]["local_acc_all"] == pytest.approx(3 / 8)  # three of the eight points are class 3
    assert by[1]["local_acc_own"] == pytest.approx(3 / 5)  # classes 1 and 3: five points, three of class 3
    # the update shifts every embedding by the same vector: centred, the same as the start's
    assert by[0]["local_cka"] == pytest.approx(1.0) and by[1]["local_cka"] == pytest.approx(1.0)
    # updates (1, 0) and (0, 2): norms 1 and 2, orthogonal
    assert (by[0]["update_norm"], by[1]["update_norm"]) == pytest.approx((1.0, 2.0))
    assert row["update_norm"] == pytest.approx(1.5) and row["update_cosine"] == pytest.approx(0.0)
    assert row["local_acc_own"] == pytest.approx((1.0 + 3 / 5) / 2)
    assert row["local_measured"] == 2 and set(ROW_METRICS) <= set(row)
    np.testing.assert_allclose(arrays["update_cosine"], np.eye(2), atol=1e-7)
    assert arrays["embeddings"].shape == (2, 8, 2) and arrays["embeddings"].dtype == np.float16
    assert arrays["holds"].tolist()[0] == [False, False, False, True, False]


def test_a_stray_sample_does_not_make_a_class_the_clients_own():
    """The holding rule: a class is the client's own from a fifth of an even share of its training
    samples (2 % with 10 classes, 4 % with 5); a class it has one stray sample of counts only in
    ``local_acc_own_any``."""
    assert HOLD_OF_EVEN == 5
    # the dashboard's torch-free copy prints the share the runs apply: the boundary count of each
    # check below sits exactly at hold_share * samples
    assert holding.HOLD_OF_EVEN == HOLD_OF_EVEN
    for classes, samples in ((10, 1000), (100, 1000), (5, 100)):
        bound = holding.hold_share(classes) * samples
        row = np.zeros((1, classes), dtype=int)
        row[0, 0], row[0, 1] = samples - round(bound), round(bound)
        assert bound == round(bound) and held_classes(row)[0, 1] and not held_classes(row - [[-1, 1] + [0] * (classes - 2)])[0, 1]
    ten = np.zeros((3, 10), dtype=int)
    ten[:, 0] = 1000
    ten[:, 1] = [20, 21, 19]  # of 1,020 / 1,021 / 1,019 samples: 1.96 %, 2.06 %, 1.86 %
    np.testing.assert_array_equal(held_classes(ten)[:, 1], [False, True, False])
    hundred = np.full((1, 100), 10)
    assert held_classes(hundred).all()  # IID over 100 classes: 1 % each, every class held
    counts = np.zeros((2, 5), dtype=int)
    counts[0, [1, 3]] = [1, 99]  # class 1 is 1 % of client 0's data: not held
    counts[1, [1, 3]] = [4, 96]  # 4 %, a fifth of 5 classes' even 20 %: held (inclusive)
    np.testing.assert_array_equal(held_classes(counts), [[False, False, False, True, False],
                                                         [False, True, False, True, False]])
    assert not held_classes(np.zeros((1, 5), dtype=int)).any()  # no samples: no class held
    y = torch.tensor([0, 1, 2, 3, 3, 4, 3, 1])  # model predicts 3 everywhere
    x = torch.randn(len(y), 4, generator=torch.Generator().manual_seed(0))
    row, arrays = LocalProbe(k=2, seed=0, counts=counts).measure(
        _Fixed(), [_result(0, [1.0, 0.0]), _result(1, [0.0, 2.0])], {"w": torch.zeros(2)}, x, y, lambda t: t, round_=1)
    by = {c["client"]: c for c in row["local"]}
    assert by[0]["classes"] == [3] and by[0]["classes_any"] == [1, 3] and by[1]["classes"] == [1, 3]
    assert by[0]["local_acc_own"] == 1.0  # class 3's three points, all right
    assert by[0]["local_acc_own_any"] == pytest.approx(3 / 5)  # class 1's two points, both wrong, count too
    assert by[1]["local_acc_own"] == by[1]["local_acc_own_any"] == pytest.approx(3 / 5)
    assert row["local_acc_own"] == pytest.approx((1.0 + 3 / 5) / 2)
    assert row["local_acc_own_any"] == pytest.approx(3 / 5)
    assert arrays["holds"].tolist() == held_classes(counts).tolist()


def test_measured_clients_depend_on_seed_round_and_the_participants_only():
    chosen = [2, 5, 7, 11, 13, 17]
    a = measured_clients(chosen, 3, seed=4, round_=5)
    assert len(a) == 3 and set(a) <= set(chosen) and list(a) == sorted(a)
    np.testing.assert_array_equal(a, measured_clients(chosen[::-1], 3, seed=4, round_=5))
    assert any(not np.array_equal(a, measured_clients(chosen, 3, seed=4, round_=r)) for r in range(6, 12))
    np.testing.assert_array_equal(measured_clients(chosen, 10, seed=4, round_=5), chosen)
    assert measured_clients(chosen, 0, seed=4, round_=5).size == 0


def test_measuring_leaves_training_untouched_and_zero_writes_nothing(store):
    on = execute(tiny_config(method="fedquad", local_clients=3), store, progress=False)
    off = execute(tiny_config(method="fedquad", local_clients=0), store, progress=False)
    rows_on, rows_off = store.read_metrics(on), store.read_metrics(off)
    for a, b in zip(rows_on, rows_off):
        assert (a["test_accuracy"], a["train_loss"], a["ratio"]) == (b["test_accuracy"], b["train_loss"], b["ratio"])
        assert a["local_measured"] == 3 and len(a["local"]) == 3
        assert not {"local", "local_measured", *ROW_METRICS} & set(b)
    w_on, w_off = (torch.load(store.weights_path(r), weights_only=True) for r in (on, off))
    assert all(torch.equal(w_on[k], w_off[k]) for k in w_on)
    assert store.local_snapshot_rounds(on) == [1, 2] and store.local_snapshot_rounds(off) == []
    assert store.snapshot_rounds(on) == [1, 2]  # the global snapshots are not mistaken for local ones


def test_every_method_measures_the_same_clients(store):
    cfg = tiny_config(participation=0.5, local_clients=2, rounds=2)
    ids = {m: [[c["client"] for c in r["local"]] for r in store.read_metrics(execute(dataclasses.replace(cfg, method=m),
                                                                                     store, progress=False))]
           for m in ("fedavg", "moon")}
    assert ids["fedavg"] == ids["moon"] and all(len(r) == 2 for r in ids["fedavg"])


def test_sequential_parallel_and_vmap_paths_give_the_same_local_metrics(store):
    torch.set_num_threads(1)
    base = tiny_config(method="fedquad", local_clients=4, method_params={"tuples_per_batch": 4}, device="cpu")
    rows = {}
    for mode, workers in (("sequential", 0), ("parallel", 2), ("vmap", 0)):
        run_id = execute(dataclasses.replace(base, client_exec=mode, workers=workers), store, progress=False)
        assert store.read_status(run_id)["state"] == "finished", store.read_status(run_id).get("error")
        rows[mode] = store.read_metrics(run_id)
    for mode in ("parallel", "vmap"):
        for a, b in zip(rows["sequential"], rows[mode]):
            assert [c["client"] for c in a["local"]] == [c["client"] for c in b["local"]]
            for ca, cb in zip(a["local"], b["local"]):
                for key in CLIENT_METRICS:
                    assert cb[key] == pytest.approx(ca[key], rel=1e-4, abs=1e-5), (mode, key)
            assert b["update_cosine"] == pytest.approx(a["update_cosine"], rel=1e-4, abs=1e-5)


def test_a_damaged_local_file_or_row_is_named(store):
    run_id = execute(tiny_config(method="fedavg", rounds=1, local_clients=2), store, progress=False)
    arrays = store.read_local_snapshot(run_id, 1)
    assert arrays["clients"].shape == (2,) and arrays["update_cosine"].shape == (2, 2)
    path = store.path(run_id) / "embeddings" / "local_round_0001.npz"
    np.savez(path.with_suffix(""), **{**arrays, "update_cosine": np.zeros(3, dtype=np.float32)})
    with pytest.raises(DamagedRun, match="local_round_0001.npz: arrays of the wrong shape"):
        store.read_local_snapshot(run_id, 1)
    path.write_bytes(b"not a zip")
    with pytest.raises(DamagedRun, match="local_round_0001.npz cannot be read: not a .npz file"):
        store.read_local_snapshot(run_id, 1)
    with pytest.raises(DamagedRun, match="local_round_0002.npz is missing"):
        store.read_local_snapshot(run_id, 2)
    metrics = store.path(run_id) / "metrics.jsonl"
    metrics.write_text(metrics.read_text().replace('"client": ', '"client": "x", "was": '))
    assert "'local' is not a list of measured clients" in store.info(run_id).damaged


def test_show_prints_the_mean_local_columns(store, capsys):
    run_id = execute(tiny_config(method="fedavg", rounds=1, local_clients=2), store, progress=False)
    off = execute(tiny_config(method="fedavg", rounds=1, local_clients=0), store, progress=False)
    capsys.readouterr()
    assert main(["show", run_id, "--runs-dir", str(store.root)]) == 0
    out = capsys.readouterr().out
    row = store.read_metrics(run_id)[0]
    assert "local acc" in out and "local CKA" in out and f"{row['local_cka']:.3f}" in out
    assert main(["show", off, "--runs-dir", str(store.root)]) == 0
    assert "local acc" not in capsys.readouterr().out
    assert math.isfinite(row["local_acc_all"])


def test_local_epochs_is_a_study_axis(tmp_path):
    runs = tmp_path / "runs"
    tiny = ["--clients", "6", "--rounds", "1", "--batch-size", "32", "--snapshot-points", "100", "--seed", "3",
            "--method", "fedavg", "--local-clients", "0"]
    assert main(["study", "run", "epochs", "--runs-dir", str(runs), *tiny, "--grid", "local_epochs=1,2",
                 "--jobs", "1", "--quiet"]) == 0
    from fedquad_core.study import StudyStore
    from fedquad_core.runs.store import RunStore

    store = RunStore(runs)
    points = StudyStore(runs).read("epochs")["points"]
    assert [p["coords"]["local_epochs"] for p in points] == [1, 2]
    samples = [store.read_metrics(p["run_id"])[0]["samples"] for p in points]
    assert [store.read_config(p["run_id"])["local_epochs"] for p in points] == [1, 2]
    assert samples == [1400, 2800]  # FedAvg, every client: each epoch sees the whole training set once


def test_the_local_geometry_is_geometrys():
    from fedquad_core.numerics.geometry import geometry_summary, linear_cka
    from fedquad_core.train.local_metrics import _Reference

    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, size=60)
    zs = (rng.normal(size=(3, 60, 7)) * [[[1.0]], [[0.1]], [[3.0]]] + y[None, :, None]).astype(np.float32)
    zs[1, :, 5:] = 0.0  # a client using fewer directions
    start = rng.normal(size=(60, 7)).astype(np.float32)
    ranks, ratios, ckas = _Reference(y, start).geometry(zs)
    for z, rank, ratio, cka in zip(zs, ranks, ratios, ckas):  # float32 here, float64 in geometry
        geo = geometry_summary(z, y)
        assert ratio == pytest.approx(geo["ratio"], rel=1e-5)
        assert rank == pytest.approx(geo["effective_rank"], rel=1e-5)
        assert cka == pytest.approx(linear_cka(z, start), rel=1e-5)
    bad = zs.copy()
    bad[2, 0, 0] = np.inf
    ranks, ratios, ckas = _Reference(y, start).geometry(bad)
    assert math.isnan(ranks[2]) and math.isnan(ratios[2]) and math.isnan(ckas[2]) and np.isfinite(ranks[:2]).all()
    one_class = _Reference(np.zeros(60, dtype=int), np.ones((60, 7), dtype=np.float32)).geometry(bad[:1])
    assert math.isnan(one_class[1][0]) and math.isnan(one_class[2][0])  # no inter distance; constant start: no CKA
    assert _Reference(y, start).geometry(np.zeros((1, 60, 7), dtype=np.float32))[0][0] == 0.0  # all-zero spectrum: rank 0, as geometry
