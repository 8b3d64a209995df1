"""Studies that train (tiny: digits, 6 clients, 1-2 rounds): each distinct run trained once,
finished runs reused (from a study or a plain ``fedquad run``), an interrupted study resumed.
Executions are counted as run folders: every training creates exactly one."""
import json

from fedquad_core.cli import main
from fedquad_core.runs.store import RunStore
from fedquad_core.study import StudyStore, study_frame
from fedquad_core.version import engine_fingerprint

TINY = ["--clients", "6", "--rounds", "2", "--local-epochs", "1", "--batch-size", "32", "--snapshot-every", "1",
        "--snapshot-points", "100", "--seed", "3", "--alpha", "0.5"]


def _study(runs, name, *grid, jobs="2"):
    argv = ["study", "run", name, "--runs-dir", str(runs), *TINY, "--jobs", jobs, "--quiet"]
    for g in grid:
        argv += ["--grid", g]
    return main(argv)


def test_study_trains_each_distinct_run_once_and_reuses_them(tmp_path, capsys):
    runs = tmp_path / "runs"
    store = RunStore(runs)
    # a plain run first: the study's FedAvg point must reuse it
    assert main(["run", "--runs-dir", str(runs), *TINY, "--method", "fedavg", "--run-id", "plain", "--no-progress"]) == 0
    assert _study(runs, "margins", "method=fedavg,fedquad", "m1=0,1") == 0
    # fedavg x {0, 1} is one run (m1 is not FedAvg's), the plain one; fedquad x {0, 1} are two new runs
    assert len(store.run_ids()) == 3
    study = StudyStore(runs).read("margins")
    by = {(p["coords"]["method"], p["coords"]["m1"]): p for p in study["points"]}
    assert by[("fedavg", 0.0)]["run_id"] == by[("fedavg", 1.0)]["run_id"] == "plain"
    assert study["engine"] == engine_fingerprint()
    for run_id in store.run_ids():
        status = store.read_status(run_id)
        assert status["state"] == "finished" and status["engine"] == engine_fingerprint() and len(status["key"]) == 16
    assert store.read_config(by[("fedquad", 0.0)]["run_id"])["method_params"]["m1"] == 0.0
    out = capsys.readouterr().out
    assert "fedquad  1.0" in out and "1/1" in out
    # the same study again trains nothing; so does another study whose points are all done
    assert _study(runs, "margins", "method=fedavg,fedquad", "m1=0,1") == 0
    assert _study(runs, "again", "m1=0,1") == 0  # method fedquad by default: both runs exist
    assert main(["study", "run", "margins", "--runs-dir", str(runs), "--quiet"]) == 0  # resume by name alone
    assert len(store.run_ids()) == 3
    assert [p["run_id"] for p in StudyStore(runs).read("again")["points"]] == [by[("fedquad", 0.0)]["run_id"],
                                                                                 by[("fedquad", 1.0)]["run_id"]]
    capsys.readouterr()
    # another grid under an existing name: one line, nothing trained or rewritten
    before = (runs / "studies" / "margins.json").read_text()
    assert _study(runs, "margins", "method=fedavg,fedquad", "m1=0,2") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "already exists with another grid" in err
    assert (runs / "studies" / "margins.json").read_text() == before and len(store.run_ids()) == 3


def test_an_interrupted_study_resumes_with_only_the_missing_points(tmp_path):
    runs = tmp_path / "runs"
    store = RunStore(runs)
    assert _study(runs, "alpha", "alpha=0.5,iid", "seed=0,1") == 0
    assert len(store.run_ids()) == 4
    study = StudyStore(runs).read("alpha")
    ids = [p["run_id"] for p in study["points"]]
    # as after Ctrl-C: one run cancelled mid-way, one point never started
    status = runs / ids[1] / "status.json"
    status.write_text(json.dumps({**json.loads(status.read_text()), "state": "cancelled"}))
    study["points"][3]["run_id"] = None
    (runs / "studies" / "alpha.json").write_text(json.dumps(study))
    store_ids = set(store.run_ids())
    import shutil

    shutil.rmtree(runs / ids[3])
    frame = study_frame(store, StudyStore(runs).read("alpha"))
    assert [r["state"] for r in frame] == ["finished", "cancelled", "finished", "missing"]
    assert _study(runs, "alpha", "alpha=0.5,iid", "seed=0,1", jobs="1") == 0
    new = set(store.run_ids()) - store_ids
    assert len(new) == 2  # the cancelled point and the missing one, nothing else
    after = StudyStore(runs).read("alpha")
    assert [p["run_id"] for p in after["points"]][::2] == ids[::2]
    assert {after["points"][1]["run_id"], after["points"][3]["run_id"]} == new
    assert all(r["state"] == "finished" for r in study_frame(store, after))


def test_studies_on_one_pool_train_in_the_same_processes_with_the_same_numbers(tmp_path):
    """``StudyPool`` (scripts/record_studies.py): two studies share its processes (the runs' pids),
    and their runs' metrics equal those of the same study on its own pool."""
    from fedquad_core.config import RunConfig
    from fedquad_core.study import StudyPool, StudySpec, run_study

    base = RunConfig(dataset="digits", num_clients=6, rounds=1, local_epochs=1, batch_size=32, snapshot_every=1,
                     seed=3, alpha=0.5)
    specs = [StudySpec(name="one", base=base, axes={"method": ["fedavg"]}),
             StudySpec(name="two", base=base, axes={"method": ["fedquad"]})]
    shared, alone = RunStore(tmp_path / "shared"), RunStore(tmp_path / "alone")
    with StudyPool(1) as pool:
        for spec in specs:
            run_study(spec, StudyStore(shared.root), pool=pool, quiet=True)
    run_study(specs[1], StudyStore(alone.root), jobs=1, quiet=True)
    pids = {shared.read_status(r)["pid"] for r in shared.run_ids()}
    assert len(shared.run_ids()) == 2 and len(pids) == 1  # one process trained both studies
    by_method = {shared.read_config(r)["method"]: r for r in shared.run_ids()}

    def numbers(store, run_id):
        return [{k: v for k, v in row.items() if not any(t in k for t in ("elapsed", "time", "sec"))}
                for row in store.read_metrics(run_id)]

    assert numbers(shared, by_method["fedquad"]) == numbers(alone, alone.run_ids()[0])
