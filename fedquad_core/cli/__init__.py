"""The ``fedquad`` command line (``main``): the parser and dispatcher in ``main``, the run-store
commands in ``commands``, ``sweep`` and ``study`` in their own modules, the shared run flags in
``args`` and the printed tables in ``tables``.

Importing the commands pulls in torch (seconds): a Ctrl-C in that time (the ``fedquad`` script and
``python -m fedquad_core`` import this package first) is one line and exit code 130, never an
import traceback."""
try:
    from .main import build_parser, main
except KeyboardInterrupt:
    import sys

    print("fedquad: interrupted while starting", file=sys.stderr)
    raise SystemExit(130) from None

__all__ = ["build_parser", "main"]
