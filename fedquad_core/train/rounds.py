"""The federated round loop, one for all methods: sample clients, train them locally (through a
client runner: sequential here, parallel workers or a batched GPU path elsewhere), aggregate with
FedAvg weighted by sample counts, evaluate, and snapshot the embedding geometry every k rounds
(at a snapshot round, up to K clients' local models are measured before aggregation:
``local_metrics``)."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

import numpy as np
import torch

from ..numerics.aggregation import weighted_average
from .callbacks import Callback
from .client import ClientJob, ClientResult, evaluate
from ..numerics.geometry import geometry_summary
from .local_metrics import LocalProbe


class ClientRunner(Protocol):
    def run(self, jobs: Sequence[ClientJob], global_state: dict[str, torch.Tensor]) -> list[ClientResult]: ...


class RunFault(RuntimeError):
    """A fault outside the user's control whose message says all (e.g. a worker process was
    killed): stored as the run's one-line error, without a traceback."""


class Diverged(RuntimeError):
    def __init__(self, round_: int, client_id: int | None, what: str = "loss"):
        who = f" (client {client_id})" if client_id is not None else ""
        super().__init__(f"{what} became NaN/inf in round {round_}{who}: lower --lr or the loss weights")
        self.round = round_


def _finite(state: dict[str, torch.Tensor]) -> bool:
    return all(bool(torch.isfinite(v).all()) for v in state.values() if v.is_floating_point())


def check_finite(global_state: dict[str, torch.Tensor], results: Sequence[ClientResult], r: int) -> None:
    """Raise ``Diverged`` when the aggregated weights are not finite (a client's last step can blow
    up its weights without its loss ever being NaN), naming the first client whose weights were."""
    if _finite(global_state):
        return
    culprit = next((res.client_id for res in results if not _finite(res.weights)), None)
    raise Diverged(r, culprit, "the aggregated weights")


@dataclass
class EvalData:
    x: torch.Tensor
    y: torch.Tensor
    prepare: Any
    snapshot_idx: np.ndarray  # fixed, class-stratified subset of the test set


@dataclass(frozen=True)
class LoopSettings:
    rounds: int
    participation: float
    seed: int
    snapshot_every: int


def clients_per_round(num_clients: int, participation: float) -> int:
    """FedAvg's rule (McMahan et al., AISTATS 2017, Algorithm 1): ``m = max(floor(C*K), 1)``.
    Exact for fractions such as 0.3 * 10, whose float product falls just below the integer."""
    product = participation * num_clients
    m = math.floor(product)
    if math.isclose(product, m + 1, rel_tol=1e-9, abs_tol=0.0):
        m += 1
    return max(1, int(m))


def sample_clients(num_clients: int, participation: float, rng: np.random.Generator) -> np.ndarray:
    """``clients_per_round`` clients a round, drawn without replacement from the run's seed."""
    m = clients_per_round(num_clients, participation)
    return np.sort(rng.choice(num_clients, size=m, replace=False))


def is_snapshot_round(r: int, settings: LoopSettings) -> bool:
    return r % settings.snapshot_every == 0 or r == settings.rounds or r == 1


def run_rounds(model: torch.nn.Module, parts: list[np.ndarray], runner: ClientRunner, test: EvalData,
               settings: LoopSettings, callback: Callback, local: LocalProbe | None = None) -> tuple[str, dict[str, Any]]:
    """Run the rounds; return the final state ('finished' or 'cancelled') and the final weights.
    Raises ``Diverged`` when a client's loss, or the aggregated weights, become NaN/inf. A
    KeyboardInterrupt (a second Ctrl-C) drops the round in progress and ends 'cancelled' with the
    weights of the last completed round."""
    global_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    done = {"weights": global_state, "round": 0}  # the last completed round
    try:
        return _loop(model, parts, runner, test, settings, callback, done, local)
    except KeyboardInterrupt:
        return "cancelled", {**done, "stopped_by": "SIGINT"}


def _loop(model, parts, runner, test, settings, callback, done, local=None) -> tuple[str, dict[str, Any]]:
    server_rng = np.random.default_rng([settings.seed, 0xF1])
    client_states: dict[int, dict[str, Any]] = {}
    global_state = done["weights"]
    start, total_samples = time.perf_counter(), 0
    for r in range(1, settings.rounds + 1):
        if callback.stop_requested():
            return "cancelled", dict(done)
        t0 = time.perf_counter()
        chosen = sample_clients(len(parts), settings.participation, server_rng)
        jobs = [ClientJob(int(c), r, parts[c], (settings.seed, r, int(c)), client_states.get(int(c), {})) for c in chosen]
        results = runner.run(jobs, global_state)
        for res in results:
            if res.diverged:
                raise Diverged(r, res.client_id)
            if res.state:
                client_states[res.client_id] = res.state
        snapshot = is_snapshot_round(r, settings)
        measured = _measure_local(model, results, global_state, test, r, local) if snapshot and local else None
        global_state = weighted_average([res.weights for res in results], [res.num_samples for res in results])
        check_finite(global_state, results, r)
        model.load_state_dict(global_state)
        acc, _ = evaluate(model, test.x, test.y, test.prepare)
        samples = sum(res.samples_processed for res in results)
        total_samples += samples
        row: dict[str, Any] = {
            "round": r, "test_accuracy": acc,
            "train_loss": sum(res.loss_sum for res in results) / max(1, sum(res.steps for res in results)),
            "clients": len(results), "samples": samples, "samples_total": total_samples,
        }
        for res in results:
            for key, value in res.counters.items():
                row[key] = row.get(key, 0) + value
        if snapshot:
            row.update(_snapshot(model, test, r, callback))
        if measured is not None:
            row.update(measured[0])
            callback.on_local_snapshot(r, measured[1])
        now = time.perf_counter()
        row["round_time"] = now - t0
        row["elapsed"] = now - start
        callback.on_round(row)
        done.update(weights=global_state, round=r)
    return "finished", dict(done)


def _measure_local(model, results, start, test: EvalData, r: int, local: LocalProbe):
    """The local models' row fields and arrays (``local_metrics``), from the round's results,
    before they are averaged; ``start`` is the round's starting global state."""
    if local.k <= 0:
        return None
    idx = torch.as_tensor(test.snapshot_idx, device=test.x.device)
    return local.measure(model, results, start, test.x[idx], test.y[idx], test.prepare, r)


def _snapshot(model: torch.nn.Module, test: EvalData, r: int, callback: Callback) -> dict[str, float]:
    idx = torch.as_tensor(test.snapshot_idx, device=test.x.device)
    _, emb = evaluate(model, test.x[idx], test.y[idx], test.prepare, want_embeddings=True)
    z = emb.numpy().astype(np.float32)
    y = test.y[idx].cpu().numpy()
    geo = geometry_summary(z, y)
    arrays = {"embeddings": z, "labels": y, "indices": test.snapshot_idx}
    scalars = {}
    for key, value in geo.items():
        if isinstance(value, np.ndarray):
            arrays[key] = value
        else:
            scalars[key] = None if value is None or not math.isfinite(float(value)) else float(value)
    callback.on_snapshot(r, arrays)
    return scalars
