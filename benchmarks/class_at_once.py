"""A class at once: N students open the lecturer's Explore link together.

For each N (``--sessions``, default 1,8,30) and each mode, a fresh dashboard is started
(``browser_latency.Server``: ``streamlit run app/main.py --server.fileWatcherType none``, the
recorded studies, an empty run store, the projection worker and the warm server for runs off):

- **shared**: the figures of recorded studies built once and shared by every session
  (``app/studies/shared.py``, the default);
- **baseline**: ``FEDQUAD_SHARED_FIGURES=0``: each session builds its own, as before.

On each server one tab first opens another recorded study (``--warmup``, default
``recorded:fmnist-skew``) and waits for its figures, so the imports and Streamlit's first run are
paid (the lecturer's own tab) but nothing of the link's study is built yet. Then N browser
contexts (N sessions, one headless Chromium, ``/usr/bin/chromium`` or CHROMIUM_PATH, 1600x1000)
open the link (``--link``, default ``recorded:digits-alpha``) one right after the other (each
``goto`` returns at the response's first byte; the spread of the N starts is printed). Per tab,
from its own start:

- **data**: the figure switcher's frame received the server's first payload with figures
  (``window.fqTimings[i].received``, the frame's clock made epoch time with its
  ``performance.timeOrigin``);
- **figures**: the opening position's figures were drawn (``fqTimings[i].shown``: after
  ``Plotly.newPlot`` of every visible figure of that payload).

``--client ws`` measures the server alone: N websocket sessions (Streamlit's own protocol, as the
browser speaks it: ``/_stcore/stream``, one ``rerun_script`` with the link's query string) opened
together with asyncio; per session the s from connecting until the switcher's element (its
payload: the opening position's figures) arrives. No browser competes for the cores then, so
this isolates what the shared store changes on the server.

During each wave a thread GETs ``/_stcore/health`` every ``--health-every`` s and records its
latency. ``--waves 2`` (default) opens the link with N fresh contexts a second time on the same
server (a second class: the shared store is warm then, the baseline builds again). The modes
alternate in order between the Ns (baseline first for the first N, shared first for the next)
so that a drift in the machine's load does not fall on one mode only. The load average is
printed before and after: on a shared machine the absolute times move with it; compare the
ratios (shared / baseline, same run). This prints; it asserts nothing.

Usage:
    .venv/bin/python -m benchmarks.class_at_once [--sessions 1,8] [--waves 2] [--talk]
        [--client browser|ws]
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path


from benchmarks import harness
from benchmarks.browser_latency import ROOT, Server, chromium_path, load1, open_browser

SHARED_ENV = "FEDQUAD_SHARED_FIGURES"  # app/studies/shared.py's ENV (not imported: it imports streamlit)
MODES = {"baseline": "0", "shared": "1"}
VIEWPORT = {"width": 1600, "height": 1000}
# the switcher frame's payload timings with figures, as epoch ms: [[received, shown, figures], ...]
TIMINGS = ("() => (window.fqTimings || []).filter(t => t.figures > 0 && t.shown)"
           ".map(t => [performance.timeOrigin + t.received, performance.timeOrigin + t.shown, t.figures])")


class Health(threading.Thread):
    """GET /_stcore/health every ``every`` s until stopped: the latencies (s; None: no answer in 10 s)."""

    def __init__(self, url: str, every: float):
        super().__init__(daemon=True)
        self.url, self.every = f"{url}/_stcore/health", every
        self.latencies: list[float | None] = []
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            t = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=10) as r:
                    ok = r.status == 200
            except OSError:
                ok = False
            self.latencies.append(time.perf_counter() - t if ok else None)
            self._halt.wait(self.every)

    def stop(self) -> list[float | None]:
        self._halt.set()
        self.join(15)
        return self.latencies


def frame_timings(page) -> list | None:
    """The first payload with figures that the switcher's frame drew: [received, shown, figures]."""
    for frame in page.frames[1:]:
        try:
            got = frame.evaluate(TIMINGS)
        except Exception:  # noqa: BLE001 - a frame that is being replaced
            continue
        if got:
            return got[0]
    return None


def wait_figures(pages: list, timeout_s: float) -> list:
    """Poll each tab until its switcher drew its first figures; per tab [received, shown, n] or None."""
    out: list = [None] * len(pages)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(o is None for o in out):
        for i, page in enumerate(pages):
            if out[i] is None:
                out[i] = frame_timings(page)
        pages[0].wait_for_timeout(200)  # not time.sleep: Playwright takes in its events (new frames) only while called
    return out


