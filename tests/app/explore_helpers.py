"""The Explore page's test helpers (tests/app/views/test_explore.py, tests/app/studies/test_shared_figures.py):
open the page, read a figure the browser is sent, a seed's trace, a run's accuracy."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, shown, switcher, trace_values
from fedquad_core.runs.store import RunStore

EXPLORE = "views/explore.py"


def open_explore(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60)
    for k, v in (params or {}).items():
        at.query_params[k] = v
    at.run()
    if [t.value for t in at.title] != ["Explore"]:  # no recorded study: the app opens elsewhere
        at.switch_page(EXPLORE).run()
    return at


def chart(at: AppTest, key: str, position: dict | None = None) -> dict:
    """The plotly spec the browser shows for the figure ``key`` (``x_acc``: the switcher's slot
    ``acc``) at ``position`` (default: the page's slider position)."""
    got = shown(at, key.removeprefix("x_"), position)
    assert got and got["fig"], f"no figure {key!r} at {position or switcher(at)['value']}"
    return got["fig"]


def slider(at: AppTest, axis: str) -> str:
    """The slider position the page (and the browser's switcher) holds for ``axis``."""
    value = switcher(at)["value"][axis]
    assert at.session_state[f"x_{axis}"] == value
    return value


def seed_trace(spec: dict, method: str, seed: int) -> list:
    trace = next(t for t in spec["data"] if t.get("name") == f"{method} seed {seed}")
    return trace_values(trace)


def run_acc(root, run_id) -> list:
    return [r["test_accuracy"] for r in RunStore(root).read_metrics(run_id)]
