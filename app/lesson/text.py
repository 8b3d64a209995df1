"""The lesson's sentences. Each ``*_sentences`` function takes the numbers a step shows and returns
its sentences, so a regenerated study changes the text: no number here is written in advance.

Every sentence that states a direction or a difference gets it from a ``Verdict`` of the engine's
one seed-noise decision (``engine.stats.compare``: a paired t-test when the groups share their seeds,
Welch's otherwise, a 95 % confidence interval of the difference over seeds, and an equivalence
test against the measure's smallest effect of interest) through ``effect``: a direction word only
when the interval excludes 0, "negligible" when the difference is shown inside ±δ, "inconclusive
with n seeds" otherwise, "one seed: no test possible" below two seeds. The values compared are
the claims table's (each run's mean over its last rounds or snapshots), and where a step shows a
comparison the table also makes, its sentence quotes the table's verdict for that row. Each
function carries an ``example`` (``@sentences``): the lesson test feeds every function
overlapping, separated and one-seed verdicts through it and fails on an effect claimed inside the
noise."""
from __future__ import annotations

import contextlib
import contextvars
from typing import Callable

import numpy as np

from fedquad_core import api as engine
from app.lesson.data import alpha_words

NOISE_WORDS = "inconclusive with {seeds}: the 95 % CI of the difference includes 0, {p}"

# The words a verdict wrote while a step was built (``collecting``): the phrase test strips them from
# the step's text and fails on a result phrase (``engine.RESULT_PHRASES``) that is left.
_SAID: contextvars.ContextVar[list | None] = contextvars.ContextVar("lesson_said", default=None)


def said(words: str) -> str:
    """``words``, written from a verdict object or a verdict's template: noted for the phrase test."""
    out = _SAID.get()
    if out is not None:
        out.append(words)
    return words


@contextlib.contextmanager
def collecting():
    """The list of every ``said`` fragment while the block runs."""
    out: list[str] = []
    token = _SAID.set(out)
    try:
        yield out
    finally:
        _SAID.reset(token)


def takeaway(verdict: str, claim: str, quals: list[str] | None = None) -> str:
    """A step's takeaway from a verdict (``engine.words.takeaway``'s template)."""
    return said(engine.words.takeaway(verdict, claim, quals))


def row_takeaway(row, claims: list | None = None) -> str:
    """A step's takeaway from the claims-table row it rests on; a row that checks another row's
    claim again ("(the same, on Fashion-MNIST ...)") says that row's claim (``claims``: the table)."""
    claim = claims[row.same_as - 1].text if row.same_as and claims else engine.words.claim_words(row.text)
    first = claim.split()[0] if claim.split() else ""
    if first[1:] == first[1:].lower() and first.isalpha():  # "Under ...", not "FedQuad ...", after the colon
        claim = claim[0].lower() + claim[1:]
    return said(engine.words.row_takeaway(row, claim))


def fact(sentence: str) -> str:
    """A takeaway stating a fact of the data shown (no verdict): at most ``engine.words.MAX_WORDS`` words."""
    if engine.words.word_count(sentence) > engine.words.MAX_WORDS:
        raise ValueError(f"a takeaway of {engine.words.word_count(sentence)} words: {sentence}")
    return sentence


def sentences(example: Callable[[Callable], dict]):
    """Mark a sentence function and give the lesson test its arguments: ``example(make)`` returns
    the keyword arguments, ``make(centre, spread)`` one Verdict in the test's band setting."""
    def mark(fn):
        fn.example = example
        return fn
    return mark


def _effect(v: engine.Verdict, up: str, down: str, pct: bool = False) -> str:
    """How a compared difference reads: ``up`` / ``down`` (a above / below b) only beyond seed noise;
    ``negligible`` when the equivalence test puts it inside the smallest effect of interest."""
    if v.separated and v.delta is not None and abs(v.test.diff) < v.delta:
        return (f"beyond seed noise but under the smallest effect of interest, ±{_delta(v, pct)} "
                f"({engine.words.p_words(v.test.p)}, {v.seeds})")
    if v.separated:
        return f"{up if v.direction > 0 else down}, beyond seed noise ({engine.words.p_words(v.test.p)}, {v.seeds})"
    if v.state == engine.Verdict.NEGLIGIBLE:
        return f"negligible: inside ±{_delta(v, pct)} (equivalence {engine.words.p_words(v.tost_p)}, {v.seeds})"
    if v.state == engine.Verdict.NOISE:
        return NOISE_WORDS.format(seeds=v.seeds, p=engine.words.p_words(v.test.p))
    if v.state == engine.Verdict.ONE_SEED:
        return engine.Verdict.ONE_SEED
    return "not measured here"


