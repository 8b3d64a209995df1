"""Parallel client training on CPU: a persistent pool of worker processes, one thread each.

* Started once (spawn context) and reused across rounds; ``close()`` ends them, and a worker
  also exits on its own when its pipe to the parent closes (the parent died).
* The training set is shared ONCE at start: its tensors are copied into shared memory and
  handed to the workers by handle, never sent per round.
* Per round only the global weights (written into one shared flat buffer) and the jobs (client
  id, indices, seed, per-client state) travel; each worker writes its client's trained weights
  into its own shared slot, which the parent copies out before giving the worker the next job.
* Jobs go largest-first to whichever worker is free; results come back in job order.
* Each client runs ``client.train_client`` with its own seeded generators, so the weights are the
  same as ``SequentialRunner``'s (bit for bit, at one thread per process).

OMP_NUM_THREADS=1 / OMP_WAIT_POLICY=PASSIVE are set for the workers before they import torch
(see benchmarks/threads.py for why one thread per process).
"""
from __future__ import annotations

import dataclasses
import os
import pickle
import signal
import traceback
from contextlib import contextmanager
from multiprocessing.connection import wait
from typing import Any, Sequence

import torch
import torch.multiprocessing as tmp

from ..config.devices import usable_cores
from .client import ClientJob, ClientResult, TrainData, TrainSettings, frozen_copy, train_client, train_settings
from ..methods import get_method
from ..models import build_model
from .rounds import RunFault
from ..runs.stop_signals import sigint_ignored


class WorkerDied(RunFault):
    """A client worker process ended in the middle of a run (killed, or out of memory)."""

    def __init__(self, worker: int, exitcode: int | None):
        if exitcode is not None and exitcode < 0:
            try:
                how = f"signal {-exitcode}, {signal.Signals(-exitcode).name}"
            except ValueError:
                how = f"signal {-exitcode}"
        else:
            how = f"exit code {exitcode}"
        super().__init__(f"client worker {worker} died ({how}); the run stopped: rerun it, or use --workers 0")
        self.worker, self.exitcode = worker, exitcode


class FlatLayout:
    """Where each entry of a state dict lives in one flat byte buffer (8-byte aligned)."""

    def __init__(self, state: dict[str, torch.Tensor]):
        self.entries, offset = [], 0
        for key, value in state.items():
            nbytes = value.numel() * value.element_size()
            self.entries.append((key, tuple(value.shape), value.dtype, offset, nbytes))
            offset += -(-nbytes // 8) * 8
        self.nbytes = max(8, offset)

    def shared_buffer(self) -> torch.Tensor:
        return torch.zeros(self.nbytes, dtype=torch.uint8).share_memory_()

    def write(self, state: dict[str, torch.Tensor], buf: torch.Tensor) -> None:
        for key, shape, dtype, off, nb in self.entries:
            buf[off:off + nb].view(dtype).copy_(state[key].detach().reshape(-1))

    def read(self, buf: torch.Tensor, *, clone: bool) -> dict[str, torch.Tensor]:
        out = {}
        for key, shape, dtype, off, nb in self.entries:
            view = buf[off:off + nb].view(dtype).view(shape)
            out[key] = view.clone() if clone else view
        return out


@dataclasses.dataclass(frozen=True)
class WorkerSpec:
    model_name: str
    input_shape: tuple[int, ...]
    num_classes: int
    proj_dim: int | None
    method: str
    params: Any
    settings: TrainSettings


def _dumps(obj: Any) -> bytes:
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)  # by value: no fd-backed tensors


def _worker_main(conn, spec: WorkerSpec, dataset, layout: FlatLayout, global_buf: torch.Tensor,
                 slot: torch.Tensor) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C hits the process group: the parent decides
    torch.set_num_threads(1)
    model = build_model(spec.model_name, spec.input_shape, spec.num_classes, proj_dim=spec.proj_dim)
    data = TrainData(dataset.x_train, dataset.y_train, dataset.prepare, dataset.y_train.numpy(), dataset.num_classes)
    method = get_method(spec.method)
    global_state = layout.read(global_buf, clone=False)  # views: the parent rewrites it between rounds
    frozen, frozen_generation = None, -1  # the round's frozen global model (FedProx, MOON)
    while True:
        try:
            msg = conn.recv_bytes()
        except (EOFError, OSError):
            return  # the parent is gone
        message = pickle.loads(msg)
        if message is None:
            conn.close()
            os._exit(0)  # nothing to flush or save here; a full interpreter shutdown with torch loaded takes seconds
        generation, job = message
        try:
            if method.needs_global_model and frozen_generation != generation:  # once per round, not per client
                frozen, frozen_generation = frozen_copy(model, global_state), generation
            res = train_client(model, global_state, job, data=data, method=method, params=spec.params,
                               settings=spec.settings, global_model=frozen)
            if not res.diverged:
                layout.write(res.weights, slot)
            res.weights = {}
            conn.send_bytes(_dumps(("ok", res)))
        except BaseException as exc:  # report, then keep serving (the parent decides)
            conn.send_bytes(_dumps(("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=6)}")))


