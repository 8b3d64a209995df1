"""``fedquad study run | list | show | claims``: the command line of studies (``fedquad_core.study``)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from ..config.alpha import alpha_text
from ..config.numbers import NumberError, parse_float
from ..errors import UserError
from ..runs import preflight_file
from ..runs.store import RunStore
from ..study import StudySpec, StudyStore, parse_axes, parse_grid, run_study
from ..study.confirm import check_confirmatory
from ..study.confirm_text import confirm_markdown
from ..study.paper_claims import check_claims, claims_markdown, unused_studies
from ..study.matched import matched_accuracy
from ..study.stopping import request_study_cancel
from ..study.store import DamagedStudy, check_name
from ..study.table import METRICS as STUDY_METRICS, mean_std_text, response_table, slider_axes, study_frame
from ..version import engine_fingerprint
from ..vocab.metrics import METRICS, column_labels
from ..safe_io import one_line
from .args import add_run_options, config_from_args, int_in, nonempty, read_json_file
from .tables import print_table

METRIC_LABELS = column_labels(STUDY_METRICS)  # the study table's measures and their column heads (vocab.metrics)
DEFAULT_METRICS = ("final_acc", "best_acc", "final_ratio", "effective_rank")


def _accuracy(text: str):
    if text == "auto":
        return text
    try:
        value = parse_float(text.rstrip("%"))
    except NumberError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number: give an accuracy in 0-1 or a percent") from None
    value = value / 100 if value > 1 else value
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give an accuracy above 0 and at most 1 (or 100 %)")
    return value


def _metrics(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in METRIC_LABELS]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(METRIC_LABELS)} (comma list)")
    return names


def add_study_parser(sub, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("study", help="a named grid of runs, computed once: study run | list | show | claims",
                       description="A study is a named grid of runs over run settings, stored beside the runs. "
                                   "A point whose exact settings already have a finished run (from any study or "
                                   "`fedquad run`) reuses it; rerunning a study resumes it.")
    ssub = p.add_subparsers(dest="study_command", required=True, metavar="STUDY_COMMAND")
    _add_run_parser(ssub, common)
    c = ssub.add_parser("cancel", parents=[common], help="stop a running study as Ctrl-C does (no new point; "
                        "running points stop after their round)")
    c.add_argument("name")
    ssub.add_parser("list", parents=[common], help="the studies in the store and how many points are done")
    _add_show_parser(ssub, common)
    _add_claims_parsers(ssub, common)


def _add_run_parser(ssub, common: argparse.ArgumentParser) -> None:
    """``study run``: the grid, the study file, how it runs, and every run option the points share."""
    r = ssub.add_parser("run", parents=[common], help="run (or resume) a study's missing points",
                        description="Run a study's grid in background processes, --jobs at a time. Every axis is a "
                                    "run setting or method parameter (alpha with 'iid', clients, participation, "
                                    "method, seed, m1, m2, beta, ...); flags below set what all points share.")
    r.add_argument("name", help="study name (letters, digits, '.', '_', '-')")
    r.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2",
                   help="one axis, e.g. --grid alpha=0.05,0.1,iid --grid method=fedavg,fedquad --grid seed=0,1,2")
    r.add_argument("--file", type=nonempty("--file"), help="JSON study file: {\"title\", \"description\", \"base\": {RunConfig keys}, "
                                  "\"axes\": {key: [values]}}; flags and --grid override it")
    r.add_argument("--title", help="title shown in the dashboard")
    r.add_argument("--description", help="one or two sentences shown in the dashboard")
    r.add_argument("--jobs", type=int_in(1, 1024), help="runs at a time, each in its own process with one thread (default: one per core)")
    r.add_argument("--threads", type=int_in(1, 1024), help="torch threads per run (default 1)")
    r.add_argument("--ray", type=nonempty("--ray"), metavar="ADDRESS", help="send each run as a task to this Ray cluster ('auto' or host:port)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument("--yes-large-grid", action="store_true",
                   help="allow a grid of more than 1,000 points (each point is a run; see docs/reliability.md)")
    r.add_argument("--preflight", help=argparse.SUPPRESS)  # the dashboard's check of this grid (runs.preflight_file)
    add_run_options(r)


def _add_show_parser(ssub, common: argparse.ArgumentParser) -> None:
    """``study show``: a study's response table, its measures, x axis and matched-accuracy column."""
    s = ssub.add_parser("show", parents=[common], help="a study's response table: mean ± std over seeds per point",
                        description="Per method and grid point: final and best accuracy, ratio and effective rank, "
                                    "mean ± std over seeds, n finished/total, then the points not finished.")
    s.add_argument("name")
    s.add_argument("--metric", type=_metrics, default=list(DEFAULT_METRICS),
                   help=f"comma list of {', '.join(METRIC_LABELS)} (default {','.join(DEFAULT_METRICS)})")
    s.add_argument("--x", dest="x_axis", help="axis of the table's x column (default: the first swept axis)")
    s.add_argument("--matched-accuracy", nargs="?", const="auto", default=None, type=_accuracy, metavar="ACC",
                   help="also print each point's geometry at the first snapshot round where test accuracy reaches "
                        "ACC (0-1, or a percent such as 80); without ACC: the lowest final accuracy of the study's "
                        "runs, rounded down to a whole percent")


