"""The lesson as data: seven steps, each a title and a builder that turns a study (``LessonData``)
into sentences (``lesson_text``, computed from the numbers shown) and one to three figures.
Pure: no streamlit; the Lesson page draws a ``StepContent`` and ``slides`` exports it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app import lesson_text as text
from app import quadruplet_figure as quad
from app.figures import curves_figure, metrics_frame, partition_heatmap
from app.geometry_figures import embedding_scatter
from app.lesson_data import LessonData, alpha_label
from app import study_figures as sf
from app.lesson_figures import animated_embedding
from fedquad_core.study_table import study_frame
from app.projection import pca_2d, procrustes_align

LABELS = {"fedavg": "FedAvg", "fedquad": "FedQuad"}
PAIR = ("fedavg", "fedquad")


@dataclass
class FigureItem:
    name: str                     # file stem of its exports
    fig: go.Figure
    data: pd.DataFrame | None     # the plotted numbers (CSV)
    caption: str = ""


@dataclass
class StepContent:
    title: str
    sentences: list[str] = field(default_factory=list)
    figures: list[FigureItem] = field(default_factory=list)
    footer: str = ""
    problem: str | None = None    # what to run instead, when the data for this step is missing


class Missing(LookupError):
    """The study lacks a run this step needs (the message says which)."""


def _run(data: LessonData, **coords) -> str:
    rid = data.run(**coords)
    if rid is None:
        want = ", ".join(f"{k}={alpha_label(v) if k == 'alpha' else v}" for k, v in coords.items())
        raise Missing(f"no finished run with {want} in study '{data.study.get('name')}' ({data.root}): "
                      "add it to the study (`python scripts/record_studies.py` for the recorded ones)")
    return rid


def _seed0(data: LessonData):
    seeds = data.axis("seed")
    return seeds[0] if seeds else data.base("seed", 0)


def _x_order(data: LessonData) -> list:
    alphas = data.axis("alpha")
    return sorted([a for a in alphas if a is not None]) + ([None] if None in alphas else [])


def points(data: LessonData) -> pd.DataFrame:
    """One row per grid point with its final numbers (``fedquad_core.study_table.study_frame``)."""
    return pd.DataFrame(study_frame(data.store, data.study))


def response(data: LessonData, metric: str, methods=PAIR) -> pd.DataFrame:
    """Mean, std, n over seeds of ``metric`` per method and alpha (``study_figures.aggregate``)."""
    pts = points(data)
    pts = pts[pts["method"].isin(methods)] if "method" in pts else pts.iloc[0:0]
    return sf.aggregate(pts, ["method", "alpha"], [metric]) if len(pts) else pd.DataFrame()


def embedding_frames(data: LessonData, run_id: str) -> tuple[dict[int, np.ndarray], np.ndarray, str]:
    """2-D positions per snapshot round, each aligned to the previous one: the stored UMAP when
    every round has one (one kind of picture throughout the animation), else PCA."""
    frames, prev, prev_idx, labels = {}, None, None, None
    rounds = data.snapshot_rounds(run_id)
    umaps = {r: data.stored_umap(run_id, r) for r in rounds}
    use_umap = bool(rounds) and all(u is not None for u in umaps.values())
    for r in rounds:
        snap = data.snapshot(run_id, r)
        xy = umaps[r] if use_umap and len(umaps[r]) == len(snap["labels"]) else pca_2d(snap["embeddings"])
        if prev is not None and np.array_equal(prev_idx, snap["indices"]):
            xy = procrustes_align(xy, prev)
        frames[r], prev, prev_idx, labels = xy, xy, snap["indices"], snap["labels"]
    if not frames:
        raise Missing(f"run {run_id} has no embedding snapshot")
    return frames, labels, "UMAP" if use_umap else "PCA"


def _class_names(data: LessonData, run_id: str):
    return (data.partition(run_id) or {}).get("class_names")


def _embedding_item(data, run_id, title, name, talk, animate=True) -> FigureItem:
    frames, labels, kind = embedding_frames(data, run_id)
    last, title = max(frames), f"{title} ({kind})"
    fig = (animated_embedding(frames, labels, _class_names(data, run_id), title=title, talk=talk) if animate
           else embedding_scatter(frames[last], labels, _class_names(data, run_id), title=title, talk=talk))
    df = pd.DataFrame({"x": frames[last][:, 0], "y": frames[last][:, 1], "label": labels, "round": last})
    return FigureItem(name, fig, df)


def _response_item(data, metric, methods, title, name, talk) -> tuple[FigureItem, pd.DataFrame]:
    table = response(data, metric, methods)
    if table.empty or not (table[f"{metric}_n"] > 0).any():
        raise Missing(f"no finished {', '.join(methods)} runs with '{metric}' in study '{data.study.get('name')}'")
    fig = sf.response_figure(table, "alpha", metric, pair=PAIR, all_values=data.axis("alpha"), title=title, talk=talk)
    return FigureItem(name, fig, table), table


# ---- the steps -------------------------------------------------------------------------------
def step_skew(data: LessonData, talk: bool) -> StepContent:
    skew, iid, seed = data.skew_alpha(), data.iid_alpha(), _seed0(data)
    counts = {}
    for a in (iid, skew):
        part = data.partition(_run(data, alpha=a, seed=seed)) or {}
        if "counts" not in part:
            raise Missing(f"the {alpha_label(a)} run has no partition.json")
        counts[a] = np.asarray(part["counts"])
    figs = [FigureItem(f"partition_{alpha_label(a)}", partition_heatmap(c, title=f"{alpha_label(a)}: clients × classes",
                                                                      talk=talk),
                       pd.DataFrame(c).rename_axis("client").reset_index()) for a, c in counts.items()]
    return StepContent("1 · Label skew", text.skew_sentences(counts[iid], counts[skew], skew, iid), figs)


def step_fedavg(data: LessonData, talk: bool) -> StepContent:
    skew, iid = data.skew_alpha(), data.iid_alpha()
    frames = []
    for a in (iid, skew):
        runs = data.runs(alpha=a, method="fedavg") or [_run(data, alpha=a, method="fedavg")]
        for r in runs:
            rows = pd.DataFrame(data.metrics(r))
            rows["method"], rows["seed"], rows["run"] = f"FedAvg, {alpha_label(a)}", data.config(r).get("seed", 0), r
            frames.append(rows)
    df = pd.concat(frames, ignore_index=True)
    curves = FigureItem("fedavg_accuracy_curves", sf.band_curves_figure(df, "test_accuracy", title="FedAvg accuracy per "
                                                                        "round, mean ± std over seeds", talk=talk),
                        df[["method", "seed", "round", "test_accuracy"]])
    resp, _ = _response_item(data, "final_acc", ("fedavg",), "FedAvg final accuracy vs α", "fedavg_accuracy_vs_alpha",
                             talk)
    finals = {a: [data.final(r, "test_accuracy") for r in data.runs(alpha=a, method="fedavg")] for a in (iid, skew)}
    rounds = int(df["round"].max())
    return StepContent("2 · FedAvg under skew", text.accuracy_sentences(finals[iid], finals[skew], skew, rounds, iid),
                       [curves, resp])


def step_collapse(data: LessonData, talk: bool) -> StepContent:
    skew, iid, seed = data.skew_alpha(), data.iid_alpha(), _seed0(data)
    ids = {a: _run(data, alpha=a, method="fedavg", seed=seed) for a in (skew, iid)}
    items = [_embedding_item(data, r, f"FedAvg, {alpha_label(a)}", f"embedding_fedavg_{alpha_label(a)}", talk)
             for a, r in ids.items()]
    last = {a: max(data.snapshot_rounds(r)) for a, r in ids.items()}
    ratio = {a: data.final(r, "ratio") for a, r in ids.items()}
    if None in (ratio[skew], ratio[iid]):
        raise Missing("the runs have no intra/inter ratio (no snapshot metrics)")
    return StepContent("3 · What collapse looks like",
                       text.collapse_sentences(ratio[iid], ratio[skew], skew, last[iid], last[skew], iid), items)


def _spectra(data: LessonData, methods) -> dict[str, dict]:
    """Final-snapshot singular values of the first seed's run, per method and alpha."""
    seed, out = _seed0(data), {}
    for m in methods:
        for a in _x_order(data):
            rid = data.run(alpha=a, method=m, seed=seed)
            if rid and data.snapshot_rounds(rid):
                out.setdefault(m, {})[a] = np.asarray(data.snapshot(rid, max(data.snapshot_rounds(rid)))["singular_values"])
    if not out:
        raise Missing("no embedding snapshots to take spectra from")
    return out


