"""Server-side time of one Explore slider move on a 100-run study (goal: under 300 ms).

Builds a synthetic study store in a temporary folder (written directly, no training): alpha
{0.05, 0.1, 0.3, 1, IID} x m1 {0, 0.5, 1, 2, 4} x {FedAvg, FedQuad} x seeds {0, 1} = 100 runs, each
with 30 metric rows, a final snapshot of 400 x 64 float16 embeddings (digits-like) and a stored
UMAP layout. Then it moves the sliders through positions never visited before and times:

1. ``apptest``: the whole page re-run by Streamlit's AppTest after a slider move (the script, the
   store reads, the frames, every figure built and serialised). AppTest compiles the page scripts
   afresh on every run (a new ``ScriptCache`` each time: ~30-40 ms here), which a server does not;
2. ``server``: the same with the compiled scripts kept across runs, as a Streamlit server keeps
   them (one ``ScriptCache`` per server, cleared only when a script file changes): what the server
   does for a move. Streamlit's ``st.cache_data`` is cleared before each AppTest pass, so every
   position is a first visit in both;
3. ``functions``: the page's data and figure functions alone, with no cache at all (the cold
   path of a position: read the runs, aggregate, build every figure, as on a first visit).

The moves go one slider at a time (as a user drags), every position new; in the page a move
along alpha only moves the response plots' and heatmap's marks (kept figures), a move of m1
rebuilds them. Wall and CPU time are printed: on a shared machine wall time includes waiting.

4. ``Partitions page``: the Partitions page's α slider moved through its values (AppTest): each
   move draws a new partition through the engine and a new heatmap.

Prints the median and max over moves of each. Usage:
    .venv/bin/python -m benchmarks.slider_speed [--moves 12] [--write-docs]
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Table, add_docs_flag, finish, median

ROOT = Path(__file__).resolve().parents[1]

AXES = {"alpha": [0.05, 0.1, 0.3, 1.0, None], "m1": [0.0, 0.5, 1.0, 2.0, 4.0], "method": ["fedavg", "fedquad"],
        "seed": [0, 1]}


def build(root: Path) -> None:
    from tests.app.study_helpers import write_study

    write_study(root, "bench", AXES, points=400, dim=64, rounds=30, umap=True, title="Slider benchmark")


def positions(n: int) -> list[dict]:
    """``n`` distinct (alpha, m1) positions in the order a user dragging one slider at a time visits
    them: alpha through its grid, then m1 one step, alpha back again, ... (every position new)."""
    out = []
    for i, m1 in enumerate(AXES["m1"]):
        alphas = AXES["alpha"] if i % 2 == 0 else AXES["alpha"][::-1]
        out += [{"alpha": a, "m1": m1} for a in alphas]
    return out[:n]


def time_functions(moves: list[dict]) -> list[tuple[float, float]]:
    """The page's work for a position, no caches: runs read, frames aggregated, figures built."""
    from app.studies import catalog as studies
    from app.figures import study as sf
    from app.figures.charts import embedding_scatter, spectrum_figure

    ref = studies.StudyRef("recorded", "bench", "bench")
    points = studies.points_frame(ref)  # once per study (cached by the page until a point changes)
    out = []
    for pos in moves:
        t0, c0 = time.perf_counter(), time.process_time()
        at = sf.select(points, pos)
        metrics = studies.run_metrics(ref, at)
        for y in ("test_accuracy", "ratio"):
            sf.band_curves_figure(metrics, y)
        resp = sf.aggregate(sf.select(points, {"m1": pos["m1"]}), ["method", "alpha"], list(studies.METRICS))
        for m in ("final_acc", "final_ratio", "effective_rank"):
            sf.response_figure(resp, "alpha", m, current=pos["alpha"], all_values=AXES["alpha"])
        spectra = {}
        for method, run_id in studies.first_seed_runs(at).items():
            snap = studies.final_snapshot(ref, run_id)
            embedding_scatter(snap["xy"], snap["labels"])
            spectra[method] = snap["singular_values"]
        spectrum_figure(spectra)
        heat = sf.aggregate(points, ["method", "alpha", "m1"], ["final_ratio"])
        sf.margins_heatmap(heat, "alpha", "m1", "final_ratio", current=(pos["alpha"], pos["m1"]))
        across = {}
        for alpha in AXES["alpha"]:
            for method, run_id in studies.first_seed_runs(sf.select(points, {"alpha": alpha, "m1": pos["m1"]})).items():
                across.setdefault(method, {})[alpha] = studies.final_snapshot(ref, run_id, project=False)["singular_values"]
        sf.spectra_across_figure(across)
        out.append((time.perf_counter() - t0, time.process_time() - c0))
    return out


