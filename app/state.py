"""View settings live in the URL (st.query_params) so a copied link reproduces the view.

Pattern, per widget key:
    value = state.init("alpha", 0.3, float)      # session_state <- URL <- default, before the widget
    st.select_slider(..., key="alpha")            # the widget owns the value
    state.publish("alpha")                         # URL <- session_state, after the widget
``state.value`` gives a setting when its widget is hidden (presenter mode).
Global settings (talk, presenter) are kept in session_state across pages as well.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import streamlit as st

from fedquad_core.api import parse_float, parse_int

_LIST = "list"


_BAD = object()  # a URL value that does not parse


def _parse(raw: Any, default: Any, cast: Callable | str) -> Any:
    try:
        if cast == _LIST:
            return list(raw)
        if cast is bool:
            return str(raw).lower() in ("1", "true", "yes", "on")
        if raw in ("none", "None") and default is None:
            return None
        if cast is int and isinstance(raw, str):  # the one rule of numbers: no '_', ASCII digits, bounded
            return parse_int(raw)
        if cast is float and isinstance(raw, str):
            return parse_float(raw)
        return cast(raw)
    except (TypeError, ValueError, OverflowError):  # NumberError is a ValueError
        return _BAD


def _lookup(key: str, default: Any, cast: Callable | str, item: Callable | None = None) -> tuple[Any, Any]:
    """(value, the raw URL value or None when it came from session_state or the default); the
    value is ``_BAD`` (or, for lists, holds ``_BAD`` items) where the URL's text does not parse."""
    if key in st.session_state:
        return st.session_state[key], None
    if cast == _LIST:
        raw = st.query_params.get_all(key)
        if not raw:
            return default, None
        return ([_parse(x, None, item) for x in raw] if item else list(raw)), raw
    raw = st.query_params.get(key)
    return (default, None) if raw is None else (_parse(raw, default, cast), raw)


def value(key: str, default: Any, cast: Callable | str = str) -> Any:
    """The setting: session_state first, then the URL, then the default."""
    v, _ = _lookup(key, default, cast)
    return default if v is _BAD else v


def _fits(v: Any, cast: Callable | str, options: list | None, lo: Any, hi: Any) -> bool:
    if v is _BAD or (options is not None and v not in options):
        return False
    if cast in (int, float) and v is not None:
        if not math.isfinite(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
            return False
    return True


def init(key: str, default: Any, cast: Callable | str = str, options: list | None = None, *,
         lo: Any = None, hi: Any = None, item: Callable | None = None) -> Any:
    """Seed session_state from the URL before the widget with this key is drawn. A URL value
    that does not parse, is not among ``options`` or lies outside [lo, hi] (the widget's own
    bounds) gives way to the default with a small notice, where the widget would raise on it.
    ``item`` casts the items of a list setting (e.g. float for a list of alphas)."""
    v, raw = _lookup(key, default, cast, item)
    if cast == _LIST:
        kept = [x for x in v if x is not _BAD and (options is None or x in options)]
        bad, v = len(kept) != len(v), kept
    else:
        bad = not _fits(v, cast, options, lo, hi)
        v = default if bad else v
    if bad and raw is not None:
        st.toast(f"Link setting {key}={_show(raw)} is not valid here: using {_show(v) or 'none'} instead.",
                 icon=":material/link_off:")
    st.session_state[key] = v
    return v


def _show(v: Any) -> str:
    return ", ".join(map(str, v)) if isinstance(v, list) else str(v)


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
