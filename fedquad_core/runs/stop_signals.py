"""How a run process reacts to signals: SIGTERM, SIGUSR1 (``fedquad cancel``) and Ctrl-C
(SIGINT) stop the run after its current round, so it ends 'cancelled' with its rounds and weights
kept; a second Ctrl-C stops at once (the round in progress is dropped, see ``rounds``). Client
worker processes ignore SIGINT: a terminal's Ctrl-C reaches the whole process group, and the
parent decides."""
from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable

STOP_SIGNALS = (signal.SIGUSR1, signal.SIGTERM, signal.SIGINT)


_DEFER = {"depth": 0}


@contextmanager
def interrupt_deferred():
    """Inside the block a second Ctrl-C does not interrupt: it becomes a plain stop request (the
    loop stops at its next check). Used around a round's bookkeeping, so that a round whose metrics
    row is being written is kept whole, never half recorded."""
    _DEFER["depth"] += 1
    try:
        yield
    finally:
        _DEFER["depth"] -= 1


def install_stop_signals(flag: dict[str, Any]) -> Callable[[], None]:
    """Set ``flag['stop']`` (and ``flag['signal']``, the first signal's name) on a stop signal;
    return a function that puts the previous handlers back. Outside the main thread: no-op."""
    def handler(signum, frame):
        if flag.get("ending"):  # the rounds are over and the run is being saved: nothing left to stop
            return
        second = signum == signal.SIGINT and flag.get("signal") == "SIGINT"
        if second and not _DEFER["depth"]:
            flag["ending"] = True  # one interrupt only: the round in progress is dropped, the rest is saved
            raise KeyboardInterrupt
        if signum == signal.SIGINT and not second:
            print("\nstopping after the current round (Ctrl-C again to stop now)", file=sys.stderr, flush=True)
        flag.update(stop=True, signal=flag.get("signal") or signal.Signals(signum).name)

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    old = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}

    def restore() -> None:
        for sig, previous in old.items():
            signal.signal(sig, previous)
    return restore


@contextmanager
def sigint_ignored():
    """SIGINT ignored inside the block (main thread only). Processes started inside inherit the
    "ignore" through exec, and Python keeps an ignored SIGINT, so they are safe from their first
    instruction."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
