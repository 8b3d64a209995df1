"""The one-minute demo in a real browser: from the click on "Collapse in one minute" to its first
training point on the page, and to both runs shown finished.

Each repeat starts a fresh dashboard (``benchmarks/browser_latency.py``'s ``Server``: ``streamlit
run app/main.py`` on a free port, the recorded studies, an EMPTY run store) and a fresh headless
Chromium (``/usr/bin/chromium`` or CHROMIUM_PATH, Playwright, 1600x1000). The first page (Explore)
is opened and left to settle, then the sidebar's quick-start button is clicked. Start: the button's
``mousedown``, as seen by a capturing listener in the page (``performance.now()``). The page polls
itself every 20 ms (plus on every DOM change) for:

- **first point**: the first time a Plotly chart on the page holds a trace with at least one
  point (``gd.data[i].x.length >= 1``) on the Live page (where the click leads), and separately
  the first time the "Test accuracy" chart does;
- **finished**: the "Test accuracy" chart holds a trace for each of the preset's runs with every
  round (the preset's ``rounds``) and the Live page's summary table (its grid cells) says
  ``finished`` once a run.

By default the projection worker runs as it does under ``scripts/start.sh`` (it projects the
demo's snapshots to UMAP while they train, on the same cores); ``--no-worker`` turns it off, as
``browser_latency.py`` does. ``--load`` trains a digits run (the demo's own setting, 200 rounds)
beside the app from before the click, to see the demo on a busy machine. The 1-min load average
is printed before and after, with the median / max over ``--repeat`` (default 3).
``--app-root`` measures another checkout's app (A/B comparisons). ``--screenshot DIR`` saves the
page at the first point and when finished (first repeat). ``--think S`` waits S seconds on the
settled first page before the click (a user reading it; the dashboard's warm server for runs,
``fedquad_core.prefork``, gets ready in that time); ``--no-warm`` turns that server off, so each
run starts as a fresh process. Each demo says how many of its runs were forked by the server.

Usage:
    .venv/bin/python -m benchmarks.demo_first_point [--repeat 3] [--load] [--no-worker]
        [--think 10] [--no-warm]
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path


from benchmarks.browser_latency import ROOT, Server, chromium_path, load1, open_browser, start_load
from benchmarks import harness
from scripts.serving import stop_runs


def s_text(xs: list[float]) -> str:
    return harness.fmt(xs, unit="s", digits=1)

QUICK_KEY = ".st-key-quick_start button"
ACC_TITLE = "Test accuracy"
PROBLEMS = ("Traceback", "Error", "ScriptRunContext", "Exception")  # server log lines worth showing
QUICK_PRESET = "Collapse in one minute"  # app/sidebar.py's QUICK_PRESET (not imported: it starts streamlit)

PROBE = """(() => {
  const f = window.__demo = {click: 0, first: 0, firstAcc: 0, finished: 0, live: 0, runs: 0, rounds: 0,
                             lastCheck: 0};
  document.addEventListener('mousedown', (e) => {
    if (!f.click && e.target.closest && e.target.closest('.st-key-quick_start')) f.click = performance.now();
  }, true);
  // what the chart draws: its title's text, and per trace the markers drawn (a trace with more
  // than 40 points is drawn as a line only: then the points plotly holds for it)
  const title = (gd) => { const t = gd.querySelector('.gtitle'); return t ? t.textContent : ''; };
  const points = (gd) => [...gd.querySelectorAll('.scatterlayer g.trace')].map((g, i) =>
    g.querySelectorAll('path.point').length ||
    ((gd._fullData && gd._fullData[i] && gd._fullData[i].x && gd._fullData[i].x.length) || 0));
  const check = () => {
    if (!f.click) return;
    const now = performance.now();
    if (!f.live && location.pathname.replace(/\\/+$/, '').endsWith('/live')) f.live = now;
    if (!f.live) return;
    // Streamlit's charts, and the Live page's charts updated in place while runs train (app/livechart)
    for (const gd of document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot, .fq-live-chart.js-plotly-plot')) {
      const traces = points(gd).filter((n) => n >= 1);
      if (!traces.length) continue;
      if (!f.first) f.first = now;
      if (title(gd).startsWith('%s')) {
        if (!f.firstAcc) f.firstAcc = now;
        f.runs = traces.length;
        f.rounds = Math.min(...traces);
      }
    }
    if (f.first && !f.finished && f.runs >= f.nruns && f.rounds >= f.target) {
      const grid = '[data-testid="stDataFrame"]';
      const cells = [...document.querySelectorAll(`${grid} td, ${grid} [role="gridcell"]`)]
        .map((c) => c.textContent.trim());
      f.cells = cells.filter((c) => c === 'finished').length;
      if (f.cells >= f.nruns) f.finished = now;
    }
  };
  setInterval(check, 20);
  const start = () => new MutationObserver(check).observe(document.documentElement,
                                                          {subtree: true, childList: true, attributes: true});
  if (document.documentElement) start(); else document.addEventListener('DOMContentLoaded', start);
})();""" % ACC_TITLE


def wait_for(page, what: str, timeout_s: float, work: Path, shots: Path | None) -> None:
    """Wait until the probe saw ``what``; past ``timeout_s`` stop with one line saying what the page
    showed (and a screenshot in ``shots``)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => window.__demo.{what} > 0", timeout=timeout_s * 1000, polling=50)
    except PlaywrightTimeout:
        seen = page.evaluate("() => window.__demo")
        if shots:
            page.screenshot(path=str(shots / f"demo_timeout_{what}.png"))
        log = (work / "streamlit.log").read_text(errors="replace")[-600:].replace("\n", " | ")
        sys.exit(f"demo_first_point: no '{what}' within {timeout_s:.0f} s of the click; the page at {page.url} "
                 f"showed {json.dumps(seen)}; server log tail: {log}")


