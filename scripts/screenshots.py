"""Screenshots of every dashboard page into docs/img/ (PNG), with headless Debian Chromium.

    # against a running app (bash scripts/start.sh)
    .venv/bin/python scripts/screenshots.py --url http://127.0.0.1:8501

    # Explore on the recorded studies (assets/recorded, or FEDQUAD_RECORDED_DIR=... for another root)
    .venv/bin/python scripts/screenshots.py --start --runs-dir /tmp/shot-runs --pages explore

    # start the app itself on a free port against a run store, launch the "Collapse in one minute"
    # preset from the Launch page first (skipped when the store already has runs), then shoot
    .venv/bin/python scripts/screenshots.py --start --runs-dir /tmp/demo-runs --launch-preset "Collapse in one minute"

Each page is opened fresh, then the script waits until Streamlit is idle (no "Running..."
status), every plotly figure has drawn, and (Embeddings, --projection UMAP) the background UMAP
has finished. The Clients page and the Lesson steps (lesson-step3, lesson-step5) read the recorded studies
(``$FEDQUAD_RECORDED_DIR``, default assets/recorded). The shot is the whole page: the viewport grows to the page's height, capped by
--max-height. Needs chromium (`apt-get install chromium`) and the playwright Python package.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import serving  # noqa: E402
from serving import Dashboard, DashboardError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# (file stem, url path, page title, has figures)
PAGES = [("explore", "explore", "Explore", True),
         ("partitions", "partitions", "Partitions", True),
         ("launch", "launch", "Launch", False), ("live", "live", "Live", True), ("embeddings", "embeddings", "Embeddings", True),
         ("geometry", "geometry", "Geometry", True), ("clients", "clients", "Clients", True),
         ("runs", "runs", "Runs", False),
         ("lesson-step2", "lesson?step=2", "Lesson", True), ("lesson-step3", "lesson?step=3", "Lesson", True),
         ("lesson-step4", "lesson?step=4", "Lesson", True), ("lesson-step5", "lesson?step=5", "Lesson", True)]
# idle: no "Running..." status widget and no element left faded ("stale") by a rerun in flight
IDLE_JS = ("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
           " && !document.querySelector('[data-stale=\"true\"]')")
# every plotly figure on the page has its SVG, and no element is marked stale by a rerun
DRAWN_JS = """() => {
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  return plots.length > 0 && plots.every(p => p.querySelector('.main-svg') && p._fullLayout);
}"""


def log(msg: str) -> None:
    print(f"[screenshots] {msg}", flush=True)


def wait_healthy(url: str, timeout: float, app: Dashboard | None = None) -> None:
    try:
        if app is not None:
            app.wait_healthy(timeout)
        else:
            serving.wait_healthy(url, timeout=timeout)
    except DashboardError as e:
        sys.exit(f"{e}\n(start the app with bash scripts/start.sh, or pass --start)")


def start_app(runs_dir: Path) -> Dashboard:
    """The app on a free port, in its own process group (scripts/serving.py), with its projection
    worker; the recorded root is ``$FEDQUAD_RECORDED_DIR`` when set, else the app's default."""
    threads = {k: os.environ.get(k, v) for k, v in (("OMP_NUM_THREADS", "1"), ("OMP_WAIT_POLICY", "PASSIVE"))}
    return Dashboard(runs_dir, worker=True, env=threads)


def wait_idle(page, timeout_ms: int = 120_000) -> None:
    page.wait_for_function(IDLE_JS, timeout=timeout_ms)


def quiet(page, seconds: float = 3.0, timeout_s: float = 180.0) -> bool:
    """Wait until the page has stayed idle for ``seconds`` in a row (a fragment that refreshes
    itself, e.g. while UMAP jobs run, goes busy every second); False when it never did."""
    deadline, since = time.monotonic() + timeout_s, None
    while time.monotonic() < deadline:
        if page.evaluate(IDLE_JS):
            since = since or time.monotonic()
            if time.monotonic() - since >= seconds:
                return True
        else:
            since = None
        page.wait_for_timeout(200)
    log(f"  the page kept re-running for {timeout_s:.0f} s; shooting anyway")
    return False


