"""Explore: slide a study's axes (alpha, m1, m2, ...) and see stored results at once: the curves and
embeddings at the slider position, and the response of accuracy, ratio and effective rank along
the axis with the seed bands. Moving a slider trains nothing; it swaps in runs already computed, and
the browser swaps the figures itself (``app.switcher``): the server only follows."""
from __future__ import annotations

import streamlit as st

from app import follow, service, sidebar, state, switcher
from app.figures import study as sf
from app.studies import catalog as studies
from app.studies import confirmed
from app.studies import explore_local
from app.studies import explore_panels as panels
from app.studies.explore_view import View, points_of
from app.studies import shared

talk = state.talk()
if not talk:  # on a projector the figures keep the first screen: the study picker heads the page
    st.title("Explore")
refs = studies.study_refs()
damaged = studies.damaged_note()
if damaged:
    st.warning(damaged)
if not refs:
    st.info("No study yet. Recorded studies ship in `assets/recorded/` (see docs/studies.md); start your own on the "
            "Launch page (mark one or two settings as a sweep) or with `python -m fedquad_core study run NAME "
            "--grid alpha=0.1,1,iid --grid method=fedavg,fedquad --grid seed=0,1`.")
    st.stop()
if not talk:
    sidebar.start_hint()  # there is a slider to move below


ids = [r.id for r in refs]
labels = {r.id: r.label for r in refs}
state.init("x_study", ids[0], str, ids)


def study_picker() -> None:
    """Presenter mode keeps the picker and the sliders: α, m1, m2 are moved during the talk (in talk
    mode the picker goes under the figures: they keep the projector's first screen)."""
    st.selectbox("Study", ids, key="x_study", format_func=labels.get)


if not talk:
    study_picker()
state.publish("x_study")
ref = studies.ref_from_id(st.session_state.x_study, refs)
study = studies.read_study(ref)
axes = studies.slider_axes(study)
values = {a: sf.ordered_values(a, study["axes"][a]) for a in axes}
if study.get("description") and not talk:
    st.caption(study["description"])


def default_label(axis: str) -> str:
    """Strongest skew for alpha; the base setting (or the middle value) for anything else."""
    opts = values[axis]
    if axis == "alpha":
        return sf.value_label(axis, opts[0])
    base = study.get("base", {})
    v = base.get(axis, (base.get("method_params") or {}).get(axis))
    return sf.value_label(axis, v if v in opts else opts[len(opts) // 2])


def slider_label(axis: str) -> str:
    opts = [sf.value_label(axis, v) for v in values[axis]]
    name = {"alpha": "Dirichlet α", "num_clients": "clients"}.get(axis, axis)
    return f"{name} ({opts[0]} … {opts[-1]})" if len(opts) > 2 else name




def body() -> None:
    """The sliders' section, in a fragment: a move in the browser re-runs only this."""
    axes_ui = [switcher.Axis(a, slider_label(a), [sf.value_label(a, v) for v in values[a]], f"x_{a}") for a in axes]
    for ax in axes_ui:
        state.init(ax.state_key, default_label(ax.key), str, ax.options)
    pos = panels.grid_position(axes_ui, values, {ax.key: st.session_state[ax.state_key] for ax in axes_ui})
    state.init("x_resp", axes[0] if axes else "", str, axes or [""])
    version = shared.version(ref, study)  # a recorded study's: its content (figures shared by all sessions)
    points = points_of(ref.source, ref.name, version)
    if active and not (service.study_running(ref) or points["state"].isin(service.ACTIVE).any()):
        st.rerun()  # the study finished: redraw once without the refresh
    figures = st.container() if talk else None  # talk mode: the figures first, the pickers under them
    controls = st.container(horizontal=True, gap="large")
    with controls:
        if len(axes) > 1 and not state.presenter():
            st.segmented_control("Response plots against", axes, key="x_resp")
        explore_local.local_metric(points)
        if len(axes) >= 2:
            panels.heatmap_control()
    state.publish("x_study", "x_resp", *(ax.state_key for ax in axes_ui))
    for stale in [k for k in st.query_params if k.startswith("x_") and k not in ("x_study", "x_resp", "x_hm", "x_local")
                  and k[2:] not in axes]:
        del st.query_params[stale]  # another study's slider: not part of this view's link
    view = View(ref, study, axes, values, pos, st.session_state.x_resp or (axes[0] if axes else None), talk, version)
    if figures is None:
        panels.compute_controls(view, points)
        panels.at_positions(view, points, axes_ui)
    else:
        with figures:
            panels.at_positions(view, points, axes_ui)
        panels.compute_controls(view, points)
        if study.get("description"):
            st.caption(study["description"])
    follow.share()  # a slider move re-runs only this fragment: the students follow it from here


active = service.study_running(ref) or points_of(ref.source, ref.name, shared.version(ref, study))["state"].isin(service.ACTIVE).any()
st.fragment(run_every=3.0 if active else None)(body)()
if talk:
    study_picker()


def confirmation() -> None:
    """What the registered rows on the study's data set make of its claims on fresh seeds (each
    row's verdict and numbers, from ``api.confirmation``): the study above is exploratory."""
    rows = confirmed.for_dataset(study.get("base", {}).get("dataset") or "digits")
    if not rows:
        return
    with st.expander(f"Confirmed on fresh seeds? {len(rows)} registered claims on this data set",
                     icon=":material/verified:"):
        st.caption("Registered before their runs, run on seeds no recorded study used, judged by rules fixed in "
                   "advance (docs/verdicts.md). This study's own verdicts are exploratory.")
        for r in rows:
            st.markdown(f"- **{r.short}**. {r.claim}." + (f" {r.numbers}." if r.numbers else ""))


confirmation()