def effect(v: engine.Verdict, up: str, down: str, pct: bool = False) -> str:
    return said(_effect(v, up, down, pct))


def table_effect(v: engine.Verdict, row: tuple | None, up: str, down: str, pct: bool = False) -> str:
    """How a compared difference reads when the claims table makes the same comparison (``row``:
    ``data.table_row``'s (row, verdict, robust, Holm p)): the table's verdict, Holm-adjusted, never a
    second one computed here; a direction word only with a directional verdict. Without a row,
    ``effect``."""
    if not row:
        return effect(v, up, down, pct)
    number, verdict, robust, p_holm = (tuple(row) + (None,))[:4]
    head = f"{up if v.direction > 0 else down}: " if verdict in ("supported", "not supported") else ""
    p = f"Holm-adjusted {engine.words.p_words(p_holm)}, " if p_holm is not None else ""
    sure = "" if robust is None else "robust; " if robust else "not robust; "
    return said(f"{head}the claims table, row {number}: {verdict} ({sure}{p}{v.seeds})")


def _delta(v: engine.Verdict, pct: bool) -> str:
    """The smallest effect of interest in the sentence's unit: ``1 point`` or ``0.5``."""
    return engine.words.delta_points(v.delta) if pct else f"{v.delta:.3g}"


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
        f"The same {n} clients, two ways of splitting the data: with {alpha_words(alpha_iid)} a client holds "
        f"{held['iid'].mean():.1f} classes on average, with {alpha_words(alpha)} {held['skew'].mean():.1f}.",
        f"At {alpha_words(alpha)}, {lt3['skew']} of {n} clients {'holds' if lt3['skew'] == 1 else 'hold'} at most 2 "
        f"classes ({alpha_words(alpha_iid)}: {lt3['iid']}); each of them trains on the classes it holds only.",
    ]


def skew_takeaway(counts_iid, counts_skew, alpha, alpha_iid=None) -> str:
    """Step 1's takeaway: a fact of the two partitions (no verdict)."""
    held = {k: (np.asarray(c) > 0).sum(axis=1) for k, c in (("iid", counts_iid), ("skew", counts_skew))}
    few = {k: int((v < 3).sum()) for k, v in held.items()}
    return fact(f"At {alpha_words(alpha)}, {few['skew']} of {len(held['skew'])} clients hold at most two classes; at "
                f"{alpha_words(alpha_iid)}, {few['iid']} {'does' if few['iid'] == 1 else 'do'}.")


# Step 5's takeaway: the loss's idea (a fact of the method, no verdict)
IDEA_TAKEAWAY = fact("FedQuad pulls each anchor closer to a same-class positive than to two negatives from two other "
                     "classes, by margins m1 and m2.")


def claims_takeaway(claims: list[dict]) -> str:
    """Step 8's takeaway: how many of the paper's claims got each verdict (the verdicts' own words)."""
    verdicts = [c["verdict"] for c in claims]
    counts = ", ".join(f"{verdicts.count(v)} {v}" for v in dict.fromkeys(verdicts))
    return said(fact(f"Of the paper's {len(claims)} claims checked on these runs: {counts}."))


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
        f"At {alpha_words(alpha)} a local model scores {own} on the test points of its own classes"
        + (f" (each at least {100 * hold:.3g} % of its data)" if hold else "") + f" and {every} on "
        f"all classes: {effect(own_vs_all, 'higher on its own classes', 'lower on its own classes')}.",
        f"On all classes: {skew} at {alpha_words(alpha)} against {iid} at {alpha_words(alpha_iid)}: "
        f"{effect(all_skew_vs_iid, 'higher under skew', 'lower under skew')}"
        + (" — each client's model forgets the classes its client does not hold." if forgets else "."),
    ]


# ---- step 3: do the clients agree? -------------------------------------------------------------
def _ex_drift(make):
    return dict(cosine=make(0.2, 0.03), cka=make(0.8, 0.03), alpha=0.1, alpha_iid=None)


