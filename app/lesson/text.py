"""The lesson's sentences. Each function takes the numbers a step shows and returns its
sentences, so a regenerated study changes the text: no number here is written in advance."""
from __future__ import annotations

import numpy as np

from app.lesson.data import alpha_label


COLLAPSE_FACTOR = 1.5  # ratio under skew / ratio IID from which step 3 calls it collapse


def _secs(t: float) -> str:
    return f"{t:.1f} s" if t < 10 else f"{t:.0f} s"


def _mean_std(values) -> tuple[float, float, int]:
    v = np.asarray([x for x in values if x is not None], dtype=float)
    if v.size == 0:
        return float("nan"), float("nan"), 0
    return float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0, int(v.size)


def _pct(mean: float, std: float, n: int) -> str:
    return f"{mean:.1%}" + (f" ± {std:.1%}" if n > 1 else "")


def skew_sentences(counts_iid, counts_skew, alpha, alpha_iid=None) -> list[str]:
    """Step 1: classes per client, and the clients holding fewer than 3 classes, at both splits."""
    held = {k: (np.asarray(c) > 0).sum(axis=1) for k, c in (("iid", counts_iid), ("skew", counts_skew))}
    n = len(held["skew"])
    lt3 = {k: int((v < 3).sum()) for k, v in held.items()}
    return [
        f"The same {n} clients, two ways of splitting the data: with {alpha_label(alpha_iid)} a client holds "
        f"{held['iid'].mean():.1f} classes on average, with {alpha_label(alpha)} only {held['skew'].mean():.1f}.",
        f"At {alpha_label(alpha)}, {lt3['skew']} of {n} clients {'holds' if lt3['skew'] == 1 else 'hold'} fewer than 3 classes "
        f"({alpha_label(alpha_iid)}: {lt3['iid']}); each of them trains a model that has hardly seen the others.",
    ]


def accuracy_sentences(final_iid, final_skew, alpha, rounds, alpha_iid=None) -> list[str]:
    """Step 2: FedAvg's final accuracy, mean ± std over seeds, at IID and at strong skew."""
    mi, si, ni = _mean_std(final_iid)
    ms, ss, ns = _mean_std(final_skew)
    seeds = f"mean over {min(ni, ns)} seed{'s' if min(ni, ns) != 1 else ''}"
    return [
        f"After {rounds} rounds FedAvg reaches {_pct(mi, si, ni)} test accuracy with {alpha_label(alpha_iid)} "
        f"and {_pct(ms, ss, ns)} with {alpha_label(alpha)} ({seeds}).",
        f"Same model, same data, same number of rounds: the split alone costs {100 * (mi - ms):.1f} points."
        if mi > ms else "Here the skewed split costs FedAvg no accuracy: this data does not show the problem.",
    ]


def collapse_sentences(ratio_iid, ratio_skew, alpha, round_iid, round_skew, alpha_iid=None) -> list[str]:
    """Step 3: the intra/inter ratio of the two pictures (lower = tight, well separated classes)."""
    factor = ratio_skew / ratio_iid if ratio_iid else float("nan")
    return [
        "Each point is a test image placed by the global model's embedding, coloured by its class.",
        f"At the last snapshot the intra/inter class distance ratio is {ratio_skew:.2f} with {alpha_label(alpha)} "
        f"(round {round_skew}) against {ratio_iid:.2f} with {alpha_label(alpha_iid)} (round {round_iid}): "
        f"spread relative to separation is {factor:.1f}× the {alpha_label(alpha_iid)} value"
        + (" — that is collapse." if factor >= COLLAPSE_FACTOR else
           " — a mild effect in this data." if factor > 1 else " — no collapse in this data."),
    ]


def measuring_sentences(ratio_table, erank_table, method: str = "fedavg") -> list[str]:
    """Step 4: how the ratio and the effective rank move from the weakest to the strongest skew.

    Tables as ``study_figures.aggregate(points, ["method", "alpha"], [metric])`` gives them, rows in
    alpha order (strongest skew first, IID last)."""
    def ends(table, metric):
        part = table[(table["method"] == method) & (table[f"{metric}_n"] > 0)]
        if part.empty:
            return None
        part = part.assign(_o=[float("inf") if a is None or a != a else a for a in part["alpha"]]).sort_values("_o")
        first, last = part.iloc[0], part.iloc[-1]
        return alpha_label(first["alpha"]), float(first[f"{metric}_mean"]), alpha_label(last["alpha"]), \
            float(last[f"{metric}_mean"])
    r, e = ends(ratio_table, "final_ratio"), ends(erank_table, "effective_rank")
    if r is None or e is None:
        return [f"No {method} runs to measure."]
    return [
        f"Two numbers measure it. FedAvg's intra/inter ratio goes from {r[3]:.2f} at {r[2]} to {r[1]:.2f} at {r[0]}.",
        f"Its effective rank (how many directions the embedding really uses) goes from {e[3]:.1f} to {e[1]:.1f}: "
        + ("fewer directions under skew (dimensional collapse)." if e[1] < e[3] else
           "here skew does not reduce the directions used."),
    ]


def holds_sentences(fedavg: dict, fedquad: dict, alpha) -> list[str]:
    """Step 6: the same partition and seed, FedAvg vs FedQuad (dicts with ratio, acc, erank)."""
    better = fedquad["ratio"] < fedavg["ratio"]
    return [
        f"Same split ({alpha_label(alpha)}), same seed: FedQuad's intra/inter ratio is {fedquad['ratio']:.2f} "
        f"against FedAvg's {fedavg['ratio']:.2f} ({'tighter, better separated classes' if better else 'no better here'}).",
        f"Test accuracy {fedquad['acc']:.1%} vs {fedavg['acc']:.1%}; effective rank {fedquad['erank']:.1f} vs "
        f"{fedavg['erank']:.1f}.",
    ]


def price_sentences(cost: dict, lt3: int, n_clients: int, overlap_at: list[str], all_x: list[str],
                    alpha, n_seeds: int = 2) -> list[str]:
    """Step 7: compute at the same rounds, the clients FedQuad cannot serve fully, and the seed spread.

    ``cost[method] = (samples processed, wall seconds)``; ``overlap_at``: alpha labels where the two
    methods' mean ± std accuracy bands overlap (``study_figures.band_overlaps``, also marked grey
    on the figure); ``n_seeds``: the fewest seeds behind a band."""
    (sa, ta), (sq, tq) = cost["fedavg"], cost["fedquad"]
    out = [f"At {alpha_label(alpha)} FedQuad processed {sq:,.0f} samples in {_secs(tq)}, FedAvg {sa:,.0f} in "
           f"{_secs(ta)}: {sq / sa:.2f}× the samples and {tq / ta:.2f}× the time for the same rounds.",
           f"{lt3} of {n_clients} clients {'holds' if lt3 == 1 else 'hold'} fewer than 3 classes: there FedQuad cannot form a full quadruplet "
           "(2 classes: the second term drops out; 1 class: cross-entropy alone)."]
    if n_seeds < 2:
        out.append("Seed spread: only one seed per point here, so there is no spread to compare; "
                   "run more seeds before trusting a difference.")
    elif overlap_at:
        where = "every α shown" if len(overlap_at) == len(all_x) else ", ".join(overlap_at)
        out.append(f"Seed spread: the accuracy bands (mean ± std over seeds) overlap at {where} (grey columns); "
                   "there the difference between the methods is within seed noise.")
    else:
        out.append("Seed spread: the accuracy bands (mean ± std over seeds) do not overlap at any α shown.")
    return out


