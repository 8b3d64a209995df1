"""The Explore page's parts: the study's cached tables and snapshots, and each section drawn for
one view (the study, its slider axes and values, the slider position, the response axis)."""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import service, state, switcher
from fedquad_core import api
from app.export.widgets import render_downloads
from app.figures import captions
from app.figures import study as sf
from app.figures.accuracy import metric_vs_accuracy_figure, profile_frame
from app.figures.samples import equal_samples_note
from app.figures.charts import embedding_scatter, spectrum_figure
from app.figures.fit import fit
from app.figures.palette import DEFAULT_HEIGHT, class_colors
from app.studies import catalog as studies
from app.studies import explore_local, shared


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


def overlap_note(resp: pd.DataFrame, axis: str, metric: str) -> str:
    pair = [m for m in sf.PAIR if m in set(resp["method"])]
    if len(pair) < 2:
        return ""
    name = "α" if axis == "alpha" else axis
    verdicts = sf.band_verdicts(resp, axis, metric)
    if verdicts and all(v.state == api.Verdict.ONE_SEED for _, v in verdicts):
        return "One seed per point: no seed band, so these lines say nothing about seed noise."
    label = lambda state: ", ".join(sf.value_label(axis, x) for x, v in verdicts if v.state == state)  # noqa: E731
    noise, one = label(api.Verdict.NOISE), label(api.Verdict.ONE_SEED)
    if not noise and not one:
        return (f"FedAvg and FedQuad differ beyond seed noise at every computed {name} (95 % CI of the "
                "difference excludes 0, Welch's test).")
    seeds = max((min(v.n_a, v.n_b) for _, v in verdicts), default=0)
    return "Grey: " + "; ".join(
        ([f"at {name} = {noise} the difference is inconclusive with {seeds} seeds (its 95 % CI includes 0): "
          "do not present it as an effect"] if noise else [])
        + ([f"one seed at {name} = {one}: no test possible there"] if one else [])) + "."


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


def _panel(slot: str, fig, data, name: str, title: str, note: str | None = None) -> switcher.Panel:
    return switcher.Panel(slot, fig, captions.with_plain(f"x_{slot}", note, fig), data, name, title)


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


def _snap_version(view: View, version: int = 0) -> int | tuple:
    """``snapshot_of``'s version: a recorded study under the shared store adds its content version."""
    return (version, view.version) if shared.serves(view.ref) else version


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
    out.panels += _curve_panels(view, metrics, resp, tag)
    out.panels += explore_local.local_panels(view, points, metrics, resp, response, tag)
    first = studies.first_seed_runs(at)
    out.panels += embeddings(view, first)
    out.panels += _spectrum_panels(view, first, tag)
    out.panels += _summary_panels(view, points, metrics, resp, tag, ver)
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


def _curve_panels(view: View, metrics: pd.DataFrame, resp, tag: str) -> list:
    """Accuracy and the intra / inter ratio over rounds, each followed by its response plot."""
    out = []
    for y, metric, title, key in (("test_accuracy", "final_acc", "Accuracy", "acc"),
                                  ("ratio", "final_ratio", "Intra / inter ratio", "ratio")):
        fig = sf.band_curves_figure(metrics, y, title=f"{title} at {tag}", talk=view.talk)
        note = "Thin lines: single seeds." + (f" {equal_samples_note(metrics)}" if key == "acc" else "")
        out.append(_panel(key, fig, metrics[[c for c in ("run", "method", "seed", "round", y) if c in metrics]],
                          f"{view.ref.name}_{key}_{tag}", f"{title} over rounds", note.strip()))
        if resp is not None:
            out.append(response(view, resp, metric, f"{title} against {sf.axis_name(view.resp_axis)}", f"{key}_resp"))
    return out


def _spectrum_panels(view: View, first: dict, tag: str) -> list:
    """The singular values of each method's lowest-seed run (none when no snapshot has them)."""
    spectra = {}
    for method, run_id in first.items():
        snap = snapshot_of(view.ref.source, run_id, False, _snap_version(view))
        if snap and snap["singular_values"] is not None:
            s = np.asarray(snap["singular_values"], dtype=float)
            spectra[sf._label(method)] = np.where(s > s.max(initial=0) * sf.SPECTRUM_FLOOR, s, 0.0)  # 0: not drawn
    if not spectra:
        return []
    fig = spectrum_figure(spectra, methods={sf._label(m): m for m in first}, talk=view.talk,
                          title=f"Spectrum at {tag} (lowest seed)")
    data = pd.DataFrame([{"method": k, "component": i + 1, "singular_value": v}
                         for k, s in spectra.items() for i, v in enumerate(s)])
    return [_panel("spec", fig, data, f"{view.ref.name}_spectrum_{tag}", "Spectrum")]


