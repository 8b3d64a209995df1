"""The lesson as data: nine steps, each a title and a builder that turns the recorded studies
(``LessonData``: ``digits-local`` for the local models, ``fmnist-skew`` for the global one, or the
user's own study) into sentences (``app.lesson.text``, computed from the numbers shown, every
difference checked against the seed bands) and one to three figures. The story: label skew ->
each client's model after local training -> do the clients agree -> the averaged model across
alpha (at the final round and at matched accuracy) -> FedQuad's idea -> what it changes, locally
and globally -> the price -> the paper's claims, checked -> what the registered claims make of fresh seeds
(``app.lesson.confirmation``).
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
from fedquad_core.api import stats, words
from app.figures.accuracy import metric_vs_accuracy_figure, profile_frame
from app.lesson.data import (ROLES, LessonData, Missing, StoreError, alpha_words, claims_of, strongest_local, table_result,
                             table_row)
from app.lesson.figures import (LABELS, PAIR, claims_figure, claims_summary_figure, first_seed, local_client_item, most_local_epochs,
                                require_run, response, response_item, spectra, spectra_table, values, versus)
from app.lesson import price as price_data
from app.lesson.confirmation import add_confirmation, step_confirmed
from app.lesson.strongest import strongest_effect

NOT_RUN = "not run here"  # the claims table's verdict for a paper result no study here repeats

__all__ = ["STEPS", "Slide", "SlideFigure", "Missing", "build_step", "step_idea", "response"]


# ---- the steps -------------------------------------------------------------------------------
MATCHED_Y = "rank at matched accuracy"


def _footer(d: LessonData, extra: str = "") -> str:
    return f"{d.settings()} · skew shown: {alpha_words(d.skew_alpha())}" + (f" · {extra}" if extra else "")


def _local(data: LessonData) -> tuple[LessonData, dict]:
    """The local-model study and the local epochs shown (the most the study has)."""
    d = data.role("local")
    if not any(v is not None for v in values_any(d, "local_acc_all")):
        raise Missing(f"the runs of study '{d.study.get('name')}' have no local-model metrics (runs recorded before "
                      "the engine measured local models, or with --local-clients 0): rerun the study")
    return d, most_local_epochs(d)


def values_any(d: LessonData, key: str) -> list:
    return [d.final(r, key) for r in d.runs()[:4]]


def _rests_on(d: LessonData, metric: str, a: dict, b: dict, v, expect: str, claim: str, matched: bool = False) -> str:
    """The step's takeaway: the claims-table row making this comparison (its Holm-adjusted verdict
    and qualifiers), else the step's own Verdict ``v`` judged for a claim that a is ``expect`` of b
    (the user's own runs)."""
    found = table_result(d, metric, a, b, matched)
    if found is not None:
        return text.row_takeaway(found[1], claims_of(d))
    return text.takeaway(stats.judge(v, expect), claim)


def step_skew(data: LessonData, talk: bool) -> Slide:
    d = data.role("local")
    skew, iid, seed = d.skew_alpha(), d.iid_alpha(), first_seed(d)
    counts = {}
    for a in (iid, skew):
        part = d.partition(require_run(d, alpha=a, seed=seed)) or {}
        if "counts" not in part:
            raise Missing(f"the {alpha_words(a)} run has no partition.json")
        counts[a] = np.asarray(part["counts"])
    figs = [SlideFigure(f"partition_{alpha_words(a)}", partition_heatmap(c, title=f"{alpha_words(a)}: clients × classes",
                                                                      talk=talk),
                       pd.DataFrame(c).rename_axis("client").reset_index()) for a, c in counts.items()]
    return Slide("1 · Label skew", text.skew_sentences(counts[iid], counts[skew], skew, iid) + _study_sentence(data, d),
                 figs, _footer(d), takeaway=text.skew_takeaway(counts[iid], counts[skew], skew, iid))


def _study_sentence(data: LessonData, d: LessonData) -> list[str]:
    """Which recorded study steps 1-3 and 6 tell the local models from, and why (chosen by the numbers)."""
    if data.source != "recorded":
        return []
    name, why = strongest_local(data.root, data.studies)
    why = text.said(why)  # the reason is a Verdict's words (strongest_local)
    return [f"Steps 1-3 and 6 use the recorded study '{name}' ({why}); step 4 uses "
            f"'{ROLES['global']}'" + (" too." if name == ROLES["global"] else ".")]


def step_forget(data: LessonData, talk: bool) -> Slide:
    d, at = _local(data)
    skew, iid = d.skew_alpha(), d.iid_alpha()
    epochs = at.get("local_epochs", d.base("local_epochs", 1))
    where = f", {epochs:g} epochs" if at else ""
    a_item, _ = response_item(d, "local_acc_all", PAIR, f"On all classes{where}",
                              "local_acc_all_vs_alpha", talk, at)
    o_item, _ = response_item(d, "local_acc_own", PAIR, f"On own classes{where}",
                              "local_acc_own_vs_alpha", talk, at)
    items = [a_item, o_item]
    rid = d.run(alpha=skew, method="fedavg", seed=first_seed(d), **at)
    picture = local_client_item(d, rid, talk) if rid else None
    if picture is not None:
        items.append(picture)
    fa = dict(method="fedavg", **at)
    own_vs_all = stats.compare(values(d, "local_acc_own", alpha=skew, **fa), values(d, "local_acc_all", alpha=skew, **fa),
                               stats.smallest_effect("local_acc_all"))
    all_skew = versus(d, "local_acc_all", dict(alpha=skew, **fa), dict(alpha=iid, **fa))
    try:
        classes = (d.partition(rid) or {}).get("num_classes") if rid else None
    except StoreError:  # a damaged partition file: the sentence leaves the share out
        classes = None
    hold = stats.hold_share(classes) if isinstance(classes, int) and classes > 0 else None
    band = [(f"local accuracy on {w} classes", versus(d, m, dict(alpha=skew, method="fedquad", **at),
                                                      dict(alpha=skew, method="fedavg", **at)), True)
            for w, m in (("all", "local_acc_all"), ("own", "local_acc_own"))]
    lead = text.takeaway(stats.judge(all_skew, "below"), "under label skew, each client's local model scores lower on "
                                                         "all classes than at IID")
    return Slide("2 · Each client's model after local training",
                 text.forget_sentences(own_vs_all, all_skew, skew, iid, epochs, hold)
                 + text.fedquad_band_sentences(band, skew), items, _footer(d, "FedAvg's numbers"), takeaway=lead,
                 rests_on="local_acc_all_vs_alpha")


def step_drift(data: LessonData, talk: bool) -> Slide:
    d, at = _local(data)
    skew, iid = d.skew_alpha(), d.iid_alpha()
    where = f", {at['local_epochs']:g} epochs" if at else ""
    c_item, _ = response_item(d, "update_cosine", PAIR, f"Update cosine{where}",
                              "update_cosine_vs_alpha", talk, at)
    k_item, _ = response_item(d, "local_cka", PAIR, f"Local–global CKA{where}", "local_cka_vs_alpha", talk, at)
    items = [c_item, k_item]
    if at:
        e_item, _ = response_item(d, "local_cka", PAIR, f"CKA vs local epochs, {alpha_words(skew)}",
                                  "local_cka_vs_epochs", talk, {"alpha": skew}, "local_epochs")
        few, most = min(d.axis("local_epochs")), max(d.axis("local_epochs"))
        v = versus(d, "local_cka", {"alpha": skew, "method": "fedavg", "local_epochs": most},
                   {"alpha": skew, "method": "fedavg", "local_epochs": few})
        a, b = v.text(".3f")
        e_item.caption = (f"FedAvg's local–global CKA at {alpha_words(skew)} with {most:g} local epochs, {a}, against "
                          f"{few:g}, {b}: {text.effect(v, 'higher with more local epochs', 'lower with more local epochs')}.")
        items.append(e_item)
    fa = dict(method="fedavg", **at)
    verdict = {m: versus(d, m, dict(alpha=skew, **fa), dict(alpha=iid, **fa)) for m in ("update_cosine", "local_cka")}
    band = [(name, versus(d, m, dict(alpha=skew, method="fedquad", **at), dict(alpha=skew, method="fedavg", **at)), False)
            for name, m in (("update cosine", "update_cosine"), ("CKA", "local_cka"))]
    a, b = dict(alpha=skew, **fa), dict(alpha=iid, **fa)
    lead = _rests_on(d, "local_cka", a, b, verdict["local_cka"], "below",
                     "Under label skew, local representations drift from the global one")
    return Slide("3 · Do the clients agree?", text.drift_sentences(verdict["update_cosine"], verdict["local_cka"], skew,
                                                                   iid, table_row(d, "local_cka", a, b))
                 + text.fedquad_band_sentences(band, skew), items, _footer(d, "FedAvg's numbers"), takeaway=lead,
                 rests_on="local_cka_vs_alpha")


def step_global(data: LessonData, talk: bool) -> Slide:
    d = data.role("global")
    skew, iid = d.skew_alpha(), d.iid_alpha()
    f_item, _ = response_item(d, "effective_rank", ("fedavg",), "Rank, last snapshots",
                              "effective_rank_vs_alpha", talk)
    a_item = accuracy_item(d, "effective_rank", "Rank against accuracy", "effective_rank_vs_accuracy", talk,
                           others=_other_datasets(data, d))
    per_alpha = spectra(d, ("fedavg",))
    spec = SlideFigure("spectra_fedavg", sf.spectra_across_figure(per_alpha, title="Spectra, last snapshot",
                                                                 talk=talk), spectra_table(per_alpha))
    a, b = {"alpha": skew, "method": "fedavg"}, {"alpha": iid, "method": "fedavg"}
    final = versus(d, "effective_rank", a, b)
    m = stats.matched_comparison(d, a, b, "effective_rank", paired=stats.pairable(a, b))
    levels = list(zip(m.levels, m.verdicts))
    where = ", ".join(f"{x:.1%}" for x in m.levels) or "none"
    rows = {"final": table_row(d, "effective_rank", a, b), "matched": table_row(d, "effective_rank", a, b, True)}
    claim = "Under label skew, the aggregated global embedding space collapses"
    lead = (text.row_takeaway(table_result(d, "effective_rank", a, b, True)[1], claims_of(d)) if rows["matched"] else
            _rests_on(d, "effective_rank", a, b, final, "below", claim))
    return Slide("4 · The averaged model across α", text.global_sentences(final, levels, skew, iid, rows),
                 [f_item, a_item, spec], _footer(d, f"matched accuracy levels {where} (interpolated)"), takeaway=lead,
                 rests_on="effective_rank_vs_accuracy" if rows["matched"] else "effective_rank_vs_alpha")


def _groups(d: LessonData, method: str = "fedavg", methods=None) -> dict:
    """The bands of a rank-against-accuracy figure: one per α of ``method``, or one per method of
    ``methods`` at the strongest skew."""
    if methods:
        return {LABELS[m]: {"alpha": d.skew_alpha(), "method": m} for m in methods}
    return {f"{LABELS[method]}, {alpha_words(a)}": {"alpha": a, "method": method} for a in d.axis("alpha")}


OTHER_DATASET = ("digits-alpha", "digits-local")  # recorded studies on another data set than fmnist-skew


def _other_datasets(data: LessonData, shown: LessonData) -> list[LessonData]:
    """The first recorded study of ``OTHER_DATASET`` on another data set than ``shown``'s (the
    rank-against-accuracy caption measures both), or none (the user's own runs)."""
    for name in OTHER_DATASET if data.source == "recorded" else ():
        study = data.studies.get(name)
        if study and (study.get("base") or {}).get("dataset") != shown.base("dataset"):
            return [LessonData(data.root, study, data.source, data._runs, notices=data.notices, studies=data.studies)]
    return []


def accuracy_item(d: LessonData, metric: str, title: str, name: str, talk: bool, method: str = "fedavg",
                  methods=None, others=()) -> SlideFigure:
    """``metric`` against test accuracy, one band per α of ``method`` (or per method of ``methods``
    at the strongest skew); the caption says how the metric moves with training on this data set
    (and on each of ``others``', measured the same way)."""
    groups = _groups(d, method, methods)
    colours = {g: c["method"] for g, c in groups.items()}
    profile = stats.accuracy_profile(d, groups, metric)
    frame = profile_frame(profile)
    y_title = sf.METRIC_TITLES.get(metric, metric)
    fig = metric_vs_accuracy_figure(frame, y_title, title, colours, talk=talk)
    profiles = {f"{d.base('dataset', '?')} ('{d.study.get('name')}')": profile}
    for o in others:
        profiles[f"{o.base('dataset', '?')} ('{o.study.get('name')}', {alpha_words(o.skew_alpha())} and "
                 f"{alpha_words(o.iid_alpha())})"] = stats.accuracy_profile(
            o, {f"{LABELS[method]}, {alpha_words(a)}": {"alpha": a, "method": method, **most_local_epochs(o)}
                for a in (o.skew_alpha(), o.iid_alpha())}, metric)
    return SlideFigure(name, fig, frame, text.rank_caption(profiles))


def step_idea(data: LessonData | None, talk: bool, m1: float = quad.DEFAULT_M1, m2: float = quad.DEFAULT_M2,
              points: dict | None = None) -> Slide:
    points = points or quad.PRESETS[quad.DEFAULT_PRESET]
    items = [SlideFigure(f"quadruplet_{form}", quad.quadruplet_figure(points, m1, m2, form, talk=talk),
                        pd.DataFrame(quad.quadruplet_table(points, m1, m2, form))) for form in quad.FORMS]
    q, c = quad.quadruplet(points, m1, m2, "fedquad"), quad.quadruplet(points, m1, m2, "chen")
    sentences = ["FedQuad adds a quadruplet term to each client's loss: the anchor must be closer to a same-class "
                 "positive than to two negatives of two other classes, by margins m1 and m2."] \
        + quad.term_sentences(q, m1, m2)[:1] + quad.term_sentences(c, m1, m2)[:1]
    return Slide("5 · FedQuad's idea", sentences, items, takeaway=text.IDEA_TAKEAWAY, per_page=2)


def _strongest_item(data: LessonData, best, talk: bool) -> tuple[list, str]:
    """([the figure of FedQuad's strongest effect across α], where it was measured: ", N local epochs")."""
    where = f", {best.at['local_epochs']:g} local epoch{'s' if best.at['local_epochs'] != 1 else ''}" if best.at else ""
    study = data.studies[best.study]
    sd = data if study is data.study else LessonData(data.root, study, data.source, data._runs,
                                                      notices=data.notices, studies=data.studies)
    item, _ = response_item(sd, best.metric, PAIR, f"Strongest: {text.NAMES.get(best.metric, best.metric)}{where}",
                            f"{best.metric}_fedquad_strongest", talk, best.at)
    return [item], where


def _fedquad_local(data: LessonData) -> tuple:
    """The local side of step 6: (its study's data, the setting it is read at, FedQuad against
    FedAvg in the local rank at the skewed α and at IID, the two α, the footer's local part, "N
    local epochs"); the user's study without local metrics: the global side only (empty values)."""
    try:
        d, at = _local(data)
        skew_l, iid_l = d.skew_alpha(), d.iid_alpha()
        epochs = f"{at.get('local_epochs', d.base('local_epochs', 1)):g} local epochs"
        local = {k: versus(d, k, dict(alpha=skew_l, method="fedquad", **at), dict(alpha=skew_l, method="fedavg", **at))
                 for k in ("local_effective_rank",)}  # the step's figures: the local rank (no CKA figure here)
        local_iid = {"local_effective_rank": versus(d, "local_effective_rank", dict(alpha=iid_l, method="fedquad", **at),
                                                    dict(alpha=iid_l, method="fedavg", **at))}
    except Missing:
        return None, {}, {}, {}, None, None, "", ""
    return d, at, local, local_iid, skew_l, iid_l, f"local: {_footer(d)} · global: ", epochs


def _fedquad_lead(d, g: LessonData, at: dict, local: dict, skew_l, skew_g, m) -> tuple[dict, str]:
    """(the claims-table rows step 6's sentences cite, its takeaway): the local rank's row where the
    study has local metrics, else the global rank at matched accuracy (``m``)."""
    if local:
        la, lb = dict(alpha=skew_l, method="fedquad", **at), dict(alpha=skew_l, method="fedavg", **at)
        rows = {"local_effective_rank": table_row(d, "local_effective_rank", la, lb)}
        return rows, _rests_on(d, "local_effective_rank", la, lb, local["local_effective_rank"], "above",
                               "FedQuad mitigates collapse in the local models")
    ga, gb = {"alpha": skew_g, "method": "fedquad"}, {"alpha": skew_g, "method": "fedavg"}
    matched_row = table_result(g, "effective_rank", ga, gb, True)
    every = text._all(list(zip(m.levels, m.verdicts))) if m.levels else None
    return {}, (text.row_takeaway(matched_row[1], claims_of(g)) if matched_row else
                text.takeaway(stats.judge(every, "above") if every is not None else "inconclusive",
                              "FedQuad mitigates collapse in the global model"))


def step_fedquad(data: LessonData, talk: bool) -> Slide:
    g = data.role("global")
    skew_g = g.skew_alpha()
    d, at, local, local_iid, skew_l, iid_l, local_footer, epochs = _fedquad_local(data)
    m = stats.matched_comparison(g, {"alpha": skew_g, "method": "fedquad"}, {"alpha": skew_g, "method": "fedavg"},
                                 "effective_rank")
    best = strongest_effect(data)
    items, where = _strongest_item(data, best, talk) if best is not None else ([], "")  # FedQuad's strongest first
    if local:
        item, _ = response_item(d, "local_effective_rank", PAIR, f"Local rank, {epochs}",
                                "local_effective_rank_fedquad_vs_fedavg", talk, at)
        items.append(item)
    items.append(accuracy_item(g, "effective_rank", f"Globally: rank against accuracy, {alpha_words(skew_g)}",
                               "effective_rank_matched_both", talk, methods=PAIR))
    best_words = None if best is None else dict(
        study=best.study, where=f"{alpha_words(best.alpha)}{where}", metric=best.metric, verdict=best.verdict,
        iid=best.iid, did=best.did, tested=best.tested, p_holm=best.p_holm)
    rows, lead = _fedquad_lead(d, g, at, local, skew_l, skew_g, m)
    sentences = text.fedquad_sentences(best_words, local, local_iid, list(zip(m.levels, m.verdicts)), skew_l, iid_l,
                                       skew_g, epochs, {k: v for k, v in rows.items() if v})
    levels = ", ".join(f"{x:.1%}" for x in m.levels) or "none"
    return Slide("6 · What FedQuad changes", sentences, items[:3],
                 local_footer + _footer(g, f"matched accuracy levels {levels}"), takeaway=lead,
                 rests_on="local_effective_rank_fedquad_vs_fedavg" if local else "effective_rank_matched_both")


def step_price(data: LessonData, talk: bool) -> Slide:
    d = data.role("global")
    skew, seed = d.skew_alpha(), first_seed(d)
    ids = {m: require_run(d, alpha=skew, method=m, seed=seed) for m in PAIR}
    df = metrics_frame({r: d.metrics(r) for r in ids.values()},
                       {r: {"label": LABELS[m], "method": m} for m, r in ids.items()})
    cost_fig = curves_figure(df, "test_accuracy", "samples_total", title=f"Accuracy vs samples processed, "
                                                                          f"{alpha_words(skew)}, seed {seed}", talk=talk)
    cost = price_data.cost(d, skew)
    if cost is None:
        raise Missing("the runs' metrics lack samples_total / elapsed")
    acc_item, _ = response_item(d, "final_acc", PAIR, "Final accuracy vs α (last 10 rounds), mean ± std over seeds",
                                "accuracy_vs_alpha_bands", talk)
    counts = np.asarray((d.partition(ids["fedquad"]) or {}).get("counts", [[0]]))
    lt3 = int(((counts > 0).sum(axis=1) < 3).sum())
    accuracy = [(alpha_words(x), versus(d, "final_acc", {"alpha": x, "method": "fedquad"}, {"alpha": x, "method": "fedavg"}))
                for x in d.axis("alpha")]
    demo = price_data.demo_comparison(data)
    fq, fa = {"alpha": skew, "method": "fedquad"}, {"alpha": skew, "method": "fedavg"}
    rows = {alpha_words(skew): table_row(d, "final_acc", fq, fa)}
    if demo is not None:
        dd = LessonData(data.root, data.studies[demo["study"]], data.source, data._runs, notices=data.notices,
                        studies=data.studies)
        rows["demo"] = table_row(dd, "final_acc", {"alpha": demo["alpha"], "method": "fedquad"},
                                 {"alpha": demo["alpha"], "method": "fedavg"})
    sentences = text.price_sentences(cost["samples"], cost["times"], cost["time"], lt3, len(counts), accuracy, skew,
                                     demo, {k: v for k, v in rows.items() if v})
    found = table_result(d, "final_acc", fq, fa)
    at_skew = dict(accuracy).get(alpha_words(skew))
    if found is not None:
        lead = text.row_takeaway(found[1], claims_of(d))
    else:  # the user's own runs: no table row; FedQuad's extra work per round said when it differs
        more = max(cost["samples"].values(), default=1.0) > 1.05
        lead = text.takeaway(stats.judge(at_skew, "above") if at_skew is not None else "not run here",
                             "FedQuad is ahead of FedAvg under skew", ["at equal rounds; FedQuad processed more samples"]
                             if more else None)
    items = [SlideFigure("accuracy_vs_samples", cost_fig, df[["label", "round", "samples_total", "elapsed",
                                                             "test_accuracy"]],
                         "One seed's two runs against the samples each has processed: at the same round FedQuad has "
                         "processed more, so a gap at equal rounds is read here at equal samples."), acc_item]
    return Slide("7 · The price and the limits", sentences, items, _footer(d), takeaway=lead,
                 rests_on="accuracy_vs_alpha_bands")


_CHECKS = {"the test before Holm's correction": "before Holm", "± 2 std bands at every level": "± 2 std",
           "± 2 std bands": "± 2 std", "the final round alone": "final round",
           "its study is still climbing": "not at a plateau", "its study is still changing": "still changing",
           "the comparison at matched accuracy": "matched accuracy", "confounded by training": "confounded by training"}


def _short_robustness(text_: str) -> str:
    """``robust``, or ``no: <the checks that disagree>`` (the claims table in full: docs/claims.md,
    ``fedquad study claims``)."""
    if not text_.startswith("not robust: "):
        return text_
    named = [short for long, short in _CHECKS.items() if long in text_ and not (long == "± 2 std bands" and
                                                                               "at every level" in text_)]
    # a reason without a short name is kept whole: "no:" alone would hide why
    return "no: " + (", ".join(dict.fromkeys(named)) or text_.removeprefix("not robust: "))


def _one_line_not_run(claims: list[dict]) -> list[dict]:
    """The summary's lines: the paper's results on data sets not run here (CIFAR-10, ...) as one line,
    so the summary fits one slide (each in full: docs/claims.md)."""
    rest = [c for c in claims if c["verdict"] != NOT_RUN]
    off = [c for c in claims if c["verdict"] == NOT_RUN]
    if len(off) < 2:
        return claims
    names = [c["text"].split(": ", 1)[-1].split(",")[0] for c in off]
    return rest + [{"rows": [r for c in off for r in c["rows"]], "verdict": NOT_RUN,
                    "text": f"The paper's results on {', '.join(names)} (docs/claims.md)"}]


def step_claims(data: LessonData, talk: bool) -> Slide:
    results = claims_of(data)
    table = pd.DataFrame([{"#": i, "claim": r.text, "study": r.study,
                           "measure": r.measure.split(" (")[0].split(",")[0]
                           + (", matched accuracy" if "matched accuracy" in r.measure else ""),
                           "test": r.test.split(";")[0],
                           "difference (95 % CI)": r.difference,
                           "p (Holm)": words.p_value(r.p_holm), "verdict": r.verdict
                           + (" (still changing)" if r.changing else ""),
                           "robust": _short_robustness(r.robustness)} for i, r in enumerate(results, start=1)])
    for r in results:  # the table's cells are the rows' own words
        text.said(r.text), text.said(r.robustness), text.said(_short_robustness(r.robustness))
    claims = results.verdicts()
    # the compact summary, one line per claim: on the projector (talk mode) and in the deck, where it
    # is the claims table's one slide (the full table: docs/claims.md); the full table on the screen
    short = _one_line_not_run(claims)
    summary = [SlideFigure("paper_claims_summary", claims_summary_figure(short, talk), deck_only=not talk,
                           data=pd.DataFrame([{"rows": ", ".join(map(str, c["rows"])), "claim": c["text"],
                                               "verdict": c["verdict"]} for c in short]))]
    for c in short:
        text.said(c["text"])
    return Slide("8 · The paper's claims, checked", text.claims_sentences(claims),
                 summary + [SlideFigure("paper_claims", claims_figure(table, talk), table, screen_only=True)],
                 f"{data.source} studies in {data.root.name or data.root} · paired t on shared seeds (else Welch), "
                 "Holm-corrected, smallest effects of interest, equivalence tests · every row: docs/claims.md",
                 takeaway=text.claims_takeaway(claims))


STEPS: list[tuple[str, Callable[[LessonData, bool], Slide]]] = [
    ("Label skew", step_skew), ("Each client's model after local training", step_forget),
    ("Do the clients agree?", step_drift), ("The averaged model across α", step_global), ("FedQuad's idea", step_idea),
    ("What FedQuad changes", step_fedquad), ("The price and the limits", step_price),
    ("The paper's claims, checked", step_claims), ("Confirmed on fresh seeds?", step_confirmed),
]


# What each step's main figure shows, in one line: on a projector (talk mode) it stands above the
# figure and the step's sentences, numbers and p-values follow under it. It says what is drawn,
# never a result (the sentences, from the numbers, say those).
LEADS = {
    1: "Who holds what: each client's class counts at IID and under label skew.",
    2: "Each client's model right after local training, tested on all classes and on its own.",
    3: "How far the clients' updates and representations agree, from label skew to IID.",
    4: "The averaged model's embedding: its effective rank across α and against accuracy.",
    5: "The quadruplet: anchor, positive, two negatives from two different classes, margins m1 and m2.",
    6: "FedQuad against FedAvg: its largest measured effect first, then the local and global rank.",
    7: "What FedQuad costs: accuracy against the samples processed, and final accuracy across α.",
    8: "The paper's claims as the recorded runs judge them: one line per claim, the full table below.",
    9: "The registered claims, run again on fresh seeds and judged by rules fixed before their runs.",
}


def build_step(i: int, data: LessonData | None, talk: bool = False, problem: str | None = None) -> Slide:
    """Step ``i`` (1-based) from ``data``; when data or a run is missing, a Slide that says
    what to run instead (never an exception)."""
    title, builder = STEPS[i - 1]
    if builder not in (step_idea, step_confirmed) and data is None:
        return Slide(f"{i} · {title}", problem=problem or "no study loaded")
    try:
        with text.collecting() as said:
            content = builder(data, talk)
            add_confirmation(content, i)
        content.verdict_words = list(dict.fromkeys(said))
    except Missing as e:
        return Slide(f"{i} · {title}", problem=str(e), notices=sorted(getattr(data, "notices", ())))
    except StoreError as e:  # a damaged run file the step cannot do without: one line, not an exception box
        return Slide(f"{i} · {title}", problem=str(e), notices=sorted(getattr(data, "notices", ())))
    content.notices = sorted(getattr(data, "notices", ()))
    content.lead = content.lead or LEADS.get(i, "")
    if builder is step_idea:
        content.footer = "FedQuad loss, Göksu & Pugeault 2025; quadruplet loss, Chen et al. 2017"
    return content
