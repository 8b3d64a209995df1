"""The lesson's figures from a study (``LessonData``): the items a step shows (figure + its data),
built with the other pages' builders (``app.figures``) plus the one the lesson adds,
a class-coloured embedding animated over snapshot rounds (play button and round slider)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.figures import study as sf
from app.figures import palette as theme
from app.figures.fit import fit as fit_figure
from app.figures.geometry import embedding_scatter
from app.export.slides import SlideFigure
from app.lesson.data import LessonData, Missing, alpha_words
from app.projection.maths import pca_2d, procrustes_align
from fedquad_core import api
from fedquad_core.api import StoreError, Verdict, stats

LABELS = {"fedavg": "FedAvg", "fedquad": "FedQuad"}
PAIR = ("fedavg", "fedquad")


def require_run(data: LessonData, **coords) -> str:
    rid = data.run(**coords)
    if rid is None:
        want = ", ".join(f"{k}={alpha_words(v) if k == 'alpha' else v}" for k, v in coords.items())
        raise Missing(f"no finished run with {want} in study '{data.study.get('name')}' ({data.root}): "
                      "add it to the study (`python scripts/record_studies.py` for the recorded ones)")
    return rid


def first_seed(data: LessonData):
    seeds = data.axis("seed")
    return seeds[0] if seeds else data.base("seed", 0)


def _x_order(data: LessonData) -> list:
    alphas = data.axis("alpha")
    return sorted([a for a in alphas if a is not None]) + ([None] if None in alphas else [])


FINAL_KEYS = {"final_acc": "test_accuracy", "final_ratio": "ratio", "final_ratio_l2": "ratio_l2"}


def run_metric(data: LessonData, run_id: str | None, metric: str) -> float | None:
    """One run's value of ``metric`` as the claims table takes it (``engine.stats.run_value``): the mean
    of its last 10 rounds (accuracy) or last 3 snapshots (the other measures)."""
    if not run_id:
        return None
    return stats.run_value(data.metrics(run_id), metric if metric == "final_acc" else FINAL_KEYS.get(metric, metric))


def points(data: LessonData, metrics=()) -> pd.DataFrame:
    """One row per grid point (``StudyView.frame``), each of ``metrics`` the run's value as the claims
    table takes it (``run_metric``: the mean of its last rounds or snapshots), so that a figure,
    its sentence and the table show the same numbers."""
    pts = pd.DataFrame(api.study_view(data.root).frame(data.study))
    for m in metrics:
        if len(pts):
            pts[m] = [run_metric(data, r, m) for r in pts["run_id"]]
    return pts


def values(data: LessonData, metric: str, **coords) -> dict:
    """The metric's value (``run_metric``) of each finished run matching ``coords``, keyed by
    seed: two groups with the same seeds are compared seed by seed (``engine.stats.compare``)."""
    out = {stats.seed_of(p): run_metric(data, p["run_id"], metric) for p in data.points(coords)}
    return {k: v for k, v in out.items() if v is not None}


def versus(data: LessonData, metric: str, a: dict, b: dict) -> Verdict:
    """Group ``a`` against group ``b`` on ``metric``, as the claims table compares them: per-run
    values of ``run_metric``, paired on shared seeds only where the groups share their partitions
    (``engine.stats.pairable``: the same α; across α, Welch's test), with the measure's smallest effect
    of interest."""
    va, vb = values(data, metric, **a), values(data, metric, **b)
    ref = sum(vb.values()) / len(vb) if vb else None
    if not stats.pairable(a, b):
        va, vb = list(va.values()), list(vb.values())
    return stats.compare(va, vb, stats.smallest_effect(FINAL_KEYS.get(metric, metric), ref))


def most_local_epochs(data: LessonData) -> dict:
    """``{"local_epochs": the largest}`` when the study sweeps local epochs (the most drift), else {}."""
    epochs = [e for e in data.axis("local_epochs") if e is not None]
    return {"local_epochs": max(epochs)} if len(epochs) > 1 else {}


def response(data: LessonData, metric: str, methods=PAIR, fixed: dict | None = None, x_axis: str = "alpha") -> pd.DataFrame:
    """Mean, std, n over seeds of ``metric`` per method and ``x_axis`` value (``study_figures.aggregate``),
    the other axes at ``fixed``."""
    pts = points(data, (metric,))
    if fixed and len(pts):
        pts = sf.select(pts, {k: v for k, v in fixed.items() if k in pts})
    pts = pts[pts["method"].isin(methods)] if "method" in pts else pts.iloc[0:0]
    return sf.aggregate(pts, ["method", x_axis], [metric]) if len(pts) and x_axis in pts else pd.DataFrame()


def matched(data: LessonData):
    """The study's runs at matched accuracy (threshold: the lowest final accuracy of all its runs)."""
    return stats.matched_accuracy(data.store, data.study)


def matched_table(m, metric: str, methods=PAIR) -> pd.DataFrame:
    """``m.groups()`` as a response table (method, alpha, ``<metric>_mean/_std/_n``)."""
    rows = [{"method": g.get("method"), "alpha": g.get("alpha"), f"{metric}_mean": g[f"{metric}_mean"],
             f"{metric}_std": g[f"{metric}_std"] or 0.0, f"{metric}_n": g[f"{metric}_n"]}
            for g in m.groups() if g.get("method") in methods]
    out = pd.DataFrame(rows, columns=["method", "alpha", f"{metric}_mean", f"{metric}_std", f"{metric}_n"])
    return out.groupby(["method", "alpha"], dropna=False, sort=False, as_index=False).first() if len(out) else out


def matched_values(m, metric: str, **coords) -> list[float]:
    return [r[metric] for r in m.rows if r["round"] is not None and r.get(metric) is not None
            and all(repr(r["coords"].get(k)) == repr(v) for k, v in coords.items())]


def unit_spread(xy) -> np.ndarray:
    """``xy`` centred, scaled to a root-mean-square distance of 1 from its centre (rotation kept):
    chained Procrustes alignment fits a scale below 1 whenever two layouts differ, so without this
    the later frames of an animation shrink to a dot."""
    xy = np.asarray(xy, dtype=np.float64)
    c = xy - xy.mean(axis=0)
    rms = float(np.sqrt((c ** 2).sum(axis=1).mean())) if len(c) else 0.0
    return (c / rms if rms > 0 else c).astype(np.float32)


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
        xy = unit_spread(xy)  # Procrustes' least-squares scale shrinks a little per frame: undo it
        frames[r], prev, prev_idx, labels = xy, xy, snap["indices"], snap["labels"]
    if not frames:
        raise Missing(f"run {run_id} has no embedding snapshot")
    return frames, labels, "UMAP" if use_umap else "PCA"


def _class_names(data: LessonData, run_id: str):
    return (data.partition(run_id) or {}).get("class_names")


def embedding_item(data, run_id, title, name, talk, animate=True) -> SlideFigure:
    frames, labels, kind = embedding_frames(data, run_id)
    last, title = max(frames), f"{title} ({kind})"
    fig = (animated_embedding(frames, labels, _class_names(data, run_id), title=title, talk=talk) if animate
           else embedding_scatter(frames[last], labels, _class_names(data, run_id), title=title, talk=talk))
    df = pd.DataFrame({"x": frames[last][:, 0], "y": frames[last][:, 1], "label": labels, "round": last})
    return SlideFigure(name, fig, df)


def response_item(data, metric, methods, title, name, talk, fixed=None, x_axis="alpha",
                  table: pd.DataFrame | None = None, y_title: str | None = None) -> tuple[SlideFigure, pd.DataFrame]:
    table = response(data, metric, methods, fixed, x_axis) if table is None else table
    if table.empty or not (table[f"{metric}_n"] > 0).any():
        raise Missing(f"no finished {', '.join(methods)} runs with '{metric}' in study '{data.study.get('name')}'")
    fig = sf.response_figure(table, x_axis, metric, pair=PAIR, all_values=data.axis(x_axis), title=title, talk=talk,
                             y_title=y_title)
    return SlideFigure(name, fig, table), table


def spectra(data: LessonData, methods) -> dict[str, dict]:
    """Final-snapshot singular values of the first seed's run, per method and alpha."""
    seed, out = first_seed(data), {}
    for m in methods:
        for a in _x_order(data):
            rid = data.run(alpha=a, method=m, seed=seed)
            if rid and data.snapshot_rounds(rid):
                out.setdefault(m, {})[a] = np.asarray(data.snapshot(rid, max(data.snapshot_rounds(rid)))["singular_values"])
    if not out:
        raise Missing("no embedding snapshots to take spectra from")
    return out


def spectra_table(per_method: dict[str, dict]) -> pd.DataFrame:
    return pd.DataFrame([{"method": m, "alpha": a, "k": k + 1, "singular_value": float(v)}
                         for m, per in per_method.items() for a, s in per.items() for k, v in enumerate(s)])




def animated_embedding(frames: dict[int, np.ndarray], labels, class_names=None, *, title: str = "",
                       talk: bool = False) -> go.Figure:
    """The last round's picture, with a play button and a round slider stepping through ``frames``
    (positions per snapshot round, already aligned so points do not jump)."""
    rounds = sorted(frames)
    labels = np.asarray(labels).ravel()
    fig = embedding_scatter(frames[rounds[-1]], labels, class_names, title=title, talk=talk)
    if len(rounds) < 2:
        return fig
    classes = np.unique(labels)
    all_xy = np.concatenate([frames[r] for r in rounds])
    pad = 0.05 * (all_xy.max(axis=0) - all_xy.min(axis=0) + 1e-9)
    fig.update_xaxes(range=[all_xy[:, 0].min() - pad[0], all_xy[:, 0].max() + pad[0]], autorange=False)
    fig.update_yaxes(range=[all_xy[:, 1].min() - pad[1], all_xy[:, 1].max() + pad[1]], autorange=False)
    fig.frames = [go.Frame(name=str(r), data=[go.Scatter(x=frames[r][labels == c, 0], y=frames[r][labels == c, 1])
                                              for c in classes]) for r in rounds]
    step = dict(frame=dict(duration=700, redraw=True), transition=dict(duration=300), mode="immediate")
    fig.update_layout(
        updatemenus=[dict(type="buttons", showactive=False, x=0.0, y=-0.02, xanchor="left", yanchor="top",
                          buttons=[dict(label="▶ play", method="animate", args=[None, {**step, "fromcurrent": False}])])],
        sliders=[dict(active=len(rounds) - 1, x=0.12, y=-0.02, len=0.88, yanchor="top",
                      currentvalue=dict(prefix="round ", xanchor="right"),
                      steps=[dict(label=str(r), method="animate", args=[[str(r)], step]) for r in rounds])],
    )
    fig.update_layout(margin=dict(b=90))
    return fig


VERDICT_COLORS = {"supported": "#d9f0d3", "not supported": "#f4cccc", "negligible": "#dde7f4", "inconclusive": "#eeeeee"}


def verdict_colour(verdict: str) -> str:
    """The tint of a verdict cell (its first words: "supported (still changing)" is tinted as supported)."""
    return VERDICT_COLORS.get(str(verdict).split(" (")[0], "#fafafa")


def claims_figure(table: pd.DataFrame, talk: bool = False) -> go.Figure:
    """The claims table (``api.claims``) as a plotly table, each verdict cell tinted."""
    cols = list(table.columns)
    widths = {"#": 0.4, "claim": 3.0, "study": 1.3, "measure": 1.8, "test": 1.2, "difference (95 % CI)": 2.3,
              "p (Holm)": 0.9, "verdict": 1.4, "robust": 1.5}
    fill = [[verdict_colour(v) for v in table["verdict"]] if c == "verdict" else ["white"] * len(table) for c in cols]
    size = 15 if talk else 11
    fig = go.Figure(go.Table(
        columnwidth=[widths.get(c, 2.0) for c in cols],
        header=dict(values=[f"<b>{c}</b>" for c in cols], align="left", font=dict(size=size + 1)),
        cells=dict(values=[table[c].tolist() for c in cols], align="left", fill_color=fill, font=dict(size=size),
                   height=24)))
    fig.update_layout(font=dict(size=20 if talk else 12), margin=dict(l=4, r=4, t=8, b=4),
                      height=100 + (80 if talk else 48) * len(table), paper_bgcolor="white")
    return fig


def claims_summary_figure(claims: list[dict], talk: bool = False, header: str = "claim (paper)",
                          widths: tuple[float, float, float] = (0.7, 5.0, 1.4)) -> go.Figure:
    """One line per paper claim (``ClaimsTable.verdicts``: a claim checked in several rows counts once,
    "mixed" when its rows disagree) with its rows and verdict: the claims table as a projector
    shows it on one screen (the full table follows it on the page)."""
    rows = [", ".join(map(str, c["rows"])) for c in claims]
    verdicts = [c["verdict"] for c in claims]
    size = 15 if talk else 11
    fig = go.Figure(go.Table(
        columnwidth=list(widths),
        header=dict(values=["<b>rows</b>", f"<b>{header}</b>", "<b>verdict</b>"], align="left",
                    font=dict(size=size + 1), height=28),
        cells=dict(values=[rows, [c["text"] for c in claims], verdicts], align="left", font=dict(size=size), height=27,
                   fill_color=[["white"] * len(claims), ["white"] * len(claims), [verdict_colour(v) for v in verdicts]])))
    fig.update_layout(font=dict(size=size), margin=dict(l=4, r=4, t=4, b=4), height=40 + 29 * len(claims),
                      paper_bgcolor="white")
    return fig


# The local model's picture sits in a third of a 1280 px projector (about 395 px), where plotly lays
# its ten class names out two a row (measured in Chromium: 270 of the 285 px the plot leaves it);
# the theme's generous estimate of a name's width would reserve ten rows and make the figure 630 px
# tall, off the first screen. Its title is short and its axes untitled, so it is laid out for the
# width at which the theme's estimate gives the two a row plotly draws (tests/e2e/test_talk_layout.py
# checks the legend neither scrolls, nor cuts, nor overlaps, and that the figure is whole on the screen).
CLASS_LEGEND_WIDTH = 470


def local_client_item(data: LessonData, run_id: str, talk: bool) -> SlideFigure | None:
    """One measured client's local model at the run's last local snapshot: its test embeddings
    (PCA, aligned to the round's starting global model's), the classes it holds drawn solid and
    the others faded. The client holding the fewest classes is shown; None when the run kept no
    local embeddings (the recording keeps them for a few runs only)."""
    try:
        rounds = data.store.local_snapshot_rounds(run_id)
        if not rounds:
            return None
        local = data.store.read_local_snapshot(run_id, rounds[-1])
        labels = data.snapshot(run_id, rounds[-1])["labels"]
    except (StoreError, OSError, KeyError, ValueError) as e:
        data.notices.add(f"{e}: the local-model picture is left out")
        return None
    k = int(np.argmin(local["holds"].sum(axis=1)))
    z = np.asarray(local["embeddings"][k], dtype=np.float32)
    if len(z) != len(labels):
        return None
    xy = unit_spread(procrustes_align(pca_2d(z), pca_2d(np.asarray(local["start_embeddings"], dtype=np.float32))))
    held = np.flatnonzero(local["holds"][k])
    names = _class_names(data, run_id)
    label = lambda c: names[c] if names is not None and c < len(names) else str(c)  # noqa: E731
    fig = embedding_scatter(xy, labels, names, title=f"Client {int(local['clients'][k])}, local model",
                            talk=talk)
    if talk:
        fig = fit_figure(go.Figure(fig), True, width=CLASS_LEGEND_WIDTH, height=theme.DEFAULT_HEIGHT[True])
    classes = np.unique(labels)
    for trace, c in zip(fig.data, classes):
        trace.marker.opacity = 0.85 if c in held else 0.15
    caption = (f"Client {int(local['clients'][k])} holds {len(held)} class{'es' if len(held) != 1 else ''} "
               f"({', '.join(label(int(c)) for c in held)}; each at least {100 * stats.hold_share(local['holds'].shape[1]):.3g} % of its "
               f"{int(local['samples'][k])} samples): its own classes "
               f"solid, the others faded. Test embeddings of its local model at round {rounds[-1]}, before averaging "
               "(PCA, aligned to the round's global model).")
    df = pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "label": labels, "held": np.isin(labels, held)})
    return SlideFigure(f"local_client_{int(local['clients'][k])}", fig, df, caption)