def _summary_panels(view: View, points: pd.DataFrame, metrics: pd.DataFrame, resp, tag: str, ver) -> list:
    """Across the grid: effective rank against the response axis, rank against accuracy, the
    heatmap of two axes, the panel across alpha."""
    out = []
    if resp is not None:
        out.append(response(view, resp, "effective_rank", f"Effective rank against {sf.axis_name(view.resp_axis)}", "rank_resp"))
    rank_acc = against_accuracy(view, points, metrics, tag, ver)
    if rank_acc is not None:
        out.append(rank_acc)
    if len(view.axes) >= 2:
        out.append(heatmap(view, points))
    if "alpha" in view.axes:
        out.append(across_alpha(view, points))
    return out


def sections(view: View, points: pd.DataFrame) -> list[switcher.Section]:
    """The layout: the same for every position of the study, so a move only swaps figures."""
    pair = (lambda slot: [slot, f"{slot}_resp"]) if view.resp_axis else (lambda slot: [slot])
    out = [switcher.Section([pair("acc"), pair("ratio")])]
    if explore_local.has_local(points):
        out.append(switcher.Section([pair("local")], heading=explore_local.HEADING))
    methods = list(dict.fromkeys(points[studies.SERIES])) if studies.SERIES in points else []
    per_row = min(len(methods), EMBEDDINGS_PER_ROW) or 1
    slots = [f"emb_{m}" for m in methods]
    out.append(switcher.Section([slots[i:i + per_row] for i in range(0, len(slots), per_row)], columns=per_row,
                                key=class_key(view, points) if len(methods) > 1 else None))
    out.append(switcher.Section([["spec", "rank_resp"] if view.resp_axis else ["spec"]]))
    out.append(switcher.Section([["rank_acc"]], heading="Less trained or collapsed? Rank at equal accuracy"))
    if len(view.axes) >= 2:
        out.append(switcher.Section([["heat"]], heading=f"{view.axes[0]} × {view.axes[1]}: FedQuad against FedAvg"))
    if "alpha" in view.axes:
        out.append(switcher.Section([["spectra"]], heading="The spectrum across α in one figure"))
    return out


class _FrameRuns:
    """A reader of metrics frames for ``api.stats.accuracy_profile``: ``points`` of a method, ``rows``
    of a run."""

    def __init__(self, frame: pd.DataFrame):
        self.frame = frame
        self._rows = {r: g.to_dict("records") for r, g in frame.groupby("run", sort=False)} if len(frame) else {}

    def points(self, coords: dict) -> list[dict]:
        sel = self.frame[self.frame["group"] == coords["group"]] if len(self.frame) else self.frame
        return [{"run_id": r, "coords": coords} for r in dict.fromkeys(sel["run"])] if len(sel) else []

    def rows(self, run_id: str) -> list[dict]:
        return self._rows.get(run_id, [])


def against_accuracy(view: View, points: pd.DataFrame, metrics: pd.DataFrame, tag: str, ver) -> switcher.Panel | None:
    """Effective rank against test accuracy at the slider position, one band per method (and
    FedAvg under IID when the study sweeps alpha and the position is skewed): the picture that
    keeps "less trained" apart from "collapsed"."""
    if "effective_rank" not in metrics or "test_accuracy" not in metrics or metrics.empty:
        return None
    frames = [metrics.assign(group=metrics["method"].map(sf._label))]
    if "alpha" in view.pos and view.pos["alpha"] is not None and None in view.values.get("alpha", []):
        iid = sf.select(points, {**view.pos, "alpha": None})
        iid = iid[(iid["state"] == "finished") & (iid[studies.SERIES] == "fedavg")]
        if len(iid):
            runs = tuple(zip(iid["run_id"], iid[studies.SERIES], iid[studies.REPLICATE]))
            ref = metrics_of(view.ref.source, view.ref.name, runs, ver)
            frames.append(ref.assign(group="FedAvg, IID"))
    frame = pd.concat(frames, ignore_index=True)
    groups = {g: {"group": g} for g in dict.fromkeys(frame["group"])}
    rows = api.stats.accuracy_profile(_FrameRuns(frame), groups, "effective_rank")
    table = profile_frame(rows)
    if table.empty:
        return None
    colours = {g: ("fedavg" if g == "FedAvg, IID" else next((m for m in dict.fromkeys(frame["method"])
                                                             if sf._label(m) == g), g)) for g in groups}
    fig = metric_vs_accuracy_figure(table, "eff. rank (σ²)", f"Rank against accuracy at {tag}",
                                    colours, talk=view.talk)
    return _panel("rank_acc", fig, table, f"{view.ref.name}_rank_vs_accuracy_{tag}", "Rank against accuracy")


