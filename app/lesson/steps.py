"""The lesson as data: seven steps, each a title and a builder that turns a study (``LessonData``)
into sentences (``app.lesson.text``, computed from the numbers shown) and one to three figures.
Pure: no streamlit; the Lesson page draws a ``Slide`` and ``app.export.slides`` exports it.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from app.export.slides import Slide, SlideFigure
from app.lesson import text
from app.lesson import quadruplet as quad
from app.figures import study as sf
from app.figures.charts import curves_figure, metrics_frame, partition_heatmap
from app.lesson.data import LessonData, StoreError, alpha_label
from app.lesson.figures import (LABELS, PAIR, Missing, embedding_item, first_seed, require_run,
                                response, response_item, spectra, spectra_table)

__all__ = ["STEPS", "Slide", "SlideFigure", "Missing", "build_step", "step_idea", "response"]


# ---- the steps -------------------------------------------------------------------------------
def step_skew(data: LessonData, talk: bool) -> Slide:
    skew, iid, seed = data.skew_alpha(), data.iid_alpha(), first_seed(data)
    counts = {}
    for a in (iid, skew):
        part = data.partition(require_run(data, alpha=a, seed=seed)) or {}
        if "counts" not in part:
            raise Missing(f"the {alpha_label(a)} run has no partition.json")
        counts[a] = np.asarray(part["counts"])
    figs = [SlideFigure(f"partition_{alpha_label(a)}", partition_heatmap(c, title=f"{alpha_label(a)}: clients × classes",
                                                                      talk=talk),
                       pd.DataFrame(c).rename_axis("client").reset_index()) for a, c in counts.items()]
    return Slide("1 · Label skew", text.skew_sentences(counts[iid], counts[skew], skew, iid), figs)


def step_fedavg(data: LessonData, talk: bool) -> Slide:
    skew, iid = data.skew_alpha(), data.iid_alpha()
    frames = []
    for a in (iid, skew):
        runs = data.runs(alpha=a, method="fedavg") or [require_run(data, alpha=a, method="fedavg")]
        for r in runs:
            rows = pd.DataFrame(data.metrics(r))
            rows["method"], rows["seed"], rows["run"] = f"FedAvg, {alpha_label(a)}", data.config(r).get("seed", 0), r
            frames.append(rows)
    df = pd.concat(frames, ignore_index=True)
    curves = SlideFigure("fedavg_accuracy_curves", sf.band_curves_figure(df, "test_accuracy", title="FedAvg accuracy per "
                                                                        "round, mean ± std over seeds", talk=talk),
                        df[["method", "seed", "round", "test_accuracy"]])
    resp, _ = response_item(data, "final_acc", ("fedavg",), "FedAvg final accuracy vs α", "fedavg_accuracy_vs_alpha",
                             talk)
    finals = {a: [data.final(r, "test_accuracy") for r in data.runs(alpha=a, method="fedavg")] for a in (iid, skew)}
    rounds = int(df["round"].max())
    return Slide("2 · FedAvg under skew", text.accuracy_sentences(finals[iid], finals[skew], skew, rounds, iid),
                       [curves, resp])


def step_collapse(data: LessonData, talk: bool) -> Slide:
    skew, iid, seed = data.skew_alpha(), data.iid_alpha(), first_seed(data)
    ids = {a: require_run(data, alpha=a, method="fedavg", seed=seed) for a in (skew, iid)}
    items = [embedding_item(data, r, f"FedAvg, {alpha_label(a)}", f"embedding_fedavg_{alpha_label(a)}", talk)
             for a, r in ids.items()]
    last = {a: max(data.snapshot_rounds(r)) for a, r in ids.items()}
    ratio = {a: data.final(r, "ratio") for a, r in ids.items()}
    if None in (ratio[skew], ratio[iid]):
        raise Missing("the runs have no intra/inter ratio (no snapshot metrics)")
    return Slide("3 · What collapse looks like",
                       text.collapse_sentences(ratio[iid], ratio[skew], skew, last[iid], last[skew], iid), items)


def step_measure(data: LessonData, talk: bool) -> Slide:
    r_item, r_table = response_item(data, "final_ratio", ("fedavg",), "Intra / inter ratio vs α (FedAvg)",
                                     "ratio_vs_alpha", talk)
    e_item, e_table = response_item(data, "effective_rank", ("fedavg",), "Effective rank vs α (FedAvg)",
                                     "effective_rank_vs_alpha", talk)
    per_alpha = spectra(data, ("fedavg",))
    spec = SlideFigure("spectra_fedavg", sf.spectra_across_figure(per_alpha, title="Spectrum across α, last snapshot",
                                                                 talk=talk), spectra_table(per_alpha))
    return Slide("4 · Measuring it", text.measuring_sentences(r_table, e_table), [r_item, e_item, spec])


def step_idea(data: LessonData | None, talk: bool, m1: float = quad.DEFAULT_M1, m2: float = quad.DEFAULT_M2,
              points: dict | None = None) -> Slide:
    points = points or quad.PRESETS[quad.DEFAULT_PRESET]
    items = [SlideFigure(f"quadruplet_{form}", quad.quadruplet_figure(points, m1, m2, form, talk=talk),
                        pd.DataFrame(quad.quadruplet_table(points, m1, m2, form))) for form in quad.FORMS]
    q, c = quad.quadruplet(points, m1, m2, "fedquad"), quad.quadruplet(points, m1, m2, "chen")
    sentences = ["FedQuad adds a quadruplet term to each client's loss: the anchor must be closer to a same-class "
                 "positive than to two negatives of two other classes, by margins m1 and m2."] \
        + quad.term_sentences(q, m1, m2)[:1] + quad.term_sentences(c, m1, m2)[:1]
    return Slide("5 · FedQuad's idea", sentences, items)


def step_holds(data: LessonData, talk: bool) -> Slide:
    skew, seed = data.skew_alpha(), first_seed(data)
    ids = {m: require_run(data, alpha=skew, method=m, seed=seed) for m in PAIR}
    items = [embedding_item(data, r, f"{LABELS[m]}, {alpha_label(skew)}, seed {seed}", f"embedding_{m}_{alpha_label(skew)}",
                             talk) for m, r in ids.items()]
    vals = {m: {"ratio": data.final(r, "ratio"), "acc": data.final(r, "test_accuracy"),
                "erank": data.final(r, "effective_rank")} for m, r in ids.items()}
    if any(v is None for d in vals.values() for v in d.values()):
        raise Missing("the FedAvg/FedQuad runs lack accuracy or snapshot metrics")
    ratio, _ = response_item(data, "final_ratio", PAIR, "Intra / inter ratio vs α, mean ± std over seeds",
                              "ratio_vs_alpha_both", talk)
    return Slide("6 · FedQuad holds", text.holds_sentences(vals["fedavg"], vals["fedquad"], skew),
                       items + [ratio])


def step_price(data: LessonData, talk: bool) -> Slide:
    skew, seed = data.skew_alpha(), first_seed(data)
    ids = {m: require_run(data, alpha=skew, method=m, seed=seed) for m in PAIR}
    df = metrics_frame({r: data.metrics(r) for r in ids.values()},
                       {r: {"label": LABELS[m], "method": m} for m, r in ids.items()})
    cost_fig = curves_figure(df, "test_accuracy", "samples_total", title=f"Accuracy vs samples processed, "
                                                                          f"{alpha_label(skew)}", talk=talk)
    cost = {m: (data.final(r, "samples_total"), data.final(r, "elapsed")) for m, r in ids.items()}
    if any(None in v for v in cost.values()):
        raise Missing("the runs' metrics lack samples_total / elapsed")
    acc_item, acc_table = response_item(data, "final_acc", PAIR, "Final accuracy vs α, mean ± std over seeds",
                                         "accuracy_vs_alpha_bands", talk)
    counts = np.asarray((data.partition(ids["fedquad"]) or {}).get("counts", [[0]]))
    lt3 = int(((counts > 0).sum(axis=1) < 3).sum())
    done = acc_table[(acc_table["method"] == "fedquad") & (acc_table["final_acc_n"] > 0)]["alpha"].tolist()
    overlap = [alpha_label(a) for a in sf.band_overlaps(acc_table, "alpha", "final_acc")]
    n_seeds = int(acc_table.loc[acc_table["final_acc_n"] > 0, "final_acc_n"].min())
    sentences = text.price_sentences(cost, lt3, len(counts), overlap, [alpha_label(a) for a in done], skew, n_seeds)
    items = [SlideFigure("accuracy_vs_samples", cost_fig, df[["label", "round", "samples_total", "elapsed",
                                                             "test_accuracy"]]), acc_item]
    return Slide("7 · The price and the limits", sentences, items)


STEPS: list[tuple[str, Callable[[LessonData, bool], Slide]]] = [
    ("Label skew", step_skew), ("FedAvg under skew", step_fedavg), ("What collapse looks like", step_collapse),
    ("Measuring it", step_measure), ("FedQuad's idea", step_idea), ("FedQuad holds", step_holds),
    ("The price and the limits", step_price),
]


def build_step(i: int, data: LessonData | None, talk: bool = False, problem: str | None = None) -> Slide:
    """Step ``i`` (1-based) from ``data``; when data or a run is missing, a Slide that says
    what to run instead (never an exception)."""
    title, builder = STEPS[i - 1]
    if builder is not step_idea and data is None:
        return Slide(f"{i} · {title}", problem=problem or "no study loaded")
    try:
        content = builder(data, talk)
    except Missing as e:
        return Slide(f"{i} · {title}", problem=str(e), notices=sorted(getattr(data, "notices", ())))
    except StoreError as e:  # a damaged run file the step cannot do without: one line, not an exception box
        return Slide(f"{i} · {title}", problem=str(e), notices=sorted(getattr(data, "notices", ())))
    content.notices = sorted(getattr(data, "notices", ()))
    skew = data.skew_alpha() if data is not None else None
    content.footer = (f"{data.settings()} · skew shown: {alpha_label(skew)}" if data is not None and builder is not step_idea
                      else "FedQuad loss, Göksu & Pugeault 2025; quadruplet loss, Chen et al. 2017")
    return content
