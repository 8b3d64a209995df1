"""From the one-minute demo to a lesson of one's own: the demo trains FedAvg and FedQuad at one α;
the Lesson needs them at two or more. ``offer`` says how many runs are missing (and about how
long they take, from the demo's own wall time); ``start`` computes them in the background as the
user study ``collapse-demo`` (the demo's settings over α = 0.1, 1, IID; the demo's two runs are
reused, never trained again)."""
from __future__ import annotations

from dataclasses import dataclass

from app import presets, service
from app.studies import catalog

NAME = "collapse-demo"
PRESET = "Collapse in one minute"
AXES = {"alpha": [0.1, 1.0, None], "method": ["fedavg", "fedquad"], "seed": [0]}


@dataclass
class Offer:
    missing: int        # runs still to train
    seconds: float      # about this long, one after the other, at the demo's pace
    running: bool       # the study is computing now


def _ref() -> catalog.StudyRef:
    return catalog.StudyRef("mine", NAME, NAME)


def _demo_runs() -> list[str]:
    """The user's finished runs with the demo's settings (dataset, model, clients, rounds)."""
    cfg = presets.PRESETS[PRESET]["config"]
    table = service.runs_table()
    mine = table[(table["source"] == "mine") & (table["state"] == "finished")]
    out = []
    for run_id in mine["run_id"]:
        c = service.read_config(run_id)
        if all(c.get(k) == cfg[k] for k in ("dataset", "model", "num_clients", "rounds")):
            out.append(run_id)
    return out


def offer() -> Offer | None:
    """What one click would compute, or None when there is no demo run to build on."""
    runs = _demo_runs()
    exists = service.runs_dir().joinpath("studies", f"{NAME}.json").exists()
    if not runs and not exists:
        return None
    total = len(AXES["alpha"]) * len(AXES["method"]) * len(AXES["seed"])
    if exists:
        done, total = catalog.progress(catalog.points_frame(_ref()))
    else:
        done = min(len(runs), total)
    frame = service.metrics_frame(runs) if runs else None
    per_run = float(frame.groupby("run")["elapsed"].max().mean()) if frame is not None and len(frame) else 10.0
    return Offer(max(total - done, 0), max(total - done, 0) * per_run, service.study_running(_ref()))


def start() -> int:
    """Start the study in the background (resume it when it exists); return its pid."""
    if service.runs_dir().joinpath("studies", f"{NAME}.json").exists():
        return service.launch_study(NAME)
    spec = {"title": "The one-minute demo across α", "base": dict(presets.PRESETS[PRESET]["config"]), "axes": AXES}
    return service.launch_study(NAME, spec)
