"""The preflight (``preflight.check_config``) runs once per configuration on every path that
starts runs, and hands the checked partition on."""
from __future__ import annotations

import numpy as np
import pytest

from engine_helpers import tiny_config
from fedquad_core.config import preflight
from fedquad_core.train import runner
from fedquad_core.cli import main
from fedquad_core.config import ConfigError
from fedquad_core.numerics.partition import partition


@pytest.fixture
def calls(monkeypatch):
    seen: list = []
    real = preflight.check_config

    def counted(cfg):
        seen.append(cfg)
        return real(cfg)

    monkeypatch.setattr(preflight, "check_config", counted)
    monkeypatch.setattr(runner, "check_config", counted)
    import fedquad_core.cli.commands as commands

    monkeypatch.setattr(commands, "check_config", counted)
    return seen


def test_check_grid_checks_each_config_once_and_returns_its_partition(calls):
    cfgs = [tiny_config(method=m) for m in ("fedavg", "fedquad", "moon")] + [tiny_config(seed=4)]
    parts = preflight.check_grid(cfgs)
    assert len(calls) == len(cfgs)
    assert len(parts) == len(cfgs) and parts[0] is parts[1] is parts[2]  # one split per distinct draw
    labels = preflight._load_labels(cfgs[3], 0)
    for got, want in zip(parts[3], partition(labels, 6, 0.5, seed=4, min_size=10)):
        assert np.array_equal(got, want)


def test_check_grid_without_labels_checks_settings_but_returns_no_partition(calls):
    assert preflight.check_grid([tiny_config(), tiny_config(seed=1)], labels=lambda c: None) == [None, None]
    assert len(calls) == 2


def test_a_bad_config_stops_the_grid_at_its_preflight(calls):
    with pytest.raises(ConfigError, match="--rounds"):
        preflight.check_grid([tiny_config(), tiny_config(rounds=0)])


def test_fedquad_run_runs_the_preflight_once(calls, tmp_path):
    argv = ["run", "--runs-dir", str(tmp_path), "--clients", "4", "--rounds", "1", "--local-epochs", "1",
            "--method", "fedavg", "--snapshot-points", "50", "--no-progress", "--workers", "0"]
    assert main(argv) == 0
    assert len(calls) == 1


def test_prepare_checks_unless_told_it_was_checked(calls):
    cfg = tiny_config()
    runner.prepare(cfg)
    assert len(calls) == 1
    runner.prepare(preflight.check_config(cfg), checked=True)
    assert len(calls) == 2  # the explicit call only


def test_a_study_runs_the_preflight_once_per_point_before_training(calls, monkeypatch, tmp_path):
    import fedquad_core.study.run as study_run
    from fedquad_core.runs.store import RunStore
    from fedquad_core.study import StudySpec, parse_grid, run_study

    trained = []
    monkeypatch.setattr(study_run, "run_in_pool", lambda todo, runs, **kw: trained.extend(todo))
    spec = StudySpec("pre", tiny_config(), parse_grid(["method=fedavg,fedquad", "seed=0,1"]))
    study = run_study(spec, RunStore(tmp_path), jobs=1, quiet=True)
    assert len(study["points"]) == 4 == len(calls) == len(trained)
