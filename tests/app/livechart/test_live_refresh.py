"""The Live page's charts are updated in place while runs train, never replaced.

The browser keys a chart by its element id: a chart whose id changes is mounted afresh, blank until
plotly has drawn it (st.plotly_chart's id hashes the figure, so every new point did that: blanks of
0.1-0.8 s at each refresh, ``benchmarks/live_refresh.py``). So a chart must keep its id and its
place in the page while points arrive, and when the runs end (the one full re-run that stops the
refreshing), and still show the new points. The browser side (the same element redrawn with
Plotly.react) is ``tests/e2e/test_live_refresh.py``."""
from __future__ import annotations

import json
import os

from app_helpers import open_page, trace_values

KEYS = ("acc", "ratio", "rank", "loss", "ratio_l2")


def charts(at) -> dict[str, tuple[tuple[int, ...], str, dict]]:
    """The page's charts by key: (place in the page's element tree, element id, the figure)."""
    out = {}

    def visit(node, path):
        children = getattr(node, "children", None)
        if children is not None:
            for k in sorted(children):
                visit(children[k], path + (k,))
            return
        if node.type == "plotly_chart":
            spec = node.proto.spec
        elif node.type == "bidi_component" and node.proto.component_name.endswith("fedquad_livechart"):
            spec = json.loads(node.proto.json)["spec"]
        else:
            return
        out[node.proto.id.rsplit("-", 1)[-1]] = (path, node.proto.id, json.loads(spec))  # "$$ID-<hash>-acc"

    visit(at.main, ())
    return out


def _running_pair(root, total: int = 30):
    """FedAvg and FedQuad marked running by this live process, one metrics row each (no training;
    every chart has a point, so none is a caption once the runs end)."""
    from fedquad_core.config import RunConfig
    from fedquad_core.runs.store import RunStore, process_identity

    store, writers = RunStore(root), []
    for method in ("fedavg", "fedquad"):
        w = store.create(RunConfig(dataset="digits", rounds=total, method=method).resolved().to_dict())
        w.set_status("running", round=1, total_rounds=total, group="g-refresh", **process_identity(os.getpid()))
        w.append_metrics({"round": 1, "test_accuracy": 0.3, "train_loss": 2.0, "samples_total": 100, "elapsed": 1.0,
                          "ratio": 0.6, "ratio_l2": 0.5, "effective_rank": 9.0})
        writers.append(w)
    return writers


def test_live_charts_keep_their_id_and_place_as_points_arrive_and_the_runs_end(empty_store):
    writers = _running_pair(empty_store)
    at = open_page("views/live.py")
    assert not at.exception, at.exception
    first = charts(at)
    assert set(first) == set(KEYS), first.keys()
    assert all(len(trace_values(t)) == 1 for t in first["acc"][2]["data"])

    for w in writers:  # a round lands: the page refreshes with one more point per run
        w.set_status("running", round=2, total_rounds=30, group="g-refresh")
        w.append_metrics({"round": 2, "test_accuracy": 0.5, "train_loss": 1.5, "samples_total": 200, "elapsed": 2.0,
                          "ratio": 0.5, "ratio_l2": 0.4, "effective_rank": 8.0})
    at.run()
    assert not at.exception, at.exception
    second = charts(at)
    assert [len(trace_values(t)) for t in second["acc"][2]["data"]] == [2, 2]  # the new points are shown
    for key in KEYS:  # ... by the same chart, in the same place
        assert second[key][:2] == first[key][:2], (key, first[key][:2], second[key][:2])

    for w in writers:  # the runs end: the page re-runs once without its progress bars and stops refreshing
        w.set_status("finished", round=2, total_rounds=30)
    at.run()
    assert not at.exception, at.exception
    assert not at.get("progress")
    last = charts(at)
    for key in KEYS:
        assert last[key][:2] == first[key][:2], (key, first[key][:2], last[key][:2])


def test_the_x_axis_turns_to_samples_once_the_runs_work_differs_until_the_lecturer_picks(empty_store):
    """The demo's page opens before any round (rounds, then); once the rounds show FedQuad
    processing more samples a round than FedAvg, "samples processed" comes first and is shown,
    and stays the lecturer's pick once they pick another."""
    from fedquad_core.config import RunConfig
    from fedquad_core.runs.store import RunStore, process_identity

    store, writers = RunStore(empty_store), {}
    for method in ("fedavg", "fedquad"):
        w = store.create(RunConfig(dataset="digits", rounds=30, method=method).resolved().to_dict())
        w.set_status("running", round=0, total_rounds=30, group="g-x", **process_identity(os.getpid()))
        writers[method] = w
    at = open_page("views/live.py")
    assert at.segmented_control(key="v_x").value == "rounds"
    for method, samples in (("fedavg", 100), ("fedquad", 180)):
        writers[method].append_metrics({"round": 1, "test_accuracy": 0.3, "samples_total": samples, "elapsed": 1.0})
    at.run()
    assert at.segmented_control(key="v_x").options[0] == "samples processed"
    assert at.segmented_control(key="v_x").value == "samples processed"
    at.segmented_control(key="v_x").set_value("rounds").run()
    at.run()
    assert at.segmented_control(key="v_x").value == "rounds"
    for w in writers.values():
        w.set_status("finished", round=1, total_rounds=30)
