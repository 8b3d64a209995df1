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


def install_stop_signals(flag: dict[str, Any]) -> Callable[[], None]:
    """Set ``flag['stop']`` (and ``flag['signal']``, the first signal's name) on a stop signal;
    return a function that puts the previous handlers back. Outside the main thread: no-op."""
    def handler(signum, frame):
        if signum == signal.SIGINT and flag.get("signal") == "SIGINT":
            raise KeyboardInterrupt
        if signum == signal.SIGINT:
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
