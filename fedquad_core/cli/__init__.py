"""The ``fedquad`` command line (``main``): the parser and dispatcher in ``main``, the run-store
commands in ``commands``, ``sweep`` and ``study`` in their own modules, the shared run flags in
``args`` and the printed tables in ``tables``.

``main`` here imports the commands when called, inside a guard: they pull in torch (seconds), and
a Ctrl-C in that time is one line and exit code 130, never an import traceback."""
from __future__ import annotations

import sys
from typing import Sequence

INTERRUPTED = "fedquad: interrupted"


def main(argv: Sequence[str] | None = None) -> int:
    try:
        # lazy: the commands import torch (about 1.5 s, benchmarks/lazy_imports.py); a Ctrl-C meanwhile is one line
        from .main import main as run_main
    except KeyboardInterrupt:
        print(f"{INTERRUPTED} while starting", file=sys.stderr)
        return 130
    return run_main(argv)


def build_parser():
    # lazy: as main (the parser lists the methods, which import torch)
    from .main import build_parser as build

    return build()


__all__ = ["build_parser", "main"]