def breakdown(runs_dir: Path, click: float) -> dict:
    """Where the time to the first point went, from the run store (s after the click, the earliest
    of the demo's runs): run folders created (the launch), training started (process up, torch
    imported, data and partition ready, model built), first metrics row written (round 1)."""
    from fedquad_core.runs.store import RunStore

    store = RunStore(runs_dir)
    created, started, first_row = [], [], []
    for info in store.list_runs():
        st = info.status
        created.append(float(st.get("created", "nan")) - click)
        started.append(float(st.get("started", "nan")) - click)
        rows = store.read_metrics(info.run_id)
        if rows and "started" in st:
            first_row.append(float(st["started"]) + float(rows[0]["elapsed"]) - click)
    log = runs_dir / ".prefork.log"
    out = {"runs": len(created),
           "forked_runs": log.read_text(errors="replace").count(" started as pid ") if log.exists() else 0}
    for key, xs in (("launched_s", created), ("training_started_s", started), ("first_row_on_disk_s", first_row)):
        out[key] = min(xs) if xs else float("nan")
    return out


def one_demo(exe: str, app_root: Path, recorded: Path, rounds: int, nruns: int, worker: bool, load: bool,
             timeout_s: float, shots: Path | None, warm: bool = True, think: float = 0.0) -> dict:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        server = Server(app_root, recorded, work, worker=worker, warm=warm)
        loader = None
        try:
            with sync_playwright() as pw:
                browser, _, page = open_browser(pw, exe, PROBE, 180_000)
                server.wait_healthy()
                page.goto(server.url)
                button = page.locator(QUICK_KEY).first
                button.wait_for()
                page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                                       polling=100)
                if load:
                    loader = start_load(work, app_root)
                    time.sleep(5)  # past its start-up (imports, data), into the rounds
                time.sleep(think)
                before = load1()
                label = button.inner_text()
                if QUICK_PRESET not in label:
                    sys.exit(f"demo_first_point: the quick-start button reads {label!r}, not {QUICK_PRESET!r}")
                page.evaluate("([n, k]) => { window.__demo.target = n; window.__demo.nruns = k; }", [rounds, nruns])
                button.click()
                page.mouse.move(1200, 900)  # off the button: its tooltip would cover the chart
                wait_for(page, "first", timeout_s, work, shots)
                f = page.evaluate("() => window.__demo")
                if shots:
                    page.screenshot(path=str(shots / "demo_first_point.png"))
                wait_for(page, "finished", timeout_s, work, shots)
                f = page.evaluate("() => window.__demo")
                origin = page.evaluate("() => performance.timeOrigin") / 1000.0
                if shots:
                    page.screenshot(path=str(shots / "demo_finished.png"))
                browser.close()
            steps = breakdown(server.runs, origin + f["click"] / 1000.0)
            log = server.log.read_text(errors="replace").splitlines()
            steps["server_log_problems"] = [ln for ln in log if any(w in ln for w in PROBLEMS)][:5]
        finally:
            if loader is not None:
                os.killpg(loader.pid, signal.SIGTERM)
                loader.wait(timeout=20)
            stop_runs(server.runs)
            server.stop()
    return {"load1_at_click": before, **steps, "live_s": (f["live"] - f["click"]) / 1000,
            "first_point_s": (f["first"] - f["click"]) / 1000, "first_accuracy_s": (f["firstAcc"] - f["click"]) / 1000,
            "finished_s": (f["finished"] - f["click"]) / 1000}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit code 2
        print(f"demo_first_point: {message}", file=sys.stderr)
        sys.exit(2)




