"""ParallelRunner: the same weights as SequentialRunner (bit for bit), workers reused and ended."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

from fedquad_core.train.client import ClientJob, TrainData
from fedquad_core.config import ConfigError, RunConfig
from fedquad_core.config.preflight import validate
from fedquad_core.models import build_model
from fedquad_core.train.parallel import FlatLayout, ParallelRunner
from fedquad_core.train.runner import SequentialRunner, make_runner, prepare


def _setup(method: str, clients: int = 5):
    cfg = RunConfig(method=method, num_clients=clients, local_epochs=1, train_subset=400, min_size=5)
    prep = prepare(cfg)
    ds = prep.dataset
    params = cfg.params()
    model = build_model(cfg.model_name, ds.input_shape, ds.num_classes, generator=torch.Generator().manual_seed(0),
                        proj_dim=getattr(params, "proj_dim", None))
    data = TrainData(ds.x_train, ds.y_train, ds.prepare, ds.y_train.numpy(), ds.num_classes)
    return cfg, prep, model, data


def _two_rounds(runner, prep, initial):
    global_state = dict(initial)
    states, out = {}, []
    for r in (1, 2):
        jobs = [ClientJob(c, r, prep.parts[c], (0, r, c), states.get(c, {})) for c in range(len(prep.parts))]
        results = runner.run(jobs, global_state)
        for res in results:
            states[res.client_id] = res.state
        out.append(results)
        global_state = results[0].weights
    return out


@pytest.mark.parametrize("method", ["fedquad", "moon", "fedprox"])
def test_parallel_equals_sequential_bit_for_bit(method):
    torch.set_num_threads(1)
    cfg, prep, model, data = _setup(method)
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    seq = _two_rounds(SequentialRunner(model, data, cfg, False), prep, initial)
    runner = ParallelRunner(cfg, prep, False, workers=2)
    try:
        par = _two_rounds(runner, prep, initial)
    finally:
        runner.close()
    for rs, rp in zip(seq, par):
        assert [r.client_id for r in rs] == [r.client_id for r in rp]
        for a, b in zip(rs, rp):
            assert (a.loss_sum, a.steps, a.samples_processed, a.counters) == (b.loss_sum, b.steps, b.samples_processed, b.counters)
            for key in a.weights:
                assert torch.equal(a.weights[key], b.weights[key]), key
            if method == "moon":
                for key, value in a.state["prev_model"].items():
                    assert torch.equal(value, b.state["prev_model"][key])


def test_flat_layout_round_trip():
    state = {"w": torch.randn(3, 5), "b": torch.randn(7).double(), "n": torch.tensor(4)}
    layout = FlatLayout(state)
    buf = layout.shared_buffer()
    layout.write(state, buf)
    back = layout.read(buf, clone=True)
    assert all(torch.equal(back[k], state[k]) and back[k].dtype == state[k].dtype for k in state)


def test_make_runner_picks_the_client_execution():
    cfg, prep, model, _ = _setup("fedavg", clients=3)
    assert isinstance(make_runner(cfg, prep, model, torch.device("cpu")), SequentialRunner)
    import dataclasses

    runner = make_runner(dataclasses.replace(cfg, workers=2), prep, model, torch.device("cpu"))
    try:
        assert isinstance(runner, ParallelRunner) and len(runner.procs) == 2
    finally:
        runner.close()
    assert runner.procs == []
    with pytest.raises(ConfigError, match="--client-exec"):
        validate(dataclasses.replace(cfg, client_exec="threads"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (dead, not yet reaped by init) counts as gone
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_die_with_the_parent(tmp_path):
    script = textwrap.dedent("""
        import os, signal
        from fedquad_core.config import RunConfig
        from fedquad_core.train.runner import prepare
        from fedquad_core.train.parallel import ParallelRunner
        if __name__ == "__main__":
            cfg = RunConfig(method="fedavg", num_clients=3, train_subset=100, min_size=5)
            runner = ParallelRunner(cfg, prepare(cfg), False, workers=2)
            print(" ".join(str(p.pid) for p in runner.procs), flush=True)
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup at all
    """)
    path = tmp_path / "parent.py"
    path.write_text(script)
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120,
                          cwd=str(Path(__file__).resolve().parents[3]))
    pids = [int(p) for p in proc.stdout.split()]
    assert len(pids) == 2, proc.stderr
    deadline = time.time() + 60
    while time.time() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.2)
    assert not any(_alive(p) for p in pids)
