"""The dashboard's one door to the engine: every name the app uses from ``fedquad_core`` is
imported here and nowhere else in ``app/`` (``tests/app/test_one_door.py`` checks it), so a move
inside the engine changes this file only. App modules outside ``app/service`` import it as
``from app.service import engine`` or ``from app.service.engine import X``.

The store, config, partition, launcher, geometry and study-table names are light and imported at
once. The names below ``_LAZY`` pull in torch (the method registry, the data loaders, the study
grid); they are imported on first use (PEP 562), so the projection processes, which need only
the store, start without torch.
"""
from __future__ import annotations

import importlib

from fedquad_core.runs import launcher
from fedquad_core.runs import locks as process_locks
from fedquad_core.config import DATASET_NAMES, DEVICES, ConfigError, RunConfig
from fedquad_core.config.alpha import ALPHA_STEPS, alpha_text, parse_alpha
from fedquad_core.config.numbers import NumberError, parse_float, parse_int
from fedquad_core.config import limits
from fedquad_core.numerics.geometry import effective_rank, singular_values
from fedquad_core.config.method_labels import CITATIONS as METHOD_CITATIONS, LABELS as METHOD_LABELS, method_label
from fedquad_core.runs.launcher import spawn_detached
from fedquad_core.numerics.partition import PartitionError, class_counts, partition
from fedquad_core.runs.store import (ACTIVE, FOLLOW_FOLDER, DamagedRun, RunNotFound, RunStore, StoreError, atomic_write, atomic_write_json,
                                atomic_write_text, pid_alive)
from fedquad_core.safe_io import (DamagedFile, UnsafeFile, open_file as open_safe_file, read_json as read_json_file,
                                  read_text as read_text_file, touch as touch_safe, unsafe_folder, unsafe_program)
from fedquad_core.runs.files import Damaged, layout_damage, read_layout, read_snapshot as read_snapshot_file
from fedquad_core.version import engine_fingerprint
from fedquad_core.config.holding import hold_share
from fedquad_core.study.store import DamagedStudy, StudyStore
from fedquad_core.study.paper_claims import check_claims, claims_markdown, pairable, row_key
from fedquad_core.study.confirm import at_samples, equal_samples_values, reference_totals
from fedquad_core.study.claims_table import claim_verdicts, format_p
from fedquad_core.study.claim_runs import run_value
from fedquad_core.study.effects import effect_text, smallest_effect
from fedquad_core.study.matched import accuracy_profile, matched_accuracy, matched_comparison, seed_of
from fedquad_core.study.table import NEGLIGIBLE, NO_DATA, NOISE, ONE_SEED, SEPARATED, Verdict, compare, compare_summary, study_frame
from fedquad_core.study.stats import holm as holm_adjust, p_text, paired as paired_test
from fedquad_core.study.verdicts import judge as claim_judge
from fedquad_core.vocab.metrics import (METRICS as METRIC_VOCAB, axis_titles as metric_axis_titles, chart_titles as metric_chart_titles,
                                        is_accuracy as is_accuracy_metric, titles as metric_titles, words as metric_words)
from fedquad_core.vocab.words import alpha_words, delta_margins, delta_points
from fedquad_core.study.words import RESULT_PHRASES, MAX_WORDS, claim_words, difference_words, row_takeaway, stray_phrases, takeaway, word_count

_LAZY = {
    "METHODS": "fedquad_core.methods",
    "DataError": "fedquad_core.data", "check_data": "fedquad_core.data", "data_summary": "fedquad_core.data",
    "load_dataset": "fedquad_core.data",
    "USER_ERRORS": "fedquad_core.user_errors",
    "check_runs": "fedquad_core.config.preflight",
    "StudySpec": "fedquad_core.study", "check_grid": "fedquad_core.study", "check_name": "fedquad_core.study",
    "check_study": "fedquad_core.study",
    "expand": "fedquad_core.study", "parse_axes": "fedquad_core.study", "parse_grid": "fedquad_core.study",
}

__all__ = ["launcher", "process_locks", "DATASET_NAMES", "DEVICES", "ConfigError", "RunConfig", "effective_rank", "singular_values", "spawn_detached",
           "PartitionError", "class_counts", "partition", "ACTIVE", "DamagedRun", "RunNotFound", "RunStore",
           "StoreError", "atomic_write", "atomic_write_json", "atomic_write_text", "pid_alive", "Damaged",
           "layout_damage", "read_layout", "DamagedFile", "UnsafeFile", "open_safe_file", "touch_safe", "unsafe_folder", "unsafe_program", "read_json_file", "read_text_file", "read_snapshot_file", "DamagedStudy", "StudyStore", "study_frame", "Verdict", "compare",
           "compare_summary", "SEPARATED", "NOISE", "ONE_SEED", "NO_DATA", "NEGLIGIBLE", "p_text", "paired_test", "holm_adjust",
           "claim_verdicts", "format_p", "row_key", "run_value", "effect_text", "smallest_effect", "seed_of", "claim_judge", "matched_accuracy", "matched_comparison", "accuracy_profile", "check_claims",
           "claims_markdown", "pairable", "equal_samples_values", "at_samples", "reference_totals", "FOLLOW_FOLDER", "engine_fingerprint", "method_label", "METHOD_LABELS", "METHOD_CITATIONS", *_LAZY]
__all__ += ["METRIC_VOCAB", "metric_axis_titles", "metric_chart_titles", "is_accuracy_metric", "metric_titles", "metric_words", "alpha_words", "delta_margins", "delta_points"]  # one vocabulary
__all__ += ["NumberError", "parse_float", "parse_int"]  # the one rule of numbers (URL values as flags)
__all__ += ["RESULT_PHRASES", "MAX_WORDS", "claim_words", "difference_words", "row_takeaway", "stray_phrases", "takeaway", "word_count"]  # words from verdicts
__all__ += ["ALPHA_STEPS", "alpha_text", "parse_alpha", "limits"]  # the one α vocabulary, the forms' bounds


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
