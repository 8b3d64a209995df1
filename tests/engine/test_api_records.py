"""The engine's public surface groups its verbs by concept (``fedquad_core/api.py``): the data sets
as records (``datasets()``), the studies of a root as one reader and driver (``study_view``, beside
``run_view``), the claims table as its rows with one verdict per paper claim (``claims``). Each is
checked here against the engine function it stands for, on real inputs."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fedquad_core import api
from fedquad_core.config import DATASET_NAMES
from fedquad_core.data import load_dataset
from fedquad_core.study.claims_table import claim_verdicts
from fedquad_core.study.paper_claims import check_claims
from fedquad_core.study.store import DamagedStudy, StudyNotFound, StudyStore
from fedquad_core.study.table import study_frame


def test_datasets_are_the_configs_data_sets_in_order_and_digits_loads(tmp_path, monkeypatch):
    assert list(api.datasets()) == list(DATASET_NAMES)
    digits = api.datasets()["digits"]
    assert digits.problem() is None  # embedded: always there
    labels, names = digits.labels(train_subset=300, seed=4)
    want = load_dataset("digits", train_subset=300, seed=4)
    assert labels.dtype == np.int64 and np.array_equal(labels, want.y_train.numpy())
    assert names == tuple(want.class_names) and len(names) == 10
    monkeypatch.setenv("FEDQUAD_DATA_DIR", str(tmp_path))  # nothing downloaded there
    problem = api.datasets()["cifar10"].problem()
    assert problem and "\n" not in problem and "cifar" in problem.lower()


def test_class_counts_is_in_the_stats_namespace_and_counts_a_split():
    labels = np.array([0, 0, 1, 2, 2, 2])
    parts = [np.array([0, 2]), np.array([1, 3, 4, 5])]
    assert api.stats.class_counts(parts, labels, 3).tolist() == [[1, 1, 0], [1, 0, 3]]
    assert api.words.method_label("fedquad") == "FedQuad" and api.words.method_label("nope") == "nope"


@pytest.fixture
def root(tmp_path):
    """A root with one finished two-point study of tiny digits runs, and one damaged study file."""
    from fedquad_core.study import StudySpec, parse_axes, run_study
    from fedquad_core.config import RunConfig
    base = RunConfig(dataset="digits", num_clients=4, rounds=1, eval_points=100, snapshot_points=40,
                     snapshot_every=100)
    run_study(StudySpec("grid", base, parse_axes({"alpha": [0.5, 5.0]})), StudyStore(tmp_path), jobs=1, quiet=True)
    (tmp_path / "studies" / "broken.json").write_text("{not json")
    return tmp_path


def test_study_view_reads_names_damage_once_and_frames_as_the_engine(root):
    view = api.study_view(root)
    studies, damaged = view.studies()
    assert list(studies) == ["grid"] and len(damaged) == 1 and damaged[0].startswith("study broken ")
    study = view.read("grid")
    assert study == studies["grid"]
    with pytest.raises(StudyNotFound):
        view.read("absent")
    with pytest.raises(DamagedStudy):
        view.read("broken")
    assert view.frame(study) == study_frame(view.store.runs, study)
    assert [r["state"] for r in view.frame(study)] == ["finished", "finished"]
    assert view.folder == root / "studies" and not view.running("grid")


def test_study_view_check_refuses_a_bad_or_taken_name_and_checks_a_new_grid(root):
    view = api.study_view(root)
    base = {"dataset": "digits", "num_clients": 4, "rounds": 1}
    points, err = view.check("grid", base, {"alpha": [0.5]})
    assert points is None and err == "a study named 'grid' exists already: choose another name"
    points, err = view.check("no/slash", base, {"alpha": [0.5]})
    assert points is None and err and "\n" not in err
    points, err = view.check("fresh", base, {"alpha": [0.5, 5.0]})
    assert err is None and len(points) == 2
    points, err = view.check("fresh", {**base, "num_clients": 0}, {"alpha": [0.5]})
    assert points is None and err == "clients must be an integer >= 1 (got 0): change --clients"


def test_claims_are_the_engines_rows_with_one_verdict_per_claim(tmp_path):
    table = api.claims(tmp_path)  # no study here: every row says so
    rows = check_claims(tmp_path)
    assert len(table) == len(rows) and list(table) == rows and table[0] == rows[0]
    assert table.verdicts() == claim_verdicts(rows)
    assert json.dumps([c["verdict"] for c in table.verdicts()])
