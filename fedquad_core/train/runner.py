"""From a RunConfig to a finished run in the store: validate, load data, partition, build the
model, pick a client runner, run the rounds, record the outcome."""
from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from .callbacks import Callback, Callbacks, ProgressCallback, SignalStop, StoreCallback
from .client import ClientJob, ClientResult, TrainData, frozen_copy, train_settings, train_client
from ..config import ConfigError, RunConfig
from ..data import Dataset, DataError, check_data, data_source, data_summary, load_dataset
from ..config.devices import resolve_device, usable_cores
from ..errors import RUN_INPUT_ERRORS
from ..numerics.geometry import stratified_subset
from .local_metrics import LocalProbe
from ..methods import get_method
from ..models import build_model
from ..numerics.partition import class_counts, partition
from ..config.preflight import check_config, check_samples
from .rounds import Diverged, EvalData, LoopSettings, RunFault, clients_per_round, run_rounds
from ..numerics.sampling import quadruplet_mode_from_counts
from ..runs.stop_signals import install_stop_signals
from ..runs.store import RunStore, process_identity

PARALLEL_MIN_SAMPLES = 10_000  # per round; below it parallel workers do not pay for themselves


def configure_threads(threads: int | None) -> None:
    """One thread per process by default: on small machines PyTorch's OpenMP spin-waiting makes
    2 threads many times slower than 1 (see benchmarks/threads.py)."""
    torch.set_num_threads(max(1, threads or 1))


@dataclass
class Prepared:
    cfg: RunConfig
    dataset: Dataset
    parts: list[np.ndarray]
    counts: np.ndarray
    source: str | None = None  # where the data set's files were read from


def prepare(cfg: RunConfig, *, checked: bool = False) -> Prepared:
    """Everything that can fail because of user input, before any training starts: the
    preflight (unless the caller ran it: ``checked``), then the data, then the partition."""
    if not checked:
        check_config(cfg)
    cfg = cfg.resolved()  # data set and method defaults written out
    resolve_device(cfg.device)
    check_data(cfg.dataset, data_dir=cfg.data_dir, download=cfg.download)
    ds = load_dataset(cfg.dataset, data_dir=cfg.data_dir, download=cfg.download, train_subset=cfg.train_subset,
                      seed=cfg.seed)
    check_samples(cfg, len(ds.y_train))
    labels = ds.y_train.numpy()
    parts = partition(labels, cfg.num_clients, cfg.alpha, seed=cfg.seed, min_size=cfg.min_size)
    source = data_source(cfg.dataset, data_dir=cfg.data_dir)
    print(f"fedquad: {cfg.dataset} read from {source}", file=sys.stderr)
    return Prepared(cfg, ds, parts, class_counts(parts, labels, ds.num_classes), source)


class SequentialRunner:
    """Trains the sampled clients one after another in this process."""

    def __init__(self, model: torch.nn.Module, data: TrainData, cfg: RunConfig, augment: bool):
        self.model, self.data = model, data
        self.method, self.params = get_method(cfg.method), cfg.params()
        self.settings = train_settings(cfg, augment)

    def run(self, jobs: list[ClientJob], global_state: dict[str, torch.Tensor]) -> list[ClientResult]:
        out = []
        frozen = frozen_copy(self.model, global_state) if self.method.needs_global_model else None
        for job in jobs:
            res = train_client(self.model, global_state, job, data=self.data, method=self.method,
                               params=self.params, settings=self.settings, global_model=frozen)
            out.append(res)
            if res.diverged:
                break
        self.model.load_state_dict(global_state)
        return out


def auto_workers(cfg: RunConfig) -> int:
    """Parallel client workers for a run that has the machine to itself (``fedquad run``): one
    per core when training is on the CPU, the round has at least two clients to share out and
    enough work to pay for the workers' weight transfers. Measured on 2 cores: Fashion-MNIST
    (12k subset, 50 clients) 2.6 vs 4.0 s a round; digits (1,400 samples) 11.0 vs 11.3 s a run,
    i.e. no gain below about 10,000 samples a round."""
    per_round = clients_per_round(cfg.num_clients, cfg.participation)
    on_gpu = cfg.device == "cuda" or (cfg.device == "auto" and torch.cuda.is_available())
    samples = (cfg.train_subset or data_summary(cfg.dataset)["train_size"]) * cfg.participation * cfg.local_epochs
    if on_gpu or cfg.client_exec not in ("auto", "parallel") or per_round < 2 or samples < PARALLEL_MIN_SAMPLES:
        return 0
    workers = min(usable_cores(), per_round)
    return workers if workers >= 2 else 0


def make_runner(cfg: RunConfig, prep: Prepared, model: torch.nn.Module, device: torch.device):
    ds = prep.dataset
    augment = ds.augment_default if cfg.augment is None else cfg.augment
    data = TrainData(ds.x_train.to(device), ds.y_train.to(device), ds.prepare, ds.y_train.numpy(), ds.num_classes)
    mode = cfg.client_exec
    if mode == "auto":
        mode = "vmap" if device.type == "cuda" else ("parallel" if cfg.workers > 0 else "sequential")
    if mode == "parallel":
        if device.type != "cpu":
            raise ConfigError("--client-exec parallel trains on CPU worker processes: use --device cpu, or vmap on CUDA")
        from .parallel import ParallelRunner, default_workers

        return ParallelRunner(cfg, prep, augment, workers=cfg.workers or default_workers())
    if mode == "vmap":
        from .vectorized import VmapRunner

        return VmapRunner(model, data, cfg, augment)
    return SequentialRunner(model, data, cfg, augment)


