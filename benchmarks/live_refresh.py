"""The Live page while the one-minute demo trains, in a real browser: do its charts blank out when
they refresh, and how long is the browser's main thread busy?

Each pass starts a fresh dashboard (``streamlit run app/main.py --server.fileWatcherType none
--server.headless true`` on a free port, as ``scripts/start.sh``; ``FEDQUAD_RUNS_DIR`` an empty
temporary run store, ``FEDQUAD_RECORDED_DIR`` an empty folder, the projection worker off unless
``--worker``) and a fresh headless Chromium (``/usr/bin/chromium`` or CHROMIUM_PATH, Playwright).
The first page is opened at the pass's viewport, the sidebar's "▶ Collapse in one minute" button
clicked (FedAvg and FedQuad, 30 rounds), and once the click has led to the Live page that page is
opened as the lecturer shows it: ``/live?presenter=1&talk=1`` (``--normal``: ``/live`` with the
sidebar, as the click left it). The measurement runs from the moment all four charts are drawn
(axes at least) until both runs have finished and the page has been quiet for ``--settle`` s
(so the one full re-run that stops the refreshing is in it).

In the page (an init script, so in every document from its start):

- a **sampler** every 50 ms (``setInterval``) records, for each of the four charts (``.st-key-acc``,
  ``ratio``, ``loss``, ``ratio_l2``), a level: 0 no element, 1 the element without a drawn plotly
  SVG (blank), 2 the SVG with its axes but no trace drawn, 3 traces drawn (a point marker or a
  line with a path); plus which DOM node the chart (``.js-plotly-plot``) and its ``svg.main-svg``
  are (a new node = the chart mounted again / ``Plotly.newPlot``; ``Plotly.react`` keeps both),
  the number of points drawn, the opacity of its element (Streamlit fades stale elements), its
  top and height on the page, and the progress bars present. Each chart's ``plotly_afterplot``
  events are counted (every redraw the browser made, in place or not).
- a ``PerformanceObserver('longtask')`` records every main-thread task over 50 ms (in every frame;
  a task seen by two frames is counted once).

Printed per pass: **opening the Live page** (from the click, or from opening the presenter address,
until all four charts are drawn: its time, its long tasks, and when the accuracy chart's element,
axes and first point appeared); samples taken and the longest gap between two (a gap means the
main thread did not run the timer); **drops** (a sample where a chart is drawn at a lower level
than it had reached: a blank or missing chart, or its traces gone) with their durations, the
longest continuous blank stretch per chart, how often each chart's node or SVG was replaced;
chart moves (its top changed by more than 2 px), redraws, faded stretches (a chart dimmed below
90 % opacity: Streamlit fades an element it is about to replace); the **long tasks** in the window
(count, p50 / p95 / max, total and its share of the window, how many over 200 ms) and over the Live
page's document, the five longest with the frame they ran in; and the 1-min load average.

A/B in the same run: ``--baseline REV`` runs every pass also against a copy of this checkout's
``app/`` with ``--baseline-paths`` (default ``app/views/live.py``) taken from git revision REV
(read with ``git show``; the working tree is not touched), alternating baseline and this checkout,
and prints this checkout's numbers against the baseline's as ratios. ``--env KEY=VALUE`` passes a
variable to the dashboard (an A/B switch the page reads).

Usage:
    .venv/bin/python -m benchmarks.live_refresh [--viewport 1280x720] [--viewport 1600x1000]
        [--normal] [--repeat 1] [--baseline HEAD] [--worker] [--json out.json]

    e.g. ``--viewport 1280x720 --baseline HEAD --repeat 2`` (presenter, the fix against the last commit's
    app/views/live.py) and ``--normal --viewport 1280x720 --viewport 1600x1000 --baseline HEAD``.
"""
from __future__ import annotations

import argparse
import json
import os
from unittest import mock
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


from benchmarks.harness import Table, add_docs_flag, finish
from benchmarks.browser_latency import CHROMIUM_ARGS, ROOT, Server, chromium_path, load1
from benchmarks.demo_first_point import QUICK_KEY, QUICK_PRESET, stop_runs

CHARTS = ("acc", "ratio", "loss", "ratio_l2")  # the Live page's chart keys (app/views/live.py)
SAMPLE_MS = 50
NO_STATUS = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"

