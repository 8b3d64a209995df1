"""The Explore page's parts: the compute controls, the figures at the slider position (and its
neighbours, so a move is a swap in the browser), the download picker and the layout. The data
they read is in ``explore_view``, the panels are built in ``explore_figures``."""
from __future__ import annotations

from dataclasses import replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import service, state, switcher
from app.export.widgets import render_downloads
from app.figures import study as sf
from app.figures.fit import fit
from app.figures.palette import DEFAULT_HEIGHT
from app.studies import catalog as studies
from app.studies import explore_local, shared
from app.studies import explore_figures as figures
from app.studies.explore_view import View, memo, metrics_of, where


def diverged_points(rows: pd.DataFrame, axes: dict) -> str:
    """'moon, seed 1; fedprox, seed 2': the swept coordinates of each diverged point."""
    return "; ".join(", ".join(f"{row[k]}" if k == "method" else f"{k} {row[k]}" for k in axes
                               if k in row and len(axes[k]) > 1) for _, row in rows.iterrows())


def compute_controls(view: View, points: pd.DataFrame) -> None:
    done, total = studies.progress(points)
    active = service.study_running(view.ref) or points["state"].isin(service.ACTIVE).any()
    diverged = points[points["state"] == "diverged"]
    a, b = st.columns([3, 2])
    a.markdown(f"**{done} / {total}** grid points computed" + (f", {len(diverged)} diverged" if len(diverged) else "")
               + (" — computing…" if active else ""))
    if active:
        a.progress(done / max(total, 1))
    if len(diverged) and not active:
        b.caption("Diverged (the loss became NaN/inf), kept as recorded and left out of the bands and "
                  f"tests: {diverged_points(diverged, view.study['axes'])}.")
    missing = total - done - len(diverged) - int(points["state"].isin(service.ACTIVE).sum())
    if missing <= 0 or active or state.presenter() or service.is_student():
        return
    if view.ref.source == "recorded":
        b.caption(f"{missing} point(s) of this recorded study were not recorded; recorded studies are read-only. "
                  f"Compute them in your own store with `python -m fedquad_core study run {view.ref.name} "
                  f"{' '.join(studies.grid_args(view.study['axes']))}` (add the study's base settings).")
        return
    if b.button(f"Compute {missing} missing point{'s' * (missing != 1)}", key="x_compute", icon=":material/play_arrow:",
                help="Runs them in the background; finished points are reused, never trained twice."):
        try:
            service.compute_missing(view.ref)
            st.toast("Started: the views fill in as points finish.")
            st.rerun()
        except (OSError, service.StoreError) as e:
            st.error(str(e))
    elif service.study_log_tail(view.ref) and not active:
        b.caption(f"Last computation's log: {service.study_log_tail(view.ref, 2)}")


def grid_position(axes: list[switcher.Axis], values: dict[str, list], shown: dict[str, str]) -> dict:
    """The grid values at a position given as the sliders show it (``{"alpha": "IID"}`` -> None)."""
    return {a.key: dict(zip(a.options, values[a.key]))[shown[a.key]] for a in axes}


SWITCHER = "x_switch"  # the component's key: one iframe for every study, so plotly.js loads once


def at_positions(view: View, points: pd.DataFrame, axes: list[switcher.Axis]) -> None:
    """The figures at the slider position, and, once the browser has drawn them and asked, those of
    the positions up to two steps away, so a move is a swap in the browser; then the download
    picker."""
    value = {a.key: st.session_state[a.state_key] for a in axes}
    here = position(view, points)
    positions = [here]
    if switcher.wants_neighbours(SWITCHER, view.ref.id):
        for near in switcher.ready_positions(axes, value):
            positions.append(position(replace(view, pos=grid_position(axes, view.values, near)), points))
    switcher.show(SWITCHER, view.ref.id, axes, sections(view, points), positions, value, talk=view.talk,
                  bare=view.talk or state.presenter())
    downloads(here)


def downloads(here: switcher.Position) -> None:
    """One picker for the figures above (at the current position): Download and Add to my deck."""
    figs = [p for p in here.panels if p.fig is not None]
    if not figs or state.presenter():
        return
    titles = [p.title or p.slot for p in figs]
    state.init("x_dl_pick", titles[0], str, titles)
    row = st.container(horizontal=True, vertical_alignment="bottom", gap="small")
    with row:
        title = st.selectbox("Figure to download or add to the deck", titles, key="x_dl_pick", width=360)
        panel = figs[titles.index(title)]
        render_downloads(panel.fig, panel.data, panel.name, key="dl_x_pos", caption=panel.caption)


def position(view: View, points: pd.DataFrame) -> switcher.Position:
    """Every figure of the page that depends on the slider position, at ``view.pos`` (built once
    per position and session: ``memo``; per position for every session for a recorded study)."""
    key = (view.ref.id, view.version, "position", tuple((a, sf._key(v)) for a, v in view.pos.items()),
           view.resp_axis, st.session_state.get("x_local"), st.session_state.get("x_hm"), view.talk)
    return memo(key, lambda: shared.prepared(_widen_lone(view, points, _position(view, points))), store="_x_pos", size=64)


# px: a figure alone in its row spans the page: 1216 px at 1280 with the sidebar collapsed, about
# 880 with it open (laid out for the narrower, its text stays inside at either)
LONE_WIDTH = 860