def wave(browser, url: str, n: int, args) -> dict:
    """N fresh contexts open ``url`` together: per tab the s to the data and to the figures."""
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(n)]
    pages = [c.new_page() for c in contexts]
    for p in pages:
        p.set_default_timeout(args.timeout * 1000)
    health = Health(url.split("/?")[0], args.health_every)
    health.start()
    starts = []
    try:
        for p in pages:
            starts.append(time.time() * 1000)
            p.goto(url, wait_until="commit")
        got = wait_figures(pages, args.timeout)
    finally:
        latencies = health.stop()
        for c in contexts:
            c.close()
    data = [(g[0] - s) / 1000 for g, s in zip(got, starts) if g]
    figs = [(g[1] - s) / 1000 for g, s in zip(got, starts) if g]
    return {"n": n, "data_s": data, "figures_s": figs, "missing": sum(g is None for g in got),
            "start_spread_s": (starts[-1] - starts[0]) / 1000, "health_s": [x for x in latencies if x is not None],
            "health_failed": sum(x is None for x in latencies)}


async def ws_session(url: str, query: str, timeout_s: float) -> float | None:
    """One session over Streamlit's websocket: s from connecting to the switcher's element."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    t0 = time.perf_counter()
    async with websockets.connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                                  max_size=None, origin=url, open_timeout=timeout_s) as ws:
        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_script_hash = ""
        await ws.send(msg.SerializeToString())
        while time.perf_counter() - t0 < timeout_s:
            fwd = ForwardMsg()
            fwd.ParseFromString(await asyncio.wait_for(ws.recv(), timeout_s))
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element" \
                    and fwd.delta.new_element.WhichOneof("type") == "component_instance" \
                    and fwd.delta.new_element.component_instance.component_name.endswith("fedquad_switcher"):
                return time.perf_counter() - t0
            if kind == "script_finished":
                return None
    return None


def ws_wave(url: str, query: str, n: int, args) -> dict:
    """N websocket sessions open the link together (the server alone, no browser)."""
    async def together():
        return await asyncio.gather(*(ws_session(url, query, args.timeout) for _ in range(n)), return_exceptions=True)

    health = Health(url, args.health_every)
    health.start()
    try:
        got = asyncio.run(together())
    finally:
        latencies = health.stop()
    ok = [g for g in got if isinstance(g, float)]
    return {"n": n, "data_s": ok, "figures_s": [], "missing": len(got) - len(ok), "start_spread_s": 0.0,
            "health_s": [x for x in latencies if x is not None], "health_failed": sum(x is None for x in latencies)}


def measure(pw, exe: str, mode: str, n: int, args, work: Path) -> list[dict]:
    """A fresh server in ``mode``; the warm-up tab; ``args.waves`` waves of N tabs on the link."""
    old = os.environ.get(SHARED_ENV)
    os.environ[SHARED_ENV] = MODES[mode]
    folder = work / f"{mode}-{n}"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        server = Server(ROOT, ROOT / "assets" / "recorded", folder, warm=False)
    finally:
        if old is None:
            os.environ.pop(SHARED_ENV, None)
        else:
            os.environ[SHARED_ENV] = old
    suffix = "&talk=1" if args.talk else ""
    if args.client == "ws":
        return measure_ws(server, mode, n, args, suffix)
    browser = None
    try:
        browser, ctx, page = open_browser(pw, exe, "void 0", args.timeout * 1000)
        server.wait_healthy()
        page.goto(f"{server.url}/?x_study={args.warmup}{suffix}", wait_until="commit")
        if wait_figures([page], args.timeout)[0] is None:
            sys.exit(f"class_at_once: the warm-up tab ({args.warmup}) drew no figure within {args.timeout} s")
        ctx.close()
        out = []
        for w in range(args.waves):
            r = wave(browser, f"{server.url}/?x_study={args.link}{suffix}", n, args)
            r.update(mode=mode, wave=w + 1)
            out.append(r)
            print(f"  {mode:8s} N={n:<3d} wave {w + 1}: {line(r)}", flush=True)
        return out
    finally:
        if browser is not None:
            browser.close()
        server.stop()


def measure_ws(server, mode: str, n: int, args, suffix: str) -> list[dict]:
    try:
        server.wait_healthy()
        if ws_wave(server.url, f"x_study={args.warmup}{suffix}", 1, args)["missing"]:
            sys.exit(f"class_at_once: the warm-up session ({args.warmup}) got no figures within {args.timeout} s")
        out = []
        for w in range(args.waves):
            r = ws_wave(server.url, f"x_study={args.link}{suffix}", n, args)
            r.update(mode=mode, wave=w + 1)
            out.append(r)
            print(f"  {mode:8s} N={n:<3d} wave {w + 1}: {line(r)}", flush=True)
        return out
    finally:
        server.stop()


def stats(xs: list[float]) -> str:
    if not xs:
        return "n/a"
    return f"median {statistics.median(xs):5.2f} s, max {max(xs):5.2f} s"


def line(r: dict) -> str:
    h = r["health_s"]
    health = (f"median {statistics.median(h) * 1000:.0f} ms, max {max(h) * 1000:.0f} ms (n={len(h)}"
              + (f", {r['health_failed']} unanswered" if r["health_failed"] else "") + ")") if h else "n/a"
    return ((f"figures {stats(r['figures_s'])}; " if r["figures_s"] else "") + f"data {stats(r['data_s'])}; health {health}; "
            f"starts spread {r['start_spread_s']:.2f} s" + (f"; {r['missing']} tab(s) drew nothing" if r["missing"] else ""))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sessions", default="1,8,30", help="comma-separated N (default 1,8,30)")
    p.add_argument("--waves", type=int, default=2, help="classes opening the link one after the other per server (default 2)")
    p.add_argument("--link", default="recorded:digits-alpha", help="the study the link opens")
    p.add_argument("--warmup", default="recorded:fmnist-skew", help="the study the lecturer's tab opens first")
    p.add_argument("--talk", action="store_true", help="the link in talk mode (&talk=1)")
    p.add_argument("--client", choices=("browser", "ws"), default="browser",
                   help="browser: N Chromium contexts (default); ws: N websocket sessions, the server alone")
    p.add_argument("--health-every", type=float, default=0.25, help="s between health checks (default 0.25)")
    p.add_argument("--timeout", type=float, default=300.0, help="s a tab may take to draw its figures")
    p.add_argument("--work", type=Path, help="folder for the servers' run stores and logs (default: a temporary one)")
    p.add_argument("--json", type=Path, help="also write the numbers to this JSON file")
    harness.add_docs_flag(p)
    args = p.parse_args(argv)
    try:
        ns = [int(x) for x in args.sessions.split(",") if x.strip()]
    except ValueError:
        p.error("--sessions: comma-separated integers")
    if not ns or min(ns) < 1 or args.waves < 1:
        p.error("--sessions and --waves must be positive")
    exe = chromium_path() if args.client == "browser" else ""
    from playwright.sync_api import sync_playwright

    result = {"link": args.link, "warmup": args.warmup, "talk": args.talk, "load1_before": load1(), "runs": []}
    result["client"] = args.client
    print(f"load average (1 min) before: {result['load1_before']:.2f} on {os.cpu_count()} cores; link {args.link}, "
          f"warm-up {args.warmup}, {args.waves} wave(s) per server, client {args.client}")
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        with (sync_playwright() if args.client == "browser" else contextlib.nullcontext()) as pw:
            for i, n in enumerate(ns):
                for mode in (("baseline", "shared") if i % 2 == 0 else ("shared", "baseline")):
                    result["runs"] += measure(pw, exe, mode, n, args, work)
    result["load1_after"] = load1()
    print(f"load average (1 min) after: {result['load1_after']:.2f}")
    key = "figures_s" if args.client == "browser" else "data_s"  # a ws session receives the data, draws nothing
    what = "to its figures drawn" if args.client == "browser" else "to its figures' data received"
    table = harness.Table("class_at_once", ["sessions", "wave", "shared figures", "baseline", "shared / baseline: median",
                                            "max", "health check: slowest answer, shared / baseline"],
                          title=f"A class opening {args.link} at once ({args.client} sessions, each timed from the "
                          f"open {what}), the shared figure store against it off (baseline), the same run; load "
                          f"{result['load1_before']:.1f} before, {result['load1_after']:.1f} after")
    for n in ns:
        for w in range(1, args.waves + 1):
            base = next(r for r in result["runs"] if r["n"] == n and r["wave"] == w and r["mode"] == "baseline")
            new = next(r for r in result["runs"] if r["n"] == n and r["wave"] == w and r["mode"] == "shared")
            table.row(n, w, harness.fmt(new[key]), harness.fmt(base[key]), harness.ratio(new[key], base[key]),
                      harness.ratio(new[key], base[key], of=max),
                      f"{max(new['health_s']) * 1e3:.0f} ms / {max(base['health_s']) * 1e3:.0f} ms"
                      if new["health_s"] and base["health_s"] else "n/a")
    harness.finish(table, args)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