# Per sample: [t, running, progress bars, [per chart: level, chart node, svg node, points, opacity %,
# top, height]...]. Node ids are small integers given to DOM nodes in the order first seen.
PROBE = """(() => {
  if (window.__lr) return;
  const KEYS = %s;
  const L = window.__lr = {samples: [], longtasks: [], afterplot: {}, next: 1, ltError: null};
  try {  // in every frame (the page and any component's), in epoch ms
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const a = e.attribution && e.attribution[0];  // the frame to blame: the page or a frame in it
        L.longtasks.push([performance.timeOrigin + e.startTime, e.duration,
                          a ? (a.containerType || 'window') + (a.containerSrc ? ' ' + a.containerSrc.split('?')[0] : '')
                            : '']);
      }
    }).observe({type: 'longtask', buffered: true});
  } catch (e) { L.ltError = String(e); }
  if (window !== window.top) return;  // the sampler: in the page only
  const ids = new WeakMap();
  const id = (n) => { if (!n) return 0; let v = ids.get(n); if (!v) { v = L.next++; ids.set(n, v); } return v; };
  const opacity = (el) => {  // the element's own opacity times its ancestors' up to the main block
    let o = 1;
    for (let n = el; n && n !== document.body; n = n.parentElement) {
      o *= parseFloat(getComputedStyle(n).opacity || '1');
      if (n.matches && n.matches('[data-testid="stMain"]')) break;
    }
    return Math.round(o * 100);
  };
  const chart = (k) => {
    const box = document.querySelector('.st-key-' + k);
    if (!box) return [0, 0, 0, 0, 0, 0, 0];
    const r = box.getBoundingClientRect(), top = Math.round(r.top + window.scrollY), h = Math.round(r.height);
    let gd = box.querySelector('.js-plotly-plot');  // in the page, or in a frame (a chart drawn by a v1 component)
    const frame = box.querySelector('iframe');
    if (!gd && frame) { try { gd = frame.contentDocument.querySelector('.js-plotly-plot'); } catch (e) { gd = null; } }
    const svg = gd && gd.querySelector('svg.main-svg');
    if (!gd || !svg || !gd.querySelector('.cartesianlayer .xtick, .cartesianlayer .ytick'))
      return [1, id(gd), id(svg), 0, opacity(box), top, h];
    if (!((k + ':' + id(gd)) in L.afterplot) && gd.on) {
      L.afterplot[k + ':' + id(gd)] = 0;
      gd.on('plotly_afterplot', () => { L.afterplot[k + ':' + id(gd)] += 1; });
    }
    let pts = 0;
    for (const t of gd.querySelectorAll('.scatterlayer .trace')) {
      pts += t.querySelectorAll('path.point').length;
      const line = t.querySelector('path.js-line');
      if (!t.querySelector('path.point') && line && (line.getAttribute('d') || '').length > 1) pts += 1;
    }
    return [pts > 0 ? 3 : 2, id(gd), id(svg), pts, opacity(box), top, h];
  };
  const sample = () => {
    const running = document.querySelector('[data-testid="stStatusWidget"]') ? 1 : 0;
    const bars = document.querySelectorAll('[data-testid="stProgress"]').length;
    L.samples.push([performance.timeOrigin + performance.now(), running, bars, KEYS.map(chart)]);
  };
  setInterval(sample, %d);
})();""" % (json.dumps(list(CHARTS)), SAMPLE_MS)

READ = ("() => { const L = window.__lr; if (!L) return null; return {samples: L.samples, longtasks: L.longtasks, "
        "afterplot: L.afterplot, ltError: L.ltError, now: performance.timeOrigin + performance.now()}; }")


