"""Run configuration: one frozen dataclass, its defaults and their resolution, serialised as JSON
next to the results it produced. Its checks live in ``preflight``."""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

DATASET_NAMES = ("digits", "fashion-mnist", "cifar10", "cifar100", "tiny-imagenet")
MODEL_NAMES = ("auto", "mlp", "cnn", "resnet18")
DEVICES = ("auto", "cpu", "cuda")
CLIENT_EXECS = ("auto", "sequential", "parallel", "vmap")  # how a round's clients are trained
DEFAULT_MODEL = {"digits": "mlp", "fashion-mnist": "cnn", "cifar10": "cnn", "cifar100": "resnet18",
                 "tiny-imagenet": "resnet18"}
# Local SGD per data set; a RunConfig field left at None takes its data set's value (see docs/methods.md,
# "How the defaults were chosen"). Image sets: NIID-Bench's (Li et al. 2021) lr 0.01, momentum 0.9,
# batch 64, weight decay 1e-5. Digits: measured on 50 clients of 28 samples (2 steps a round), where
# lr 0.01 leaves the model under-trained (FedAvg 15.9 % after 30 rounds).
_NIID_BENCH = {"lr": 0.01, "momentum": 0.9, "batch_size": 64, "weight_decay": 1e-5}
DATASET_DEFAULTS: dict[str, dict[str, float | int]] = {
    "digits": {"lr": 0.05, "momentum": 0.9, "batch_size": 64, "weight_decay": 1e-5},
    **{name: dict(_NIID_BENCH) for name in ("fashion-mnist", "cifar10", "cifar100", "tiny-imagenet")},
}


class ConfigError(ValueError):
    """A setting a user can change; the message says which and how."""


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    # data and partition
    dataset: str = "digits"
    data_dir: str | None = None
    download: bool = False
    train_subset: int | None = None  # class-stratified subset of the training set
    num_clients: int = 10
    alpha: float | None = 0.5  # Dirichlet concentration; None = IID
    min_size: int = 10
    # method
    method: str = "fedquad"
    method_params: dict[str, Any] = field(default_factory=dict)
    normalize_embeddings: bool = True  # L2-normalise embeddings before tuple losses
    model: str = "auto"
    # federated optimisation
    rounds: int = 20
    participation: float = 1.0
    local_epochs: int = 2
    batch_size: int | None = None  # None = the data set's default (DATASET_DEFAULTS)
    lr: float | None = None
    momentum: float | None = None
    weight_decay: float | None = None
    augment: bool | None = None  # None = the dataset's default
    # bookkeeping
    seed: int = 0
    device: str = "auto"
    workers: int = 0  # parallel client workers on CPU (0 = in-process, sequential)
    client_exec: str = "auto"  # auto: vmap on CUDA, parallel when workers > 0, else sequential
    snapshot_every: int = 5
    snapshot_points: int = 2000
    local_clients: int = 10  # clients whose local model is measured at each snapshot (0 = none)
    eval_points: int | None = None  # None = whole test set
    name: str | None = None  # free label shown in the dashboard

    # ---- derived -------------------------------------------------------------------------
    @property
    def model_name(self) -> str:
        return DEFAULT_MODEL[self.dataset] if self.model == "auto" else self.model

    def params(self):
        """The method's parameter dataclass, defaults filled in."""
        from ..methods import get_method

        return get_method(self.method).default_params(**self.method_params)

    def with_dataset_defaults(self) -> "RunConfig":
        """The same config with every training setting left at None set to its data set's default."""
        defaults = DATASET_DEFAULTS.get(self.dataset, {})
        filled = {k: v for k, v in defaults.items() if getattr(self, k) is None}
        return dataclasses.replace(self, **filled) if filled else self

    def resolved(self) -> "RunConfig":
        """The same config with every data set and method default written out (what is stored on
        disk, so a stored config holds concrete values)."""
        return dataclasses.replace(self.with_dataset_defaults(), method_params=dataclasses.asdict(self.params()))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunConfig":
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ConfigError(f"unknown config key(s) {', '.join(unknown)}: valid keys are {', '.join(sorted(names))}")
        return cls(**data)


def alpha_label(alpha: float | None, spec: str = "", *, iid: str = "iid") -> str:
    """How an alpha is written everywhere: ``iid`` (or ``iid="IID"``) for None, else ``format(alpha, spec)``."""
    return iid if alpha is None else format(alpha, spec)
