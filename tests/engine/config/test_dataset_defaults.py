"""Per-data-set training defaults: resolved into stored configs, shown in --help, and each flag
of a method parameter described for every method it serves."""
import dataclasses

import pytest

from fedquad_core.cli.args import method_param_help
from fedquad_core.cli import build_parser
from fedquad_core.config import DATASET_DEFAULTS, DATASET_NAMES, ConfigError, RunConfig
from fedquad_core.config.preflight import validate
from fedquad_core.methods import METHODS


@pytest.mark.parametrize("dataset", DATASET_NAMES)
def test_every_data_set_has_concrete_defaults_and_stored_configs_hold_them(dataset):
    cfg = RunConfig(dataset=dataset).resolved()
    for key, value in DATASET_DEFAULTS[dataset].items():
        assert getattr(cfg, key) == value
    assert None not in (cfg.lr, cfg.momentum, cfg.batch_size, cfg.weight_decay)


def test_image_sets_use_niid_bench_and_digits_keeps_its_measured_lr():
    for name in ("fashion-mnist", "cifar10", "cifar100", "tiny-imagenet"):
        assert DATASET_DEFAULTS[name] == {"lr": 0.01, "momentum": 0.9, "batch_size": 64, "weight_decay": 1e-5}
    assert DATASET_DEFAULTS["digits"]["lr"] == 0.05


def test_an_explicit_value_wins_over_the_data_set_default():
    cfg = RunConfig(dataset="fashion-mnist", lr=0.2, momentum=0.0).resolved()
    assert (cfg.lr, cfg.momentum, cfg.batch_size) == (0.2, 0.0, 64)


def test_bad_explicit_values_still_rejected():
    with pytest.raises(ConfigError, match="--lr"):
        validate(RunConfig(dataset="fashion-mnist", lr=-1.0))


def _help(flag: str) -> str:
    run = build_parser()._subparsers._group_actions[0].choices["run"]
    return next(a.help for a in run._actions if flag in a.option_strings)


def test_help_shows_the_defaults_per_data_set():
    text = _help("--lr")
    assert "digits 0.05" in text and "fashion-mnist" in text and "0.01" in text
    assert "floor" in _help("--participation")


def test_beta_help_names_each_methods_own_term():
    text = method_param_help("beta")
    owners = [m for m, cls in METHODS.items() if "beta" in {f.name for f in dataclasses.fields(cls.Params)}]
    assert len(owners) == 4
    for part in text.split("; "):
        method = part.split(":")[0]
        assert method in owners
        assert ("SupCon" in part) == (method == "supcon")


def test_m2_help_gives_chen_form_for_quadruplet_and_anchor_form_for_fedquad():
    parts = dict(p.split(": ", 1) for p in method_param_help("m2").split("; "))
    assert "d(n1,n2)" in parts["quadruplet"] and "d(a,n2)" not in parts["quadruplet"]
    assert "d(a,n2)" in parts["fedquad"] and "negative-to-negative" not in parts["fedquad"]


def test_a_flag_one_method_owns_names_it():
    assert method_param_help("proj_dim").endswith("[moon]")
