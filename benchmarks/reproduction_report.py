"""benchmarks/REPRODUCTION.md from benchmarks/reproduction.json (written by reproduce.py).

Published numbers stand beside what was measured; a cell with no finished run in the published
setting says "not run yet". Shorter runs (smoke tests, partial runs) and time estimates have tables of their own, labelled."""
from __future__ import annotations

import statistics


def _acc(values: list[float]) -> str:
    pct = [100 * v for v in values]
    return f"{pct[0]:.1f}" if len(pct) == 1 else f"{statistics.mean(pct):.1f} ± {statistics.stdev(pct):.1f}"


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def _geometry(r: dict) -> tuple[str, str]:
    """The last geometry snapshot's ratio (with its round) and effective rank, "—" where a row lacks them."""
    geo = f"{r['final_ratio']:.3f} (round {r['geometry_round']})" if r.get("final_ratio") is not None else "—"
    rank = "—" if r.get("final_effective_rank") is None else f"{r['final_effective_rank']:.1f}"
    return geo, rank


def _setting(name: str, s: dict, sgd: dict) -> str:
    return (f"{s['num_clients']} clients, Dirichlet {s['alpha']}, {s['model']}, {s['local_epochs']} local epochs, "
            f"{s['rounds']} rounds, participation {s['participation']}, lr {sgd['lr']}, batch {sgd['batch_size']}, "
            f"momentum {sgd['momentum']}, weight decay {sgd['weight_decay']}, no augmentation")


def render_report(results: dict, published: dict, settings: dict, sgd: dict) -> str:
    runs, est = results.get("runs", []), results.get("estimates", [])
    out = ["# Reproducing the published numbers", "",
           "Written by `benchmarks/reproduce.py` from `benchmarks/reproduction.json`; do not edit by hand.", "",
           "## Settings", ""]
    out += [f"- **{name}**: {_setting(name, s, sgd)}." for name, s in settings.items()]
    out += ["", "## Final test accuracy (%): published vs measured here", "",
            "| data set | method | published | source | measured (mean ± std over seeds) | measured − published | seeds | wall time | command |",
            "|---|---|---|---|---|---|---|---|---|"]
    for (dataset, method), (value, source) in published.items():
        done = [r for r in runs if (r["dataset"], r["method"], r["kind"], r["state"]) ==
                (dataset, method, "reproduction", "finished")]
        pub = "—" if value is None else f"{value:.2f}".rstrip("0").rstrip(".")
        if done:
            seeds = ", ".join(str(r["seed"]) for r in done)
            wall = f"{statistics.mean(r['wall_s'] for r in done) / 3600:.1f} h a run ({done[0]['machine']})"
            accs = [r["final_accuracy"] for r in done]
            gap = None if value is None else round(100 * statistics.mean(accs) - value, 1)
            diff = "—" if gap is None else ("0.0" if gap == 0 else f"{gap:+.1f}")
            out.append(f"| {dataset} | {method} | {pub} | {source} | {_acc(accs)} | {diff} | "
                       f"{seeds} | {wall} | `{done[-1]['command']}` |")
        else:
            out.append(f"| {dataset} | {method} | {pub} | {source} | not run yet | — | — | — | — |")
    full = [r for r in runs if r["kind"] == "reproduction" and r["state"] == "finished"]
    if full:
        marks = sorted({int(k) for r in full for k in r.get("accuracy_at", {})} - {1})
        out += ["", "### Each run in the published setting", "",
                "Test accuracy (%) at the final round, the best round, and a few rounds on the way; the last "
                "geometry snapshot's intra/inter-class distance ratio (lower = tighter classes) and effective "
                "rank of the embedding.", "",
                "| data set | method | seed | final | best | " + " | ".join(f"round {m}" for m in marks)
                + " | ratio | effective rank | wall time | run |",
                "|---|---|---|---|---|" + "---|" * len(marks) + "---|---|---|---|"]
        for r in full:
            at = r.get("accuracy_at", {})
            cells = [_pct(r["final_accuracy"]), _pct(r.get("best_accuracy"))] + [_pct(at.get(str(m))) for m in marks]
            geo, rank = _geometry(r)
            out.append(f"| {r['dataset']} | {r['method']} | {r['seed']} | " + " | ".join(cells)
                       + f" | {geo} | {rank} | {r['wall_s'] / 3600:.2f} h | `{r['run_id']}` |")
    smoke = [r for r in runs if r["kind"] == "smoke" or r["state"] != "finished"]
    out += ["", "## Shorter runs and smoke tests (NOT the published setting)", "",
            "Fewer rounds or local epochs, a training subset, or a run that did not finish: not comparable with "
            "the published numbers. A smoke test only shows that the script runs; a run of the published setting "
            "cut to fewer rounds can be compared with the full runs above at the same round.", ""]
    if smoke:
        out += ["| data set | method | seed | state | rounds | local epochs | train subset | final accuracy (%) | ratio "
                "| effective rank | wall time (s) | command |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in smoke:
            done = r.get("rounds_done", r["rounds"])
            rounds = r["rounds"] if done == r["rounds"] else f"{done} of {r['rounds']}"
            geo, rank = _geometry(r)
            out.append(f"| {r['dataset']} | {r['method']} | {r['seed']} | {r['state']} | {rounds} | "
                       f"{r['local_epochs']} | {r['train_subset'] or 'all'} | {_pct(r['final_accuracy'])} | {geo} | "
                       f"{rank} | {r['wall_s']} | `{r['command']}` |")
    else:
        out.append("None recorded.")
    out += ["", "## Time estimates (extrapolated, NOT measured end to end)", "",
            "One local epoch of client 0 of the real setting was timed per method; a round is estimated as that "
            "time per sample x all clients' samples x participation x local epochs, trained one client after "
            "another on one thread (evaluation not included). The build machine's 2 cores are shared with other "
            "jobs, so these times are rough; the wall times of the runs measured above are the better guide.", ""]
    if est:
        out += ["| data set | method | timed (client 0, 1 epoch) | estimate per round | estimate for the whole run | machine | command |",
                "|---|---|---|---|---|---|---|"]
        for e in est:
            out.append(f"| {e['dataset']} | {e['method']} | {e['timed_s']} s for {e['timed_samples']} samples | "
                       f"about {e['round_s_estimate'] / 60:.0f} min | about {e['run_h_estimate']} h | {e['machine']}, "
                       f"{e['threads']} thread(s) | `{e['command']}` |")
    else:
        out.append("None recorded.")
    return "\n".join(out) + "\n"
