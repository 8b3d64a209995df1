"""Launching runs from the dashboard: config defaults, one config per method, the engine's one
up-front check of a group, and the start of a group or a preset as background runs."""
from __future__ import annotations

import time
import uuid
from typing import Any

from app import engine, presets
from app.service.roles import require_presenter
from app.engine import RunConfig, launcher
from app.roots import runs_dir
from app.service.catalog import dataset_labels


def config_defaults() -> dict[str, Any]:
    """RunConfig's field defaults, with the default data set's training values filled in (the
    engine owns them; the Launch form starts from these)."""
    return RunConfig().with_dataset_defaults().to_dict()


def dataset_defaults(name: str) -> dict[str, Any]:
    """The training settings a run on ``name`` gets unless set (lr, momentum, batch size, ...)."""
    return RunConfig(dataset=name).with_dataset_defaults().to_dict()


def make_configs(methods: list[str], common: dict[str, Any], params: dict[str, dict]) -> list[RunConfig]:
    """One config per method; everything but the method (and its params) identical."""
    return [RunConfig(**common, method=m, method_params=dict(params.get(m, {}))) for m in methods]


def check_configs(cfgs: list[RunConfig]) -> str | None:
    """The first problem that would stop these runs, as a one-line message, or None (the
    engine's one up-front check of a grid, with this app's cached labels)."""
    if not cfgs:
        return "pick at least one method"

    def labels(c: RunConfig):  # data in a custom folder or to download: checked when the run starts
        return None if c.data_dir or c.download else dataset_labels(c.dataset, c.train_subset, c.seed)[0]

    try:
        engine.check_grid(cfgs, labels=labels)
    except (*engine.USER_ERRORS, ValueError) as e:
        return str(e)
    return None


def warm_launch() -> None:
    """What a first launch in this process would compute: the hash of the engine's code that each
    run's key carries (about 1 s once)."""
    engine.engine_fingerprint()


def launch_group(cfgs: list[RunConfig]) -> tuple[str, list[str]]:
    """Start every config as a background run sharing one comparison group id."""
    require_presenter("start runs")
    group = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
    root = runs_dir()
    ids = [launcher.launch(cfg, root, extra={"group": group}) for cfg in cfgs]
    return group, ids


def launch_preset(name: str) -> str | None:
    """Start every method of a Launch preset (same partition and seed) as one comparison group;
    the first problem that would stop them as a one-line message (nothing started), or None."""
    require_presenter("start runs")
    preset = presets.PRESETS[name]
    cfgs = make_configs(preset["methods"], preset["config"], {})
    problem = check_configs(cfgs)
    if problem is None:
        launch_group(cfgs)
    return problem


