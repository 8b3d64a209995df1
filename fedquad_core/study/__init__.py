"""Studies: a named grid of runs over run settings, computed once (see docs/studies.md).

- ``grid``: the spec, its axes and values, and its points (``StudySpec``, ``parse_grid``, ``expand``)
- ``store``: study files beside the runs, and the index of finished runs by run key
- ``run``: preflight of the whole grid, then the missing points in a process pool (``pool``) or on
  Ray (``ray``); ``stopping``: the running lock, the cancel request, ``StudyStopped``
- ``table``: a study's numbers per point and over seeds, and ``compare`` (beyond seed noise or not)
- ``matched``: the runs compared at matched accuracy (``matched_accuracy``)
- ``stats``: paired t / Welch, equivalence (TOST), non-inferiority, Holm, slopes; ``effects``: the
  smallest effect of interest of each measure; ``verdicts``: a comparison's verdict in words;
  ``plateau``: the two-sided plateau rule (see docs/verdicts.md)
- ``paper_claims``: the seed paper's claims checked against the recorded studies (``check_claims``;
  the runs read by ``claim_runs``, the rows printed by ``claims_table``)

The grid's preflight is ``fedquad_core.config.preflight.check_grid`` (re-exported here)."""
from __future__ import annotations

import importlib

# Loaded on first use, so that reading study files (``study.store``, ``study.table``) does not
# import torch: the dashboard's projection worker starts without it.
_HOME = {"check_grid": "..config.preflight", "run_key": "..version", "run_study": ".run", "StudyPool": ".pool", "check_study": ".run", "StudyStore": ".store", "check_name": ".store",
         "response_table": ".table", "study_frame": ".table", "compare": ".table", "compare_summary": ".table",
         "Verdict": ".table", "matched_accuracy": ".matched", "check_claims": ".paper_claims", "claims_markdown": ".paper_claims",
         **{name: ".grid" for name in ("Point", "StudySpec", "expand", "keyed", "parse_axes",
                                       "parse_grid")}}
__all__ = ["StudySpec", "Point", "parse_grid", "parse_axes", "expand", "keyed", "check_name", "check_grid", "check_study",
           "run_key", "StudyStore", "run_study", "StudyPool", "study_frame", "response_table", "compare", "compare_summary",
           "Verdict", "matched_accuracy", "check_claims", "claims_markdown"]


def __getattr__(name: str):
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME[name], __name__), name)
    globals()[name] = value
    return value