def partition_info(prep: Prepared) -> dict[str, Any]:
    counts = prep.counts
    present = (counts > 0).sum(1)
    modes = [quadruplet_mode_from_counts(row) for row in counts]
    return {"counts": counts.tolist(), "sizes": counts.sum(1).tolist(), "num_classes": prep.dataset.num_classes,
            "class_names": list(prep.dataset.class_names), "clients_lt3_classes": int((present < 3).sum()),
            "clients_two_classes": int((present == 2).sum()), "clients_one_class": int((present == 1).sum()),
            # what the tuple methods can do with each client (the rounds count the same, per round)
            "clients_no_second_negative": modes.count("triplet"), "clients_ce_only": modes.count("none")}


def train(prep: Prepared, callback: Callback, *, device: torch.device) -> tuple[str, dict[str, Any]]:
    cfg, ds = prep.cfg, prep.dataset
    params = cfg.params()
    gen = torch.Generator().manual_seed(cfg.seed)
    model = build_model(cfg.model_name, ds.input_shape, ds.num_classes, generator=gen,
                        proj_dim=getattr(params, "proj_dim", None) if get_method(cfg.method).needs_projection else None)
    model.to(device)
    test_idx = (np.arange(len(ds.y_test)) if cfg.eval_points is None
                else stratified_subset(ds.y_test.numpy(), cfg.eval_points, seed=0))
    x_test, y_test = ds.x_test[test_idx].to(device), ds.y_test[test_idx].to(device)
    snap = stratified_subset(y_test.cpu().numpy(), cfg.snapshot_points, seed=0)
    test = EvalData(x_test, y_test, ds.prepare, snap)
    runner = make_runner(cfg, prep, model, device)
    callback.on_start({"partition": partition_info(prep), "rounds": cfg.rounds, "device": str(device),
                       "num_train": int(len(ds.y_train)), "method": cfg.method, "data_source": prep.source})
    try:
        return run_rounds(model, prep.parts, runner, test,
                          LoopSettings(cfg.rounds, cfg.participation, cfg.seed, cfg.snapshot_every), callback,
                          local=LocalProbe(cfg.local_clients, cfg.seed, prep.counts) if cfg.local_clients else None)
    finally:
        close = getattr(runner, "close", None)
        if close:
            close()


def execute(cfg: RunConfig, store: RunStore, *, run_id: str | None = None, progress: bool = True,
            threads: int | None = None, prep: Prepared | None = None) -> str:
    """Run ``cfg`` to the end, writing everything into ``store``; return the run id.
    An existing queued run folder is used when ``run_id`` names one."""
    configure_threads(threads)
    if run_id and store.exists(run_id):
        writer = store.writer(run_id)
    else:
        writer = store.create(cfg.resolved().to_dict(), run_id)
    writer.set_status("queued", **process_identity(os.getpid()), **_identity(cfg))
    stop_flag: dict[str, Any] = {"stop": False}
    restore = install_stop_signals(stop_flag)
    callbacks: list[Callback] = [StoreCallback(writer), SignalStop(stop_flag)]
    if progress:
        callbacks.append(ProgressCallback(cfg.name or cfg.method))
    cb = Callbacks(callbacks)
    try:
        prep = prep or prepare(cfg)
        device = resolve_device(cfg.device)
        if writer.cancel_requested() or stop_flag["stop"]:
            writer.set_status("cancelled", round=0, stopped_by=stop_flag.get("signal"))
            return writer.run_id
        state, info = train(prep, cb, device=device)
        if state == "cancelled" and stop_flag.get("signal"):
            info.setdefault("stopped_by", stop_flag["signal"])
        cb.on_end(state, info)
    except Diverged as exc:
        cb.on_end("diverged", {"error": str(exc), "diverged_round": exc.round, "round": exc.round})
    except KeyboardInterrupt:  # Ctrl-C before the rounds began: nothing to keep but the state
        cb.on_end("cancelled", {"round": 0, "stopped_by": "SIGINT"})
    except (*RUN_INPUT_ERRORS, RunFault) as exc:  # the message is complete: one line, no traceback
        cb.on_end("failed", {"error": str(exc)})
        if not isinstance(exc, RunFault):
            raise
    except BaseException as exc:
        cb.on_end("failed", {"error": f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"})
        raise
    finally:
        restore()
    return writer.run_id


def _identity(cfg: RunConfig) -> dict[str, str]:
    """Engine fingerprint and run key for status.json (empty for a config too broken to key:
    ``prepare`` then fails the run with the reason)."""
    from ..version import run_identity

    try:
        return run_identity(cfg)
    except (ConfigError, DataError, ValueError, TypeError):
        return {}
