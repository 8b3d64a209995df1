"""Explore's "Rank against accuracy" panel on the shipped recording: the picture that keeps a
less trained model apart from a collapsed one."""
from __future__ import annotations

import types
from pathlib import Path

import pytest

RECORDED = Path(__file__).resolve().parents[3] / "assets" / "recorded"


@pytest.fixture(autouse=True)
def recorded_root(monkeypatch):
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(RECORDED))


def test_rank_against_accuracy_panel_and_the_matched_caveat():
    """fmnist-skew at α 0.1: a 'Rank against accuracy' panel with one band per method and FedAvg
    under IID, its values interpolated within the range every run crosses; the across-α note that
    states a rank difference says it is at equal rounds and points to the equal-accuracy figure."""
    from app.studies import catalog as studies
    from app.studies import explore_figures as ep
    ref = studies.StudyRef("recorded", "fmnist-skew", "fmnist-skew")
    points = studies.points_frame(ref)
    at = points[(points["alpha"] == 0.1) & (points["state"] == "finished")]
    metrics = studies.run_metrics(ref, at)
    view = types.SimpleNamespace(pos={"alpha": 0.1}, values={"alpha": [0.1, None]}, ref=ref, talk=False)
    panel = ep.against_accuracy(view, points, metrics, "α = 0.1", ())
    groups = set(panel.data["group"])
    assert groups == {"FedAvg", "FedQuad", "FedAvg, IID"}, groups
    assert (panel.data["n"] >= 2).all() and panel.data["accuracy"].between(10, 100).all()
    assert "rank" in panel.fig.layout.yaxis.title.text and "accuracy" in panel.fig.layout.xaxis.title.text
    note = ep.across_note(points)
    assert "equal rounds" in note and "Rank at equal accuracy" in note
