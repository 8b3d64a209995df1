"""What the pages ask of the engine, through its door ``app.engine``, in one namespace
(``service.X``), by concept: ``runs`` (the run stores: which holds a run, tables, metrics,
snapshots, cancel, delete, bundles), ``catalog`` (the methods and data sets the forms offer, and
partitions), ``launching`` (configs, the up-front check, starting runs) and ``workers`` (the
projection worker and the warm server kept alive). Pages import this package, never a trainer or
a model."""
from __future__ import annotations

from app import engine
from app.engine import (ACTIVE, DATASET_NAMES, DEVICES, ConfigError, DamagedRun, PartitionError, RunConfig, RunNotFound,
                        StoreError)
from app.service.roles import NotPresenter, class_mode, is_presenter, is_student
from app.roots import REPO_ROOT, recorded_dir, runs_dir
from app.service.catalog import (ParamSpec, data_problem, dataset_info, dataset_labels, log_options, lt3_mask,
                                 method_citation, method_names, param_specs, partition_counts)
from app.service.launching import (check_configs, config_defaults, dataset_defaults, launch_group, launch_preset,
                                   make_configs, warm_launch)
from app.service.runs import (DATASET_LABELS, PAIR_METHODS, PAIR_NOTE, PAIR_STUDIES, SOURCES, any_active, bundle,
                              cancel, delete, is_recorded, latest_group, local_snapshot_rounds, method_label,
                              metrics_frame, pair_note, read_config, read_local_snapshot, read_metrics, read_partition,
                              read_snapshot, read_status, recorded_pair, run_label, run_path, runs_table,
                              showing_pair, snapshot_notice, snapshot_notices, snapshot_rounds, source_of,
                              source_root, store, store_for, summary_table, without_damaged)
from app.service.workers import keep_projection_worker, keep_warm_server
# the one preflight, the one α vocabulary and the forms' shared ranges (issue 31)
from app.service.catalog import ALPHAS, BOUNDS, alpha_text, parse_alpha, slider_alpha
from app.service.launching import preflight, run_labels, run_partition

__all__ = ["ACTIVE", "DATASET_NAMES", "DEVICES", "ConfigError", "DamagedRun", "DataError", "PartitionError",
           "RunConfig", "RunNotFound", "StoreError", "NotPresenter", "class_mode", "is_presenter", "is_student", "REPO_ROOT", "recorded_dir", "runs_dir",
           "ParamSpec", "data_problem", "dataset_info", "dataset_labels", "log_options", "lt3_mask",
           "method_citation", "method_names", "param_specs", "partition_counts",
           "check_configs", "config_defaults", "dataset_defaults", "launch_group", "launch_preset", "make_configs",
           "warm_launch", "DATASET_LABELS", "PAIR_METHODS", "PAIR_NOTE", "PAIR_STUDIES", "SOURCES", "any_active",
           "bundle", "cancel", "delete", "is_recorded", "latest_group", "local_snapshot_rounds", "method_label",
           "metrics_frame", "pair_note", "read_config", "read_local_snapshot", "read_metrics", "read_partition",
           "read_snapshot", "read_status", "recorded_pair", "run_label", "run_path", "runs_table", "showing_pair",
           "snapshot_notice", "snapshot_notices", "snapshot_rounds", "source_of", "source_root", "store",
           "store_for", "summary_table", "without_damaged", "keep_projection_worker", "keep_warm_server"]
__all__ += ["ALPHAS", "BOUNDS", "alpha_text", "parse_alpha", "slider_alpha", "preflight", "run_labels", "run_partition"]


def __getattr__(name: str):
    """``service.DataError`` for the pages, imported (with torch) only when a page asks for it."""
    if name == "DataError":
        return engine.DataError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
