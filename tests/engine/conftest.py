import pytest

from fedquad_core.runs.store import RunStore


@pytest.fixture
def store(tmp_path) -> RunStore:
    return RunStore(tmp_path / "runs")
