"""``python -m app.export.takehome html [--study NAME ...] [--out FILE]``: the same as ``fedquad export html``."""
import sys

from app.export.takehome.cli import main

sys.exit(main())
