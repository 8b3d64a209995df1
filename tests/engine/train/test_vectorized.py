"""VmapRunner (all clients in one batched computation) == SequentialRunner, for every method."""
from __future__ import annotations

import dataclasses

import pytest
import torch

from fedquad_core.train.client import ClientJob, TrainData
from fedquad_core.config import RunConfig
from fedquad_core.methods import METHODS
from fedquad_core.models import build_model
from fedquad_core.train.runner import SequentialRunner, prepare
from fedquad_core.methods.base import LocalObjective
from fedquad_core.train.vectorized import VmapRunner


def _rounds(runner, parts, initial, rounds=2):
    global_state, states, out = dict(initial), {}, []
    for r in range(1, rounds + 1):
        jobs = [ClientJob(c, r, parts[c], (3, r, c), states.get(c, {})) for c in range(len(parts))]
        results = runner.run(jobs, global_state)
        for res in results:
            states[res.client_id] = res.state
        out.append(results)
        total = sum(res.num_samples for res in results)
        global_state = {k: sum(res.weights[k] * (res.num_samples / total) for res in results) for k in global_state}
    return out


@pytest.mark.parametrize("method", list(METHODS))
def test_vmap_equals_sequential(method):
    torch.set_num_threads(1)
    cfg = RunConfig(method=method, num_clients=5, alpha=0.2, train_subset=300, min_size=5, local_epochs=2,
                    batch_size=16, method_params={"tuples_per_batch": 4} if "tuples_per_batch" in
                    {f.name for f in dataclasses.fields(METHODS[method].Params)} else {})
    prep = prepare(cfg)
    ds = prep.dataset
    model = build_model(cfg.model_name, ds.input_shape, ds.num_classes, generator=torch.Generator().manual_seed(0),
                        proj_dim=32 if METHODS[method].needs_projection else None)
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    data = TrainData(ds.x_train, ds.y_train, ds.prepare, ds.y_train.numpy(), ds.num_classes)
    seq = _rounds(SequentialRunner(model, data, cfg, False), prep.parts, initial)
    vec = _rounds(VmapRunner(model, data, cfg, False, chunk=3), prep.parts, initial)  # 2 chunks: 3 + 2 clients
    sizes = sorted(len(p) for p in prep.parts)
    assert sizes[0] != sizes[-1]  # unequal clients: padding and masking are exercised
    for rs, rv in zip(seq, vec):
        for a, b in zip(rs, rv):
            assert (a.client_id, a.steps, a.samples_processed, a.counters) == (b.client_id, b.steps, b.samples_processed, b.counters)
            assert b.loss_sum == pytest.approx(a.loss_sum, rel=1e-5, abs=1e-5)
            for key in a.weights:
                torch.testing.assert_close(b.weights[key], a.weights[key], rtol=1e-5, atol=1e-6)
            if method == "moon":
                for key, value in a.state["prev_model"].items():
                    torch.testing.assert_close(b.state["prev_model"][key], value, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("method", list(METHODS))
def test_every_method_that_changes_the_loss_also_gives_its_batched_form(method):
    cls = METHODS[method]
    if cls.loss is not LocalObjective.loss:  # adds a term to CE: the vmap path needs that term too
        assert cls.batched_loss.__func__ is not LocalObjective.batched_loss.__func__


@pytest.mark.parametrize("method", ["triplet", "quadruplet", "fedquad", "supcon"])
def test_vmap_fallback_clients(method):
    """Two-class and one-class clients (tuple fallbacks, SupCon anchors without positives)."""
    import numpy as np

    torch.set_num_threads(1)
    cfg = RunConfig(method=method, num_clients=3, train_subset=300, local_epochs=1, batch_size=8,
                    method_params={} if method == "supcon" else {"tuples_per_batch": 3})
    prep = prepare(cfg)
    ds = prep.dataset
    y = ds.y_train.numpy()
    by = [np.flatnonzero(y == c) for c in range(4)]
    parts = [np.concatenate([by[0][:9], by[1][:5]]), by[2][:7], np.concatenate([by[0][9:15], by[1][5:8], by[3][:1]])]
    model = build_model(cfg.model_name, ds.input_shape, ds.num_classes, generator=torch.Generator().manual_seed(1))
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    data = TrainData(ds.x_train, ds.y_train, ds.prepare, y, ds.num_classes)
    seq = _rounds(SequentialRunner(model, data, cfg, False), parts, initial)
    vec = _rounds(VmapRunner(model, data, cfg, False), parts, initial)
    if method != "supcon":
        assert any(v for res in seq[0] for v in res.counters.values())
    for rs, rv in zip(seq, vec):
        for a, b in zip(rs, rv):
            assert (a.steps, a.samples_processed, a.counters) == (b.steps, b.samples_processed, b.counters)
            assert b.loss_sum == pytest.approx(a.loss_sum, rel=1e-5, abs=1e-5)
            for key in a.weights:
                torch.testing.assert_close(b.weights[key], a.weights[key], rtol=1e-5, atol=1e-6)
