"""The Launch page's "sweep" part: mark one or two settings of the form as swept, with values, and
start the grid as a named study in the background (``fedquad study run`` in its own process).
Every point shares the rest of the form; the selected methods are the study's method axis."""
from __future__ import annotations

import time

import streamlit as st

from app import service, state
from fedquad_core.api import parse_grid
from app.studies import catalog as studies

SETTINGS = {"alpha": "Dirichlet α", "num_clients": "clients", "participation": "participation", "seed": "seed",
            "lr": "learning rate", "local_epochs": "local epochs", "rounds": "rounds", "batch_size": "batch size"}
EXAMPLES = {"alpha": "0.05, 0.1, 0.3, 1, iid", "num_clients": "10, 20, 50", "participation": "0.1, 0.5, 1",
            "seed": "0, 1, 2", "lr": "0.01, 0.05, 0.1", "local_epochs": "1, 2, 5", "rounds": "10, 30",
            "batch_size": "16, 32, 64", "m1": "0, 0.5, 1, 2", "m2": "0, 0.5, 1, 2", "beta": "0, 0.5, 1, 2"}
NONE = "—"


def sweepable(methods: list[str]) -> dict[str, str]:
    """The settings that can be an axis: the run settings above and the chosen methods' parameters."""
    out = dict(SETTINGS)
    for m in methods:
        for spec in service.param_specs(m):
            out.setdefault(spec.name, f"{spec.name} ({service.method_label(m)})")
    return out


def _fill(axis_key: str, values_key: str) -> None:
    st.session_state[values_key] = EXAMPLES.get(st.session_state[axis_key], "")


def _grid(axis: str, text: str) -> dict[str, list]:
    return parse_grid([f"{axis}={text}"])


def sweep_form(methods: list[str], common: dict, params: dict[str, dict]) -> None:
    """Draw the sweep controls under the Launch form and start the study on click."""
    state.init("l_sweep", False, bool)
    st.toggle("Sweep one or two settings (a study)", key="l_sweep",
              help="The grid of runs is computed once in the background and explored on the Explore page; "
                   "a point whose exact settings already ran is reused, never trained twice.")
    state.publish("l_sweep")
    if not st.session_state.l_sweep:
        return
    options = sweepable(methods)
    names = list(options)
    state.init("l_ax1", "alpha", str, names)
    state.init("l_ax2", NONE, str, [NONE, *names])
    st.session_state.setdefault("l_ax1_v", EXAMPLES.get(st.session_state.l_ax1, ""))
    st.session_state.setdefault("l_ax2_v", "")
    st.session_state.setdefault("l_seeds", "0, 1, 2")
    st.session_state.setdefault("l_study", time.strftime("study-%m%d-%H%M"))
    with st.container(border=True):
        c = st.columns([2, 3, 2, 3])
        c[0].selectbox("Sweep", names, key="l_ax1", format_func=options.get, on_change=_fill, args=("l_ax1", "l_ax1_v"))
        c[1].text_input("values (comma-separated)", key="l_ax1_v", help="alpha takes 'iid' too")
        c[2].selectbox("and (optional)", [NONE, *names], key="l_ax2", format_func=lambda a: options.get(a, a),
                       on_change=_fill, args=("l_ax2", "l_ax2_v"))
        c[3].text_input("values", key="l_ax2_v", disabled=st.session_state.l_ax2 == NONE)
        d = st.columns([2, 3, 5])
        d[0].text_input("Seeds (replicates)", key="l_seeds", help="mean ± std over these in every response plot")
        d[1].text_input("Study name", key="l_study")
        state.publish("l_ax1", "l_ax2")
        if d[2].button("Start study", key="l_study_start", icon=":material/grid_view:", disabled=not methods):
            start(methods, common, params)


def start(methods: list[str], common: dict, params: dict[str, dict]) -> None:
    ss = st.session_state
    axes: dict[str, list] = {}
    try:
        for axis, text in ((ss.l_ax1, ss.l_ax1_v), (ss.l_ax2, ss.l_ax2_v)):
            if axis != NONE:
                if axis in axes:
                    raise ValueError(f"{axis} is marked twice: pick two different settings")
                axes.update(_grid(axis, text))
        axes["method"] = list(methods)
        if "seed" not in axes:
            axes.update(_grid("seed", ss.l_seeds))
    except Exception as e:  # noqa: BLE001 - the engine's one-line UserError (or ValueError)
        st.error(f"Not started: {e}")
        return
    merged = {k: v for m in methods for k, v in params.get(m, {}).items() if k not in axes}
    base = {**common, "method": methods[0], "method_params": merged}
    name = ss.l_study.strip()
    with st.spinner("Checking the whole grid…"):
        checked, problem = service.preflight_study(name, base, axes)
    if problem:
        st.error(f"Not started: {problem}")
        return
    n = 1
    for v in axes.values():
        n *= len(v)
    service.launch_study(name, {"title": name, "base": base, "axes": axes}, checked=checked)
    ss.x_study = f"mine:{name}"
    st.success(f"Study {name} started in the background: {n} grid points.")
    st.page_link("views/explore.py", label="Watch it fill in on the Explore page", icon=":material/tune:")
