"""The studies under one root as the dashboard reads and drives them, beside ``runs.view.RunView``:
every study at once with each damaged study file named once and skipped (``studies``), one study's
read that must raise (``read``), a study's table (``frame``), the one up-front check of a new study
(``check``), and its driver process (``start``, ``running``, ``log``). Torch-free at import: the
check imports the study grid (torch) when called."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from ..config import RunConfig
from ..runs import launcher
from ..user_errors import USER_ERRORS
from .store import DamagedStudy, StudyStore, check_name
from .table import study_frame

Labels = Callable[[RunConfig], Any]  # a config -> the training labels its run sees (or None)
Draw = Callable[[RunConfig], Any]    # a config -> the partition its run gets


class StudyView:
    """The studies under ``root`` (``root/studies/NAME.json``) and their runs (``root``'s run store)."""

    def __init__(self, root: str | os.PathLike):
        self.store = StudyStore(Path(root))
        self.root = self.store.root

    @property
    def folder(self) -> Path:
        """The folder of the study files (its files' times say when a study changed)."""
        return self.store.folder

    def studies(self) -> tuple[dict[str, dict], list[str]]:
        """(every readable study by name, one line per study left out): the one place a damaged
        study file is named ("study NAME is damaged: why", "study NAME cannot be read: why") and
        skipped."""
        studies, damaged = {}, []
        for name in self.store.names():
            try:
                studies[name] = self.store.read(name)
            except DamagedStudy as e:
                damaged.append(str(e))
            except (OSError, ValueError, KeyError) as e:  # unreadable: named, never silently left out
                damaged.append(f"study {name} cannot be read: {e}")
        return studies, damaged

    def read(self, name: str) -> dict[str, Any]:
        """One study; ``StudyNotFound`` or ``DamagedStudy`` (both ``StoreError``s) when it cannot be."""
        return self.store.read(name)

    def frame(self, study: dict[str, Any]) -> list[dict[str, Any]]:
        """One row per grid point of ``study`` (``study.table.study_frame``): its coordinates,
        ``run_id``, ``state``, ``rounds`` and the final metrics of its run in this root."""
        return study_frame(self.store.runs, study)

    def check(self, name: str, base: dict, axes: dict, *, labels: Labels | None = None,
              draw: Draw | None = None) -> tuple[list | None, str | None]:
        """(the checked points, None), or (None, the first user error as one line): every check of
        a new study before any work: its name (letters, digits, '.', '_', '-') and that no study of
        that name is here, its axes, size and method parameters, then each point's config once and
        each distinct partition once (``labels``/``draw`` may supply cached ones), as
        ``api.check_runs`` for a group."""
        try:
            check_name(name)
            if self.store.exists(name):
                return None, f"a study named {name!r} exists already: choose another name"
        except USER_ERRORS as e:
            return None, str(e)
        from . import StudySpec, check_study, parse_axes  # torch
        try:
            spec = StudySpec(name, RunConfig.from_dict(base), parse_axes(axes))
            return check_study(spec, labels=labels, draw=draw)[2], None
        except (*USER_ERRORS, ValueError, TypeError) as e:
            return None, str(e)

    def start(self, name: str, spec: dict | None = None, *, checked: list | None = None,
              jobs: int | None = None, cwd: str | os.PathLike | None = None) -> int:
        """Start the study's driver (``python -m fedquad_core study run NAME``) detached; its pid."""
        return launcher.launch_study(self.root, name, spec, checked=checked, jobs=jobs, cwd=cwd)

    def running(self, name: str) -> bool:
        """True while the driver computing the study ``name`` is alive."""
        return launcher.study_launched(self.root, name)

    def log(self, name: str) -> Path:
        """Where the driver of the study ``name`` writes its output."""
        return launcher.study_files(self.root, name)[3]