def time_apptest(moves: list[dict], *, compile_once: bool = False) -> list[tuple[float, float]]:
    import streamlit as st
    import streamlit.testing.v1.app_test as app_test
    import streamlit.testing.v1.local_script_runner as local_runner
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import AppTest

    from app.figures.study import value_label
    from app.studies import shared as shared_figures

    st.cache_data.clear()  # every position a first visit, whichever pass ran before:
    shared_figures.clear()  # the study is a recorded one, whose figures one session builds for all (app/studies/shared.py)
    shared = ScriptCache()
    app_test.ScriptCache = local_runner.ScriptCache = (lambda: shared) if compile_once else ScriptCache
    at = AppTest.from_file(str(ROOT / "app" / "main.py"), default_timeout=120)
    at.run()
    assert [t.value for t in at.title] == ["Explore"], [t.value for t in at.title]
    out = []
    for pos in moves:
        # the position as the figure switcher's move leaves it (app/switcher: session_state)
        at.session_state["x_alpha"] = value_label("alpha", pos["alpha"])
        at.session_state["x_m1"] = value_label("m1", pos["m1"])
        t0, c0 = time.perf_counter(), time.process_time()
        at.run()
        out.append((time.perf_counter() - t0, time.process_time() - c0))
        assert not at.exception, at.exception
        shown = [el for el in at.get("component_instance") if el.proto.component_name.endswith("fedquad_switcher")]
        assert shown, "no figure switcher on the page"
    return out


def time_partitions() -> tuple[list[tuple[float, float]], int]:
    """The Partitions page's α slider: each of its values once (digits, 50 clients; a new α is a new
    partition drawn by the engine and a new heatmap), the page re-run by AppTest after each move.
    Also how many moves drew a heatmap: at the smallest α no split gives every client its minimum
    size, and the page says so in one line instead."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from app.service.catalog import ALPHAS

    st.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "app" / "main.py"), default_timeout=120)
    at.run()
    at.switch_page("views/partitions.py").run()
    assert [t.value for t in at.title] == ["Partitions"], [t.value for t in at.title]
    out, drawn = [], 0
    for alpha in [a for a in ALPHAS if a != at.session_state["p_alpha"]]:
        at.session_state["p_alpha"] = alpha
        t0, c0 = time.perf_counter(), time.process_time()
        at.run()
        out.append((time.perf_counter() - t0, time.process_time() - c0))
        assert not at.exception, at.exception
        assert at.get("plotly_chart") or at.error, "neither a partition heatmap nor the page's refusal"
        drawn += bool(at.get("plotly_chart"))
    return out, drawn


def summary(table: Table, name: str, times: list[tuple[float, float]]) -> None:
    """One row of ``table``: wall and CPU ms over the moves (median, 90th percentile, max)."""
    wall, cpu = ([1000 * t[i] for t in times] for i in (0, 1))
    p90 = statistics.quantiles(cpu, n=10)[-1] if len(cpu) > 1 else cpu[0]
    table.row(name, f"{median(wall):.0f} / {max(wall):.0f}", f"{median(cpu):.0f} / {p90:.0f} / {max(cpu):.0f}", len(times))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=20, help="slider moves to time (each to a new position, at most 24)")
    add_docs_flag(parser)
    args = parser.parse_args(argv)
    if not 1 <= args.moves <= 24:
        parser.error("--moves must be between 1 and 24")
    with tempfile.TemporaryDirectory(prefix="slider-speed-") as tmp:
        root = Path(tmp) / "recorded"
        t0 = time.perf_counter()
        build(root)
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
        print(f"built a 100-run study in {time.perf_counter() - t0:.1f} s ({size / 1e6:.1f} MB on disk)")
        os.environ["FEDQUAD_RECORDED_DIR"] = str(root)
        os.environ["FEDQUAD_RUNS_DIR"] = str(Path(tmp) / "runs")
        os.environ["FEDQUAD_PROJECTION_WORKER"] = "0"  # no UMAP worker competing for the cores
        moves = positions(args.moves + 1)
        table = Table("slider_speed", ["measured", "wall ms: median / max", "CPU ms: median / 90th pct / max", "moves"],
                      title="Explore, one α or m1 slider move to a new position of a 100-run study, and the Partitions "
                      "page's α slider through its values (digits, 50 clients) (goal: under 300 ms)")
        time_functions(moves[:1])  # imports and first-call costs out of the way
        summary(table, "functions (no cache)", time_functions(moves[1:]))
        summary(table, "apptest (page re-run)", time_apptest(moves)[1:])  # the first run is the page's first draw
        summary(table, "server (scripts compiled once)", time_apptest(moves, compile_once=True)[1:])
        times, drawn = time_partitions()
        summary(table, f"Partitions page, α slider (apptest; {drawn} of {len(times)} moves drew a heatmap, the "
                "rest the page's one-line refusal)", times)
        finish(table, args, note="CPU = this process's CPU time; wall time includes waiting for a core on a shared machine.")


if __name__ == "__main__":
    main()
