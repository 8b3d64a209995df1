"""The Launch page's run form: its fields with the engine's defaults and the widgets' ranges, the
preset and data-set callbacks, and one widget per method parameter (from the method registry)."""
from __future__ import annotations

import streamlit as st

from app import presets, service, state
from app.service.catalog import ALPHAS, slider_alpha

FIELDS = ("dataset", "model", "num_clients", "alpha", "participation", "local_epochs", "rounds", "lr", "batch_size",
          "snapshot_every", "seed", "train_subset", "device", "min_size")
DEFAULTS = {k: v for k, v in service.config_defaults().items() if k in FIELDS}  # the engine's defaults
CASTS = {"dataset": str, "model": str, "num_clients": int, "alpha": float, "participation": float,
         "local_epochs": int, "rounds": int, "lr": float, "batch_size": int, "snapshot_every": int,
         "seed": int, "train_subset": int, "device": str, "min_size": int}
MODELS = ["auto", "mlp", "cnn", "resnet18"]
OPTIONS = {"dataset": list(service.DATASET_NAMES), "model": MODELS, "device": list(service.DEVICES), "alpha": ALPHAS}


def apply_preset() -> None:
    p = presets.PRESETS.get(st.session_state.l_preset)
    if not p:
        return
    cfg = {**DEFAULTS, **p["config"]}
    for k in DEFAULTS:
        st.session_state[f"l_{k}"] = cfg[k] if not (k == "train_subset" and cfg[k] is None) else 0
    st.session_state.l_iid = cfg["alpha"] is None
    st.session_state.l_alpha = slider_alpha(cfg["alpha"])
    st.session_state.l_methods = list(p["methods"])


def apply_dataset_defaults() -> None:
    d = service.dataset_defaults(st.session_state.l_dataset)
    st.session_state.l_lr, st.session_state.l_batch_size = d["lr"], d["batch_size"]


def param_label(spec) -> str:
    """``name — what it is``, from the registry's help (without its parenthesised remark), e.g.
    "m1 — margin of the anchor-to-first-negative term"; the full help stays in the tooltip."""
    what = spec.help.split(" (")[0].split(" [")[0].strip().rstrip(".")
    if len(what) > 48:
        what = what[:47].rsplit(" ", 1)[0] + "…"
    name = spec.name.replace("_", " ")
    return f"{name} — {what}" if what else name


def param_widget(method: str, spec) -> None:
    key = f"l_{method}_{spec.name}"
    kind = int if spec.integer else float
    lo, hi = kind(spec.min or 0), kind(spec.max or 4 * spec.default)
    options = service.log_options(spec.min, spec.max) if spec.log else None
    state.init(key, spec.default, kind, options, lo=lo, hi=hi)
    label = param_label(spec)
    if spec.log:
        st.select_slider(label, options, key=key, help=spec.help)
    elif spec.integer:
        st.slider(label, lo, hi, step=1, key=key, help=spec.help)
    else:
        st.slider(label, lo, hi, step=float(spec.step or 0.01), key=key, help=spec.help)
    state.publish(key)