@sentences(_ex_drift)
def drift_sentences(cosine, cka, alpha, alpha_iid, cka_row: tuple | None = None) -> list[str]:
    """Step 3: the cosine between clients' weight updates and the local-vs-global CKA, skew vs IID
    (``cka_row``: the claims-table row making the CKA comparison, whose verdict it states)."""
    (cs, ci), (ks, ki) = _pair(cosine), _pair(cka)
    apart = cosine.direction < 0 and cka.direction < 0
    return [
        "Two measures of agreement: the cosine between two clients' weight updates (1 = the same direction, "
        "0 = unrelated) and the linear CKA between a local model's and the round's global model's test "
        "embeddings (1 = the same representation up to rotation and scale).",
        f"Update cosine {cs} at {alpha_words(alpha)} against {ci} at {alpha_words(alpha_iid)}: "
        f"{effect(cosine, 'higher under skew', 'lower under skew')}.",
        f"CKA to the global model {ks} against {ki}: {table_effect(cka, cka_row, 'higher under skew', 'lower under skew')}"
        + (" — under skew the clients pull apart." if apart and not cka_row else "."),
    ]


# ---- steps 2 and 3: the figures' FedQuad band ---------------------------------------------------
def _ex_band(make):
    return dict(items=[("local accuracy on all classes", make(0.6, 0.02), True), ("local CKA", make(0.8, 0.02), False)],
                alpha=0.1)


@sentences(_ex_band)
def fedquad_band_sentences(items: list, alpha) -> list[str]:
    """Steps 2 and 3 tell FedAvg's story, and their figures draw FedQuad's band beside it: one
    sentence says what that band shows (``items``: (measure, Verdict FedQuad vs FedAvg at
    ``alpha``, in percent?))."""
    if not items:
        return []
    parts = []
    for name, v, pct in items:
        a, b = _pair(v, pct=pct)
        parts.append(f"{name} {a} against FedAvg's {b} "
                     f"({effect(v, 'higher with FedQuad', 'lower with FedQuad', pct)})")
    return [f"The figures' second band is FedQuad, at {alpha_words(alpha)}: " + "; ".join(parts) + " (step 6 "
            "returns to FedQuad)."]


# ---- step 4: the average model --------------------------------------------------------------------
def _ex_global(make):
    return dict(final=make(6.0, 0.3), levels=[(0.6, make(7.0, 0.3)), (0.7, make(7.5, 0.3))], alpha=0.1,
                alpha_iid=None)


def table_words(row: tuple | None) -> str:
    """``; the claims table, row 6: supported (not robust)`` from (row, verdict, robust?), or ''."""
    if not row:
        return ""
    number, verdict, robust = tuple(row)[:3]
    return said(f" — the claims table, row {number}: {verdict}" + ("" if robust is None else
                                                                   " (robust)" if robust else " (not robust)"))