@contextmanager
def _single_thread_env():
    keys = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE"}
    old = {k: os.environ.get(k) for k in keys}
    os.environ.update(keys)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _shared_copy(t: torch.Tensor) -> torch.Tensor:
    """A copy in shared memory. Not ``share_memory_()`` in place: that frees the old storage under
    any numpy view of it (``Dataset.y_train.numpy()`` is held elsewhere)."""
    return torch.empty_like(t).share_memory_().copy_(t)


def default_workers() -> int:
    """One worker per usable core."""
    return usable_cores()


class ParallelRunner:
    """``ClientRunner`` over ``workers`` persistent single-thread processes (CPU only)."""

    def __init__(self, cfg, prep, augment: bool, *, workers: int):
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        ds = prep.dataset
        method = get_method(cfg.method)
        params = cfg.params()
        spec = WorkerSpec(cfg.model_name, tuple(ds.input_shape), ds.num_classes,
                          getattr(params, "proj_dim", None) if method.needs_projection else None, cfg.method, params,
                          train_settings(cfg, augment))
        empty = torch.empty((0, *ds.x_test.shape[1:]), dtype=ds.x_test.dtype)
        shared = dataclasses.replace(ds, x_train=_shared_copy(ds.x_train), y_train=_shared_copy(ds.y_train),
                                     x_test=empty, y_test=torch.empty(0, dtype=torch.long))
        probe = build_model(spec.model_name, spec.input_shape, spec.num_classes, proj_dim=spec.proj_dim)
        self.layout = FlatLayout(probe.state_dict())
        self.global_buf = self.layout.shared_buffer()
        self.slots = [self.layout.shared_buffer() for _ in range(workers)]
        ctx = tmp.get_context("spawn")
        self.conns, self.procs = [], []
        self.generation = 0
        with _single_thread_env(), sigint_ignored():
            for w in range(workers):
                parent_end, child_end = ctx.Pipe()
                proc = ctx.Process(target=_worker_main, name=f"fedquad-client-worker-{w}", daemon=True,
                                   args=(child_end, spec, shared, self.layout, self.global_buf, self.slots[w]))
                proc.start()
                child_end.close()
                self.conns.append(parent_end)
                self.procs.append(proc)

    def run(self, jobs: Sequence[ClientJob], global_state: dict[str, torch.Tensor]) -> list[ClientResult]:
        if not self.procs:
            raise RuntimeError("ParallelRunner is closed")
        self.layout.write(global_state, self.global_buf)
        self.generation += 1  # tells the workers the global weights changed
        pending = sorted(range(len(jobs)), key=lambda i: -len(jobs[i].indices))  # largest first
        results: list[ClientResult | None] = [None] * len(jobs)
        busy: dict[int, int] = {}  # worker -> job position
        error = None
        while pending or busy:
            for w in range(len(self.procs)):
                if w not in busy and pending and error is None:
                    busy[w] = pending.pop(0)
                    try:
                        self.conns[w].send_bytes(_dumps((self.generation, jobs[busy[w]])))
                    except OSError:  # its pipe is closed: it died between rounds
                        self._died(w)
            if not busy:
                break
            ready = wait([self.conns[w] for w in busy] + [self.procs[w].sentinel for w in busy])
            for w in list(busy):
                if self.conns[w] in ready:
                    try:
                        status, payload = pickle.loads(self.conns[w].recv_bytes())
                    except (EOFError, OSError):  # its end of the pipe closed: it died mid-job
                        self._died(w)
                    pos = busy.pop(w)
                    if status == "error":
                        error = error or f"client {jobs[pos].client_id}: {payload}"
                        continue
                    if not payload.diverged:
                        payload.weights = self.layout.read(self.slots[w], clone=True)
                    results[pos] = payload
                elif self.procs[w].sentinel in ready:
                    self._died(w)
        if error:
            raise RuntimeError(f"a client worker failed: {error}")
        return list(results)  # type: ignore[arg-type]

    def _died(self, w: int) -> None:
        self.procs[w].join(timeout=5)
        code = self.procs[w].exitcode
        self.close()
        raise WorkerDied(w, code)

    def close(self) -> None:
        for conn in self.conns:
            try:
                conn.send_bytes(_dumps(None))
            except OSError:
                pass
        for proc in self.procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()
                proc.join(timeout=5)
        for conn in self.conns:
            conn.close()
        self.conns, self.procs = [], []

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
