"""One Launch, end to end: the Launch page's service checks each configuration once and draws each
distinct partition once, and the run's process (run here in-process, through the same CLI entry
the launcher starts) trusts the checked, digest-matched config: it neither checks it nor draws the
partition again. Counted with monkeypatch; no background process is started."""
from __future__ import annotations

import json
import os
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest

from app.service import catalog
from app.service import launching as service
from fedquad_core.cli import commands
from fedquad_core.cli.main import main
from fedquad_core.config import preflight
from fedquad_core.numerics import partition as partition_module
from fedquad_core.runs import launcher, preflight_file
from fedquad_core.runs.store import RunStore
from fedquad_core.train import runner

COMMON = dict(dataset="digits", num_clients=6, alpha=0.5, rounds=1, local_epochs=1, seed=0, snapshot_every=1,
              snapshot_points=50, local_clients=0)


@pytest.fixture
def counted(monkeypatch, tmp_path):
    """Counts of the config checks (``check_config``: validate and bounds), the α rule, the partition
    draws (Dirichlet or IID) and the processes the launcher would start (their commands)."""
    seen: Counter = Counter()

    def count(module, name, key):
        real = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, **k: seen.update([key]) or real(*a, **k))

    real_check = preflight.check_config

    def check(cfg):
        seen.update(["check_config"])
        return real_check(cfg)

    for module in (preflight, runner, commands):  # every module that calls it by its own name
        monkeypatch.setattr(module, "check_config", check)
    count(preflight, "alpha_problem", "alpha rule")
    count(partition_module, "dirichlet_partition", "draw")  # partition() looks both up in its module
    count(partition_module, "iid_partition", "draw")
    started = []
    monkeypatch.setattr(launcher, "request", lambda *a, **k: None)  # no warm server
    monkeypatch.setattr(launcher, "spawn_detached",
                        lambda cmd, log, **k: started.append(cmd) or SimpleNamespace(pid=os.getpid()))
    monkeypatch.setattr(service, "runs_dir", lambda: tmp_path / "runs")
    catalog.dataset_partition.clear()  # a draw cached by another test would not be counted
    return seen, started, tmp_path / "runs"


def _child(root, run_id: str) -> int:
    """What the launcher's process runs (``slot_wait`` execs it; the warm server calls it)."""
    return main(["run", "--runs-dir", str(root), "--run-id", run_id, "--no-progress", "--slots", "1"])


def test_one_launch_checks_its_config_once_and_draws_its_partition_once(counted):
    seen, started, root = counted
    checked, problem = service.preflight(service.make_configs(["fedavg"], COMMON, {}))
    assert problem is None
    _, (run_id,) = service.launch_group(checked)
    assert len(started) == 1 and "--run-id" in started[0]  # the process the launcher would start
    assert (root / run_id / preflight_file.FILE).is_file()
    assert _child(root, run_id) == 0
    # the α rule also guards the draw inside dirichlet_partition (fingerprinted code, unchanged):
    # that guard runs once, inside the one draw counted here
    assert seen == Counter({"check_config": 1, "alpha rule": 1, "draw": 1})
    store = RunStore(root)
    assert store.read_status(run_id)["state"] == "finished"
    want = np.array([[int((np.asarray(catalog.dataset_labels("digits", None, 0)[0])[p] == c).sum()) for c in range(10)]
                     for p in checked[0].parts])
    assert np.array_equal(np.array(store.read_partition(run_id)["counts"]), want)  # trained on the checked split


def test_a_group_checks_each_config_once_and_draws_its_shared_partition_once(counted):
    seen, _, root = counted
    checked, problem = service.preflight(service.make_configs(["fedavg", "fedquad", "moon"], COMMON,
                                                              {"fedquad": {"m1": 0.8}}))
    assert problem is None
    assert checked[0].parts is checked[1].parts is checked[2].parts
    _, ids = service.launch_group(checked)
    assert len(ids) == 3 and all((root / i / preflight_file.FILE).is_file() for i in ids)
    assert seen == Counter({"check_config": 3, "alpha rule": 3, "draw": 1})


def test_the_run_checks_and_draws_itself_when_its_config_changed_after_the_preflight(counted):
    seen, _, root = counted
    checked, _ = service.preflight(service.make_configs(["fedavg"], COMMON, {}))
    _, (run_id,) = service.launch_group(checked)
    path = root / run_id / "config.json"
    config = json.loads(path.read_text())
    path.write_text(json.dumps({**config, "seed": 1}))  # no longer the config the partition was checked for
    assert _child(root, run_id) == 0
    assert seen == Counter({"check_config": 2, "alpha rule": 2, "draw": 2})  # preflight, then the run's own
    assert RunStore(root).read_status(run_id)["state"] == "finished"


