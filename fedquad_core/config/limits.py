"""Upper bounds on every count and size of a run and a study (docs/reliability.md).

``config.validate`` checks types, choices and lower bounds; ``check_bounds`` adds what fits this
machine and the data set: a run cannot ask for more rounds than anyone waits for, more snapshot
or evaluation points than the test set has, a batch larger than the training set (or, once the
partition is drawn, than the largest client), or a float setting that float32 cannot hold.
``check_grid_size`` caps the points of a study grid (``--yes-large-grid`` lifts it). Each failure
is a ``ConfigError`` naming the flag: one line and exit code 2, before any work."""
from __future__ import annotations

from typing import Any

from ..errors import UserError
from .numbers import FLOAT_MAX, FLOAT_TINY, float32_problem as _float32_problem  # noqa: F401 (re-exported)
from .run import DATASET_DEFAULTS, ConfigError

ROUNDS_MAX = 10_000        # about a day of digits rounds, weeks of CIFAR ones
CLIENTS_MAX = 10_000       # and never more than the training samples (validate)
SNAPSHOT_EVERY_MAX = ROUNDS_MAX
SNAPSHOT_POINTS_FLOOR = 2_000  # the default: on a smaller test set it means all the test points evaluated
GRID_POINTS_MAX = 1_000    # points of one study grid; --yes-large-grid lifts it ...
GRID_POINTS_HARD_MAX = 100_000  # ... up to this: a study file of about 15 MB, prepared in seconds
# checked by preflight.validate (here so that the dashboard's forms read them without torch)
SEED_MAX = 2**63 - 1  # torch.Generator.manual_seed's range; numpy takes any seed >= 0
WORKERS_MAX = 256
LOCAL_EPOCHS_MAX = 1000  # a client draws its batch order for all its epochs up front
LOCAL_CLIENTS_MAX = 100  # each costs a forward pass and K x points x dim float16 a snapshot
NAME_MAX = 200

_INTS = (("rounds", "--rounds", ROUNDS_MAX), ("num_clients", "--clients", CLIENTS_MAX),
         ("snapshot_every", "--snapshot-every", SNAPSHOT_EVERY_MAX))
_FLOATS = (("lr", "--lr"), ("momentum", "--momentum"), ("weight_decay", "--weight-decay"))  # alpha: alpha.alpha_problem


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_bounds(cfg, *, train_size: int | None = None, test_size: int | None = None,
                 largest_client: int | None = None) -> None:
    """Raise ``ConfigError`` for a count or size above its bound. The data set's sizes come from its
    summary unless given (the training subset, when set, is the training set); ``largest_client``
    (known once the partition is drawn) bounds the batch size more tightly."""
    for name, flag, high in _INTS:
        value = getattr(cfg, name, None)
        if _number(value) and value > high:
            raise ConfigError(f"{name.replace('_', ' ')} cannot be above {high:,} (got {value:,}): lower {flag}")
    for name, flag in _FLOATS:
        problem = _float32_problem(getattr(cfg, name, None))
        if problem:
            raise ConfigError(f"{name.replace('_', ' ')} {problem}: change {flag}")
    momentum = getattr(cfg, "momentum", None)
    if _number(momentum) and not 0 <= momentum < 1:
        raise ConfigError(f"momentum must be at least 0 and below 1 (got {momentum!r}): change --momentum")
    for key, value in (getattr(cfg, "method_params", None) or {}).items():
        problem = _float32_problem(value)
        if problem:
            raise ConfigError(f"{cfg.method} {key} {problem}: change --{key.replace('_', '-')}")
    if train_size is None or test_size is None:
        train_size, test_size = _sizes(cfg, train_size, test_size)
    if test_size:
        test = min(test_size, cfg.eval_points) if _number(cfg.eval_points) else test_size
        if _number(cfg.eval_points) and cfg.eval_points > test_size:
            raise ConfigError(f"eval points cannot be above the {test_size:,} test samples of {cfg.dataset} "
                              f"(got {cfg.eval_points:,}): lower --eval-points, or leave it out for all of them")
        cap = max(test, SNAPSHOT_POINTS_FLOOR)  # up to the default means "all of them" on a small test set
        if _number(cfg.snapshot_points) and cfg.snapshot_points > cap:
            raise ConfigError(f"snapshot points cannot be above {cap:,} (the test points evaluated, or "
                              f"{SNAPSHOT_POINTS_FLOOR:,}; got {cfg.snapshot_points:,}): lower --snapshot-points")
    batch = cfg.batch_size
    if _number(batch):
        floor = _default_batch(cfg)  # the data set's default batch is always allowed (a small client: one batch)
        if largest_client is not None and batch > max(largest_client, floor):
            raise ConfigError(f"batch size {batch:,} is larger than the largest client ({largest_client:,} samples): "
                              "lower --batch-size")
        if train_size and batch > max(train_size, floor):
            raise ConfigError(f"batch size {batch:,} is larger than the {train_size:,} training samples: "
                              "lower --batch-size")
    if train_size and _number(cfg.min_size) and cfg.min_size > train_size:
        raise ConfigError(f"min size cannot be above the {train_size:,} training samples (got {cfg.min_size:,}): "
                          "lower --min-size")


def _default_batch(cfg) -> int:
    return int((DATASET_DEFAULTS.get(cfg.dataset) or {}).get("batch_size") or 0)


def _sizes(cfg, train_size, test_size) -> tuple[int | None, int | None]:
    from ..data import data_summary  # lazy: about 1.4 s of torch (benchmarks/lazy_imports.py); the pages import limits

    try:
        summary = data_summary(cfg.dataset, data_dir=cfg.data_dir)
    except (ValueError, KeyError, OSError):
        return train_size, test_size
    if train_size is None:
        train_size = cfg.train_subset if _number(cfg.train_subset) else summary.get("train_size")
    return train_size, test_size if test_size is not None else summary.get("test_size")


def grid_points(axes: dict[str, list]) -> int:
    total = 1
    for values in axes.values():
        total *= max(1, len(values))
    return total


def check_grid_size(axes: dict[str, list], *, allow_large: bool = False) -> None:
    """A grid of more than ``GRID_POINTS_MAX`` points is refused before it is expanded."""
    total = grid_points(axes)
    if total > GRID_POINTS_HARD_MAX:
        raise UserError(f"the grid has {total:,} points, more than {GRID_POINTS_HARD_MAX:,}, the most one study "
                        "holds even with --yes-large-grid: split it into several studies")
    if total > GRID_POINTS_MAX and not allow_large:
        raise UserError(f"the grid has {total:,} points, more than {GRID_POINTS_MAX:,}: shorten an axis, "
                        "or add --yes-large-grid if you mean it")


def check_text(value: Any, what: str, flag: str, limit: int = 2_000) -> str | None:
    """A study's title or description: None or a printable string of at most ``limit`` characters."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit or not value.replace("\n", " ").isprintable():
        raise UserError(f"{what} must be text of at most {limit:,} printable characters (got {str(value)[:40]!r}): "
                        f"change {flag}")
    return value