def _add_claims_parsers(ssub, common: argparse.ArgumentParser) -> None:
    """``study claims`` (the paper's claims on --runs-dir) and ``study confirm`` (the registered rows)."""
    c = ssub.add_parser("claims", parents=[common], help="the seed paper's claims checked against the recorded "
                                                         "studies, as a markdown table",
                        description="Each claim of the FedQuad paper, the study of --runs-dir that tests it, the "
                                    "measured numbers (mean ± std over seeds), the difference with its 95 % CI "
                                    "(Welch's test, Holm-corrected across the table) and a verdict: supported, not "
                                    "supported, inconclusive, untested (one seed) or not run here; its robustness "
                                    "and the verdicts at matched accuracy levels.")
    c.set_defaults(matched_accuracy=None)
    ssub.add_parser("confirm", parents=[common], help="the registered confirmatory claims judged on the "
                                                       "confirmation studies, as a markdown table",
                    description="Each row of fedquad_core/study/registration.toml judged by the rules it fixed "
                                "before its runs (docs/verdicts.md): the primary comparison (equal samples, "
                                "matched accuracy or equal rounds), the others, each arm's plateau, the verdict "
                                "under Holm's correction and at half and twice delta. --runs-dir names the "
                                "store the confirmation studies were recorded into (scripts/confirm_studies.py).")


FILE_KEYS = {"title", "description", "base", "axes"}
STORED_KEYS = {"name", "created", "engine", "points"}  # a stored study file given as --file: ignored