@sentences(_ex_global)
def global_sentences(final, levels, alpha, alpha_iid, table: dict | None = None) -> list[str]:
    """Step 4: FedAvg's global effective rank, skew vs IID, at equal rounds (each run's mean of its
    last snapshots, as the claims table) and at matched accuracy (``levels``: (accuracy level,
    Verdict) pairs, each run's snapshot curve interpolated at the level), what the levels say
    together, and what each figure compares; ``table``: the claims table's rows for the same two
    comparisons ("final", "matched": (row, verdict, robust or None)), quoted where given."""
    table = table or {}
    fs, fi = _pair(final)
    out = [
        f"The global model's effective rank (how many directions its embedding really uses) at equal rounds, "
        f"each run's mean over its last snapshots: {fs} at {alpha_words(alpha)} against {fi} at "
        f"{alpha_words(alpha_iid)}: {table_effect(final, table.get('final'), 'higher under skew', 'lower under skew')}"
        + ".",
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
    matched = table_words(table.get("matched"))
    if len(dirs) > 1:
        out.append("The levels disagree, so no conclusion is drawn at matched accuracy" + matched + ".")
    elif dirs == {-1}:
        out.append("At the same accuracy the averaged model uses fewer directions under skew at every level: that "
                   "is dimensional collapse, not only slower training" + matched + ".")
    elif dirs == {1}:
        out.append("At the same accuracy the skewed model's rank is higher at every level: the gap at equal rounds "
                   "is not a collapse" + matched + ".")
    elif all(v.negligible for _, v in levels):
        out.append("At the same accuracy the ranks are equal within the smallest effect of interest at every "
                   "level: the gap at equal rounds is one of training, not of collapse" + matched + ".")
    else:
        out.append("No level shows a difference, and not every level shows the ranks equal within the smallest "
                   "effect of interest: what the gap at equal rounds is made of stays open here" + matched + ".")
    out.append("Left: rank against α (equal rounds); middle: rank against test accuracy (equal accuracy); right: "
               "the final round's spectra (equal rounds, not equal accuracy).")
    return out


def rank_caption(profiles: dict[str, list[dict]]) -> str:
    """What the rank-against-accuracy figure shows, per data set, from its numbers (``profiles``:
    data set -> ``engine.stats.accuracy_profile`` rows): for each group, its rank at the lowest and at the
    highest accuracy level its runs share, and whether it changes with training beyond seed noise
    (the group's values at the two levels compared)."""
    head = ("Each run's snapshots interpolated at the same test accuracy (mean over seeds, band ± 1 std): a gap "
            "at equal rounds that closes here was slower training, not collapse.")
    said = []
    for dataset, profile in profiles.items():
        groups: dict[str, list[dict]] = {}
        for row in profile:
            if row.get("mean") is not None and row.get("n"):
                groups.setdefault(row["group"], []).append(row)
        parts = []
        for group, rows in groups.items():
            rows = sorted(rows, key=lambda r: r["accuracy"])
            lo, hi = rows[0], rows[-1]
            if lo is hi:
                continue
            v = engine.stats.compare_summary(hi["mean"], hi["std"], hi["n"], lo["mean"], lo["std"], lo["n"])
            parts.append(f"{group} {lo['mean']:.2f} at {lo['accuracy']:.0%} accuracy, {hi['mean']:.2f} at "
                         f"{hi['accuracy']:.0%} ({effect(v, 'rising with training', 'falling with training')})")
        if parts:
            said.append(f"On {dataset}: " + "; ".join(parts) + ".")
    if not said:
        return head
    return (head + " How the rank moves with training is measured, not assumed, per data set. " + " ".join(said))


# ---- step 6: what FedQuad changes --------------------------------------------------------------
NAMES = engine.words.metric_names("words")  # the measures' names in a sentence, from the one vocabulary


def _pct(metric: str) -> bool:
    return metric.endswith("acc") or metric.startswith("local_acc")


def _ex_fedquad(make):
    return dict(best=dict(study="digits-local", where="α=0.1, 1 local epoch", metric="local_acc_all",
                          verdict=make(0.9, 0.01), iid=make(0.95, 0.01), did=make(0.1, 0.01).test, tested=15,
                          p_holm=0.002),
                local={"local_effective_rank": make(5.0, 0.2), "local_cka": make(0.8, 0.02)},
                local_iid={"local_effective_rank": make(6.0, 0.2)},
                levels=[(0.6, make(7.0, 0.3)), (0.7, make(7.5, 0.3))], alpha=0.1, alpha_iid=None, alpha_global=0.1,
                epochs="10 local epochs")


def _vs(metric: str, v, where: str, row: tuple | None = None) -> str:
    a, b = _pair(v, pct=_pct(metric))
    return f"{a} against {b} {where}({table_effect(v, row, 'higher with FedQuad', 'lower with FedQuad', _pct(metric))})"


@sentences(_ex_fedquad)
def fedquad_sentences(best: dict | None, local: dict, local_iid: dict, levels: list, alpha, alpha_iid, alpha_global,
                      epochs: str = "", rows: dict | None = None) -> list[str]:
    """Step 6: FedQuad against FedAvg on the same partitions and seeds. ``best``: FedQuad's strongest
    effect (``strongest``: study, where, metric, verdict at skew, iid verdict, did: the
    difference-in-differences, tested: how many comparisons it was chosen among, p_holm), or None;
    ``local`` / ``local_iid``: metric -> Verdict at the strongest skew / at IID; ``levels``: the
    global rank at matched accuracy, (level, Verdict) pairs; ``rows``: metric -> the claims-table
    row making ``local``'s comparison (its verdict is the one stated). One sentence per figure, then
    what is and is not beyond seed noise."""
    rows = rows or {}
    out = []
    if best:
        m, v = best["metric"], best["verdict"]
        shown = v.separated and v.direction > 0 and best["p_holm"] < 0.05
        out.append(
            (f"FedQuad's largest effect in accuracy in the recorded local-model studies, chosen by the numbers among "
             f"{best['tested']} comparisons with FedAvg (Holm-adjusted {engine.words.p_words(best['p_holm'])}): "
             if shown else f"Chosen by the numbers among {best['tested']} comparisons with FedAvg: ")
            + f"'{best['study']}' at {best['where']}, {NAMES.get(m, m)} {_vs(m, v, '')}.")
        iid, did = best.get("iid"), best.get("did")
        if iid is not None and did is not None:
            apart = did.low > 0 or did.high < 0
            out.append(f"At {alpha_words(alpha_iid)} the two score {_vs(m, iid, '')}; the difference between the "
                       f"two gaps (skew minus IID, seed by seed) is {did.diff * 100:+.1f} points, 95 % CI "
                       f"{did.low * 100:.1f} to {did.high * 100:.1f}, {engine.words.p_words(did.p)}"
                       + (said(" — the gap is larger under skew than at IID: FedQuad's local models keep more of the "
                               "classes their client does not hold.") if apart and did.diff > 0 and shown else "."))
    figures = []
    if "local_effective_rank" in local:
        iid = local_iid.get("local_effective_rank")
        figures.append(f"Local effective rank ({epochs}): {_vs('local_effective_rank', local['local_effective_rank'], f'at {alpha_words(alpha)} ', rows.get('local_effective_rank'))}"
                       + (f", {_vs('local_effective_rank', iid, f'at {alpha_words(alpha_iid)} ')}" if iid is not None else ""))
    if levels:
        figures.append(f"global rank at matched accuracy ({alpha_words(alpha_global)}): " + "; ".join(
            f"at {level:.1%} {_vs('effective_rank', v, '')}" for level, v in levels))
    if figures:
        out.append("; ".join(figures)[0].upper() + "; ".join(figures)[1:] + ".")
    every = {**{NAMES.get(m, m): v for m, v in local.items()},
             **({f"global rank at {levels[0][0]:.0%}-{levels[-1][0]:.0%} accuracy": _all(levels)} if levels else {})}
    shown = {m: (rows[k][1] in ("supported", "not supported")) if k in rows else (v is not None and v.separated)
             for k, (m, v) in zip([*local, "levels"], every.items())}
    beyond = [m for m, ok in shown.items() if ok]
    inside = [m for m, ok in shown.items() if not ok]
    out.append(f"Beside it, at {alpha_words(alpha)}, a difference from FedAvg is shown for: "
               + (", ".join(beyond) or "none of these") + "; none is shown for: " + (", ".join(inside) or "none") + ".")
    return out[:4]


def _all(levels: list):
    """One Verdict standing for several levels: the first level's when every level is beyond seed
    noise in the same direction, else None (not beyond it)."""
    dirs = {v.direction for _, v in levels}
    return levels[0][1] if len(dirs) == 1 and 0 not in dirs else None


# ---- step 7: the price ---------------------------------------------------------------------------
def _ex_price(make):
    return dict(samples={0: 1.5, 1: 1.5, 2: 1.52}, times={0: 0.66, 1: 1.2, 2: 1.37}, time=make(30.0, 2.0), lt3=3,
                n_clients=10, accuracy=[("α=0.1", make(0.8, 0.01)), ("IID", make(0.9, 0.01))], alpha=0.1,
                demo=dict(study="digits-alpha", alpha=0.1, samples={0: 1.9, 1: 2.2}, rounds=make(0.9, 0.01),
                          equal_samples=make(0.85, 0.01)))


def _range(ratios: dict) -> str:
    lo, hi = min(ratios.values()), max(ratios.values())
    return f"{lo:.2f}×" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}-{hi:.2f}×"


