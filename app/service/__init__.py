"""The app's one door to the engine, and what the pages ask of it, in one namespace
(``service.X``), by concept: ``runs`` (the run stores: which holds a run, tables, metrics,
snapshots, cancel, delete, bundles), ``catalog`` (the methods and data sets the forms offer, and
partitions), ``launching`` (configs, the up-front check, starting runs), ``workers`` (the
projection worker and the warm server kept alive), ``roles`` (presenter and students) and
``follow_store`` (the presenter's position, for students who follow). ``engine`` is the only
module of the app that imports ``fedquad_core``; every other app module reaches the engine
through this package (``tests/app/test_one_door.py``). Pages import this package, never a
trainer or a model.

The names below are bound on first use (PEP 562), all at once, not when the package is imported:
the projection worker and the figure modules import ``app.service.engine`` (the store, 0.13 s)
and would otherwise pay for the pages' whole service layer (Streamlit, pandas, plotly: 0.65 s in
all, measured with ``python -c "import app.service"``), and the worker would import itself
back through ``service.workers``."""
from __future__ import annotations

import importlib
import threading

# where each name lives: every name is the defining module's own object
_FROM = {
    "app.service.engine": ("ACTIVE", "DATASET_NAMES", "DEVICES", "ConfigError", "DamagedRun", "PartitionError",
                           "RunConfig", "RunNotFound", "StoreError"),
    "app.service.roles": ("NotPresenter", "class_mode", "is_presenter", "is_student"),
    "app.roots": ("REPO_ROOT", "recorded_dir", "runs_dir"),
    "app.service.catalog": ("ParamSpec", "data_problem", "dataset_info", "dataset_labels", "log_options", "lt3_mask",
                            "method_citation", "method_names", "param_specs", "partition_counts",
                            # the one α vocabulary and the forms' shared ranges (issue 31)
                            "ALPHAS", "BOUNDS", "alpha_text", "parse_alpha", "slider_alpha"),
    "app.service.launching": ("check_configs", "config_defaults", "dataset_defaults", "launch_group", "launch_preset",
                              "make_configs", "warm_launch", "preflight", "run_labels", "run_partition"),
    "app.service.runs": ("DATASET_LABELS", "PAIR_METHODS", "PAIR_NOTE", "PAIR_STUDIES", "SOURCES", "any_active",
                         "bundle", "cancel", "delete", "is_recorded", "latest_group", "local_snapshot_rounds",
                         "method_label", "metrics_frame", "pair_note", "read_config", "read_local_snapshot",
                         "read_metrics", "read_partition", "read_snapshot", "read_status", "recorded_pair",
                         "run_label", "run_path", "runs_table", "showing_pair", "snapshot_notice",
                         "snapshot_notices", "snapshot_rounds", "source_of", "source_root", "store", "store_for",
                         "summary_table", "without_damaged"),
    "app.service.workers": ("keep_projection_worker", "keep_warm_server"),
}
_WHERE = {name: module for module, names in _FROM.items() for name in names}
_loaded = False
# Streamlit runs each session's script in a thread of its own: a class opening a cold server at once
# asks for names here together, and none may see the package half bound (re-entrant: a module being
# imported by ``_load`` may ask for a name of this package in the same thread).
_lock = threading.RLock()

__all__ = [*_WHERE, "DataError"]


def _load() -> None:
    """Bind every name of ``_FROM`` here, as the package's eager imports did before; ``_loaded``
    only once all are bound, so another thread waits on the lock until then."""
    global _loaded
    for module, names in _FROM.items():
        found = importlib.import_module(module)
        globals().update((name, getattr(found, name)) for name in names)
    _loaded = True


def __getattr__(name: str):
    if name == "DataError":  # with torch: only when a page asks for it
        return importlib.import_module("app.service.engine").DataError
    if name in _WHERE:
        with _lock:
            if not _loaded:
                _load()
        return globals()[name]
    # a submodule not imported yet (``from app.service import roles``): the import system imports it
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
