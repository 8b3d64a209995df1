"""Launching runs from the dashboard: config defaults, one config per method, the engine's one
up-front check of a group (``preflight``: each config checked once, each distinct partition drawn
once, on this app's cached labels and partitions) and the start of the checked group or a preset
as background runs, which train on the partition checked here."""
from __future__ import annotations

import time
import uuid
from typing import Any

import app.service.engine as engine
from app import presets
from app.service.roles import require_presenter
from app.service.engine import RunConfig, launcher
from app.roots import runs_dir
from app.service.catalog import dataset_labels, dataset_partition


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


def preflight(cfgs: list[RunConfig]) -> tuple[list | None, str | None]:
    """(the checked configs, None), or (None, the first problem that would stop these runs as a
    one-line message): the engine's one up-front check of a grid (``check_runs``), with this app's
    cached labels and partitions (the Partitions page's draw of the same settings is reused)."""
    if not cfgs:
        return None, "pick at least one method"
    try:
        return engine.check_runs(cfgs, labels=run_labels, draw=run_partition), None
    except (*engine.USER_ERRORS, ValueError) as e:
        return None, str(e)


def run_labels(c: RunConfig):
    """The training labels a run with ``c`` sees, from this app's cache; None for data in a custom
    folder or to download (checked when the run starts)."""
    return None if c.data_dir or c.download else dataset_labels(c.dataset, c.train_subset, c.seed)[0]


def run_partition(c: RunConfig):
    """The partition a run with ``c`` gets, from this app's cache (drawn on ``run_labels(c)``)."""
    return dataset_partition(c.dataset, c.num_clients, c.alpha, c.seed, c.min_size, c.train_subset)


def check_configs(cfgs: list[RunConfig]) -> str | None:
    """The first problem that would stop these runs, as a one-line message, or None."""
    return preflight(cfgs)[1]


def warm_launch() -> None:
    """What a first launch in this process would compute: the hash of the engine's code that each
    run's key carries (about 1 s once)."""
    engine.engine_fingerprint()


def launch_group(checked: list) -> tuple[str, list[str]]:
    """Start every checked config (``preflight``) as a background run sharing one comparison group
    id; each run trains on the partition checked here."""
    require_presenter("start runs")
    group = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
    root = runs_dir()
    ids = [launcher.launch(c, root, extra={"group": group}) for c in checked]
    return group, ids


def launch_preset(name: str) -> str | None:
    """Start every method of a Launch preset (same partition and seed) as one comparison group;
    the first problem that would stop them as a one-line message (nothing started), or None."""
    require_presenter("start runs")
    preset = presets.PRESETS[name]
    checked, problem = preflight(make_configs(preset["methods"], preset["config"], {}))
    if problem is None:
        launch_group(checked)
    return problem


