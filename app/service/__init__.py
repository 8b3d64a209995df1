"""The app's use of the engine: what the pages ask, in one namespace (``service.X``), by concept:
``runs`` (the run stores as pages see them: which holds a run, tables, metrics, snapshots, cancel,
delete, bundles), ``catalog`` (the methods and data sets the forms offer, and partitions, cached),
``launching`` (configs, the up-front check, starting runs and studies), ``workers`` (the
projection worker and the warm server kept alive), ``roles`` (presenter and students) and
``follow_store`` / ``poll_store`` (the classroom's files).

The engine itself is reached through ``fedquad_core.api`` (its public surface, typed; the only
engine module an app module imports: ``tests/app/test_one_door.py``). This package adds what is
the app's: roles, Streamlit's caches and session state. It imports Streamlit and pandas; modules
that must stay light (the projection worker, the figures) import ``fedquad_core.api`` instead."""
from __future__ import annotations

from fedquad_core.api import ACTIVE, DEVICES, USER_ERRORS, RunNotFound, StoreError
from app.roots import REPO_ROOT, recorded_dir, runs_dir
from app.service.roles import NotPresenter, is_presenter, is_student
from app.service.catalog import (DATASET_NAMES, alpha_text, data_problem, dataset_labels, log_options, lt3_mask, methods, param_specs,
                                 partition_counts)
from app.service.launching import (check_configs, compute_missing, config_defaults, dataset_defaults, launch_group,
                                   launch_preset, launch_study, make_configs, preflight, preflight_study, study_log_tail,
                                   study_running, warm_launch)
from app.service.runs import (PAIR_STUDIES, any_active, bundle, cancel, delete, is_recorded, latest_group,
                              local_snapshot_rounds, method_label, metrics_frame, pair_note, read_config,
                              read_local_snapshot, read_metrics, read_partition, read_snapshot, read_status, run_path,
                              runs_table, showing_pair, snapshot_notice, snapshot_rounds, source_of, source_root,
                              store_for, summary_table, without_damaged)
from app.service.workers import keep_projection_worker, keep_warm_server

__all__ = [
    # engine types the pages name
    "ACTIVE", "DATASET_NAMES", "DEVICES", "USER_ERRORS", "RunNotFound", "StoreError",
    # where things are
    "REPO_ROOT", "recorded_dir", "runs_dir",
    # roles
    "NotPresenter", "is_presenter", "is_student",
    # methods, data, partitions
    "alpha_text", "data_problem", "dataset_labels", "log_options", "lt3_mask", "methods", "param_specs",
    "partition_counts",
    # launching runs and studies
    "check_configs", "compute_missing", "config_defaults", "dataset_defaults", "launch_group", "launch_preset",
    "launch_study", "make_configs", "preflight", "preflight_study", "study_log_tail", "study_running", "warm_launch",
    # runs as the pages read them
    "PAIR_STUDIES", "any_active", "bundle", "cancel", "delete", "is_recorded", "latest_group", "local_snapshot_rounds",
    "method_label", "metrics_frame", "pair_note", "read_config", "read_local_snapshot", "read_metrics",
    "read_partition", "read_snapshot", "read_status", "run_path", "runs_table", "showing_pair", "snapshot_notice",
    "snapshot_rounds", "source_of", "source_root", "store_for", "summary_table", "without_damaged",
    # helpers kept alive
    "keep_projection_worker", "keep_warm_server",
]