def read_all(page) -> dict:
    """The page's samples and every frame's long tasks (epoch ms; a task seen by two frames' observers,
    same start and length, counted once)."""
    got = page.evaluate(READ)
    tasks = {(round(t, 1), round(d, 1), who) for t, d, who in got["longtasks"]}
    for frame in page.frames[1:]:
        try:
            theirs = frame.evaluate("() => window.__lr ? window.__lr.longtasks : []")
        except Exception:  # noqa: BLE001 - a frame that went away
            continue
        for t, d, who in theirs:
            if not any(abs(t - t0) < 2 and abs(d - d0) < 2 for t0, d0, _ in tasks):
                tasks.add((round(t, 1), round(d, 1), f"seen in a frame: {who}"))
    got["longtasks"] = sorted(tasks)
    got["frames"] = len(page.frames)
    return got


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def baseline_root(rev: str, paths: list[str], work: Path) -> Path:
    """A copy of this checkout's ``app/`` with ``paths`` as they are at git revision ``rev`` (read
    with ``git show``), every other top-level entry a symlink to this checkout's."""
    root = work / "baseline"
    root.mkdir()
    for entry in ROOT.iterdir():
        if entry.name != "app":
            (root / entry.name).symlink_to(entry)
    shutil.copytree(ROOT / "app", root / "app", ignore=shutil.ignore_patterns("__pycache__"))
    for rel in paths:
        text = subprocess.run(["git", "show", f"{rev}:{rel}"], cwd=ROOT, check=True, capture_output=True).stdout
        (root / rel).write_bytes(text)
    return root


def analyse(samples: list, longtasks: list, afterplot: dict, start: float, end: float) -> dict:
    """The numbers of one pass from the page's samples (times in ms of the page's clock)."""
    win = [s for s in samples if start <= s[0] <= end]
    out: dict = {"samples": len(win), "window_s": round((end - start) / 1000, 1)}
    gaps = [b[0] - a[0] for a, b in zip(win, win[1:])]
    out["longest_sample_gap_ms"] = round(max(gaps), 0) if gaps else 0
    drops, blank_ms, replaced, svgs, moves = [], {}, {}, {}, {}
    fewer = 0
    prev_drawn = None
    best = {k: 0 for k in CHARTS}
    open_drop: dict[str, int | None] = {k: None for k in CHARTS}  # index in ``drops`` of the chart's open drop
    longest = {k: 0.0 for k in CHARTS}

    def close(k: str, t: float) -> None:
        d = drops[open_drop[k]]
        d["ms"] = round(t - d["t"])
        longest[k] = max(longest[k], t - d["t"])
        open_drop[k] = None

    for i, (t, _running, _bars, charts) in enumerate(win):
        drawn = 0
        for j, (k, c) in enumerate(zip(CHARTS, charts)):
            level = c[0]
            if best[k] and level < best[k]:  # below what this chart had reached: blank / gone / traces lost
                if open_drop[k] is None:
                    open_drop[k] = len(drops)
                    drops.append({"chart": k, "t": t, "at_s": round((t - start) / 1000, 2), "from": best[k],
                                  "to": level})
            elif open_drop[k] is not None:
                close(k, t)
            best[k] = max(best[k], level)
            drawn += level >= best[k]
            if c[1]:
                replaced.setdefault(k, set()).add(c[1])
            if c[2]:
                svgs.setdefault(k, set()).add(c[2])
            before = win[i - 1][3][j][5] if i else 0
            if before and c[5] and abs(c[5] - before) > 2:
                moves[k] = moves.get(k, 0) + 1
        if prev_drawn is not None and drawn < prev_drawn:
            fewer += 1
        prev_drawn = drawn
    for k in CHARTS:  # still blank at the end of the window
        if open_drop[k] is not None:
            close(k, end)
    for d in drops:
        del d["t"]
    faded = sum(1 for s in win if any(0 < c[4] < 90 for c in s[3]))
    fades, since = [], None  # stretches with a chart faded (Streamlit dims an element it is about to replace)
    for s in win:
        dim = any(0 < c[4] < 90 for c in s[3])
        if dim and since is None:
            since = s[0]
        elif not dim and since is not None:
            fades.append(((since - start) / 1000, s[0] - since))
            since = None
    if since is not None:
        fades.append(((since - start) / 1000, end - since))
    out["fades"] = {"count": len(fades), "longest_ms": round(max((d for _, d in fades), default=0)),
                    "at_s": [round(t, 1) for t, _ in fades][:12]}
    out.update({
        "samples_fewer_charts_drawn": fewer, "drops": drops,
        "longest_blank_ms": {k: round(v) for k, v in longest.items()},
        "chart_nodes": {k: len(replaced.get(k, ())) for k in CHARTS},
        "svg_nodes": {k: len(svgs.get(k, ())) for k in CHARTS},
        "chart_moves": {k: moves.get(k, 0) for k in CHARTS},
        "samples_faded": faded,
        "redraws": {k: sum(v for key, v in afterplot.items() if key.split(":")[0] == k) for k in CHARTS},
        "final_points": {k: (win[-1][3][CHARTS.index(k)][3] if win else 0) for k in CHARTS},
        "progress_bars_max": max((s[2] for s in win), default=0),
        "chart_px_at_end": {k: (win[-1][3][CHARTS.index(k)][6] if win else 0) for k in CHARTS},
    })
    for name, tasks in (("longtasks_window", [d for t, d, _ in longtasks if start <= t <= end]),
                        ("longtasks_pass", [d for _, d, _ in longtasks])):
        out[name] = {"count": len(tasks), "p50_ms": round(pct(tasks, 0.5)), "p95_ms": round(pct(tasks, 0.95)),
                     "max_ms": round(max(tasks, default=0)), "total_ms": round(sum(tasks)),
                     "over_200ms": sum(d > 200 for d in tasks)}
    out["busy_share"] = round(out["longtasks_window"]["total_ms"] / max(1.0, end - start), 3)  # of the window's time
    out["longest_tasks"] = [{"at_s": round((t - start) / 1000, 2), "ms": round(d), "in": who}
                            for t, d, who in sorted(longtasks, key=lambda x: -x[1])[:5]]
    return out


