"""Collect, build, write: the take-home file for the studies ``names`` (default: Explore's first
study and the Lesson's), from the recorded root (``$FEDQUAD_RECORDED_DIR``)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from app.export.takehome import collect, page


def make(names: list[str] | None = None) -> page.Built:
    return page.build(collect.collect(names))


def write(out: Path, names: list[str] | None = None) -> page.Built:
    """The file at ``out``, whole or not at all (written beside it, then renamed)."""
    built = make(names)
    out = Path(out)
    fd, tmp = tempfile.mkstemp(prefix=".takehome-", suffix=".html", dir=out.parent if str(out.parent) else ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(built.text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return built