def response(view: View, resp: pd.DataFrame, metric: str, title: str, slot: str) -> switcher.Panel:
    fixed = tuple((a, sf._key(v)) for a, v in view.pos.items() if a != view.resp_axis)
    fig = memo((view.ref.id, view.version, slot, metric, view.resp_axis, fixed, view.talk), lambda: sf.response_figure(
        resp, view.resp_axis, metric, all_values=view.values[view.resp_axis], title=title, talk=view.talk))
    # No slider mark: the figure stays the same while the slider moves along its own axis, so the
    # browser shows the one it has drawn.
    cols = ["method", view.resp_axis, f"{metric}_mean", f"{metric}_std", f"{metric}_n"]
    note = overlap_note(resp, view.resp_axis, metric)
    if (resp[f"{metric}_n"] == 0).any() or len(set(resp[view.resp_axis].map(sf._key))) < len(view.values[view.resp_axis]):
        note += " Dashed columns: not computed yet."
    return _panel(slot, fig, resp[cols], f"{view.ref.name}_{metric}_vs_{view.resp_axis}", title, note.strip() or None)


# Several methods' embeddings: three a row, laid out for the width one of three gets at 1280 px
# (normal: beside the sidebar; talk: the sidebar starts collapsed), one colour key above them all.
EMBEDDINGS_PER_ROW = 3
EMBEDDING_WIDTH = {False: 270, True: 340}


def class_key(view: View, points: pd.DataFrame) -> list[tuple[str, str]] | None:
    """(class name, colour) of the study's classes, for the key above its embeddings' grid (from
    the first run's partition; None when it names no classes: each panel keeps its legend)."""
    run_ids = [r for r in points.get("run_id", pd.Series(dtype=object)).dropna() if r]
    names = studies.class_names(view.ref, run_ids[0], 0) if run_ids else []
    return list(zip(names, class_colors(len(names), view.talk))) if names else None


def embeddings(view: View, runs: dict[str, str]) -> list[switcher.Panel]:
    out = []
    for method, run_id in runs.items():
        snap = snapshot_of(view.ref.source, run_id, True, _snap_version(
            view, studies._mtime(service.source_root(view.ref.source) / run_id / "embeddings")))
        if not snap or "xy" not in snap:
            out.append(switcher.Panel(f"emb_{method}", None, f"{sf._label(method)}: no snapshot stored."))
            continue
        y = snap["labels"]
        names = studies.class_names(view.ref, run_id, int(y.max()) + 1 if y.size else 0)
        keyed = len(runs) > 1 and bool(studies.class_names(view.ref, run_id, 0))  # the grid's key names the classes
        fig = embedding_scatter(snap["xy"], y, names, talk=view.talk, legend=not keyed,
                                fit_width=EMBEDDING_WIDTH[view.talk] if len(runs) > 1 else None,
                                title=f"{sf._label(method)}, round {snap['round']} ({snap['kind']})")
        data = pd.DataFrame({"x": snap["xy"][:, 0], "y": snap["xy"][:, 1], "label": y})
        out.append(_panel(f"emb_{method}", fig, data, f"{view.ref.name}_embedding_{method}_{where(view.pos)}",
                          f"Embeddings, {sf._label(method)}"))
    return out


HEATMAP_OF = {"final_ratio": "final intra/inter ratio", "final_acc": "final accuracy"}


