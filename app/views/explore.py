"""Explore: slide a study's axes (alpha, m1, m2, ...) and see stored results at once: the curves and
embeddings at the slider position, and the response of accuracy, ratio and effective rank along
the axis with the seed bands. Moving a slider trains nothing; it swaps in runs already computed."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from app import service, state, studies
from app import study_figures as sf
from app.export import show_figure
from app.figures import embedding_scatter, spectrum_figure

talk = state.talk()
st.title("Explore")
refs = studies.study_refs()
if not refs:
    st.info("No study yet. Recorded studies ship in `assets/recorded/` (see the README); start your own on the "
            "Launch page (mark one or two settings as a sweep) or with `python -m fedquad_core study run NAME "
            "--grid alpha=0.1,1,iid --grid method=fedavg,fedquad --grid seed=0,1`.")
    st.stop()


@st.cache_data(max_entries=16, show_spinner=False)
def points_of(source: str, name: str, version: tuple) -> pd.DataFrame:
    return studies.points_frame(studies.StudyRef(source, name, name))


@st.cache_data(max_entries=64, show_spinner=False)
def metrics_of(source: str, name: str, runs: tuple, version: tuple) -> pd.DataFrame:
    """Keyed by the finished runs' (run_id, method, seed): cheap to hash, unlike the table itself."""
    at = pd.DataFrame(list(runs), columns=["run_id", studies.SERIES, studies.REPLICATE]).assign(state="finished")
    return studies.run_metrics(studies.StudyRef(source, name, name), at)


@st.cache_data(max_entries=512, show_spinner=False)
def snapshot_of(source: str, run_id: str, project: bool, version: int) -> dict | None:
    return studies.final_snapshot(studies.StudyRef(source, "", ""), run_id, project=project)


def memo(key: tuple, build):
    """This session's figure (or table) for ``key`` (built once): a slider move along a response
    plot's axis leaves it unchanged (the heatmap only moves its cell mark, ``set_cell``)."""
    cache = st.session_state.setdefault("_x_figs", {})
    if key not in cache:
        if len(cache) >= 48:
            cache.clear()
        cache[key] = build()
    return cache[key]


ids = [r.id for r in refs]
labels = {r.id: r.label for r in refs}
state.init("x_study", ids[0], str, ids)
if not state.presenter():
    st.selectbox("Study", ids, key="x_study", format_func=labels.get)
state.publish("x_study")
ref = studies.ref_from_id(st.session_state.x_study, refs)
study = studies.read_study(ref)
axes = studies.slider_axes(study)
values = {a: sf.ordered_values(a, study["axes"][a]) for a in axes}
if study.get("description"):
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


pos = {}
cols = st.columns(max(1, len(axes))) if axes else []
for col, axis in zip(cols, axes):
    opts = [sf.value_label(axis, v) for v in values[axis]]
    key = f"x_{axis}"
    state.init(key, default_label(axis), str, opts)
    if not state.presenter():
        col.select_slider(slider_label(axis), opts, key=key,
                          help="Snapped to the study's grid: every position is a set of finished runs.")
    pos[axis] = dict(zip(opts, values[axis]))[st.session_state[key]]
state.init("x_resp", axes[0] if axes else "", str, axes or [""])
if len(axes) > 1 and not state.presenter():
    st.segmented_control("Response plots against", axes, key="x_resp")
state.publish("x_study", "x_resp", *(f"x_{a}" for a in axes))
for stale in [k for k in st.query_params if k.startswith("x_") and k not in ("x_study", "x_resp", "x_hm")
              and k[2:] not in axes]:
    del st.query_params[stale]  # another study's slider: not part of this view's link
resp_axis = st.session_state.x_resp or (axes[0] if axes else None)


def where(fixed: dict) -> str:
    return ", ".join(f"{a} = {sf.value_label(a, v)}" for a, v in fixed.items()) or "the study's setting"


def overlap_note(resp: pd.DataFrame, axis: str, metric: str) -> str:
    pair = [m for m in sf.PAIR if m in set(resp["method"])]
    if len(pair) < 2:
        return ""
    name = "α" if axis == "alpha" else axis
    if resp[f"{metric}_n"].max() < 2:
        return "One seed per point: no seed band, so these lines say nothing about seed noise."
    xs = sf.band_overlaps(resp, axis, metric)
    if not xs:
        return f"FedAvg's and FedQuad's ± 1 std bands do not overlap at any computed {name}."
    return (f"Grey: the bands overlap at {name} = {', '.join(sf.value_label(axis, x) for x in xs)}: the "
            "difference there is within seed noise.")


