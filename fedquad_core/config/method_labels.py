"""The methods' display names and citations, importable without torch: read by
``fedquad_core.vocab.methods`` from each method's own file (its class's ``label`` and
``citation``), so no table here copies them. Kept for the names earlier code imports."""
from __future__ import annotations

from ..vocab.methods import citations, labels, method_label

LABELS = labels()
CITATIONS = citations()

__all__ = ["LABELS", "CITATIONS", "method_label"]