@sentences(_ex_price)
def price_sentences(samples: dict, times: dict, time, lt3: int, n_clients: int, accuracy: list, alpha,
                    demo: dict | None = None, rows: dict | None = None) -> list[str]:
    """Step 7: the compute for the same rounds from every seed (``samples`` / ``times``: seed ->
    FedQuad's over FedAvg's samples processed / wall time; ``time``: the Verdict of FedQuad's wall
    time against FedAvg's, seed by seed), the clients FedQuad cannot serve fully, the accuracy per
    alpha (``accuracy``: (alpha label, Verdict FedQuad vs FedAvg)), and the one-minute demo
    reconciled (``demo``, ``price.demo_comparison``: on its recorded study, FedQuad against FedAvg at
    equal rounds and at equal samples, and the samples ratio); ``rows``: the claims-table rows
    making the same accuracy comparisons (an α label, or "demo" -> the row), whose verdicts are
    the ones stated."""
    rows = rows or {}
    t = _pair(time, ".1f")
    out = [f"For the same rounds at {alpha_words(alpha)}, FedQuad processed {_range(samples)} FedAvg's samples "
           f"(exact counts, {len(samples)} seed{'s' if len(samples) != 1 else ''}) and took {_range(times)} its wall "
           f"time ({t[0]} s against {t[1]} s: {effect(time, 'longer with FedQuad', 'shorter with FedQuad')}; wall "
           "time on a shared machine varies from run to run).",
           f"{lt3} of {n_clients} clients {'holds' if lt3 == 1 else 'hold'} at most 2 classes: there FedQuad cannot "
           "form a full quadruplet (2 classes: the second term is left out; 1 class: cross-entropy alone)."]
    if accuracy:
        out.append("Final accuracy (mean of the last 10 rounds), FedQuad against FedAvg: " + "; ".join(
            f"{x}: {_pair(v, pct=True)[0]} against {_pair(v, pct=True)[1]} "
            f"({table_effect(v, rows.get(x), 'higher with FedQuad', 'lower with FedQuad', True)})" for x, v in accuracy)
            + ".")
    if demo is not None:
        r, e = _pair(demo["rounds"], pct=True), _pair(demo["equal_samples"], pct=True)
        out.append(f"The one-minute demo (\"Collapse in one minute\", recorded as '{demo['study']}') compares at equal "
                   f"rounds: at {alpha_words(demo['alpha'])} FedQuad {r[0]} against FedAvg {r[1]} "
                   f"({table_effect(demo['rounds'], rows.get('demo'), 'higher with FedQuad', 'lower with FedQuad', True)}), "
                   f"having processed "
                   f"{_range(demo['samples'])} the samples; at equal samples (FedQuad when it had processed FedAvg's "
                   f"total, against FedAvg's last round) {e[0]} against {e[1]} "
                   f"({effect(demo['equal_samples'], 'higher with FedQuad', 'lower with FedQuad', True)}).")
    return out