def compute_controls(points: pd.DataFrame) -> None:
    done, total = studies.progress(points)
    active = studies.running(ref) or points["state"].isin(service.ACTIVE).any()
    a, b = st.columns([3, 2])
    a.markdown(f"**{done} / {total}** grid points computed" + (" — computing…" if active else ""))
    if active:
        a.progress(done / max(total, 1))
    missing = total - done - int(points["state"].isin(service.ACTIVE).sum())
    if missing <= 0 or active or state.presenter():
        return
    if ref.source == "recorded":
        b.caption(f"{missing} point(s) of this recorded study were not recorded; recorded studies are read-only. "
                  f"Compute them in your own store with `python -m fedquad_core study run {ref.name} "
                  f"{' '.join(studies.grid_args(study['axes']))}` (add the study's base settings).")
        return
    if b.button(f"Compute {missing} missing point{'s' * (missing != 1)}", key="x_compute", icon=":material/play_arrow:",
                help="Runs them in the background; finished points are reused, never trained twice."):
        try:
            studies.compute_missing(ref)
            st.toast("Started: the views fill in as points finish.")
            st.rerun()
        except (OSError, service.StoreError) as e:
            st.error(str(e))
    elif studies.log_tail(ref) and not active:
        b.caption(f"Last computation's log: {studies.log_tail(ref, 2)}")


def at_position(points: pd.DataFrame) -> None:
    at = sf.select(points, pos)
    done = at[at["state"] == "finished"]
    if len(done) < len(at):
        st.warning(f"At {where(pos)}: {len(at) - len(done)} of {len(at)} runs are missing (not computed yet); "
                   "the figures show what is there.", icon=":material/hourglass_empty:")
    if done.empty:
        return
    ver = studies.version(ref) if ref.source == "mine" else ()
    runs = tuple(zip(done["run_id"], *(done[c] if c in done else [d] * len(done)
                                       for c, d in ((studies.SERIES, "?"), (studies.REPLICATE, 0)))))
    metrics = metrics_of(ref.source, ref.name, runs, ver)
    fixed = {a: v for a, v in pos.items() if a != resp_axis}
    resp = memo((ref.id, studies.version(ref), "resp", resp_axis, tuple((a, sf._key(v)) for a, v in fixed.items())),
                lambda: sf.aggregate(sf.select(points, fixed), ["method", resp_axis], list(studies.METRICS))) \
        if resp_axis else None  # kept while the slider moves along resp_axis, like the response plots
    tag = where(pos)
    rows = [("test_accuracy", "final_acc", "Accuracy", "acc"), ("ratio", "final_ratio", "Intra / inter ratio", "ratio")]
    for y, metric, title, key in rows:
        left, right = st.columns(2)
        with left:
            fig = sf.band_curves_figure(metrics, y, title=f"{title} at {tag}", talk=talk)
            show_figure(fig, f"x_{key}", metrics[[c for c in ("run", "method", "seed", "round", y) if c in metrics]],
                        f"{ref.name}_{key}_{tag}", note="Thick: mean over seeds; band: ± 1 std; thin: each seed.")
        if resp is not None:
            with right:
                response(resp, metric, f"{title} against {resp_axis}", f"x_{key}_resp")
    first = studies.first_seed_runs(at)
    embeddings(first)
    left, right = st.columns(2)
    with left:
        spectra = {}
        for method, run_id in first.items():
            snap = snapshot_of(ref.source, run_id, False, 0)
            if snap and snap["singular_values"] is not None:
                s = np.asarray(snap["singular_values"], dtype=float)
                spectra[sf._label(method)] = np.where(s > s.max(initial=0) * sf.SPECTRUM_FLOOR, s, 0.0)  # 0: not drawn
        if spectra:
            fig = spectrum_figure(spectra, methods={sf._label(m): m for m in first}, talk=talk,
                                  title=f"Spectrum at {tag} (lowest seed)")
            data = pd.DataFrame([{"method": k, "component": i + 1, "singular_value": v}
                                 for k, s in spectra.items() for i, v in enumerate(s)])
            show_figure(fig, "x_spec", data, f"{ref.name}_spectrum_{tag}")
    if resp is not None:
        with right:
            response(resp, "effective_rank", f"Effective rank against {resp_axis}", "x_rank_resp")


def response(resp: pd.DataFrame, metric: str, title: str, key: str) -> None:
    fixed = tuple((a, sf._key(v)) for a, v in pos.items() if a != resp_axis)
    fig = memo((ref.id, studies.version(ref), key, resp_axis, fixed, talk), lambda: sf.response_figure(
        resp, resp_axis, metric, all_values=values[resp_axis], title=title, talk=talk))
    # No slider mark: the figure stays the same while the slider moves along its own axis, so the
    # browser keeps it as drawn (Streamlit draws a chart whose figure changed anew, ~50-150 ms each).
    cols = ["method", resp_axis, f"{metric}_mean", f"{metric}_std", f"{metric}_n"]
    note = overlap_note(resp, resp_axis, metric)
    if (resp[f"{metric}_n"] == 0).any() or len(set(resp[resp_axis].map(sf._key))) < len(values[resp_axis]):
        note += " Dashed columns: not computed yet."
    show_figure(fig, key, resp[cols], f"{ref.name}_{metric}_vs_{resp_axis}", note=note.strip() or None)