def _spectra_table(spectra: dict[str, dict]) -> pd.DataFrame:
    return pd.DataFrame([{"method": m, "alpha": a, "k": k + 1, "singular_value": float(v)}
                         for m, per in spectra.items() for a, s in per.items() for k, v in enumerate(s)])


def step_measure(data: LessonData, talk: bool) -> StepContent:
    r_item, r_table = _response_item(data, "final_ratio", ("fedavg",), "Intra / inter ratio vs α (FedAvg)",
                                     "ratio_vs_alpha", talk)
    e_item, e_table = _response_item(data, "effective_rank", ("fedavg",), "Effective rank vs α (FedAvg)",
                                     "effective_rank_vs_alpha", talk)
    spectra = _spectra(data, ("fedavg",))
    spec = FigureItem("spectra_fedavg", sf.spectra_across_figure(spectra, title="Spectrum across α, last snapshot",
                                                                 talk=talk), _spectra_table(spectra))
    return StepContent("4 · Measuring it", text.measuring_sentences(r_table, e_table), [r_item, e_item, spec])


def step_idea(data: LessonData | None, talk: bool, m1: float = quad.DEFAULT_M1, m2: float = quad.DEFAULT_M2,
              points: dict | None = None) -> StepContent:
    points = points or quad.PRESETS[quad.DEFAULT_PRESET]
    items = [FigureItem(f"quadruplet_{form}", quad.quadruplet_figure(points, m1, m2, form, talk=talk),
                        pd.DataFrame(quad.quadruplet_table(points, m1, m2, form))) for form in quad.FORMS]
    q, c = quad.quadruplet(points, m1, m2, "fedquad"), quad.quadruplet(points, m1, m2, "chen")
    sentences = ["FedQuad adds a quadruplet term to each client's loss: the anchor must be closer to a same-class "
                 "positive than to two negatives of two other classes, by margins m1 and m2."] \
        + quad.term_sentences(q, m1, m2)[:1] + quad.term_sentences(c, m1, m2)[:1]
    return StepContent("5 · FedQuad's idea", sentences, items)