@pytest.mark.parametrize("damage", ["truncate", "labels", "indices"])
def test_a_damaged_or_foreign_preflight_file_is_not_trusted(tmp_path, damage):
    config = {"dataset": "digits", "seed": 0}
    parts = [np.array([0, 2]), np.array([1, 3])]
    preflight_file.write(tmp_path / preflight_file.FILE, [(config, parts, "labels-digest")], "engine")
    found = preflight_file.read_run(tmp_path, config, "engine")
    assert found is not None and found[1] == "labels-digest"
    assert all(np.array_equal(a, b) for a, b in zip(found[0], parts))
    assert preflight_file.read_run(tmp_path, {**config, "seed": 1}, "engine") is None  # another config
    assert preflight_file.read_run(tmp_path, config, "another engine") is None
    path = tmp_path / preflight_file.FILE
    if damage == "truncate":
        path.write_bytes(path.read_bytes()[:40])
    else:
        with np.load(path) as data:
            arrays = dict(data)
        if damage == "labels":
            meta = json.loads(str(arrays["meta"]))
            for entry in meta["entries"].values():
                entry["labels"] = None
            arrays["meta"] = np.array(json.dumps(meta))
        else:
            arrays["indices_0"] = arrays["indices_0"][::-1].copy()  # the partition no longer matches its digest
        np.savez(path, **arrays)
    assert preflight_file.read_run(tmp_path, config, "engine") is None


def test_a_study_from_the_dashboard_is_checked_once_and_its_driver_trusts_the_check(counted, monkeypatch):
    from app.studies import catalog as studies
    from fedquad_core.study import run as study_run

    seen, started, root = counted
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(root))
    trained = {}
    monkeypatch.setattr(study_run, "run_in_pool", lambda todo, runs, **kw: trained.update(todo))
    base = {**COMMON, "method": "fedavg", "method_params": {}}
    checked, problem = service.preflight_study("pre", base, {"method": ["fedavg", "fedquad"]})
    assert problem is None and len(checked) == 2
    service.launch_study("pre", {"title": "pre", "base": base, "axes": {"method": ["fedavg", "fedquad"]}}, checked=checked)
    assert seen == Counter({"check_config": 2, "alpha rule": 2, "draw": 1})
    # the driver, in-process: `fedquad study run pre --file ... --preflight ...`; run_in_pool is replaced
    # and trains nothing, so no point finishes and the driver exits 1 (a study with no finished point)
    assert main(started[-1][3:]) == 1
    assert seen == Counter({"check_config": 2, "alpha rule": 2, "draw": 1})  # nothing checked or drawn again
    assert len(trained) == 2 and all(np.array_equal(a, b) for c in trained.values()
                                     for a, b in zip(c.parts, checked[0].parts))
    # without the dashboard's check (e.g. "Compute missing points"), the driver checks and draws itself
    trained.clear()
    service.launch_study("pre")
    assert "--preflight" not in started[-1]
    assert main(started[-1][3:]) == 1
    assert seen == Counter({"check_config": 4, "alpha rule": 4, "draw": 2})


def test_the_launch_preflight_reuses_the_partitions_page_draw(counted):
    seen, _, _ = counted
    catalog.partition_counts("digits", 6, 0.5, 0, 10)  # what the Partitions page shows for these settings
    assert seen["draw"] == 1
    checked, problem = service.preflight(service.make_configs(["fedavg"], COMMON, {}))
    assert problem is None and seen["draw"] == 1  # the same split, drawn once


def test_a_study_name_that_is_bad_or_taken_is_refused_before_any_check(counted, monkeypatch):
    seen, _, root = counted
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(root))
    base = {**COMMON, "method": "fedavg", "method_params": {}}
    (root / "studies").mkdir(parents=True, exist_ok=True)
    (root / "studies" / "taken.json").write_text("{}")
    assert service.preflight_study("taken", base, {"method": ["fedavg"]}) == (
        None, "a study named 'taken' exists already: choose another name")
    checked, problem = service.preflight_study("bad name", base, {"method": ["fedavg"]})
    assert checked is None and problem.startswith("invalid study name 'bad name'")
    assert seen == Counter()  # nothing checked or drawn
