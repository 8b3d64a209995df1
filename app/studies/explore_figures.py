"""The Explore page's panels, each built for one view at the slider position: the curves over
rounds and their response plots, the spectrum, rank against accuracy, the embeddings, the heatmap
of two axes and the spectra across α (``app.switcher`` panels; ``explore_panels`` lays them out)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import switcher
from app import service
from fedquad_core import api
from app.figures import captions
from app.figures import study as sf
from app.figures.accuracy import metric_vs_accuracy_figure, profile_frame
from app.figures.samples import equal_samples_note
from app.figures.charts import embedding_scatter, spectrum_figure
from app.figures.palette import class_colors
from app.studies import catalog as studies
from app.studies.explore_view import View, memo, metrics_of, snap_version, snapshot_of, where


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


def panel(slot: str, fig, data, name: str, title: str, note: str | None = None) -> switcher.Panel:
    return switcher.Panel(slot, fig, captions.with_plain(f"x_{slot}", note, fig), data, name, title)


def curve_panels(view: View, metrics: pd.DataFrame, resp, tag: str) -> list:
    """Accuracy and the intra / inter ratio over rounds, each followed by its response plot."""
    out = []
    for y, metric, title, key in (("test_accuracy", "final_acc", "Accuracy", "acc"),
                                  ("ratio", "final_ratio", "Intra / inter ratio", "ratio")):
        fig = sf.band_curves_figure(metrics, y, title=f"{title} at {tag}", talk=view.talk)
        note = "Thin lines: single seeds." + (f" {equal_samples_note(metrics)}" if key == "acc" else "")
        out.append(panel(key, fig, metrics[[c for c in ("run", "method", "seed", "round", y) if c in metrics]],
                          f"{view.ref.name}_{key}_{tag}", f"{title} over rounds", note.strip()))
        if resp is not None:
            out.append(response(view, resp, metric, f"{title} against {sf.axis_name(view.resp_axis)}", f"{key}_resp"))
    return out


def spectrum_panels(view: View, first: dict, tag: str) -> list:
    """The singular values of each method's lowest-seed run (none when no snapshot has them)."""
    spectra = {}
    for method, run_id in first.items():
        snap = snapshot_of(view.ref.source, run_id, False, snap_version(view))
        if snap and snap["singular_values"] is not None:
            s = np.asarray(snap["singular_values"], dtype=float)
            spectra[sf._label(method)] = np.where(s > s.max(initial=0) * sf.SPECTRUM_FLOOR, s, 0.0)  # 0: not drawn
    if not spectra:
        return []
    fig = spectrum_figure(spectra, methods={sf._label(m): m for m in first}, talk=view.talk,
                          title=f"Spectrum at {tag} (lowest seed)")
    data = pd.DataFrame([{"method": k, "component": i + 1, "singular_value": v}
                         for k, s in spectra.items() for i, v in enumerate(s)])
    return [panel("spec", fig, data, f"{view.ref.name}_spectrum_{tag}", "Spectrum")]


def summary_panels(view: View, points: pd.DataFrame, metrics: pd.DataFrame, resp, tag: str, ver) -> list:
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
    return panel("rank_acc", fig, table, f"{view.ref.name}_rank_vs_accuracy_{tag}", "Rank against accuracy")


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
    return panel(slot, fig, resp[cols], f"{view.ref.name}_{metric}_vs_{view.resp_axis}", title, note.strip() or None)


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
        snap = snapshot_of(view.ref.source, run_id, True, snap_version(
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
        out.append(panel(f"emb_{method}", fig, data, f"{view.ref.name}_embedding_{method}_{where(view.pos)}",
                          f"Embeddings, {sf._label(method)}"))
    return out


HEATMAP_OF = {"final_ratio": "final intra/inter ratio", "final_acc": "final accuracy"}


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
    return panel("heat", fig, resp, f"{view.ref.name}_heatmap_{metric}", "Heatmap",
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
            snap = snapshot_of(view.ref.source, run_id, False, snap_version(view))
            if snap and snap["singular_values"] is not None:
                spectra.setdefault(method, {})[alpha] = snap["singular_values"]
    ordered = {m: spectra[m] for m in (*[p for p in sf.PAIR if p in spectra], *[m for m in spectra if m not in sf.PAIR])}
    if not ordered:
        return switcher.Panel("spectra", None, "No snapshot stored yet.")
    fig = sf.spectra_across_figure(ordered, talk=view.talk, title="Singular values of the final embeddings, "
                                   "normalised by the largest (lowest seed)")
    data = pd.DataFrame([{"method": m, "alpha": sf.value_label("alpha", a), "component": i + 1, "singular_value": v}
                         for m, per in ordered.items() for a, s in per.items() for i, v in enumerate(s)])
    return panel("spectra", fig, data, f"{view.ref.name}_spectra_across_alpha", "Spectra across α", across_note(sel))


ACROSS_NOTE = ("Dark = strong skew, light = IID. FedDecorr (Shi et al. ICLR 2023, Fig. 1) saw more singular "
               "values fall towards zero under stronger skew (fewer directions used). Here: ")


MATCHED_CAVEAT = (" These are final-round values (equal rounds): a skewed run trains slower, and the rank moves with "
                  "training (up on some data sets, down on others), so read \"Rank at equal accuracy\" above before "
                  "calling a lower rank collapse.")


def across_note(points: pd.DataFrame) -> str:
    note = sf.skew_effect_note(points)
    return ACROSS_NOTE + (note + MATCHED_CAVEAT if note else "not enough alphas computed to compare.")