def heatmap_control() -> str:
    state.init("x_hm", "final_ratio", str, list(HEATMAP_OF))
    if not state.presenter():
        st.segmented_control("Heatmap of", list(HEATMAP_OF), key="x_hm", format_func=HEATMAP_OF.get)
    state.publish("x_hm")
    return st.session_state.x_hm or "final_ratio"


def heatmap(view: View, points: pd.DataFrame) -> switcher.Panel:
    xa, ya = view.axes[0], view.axes[1]
    metric = st.session_state.get("x_hm") or "final_ratio"
    fixed = {a: v for a, v in view.pos.items() if a not in (xa, ya)}
    resp = memo((view.ref.id, view.version, "heat-table", metric, tuple((a, sf._key(v)) for a, v in fixed.items())),
                lambda: sf.aggregate(sf.select(points, fixed), ["method", xa, ya], [metric]))
    fig = go.Figure(memo((view.ref.id, view.version, "heat", metric, tuple(fixed.items()), view.talk), lambda: sf.margins_heatmap(
        resp, xa, ya, metric, all_x=view.values[xa], all_y=view.values[ya], title=f"FedQuad's {HEATMAP_OF[metric]} (mean over seeds)",
        talk=view.talk, marks=sf.heatmap_marks(sf.select(points, fixed), xa, ya, metric))))  # a copy: the cell mark is this position's
    sf.set_cell(fig, xa, ya, (view.pos[xa], view.pos[ya]))
    return _panel("heat", fig, resp, f"{view.ref.name}_heatmap_{metric}", "Heatmap",
                  "The colour is the raw means, centred at FedAvg's (its tick); the word in a cell is the test's: "
                  "\"better\" / \"worse\" only where FedQuad differs from FedAvg beyond seed noise (paired over seeds, "
                  "Holm-corrected over the grid's cells) by at least the smallest effect of interest, \"=\" where "
                  "the difference is shown inside it, \"·\" where no difference is shown. Blank cells: not computed. "
                  "The open square is the slider position.")


def across_alpha(view: View, points: pd.DataFrame) -> switcher.Panel:
    fixed = {a: v for a, v in view.pos.items() if a != "alpha"}
    key = (view.ref.id, view.version, "across", tuple((a, sf._key(v)) for a, v in fixed.items()), view.talk)
    return memo(key, lambda: _across(view, sf.select(points, fixed)))


def _across(view: View, sel: pd.DataFrame) -> switcher.Panel:
    spectra: dict[str, dict] = {}
    for alpha in view.values["alpha"]:
        for method, run_id in studies.first_seed_runs(sf.select(sel, {"alpha": alpha})).items():
            snap = snapshot_of(view.ref.source, run_id, False, _snap_version(view))
            if snap and snap["singular_values"] is not None:
                spectra.setdefault(method, {})[alpha] = snap["singular_values"]
    ordered = {m: spectra[m] for m in (*[p for p in sf.PAIR if p in spectra], *[m for m in spectra if m not in sf.PAIR])}
    if not ordered:
        return switcher.Panel("spectra", None, "No snapshot stored yet.")
    fig = sf.spectra_across_figure(ordered, talk=view.talk, title="Singular values of the final embeddings, "
                                   "normalised by the largest (lowest seed)")
    data = pd.DataFrame([{"method": m, "alpha": sf.value_label("alpha", a), "component": i + 1, "singular_value": v}
                         for m, per in ordered.items() for a, s in per.items() for i, v in enumerate(s)])
    return _panel("spectra", fig, data, f"{view.ref.name}_spectra_across_alpha", "Spectra across α", across_note(sel))


ACROSS_NOTE = ("Dark = strong skew, light = IID. FedDecorr (Shi et al. ICLR 2023, Fig. 1) saw more singular "
               "values fall towards zero under stronger skew (fewer directions used). Here: ")


MATCHED_CAVEAT = (" These are final-round values (equal rounds): a skewed run trains slower, and the rank moves with "
                  "training (up on some data sets, down on others), so read \"Rank at equal accuracy\" above before "
                  "calling a lower rank collapse.")


def across_note(points: pd.DataFrame) -> str:
    note = sf.skew_effect_note(points)
    return ACROSS_NOTE + (note + MATCHED_CAVEAT if note else "not enough alphas computed to compare.")
