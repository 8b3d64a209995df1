"""The take-home file's budgets (issue 46), measured and printed: no assertion, numbers only.

1. ``size``: the file for the default study set (Explore's first study and the Lesson's, from
   assets/recorded or --recorded) against 15 MB, with what is in it (plotly.js, the figures stored
   once each and compressed, the text and positions, the page);
2. ``first figure``: opened from file:// in a fresh Chromium context (Debian's, headless, every
   request that is not the file aborted and counted), the first figure drawn, in ms since the
   navigation started (budget 1.5 s), and the load event's time beside it;
3. ``slider move``: Explore on the first study, one step along an axis at a time through every
   position, from the input event's timestamp to the frame after the position's last figure is
   shown and the next frame begins (budget 50 ms; the dashboard's slider is measured from the
   keydown's timestamp to the last shown chart's DOM change: benchmarks/browser_latency.py),
   once with the positions around drawn ahead (waited for, as a user who reads before moving) and
   once moving at once ("drew" counts the figures a move had to draw first);
4. ``memory``: the page's JS heap (CDP Performance.getMetrics, JSHeapUsedSize) after load and after
   every position of every study was visited, and the number of figures drawn then.

Usage:
    .venv/bin/python -m benchmarks.takehome [--recorded DIR] [--study NAME ...]
        [--file FILE] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Table, add_docs_flag, finish, median

ROOT = Path(__file__).resolve().parents[1]

BUDGET_MB, FIRST_MS, MOVE_MS = 15, 1500, 50


def fail(message: str) -> None:
    print(f"takehome: {message}", file=sys.stderr)
    sys.exit(2)


def parse(argv) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--recorded", help="recorded root (default $FEDQUAD_RECORDED_DIR, else assets/recorded)")
    p.add_argument("--study", action="append", help="a study for Explore (default: the default set)")
    p.add_argument("--file", help="measure this take-home file instead of exporting one")
    p.add_argument("--repeat", type=int, default=3, help="fresh page loads (default 3)")
    add_docs_flag(p)
    args = p.parse_args(argv)
    if args.repeat < 1:
        fail("--repeat must be positive")
    if args.file and not Path(args.file).is_file():
        fail(f"--file {args.file}: no such file")
    if args.recorded and not (Path(args.recorded) / "studies").is_dir():
        fail(f"--recorded {args.recorded}: no studies/ folder there")
    return args


def export(args) -> Path:
    if args.recorded:
        os.environ["FEDQUAD_RECORDED_DIR"] = args.recorded
    from app.export.takehome.make import write

    out = Path(tempfile.mkdtemp(prefix="takehome-bench-")) / "takehome.html"
    t0 = time.perf_counter()
    built = write(out, args.study)
    size = out.stat().st_size
    print(f"size: {size / 1e6:.2f} MB (budget {BUDGET_MB} MB) for {', '.join(s['id'] for s in built.data['studies'])}: "
          f"{built.positions} positions, {len(built.data['lesson'])} lesson steps, {built.figures} figures stored for "
          f"{built.figures_added} shown ({built.figures_raw / 1e6:.2f} MB of JSON before compression); "
          f"exported in {time.perf_counter() - t0:.1f} s")
    for part, n in built.sizes.items():
        print(f"  {part}: {n / 1e6:.2f} MB")
    return out


def heap(pg, cdp) -> float:
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return metrics.get("JSHeapUsedSize", 0) / 1e6


def settle(pg) -> None:
    pg.wait_for_function("window.fqTakehome.pending() === 0", timeout=60_000)
    pg.wait_for_timeout(150)


def one_load(browser, url: str) -> dict:
    blocked: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://")
                  else (blocked.append(r.request.url), r.abort()))
    pg = context.new_page()
    cdp = context.new_cdp_session(pg)
    cdp.send("Performance.enable")
    pg.goto(url)
    pg.wait_for_function("window.fqTakehome && window.fqTakehome.firstFigure !== null", timeout=60_000)
    first = pg.evaluate("window.fqTakehome.firstFigure")
    load = pg.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
    pg.wait_for_timeout(1500)
    out = {"first": first, "load": load, "heap_load": heap(pg, cdp), "blocked": blocked}
    context.close()
    return out


def moves(browser, url: str) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    cdp = context.new_cdp_session(pg)
    cdp.send("Performance.enable")
    pg.goto(url + "#view=explore")
    pg.wait_for_function("document.querySelectorAll('#explore .fq-fig.js-plotly-plot:not(.hidden)').length > 0")
    settle(pg)
    studies = pg.evaluate("[...document.querySelectorAll('#study option')].map(o => o.value)")
    ahead, at_once = [], []
    for i, study in enumerate(studies):
        if i:
            pg.select_option("#study", study)
            settle(pg)
        for axis in pg.evaluate("[...document.querySelectorAll('#explore input[type=range]')].map(i => i.dataset.axis)"):
            slider = pg.locator(f"#explore input[type=range][data-axis='{axis}']")
            n = int(slider.get_attribute("max")) + 1
            slider.focus()
            pg.keyboard.press("Home")
            settle(pg)
            # to the last position one step at a time, reading each (the ones around drawn ahead),
            # then back at once, a step as soon as the last is shown
            for key, fast in (("ArrowRight", False), ("ArrowLeft", True)):
                for _ in range(n - 1):
                    before = pg.evaluate("window.fqTakehome.moves.length")
                    slider.focus()
                    pg.keyboard.press(key)
                    pg.wait_for_function(f"window.fqTakehome.moves.length > {before}")
                    (at_once if fast else ahead).append(pg.evaluate("window.fqTakehome.moves.at(-1)"))
                    if not fast:
                        settle(pg)
    out = {"ahead": ahead, "at_once": at_once, "heap_all": heap(pg, cdp), "drawn": pg.evaluate("window.fqTakehome.drawn")}
    context.close()
    return out


def summary(values: list[float]) -> str:
    if not values:
        return "none"
    return f"median {median(values):.0f} ms, max {max(values):.0f} ms over {len(values)}"


def main(argv=None) -> int:
    args = parse(argv)
    from tests.e2e.browser_helpers import CHROMIUM_ARGS, chromium_path
    from playwright.sync_api import sync_playwright

    exe = chromium_path()
    if exe is None:
        fail("needs Debian's chromium (apt-get install chromium) or CHROMIUM_PATH")
    path = Path(args.file) if args.file else export(args)
    if args.file:
        print(f"size: {path.stat().st_size / 1e6:.2f} MB (budget {BUDGET_MB} MB), {path}")
    url = path.resolve().as_uri()
    print(f"load average (1 min) before the browser: {os.getloadavg()[0]:.1f} (a shared machine: times include waiting)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            loads = [one_load(browser, url) for _ in range(args.repeat)]
            m = moves(browser, url)
        finally:
            browser.close()
    blocked = sorted({u for r in loads for u in r["blocked"]})
    print(f"first figure drawn (ms since navigation start): {summary([r['first'] for r in loads])} "
          f"(budget {FIRST_MS} ms); load event at {summary([r['load'] for r in loads])}")
    print(f"slider move to its last redraw, neighbours drawn ahead: {summary([x['ms'] for x in m['ahead']])} "
          f"(budget {MOVE_MS} ms)")
    print(f"slider move to its last redraw, moving at once: {summary([x['ms'] for x in m['at_once']])}; "
          f"{sum(1 for x in m['at_once'] if x['drew'])} of {len(m['at_once'])} moves drew a figure first")
    print(f"page memory (JS heap, CDP): {median([r['heap_load'] for r in loads]):.1f} MB after load, "
          f"{m['heap_all']:.1f} MB after every position of every study ({m['drawn']} figures drawn, at most "
          "12 kept per Explore slot)")
    print("  each move (ms: total / until the input was handled / the swap itself / resizes so far), ahead:", [f"{x['ms']:.0f}/{x['queued']:.0f}/{x['swap']:.0f}/r{x['resized']}" for x in m["ahead"]])
    print("  at once:", [f"{x['ms']:.0f}/{x['queued']:.0f}/{x['swap']:.0f}" for x in m["at_once"]])
    print(f"requests other than the file: {len(blocked)}" + (f" {blocked[:5]}" if blocked else ""))
    table = Table("takehome", ["measurement", "result", "budget"],
                  title=f"The take-home file from file:// in headless Chromium, {args.repeat} fresh loads")
    table.row("file size", f"{path.stat().st_size / 1e6:.2f} MB", f"{BUDGET_MB} MB")
    table.row("first figure drawn (since navigation start)", summary([r["first"] for r in loads]), f"{FIRST_MS} ms")
    table.row("load event", summary([r["load"] for r in loads]), "")
    table.row("slider move to its last redraw, neighbours drawn ahead", summary([x["ms"] for x in m["ahead"]]), f"{MOVE_MS} ms")
    table.row("slider move to its last redraw, moving at once", summary([x["ms"] for x in m["at_once"]]), "")
    table.row("JS heap after load / after every position", f"{median([r['heap_load'] for r in loads]):.1f} MB / "
              f"{m['heap_all']:.1f} MB ({m['drawn']} figures drawn)", "bounded")
    table.row("requests other than the file", len(blocked), 0)
    finish(table, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
