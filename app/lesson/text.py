"""The lesson's sentences. Each ``*_sentences`` function takes the numbers a step shows and returns
its sentences, so a regenerated study changes the text: no number here is written in advance.

Every sentence that states a direction or a difference gets it from a ``Verdict`` of the engine's
one seed-noise decision (``engine.compare``: Welch's test, a 95 % confidence interval of the
difference over seeds) through ``effect``: a direction word only when the interval excludes 0,
"inconclusive with n seeds" where it contains 0, "one seed: no test possible" below two seeds. Each function carries an ``example`` (``@sentences``): the
lesson test feeds every function overlapping, separated and one-seed verdicts through it and
fails on an effect claimed inside the noise."""
from __future__ import annotations

from typing import Callable

import numpy as np

from app import engine
from app.lesson.data import alpha_label

NOISE_WORDS = "inconclusive with {seeds}: the 95 % CI of the difference includes 0, {p}"


def sentences(example: Callable[[Callable], dict]):
    """Mark a sentence function and give the lesson test its arguments: ``example(make)`` returns
    the keyword arguments, ``make(centre, spread)`` one Verdict in the test's band setting."""
    def mark(fn):
        fn.example = example
        return fn
    return mark


def effect(v: engine.Verdict, up: str, down: str) -> str:
    """How a compared difference reads: ``up`` / ``down`` (a above / below b) only beyond seed noise."""
    if v.separated:
        return f"{up if v.direction > 0 else down}, beyond seed noise ({engine.p_text(v.test.p)}, {v.seeds})"
    if v.state == engine.NOISE:
        return NOISE_WORDS.format(seeds=v.seeds, p=engine.p_text(v.test.p))
    if v.state == engine.ONE_SEED:
        return engine.ONE_SEED
    return "not measured here"


def _pair(v: engine.Verdict, spec: str = ".2f", pct: bool = False) -> tuple[str, str]:
    a, b = v.text(".1f", 100.0) if pct else v.text(spec)
    return (a + " %", b + " %") if pct else (a, b)


def _secs(t: float) -> str:
    return f"{t:.1f} s" if t < 10 else f"{t:.0f} s"


# ---- step 1 -------------------------------------------------------------------------------------
def _ex_skew(make):
    return dict(counts_iid=np.full((4, 10), 5), counts_skew=np.eye(4, 10, dtype=int) * 20, alpha=0.1, alpha_iid=None)


@sentences(_ex_skew)
def skew_sentences(counts_iid, counts_skew, alpha, alpha_iid=None) -> list[str]:
    """Step 1: classes per client, and the clients holding at most 2 classes, at both splits (facts
    of the partition, not measurements over seeds)."""
    held = {k: (np.asarray(c) > 0).sum(axis=1) for k, c in (("iid", counts_iid), ("skew", counts_skew))}
    n = len(held["skew"])
    lt3 = {k: int((v < 3).sum()) for k, v in held.items()}
    return [
        f"The same {n} clients, two ways of splitting the data: with {alpha_label(alpha_iid)} a client holds "
        f"{held['iid'].mean():.1f} classes on average, with {alpha_label(alpha)} {held['skew'].mean():.1f}.",
        f"At {alpha_label(alpha)}, {lt3['skew']} of {n} clients {'holds' if lt3['skew'] == 1 else 'hold'} at most 2 "
        f"classes ({alpha_label(alpha_iid)}: {lt3['iid']}); each of them trains on the classes it holds only.",
    ]


# ---- step 2: each client's model after local training ------------------------------------------
def _ex_forget(make):
    return dict(own_vs_all=make(0.8, 0.02), all_skew_vs_iid=make(0.5, 0.02), alpha=0.1, alpha_iid=None, epochs=10,
                hold=0.02)