def _read_file(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    data = read_json_file(path, "--file")
    if not isinstance(data, dict) or not isinstance(data.get("axes", {}), dict) or not isinstance(data.get("base", {}), dict):
        raise UserError(f"--file {path} must hold a JSON object with 'axes' (key: [values]) and optional 'base'")
    stored = STORED_KEYS <= set(data)  # a whole stored study file: its bookkeeping is ignored
    unknown = sorted(set(data) - FILE_KEYS - (STORED_KEYS if stored else set()))
    if unknown:
        raise UserError(f"--file {path} has unknown key(s) {', '.join(map(str, unknown))}: use {', '.join(sorted(FILE_KEYS))} "
                        "(method parameters go in base.method_params; 'points' and 'engine' only in a whole "
                        "stored study file)")
    return data


def spec_from_args(args: argparse.Namespace, store: RunStore):
    data = _read_file(args.file)
    if not args.grid and not data:
        studies = StudyStore(store.root)
        if not studies.exists(args.name):
            raise UserError(f"no study {args.name!r} yet: give its axes with --grid KEY=V1,V2 (or --file)")
        data = studies.read(args.name)  # resume it with its own grid
    axes = parse_axes(data.get("axes") or {})
    axes.update(parse_grid(args.grid))
    if not axes:
        raise UserError("the study has no axes: give at least one --grid KEY=V1,V2")
    if getattr(args, "iid", None) and "alpha" in axes:
        raise UserError("--iid and the alpha axis contradict each other: --iid means no label skew for every "
                        "point; drop --iid, or put iid among the axis's values (--grid alpha=0.1,iid)")
    base = config_from_args(args, defaults=data.get("base") or {})
    return StudySpec(args.name, base, axes, title=args.title or data.get("title"),
                     description=args.description or data.get("description"))


def cmd_study(args: argparse.Namespace, store: RunStore) -> int:
    return {"run": _run, "list": _list, "show": _show, "cancel": _cancel, "claims": _claims,
            "confirm": _confirm}[args.study_command](args, store)


def _cancel(args, store: RunStore) -> int:
    return cancel_study(args.name, store)


def cancel_study(name: str, store: RunStore) -> int:
    if not request_study_cancel(store.root, check_name(name)):
        print(f"study {name} is not running in {store.root}: nothing to cancel")
        return 0
    print(f"cancel requested for study {name}: no new point starts, running points stop after their round")
    return 0


def _run(args, store: RunStore) -> int:
    handed = preflight_file.read(args.preflight, engine_fingerprint()) if args.preflight else None
    study = run_study(spec_from_args(args, store), store, jobs=args.jobs, threads=args.threads, ray=args.ray,
                      quiet=args.quiet, large_grid=args.yes_large_grid, handed=handed)
    args.metric, args.x_axis = list(DEFAULT_METRICS), None
    print_response(store, study, args)
    return none_finished(store, study)


def none_finished(store: RunStore, study: dict[str, Any]) -> int:
    """1 with one line on stderr when not one point of the study finished (every run failed: a full
    disk, a broken data folder), else 0: a study that produced nothing does not exit as a success."""
    frame = study_frame(store, study)
    if frame and not any(r["state"] == "finished" for r in frame):
        print(f"fedquad: study {study['name']}: none of its {len(frame)} points finished (see the runs' errors "
              "above, or `fedquad list`)", file=sys.stderr)
        return 1
    return 0


def _list(args, store: RunStore) -> int:
    studies = StudyStore(store.root)
    rows, damaged = [], []
    for name in studies.names():
        try:
            study = studies.read(name)
        except DamagedStudy as e:
            rows.append([name, "damaged", "-", "-", ""])
            damaged.append(f"damaged {name}: {e.reason}")
            continue
        frame = study_frame(store, study)
        done = sum(r["state"] == "finished" for r in frame)
        engine = "current" if study.get("engine") == engine_fingerprint() else f"other ({study.get('engine')})"
        rows.append([name, f"{done}/{len(frame)}", " x ".join(f"{k}({len(v)})" for k, v in study["axes"].items()),
                     engine, one_line(study.get("title") or "", 80)])
    if not rows:
        print(f"no studies in {store.root}")
        return 0
    print_table(["study", "done", "axes", "engine", "title"], rows)
    for line in damaged:
        print(line)
    return 0


def _show(args, store: RunStore) -> int:
    study = StudyStore(store.root).read(args.name)
    print_response(store, study, args)
    if args.matched_accuracy is not None:
        print()
        print_matched(store, study, None if args.matched_accuracy == "auto" else args.matched_accuracy)
    return 0


def _claims(args, store: RunStore) -> int:
    if not store.root.is_dir():  # a mistyped path: not a table of "not run here" rows
        raise UserError(f"no run store at {store.root}: the recorded studies are in "
                        "`--runs-dir assets/recorded`")
    results = check_claims(store.root)
    print(claims_markdown(results, unused_studies(store.root, results)))
    return 0


def _confirm(args, store: RunStore) -> int:
    if not store.root.is_dir():
        raise UserError(f"no run store at {store.root}: the confirmation studies are recorded by "
                        "scripts/confirm_studies.py (default /work/fedquad-confirm)")
    print(confirm_markdown(check_confirmatory(store.root)))
    return 0


def print_matched(store: RunStore, study: dict[str, Any], threshold: float | None) -> None:
    matched = matched_accuracy(store, study, threshold)
    if matched.threshold is None:
        print(f"matched accuracy: {matched.how}")
        return
    print(f"at matched accuracy: test accuracy {matched.threshold:.0%} ({matched.how}); each run at the first "
          "snapshot round that reaches it, mean ± std over seeds")
    keys = [k for k in study["axes"] if k != "seed" and (len(study["axes"][k]) > 1 or k == "method")]
    metrics = [("round", "round", ".1f", 1.0), *((m, METRICS[m].short or m, METRICS[m].spec, METRICS[m].scale)
                                                 for m in ("test_accuracy", "effective_rank", "ratio"))]
    rows = []
    for g in matched.groups():
        cells = [(_value(k, g.get(k)) if k in g else "-") for k in keys]
        for key, _, spec, scale in metrics:
            cells.append(mean_std_text(g[f"{key}_mean"], g[f"{key}_std"], g[f"{key}_n"], spec, scale))
        rows.append([*cells, f"{g['reached']}/{g['total']}"])
    print_table([*keys, *(label for _, label, _, _ in metrics), "reached"], rows)
    never = [r for r in matched.rows if r["round"] is None]
    if never:
        print(f"did not reach {matched.threshold:.0%} ({len(never)}):")
        for r in never:
            print("  " + " ".join(f"{k}={_value(k, v)}" for k, v in r["coords"].items()) + f"  {r['run_id']}")


def _cell(entry: dict, metric: str) -> str:
    mean, std = entry[f"{metric}_mean"], entry[f"{metric}_std"]
    if mean is None:
        return "-"
    m = METRICS[metric]  # its scale (accuracies in %) and format
    scale, spec = m.scale, m.spec
    text = format(mean * scale, spec)
    return text if std is None else f"{text} ± {format(std * scale, spec)}"


def _value(axis: str, value: Any) -> str:
    return alpha_text(value) if axis == "alpha" else str(value)


def print_response(store: RunStore, study: dict[str, Any], args) -> None:
    frame = study_frame(store, study)
    sliders = slider_axes(study)
    x_axis = args.x_axis or (sliders[0] if sliders else None)
    if x_axis and x_axis not in study["axes"]:
        raise UserError(f"study {study['name']} has no axis {x_axis!r}: its axes are {', '.join(study['axes'])}")
    table = response_table(frame, x_axis)
    group_keys = [k for k in table[0] if not k.endswith(("_mean", "_std", "_n")) and k not in ("n", "total", "missing")]
    group_keys = [k for k in group_keys if len(study["axes"].get(k, [])) > 1 or k == "method"]
    headers = [*group_keys, *(METRIC_LABELS[m] for m in args.metric), "n"]
    rows = [[*(_value(k, e[k]) for k in group_keys), *(_cell(e, m) for m in args.metric), f"{e['n']}/{e['total']}"]
            for e in table]
    done = sum(r["state"] == "finished" for r in frame)
    print(f"study {study['name']}" + (f": {one_line(study['title'], 200)}" if study.get("title") else "")
          + f" ({done}/{len(frame)} points finished; mean ± std over seeds)")
    print_table(headers, rows)
    missing = [r for r in frame if r["state"] != "finished"]
    if missing:
        print(f"not finished ({len(missing)}):")
        for r in missing:
            coords = " ".join(f"{k}={_value(k, r[k])}" for k in study["axes"])
            print(f"  {coords}  {r['state']}" + (f"  {r['run_id']}" if r["run_id"] else ""))
