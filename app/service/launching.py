"""Launching from the dashboard, runs and studies alike (the app's one launcher): config defaults,
one config per method, the engine's one up-front check of a group (``preflight``: each config
checked once, each distinct partition drawn once, on this app's cached labels and partitions) and
the start of the checked group or a preset as background runs, which train on the partition checked
here; a study's check (``preflight_study``) and the start of its driver (``launch_study``,
``compute_missing``), which computes its missing points detached. Only a presenter starts anything."""
from __future__ import annotations

import time
import uuid
from typing import Any

from fedquad_core import api
from fedquad_core.api import RunConfig
from app import presets
from app.service.roles import require_presenter
from app.roots import REPO_ROOT, runs_dir
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
    return api.check_runs(cfgs, labels=run_labels, draw=run_partition)


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
    api.engine_fingerprint()


def launch_group(checked: list) -> tuple[str, list[str]]:
    """Start every checked config (``preflight``) as a background run sharing one comparison group
    id; each run trains on the partition checked here."""
    require_presenter("start runs")
    group = time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:4]
    root = runs_dir()
    ids = [api.launch_run(c, root, extra={"group": group}) for c in checked]
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


# ---- studies: their one up-front check and their driver, detached (the engine's ``StudyView.check`` and ``start``) ----
def preflight_study(name: str, base: dict, axes: dict) -> tuple[list | None, str | None]:
    """(the checked points, None), or (None, the first problem as a one-line message): the
    engine's one up-front check of the whole study (``StudyView.check``: its axes, size and method
    parameters, then each point's config once and each distinct partition once, with this app's
    cached labels and partitions; a name taken in the user's store is refused)."""
    return api.study_view(runs_dir()).check(name, base, axes, labels=run_labels, draw=run_partition)


def launch_study(name: str, spec: dict | None = None, *, jobs: int | None = None, checked: list | None = None) -> int:
    """Start the study's driver (``python -m fedquad_core study run NAME``) in the user's store,
    detached; return its pid. ``spec`` ({"title", "base", "axes"}) starts a new study; without it
    the stored study resumes: its missing points are trained, finished ones reused (the engine
    never trains a run twice). ``checked`` (``preflight_study``'s) is handed to the driver, which
    then trains on the partitions checked here instead of checking the grid again."""
    require_presenter("start a study")
    return api.study_view(runs_dir()).start(name, spec, checked=checked, jobs=jobs, cwd=REPO_ROOT)


def compute_missing(ref) -> int:
    """Start the background process that computes a user study's missing points (``ref``: a
    ``studies.catalog.StudyRef``); return its pid."""
    if ref.source != "mine":
        raise api.StoreError(f"study {ref.name} is recorded (read-only): compute it as a study of your own")
    return launch_study(ref.name)


def study_running(ref) -> bool:
    """True while the background process computing this (user) study is alive."""
    return ref.source == "mine" and api.study_view(runs_dir()).running(ref.name)


def study_log_tail(ref, lines: int = 5) -> str:
    """The last ``lines`` of the study driver's log ("" when there is none)."""
    try:
        return "\n".join(api.study_view(runs_dir()).log(ref.name).read_text().splitlines()[-lines:])
    except OSError:
        return ""
