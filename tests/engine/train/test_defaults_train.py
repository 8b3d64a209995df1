"""Every method, two rounds, with the data set's default training settings (lr, momentum, batch,
weight decay, local epochs, method parameters: nothing set), on every data set available
offline: digits and a Fashion-MNIST subset. A run fails the test if it diverges (or any loss is
not finite) or if its accuracy after two rounds is at chance.

Sizes: the data set's defaults are fixed, so the test chooses only how much data a client holds,
i.e. how many SGD steps two rounds give. MOON's reference model (features -> projection head ->
classifier) has two more layers than the others and starts slower: with 6 digits clients
(23 samples a step, 6 steps a round) it is still at 10 % after two rounds although it reaches
79 % after eight. So digits uses 3 clients (about 470 samples, 16 steps a round) and
Fashion-MNIST a 4,000-image subset on 2 clients (about 63 steps a round). Measured on seed 0:
every method ends between 41 % and 77 % on digits and between 34 % (MOON) and 71 % on
Fashion-MNIST; the bar is 2x chance (20 %)."""
from __future__ import annotations

import math

import pytest

from fedquad_core.config import RunConfig
from fedquad_core.data import DataError, check_data
from fedquad_core.methods import METHODS
from fedquad_core.train.runner import execute

SETTINGS = {
    "digits": dict(num_clients=3),
    "fashion-mnist": dict(num_clients=2, train_subset=4000, eval_points=1000),
}
CHANCE = 0.1  # both sets have 10 balanced classes


def _available(dataset: str) -> bool:
    try:
        check_data(dataset)
        return True
    except DataError:
        return False


@pytest.mark.parametrize("dataset", list(SETTINGS))
@pytest.mark.parametrize("method", list(METHODS))
def test_two_rounds_with_defaults_train(store, dataset, method):
    if not _available(dataset):
        pytest.skip(f"{dataset} files missing (install dataset-fashion-mnist: scripts/setup.sh)")
    cfg = RunConfig(dataset=dataset, method=method, rounds=2, snapshot_points=100, seed=0, **SETTINGS[dataset])
    run_id = execute(cfg, store, progress=False)
    status, rows = store.read_status(run_id), store.read_metrics(run_id)
    assert status["state"] == "finished", status.get("error")
    assert len(rows) == 2 and all(math.isfinite(r["train_loss"]) for r in rows)
    assert rows[-1]["test_accuracy"] >= 2 * CHANCE, [r["test_accuracy"] for r in rows]
    stored = store.read_config(run_id)
    assert stored["lr"] is not None and stored["momentum"] is not None  # the defaults, written out