def step_holds(data: LessonData, talk: bool) -> StepContent:
    skew, seed = data.skew_alpha(), _seed0(data)
    ids = {m: _run(data, alpha=skew, method=m, seed=seed) for m in PAIR}
    items = [_embedding_item(data, r, f"{LABELS[m]}, {alpha_label(skew)}, seed {seed}", f"embedding_{m}_{alpha_label(skew)}",
                             talk) for m, r in ids.items()]
    vals = {m: {"ratio": data.final(r, "ratio"), "acc": data.final(r, "test_accuracy"),
                "erank": data.final(r, "effective_rank")} for m, r in ids.items()}
    if any(v is None for d in vals.values() for v in d.values()):
        raise Missing("the FedAvg/FedQuad runs lack accuracy or snapshot metrics")
    ratio, _ = _response_item(data, "final_ratio", PAIR, "Intra / inter ratio vs α, mean ± std over seeds",
                              "ratio_vs_alpha_both", talk)
    return StepContent("6 · FedQuad holds", text.holds_sentences(vals["fedavg"], vals["fedquad"], skew),
                       items + [ratio])


def step_price(data: LessonData, talk: bool) -> StepContent:
    skew, seed = data.skew_alpha(), _seed0(data)
    ids = {m: _run(data, alpha=skew, method=m, seed=seed) for m in PAIR}
    df = metrics_frame({r: data.metrics(r) for r in ids.values()},
                       {r: {"label": LABELS[m], "method": m} for m, r in ids.items()})
    cost_fig = curves_figure(df, "test_accuracy", "samples_total", title=f"Accuracy vs samples processed, "
                                                                          f"{alpha_label(skew)}", talk=talk)
    cost = {m: (data.final(r, "samples_total"), data.final(r, "elapsed")) for m, r in ids.items()}
    if any(None in v for v in cost.values()):
        raise Missing("the runs' metrics lack samples_total / elapsed")
    acc_item, acc_table = _response_item(data, "final_acc", PAIR, "Final accuracy vs α, mean ± std over seeds",
                                         "accuracy_vs_alpha_bands", talk)
    counts = np.asarray((data.partition(ids["fedquad"]) or {}).get("counts", [[0]]))
    lt3 = int(((counts > 0).sum(axis=1) < 3).sum())
    done = acc_table[(acc_table["method"] == "fedquad") & (acc_table["final_acc_n"] > 0)]["alpha"].tolist()
    overlap = [alpha_label(a) for a in sf.band_overlaps(acc_table, "alpha", "final_acc")]
    sentences = text.price_sentences(cost, lt3, len(counts), overlap, [alpha_label(a) for a in done], skew)
    items = [FigureItem("accuracy_vs_samples", cost_fig, df[["label", "round", "samples_total", "elapsed",
                                                             "test_accuracy"]]), acc_item]
    return StepContent("7 · The price and the limits", sentences, items)


STEPS: list[tuple[str, Callable[[LessonData, bool], StepContent]]] = [
    ("Label skew", step_skew), ("FedAvg under skew", step_fedavg), ("What collapse looks like", step_collapse),
    ("Measuring it", step_measure), ("FedQuad's idea", step_idea), ("FedQuad holds", step_holds),
    ("The price and the limits", step_price),
]


def build_step(i: int, data: LessonData | None, talk: bool = False, problem: str | None = None) -> StepContent:
    """Step ``i`` (1-based) from ``data``; when data or a run is missing, a StepContent that says
    what to run instead (never an exception)."""
    title, builder = STEPS[i - 1]
    if builder is not step_idea and data is None:
        return StepContent(f"{i} · {title}", problem=problem or "no study loaded")
    try:
        content = builder(data, talk)
    except Missing as e:
        return StepContent(f"{i} · {title}", problem=str(e))
    skew = data.skew_alpha() if data is not None else None
    content.footer = (f"{data.settings()} · skew shown: {alpha_label(skew)}" if data is not None and builder is not step_idea
                      else "FedQuad loss, Göksu & Pugeault 2025; quadruplet loss, Chen et al. 2017")
    return content
