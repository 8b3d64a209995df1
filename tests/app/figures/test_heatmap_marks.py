"""Issue 33: the margins heatmap's caption ("blue beats FedAvg, red does worse") coloured raw means
while no cell beat FedAvg beyond seed noise; each cell now carries the test's word."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from fedquad_core import api
from app.figures import study as sf

RECORDED = Path(__file__).resolve().parents[3] / "assets" / "recorded"


def _points(cells: dict[tuple, list[float]], ref: list[float]) -> pd.DataFrame:
    rows = [{"m1": 0.0, "m2": 0.0, "method": "fedavg", "seed": s, "run_id": f"avg{s}", "state": "finished",
             "final_acc": v} for s, v in enumerate(ref)]
    for (m1, m2), vals in cells.items():
        rows += [{"m1": m1, "m2": m2, "method": "fedquad", "seed": s, "run_id": f"q{m1}{m2}{s}", "state": "finished",
                  "final_acc": v} for s, v in enumerate(vals)]
    return pd.DataFrame(rows)


def test_a_cell_says_better_only_when_the_test_does():
    ref = [0.80, 0.85, 0.90]
    pts = _points({(0.0, 0.0): [0.90, 0.95, 1.00],        # +10 points on every seed: better
                   (0.0, 1.0): [0.95, 0.80, 0.95],        # +5 points on average, one seed 5 below: not shown
                   (1.0, 0.0): [0.801, 0.851, 0.899],     # the same, seed by seed: shown inside ±1 point
                   (1.0, 1.0): [0.70, 0.75, 0.80]}, ref)  # -10 points on every seed: worse
    marks = sf.heatmap_marks(pts, "m1", "m2", "final_acc")
    assert marks[("0.0", "0.0")] == "better" and marks[("1.0", "1.0")] == "worse"
    assert marks[("0.0", "1.0")] == "·" and marks[("1.0", "0.0")] == "="
    fig = sf.margins_heatmap(sf.aggregate(pts, ["method", "m1", "m2"], ["final_acc"]), "m1", "m2", "final_acc",
                             marks=marks)
    assert fig.data[0].texttemplate == "%{text}" and "better" in [t for row in fig.data[0].text for t in row]


def test_no_margins_cell_beats_fedavg_in_accuracy_beyond_noise():
    study = json.loads((RECORDED / "studies" / "digits-margins.json").read_text())
    pts = pd.DataFrame(api.study_view(RECORDED).frame(study))
    marks = sf.heatmap_marks(pts, "m1", "m2", "final_acc")
    assert len(marks) == 25 and "better" not in marks.values()
