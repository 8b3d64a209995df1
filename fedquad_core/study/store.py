"""Studies on disk, beside the runs of a run-store root:

    <root>/studies/<name>.json   name, title, description, created, base, axes, points, engine

and the index that makes a run never trained twice: the finished runs of the root by run key
(read from each run's status.json, written by ``runner.execute``)."""
from __future__ import annotations

import json
import re
import os
from pathlib import Path
from typing import Any

from ..config import alpha_label
from ..store import RunStore, StoreError, _read_json, atomic_write_json
from ..version import BOOKKEEPING, engine_fingerprint
from ..errors import UserError

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def check_name(name: str) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or ".." in name:
        raise UserError(f"invalid study name {name!r}: use letters, digits, '.', '_' and '-'")
    return name



class StudyNotFound(StoreError):
    """No study of that name in the root."""


class StudyStore:
    """Reads and writes the studies of one run-store root."""

    def __init__(self, root: str | os.PathLike = "runs"):
        self.root = Path(root)
        self.runs = RunStore(self.root)

    @property
    def folder(self) -> Path:
        return self.root / "studies"

    def path(self, name: str) -> Path:
        return self.folder / f"{check_name(name)}.json"

    def names(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json") if not p.name.startswith("."))

    def exists(self, name: str) -> bool:
        return self.path(name).is_file()

    def read(self, name: str) -> dict[str, Any]:
        study = _read_json(self.path(name), None)
        if not isinstance(study, dict):
            raise StudyNotFound(f"no study {name!r} in {self.root}: `fedquad study list --runs-dir {self.root}` "
                                "shows the studies")
        return study

    def write(self, study: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.path(study["name"]), study)


def finished_runs(runs: RunStore, engine: str | None = None) -> dict[str, str]:
    """Run key -> run id of every finished run of ``engine`` (default: this code's) in the root.
    Of several finished runs with one key, the first by id is taken."""
    engine = engine or engine_fingerprint()
    index: dict[str, str] = {}
    for run_id in runs.run_ids():
        status = _read_json(runs.root / run_id / "status.json", {})
        if status.get("state") == "finished" and status.get("engine") == engine and status.get("key"):
            index.setdefault(status["key"], run_id)
    return index


def grid_difference(study: dict[str, Any], base: dict[str, Any], axes: dict[str, list]) -> str | None:
    """What differs between a stored study's grid and a new one (None when they are the same)."""
    if json.loads(json.dumps(study.get("axes"))) != json.loads(json.dumps(axes)):
        return f"its axes are {_axes_text(study.get('axes') or {})}, not {_axes_text(axes)}"
    old = {k: v for k, v in (study.get("base") or {}).items() if k not in BOOKKEEPING}
    new = {k: v for k, v in json.loads(json.dumps(base)).items() if k not in BOOKKEEPING}
    changed = sorted(k for k in {*old, *new} if old.get(k) != new.get(k))
    if changed:
        return "its shared settings differ in " + ", ".join(f"{k} ({old.get(k)!r} -> {new.get(k)!r})" for k in changed)
    return None


def _axes_text(axes: dict[str, list]) -> str:
    return " ".join(f"{k}={','.join(alpha_label(v) if k == 'alpha' else str(v) for v in vals)}" for k, vals in axes.items())
