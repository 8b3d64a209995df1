"""What a user feels in a real browser: Explore's α slider, switching study, the first page.

Starts the dashboard (``streamlit run app/main.py --server.fileWatcherType none --server.headless
true`` on a free port, ``FEDQUAD_RECORDED_DIR=assets/recorded``, an empty ``FEDQUAD_RUNS_DIR``, the
projection worker off) and drives Debian's Chromium (``/usr/bin/chromium``, or CHROMIUM_PATH)
through Playwright at 1600x1000. Three measurements:

1. **first page**: from the moment the server process is started until the first plotly chart of
   the opening page (Explore on ``digits-alpha``) is drawn (an ``svg.main-svg`` inside a
   ``[data-testid="stPlotlyChart"]``, or a ``.fq-fig`` of the figure switcher), and until that page
   has *settled* (defined below). Then a second tab on the warm server: ``goto`` until first chart
   / settled. The switcher's frame gets its observer from the polling loop (every 20 ms; its first
   document is replaced before Playwright's init script could see the real one), so a chart drawn
   there before that is counted at the moment it is seen: at most one poll late.
2. **slider move**: the α slider of Explore on ``digits-alpha`` (the figure switcher's, in its
   iframe; Streamlit's own in older checkouts) is focused and moved one grid step by a key press
   (ArrowRight through the whole grid, then ArrowLeft back). One move's time is **key press ->
   last chart re-rendered**:

   - start: the ``keydown`` event's own time stamp (``performance.timeOrigin + event.timeStamp``,
     so time the page spent busy before handling the key counts), seen by a capturing listener
     in the frame that got the key;
   - end: the time of the last DOM mutation (child list, attribute or text) inside a chart
     (``[data-testid="stPlotlyChart"]`` in the page, ``.fq-fig`` in the switcher's frame), or the
     adding/removing of one, seen by a ``MutationObserver`` in every frame; mutations inside a
     figure the switcher draws hidden for later (``.fq-fig.hidden``), and its adding, are not counted, its
     becoming visible is;
   - the move counts as finished (settled) once Streamlit's running indicator
     (``[data-testid="stStatusWidget"]``) is gone, at least one chart changed after the press,
     and no chart changed in any frame for ``--quiet`` ms (default 500). The quiet window is not
     part of the time.

   So the time covers whatever the page needs to show the new position: with the switcher, the
   swap in the browser (the server follows afterwards, for the link and the download picker);
   without it, the widget message, the script re-run, sending the figures and Plotly redrawing
   every chart that changed. All times are epoch milliseconds, comparable across frames.
3. **study switch**: the Study select box is opened and another study's option clicked; start is
   the option's ``mousedown`` in the page, end as for a slider move (last chart re-rendered,
   settled). Cycles ``digits-alpha -> digits-margins -> fmnist-methods -> digits-alpha``.

The machine may be shared: the load average (1 min) is printed before and after, with the wall
times. ``--load`` trains a digits run (the one-minute demo's setting, 200 rounds) beside the app
during the slider and switch measurements, to see the dashboard while a study trains.
``--app-root`` measures another checkout's app (same data), for A/B comparisons; ``--repeat``
runs the slider moves several times (the median of all moves is printed).

Usage:
    .venv/bin/python -m benchmarks.browser_latency [--moves 6] [--talk] [--load]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
from benchmarks import harness
from scripts.serving import Dashboard, DashboardError, free_port  # noqa: F401 - free_port: for the other benchmarks
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
STUDY = "recorded:digits-alpha"
SWITCHES = ["recorded:digits-margins", "recorded:fmnist-methods", "recorded:digits-alpha"]
CHART = '[data-testid="stPlotlyChart"]'

CHART_ANY = CHART + ", .fq-fig"  # Streamlit's charts, and the figures the switcher draws in its iframe

# In every frame (the page and the switcher's iframe): the times (epoch ms) of the mutation batches
# that touch a chart, and of the last key press / armed mouse press there.
OBSERVER = """(() => {
  const CHART = '%s';
  const DRAWN = '%s';
  const HIDDEN = '.fq-fig.hidden';  // a figure the switcher draws unseen, for a later position
  const now = () => performance.timeOrigin + performance.now();
  const shown = (n) => n.matches(CHART) && !n.matches(HIDDEN);
  const touches = (n) => n.nodeType === 1 && (shown(n) || [...n.querySelectorAll(CHART)].some(shown));
  const install = () => {  // on this frame's current document (an iframe's first one is replaced)
    if (window.__fq && window.__fq.doc === document) return;
    const f = window.__fq = {start: 0, batches: [], first: 0, armed: false, doc: document};
    if (document.querySelector(DRAWN)) { f.first = now(); f.batches.push(f.first); }  // drawn before we looked
    new MutationObserver((records) => {
      for (const m of records) {
        const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
        if (el && el.closest(HIDDEN)) continue;  // the switcher drawing a figure for later, unseen
        if ((el && el.closest(CHART)) || (m.type === 'childList' &&
            ([...m.addedNodes].some(touches) || [...m.removedNodes].some(touches)))) {
          const t = now(); f.batches.push(t); if (f.batches.length > 4000) f.batches.splice(0, 2000);
          if (!f.first && document.querySelector(DRAWN)) f.first = t;
          return;
        }
      }
    }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
    // the event's own time (when the browser took the key), so time spent waiting for a busy page counts
    const at = (e) => performance.timeOrigin + e.timeStamp;
    document.addEventListener('keydown', (e) => { f.start = at(e); }, true);
    document.addEventListener('mousedown', (e) => { if (f.armed) { f.armed = false; f.start = at(e); } }, true);
  };
  window.__fqInstall = install;
  install();
  window.addEventListener('DOMContentLoaded', install, true);
})();""" % (CHART_ANY, ", ".join(f"{c} svg.main-svg" for c in CHART_ANY.split(", ")))

FRAME_STATE = ("(since) => { if (window.__fqInstall) window.__fqInstall(); return window.__fq ? "
               "[window.__fq.start, window.__fq.first, window.__fq.batches.filter(t => t > since)] : null; }")
BUSY = "() => [!!document.querySelector('[data-testid=\"stStatusWidget\"]'), performance.timeOrigin + performance.now()]"


def frames_state(page, since: float) -> tuple[float, list[float], list[float]]:
    """(the latest key/mouse press in any frame, the first-drawn times, the chart batches after ``since``)."""
    start, firsts, times = 0.0, [], []
    for frame in page.frames:
        try:
            got = frame.evaluate(FRAME_STATE, since)
        except Exception:  # noqa: BLE001 - a frame that went away while polling
            continue
        if got:
            start = max(start, got[0])
            firsts += [got[1]] if got[1] else []
            times += got[2]
    return start, firsts, times


def chromium_path() -> str:
    for cand in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium")):
        if cand and os.access(cand, os.X_OK):
            return cand
    sys.exit("browser_latency: Debian's chromium is missing (`apt-get install chromium`, or set CHROMIUM_PATH)")


def load1() -> float:
    return os.getloadavg()[0]


class Server(Dashboard):
    """The dashboard of ``app_root`` in its own process group (scripts/serving.py), against the
    recorded studies and an empty run store (``work``/runs, log ``work``/streamlit.log). The
    projection worker is off unless ``worker`` (as under ``scripts/start.sh``); the warm server for
    runs (``fedquad_core.prefork``) is on unless ``warm`` is False."""

    def __init__(self, app_root: Path, recorded: Path, work: Path, *, worker: bool = False, warm: bool = True):
        super().__init__(work / "runs", recorded, app_root=app_root, log=work / "streamlit.log", worker=worker,
                         warm=warm)

    def wait_healthy(self, timeout: float = 120.0) -> "Server":
        try:
            return super().wait_healthy(timeout, every=0.05)
        except DashboardError as e:
            sys.exit(f"browser_latency: {e}")


FIRST_CHANGE: list[float] = []  # per move: start -> the first chart change (the server's answer arriving)


def settle(page, quiet: float, since: float = 0.0, timeout_s: float = 120.0) -> float:
    """Wait until the move settled (no running indicator, a chart changed after the press, then no
    chart change in any frame for ``quiet`` ms); its time in ms (last chart change minus press)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        start, _, times = frames_state(page, since)
        busy, now = page.evaluate(BUSY)
        after = [t for t in times if t > start] if start > since else []
        if after and not busy and now - max(after) > quiet:
            FIRST_CHANGE.append(min(after) - start)
            return max(after) - start
        time.sleep(0.05)
    raise TimeoutError(f"the page did not settle within {timeout_s:.0f} s")


def slider(page):
    """Explore's α slider: Streamlit's own (older checkouts) or the switcher's, in its iframe."""
    own = page.locator('.st-key-x_alpha input[type="range"], .st-key-x_alpha [role="slider"]')
    if own.count():
        return own.first
    return page.frame_locator('[data-testid="stCustomComponentV1"]').locator('input[type="range"]').first


def page_now(page) -> float:
    return page.evaluate(BUSY)[1]


def href(page) -> str:
    """The address now (``page.url`` is refreshed only by events that a sleep loop never takes in)."""
    return page.evaluate("() => location.href")


def slider_moves(page, moves: int, quiet: float) -> tuple[list[float], list[float], list[str]]:
    handle = slider(page)
    handle.wait_for()
    handle.focus()
    fwd, back, seen = [], [], []
    for key, out in (("ArrowRight", fwd), ("ArrowLeft", back)):
        for _ in range(moves):
            before = href(page)
            since = page_now(page)
            page.keyboard.press(key)
            out.append(settle(page, quiet, since))
            deadline = time.monotonic() + 10
            while (now := href(page)) == before and time.monotonic() < deadline:
                time.sleep(0.05)  # the server follows the browser's move and writes the link
            seen.append(now.split("x_alpha=")[-1].split("&")[0] if "x_alpha=" in now else "?")
            if now == before:
                print(f"  warning: the URL did not change on {key} ({before})", file=sys.stderr)
            handle.focus()
    return fwd, back, seen


def study_switches(page, quiet: float) -> list[tuple[str, float]]:
    out = []
    for target in SWITCHES:
        name = target.split(":", 1)[1]
        page.locator(".st-key-x_study [role='combobox']").first.click()
        options = page.get_by_role("option")
        labels = options.all_inner_texts()
        idx = next((i for i, t in enumerate(labels) if _label_for(name) in t), None)
        if idx is None:
            print(f"  no option for {name} among {labels}", file=sys.stderr)
            page.keyboard.press("Escape")
            continue
        option = options.nth(idx)
        since = page_now(page)
        page.evaluate("() => { window.__fq.armed = true; }")
        option.click()
        out.append((name, settle(page, quiet, since)))
        DRAWN_MS.append(switcher_draw_ms(page))
    return out


DRAWN_MS: list[float | None] = []  # per switch: the switcher's own time from the payload to the figures shown


def switcher_draw_ms(page) -> float | None:
    """How long the figure switcher took, for its latest payload with a new layout, from receiving
    it to showing its figures (``window.fqTimings``); None without a switcher."""
    for frame in page.frames[1:]:
        try:
            got = frame.evaluate("() => (window.fqTimings || []).filter(t => t.built).map(t => t.shown - t.received)")
        except Exception:  # noqa: BLE001 - a frame that went away
            continue
        if got:
            return got[-1]
    return None


_TITLES: dict[str, str] = {}


def _label_for(name: str) -> str:
    if not _TITLES:
        for p in (ROOT / "assets" / "recorded" / "studies").glob("*.json"):
            try:
                _TITLES[p.stem] = json.loads(p.read_text()).get("title") or p.stem
            except (OSError, ValueError):
                pass
    return _TITLES.get(name, name)


def start_load(work: Path, app_root: Path) -> subprocess.Popen:
    cmd = [str(ROOT / ".venv" / "bin" / "python"), "-m", "fedquad_core", "run", "--runs-dir", str(work / "load-runs"),
           "--dataset", "digits", "--model", "mlp", "--clients", "50", "--alpha", "0.1", "--min-size", "5",
           "--participation", "1", "--local-epochs", "2", "--rounds", "200", "--lr", "0.1", "--method", "fedquad",
           "--snapshot-every", "3", "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(app_root), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(cmd, cwd=app_root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def open_browser(pw, exe: str, init_script: str, timeout_ms: int):
    """Headless Chromium at 1600x1000 with ``init_script`` in every frame: (browser, context, page)."""
    browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
    ctx = browser.new_context(viewport={"width": 1600, "height": 1000})
    ctx.add_init_script(init_script)
    page = ctx.new_page()
    page.set_default_timeout(timeout_ms)
    return browser, ctx, page


def ms_text(xs: list[float]) -> str:
    """Latencies in ms, as the harness writes them."""
    return harness.fmt([x / 1000 for x in xs], unit="ms", digits=0)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--moves", type=int, default=6, help="slider steps each way (default 6: the whole digits-alpha grid)")
    p.add_argument("--repeat", type=int, default=1, help="slider passes (right then left), default 1")
    p.add_argument("--quiet", type=float, default=500.0, help="ms without a chart change that count as settled")
    p.add_argument("--talk", action="store_true", help="measure in talk mode (?talk=1)")
    p.add_argument("--load", action="store_true", help="train a digits run beside the app while measuring")
    p.add_argument("--no-warm", action="store_true",
                   help="turn the dashboard's warm server for runs off (it imports the engine after the first page)")
    p.add_argument("--no-switch", action="store_true", help="skip the study switches")
    p.add_argument("--app-root", type=Path, default=ROOT, help="checkout whose app/ to start (default this one)")
    p.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    harness.add_docs_flag(p)
    args = p.parse_args(argv)
    if args.moves < 1 or args.repeat < 1 or args.quiet <= 0:
        p.error("--moves, --repeat and --quiet must be positive")
    app_root = args.app_root.resolve()
    if not (app_root / "app" / "main.py").exists():
        p.error(f"--app-root {app_root}: no app/main.py there")
    recorded = ROOT / "assets" / "recorded"
    exe = chromium_path()
    from playwright.sync_api import sync_playwright

    result: dict = {"app_root": str(app_root), "talk": args.talk, "load": args.load, "load1_before": load1()}
    print(f"load average (1 min) before: {result['load1_before']:.2f} on {os.cpu_count()} cores; app {app_root}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        server = Server(app_root, recorded, work, warm=not args.no_warm)
        loader = None
        try:
            with sync_playwright() as pw:
                browser, ctx, page = open_browser(pw, exe, OBSERVER, 120_000)
                server.wait_healthy()
                healthy = time.monotonic() - server.started
                suffix = "&talk=1" if args.talk else ""
                page.goto("about:blank")
                t_first, t_settled = first_page_run(page, server.url, suffix, server.started, args.quiet)
                result["first_page"] = {"healthy_s": healthy, "first_chart_s": t_first, "settled_s": t_settled}
                print(f"first page: server healthy {healthy:.1f} s, first chart {t_first:.1f} s, "
                      f"settled {t_settled:.1f} s after the server was started")
                tab = ctx.new_page()
                t0 = time.monotonic()
                t2_first, t2_settled = first_page_run(tab, server.url, suffix, t0, args.quiet)
                tab.close()
                result["second_tab"] = {"first_chart_s": t2_first, "settled_s": t2_settled}
                print(f"second tab: first chart {t2_first:.1f} s, settled {t2_settled:.1f} s")
                if args.load:
                    loader = start_load(work, app_root)
                    time.sleep(5)  # past its start-up (imports, data), into the rounds
                fwd, back = [], []
                for _ in range(args.repeat):
                    f, b, seen = slider_moves(page, args.moves, args.quiet)
                    fwd += f
                    back += b
                    print(f"  positions seen: {' '.join(seen)}")
                result["slider_ms"] = {"forward": fwd, "back": back}
                print(f"slider (key press -> last chart re-rendered): forward {ms_text(fwd)}; back {ms_text(back)}; "
                      f"all {ms_text(fwd + back)}")
                result["slider_first_change_ms"] = FIRST_CHANGE[-len(fwd + back):]
                print(f"  (key press -> first chart changed: {ms_text(result['slider_first_change_ms'])})")
                if not args.no_switch:
                    sw = study_switches(page, args.quiet)
                    result["switch_ms"] = dict(sw)
                    result["switch_first_change_ms"] = FIRST_CHANGE[-len(sw):] if sw else []
                    result["switch_drawn_ms"] = DRAWN_MS[-len(sw):] if sw else []
                    print("study switch: " + ", ".join(f"{n} {ms / 1000:.1f} s" for n, ms in sw)
                          + " (first chart changed after " + ", ".join(f"{ms / 1000:.1f}" for ms in
                                                                      result["switch_first_change_ms"]) + " s;"
                          + " drawn in the browser in " + ", ".join("?" if ms is None else f"{ms / 1000:.1f}" for ms in
                                                                   result["switch_drawn_ms"]) + " s)")
                browser.close()
        finally:
            if loader is not None:
                os.killpg(loader.pid, signal.SIGTERM)
                loader.wait(timeout=20)
            server.stop()
    result["load1_after"] = load1()
    print(f"load average (1 min) after: {result['load1_after']:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    harness.finish(table_of(result, args), args)
    return 0


def table_of(result: dict, args) -> harness.Table:
    """What one invocation measured, as the docs' table."""
    table = harness.Table("browser_latency", ["measurement", "result"],
                          title=f"Explore on {STUDY} in Chromium at 1600x1000{', talk mode' if args.talk else ''}"
                          f"{', a training run beside it' if args.load else ''}; load {result['load1_before']:.1f} "
                          f"before, {result['load1_after']:.1f} after")
    fp, tab = result["first_page"], result["second_tab"]
    table.row("first page: server start -> first chart (settled)", f"{fp['first_chart_s']:.1f} s ({fp['settled_s']:.1f} s)")
    table.row("second tab on the warm server -> first chart (settled)", f"{tab['first_chart_s']:.1f} s ({tab['settled_s']:.1f} s)")
    moves = result["slider_ms"]["forward"] + result["slider_ms"]["back"]
    table.row("slider move: key press -> last chart re-rendered", ms_text(moves))
    table.row("slider move: key press -> first chart changed", ms_text(result["slider_first_change_ms"]))
    for name, ms in result.get("switch_ms", {}).items():
        table.row(f"study switch -> {name}", f"{ms / 1000:.1f} s")
    return table


def first_page_run(page, url: str, suffix: str, t0: float, quiet: float) -> tuple[float, float]:
    """(s from ``t0`` (a ``time.monotonic()``) to the first chart drawn in any frame, to the page
    settled: no status widget, no chart change for ``quiet`` ms; the quiet window itself not
    counted). Both ends are read from the page's clocks (epoch ms)."""
    epoch_t0 = time.time() - (time.monotonic() - t0)
    page.goto(f"{url}/?x_study={STUDY}{suffix}")
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        _, firsts, times = frames_state(page, 0.0)
        busy, now = page.evaluate(BUSY)
        if firsts and times and not busy and now - max(times) > quiet:
            return min(firsts) / 1000.0 - epoch_t0, max(times) / 1000.0 - epoch_t0
        time.sleep(0.02)
    raise TimeoutError("the first page did not settle within 180 s")


if __name__ == "__main__":
    sys.exit(main())
