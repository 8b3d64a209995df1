"""The Launch path (the service's check, then its launch) runs the engine's preflight once per
configuration (counted with monkeypatch; the background processes are not started)."""
from __future__ import annotations

from app.service import launching as service
from fedquad_core.runs import launcher
from fedquad_core.config import preflight


def test_launch_path_runs_the_preflight_once_per_configuration(monkeypatch, tmp_path):
    seen = []
    real = preflight.check_config
    monkeypatch.setattr(preflight, "check_config", lambda cfg: seen.append(cfg) or real(cfg))
    launched = []
    monkeypatch.setattr(launcher, "launch", lambda cfg, root, **kw: launched.append(cfg) or f"run{len(launched)}")
    monkeypatch.setattr(service, "runs_dir", lambda: tmp_path)
    common = dict(dataset="digits", num_clients=6, alpha=0.5, rounds=1, local_epochs=1, seed=0)
    cfgs = service.make_configs(["fedavg", "fedquad", "moon"], common, {"fedquad": {"m1": 0.8}})
    assert service.check_configs(cfgs) is None
    group, ids = service.launch_group(cfgs)
    assert len(seen) == len(cfgs) == len(launched) == len(ids)
