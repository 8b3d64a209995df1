"""Embeddings: FedAvg left, FedQuad right by default; round slider and play; UMAP in the background."""
from __future__ import annotations

import os
import signal

from streamlit.testing.v1 import AppTest

from app_helpers import MAIN


def embeddings_page() -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    at.switch_page("views/embeddings.py").run()
    return at


def test_defaults_fedavg_left_fedquad_right(run_store):
    _, (fedavg, fedquad) = run_store
    at = embeddings_page()
    assert not at.exception
    assert at.selectbox(key="e_left").value == fedavg and at.selectbox(key="e_right").value == fedquad
    assert len(at.get("plotly_chart")) == 2


def test_round_slider_and_play(run_store):
    at = embeddings_page()
    assert at.select_slider(key="e_round").value == 3
    at.select_slider(key="e_round").set_value(1).run()
    assert not at.exception and "round 1" in at.get("plotly_chart")[0].proto.spec
    at.button(key="e_play_btn").click().run()
    assert not at.exception and at.session_state["e_play"]


def test_umap_is_requested_in_the_background(run_store):
    root, (fedavg, fedquad) = run_store
    at = embeddings_page()
    at.segmented_control(key="e_proj").set_value("UMAP").run()
    try:
        assert not at.exception
        assert any("UMAP" in i.value for i in at.info) or any("UMAP" in w.value for w in at.warning)
        assert len(at.get("plotly_chart")) == 2  # PCA shown meanwhile
    finally:  # stop the background jobs this test started
        for marker in root.glob("*/embeddings/.umap_round_*.pending"):
            try:
                os.killpg(int(marker.read_text() or 0), signal.SIGTERM)
            except (ValueError, OSError):
                pass
            marker.unlink(missing_ok=True)


def test_active_run_shows_projected_rounds_umap_and_projecting_for_the_rest(run_store, tmp_path, monkeypatch):
    import json
    import shutil

    import numpy as np

    root, (fedavg, fedquad) = run_store
    copy = tmp_path / "runs"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".slots"))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(copy))
    status = copy / fedquad / "status.json"
    status.write_text(json.dumps({**json.loads(status.read_text()), "state": "running", "pid": os.getpid()}))
    for run_id, rounds in ((fedavg, (1, 2, 3)), (fedquad, (1, 2))):  # the layouts a worker wrote so far
        for r in rounds:
            n = len(np.load(copy / run_id / "embeddings" / f"round_{r:04d}.npz", allow_pickle=False)["labels"])
            np.save(copy / run_id / "embeddings" / f"umap_round_{r:04d}.npy", np.zeros((n, 2), np.float32) + r)
    (copy / fedquad / "embeddings" / ".umap_round_0003.pending").write_text("")  # being projected
    at = embeddings_page()
    at.segmented_control(key="e_proj").set_value("UMAP").run()
    assert not at.exception and not at.warning
    left, right = (c.proto.spec for c in at.get("plotly_chart"))
    assert "round 3 (UMAP)" in left and "round 2 (UMAP)" in right  # not PCA while round 3 is projected
    assert [i.value for i in at.info] == ["Round 3: projecting… (UMAP in the background, cached next to the run); "
                                          "round 2's UMAP meanwhile."]
    np.save(copy / fedquad / "embeddings" / "umap_round_0003.npy", np.zeros((n, 2), np.float32))
    (copy / fedquad / "embeddings" / ".umap_round_0003.pending").unlink()
    at.run()
    assert not at.exception and not at.info
    assert "round 3 (UMAP)" in at.get("plotly_chart")[1].proto.spec