def one_pass(exe: str, app_root: Path, viewport: tuple[int, int], presenter: bool, worker: bool,
             extra_env: dict, settle: float, timeout_s: float, shots: Path | None, tag: str) -> dict:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "recorded-empty").mkdir()
        with mock.patch.dict(os.environ, extra_env):  # Server copies os.environ into the dashboard's environment
            server = Server(app_root, work / "recorded-empty", work, worker=worker)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
                ctx = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
                ctx.add_init_script(PROBE)
                page = ctx.new_page()
                page.set_default_timeout(timeout_s * 1000)
                server.wait_healthy()
                page.goto(server.url)
                button = page.locator(QUICK_KEY).first
                button.wait_for()
                page.wait_for_function(NO_STATUS, polling=100)
                if QUICK_PRESET not in button.inner_text():
                    sys.exit(f"live_refresh: the quick-start button reads {button.inner_text()!r}")
                load_before = load1()
                opened = time.time() * 1000  # epoch ms, the page's clock too (performance.timeOrigin + now)
                button.click()
                page.mouse.move(viewport[0] - 10, viewport[1] - 10)  # off the button
                page.wait_for_function("() => location.pathname.replace(/\\/+$/, '').endsWith('/live')", polling=50)
                if presenter:
                    opened = time.time() * 1000
                    page.goto(f"{server.url}/live?presenter=1&talk=1")
                # the window opens once all four charts are drawn (axes at least)
                page.wait_for_function(
                    "() => { const s = window.__lr && window.__lr.samples; const x = s && s[s.length - 1];"
                    " return x && x[3].every(c => c[0] >= 2); }", polling=50)
                start = page.evaluate("() => window.__lr.samples[window.__lr.samples.length - 1][0]")
                from fedquad_core.runs.store import ACTIVE, RunStore

                store = RunStore(server.runs)
                runs_active_at_start = sum(i.state in ACTIVE for i in store.list_runs())
                if shots:
                    page.screenshot(path=str(shots / f"{tag}_start.png"))
                # until the runs ended and the page has been idle (no status widget) for `settle` s
                deadline = time.monotonic() + timeout_s
                quiet_since = None
                while time.monotonic() < deadline:
                    done = all(i.state not in ACTIVE for i in store.list_runs())
                    idle = page.evaluate(NO_STATUS)
                    if done and idle:
                        quiet_since = quiet_since or time.monotonic()
                        if time.monotonic() - quiet_since >= settle:
                            break
                    else:
                        quiet_since = None
                    page.wait_for_timeout(250)
                else:
                    sys.exit(f"live_refresh: the runs did not finish within {timeout_s:.0f} s")
                got = read_all(page)
                if shots:
                    page.screenshot(path=str(shots / f"{tag}_end.png"))
                browser.close()
            states = [i.state for i in store.list_runs()]
            result = analyse(got["samples"], got["longtasks"], got["afterplot"], start, got["now"])
            opening = [d for t, d, _ in got["longtasks"] if opened <= t <= start]
            result["opening"] = {"s": round((start - opened) / 1000, 1), "count": len(opening),
                                 "max_ms": round(max(opening, default=0)), "total_ms": round(sum(opening))}
            seen = {}  # s after the click / address: the accuracy chart's element there, drawn (axes), with points
            for t, _running, _bars, charts in got["samples"]:
                level = charts[0][0]
                for lv, name in ((1, "element"), (2, "axes"), (3, "points")):
                    if t >= opened and level >= lv and name not in seen:
                        seen[name] = round((t - opened) / 1000, 1)
            result["opening"]["accuracy_chart"] = seen
            result.update({"load1_before": round(load_before, 2), "load1_after": round(load1(), 2),
                           "runs_active_at_start": runs_active_at_start, "frames": got["frames"], "run_states": states,
                           "longtask_error": got["ltError"]})
            return result
        finally:
            stop_runs(server.runs)
            server.stop()


