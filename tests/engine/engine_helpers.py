"""Shared by the engine tests (a module of its own: every test folder has a conftest.py, so
``from conftest import ...`` would pick whichever was imported first)."""
from fedquad_core.config import RunConfig


def tiny_config(**overrides) -> RunConfig:
    base = dict(dataset="digits", num_clients=6, alpha=0.5, rounds=2, local_epochs=1, batch_size=32,
                snapshot_every=1, snapshot_points=100, seed=3)
    base.update(overrides)
    return RunConfig(**base)