@sentences(_ex_forget)
def forget_sentences(own_vs_all, all_skew_vs_iid, alpha, alpha_iid, epochs, hold=None) -> list[str]:
    """Step 2: the local models' accuracy on the classes their client holds vs on all classes (at
    skew), and on all classes at skew vs IID; ``hold``: the share of a client's data from which a
    class is its own (the engine's holding rule), said when known."""
    own, every = _pair(own_vs_all, pct=True)
    skew, iid = _pair(all_skew_vs_iid, pct=True)
    forgets = own_vs_all.direction > 0 and all_skew_vs_iid.direction < 0
    return [
        f"Each client trains {epochs:g} local epoch{'s' if epochs != 1 else ''} from the global model; its local "
        "model is then tested before averaging (mean over the measured clients, then mean ± std over seeds).",
        f"At {alpha_label(alpha)} a local model scores {own} on the test points of its own classes"
        + (f" (each at least {100 * hold:.3g} % of its data)" if hold else "") + f" and {every} on "
        f"all classes: {effect(own_vs_all, 'higher on its own classes', 'lower on its own classes')}.",
        f"On all classes: {skew} at {alpha_label(alpha)} against {iid} at {alpha_label(alpha_iid)}: "
        f"{effect(all_skew_vs_iid, 'higher under skew', 'lower under skew')}"
        + (" — each client's model forgets the classes its client does not hold." if forgets else "."),
    ]


# ---- step 3: do the clients agree? -------------------------------------------------------------
def _ex_drift(make):
    return dict(cosine=make(0.2, 0.03), cka=make(0.8, 0.03), alpha=0.1, alpha_iid=None)


@sentences(_ex_drift)
def drift_sentences(cosine, cka, alpha, alpha_iid) -> list[str]:
    """Step 3: the cosine between clients' weight updates and the local-vs-global CKA, skew vs IID."""
    (cs, ci), (ks, ki) = _pair(cosine), _pair(cka)
    apart = cosine.direction < 0 and cka.direction < 0
    return [
        "Two measures of agreement: the cosine between two clients' weight updates (1 = the same direction, "
        "0 = unrelated) and the linear CKA between a local model's and the round's global model's test "
        "embeddings (1 = the same representation up to rotation and scale).",
        f"Update cosine {cs} at {alpha_label(alpha)} against {ci} at {alpha_label(alpha_iid)}: "
        f"{effect(cosine, 'higher under skew', 'lower under skew')}.",
        f"CKA to the global model {ks} against {ki}: {effect(cka, 'higher under skew', 'lower under skew')}"
        + (" — under skew the clients pull apart." if apart else "."),
    ]


# ---- step 4: the average model --------------------------------------------------------------------
def _ex_global(make):
    return dict(final=make(6.0, 0.3), levels=[(0.6, make(7.0, 0.3)), (0.7, make(7.5, 0.3))], alpha=0.1,
                alpha_iid=None)


@sentences(_ex_global)
def global_sentences(final, levels, alpha, alpha_iid) -> list[str]:
    """Step 4: FedAvg's global effective rank, skew vs IID, at the final round and at matched
    accuracy (``levels``: (accuracy level, Verdict) pairs, each run's snapshot curve interpolated
    at the level), and what each figure compares."""
    fs, fi = _pair(final)
    out = [
        f"The global model's effective rank (how many directions its embedding really uses) at the final round: "
        f"{fs} at {alpha_label(alpha)} against {fi} at {alpha_label(alpha_iid)}: "
        f"{effect(final, 'higher under skew', 'lower under skew')}.",
    ]
    if not levels:
        out.append("No accuracy range is crossed by every run between snapshots, so the runs cannot be compared "
                   "at matched accuracy here.")
        return out
    parts = []
    for level, v in levels:
        a, b = _pair(v)
        parts.append(f"at {level:.1%} {a} against {b} ({effect(v, 'higher under skew', 'lower under skew')})")
    out.append("At matched accuracy instead (each run's snapshot curve interpolated at the same test accuracy): "
               + "; ".join(parts) + ".")
    dirs = {v.direction for _, v in levels}
    if dirs == {-1}:
        out.append("At the same accuracy the averaged model uses fewer directions under skew at every level: that "
                   "is dimensional collapse, not only slower training.")
    elif final.direction < 0 and -1 not in dirs:
        out.append("The final-round gap does not hold at the same accuracy: it is a less trained model, "
                   "not a collapsed one.")
    elif len(dirs) > 1:
        out.append("The levels disagree, so no conclusion is drawn at matched accuracy.")
    out.append("Left: rank at the final round across α (equal rounds); middle: rank against test accuracy (equal "
               "accuracy); right: the final round's spectra (equal rounds, not equal accuracy).")
    return out


# ---- step 6: what FedQuad changes --------------------------------------------------------------
NAMES = {"local_effective_rank": "local effective rank", "local_cka": "local CKA to the global model",
         "local_acc_all": "local accuracy on all classes", "effective_rank": "global effective rank",
         "ratio": "global intra / inter ratio", "final_acc": "final test accuracy"}


