"""The recorded studies shipped in assets/recorded match the engine of this commit: every run was
made by this engine (its fingerprint), with the settings its config.json says (its run key is
recomputed from them), finished, and is stored compacted (no weights, a UMAP layout for every
snapshot), all under the 60 MB budget. A change to a method, a model, a default or anything else
that changes a run's numbers changes the fingerprint and fails this test until
`scripts/record_studies.py` is run again."""
from pathlib import Path

import numpy as np
import pytest

from fedquad_core.config import RunConfig
from fedquad_core.runs.store import RunStore
from fedquad_core.study import StudyStore, study_frame
from fedquad_core.study.paper_claims import check_claims
from fedquad_core.version import engine_fingerprint, run_key

RECORDED = Path(__file__).resolve().parents[2] / "assets" / "recorded"
NAMES = sorted(["digits-alpha", "digits-margins", "fmnist-methods", "digits-local", "fmnist-skew", "fmnist-regime",
                "fmnist-paper", "fmnist-paper-2pct"])
BUDGET = 60 * 1024 * 1024


@pytest.fixture(scope="module")
def studies():
    store = StudyStore(RECORDED)
    return {name: store.read(name) for name in store.names()}


def test_the_recorded_studies_are_shipped(studies):
    assert sorted(studies) == NAMES


def test_under_the_size_budget():
    total = sum(p.stat().st_size for p in RECORDED.rglob("*") if p.is_file())
    assert 0 < total <= BUDGET, f"{total / 2**20:.1f} MB"


@pytest.mark.parametrize("name", NAMES)
def test_every_point_is_a_finished_run_of_this_engine(studies, name):
    study, runs = studies[name], RunStore(RECORDED)
    engine = engine_fingerprint()
    assert study["engine"] == engine, "recorded with another engine: run scripts/record_studies.py"
    rows = study_frame(runs, study)
    # every run finished, or diverged (a recorded outcome, e.g. MOON at lr 0.02 in fmnist-methods):
    # then it says in which round, and the claims table names it where a row's groups include it
    assert rows and all(r["state"] in ("finished", "diverged") for r in rows)
    diverged = [p for p in study["points"] if runs.read_status(p["run_id"])["state"] == "diverged"]
    named = " ".join(r.numbers for r in check_claims(RECORDED) if r.study == name)
    for point in diverged:
        status = runs.read_status(point["run_id"])
        assert isinstance(status.get("diverged_round"), int), point
        if named:
            assert f"seed={point['coords']['seed']} diverged in round {status['diverged_round']}" in named
    for point in study["points"]:
        status = runs.read_status(point["run_id"])
        cfg = RunConfig.from_dict(runs.read_config(point["run_id"]))
        assert status["engine"] == engine
        assert status["key"] == point["key"] == run_key(cfg)
        for axis, value in point["coords"].items():
            if axis in cfg.to_dict():
                assert getattr(cfg, axis) == value, (axis, value)
            elif axis in cfg.method_params:
                # a method parameter the method lacks is not part of its run (FedAvg in a margins study)
                assert cfg.method_params[axis] == value


def test_runs_are_compacted_with_a_layout_per_snapshot():
    runs = RunStore(RECORDED)
    assert runs.run_ids()
    for run_id in runs.run_ids():
        folder = runs.path(run_id)
        assert not (folder / "model.pt").exists() and not (folder / "log.txt").exists()
        rounds = runs.snapshot_rounds(run_id)
        assert rounds, run_id
        for r in rounds:
            snap = runs.read_snapshot(run_id, r)
            assert snap["embeddings"].dtype == np.float16 and len(snap["embeddings"]) <= 500
            layout = np.load(folder / "embeddings" / f"umap_round_{r:04d}.npy", allow_pickle=False)
            assert layout.shape == (len(snap["labels"]), 2) and np.isfinite(layout).all()


