"""What every part of the Explore page reads: the view (the study, its slider axes and values, the
slider position, the response axis), the study's cached tables and snapshots, and the per-session
memo of figures. ``explore_figures`` builds the panels from these; ``explore_panels`` lays them out."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from app.figures import study as sf
from app.studies import catalog as studies
from app.studies import shared


@dataclass
class View:
    ref: studies.StudyRef
    study: dict
    axes: list[str]
    values: dict[str, list]
    pos: dict
    resp_axis: str | None
    talk: bool
    version: tuple  # the study's ``shared.version`` for this page run (read once: it stats run files)


@st.cache_data(max_entries=16, show_spinner=False)
def points_of(source: str, name: str, version: tuple) -> pd.DataFrame:
    return studies.points_frame(studies.StudyRef(source, name, name))


@st.cache_data(max_entries=64, show_spinner=False)
def metrics_of(source: str, name: str, runs: tuple, version: tuple) -> pd.DataFrame:
    """Keyed by the finished runs' (run_id, method, seed): cheap to hash, unlike the table itself."""
    at = pd.DataFrame(list(runs), columns=["run_id", studies.SERIES, studies.REPLICATE]).assign(state="finished")
    return studies.run_metrics(studies.StudyRef(source, name, name), at)


@st.cache_data(max_entries=512, show_spinner=False)
def snapshot_of(source: str, run_id: str, project: bool, version: int | tuple) -> dict | None:
    return studies.final_snapshot(studies.StudyRef(source, "", ""), run_id, project=project)


def memo(key: tuple, build, *, store: str = "_x_figs", size: int = 48):
    """This session's figure (or table, or position) for ``key``, built once; the oldest entry
    goes when ``size`` are kept. A slider move along a response plot's axis finds it unchanged.
    A recorded study's (``key[0]`` its id): one for every session (``shared``, keyed on content)."""
    if shared.serves_key(key):
        return shared.get((store, *key), build)
    cache = st.session_state.setdefault(store, {})
    if key not in cache:
        while len(cache) >= size:
            cache.pop(next(iter(cache)))
        cache[key] = build()
    return cache[key]


def where(fixed: dict) -> str:
    return ", ".join(f"{sf.axis_name(a)} = {sf.value_label(a, v)}" for a, v in fixed.items()) or "the study's setting"


def snap_version(view: View, version: int = 0) -> int | tuple:
    """``snapshot_of``'s version: a recorded study under the shared store adds its content version."""
    return (version, view.version) if shared.serves(view.ref) else version