def drawn(page) -> bool:
    """Some frame (the page, or Explore's figure switcher) has figures, and each frame's are drawn."""
    seen = False
    for frame in page.frames:
        try:
            count = frame.evaluate("() => document.querySelectorAll('.js-plotly-plot').length")
            if count and not frame.evaluate(DRAWN_JS):
                return False
            seen = seen or bool(count)
        except Exception:  # noqa: BLE001 - a frame that went away meanwhile
            continue
    return seen


def settle(page, figures: bool, timeout_ms: int = 120_000) -> None:
    """Idle, figures drawn, and idle for a few seconds in a row (a page may rerun itself)."""
    wait_idle(page, timeout_ms)
    if figures:
        deadline = time.monotonic() + timeout_ms / 1000
        while not drawn(page) and time.monotonic() < deadline:
            time.sleep(0.25)
        if not drawn(page):  # a page without runs shows a message instead of figures
            log("  no figure drew (the page may have nothing to show)")
    quiet(page, 3.0, timeout_ms / 1000)


def open_page(page, base: str, path: str, title: str, query: str) -> None:
    """Open a page by its path; the app's default page (Explore when recorded studies exist, else
    Partitions) has none, so a "Page not found" answer is retried at the root."""
    query = query.replace("?", "&") if "?" in path else query  # lesson?step=3 already has a query
    page.goto(f"{base}/{path}{query}")
    heading, missing = page.locator("h1", has_text=title).first, page.get_by_text("Page not found")
    heading.or_(missing).first.wait_for(timeout=120_000)
    page.wait_for_timeout(1500)  # the dialog may come just after the default page's heading
    if missing.count() and missing.first.is_visible():
        page.goto(f"{base}/{query.replace('&', '?', 1)}")
    heading.wait_for(timeout=120_000)


def choose_preset(page, preset: str) -> None:
    """Pick a preset in the Launch page's Preset box (it fills the form)."""
    page.locator(".st-key-l_preset [role='combobox']").click()
    page.get_by_role("option", name=preset, exact=True).click()
    wait_idle(page)
    page.wait_for_timeout(1000)
    wait_idle(page)


def launch_preset(page, base: str, query: str, preset: str, timeout_s: float) -> None:
    """Start a preset from the Launch page (as a lecturer would) and wait until no run is active."""
    open_page(page, base, "launch", "Launch", query)
    settle(page, False)
    choose_preset(page, preset)
    page.locator(".st-key-l_start button").click()
    page.get_by_text("Started ").first.wait_for(timeout=120_000)
    log(f"started preset {preset!r}; waiting for its runs to finish")
    page.get_by_text("No run is active.").wait_for(timeout=timeout_s * 1000)
    log("runs finished")


def wait_umap(page, timeout_s: float) -> None:
    """Switch the Embeddings page to UMAP and wait for the background projections to land."""
    button = page.locator(".st-key-e_proj button", has_text="UMAP").first
    if button.get_attribute("kind") != "segmented_controlActive":  # UMAP is the default with a worker
        button.click()
    wait_idle(page)
    page.wait_for_timeout(2000)
    deadline = time.monotonic() + timeout_s
    while page.get_by_text("projecting…").count() and time.monotonic() < deadline:
        page.wait_for_timeout(1000)
    if page.get_by_text("projecting…").count():
        log(f"  UMAP still computing after {timeout_s:.0f} s: the shot shows PCA")
    quiet(page, 3.0, max(10.0, deadline - time.monotonic()))  # UMAP of the other rounds may still run