def show(tag: str, r: dict) -> None:
    lw, lp = r["longtasks_window"], r["longtasks_pass"]
    print(f"\n== {tag}: window {r['window_s']} s (all four charts drawn -> runs finished + settled), "
          f"load1 {r['load1_before']} -> {r['load1_after']}, "
          f"runs active at its start {r['runs_active_at_start']}, at the end {r['run_states']}; frames {r['frames']}")
    o = r["opening"]
    print(f"  opening the Live page ({'the click' if r.get('mode') == 'normal' else 'the address opened'} -> "
          f"four charts drawn): {o['s']} s, long tasks {o['count']}, max {o['max_ms']} ms, total {o['total_ms']} ms; "
          f"the accuracy chart's element, axes, first point at {o.get('accuracy_chart')} s")
    print(f"  samples taken: {r['samples']} (every {SAMPLE_MS} ms; longest gap {r['longest_sample_gap_ms']:.0f} ms)")
    print(f"  samples with fewer charts drawn than the sample before: {r['samples_fewer_charts_drawn']}")
    if r["drops"]:
        for d in r["drops"]:
            print(f"    drop: {d['chart']} at {d['at_s']} s, level {d['from']} -> {d['to']} for {d.get('ms', '?')} ms")
    print(f"  longest continuous blank stretch per chart (ms): {r['longest_blank_ms']}")
    print(f"  chart nodes seen (1 = updated in place): {r['chart_nodes']}; svg nodes: {r['svg_nodes']}")
    print(f"  redraws (plotly_afterplot): {r['redraws']}; chart moves: {r['chart_moves']}; "
          f"faded samples: {r['samples_faded']} ({r['fades']['count']} stretches, longest {r['fades']['longest_ms']} ms, "
          f"at {r['fades']['at_s']} s); points drawn at the end: {r['final_points']}; "
          f"progress bars (max): {r['progress_bars_max']}; chart heights at the end (px): {r['chart_px_at_end']}")
    print(f"  long tasks in the window: {lw['count']}, p50 {lw['p50_ms']} ms, p95 {lw['p95_ms']} ms, "
          f"max {lw['max_ms']} ms, total {lw['total_ms']} ms ({100 * r['busy_share']:.0f} % of the window), "
          f"over 200 ms: {lw['over_200ms']}")
    print(f"  long tasks in the Live page's document (its load included): {lp['count']}, p50 {lp['p50_ms']} ms, "
          f"p95 {lp['p95_ms']} ms, max {lp['max_ms']} ms, total {lp['total_ms']} ms, over 200 ms: {lp['over_200ms']}")
    print("  longest tasks (s from the window's start; negative: while the page loaded): "
          + ", ".join(f"{x['ms']} ms at {x['at_s']} s ({x['in'] or '?'})" for x in r["longest_tasks"]))
    if r.get("longtask_error"):
        print(f"  (long task observer: {r['longtask_error']})")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--viewport", action="append", help="WxH (repeatable; default 1280x720)")
    p.add_argument("--normal", action="store_true", help="the Live page as the click leaves it, not ?presenter=1&talk=1")
    p.add_argument("--repeat", type=int, default=1, help="passes per viewport (default 1)")
    p.add_argument("--baseline", metavar="REV", help="also measure --baseline-paths as at git revision REV")
    p.add_argument("--baseline-paths", nargs="+", default=["app/views/live.py"])
    p.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="for the dashboard (repeatable)")
    p.add_argument("--worker", action="store_true", help="run the projection worker, as scripts/start.sh does")
    p.add_argument("--settle", type=float, default=4.0, help="s the page stays idle after the runs end (default 4)")
    p.add_argument("--timeout", type=float, default=300.0, help="s for each wait (default 300)")
    p.add_argument("--screenshot", type=Path, help="save the page at the window's start and end in this folder")
    p.add_argument("--json", type=Path, help="also write every pass's numbers to this file")
    add_docs_flag(p)
    args = p.parse_args(argv)
    viewports = [tuple(int(v) for v in s.lower().split("x")) for s in (args.viewport or ["1280x720"])]
    extra_env = dict(e.split("=", 1) for e in args.env)
    exe = chromium_path()
    if args.screenshot:
        args.screenshot.mkdir(parents=True, exist_ok=True)
    print(f"live_refresh: {os.cpu_count()} cores, load1 {load1():.2f}; "
          f"{'normal' if args.normal else 'presenter + talk'} mode; projection worker "
          f"{'on' if args.worker else 'off'}; env {extra_env or '{}'}")
    results: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        roots = [("this checkout", ROOT)]
        if args.baseline:
            roots.insert(0, (f"baseline ({args.baseline}: {' '.join(args.baseline_paths)})",
                             baseline_root(args.baseline, args.baseline_paths, Path(tmp))))
        for vp in viewports:
            for rep in range(args.repeat):
                for name, root in roots:
                    tag = f"{name}, {vp[0]}x{vp[1]}, pass {rep + 1}"
                    slug = f"{'base' if root != ROOT else 'this'}_{vp[0]}x{vp[1]}_{rep + 1}"
                    r = one_pass(exe, root, vp, not args.normal, args.worker, extra_env, args.settle,
                                 args.timeout, args.screenshot, slug)
                    r.update({"root": name, "viewport": f"{vp[0]}x{vp[1]}", "pass": rep + 1,
                              "mode": "normal" if args.normal else "presenter"})
                    show(tag, r)
                    results.append(r)
    if args.baseline:
        print("\n== this checkout / baseline (same viewport and pass; lower is better)")
        base = {(r["viewport"], r["pass"]): r for r in results if r["root"] != "this checkout"}
        for r in results:
            b = base.get((r["viewport"], r["pass"])) if r["root"] == "this checkout" else None
            if not b:
                continue

            def ratio(a: float, c: float) -> str:  # noqa: one pass's counts, not timings (harness.ratio takes lists)
                return f"{a / c:.2f}x" if c else ("=" if a == c else "n/a (baseline 0)")
            lw, bw = r["longtasks_window"], b["longtasks_window"]
            print(f"  {r['viewport']} pass {r['pass']}: drops {len(r['drops'])} vs {len(b['drops'])}; "
                  f"longest blank {max(r['longest_blank_ms'].values())} vs {max(b['longest_blank_ms'].values())} ms; "
                  f"long tasks {lw['count']} vs {bw['count']} ({ratio(lw['count'], bw['count'])}), "
                  f"total {lw['total_ms']} vs {bw['total_ms']} ms ({ratio(lw['total_ms'], bw['total_ms'])}), "
                  f"max {lw['max_ms']} vs {bw['max_ms']} ms ({ratio(lw['max_ms'], bw['max_ms'])}), "
                  f"share of the window in long tasks {100 * r['busy_share']:.0f} vs {100 * b['busy_share']:.0f} % "
                  f"({ratio(r['busy_share'], b['busy_share'])}); opening the page: "
                  f"{r['opening']['s']} vs {b['opening']['s']} s, its longest task {r['opening']['max_ms']} vs "
                  f"{b['opening']['max_ms']} ms")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    table = Table("live_refresh", ["page", "viewport, pass", "blank stretches", "longest blank (ms)",
                                   "chart nodes (1 = in place)", "share in long tasks", "longest task"],
                  title=f"The one-minute demo watched on the Live page ({'normal' if args.normal else 'presenter + talk'} "
                  "mode), from its four charts drawn to both runs finished")
    for r in results:
        table.row(r["root"], f"{r['viewport']}, {r['pass']}", len(r["drops"]), max(r["longest_blank_ms"].values(), default=0),
                  r["chart_nodes"], f"{100 * r['busy_share']:.0f} %", f"{r['longtasks_window']['max_ms']} ms")
    finish(table, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