def _ex_fedquad(make):
    return dict(local={"local_effective_rank": make(5.0, 0.2), "local_cka": make(0.8, 0.02)},
                global_={"effective_rank": make(7.0, 0.3), "final_acc": make(0.8, 0.01)}, alpha=0.1,
                alpha_global=0.1, threshold=0.7)


@sentences(_ex_fedquad)
def fedquad_sentences(local: dict, global_: dict, alpha, alpha_global, threshold) -> list[str]:
    """Step 6: FedQuad against FedAvg on the same partitions and seeds (verdicts FedQuad vs FedAvg,
    keyed by metric; the global geometry at matched accuracy ``threshold``)."""
    def part(metric, v):
        a, b = _pair(v, pct=metric.endswith("acc") or metric.startswith("local_acc"))
        return f"{NAMES.get(metric, metric)} {a} against {b} ({effect(v, 'higher with FedQuad', 'lower with FedQuad')})"
    out = []
    if local:
        out.append(f"Locally ({alpha_label(alpha)}, the local models before averaging), FedQuad against FedAvg: "
                   + "; ".join(part(m, v) for m, v in local.items()) + ".")
    if global_:
        out.append(f"Globally ({alpha_label(alpha_global)}; geometry at matched accuracy {threshold:.0%}): "
                   + "; ".join(part(m, v) for m, v in global_.items()) + ".")
    every = {**{NAMES.get(m, m): v for m, v in local.items()}, **{NAMES.get(m, m): v for m, v in global_.items()}}
    beyond = [m for m, v in every.items() if v.separated]
    inside = [m for m, v in every.items() if not v.separated]
    out.append("Beyond seed noise here: " + (", ".join(beyond) or "none of these")
               + "; not beyond it: " + (", ".join(inside) or "none") + ".")
    return out


# ---- step 7: the price ---------------------------------------------------------------------------
def _ex_price(make):
    return dict(cost={"fedavg": (1000.0, 2.0), "fedquad": (1500.0, 3.0)}, lt3=3, n_clients=10,
                accuracy=[("α=0.1", make(0.8, 0.01)), ("IID", make(0.9, 0.01))], alpha=0.1)


@sentences(_ex_price)
def price_sentences(cost: dict, lt3: int, n_clients: int, accuracy: list, alpha) -> list[str]:
    """Step 7: compute at the same rounds, the clients FedQuad cannot serve fully, and the accuracy
    per alpha (``accuracy``: (alpha label, Verdict FedQuad vs FedAvg)); ``cost[method] = (samples
    processed, wall seconds)`` of one seed's run at ``alpha``."""
    (sa, ta), (sq, tq) = cost["fedavg"], cost["fedquad"]
    out = [f"At {alpha_label(alpha)} FedQuad processed {sq:,.0f} samples in {_secs(tq)}, FedAvg {sa:,.0f} in "
           f"{_secs(ta)}: {sq / sa:.2f}× the samples and {tq / ta:.2f}× the time for the same rounds.",
           f"{lt3} of {n_clients} clients {'holds' if lt3 == 1 else 'hold'} at most 2 classes: there FedQuad cannot "
           "form a full quadruplet (2 classes: the second term is left out; 1 class: cross-entropy alone)."]
    if accuracy:
        out.append("Final accuracy, FedQuad against FedAvg: " + "; ".join(
            f"{x}: {_pair(v, pct=True)[0]} against {_pair(v, pct=True)[1]} "
            f"({effect(v, 'higher with FedQuad', 'lower with FedQuad')})" for x, v in accuracy) + ".")
    return out


# ---- step 8: the paper's claims ------------------------------------------------------------------
def _ex_claims(make):
    return dict(verdicts=["supported", "inconclusive", "not run here", "not run here"])


@sentences(_ex_claims)
def claims_sentences(verdicts: list[str]) -> list[str]:
    """Step 8: how many of the paper's claims each verdict got (the table is the figure)."""
    counts = {v: verdicts.count(v) for v in dict.fromkeys(verdicts)}
    return ["Each claim of the FedQuad paper, the recorded study that tests it here, the numbers (mean ± std "
            "over seeds), the difference with its 95 % confidence interval (Welch's test, Holm-corrected across "
            "the table) and a verdict: supported or not only when the interval excludes 0, else inconclusive "
            "(`fedquad study claims` prints the same table).",
            f"Of {len(verdicts)} claims: " + ", ".join(f"{n} {v}" for v, n in counts.items()) + "."]