def main(argv: list[str] | None = None) -> int:
    p = _Parser(description=__doc__.split("\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=3, help="demos, each on a fresh server and empty store (default 3)")
    p.add_argument("--load", action="store_true", help="train a digits run beside the app during the demo")
    p.add_argument("--no-worker", action="store_true", help="turn the UMAP projection worker off")
    p.add_argument("--app-root", type=Path, default=ROOT, help="checkout whose app/ to start (default this one)")
    p.add_argument("--timeout", type=float, default=300.0, help="s to wait for each end point (default 300)")
    p.add_argument("--screenshot", type=Path, help="save the page at the first point and finished (first repeat)")
    p.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    p.add_argument("--think", type=float, default=0.0, help="s on the settled first page before the click (default 0)")
    p.add_argument("--no-warm", action="store_true", help="turn the warm server for runs off (fresh run processes)")
    harness.add_docs_flag(p)
    args = p.parse_args(argv)
    if args.repeat < 1 or args.timeout <= 0:
        p.error("--repeat and --timeout must be positive")
    if not 0 <= args.think <= 600:
        p.error("--think must be between 0 and 600 s")
    if args.screenshot is not None and not args.screenshot.is_dir():
        p.error(f"--screenshot {args.screenshot}: not a folder")
    app_root = args.app_root.resolve()
    if not (app_root / "app" / "main.py").exists():
        p.error(f"--app-root {app_root}: no app/main.py there")
    from app.presets import PRESETS

    rounds = int(PRESETS[QUICK_PRESET]["config"]["rounds"])
    nruns = len(PRESETS[QUICK_PRESET]["methods"])
    exe = chromium_path()
    result: dict = {"app_root": str(app_root), "load": args.load, "worker": not args.no_worker,
                    "warm": not args.no_warm, "think_s": args.think, "load1_before": load1(), "demos": []}
    print(f"load average (1 min) before: {result['load1_before']:.2f} on {os.cpu_count()} cores; "
          f"projection worker {'on' if result['worker'] else 'off'}; warm server {'on' if result['warm'] else 'off'}; "
          f"click {args.think:g} s after the page settled{'; with --load' if args.load else ''}; app {app_root}")
    for i in range(args.repeat):
        d = one_demo(exe, app_root, ROOT / "assets" / "recorded", rounds, nruns, not args.no_worker, args.load,
                     args.timeout, args.screenshot if i == 0 else None, not args.no_warm, args.think)
        result["demos"].append(d)
        print(f"  demo {i + 1}: load {d['load1_at_click']:.2f} at the click; Live page {d['live_s']:.1f} s, "
              f"first point {d['first_point_s']:.1f} s (accuracy chart {d['first_accuracy_s']:.1f} s), "
              f"both finished {d['finished_s']:.1f} s")
        print(f"    (from the run store: launched {d['launched_s']:.1f} s, training started "
              f"{d['training_started_s']:.1f} s, first metrics row on disk {d['first_row_on_disk_s']:.1f} s; "
              f"{d['forked_runs']} of {d['runs']} runs forked by the warm server)")
        for line in d["server_log_problems"]:
            print(f"    server log: {line}")
    result["load1_after"] = load1()
    print(f"load average (1 min) after: {result['load1_after']:.2f}")
    loads = [d["load1_at_click"] for d in result["demos"]]
    table = harness.Table("demo_first_point", ["measured", "each repeat (s)", "over the repeats"],
                          title=f"The one-minute demo in Chromium, {args.repeat} fresh dashboards; warm server "
                          f"{'on' if result['warm'] else 'off'}, projection worker {'on' if result['worker'] else 'off'}"
                          f"{', a training run beside it' if args.load else ''}; load {min(loads):.1f}-{max(loads):.1f} "
                          "at the clicks")
    for key, name in (("first_point_s", "click -> first point"), ("first_accuracy_s", "click -> accuracy chart point"),
                      ("finished_s", "click -> both finished"), ("training_started_s", "click -> training started")):
        xs = [d[key] for d in result["demos"]]
        table.row(name, ", ".join(f"{x:.1f}" for x in xs), s_text(xs))
    harness.finish(table, args)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
