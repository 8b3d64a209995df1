"""``python -m app.projection RUN_DIR ROUND``: the one-shot UMAP process (``app.projection.cache``)."""
import sys

from app.projection.cache import main

sys.exit(main())
