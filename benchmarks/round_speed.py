"""Seconds per federated round: plain PyTorch loop vs the engine (sequential, parallel workers,
vmap on GPU) vs Flower's simulation engine, on the same work.

Work (the speed issue's reference): FedAvg, Fashion-MNIST, simple CNN, batch 64, 1 local epoch,
lr 0.01 / momentum 0.9, IID split, every client every round; 10, 50 and 200 clients. A round is
local training of all clients plus the FedAvg aggregate (no evaluation). Each path runs one
warm-up round (worker start-up, Ray start-up) and then ``--rounds`` timed rounds; the median is
printed, with the ratio to the plain loop and the peak resident memory of the process tree.

    OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE python -m benchmarks.round_speed            # full
    OMP_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE python -m benchmarks.round_speed --quick    # < 1 min
    python -m benchmarks.round_speed --gpu-only --quick     # on a CUDA machine: per-client loop vs vmap

Flower runs when ``flwr[simulation]`` is importable here, or in another interpreter given with
``--flower-python`` (a separate venv: ``python -m venv /tmp/flwr-venv &&
/tmp/flwr-venv/bin/pip install "flwr[simulation]==1.42.0" torch==2.14.1 torchvision==0.29.1``).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
ROOT = Path(__file__).resolve().parents[1]

import numpy as np  # noqa: E402
import torch  # noqa: E402

from benchmarks.harness import Table, add_docs_flag, finish, median, ratio  # noqa: E402

LR, MOMENTUM, BATCH = 0.01, 0.9, 64


class PeakRSS:
    """Peak resident memory (MiB) of this process plus its descendants, sampled every 50 ms."""

    def __init__(self):
        self.peak, self._stop = 0.0, threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    @staticmethod
    def _tree(pid: int) -> list[int]:
        out, todo = [], [pid]
        while todo:
            p = todo.pop()
            out.append(p)
            for task in Path(f"/proc/{p}/task").glob("*/children"):
                try:
                    todo += [int(c) for c in task.read_text().split()]
                except OSError:
                    pass
        return out

    def _loop(self):
        while not self._stop.is_set():
            total = 0
            for p in self._tree(os.getpid()):
                try:
                    for line in Path(f"/proc/{p}/status").read_text().splitlines():
                        if line.startswith("VmRSS:"):
                            total += int(line.split()[1])
                except OSError:
                    pass
            self.peak = max(self.peak, total / 1024)
            time.sleep(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def work(clients: int, quick: bool, device: str = "cpu"):
    from fedquad_core.config import RunConfig
    from fedquad_core.train.runner import prepare

    cfg = RunConfig(dataset="fashion-mnist", method="fedavg", model="cnn", num_clients=clients, alpha=None,
                    local_epochs=1, batch_size=BATCH, lr=LR, momentum=MOMENTUM, weight_decay=0.0, min_size=1,
                    train_subset=6000 if quick else None, device=device)
    return cfg, prepare(cfg)


def initial_model(prep, device):
    from fedquad_core.methods import get_method
    from fedquad_core.models import build_model

    ds, cfg = prep.dataset, prep.cfg
    proj = getattr(cfg.params(), "proj_dim", None) if get_method(cfg.method).needs_projection else None
    return build_model(cfg.model_name, ds.input_shape, ds.num_classes, proj_dim=proj,
                       generator=torch.Generator().manual_seed(0)).to(device)


def time_rounds(one_round, rounds: int) -> list[float]:
    one_round()  # warm-up
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        one_round()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return times


def plain_loop(cfg, prep, rounds: int, device: str = "cpu") -> list[float]:
    """What one would write by hand: per client, load the global weights, SGD over its batches."""
    ds = prep.dataset
    model = initial_model(prep, device)
    x, y = ds.x_train.to(device), ds.y_train.to(device)
    mean, std = ds.mean[0], ds.std[0]
    global_state = {k: v.clone() for k, v in model.state_dict().items()}
    gen = torch.Generator().manual_seed(0)

    def one_round():
        nonlocal global_state
        acc = {k: torch.zeros_like(v) for k, v in global_state.items()}
        total = sum(len(p) for p in prep.parts)
        for part in prep.parts:
            model.load_state_dict(global_state)
            opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
            idx = torch.as_tensor(part)[torch.randperm(len(part), generator=gen)].to(device)
            for b in range(0, len(idx), BATCH):
                rows = idx[b:b + BATCH]
                logits, _ = model((x[rows].float() / 255.0 - mean) / std)
                loss = torch.nn.functional.cross_entropy(logits, y[rows])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            for k, v in model.state_dict().items():
                acc[k] += v * (len(part) / total)
        global_state = acc

    return time_rounds(one_round, rounds)


def engine(cfg, prep, rounds: int, mode: str, device: str = "cpu") -> list[float]:
    import dataclasses

    from fedquad_core.numerics.aggregation import weighted_average
    from fedquad_core.train.client import ClientJob
    from fedquad_core.train.parallel import default_workers
    from fedquad_core.train.runner import make_runner

    cfg = dataclasses.replace(cfg, client_exec=mode, workers=default_workers() if mode == "parallel" else 0)
    model = initial_model(prep, device)
    runner = make_runner(cfg, prep, model, torch.device(device))
    state = {"w": {k: v.clone() for k, v in model.state_dict().items()}, "r": 0}

    def one_round():
        state["r"] += 1
        jobs = [ClientJob(c, state["r"], p, (0, state["r"], c)) for c, p in enumerate(prep.parts)]
        results = runner.run(jobs, state["w"])
        state["w"] = weighted_average([r.weights for r in results], [r.num_samples for r in results])

    try:
        return time_rounds(one_round, rounds)
    finally:
        getattr(runner, "close", lambda: None)()


def flower(clients: int, rounds: int, quick: bool) -> list[float]:
    """Flower 1.42 simulation engine (Ray backend, one CPU per virtual client), legacy NumPyClient."""
    import logging

    from flwr.client import NumPyClient
    from flwr.clientapp import ClientApp
    from flwr.server import ServerAppComponents, ServerConfig
    from flwr.server.strategy import FedAvg
    from flwr.serverapp import ServerApp
    from flwr.simulation import run_simulation

    logging.getLogger("flwr").setLevel(logging.WARNING)
    stamps: list[float] = []

    class Client(NumPyClient):
        def __init__(self, cid: int):
            self.cid = cid

        def fit(self, parameters, config):
            torch.set_num_threads(1)
            cfg, prep = _cached_work(clients, quick)
            model = initial_model(prep, "cpu")
            for p, v in zip(model.state_dict().values(), parameters):
                p.copy_(torch.from_numpy(v))
            ds, part = prep.dataset, prep.parts[self.cid]
            opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
            idx = torch.as_tensor(part)[torch.randperm(len(part))]
            for b in range(0, len(idx), BATCH):
                rows = idx[b:b + BATCH]
                logits, _ = model((ds.x_train[rows].float() / 255.0 - ds.mean[0]) / ds.std[0])
                loss = torch.nn.functional.cross_entropy(logits, ds.y_train[rows])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            return [v.numpy() for v in model.state_dict().values()], len(part), {}

    class TimedFedAvg(FedAvg):
        def configure_fit(self, server_round, parameters, client_manager):
            stamps.append(time.perf_counter())
            return super().configure_fit(server_round, parameters, client_manager)

        def aggregate_fit(self, server_round, results, failures):
            out = super().aggregate_fit(server_round, results, failures)
            stamps.append(time.perf_counter())
            return out

    from flwr.common import ndarrays_to_parameters

    _, prep = _cached_work(clients, quick)
    init = ndarrays_to_parameters([v.numpy() for v in initial_model(prep, "cpu").state_dict().values()])
    strategy = TimedFedAvg(fraction_fit=1.0, fraction_evaluate=0.0, min_fit_clients=clients,
                           min_available_clients=clients, initial_parameters=init)
    server = ServerApp(server_fn=lambda ctx: ServerAppComponents(strategy=strategy, config=ServerConfig(num_rounds=rounds + 1)))
    client = ClientApp(client_fn=lambda ctx: Client(int(ctx.node_config["partition-id"])).to_client())
    cores = len(os.sched_getaffinity(0))
    run_simulation(server_app=server, client_app=client, num_supernodes=clients,
                   backend_config={"client_resources": {"num_cpus": 1, "num_gpus": 0},
                                   "init_args": {"num_cpus": cores}})
    per_round = [stamps[i + 1] - stamps[i] for i in range(0, len(stamps) - 1, 2)]
    return per_round[1:]  # the first round is the warm-up


_WORK: dict = {}


def _cached_work(clients: int, quick: bool):
    if (clients, quick) not in _WORK:
        _WORK[(clients, quick)] = work(clients, quick)
    return _WORK[(clients, quick)]


def measure(path: str, clients: int, rounds: int, quick: bool) -> dict:
    device = "cuda" if path in ("gpu-loop", "gpu-vmap") else "cpu"
    with PeakRSS() as mem:
        if path == "flower":
            times = flower(clients, rounds, quick)
        else:
            cfg, prep = work(clients, quick, device)
            if path in ("plain", "gpu-loop"):
                times = plain_loop(cfg, prep, rounds, device) if path == "plain" else engine(cfg, prep, rounds, "sequential", device)
            else:
                times = engine(cfg, prep, rounds, {"sequential": "sequential", "parallel": "parallel",
                                                   "gpu-vmap": "vmap", "cpu-vmap": "vmap"}[path], device)
    out = {"path": path, "clients": clients, "median_s": median(times), "times": times, "peak_rss_mib": mem.peak}
    if device == "cuda":
        out["peak_cuda_mib"] = torch.cuda.max_memory_allocated() / 2**20
    return out


def run_isolated(path: str, clients: int, rounds: int, quick: bool, python: str | None = None) -> dict:
    """Each measurement in a fresh process, so peak memory and start-up are its own."""
    cmd = [python or sys.executable, "-m", "benchmarks.round_speed", "--one", path, "--clients", str(clients),
           "--rounds", str(rounds)]
    cmd += ["--quick"] if quick else []
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE", PYTHONPATH=str(ROOT))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if proc.returncode or not lines:
        return {"path": path, "clients": clients, "error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="6,000 training samples, 10 clients, 1 timed round")
    ap.add_argument("--clients", type=str, default=None, help="comma list (default 10,50,200)")
    ap.add_argument("--rounds", type=int, default=None, help="timed rounds per path (default 3, quick 1)")
    ap.add_argument("--paths", default=None, help="comma list of plain,sequential,parallel,cpu-vmap,flower,gpu-loop,gpu-vmap")
    ap.add_argument("--gpu-only", action="store_true", help="only the GPU per-client loop and the GPU vmap path")
    ap.add_argument("--flower-python", help="interpreter with flwr[simulation] installed (a separate venv)")
    ap.add_argument("--json", help="also write all measurements to this file")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    add_docs_flag(ap)
    args = ap.parse_args(argv)
    rounds = args.rounds or (1 if args.quick else 3)
    if args.one:
        print(json.dumps(measure(args.one, int(args.clients), rounds, args.quick)))
        return
    counts = [int(c) for c in (args.clients or ("10" if args.quick else "10,50,200")).split(",")]
    if args.gpu_only:
        paths = ["gpu-loop", "gpu-vmap"]
    elif args.paths:
        paths = args.paths.split(",")
    else:
        paths = ["plain", "sequential", "parallel"] + (["gpu-loop", "gpu-vmap"] if torch.cuda.is_available() else [])
        if args.flower_python or _has_flower():
            paths.append("flower")
    print(f"# {os.uname().nodename}: {len(os.sched_getaffinity(0))} cores, torch {torch.__version__}, "
          f"cuda {torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'none'}; {rounds} timed round(s)")
    table = Table("round_speed", ["clients", "path", "s/round (median)", "x plain", "peak MiB", "rounds (s)"],
                  title=f"{'Quick: 6,000 samples' if args.quick else 'FedAvg, Fashion-MNIST 60k'}, simple CNN, batch 64, "
                  f"1 local epoch, {rounds} timed round(s) after a warm-up, each path in a fresh process, "
                  f"{len(os.sched_getaffinity(0))} cores, torch {torch.__version__}")
    rows = []
    for clients in counts:
        base = None
        for path in paths:
            r = run_isolated(path, clients, rounds, args.quick, args.flower_python if path == "flower" else None)
            rows.append(r)
            if "error" in r:
                print(f"{clients:>7} {path:<11} failed: {r['error']}", flush=True)
                table.row(clients, path, "failed", "", "", r["error"].splitlines()[0] if r["error"] else "")
                continue
            base = r["times"] if path in ("plain", "gpu-loop") else base
            table.row(clients, path, f"{r['median_s']:.2f}", ratio(r["times"], base) if base else "-",
                      f"{r['peak_rss_mib']:.0f}", " ".join(f"{t:.2f}" for t in r["times"]))
            print(f"{clients:>7} {path:<11} {r['median_s']:8.2f}", flush=True)
    finish(table, args)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


def _has_flower() -> bool:
    try:
        import flwr  # noqa: F401
        return True
    except ImportError:
        return False


if __name__ == "__main__":
    main()