def shoot(page, out: Path, width: int, height: int, max_height: int) -> None:
    """Grow the viewport to the page's height (capped), let plotly re-lay out, take the shot."""
    page.set_viewport_size({"width": width, "height": height})
    content = page.evaluate("""() => {
      const els = [...document.querySelectorAll('[data-testid="stMainBlockContainer"] [data-testid="stElementContainer"]')];
      const bottoms = els.filter(e => e.checkVisibility()).map(e => e.getBoundingClientRect().bottom).filter(b => b > 0);
      return bottoms.length ? Math.ceil(Math.max(...bottoms)) : document.body.scrollHeight;
    }""")
    full = max(height, min(int(content) + 48, max_height))
    if full != height:
        page.set_viewport_size({"width": width, "height": full})
        page.wait_for_timeout(1500)
        quiet(page, 1.0, 30.0)
    page.screenshot(path=str(out), animations="disabled", caret="hide")
    page.set_viewport_size({"width": width, "height": height})
    log(f"  {out} ({width}x{full}, {out.stat().st_size // 1024} KB)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8501", help="a running app (default %(default)s)")
    ap.add_argument("--start", action="store_true", help="start the app itself on a free port (needs --runs-dir)")
    ap.add_argument("--runs-dir", type=Path, default=ROOT / "runs", help="run store for --start (default ./runs)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img", help="output folder (default docs/img/)")
    ap.add_argument("--pages", nargs="+", choices=[p[0] for p in PAGES], help="only these pages")
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=900, help="viewport height; pages taller than it grow it")
    ap.add_argument("--max-height", type=int, default=3600, help="cap of a shot's height (px)")
    ap.add_argument("--talk", action="store_true", help="talk mode (white, large fonts); files get a -talk suffix")
    ap.add_argument("--projection", choices=["PCA", "UMAP"], default="UMAP", help="Embeddings projection")
    ap.add_argument("--umap-timeout", type=float, default=240.0, help="seconds to wait for UMAP")
    ap.add_argument("--launch-preset", metavar="NAME", help="first start this preset on the Launch page and wait "
                    "for it (skipped when the store already has runs)")
    ap.add_argument("--launch-timeout", type=float, default=900.0, help="seconds to wait for the preset's runs")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
    args = ap.parse_args(argv)

    if not os.access(args.chromium, os.X_OK):
        sys.exit(f"no chromium at {args.chromium}: apt-get install chromium (scripts/setup.sh installs it)")
    from playwright.sync_api import sync_playwright

    app, base = None, args.url.rstrip("/")
    if args.start:
        args.runs_dir = args.runs_dir.resolve()
        args.runs_dir.mkdir(parents=True, exist_ok=True)
        app = start_app(args.runs_dir)
        base = app.url
        log(f"started the app on {base} against {args.runs_dir}")
    try:
        wait_healthy(base, 120.0, app)
        args.out.mkdir(parents=True, exist_ok=True)
        query = "?talk=1" if args.talk else ""
        suffix = "-talk" if args.talk else ""
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": args.width, "height": args.height})
            page.set_default_timeout(120_000)
            if args.launch_preset:
                open_page(page, base, "runs", "Runs", query)
                settle(page, False)
                if not page.get_by_text("The run store is empty").count():
                    log(f"the run store already has runs: not launching {args.launch_preset!r}")
                else:
                    launch_preset(page, base, query, args.launch_preset, args.launch_timeout)
            for stem, path, title, figures in PAGES:
                if args.pages and stem not in args.pages:
                    continue
                log(f"{title}")
                open_page(page, base, path, title, query)
                settle(page, figures)
                if stem == "launch" and args.launch_preset:
                    choose_preset(page, args.launch_preset)  # the shot shows the preset's form, not started
                if stem == "embeddings" and args.projection == "UMAP" and page.locator(".st-key-e_proj").count():
                    wait_umap(page, args.umap_timeout)
                    settle(page, figures)
                shoot(page, args.out / f"{stem}{suffix}.png", args.width, args.height, args.max_height)
            browser.close()
    finally:
        if app is not None:
            app.stop(15)
    return 0


if __name__ == "__main__":
    sys.exit(main())
