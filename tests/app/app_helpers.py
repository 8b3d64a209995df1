"""Shared helpers of the dashboard tests (paths, polling the store)."""
from __future__ import annotations

import os
import time
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
MAIN = str(ROOT / "app" / "main.py")
PAGES = ["views/partitions.py", "views/launch.py", "views/live.py", "views/embeddings.py",
         "views/geometry.py", "views/clients.py", "views/runs.py", "views/explore.py"]


def wait_finished(store, run_ids, timeout=120.0):
    """Poll the store until every run has left queued/running; return their states."""
    deadline = time.monotonic() + timeout
    while True:
        states = [store.read_status(r).get("state") for r in run_ids]
        if all(s not in ("queued", "running") for s in states) or time.monotonic() > deadline:
            return states
        time.sleep(0.5)


def trace_values(trace: dict, axis: str = "y") -> list:
    """A plotly trace's x or y values, whether plain lists or plotly 6 typed arrays ({dtype, bdata})."""
    import base64

    import numpy as np

    v = trace.get(axis)
    if isinstance(v, dict) and "bdata" in v:
        arr = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        shape = v.get("shape")
        if isinstance(shape, str):  # plotly writes "rows, cols"
            shape = [int(n) for n in shape.split(",")]
        return arr.reshape(shape).tolist() if shape else arr.tolist()
    return list(v) if v is not None else []


def open_page(page: str):
    """The app run once, then switched to ``page`` (a path under app/, e.g. "views/runs.py")."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    at.switch_page(page)
    at.run()
    return at


def page_text(at) -> str:
    """Everything the page shows as text: its elements' values and its tables."""
    parts = [str(getattr(el, "value", "")) for el in at.main]
    parts += [df.value.to_string() for df in at.dataframe]
    return "\n".join(parts)


# ---- the figure switcher (app/switcher): the browser draws and swaps its figures ------------------
def switcher(at) -> dict:
    """The args the page sent to the figure switcher: ``layout`` (its sliders and rows), ``value``
    (the position), ``positions`` (the figures and captions of each position sent), ``figures``."""
    import json

    for el in at.get("component_instance"):
        if el.proto.component_name.endswith("fedquad_switcher"):
            return json.loads(el.proto.json_args)
    raise AssertionError("no figure switcher on the page")


def switcher_options(at, axis: str) -> list[str]:
    return next(a["options"] for a in switcher(at)["layout"]["axes"] if a["key"] == axis)


def shown(at, slot: str, position: dict | None = None) -> dict | None:
    """What the browser shows in ``slot`` at ``position`` (default: the page's position):
    {"fig": the plotly spec or None, "caption": ...}; None when the slot is empty there."""
    import json

    args = switcher(at)
    pos = position or args["value"]
    key = "|".join(f"{a['key']}={pos[a['key']]}" for a in args["layout"]["axes"])
    panel = args["positions"][key]["panels"].get(slot)
    if panel is None:
        return None
    return {"fig": json.loads(args["figures"][panel["fid"]]) if panel["fid"] else None, "caption": panel["caption"]}


def move(at, near: bool = False, **pos) -> None:
    """A slider move in the browser: the switcher sends its new position (``{pos, seq}``) as the
    component's value, and the page re-runs, as Streamlit does when the iframe sends it.
    ``near``: instead, the request the switcher sends once it has drawn a study (same position)."""
    import json

    from streamlit.proto.WidgetStates_pb2 import WidgetState

    el = next(e for e in at.get("component_instance") if e.proto.component_name.endswith("fedquad_switcher"))
    args = json.loads(el.proto.json_args)
    states = at._tree.get_widget_states()
    value = {"pos": args["value"], "seq": args["seq"], "near": True} if near else \
        {"pos": {**args["value"], **pos}, "seq": args["seq"] + 1}
    states.widgets.append(WidgetState(id=el.proto.id, json_value=json.dumps(value)))
    at._run(states)


def walk(node):
    """Every leaf element of an AppTest element tree, in order."""
    children = getattr(node, "children", None)
    if children is None:
        yield node
        return
    for k in sorted(children):
        yield from walk(children[k])
