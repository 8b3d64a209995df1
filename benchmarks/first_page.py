"""The first page of a fresh server, with and without the warm-up visit of ``scripts/serve.py``.

For each of ``--repeat`` rounds, two fresh dashboards are started one after the other, exactly as
``bash scripts/start.sh`` starts it (``python scripts/serve.py app/main.py ...``, the recorded
studies, an empty run store), one with ``FEDQUAD_WARMUP=0`` (the baseline: the first browser
pays for the cold server) and one with the warm-up on. Debian's Chromium (Playwright, 1600x1000)
opens Explore on ``digits-alpha`` (``browser_latency.first_page_run``: until the first chart is
drawn and until the page settled), either at once when the server reports healthy (``--at
health``, default) or when the warm-up says it is done (``--at warm``: the baseline then waits
the same number of seconds after health). Prints each time, the medians and the ratio
warm-up / baseline, and the load average before and after (the machine may be shared).

Usage: PYTHONPATH=. .venv/bin/python benchmarks/first_page.py [--repeat 3] [--at health|warm]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_latency import OBSERVER, ROOT, chromium_path, first_page_run, free_port, load1, open_browser  # noqa: E402
from serving import Dashboard  # noqa: E402  (browser_latency put scripts/ on sys.path)

READY = "warm-up: /?talk=1 ready"


def one(pw, exe: str, warm: bool, at: str, wait_s: float) -> tuple[float, float, float]:
    """(s from health to the first chart, to settled; s from health to the warm-up's end)."""
    with tempfile.TemporaryDirectory() as tmp:
        work, port = Path(tmp), free_port()
        # started as scripts/start.sh starts it (scripts/serve.py), the warm-up on or off
        app = Dashboard(work / "runs", ROOT / "assets" / "recorded", port=port, env={"FEDQUAD_WARMUP": "1" if warm else "0"},
                        command=[str(ROOT / ".venv" / "bin" / "python"), "scripts/serve.py", "app/main.py",
                                 "--server.address", "127.0.0.1", "--server.port", str(port),
                                 "--server.fileWatcherType", "none", "--server.headless", "true"])
        try:
            app.wait_healthy(180, every=0.05)
            healthy = time.monotonic()
            ready = 0.0
            if at == "warm":
                if warm:
                    deadline = healthy + 180
                    while READY not in app.log_text() and time.monotonic() < deadline:
                        time.sleep(0.05)
                    ready = time.monotonic() - healthy
                else:
                    time.sleep(wait_s)
            browser, ctx, page = open_browser(pw, exe, OBSERVER, 120_000)
            page.goto("about:blank")
            t0 = time.monotonic()
            first, settled = first_page_run(page, app.url, "", t0, 500.0)
            browser.close()
            return first, settled, ready
        finally:
            app.stop(30)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--at", choices=["health", "warm"], default="health",
                   help="open the browser when the server is healthy, or when the warm-up is done")
    args = p.parse_args(argv)
    from playwright.sync_api import sync_playwright

    exe = chromium_path()
    print(f"load average (1 min) before: {load1():.2f} on {os.cpu_count()} cores; browser opened at: {args.at}")
    base, warm = [], []
    with sync_playwright() as pw:
        for i in range(args.repeat):
            w = one(pw, exe, True, args.at, 0.0)
            b = one(pw, exe, False, args.at, w[2])
            warm.append(w)
            base.append(b)
            print(f"round {i + 1}: baseline first chart {b[0]:.1f} s (settled {b[1]:.1f}); warm-up first chart "
                  f"{w[0]:.1f} s (settled {w[1]:.1f})" + (f"; warm-up took {w[2]:.1f} s after health" if args.at == "warm" else ""))
    mb, mw = statistics.median(x[0] for x in base), statistics.median(x[0] for x in warm)
    print(f"median first chart after {'health' if args.at == 'health' else 'the warm-up (baseline: as long after health)'}: "
          f"baseline {mb:.1f} s, warm-up {mw:.1f} s, ratio {mw / mb:.2f}")
    print(f"load average (1 min) after: {load1():.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
