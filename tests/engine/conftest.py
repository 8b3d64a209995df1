import pytest

from fedquad_core.config import RunConfig
from fedquad_core.store import RunStore


def tiny_config(**overrides) -> RunConfig:
    base = dict(dataset="digits", num_clients=6, alpha=0.5, rounds=2, local_epochs=1, batch_size=32,
                snapshot_every=1, snapshot_points=100, seed=3)
    base.update(overrides)
    return RunConfig(**base)


@pytest.fixture
def store(tmp_path) -> RunStore:
    return RunStore(tmp_path / "runs")
