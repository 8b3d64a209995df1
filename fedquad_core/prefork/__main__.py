"""``python -m fedquad_core.prefork ROOT [--parent PID] [--idle-exit SECONDS]``: the warm server."""
import sys

from .server import main

sys.exit(main())