# ---- step 8: the paper's claims ------------------------------------------------------------------
def _ex_claims(make):
    return dict(claims=[{"verdict": "supported", "rows": [1, 2]}, {"verdict": "inconclusive", "rows": [3]},
                        {"verdict": "not run here", "rows": [4]}, {"verdict": "not run here", "rows": [5]}])


@sentences(_ex_claims)
def claims_sentences(claims: list[dict]) -> list[str]:
    """Step 8: how the table decides, and how many of the paper's claims each verdict got
    (``claims``: ``ClaimsTable.verdicts()``, one entry per claim, several table rows each)."""
    rows = sum(len(c["rows"]) for c in claims)
    verdicts = [c["verdict"] for c in claims]
    counts = {v: verdicts.count(v) for v in dict.fromkeys(verdicts)}
    return ["Each claim of the FedQuad paper, the recorded study that tests it here, the numbers (mean ± std "
            "over seeds, each run's mean over its last rounds or snapshots), the test (paired t when the compared "
            "runs share their seeds, else Welch's), the difference with its 95 % confidence interval (not "
            "corrected), its p-value Holm-corrected across the table's tested rows, and a verdict: supported or not "
            "when the corrected p is below 0.05 and the difference is at least the measure's smallest effect of "
            f"interest ({engine.words.delta_margins()}), negligible when an equivalence test "
            "puts it inside that margin, else inconclusive (`fedquad study claims` prints the full table).",
            f"Of {len(claims)} claims, checked in {rows} rows (a claim with several rows counts once; \"mixed\" when "
            "its rows disagree): " + ", ".join(f"{n} {v}" for v, n in counts.items()) + "."]
