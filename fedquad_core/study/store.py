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

from ..config.alpha import alpha_text
from ..runs.files import Damaged
from ..runs.store import STUDIES_FOLDER, RunStore, StoreError, _read_json, atomic_write_json
from ..version import BOOKKEEPING, engine_fingerprint
from ..errors import UserError
from .files import read_study

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def valid_name(name: str) -> bool:
    return isinstance(name, str) and bool(_NAME.match(name)) and ".." not in name


def check_name(name: str) -> str:
    if not valid_name(name):
        raise UserError(f"invalid study name {name!r}: use letters, digits, '.', '_' and '-'")
    return name



class StudyNotFound(StoreError):
    """No study of that name in the root."""


class DamagedStudy(StoreError):
    """A study file that cannot be read as a study; ``reason`` says why in one line."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"study {name} is damaged: {reason}")
        self.name, self.reason = name, reason


class StudyStore:
    """Reads and writes the studies of one run-store root."""

    def __init__(self, root: str | os.PathLike = "runs"):
        self.root = Path(root)
        self.runs = RunStore(self.root)

    @property
    def folder(self) -> Path:
        return self.root / STUDIES_FOLDER

    def path(self, name: str) -> Path:
        return self.folder / f"{check_name(name)}.json"

    def names(self) -> list[str]:
        """Every entry that claims to be a study (damaged ones included; ``read`` says why); a
        stray file whose name is not a study name (``bad name.json``, ``.x.json``) is ignored."""
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json") if valid_name(p.stem))

    def exists(self, name: str) -> bool:
        return os.path.lexists(self.path(name))

    def read(self, name: str) -> dict[str, Any]:
        """The study, or ``StudyNotFound`` / ``DamagedStudy`` (one line each)."""
        path = self.path(name)
        if not os.path.lexists(path):
            raise StudyNotFound(f"no study {name!r} in {self.root}: `fedquad study list --runs-dir {self.root}` "
                                "shows the studies")
        try:
            return read_study(path)
        except Damaged as e:
            raise DamagedStudy(name, f"{path}: {e}") from None

    def write(self, study: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.path(study["name"]), study, within=self.root)  # no write through a linked studies/


def finished_runs(runs: RunStore, engine: str | None = None) -> dict[str, str]:
    """Run key -> run id of every finished run of ``engine`` (default: this code's) in the root.
    Of several finished runs with one key, the first by id is taken."""
    engine = engine or engine_fingerprint()
    index: dict[str, str] = {}
    for run_id in runs.run_ids():
        try:
            status = _read_json(runs.root / run_id / "status.json", {})
        except (OSError, ValueError):  # unreadable (a folder, not UTF-8): a damaged run is no finished run
            continue
        if (isinstance(status, dict) and status.get("state") == "finished" and status.get("engine") == engine
                and isinstance(status.get("key"), str)):
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
    return " ".join(f"{k}={','.join(alpha_text(v) if k == 'alpha' else str(v) for v in vals)}" for k, vals in axes.items())