LOCAL_STUDIES = ["digits-local", "fmnist-skew", "fmnist-regime"]
LOCAL_FIELDS = ("local_acc_all", "local_acc_own", "local_effective_rank", "local_ratio", "local_cka",
                "update_cosine", "update_norm")


@pytest.mark.parametrize("name", LOCAL_STUDIES)
def test_local_models_are_measured_at_every_snapshot(studies, name):
    runs, kept = RunStore(RECORDED), 0
    for point in studies[name]["points"]:
        rows = [r for r in runs.read_metrics(point["run_id"]) if "effective_rank" in r]
        assert rows, point["run_id"]
        for row in rows:
            assert all(isinstance(row.get(k), float) for k in LOCAL_FIELDS), (point["run_id"], row["round"])
            assert row["local"] and len(row["local"]) == row["local_measured"]
        for r in runs.local_snapshot_rounds(point["run_id"]):
            local, snap = runs.read_local_snapshot(point["run_id"], r), runs.read_snapshot(point["run_id"], r)
            assert local["embeddings"].dtype == np.float16
            assert local["embeddings"].shape[1] == len(snap["labels"])  # the same kept points
            kept += 1
    assert kept >= 1  # the Clients page's pictures: some runs keep their clients' embeddings


SEEDS = {"digits-local": 5, "fmnist-skew": 5, "fmnist-paper": 5, "fmnist-paper-2pct": 3, "fmnist-methods": 3}


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_the_studies_backing_the_claims_have_their_seeds(studies, name):
    """The claims table's verdicts rest on these studies: 5 seeds (3 for the 2 % arm and for the
    seven-method comparison)."""
    assert len(studies[name]["axes"]["seed"]) == SEEDS[name]


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_the_studies_backing_the_claims_are_trained_to_a_plateau(studies, name):
    """FedAvg at the study's strongest skew gains under 1 point over its last 10 rounds (the claims
    table's rule, ``paper_claims.study_plateau``)."""
    from fedquad_core.study.paper_claims import _Runs, study_plateau

    reached, why = study_plateau(_Runs(RunStore(RECORDED), studies[name]))
    assert reached, why


def test_the_readme_claims_table_is_the_one_these_runs_give():
    """README's "The paper's claims, checked" is ``fedquad study claims --runs-dir assets/recorded``
    pasted whole (table, verdict rule, plateau lines): nothing in it typed by hand, nothing left
    from an earlier recording."""
    from fedquad_core.study.paper_claims import claims_markdown

    table = claims_markdown(check_claims(RECORDED)).strip()
    readme = (RECORDED.parents[1] / "README.md").read_text()
    start = readme.index("| # | Claim (paper)")
    assert readme[start:start + len(table)] == table, (
        "README's claims table differs from `fedquad study claims --runs-dir assets/recorded`: paste it again")


def test_a_geometry_row_is_robust_only_where_matched_accuracy_agrees():
    """Issue 33: row 6 (global rank at equal rounds) read "supported, robust" while its own
    matched-accuracy levels reversed at two of three; robust now includes that comparison, and a
    reversal is named as confounded by training."""
    from fedquad_core.study.paper_claims import MATCHED_CHECK

    results = check_claims(RECORDED)
    row6 = results[5]
    assert row6.verdict == "supported" and row6.robustness.startswith("not robust")
    assert "confounded by training" in row6.robustness
    for r in results:
        matched = dict(r.checks).get(MATCHED_CHECK)
        if r.robustness == "robust" and matched is not None:
            assert matched == r.verdict, (r.text, matched, r.verdict)


def test_an_adjusted_p_near_the_line_keeps_its_third_digit():
    """Issue 33: row 10's Holm-adjusted 0.0503 printed as "0.05"."""
    from fedquad_core.study.paper_claims import _p

    assert _p(0.0503) == "0.0503" and _p(0.0497) == "0.0497"
    assert _p(0.006) == "0.006" and _p(0.23) == "0.23" and _p(0.0004) == "< 0.001"