def _widen_lone(view: View, points: pd.DataFrame, pos: switcher.Position) -> switcher.Position:
    """Talk mode lays a figure out for a third of the page; one alone in its row spans the page, so
    its title and legend are laid out again for that width (a legend of seven methods in seven
    narrow rows left a band of empty room above the plot and pushed it off a projector's screen)."""
    if not view.talk:
        return pos
    lone = {row[0] for s in sections(view, points) if not s.columns for row in s.rows if len(row) == 1}
    for p in pos.panels:
        if p.slot in lone and p.fig is not None:
            height = min(p.fig.layout.height or DEFAULT_HEIGHT[True], DEFAULT_HEIGHT[True])
            p.fig = fit(go.Figure(p.fig), True, width=LONE_WIDTH, height=height)
    return pos


def _position(view: View, points: pd.DataFrame) -> switcher.Position:
    """The panels at the view's position: curves over rounds (and against the response axis), the
    local panels, embeddings, the spectrum, then the summaries across the grid; a notice names
    the runs missing or diverged there."""
    value = {a: sf.value_label(a, v) for a, v in view.pos.items()}
    at = sf.select(points, view.pos)
    done = at[at["state"] == "finished"]
    out = switcher.Position(value, notice=_missing_notice(view, at, done))
    if done.empty:
        return out
    ver = view.version if view.ref.source == "mine" or shared.serves(view.ref) else ()
    metrics = _metrics_at(view, done, ver)
    resp = _response_table(view, points)
    tag = where(view.pos)
    out.panels += figures.curve_panels(view, metrics, resp, tag)
    out.panels += explore_local.local_panels(view, points, metrics, resp, figures.response, tag)
    first = studies.first_seed_runs(at)
    out.panels += figures.embeddings(view, first)
    out.panels += figures.spectrum_panels(view, first, tag)
    out.panels += figures.summary_panels(view, points, metrics, resp, tag, ver)
    return out


def _missing_notice(view: View, at: pd.DataFrame, done: pd.DataFrame) -> str:
    diverged = int((at["state"] == "diverged").sum())
    missing = len(at) - len(done) - diverged
    parts = ([f"{missing} of {len(at)} runs are missing (not computed yet)"] if missing else []) + (
        [f"{diverged} of {len(at)} runs diverged (left out)"] if diverged else [])
    return f"At {where(view.pos)}: {'; '.join(parts)}; the figures show what is there." if parts else ""


def _metrics_at(view: View, done: pd.DataFrame, ver) -> pd.DataFrame:
    """The per-round metrics of the finished runs at the position."""
    runs = tuple(zip(done["run_id"], *(done[c] if c in done else [d] * len(done)
                                       for c, d in ((studies.SERIES, "?"), (studies.REPLICATE, 0)))))
    return metrics_of(view.ref.source, view.ref.name, runs, ver)


def _response_table(view: View, points: pd.DataFrame) -> pd.DataFrame | None:
    """The final metrics by method along the response axis, the other axes fixed (None without a
    response axis): the same while the slider moves along it, like the response plots."""
    if not view.resp_axis:
        return None
    fixed = {a: v for a, v in view.pos.items() if a != view.resp_axis}
    return memo((view.ref.id, view.version, "resp", view.resp_axis, tuple((a, sf._key(v)) for a, v in fixed.items())),
                lambda: sf.aggregate(sf.select(points, fixed), ["method", view.resp_axis], list(studies.METRICS)))


def sections(view: View, points: pd.DataFrame) -> list[switcher.Section]:
    """The layout: the same for every position of the study, so a move only swaps figures."""
    pair = (lambda slot: [slot, f"{slot}_resp"]) if view.resp_axis else (lambda slot: [slot])
    out = [switcher.Section([pair("acc"), pair("ratio")])]
    if explore_local.has_local(points):
        out.append(switcher.Section([pair("local")], heading=explore_local.HEADING))
    methods = list(dict.fromkeys(points[studies.SERIES])) if studies.SERIES in points else []
    per_row = min(len(methods), figures.EMBEDDINGS_PER_ROW) or 1
    slots = [f"emb_{m}" for m in methods]
    out.append(switcher.Section([slots[i:i + per_row] for i in range(0, len(slots), per_row)], columns=per_row,
                                key=figures.class_key(view, points) if len(methods) > 1 else None))
    out.append(switcher.Section([["spec", "rank_resp"] if view.resp_axis else ["spec"]]))
    out.append(switcher.Section([["rank_acc"]], heading="Less trained or collapsed? Rank at equal accuracy"))
    if len(view.axes) >= 2:
        out.append(switcher.Section([["heat"]], heading=f"{view.axes[0]} × {view.axes[1]}: FedQuad against FedAvg"))
    if "alpha" in view.axes:
        out.append(switcher.Section([["spectra"]], heading="The spectrum across α in one figure"))
    return out


def heatmap_control() -> str:
    state.init("x_hm", "final_ratio", str, list(figures.HEATMAP_OF))
    if not state.presenter():
        st.segmented_control("Heatmap of", list(figures.HEATMAP_OF), key="x_hm", format_func=figures.HEATMAP_OF.get)
    state.publish("x_hm")
    return st.session_state.x_hm or "final_ratio"


