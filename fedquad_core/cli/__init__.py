"""The ``fedquad`` command line (``main``): the parser and dispatcher in ``main``, the run-store
commands in ``commands``, ``sweep`` and ``study`` in their own modules, the shared run flags in
``args`` and the printed tables in ``tables``."""
from .main import build_parser, main

__all__ = ["build_parser", "main"]
