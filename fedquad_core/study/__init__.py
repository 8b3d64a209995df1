"""Studies: a named grid of runs over run settings, computed once (see README, "Studies").

- ``grid``: the spec, its axes and values, and its points (``StudySpec``, ``parse_grid``, ``expand``)
- ``store``: study files beside the runs, and the index of finished runs by run key
- ``run``: preflight of the whole grid, then the missing points in a process pool or on Ray (``ray``)
- ``table``: a study's numbers per point and over seeds

The grid's preflight is ``fedquad_core.preflight.check_grid`` (re-exported here)."""
from __future__ import annotations

from ..preflight import check_grid
from ..version import run_key
from .grid import Point, StudySpec, check_name, expand, keyed, parse_axes, parse_grid
from .run import run_study
from .store import StudyStore
from .table import response_table, study_frame

__all__ = ["StudySpec", "Point", "parse_grid", "parse_axes", "expand", "keyed", "check_name", "check_grid",
           "run_key", "StudyStore", "run_study", "study_frame", "response_table"]
