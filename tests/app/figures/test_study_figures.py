"""The study figures' pure parts against hand-computed numbers: seed aggregation, band overlap,
the alpha axis (log, IID last), the heatmap's reference-centred colour scale, the moving marks."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from app.figures import study as sf


def points() -> pd.DataFrame:
    rows = []
    # apart: 0.62 ± 0.028 vs 0.81 ± 0.014, Welch's 95 % interval of the difference 0.02 to 0.36 (2 seeds)
    acc = {("fedavg", 0.1): [0.60, 0.64], ("fedquad", 0.1): [0.80, 0.82],
           ("fedavg", None): [0.90, 0.94], ("fedquad", None): [0.91, 0.93]}  # overlap
    for (method, alpha), vals in acc.items():
        for seed, v in enumerate(vals):
            rows.append({"alpha": alpha, "method": method, "seed": seed, "state": "finished", "final_acc": v,
                         "final_ratio": 1 - v, "run_id": f"{method}-{alpha}-{seed}"})
    rows.append({"alpha": 1.0, "method": "fedavg", "seed": 0, "state": "missing", "final_acc": None,
                 "final_ratio": None, "run_id": None})
    return pd.DataFrame(rows)


def test_aggregate_mean_std_over_seeds_by_hand():
    resp = sf.aggregate(points(), ["method", "alpha"], ["final_acc"])
    row = resp[(resp["method"] == "fedavg") & (resp["alpha"] == 0.1)].iloc[0]
    assert row["final_acc_mean"] == pytest.approx(0.62)
    assert row["final_acc_std"] == pytest.approx(math.sqrt(2 * 0.02 ** 2 / 1))  # ddof 1
    assert row["final_acc_n"] == 2 and row["n_done"] == 2
    missing = resp[resp["alpha"].map(lambda a: a == 1.0)].iloc[0]
    assert missing["final_acc_n"] == 0 and math.isnan(missing["final_acc_mean"]) and missing["n_points"] == 1
    iid = resp[resp["alpha"].isna() & (resp["method"] == "fedquad")].iloc[0]
    assert iid["final_acc_mean"] == pytest.approx(0.92)


def test_band_overlap_only_where_the_intervals_meet():
    resp = sf.aggregate(points(), ["method", "alpha"], ["final_acc"])
    over = sf.band_overlaps(resp, "alpha", "final_acc")
    assert len(over) == 1 and (over[0] is None or (isinstance(over[0], float) and math.isnan(over[0])))


def test_alpha_axis_is_evenly_spaced_with_iid_last():
    xs, axis = sf.axis_positions("alpha", [None, 1.0, 0.05, 0.1])
    assert xs == [0.0, 1.0, 2.0, 3.0] and axis["type"] == "linear"
    assert axis["ticktext"] == ["0.05", "0.1", "1", "IID"]
    assert sf.AXIS_TITLES["alpha"] == "α (evenly spaced)"
    assert sf.ordered_values("alpha", [1.0, None, 0.1]) == [0.1, 1.0, None]
    xs, axis = sf.axis_positions("m1", [0.0, 1.0, 0.5])
    assert xs == [0.0, 0.5, 1.0] and axis["type"] == "linear"


def test_response_figure_marks_missing_overlap_and_the_slider():
    resp = sf.aggregate(points(), ["method", "alpha"], ["final_acc"])
    fig = sf.response_figure(resp, "alpha", "final_acc", current=0.1, all_values=[0.1, 1.0, None])
    shapes = fig.layout.shapes
    assert [s.label.text for s in shapes if s.label and s.label.text] == ["not computed"]  # alpha 1
    mark = next(s for s in shapes if s.name == "current")
    assert mark.visible and mark.x0 == pytest.approx(0.0)  # alpha 0.1: the first of three evenly spaced
    sf.set_current(fig, "alpha", [0.1, 1.0, None], None)  # IID
    assert mark.x0 == pytest.approx(2.0)
    grey = [s for s in shapes if s.fillcolor == sf.OVERLAP_FILL]
    assert len(grey) == 1 and grey[0].x0 > 1.0  # the IID column
    means = {t.meta[1]: list(t.y) for t in fig.data if t.meta and t.meta[0] == "mean"}
    assert means["fedavg"] == pytest.approx([0.62, 0.92])


def test_heatmap_centred_at_the_reference():
    rows = []
    for m1 in (0.0, 1.0):
        for m2 in (0.0, 1.0):
            rows.append({"method": "fedquad", "m1": m1, "m2": m2, "final_ratio_mean": 0.5 + 0.1 * m1 - 0.05 * m2,
                         "final_ratio_std": 0.01, "final_ratio_n": 2})
            rows.append({"method": "fedavg", "m1": m1, "m2": m2, "final_ratio_mean": 0.6, "final_ratio_std": 0.01,
                         "final_ratio_n": 2})
    fig = sf.margins_heatmap(pd.DataFrame(rows), "m1", "m2", "final_ratio", current=(1.0, 0.0))
    heat = fig.data[0]
    assert np.allclose(np.array(heat.z, dtype=float), [[0.5, 0.6], [0.45, 0.55]])
    assert (heat.zmin + heat.zmax) / 2 == pytest.approx(0.6)  # FedAvg's value is the middle
    assert heat.colorbar.ticktext[1].startswith("FedAvg")
    mark = fig.data[-1]
    assert list(mark.x) == ["1"] and list(mark.y) == ["0"]
    sf.set_cell(fig, "m1", "m2", (0.0, 1.0))
    assert list(mark.x) == ["0"] and list(mark.y) == ["1"]


def test_skew_effect_note_is_computed_from_the_points_and_says_when_it_is_seed_noise():
    def pts(fedavg_lo, fedavg_hi, fedquad_lo, fedquad_hi):
        rows = []
        for method, lo, hi in (("fedavg", fedavg_lo, fedavg_hi), ("fedquad", fedquad_lo, fedquad_hi)):
            for alpha, vals in ((0.1, lo), (1.0, [9.9, 9.9]), (None, hi)):
                rows += [{"method": method, "alpha": alpha, "seed": s, "state": "finished", "effective_rank": v}
                         for s, v in enumerate(vals)]
        return pd.DataFrame(rows)

    note = sf.skew_effect_note(pts([5.0, 7.0], [6.0, 8.0], [4.0, 4.0], [9.0, 9.0]))
    # FedAvg: 6.00 ± 1.41 at 0.1 vs 7.00 ± 1.41 at IID (overlap); FedQuad: 4.00 ± 0.00 vs 9.00 ± 0.00
    assert "FedAvg's effective rank is 6.00 ± 1.41 at 0.1 and 7.00 ± 1.41 at IID: inconclusive with 2 seeds" in note
    assert ("FedQuad's effective rank is 4.00 ± 0.00 at 0.1 and 9.00 ± 0.00 at IID: lower under skew, beyond seed "
            "noise (difference -5.00") in note
    one_seed = sf.skew_effect_note(pts([5.0], [6.0], [4.0], [9.0]))
    assert "one seed: no test possible" in one_seed
    assert sf.skew_effect_note(pts([5.0], [6.0], [4.0], [9.0]).query("alpha == 0.1")) == ""


def test_a_zoomed_accuracy_axis_says_it_does_not_start_at_zero():
    resp = sf.aggregate(points(), ["method", "alpha"], ["final_acc"])
    fig = sf.response_figure(resp, "alpha", "final_acc", all_values=[0.1, 1.0, None])
    assert fig.layout.yaxis.title.text.endswith("(not from 0)")


def test_every_accuracy_axis_reads_in_percent():
    import pandas as pd

    from app.figures import study as sf

    rows = [{"run": f"r{s}", "method": "fedavg", "seed": s, "round": r, "test_accuracy": 0.5 + r / 100,
             "local_acc_all": 0.2 + r / 100, "ratio": 0.4} for s in (0, 1) for r in (1, 2, 3)]
    metrics = pd.DataFrame(rows)
    for y in ("test_accuracy", "local_acc_all"):
        assert sf.band_curves_figure(metrics, y).layout.yaxis.tickformat == ".1%", y  # 51-53 %: one decimal
    assert sf.band_curves_figure(metrics, "ratio").layout.yaxis.tickformat is None


def test_an_accuracy_axis_over_a_few_points_gets_decimals():
    """Over 60-94 % whole percents are enough; over 2.5 points ".0%" would print one percent twice
    ("97%, 97%, 98%, 98%"), so the ticks get a decimal (the browser check: layout_checks)."""
    from app.figures.fit import percent_format

    wide = sf.response_figure(sf.aggregate(points(), ["method", "alpha"], ["final_acc"]), "alpha", "final_acc",
                              all_values=[0.1, 1.0, None])
    assert wide.layout.yaxis.tickformat == ".0%"
    narrow = points().assign(final_acc=lambda d: 0.966 + (d["final_acc"].fillna(0.5) - 0.5) / 10)
    fig = sf.response_figure(sf.aggregate(narrow, ["method", "alpha"], ["final_acc"]), "alpha", "final_acc",
                             all_values=[0.1, 1.0, None])
    assert fig.layout.yaxis.tickformat == ".1%"
    assert percent_format([{"y": [0.949, 0.951]}]) == ".2%"  # two tenths of a point
    assert percent_format([{"y": [0.95, 0.95]}]) == ".1%" and percent_format([]) == ".0%"
    assert percent_format(fixed=(0.0, 1.0)) == ".0%"
