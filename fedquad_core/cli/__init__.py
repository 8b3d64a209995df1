"""The ``fedquad`` command line (``main``): the parser and dispatcher in ``main``, the run-store
commands in ``commands``, ``sweep`` and ``study`` in their own modules, the shared run flags in
``args`` and the printed tables in ``tables``.

Importing the commands pulls in numpy and torch (seconds): a Ctrl-C in that time (the ``fedquad``
script and ``python -m fedquad_core`` import this package first) is one line and exit code 130,
never an import traceback. A library may turn the interrupt into an ImportError of its own (numpy
does, when the Ctrl-C lands in its C extension's imports), so the interrupt is noted by a handler
of ours for the time of the imports and an ImportError after one counts as the interrupt."""
import signal as _signal
import sys as _sys

_seen: list[int] = []


def _interrupt(signum, frame):
    _seen.append(signum)
    raise KeyboardInterrupt


_before = _signal.getsignal(_signal.SIGINT)
if _before is not _signal.SIG_IGN:  # a command started with Ctrl-C ignored (a background job) keeps it so
    _signal.signal(_signal.SIGINT, _interrupt)
try:
    from .main import build_parser, main
except (KeyboardInterrupt, ImportError):
    if not _seen:
        raise
    print("fedquad: interrupted while starting", file=_sys.stderr)
    raise SystemExit(130) from None
finally:
    _signal.signal(_signal.SIGINT, _before)

__all__ = ["build_parser", "main"]