def embeddings(runs: dict[str, str]) -> None:
    per_row = min(len(runs), 4) or 1
    cols = st.columns(per_row)
    for i, (method, run_id) in enumerate(runs.items()):
        snap = snapshot_of(ref.source, run_id, True, studies._mtime(service.source_root(ref.source) / run_id / "embeddings"))
        with cols[i % per_row]:
            if not snap or "xy" not in snap:
                st.caption(f"{sf._label(method)}: no snapshot stored.")
                continue
            y = snap["labels"]
            names = studies.class_names(ref, run_id, int(y.max()) + 1 if y.size else 0)
            fig = embedding_scatter(snap["xy"], y, names, talk=talk,
                                    title=f"{sf._label(method)}, round {snap['round']} ({snap['kind']})")
            data = pd.DataFrame({"x": snap["xy"][:, 0], "y": snap["xy"][:, 1], "label": y})
            show_figure(fig, f"x_emb_{method}", data, f"{ref.name}_embedding_{method}_{where(pos)}")


def heatmap(points: pd.DataFrame) -> None:
    xa, ya = axes[0], axes[1]
    st.subheader(f"{xa} × {ya}: FedQuad against FedAvg")
    opts = {"final_ratio": "final intra/inter ratio", "final_acc": "final accuracy"}
    state.init("x_hm", "final_ratio", str, list(opts))
    if not state.presenter():
        st.segmented_control("Heatmap of", list(opts), key="x_hm", format_func=opts.get)
    state.publish("x_hm")
    metric = st.session_state.x_hm or "final_ratio"
    fixed = {a: v for a, v in pos.items() if a not in (xa, ya)}
    resp = memo((ref.id, studies.version(ref), "heat-table", metric, tuple((a, sf._key(v)) for a, v in fixed.items())),
                lambda: sf.aggregate(sf.select(points, fixed), ["method", xa, ya], [metric]))
    fig = memo((ref.id, studies.version(ref), "heat", metric, tuple(fixed.items()), talk), lambda: sf.margins_heatmap(
        resp, xa, ya, metric, all_x=values[xa], all_y=values[ya], title=f"FedQuad's {opts[metric]} (mean over seeds)",
        talk=talk))
    sf.set_cell(fig, xa, ya, (pos[xa], pos[ya]))
    show_figure(fig, "x_heat", resp, f"{ref.name}_heatmap_{metric}",
                note="Colour bar centred at FedAvg's value (its tick): blue = better than FedAvg, red = worse. "
                     "Blank cells: not computed. The open square is the slider position.")


def across_alpha(points: pd.DataFrame) -> None:
    st.subheader("The collapse across α in one figure")
    fixed = {a: v for a, v in pos.items() if a != "alpha"}
    key = (ref.id, studies.version(ref), "across", tuple((a, sf._key(v)) for a, v in fixed.items()), talk)
    if key in st.session_state.get("_x_figs", {}):
        fig, data = st.session_state["_x_figs"][key]
        show_figure(fig, "x_spectra", data, f"{ref.name}_spectra_across_alpha",
                    note=across_note(sf.select(points, fixed)))
        return
    sel = sf.select(points, fixed)
    spectra: dict[str, dict] = {}
    for alpha in values["alpha"]:
        for method, run_id in studies.first_seed_runs(sf.select(sel, {"alpha": alpha})).items():
            snap = snapshot_of(ref.source, run_id, False, 0)
            if snap and snap["singular_values"] is not None:
                spectra.setdefault(method, {})[alpha] = snap["singular_values"]
    ordered = {m: spectra[m] for m in (*[p for p in sf.PAIR if p in spectra], *[m for m in spectra if m not in sf.PAIR])}
    if not ordered:
        st.caption("No snapshot stored yet.")
        return
    fig = sf.spectra_across_figure(ordered, talk=talk, title="Singular values of the final embeddings, "
                                   "normalised by the largest (lowest seed)")
    data = pd.DataFrame([{"method": m, "alpha": sf.value_label("alpha", a), "component": i + 1, "singular_value": v}
                         for m, per in ordered.items() for a, s in per.items() for i, v in enumerate(s)])
    memo(key, lambda: (fig, data))
    show_figure(fig, "x_spectra", data, f"{ref.name}_spectra_across_alpha", note=across_note(sel))


ACROSS_NOTE = ("Dark = strong skew, light = IID. FedDecorr (Shi et al. ICLR 2023, Fig. 1) saw more singular "
               "values fall towards zero under stronger skew (fewer directions used). Here: ")


def across_note(points: pd.DataFrame) -> str:
    return ACROSS_NOTE + (sf.skew_effect_note(points) or "not enough alphas computed to compare.")


def body() -> None:
    points = points_of(ref.source, ref.name, studies.version(ref))
    if active and not (studies.running(ref) or points["state"].isin(service.ACTIVE).any()):
        st.rerun()  # the study finished: redraw once without the refresh
    compute_controls(points)
    at_position(points)
    if len(axes) >= 2:
        heatmap(points)
    if "alpha" in axes:
        across_alpha(points)


active = studies.running(ref) or points_of(ref.source, ref.name, studies.version(ref))["state"].isin(service.ACTIVE).any()
st.fragment(run_every=3.0 if active else None)(body)()
