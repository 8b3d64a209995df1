"""View settings live in the URL (st.query_params) so a copied link reproduces the view.

Pattern, per widget key:
    value = state.init("alpha", 0.3, float)      # session_state <- URL <- default, before the widget
    st.select_slider(..., key="alpha")            # the widget owns the value
    state.publish("alpha")                         # URL <- session_state, after the widget
``state.value`` gives a setting when its widget is hidden (presenter mode).
Global settings (talk, presenter) are kept in session_state across pages as well.
"""
from __future__ import annotations

from typing import Any, Callable

import streamlit as st

_LIST = "list"


def _parse(raw: Any, default: Any, cast: Callable | str) -> Any:
    try:
        if cast == _LIST:
            return list(raw)
        if cast is bool:
            return str(raw).lower() in ("1", "true", "yes", "on")
        if raw in ("none", "None") and default is None:
            return None
        return cast(raw)
    except (TypeError, ValueError):
        return default


def value(key: str, default: Any, cast: Callable | str = str) -> Any:
    """The setting: session_state first, then the URL, then the default."""
    if key in st.session_state:
        return st.session_state[key]
    if cast == _LIST:
        raw = st.query_params.get_all(key)
        return raw if raw else default
    raw = st.query_params.get(key)
    return default if raw is None else _parse(raw, default, cast)


def init(key: str, default: Any, cast: Callable | str = str, options: list | None = None) -> Any:
    """Seed session_state from the URL before the widget with this key is drawn."""
    v = value(key, default, cast)
    if options is not None:
        if cast == _LIST:
            v = [x for x in v if x in options]
        elif v not in options:
            v = default
    st.session_state[key] = v
    return v


def publish(*keys: str) -> None:
    """Write the current values of these settings into the URL."""
    for key in keys:
        if key not in st.session_state:
            continue
        v = st.session_state[key]
        if isinstance(v, (list, tuple)):
            st.query_params[key] = [str(x) for x in v]
        elif isinstance(v, bool):
            st.query_params[key] = "1" if v else "0"
        else:
            st.query_params[key] = "none" if v is None else str(v)


def talk() -> bool:
    return bool(st.session_state.get("talk", False))


def presenter() -> bool:
    return bool(st.session_state.get("presenter", False))


LIST = _LIST
