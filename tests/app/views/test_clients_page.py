"""The Clients page and Explore's local-model row on an empty user store beside a recorded root
made by the engine itself: a tiny ``digits-local`` study (local epochs 1 and 10, alpha 0.1,
FedAvg and FedQuad, seed 0, 2 rounds, every round a snapshot). Without local metrics the page
says so in one line; a damaged local file is named and skipped."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, page_text, shown, switcher, switcher_options, trace_values

STUDY = "digits-local"


@pytest.fixture(scope="module")
def _local_root(tmp_path_factory):
    from fedquad_core.config import RunConfig
    from fedquad_core.runs.store import RunStore
    from fedquad_core.study import StudySpec, run_study

    root = tmp_path_factory.mktemp("recorded-local") / "recorded"
    base = RunConfig(dataset="digits", num_clients=6, alpha=0.1, rounds=2, snapshot_every=1, snapshot_points=200,
                     local_clients=4, seed=0)
    spec = StudySpec(STUDY, base, {"local_epochs": [1, 10], "alpha": [0.1], "method": ["fedavg", "fedquad"],
                                   "seed": [0]}, title="Local computation (test)")
    study = run_study(spec, RunStore(root), jobs=2, quiet=True)
    assert all(p.get("run_id") for p in study["points"]), study["points"]
    return root, study


@pytest.fixture
def local_root(monkeypatch, tmp_path, _local_root):
    root, study = _local_root
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))  # empty: recorded data only
    return root, study


def _run_of(study, method, local_epochs):
    return next(p["run_id"] for p in study["points"]
                if p["coords"]["method"] == method and p["coords"]["local_epochs"] == local_epochs)


def _rows(root, run_id):
    return [json.loads(line) for line in (root / run_id / "metrics.jsonl").read_text().splitlines() if line.strip()]


def _clients_page() -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.run()
    at.switch_page("views/clients.py").run()
    return at


def _chart(at, title_part):
    for el in at.get("plotly_chart"):
        spec = json.loads(el.proto.spec)
        title = ((spec["layout"].get("title") or {}).get("text") or "").replace("<br>", " ")  # wrapped titles
        if title_part in " ".join(title.split()):
            return spec
    raise AssertionError(f"no chart titled ...{title_part}...")


def test_clients_page_shows_the_recorded_pair_at_10_local_epochs(local_root):
    root, study = local_root
    at = _clients_page()
    assert not at.exception, at.exception
    fedavg, fedquad = _run_of(study, "fedavg", 10), _run_of(study, "fedquad", 10)
    text = page_text(at)
    assert fedavg in text and fedquad in text and _run_of(study, "fedavg", 1) not in text  # says which runs
    assert at.query_params["c_pair"] == at.session_state["c_pair"]
    last = _rows(root, fedavg)[-1]
    measured = last["local"]
    assert at.session_state["c_round"] == last["round"] and len(measured) == 4
    # the population: one point per measured client, its classes held against its local accuracy
    pop = _chart(at, f"FedAvg, round {last['round']}: clients")
    all_acc = next(t for t in pop["data"] if t["name"] == "local accuracy, all classes")
    assert sorted(trace_values(all_acc)) == pytest.approx(sorted(c["local_acc_all"] for c in measured))
    xs = np.asarray(trace_values(all_acc, "x"))  # jittered by less than 0.15 around the count
    assert sorted(np.round(xs).astype(int)) == sorted(len(c["classes"]) for c in measured)
    # another view: the local effective rank of each client
    at.segmented_control(key="c_view").set_value("rank").run()
    assert not at.exception, at.exception
    rank = _chart(at, f"FedQuad, round {last['round']}: clients")["data"][0]
    assert sorted(trace_values(rank)) == pytest.approx(sorted(c["local_effective_rank"]
                                                              for c in _rows(root, fedquad)[-1]["local"]))
    # the update-cosine matrix as stored
    with np.load(root / fedavg / "embeddings" / f"local_round_{last['round']:04d}.npz") as npz:
        stored = npz["update_cosine"]
    heat = _chart(at, "FedAvg: update cosines")["data"][0]
    assert np.allclose(np.asarray(trace_values(heat, "z"), dtype=float), stored, atol=1e-6)
    # one client: histogram of its partition row, its embeddings next to the global model's
    client = at.session_state["c_client"]
    counts = json.loads((root / fedavg / "partition.json").read_text())["counts"][client]
    hist = _chart(at, f"Client {client}: its training samples")["data"][0]
    assert trace_values(hist) == counts
    assert _chart(at, "the global model it started from") and _chart(at, f"client {client}'s local model")


def test_clients_page_follows_round_and_client(local_root):
    root, study = local_root
    at = _clients_page()
    fedquad = _run_of(study, "fedquad", 10)
    first = _rows(root, fedquad)[0]
    at.select_slider(key="c_round").set_value(first["round"]).run()
    assert not at.exception, at.exception
    client = first["local"][-1]["client"]
    at.selectbox(key="c_client").set_value(client).run()
    assert not at.exception, at.exception
    assert at.query_params["c_round"] == str(first["round"]) and at.query_params["c_client"] == str(client)
    hist = _chart(at, f"Client {client}: local accuracy, all classes over rounds")
    solid = next(t for t in hist["data"] if t["name"] == f"FedQuad, client {client}")
    expected = {r["round"]: c["local_acc_all"] for r in _rows(root, fedquad) for c in r.get("local", [])
                if c["client"] == client}
    assert dict(zip(trace_values(solid, "x"), trace_values(solid))) == pytest.approx(expected)


def test_clients_page_without_local_metrics_says_so(recorded_root):
    at = _clients_page()  # the synthetic recorded studies measured no client
    assert not at.exception, at.exception
    assert any("No run has local-model metrics" in i.value for i in at.info), [i.value for i in at.info]
    assert not at.get("plotly_chart")


def test_clients_page_names_a_damaged_local_file_and_goes_on(monkeypatch, tmp_path, _local_root):
    src, study = _local_root
    root = tmp_path / "recorded"
    shutil.copytree(src, root)
    fedavg = _run_of(study, "fedavg", 10)
    last = _rows(root, fedavg)[-1]["round"]
    (root / fedavg / "embeddings" / f"local_round_{last:04d}.npz").write_bytes(b"not a zip")
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = _clients_page()
    assert not at.exception, at.exception
    notes = [c.value for c in at.caption if f"local_round_{last:04d}.npz" in c.value]
    assert notes and all(fedavg in n and "skipped" in n for n in notes), [c.value for c in at.caption]
    assert _chart(at, "FedQuad: update cosines")  # the other run's pictures still there


def test_clients_page_without_stored_pictures_shows_the_numbers(monkeypatch, tmp_path, _local_root):
    """Recorded runs keep their clients' embeddings for a few runs only: the numbers still show,
    and one line says where the pictures are kept."""
    src, study = _local_root
    root = tmp_path / "recorded"
    shutil.copytree(src, root)
    fedavg = _run_of(study, "fedavg", 10)
    rounds = [r["round"] for r in _rows(root, fedavg)]
    for r in rounds[:-1]:
        (root / fedavg / "embeddings" / f"local_round_{r:04d}.npz").unlink()
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = _clients_page()
    at.select_slider(key="c_round").set_value(rounds[0]).run()
    assert not at.exception, at.exception
    notes = [i.value for i in at.info]
    assert any(n.startswith("FedAvg: the clients' embeddings and update cosines are kept for round "
                            f"{rounds[-1]} only") for n in notes), notes
    assert _chart(at, f"FedAvg, round {rounds[0]}: clients") and _chart(at, "FedQuad: update cosines")
    with pytest.raises(AssertionError):
        _chart(at, "FedAvg: update cosines")
    assert any("Mean cosine over the measured pairs" in c.value for c in at.caption)


def test_aligned_pair_undoes_a_rotation_and_scale():
    from app.clients.data import aligned_pair

    rng = np.random.default_rng(0)
    g = rng.normal(size=(80, 6)) * np.array([5, 3, 1, 1, 0.5, 0.1])
    q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    g_xy, l_xy = aligned_pair(g, 2.5 * g @ q + 3.0)
    assert np.allclose(g_xy, l_xy, atol=1e-4)
    assert g_xy[:, 0].var() > g_xy[:, 1].var() > 0  # the global model's first two principal axes
    other_xy = aligned_pair(g, rng.normal(size=(80, 6)))[1]
    assert not np.allclose(g_xy, other_xy, atol=1e-2)


def test_explore_shows_a_local_metric_against_local_epochs(local_root):
    root, study = local_root
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.query_params["x_study"] = f"recorded:{STUDY}"
    at.query_params["x_local"] = "local_cka"
    at.run()
    assert not at.exception, at.exception
    assert "Local models (mean over the measured clients)" in [s["heading"] for s in switcher(at)["layout"]["sections"]]
    assert at.session_state["x_local"] == "local_cka" and "x_local" in at.query_params
    assert switcher_options(at, "local_epochs") == ["1", "10"]  # a slider axis
    resp = shown(at, "local_resp")["fig"]
    assert "Local CKA to the global model against local_epochs" in " ".join(resp["layout"]["title"]["text"].replace("<br>", " ").split())
    means = {m["name"]: trace_values(m) for m in resp["data"] if (m.get("meta") or [None])[0] == "mean"}
    for method, label in (("fedavg", "FedAvg"), ("fedquad", "FedQuad")):
        expected = [next(r["local_cka"] for r in reversed(_rows(root, _run_of(study, method, e))) if "local_cka" in r)
                    for e in (1, 10)]
        assert means[label] == pytest.approx(expected)


@pytest.mark.parametrize("talk", [False, True])
def test_the_clients_figures_are_valid_plotly(talk):
    """The Clients builders construct their figures unvalidated (``fit((data, layout), talk)``): built again
    with full validation they must raise nothing and change nothing."""
    import pandas as pd
    import plotly.graph_objects as go
    import plotly.io as pio

    from app.figures import clients as cf

    rng = np.random.default_rng(0)
    pop = pd.DataFrame([{"method": m, "client": c, "classes": int(rng.integers(1, 10)), "samples": 30,
                         **{k: rng.random() for k in cf.TITLES}} for m in ("fedavg", "fedquad") for c in range(5)])
    hist = pd.DataFrame([{"method": m, "round": r, "local_cka": rng.random(), "mean_local_cka": rng.random()}
                         for m in ("fedavg", "fedquad") for r in (3, 6, 9)])
    xy = rng.normal(size=(40, 2))
    figs = [cf.population_figure(pop, "fedavg", v, yrange=[0, 1], round_=3, talk=talk) for v in cf.VIEWS]
    figs += [cf.class_histogram(rng.integers(0, 50, 10), [str(i) for i in range(10)], 2, talk=talk),
             cf.client_history_figure(hist, "local_cka", 2, talk=talk),
             cf.embedding_panel(xy, rng.integers(0, 3, 40), ["a", "b", "c"], title="emb",
                                ranges=cf.frame_ranges(xy, xy + 1), talk=talk),
             cf.cosine_heatmap(np.eye(4), [1, 4, 7, 9], "fedquad", 3, talk=talk)]
    spec = lambda f: json.loads(pio.to_json(f.to_dict(), validate=False))  # noqa: E731 (as test_theme_layout)
    for fig in figs:
        assert spec(go.Figure(fig.to_plotly_json())) == spec(fig)


def test_an_accuracy_range_stops_at_100_percent():
    """Clients at 100 % own-class accuracy: the shared y range is padded below but ends at 1.0 (the
    axis read "102%"), and the markers are drawn unclipped so the ones at 100 % show whole."""
    import pandas as pd

    from app.figures import clients as cf

    assert cf.value_range([0.9, 1.0], top=1.0) == pytest.approx([0.88, 1.0])  # pad: 2 % of the top
    assert cf.value_range([0.9, 1.0]) == pytest.approx([0.88, 1.02])  # other metrics: padded both ways
    assert cf.value_range([1.0, 1.0], top=1.0) == pytest.approx([0.98, 1.0])
    pop = pd.DataFrame([{"method": "fedavg", "client": c, "classes": 2, "samples": 30, "local_acc_all": 0.9,
                         "local_acc_own": 1.0} for c in range(3)])
    fig = cf.population_figure(pop, "fedavg", "accuracy", yrange=cf.value_range([0.9, 1.0], top=1.0))
    assert fig.layout.yaxis.range[1] == 1.0 and all(t.cliponaxis is False for t in fig.data)
