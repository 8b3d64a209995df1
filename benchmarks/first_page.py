"""The first page of a fresh server, with and without the warm-up of ``scripts/serve.py``.

For each of ``--repeat`` rounds, two fresh dashboards are started one after the other, exactly as
``bash scripts/start.sh`` starts it (``python scripts/serve.py app/main.py ...``, the recorded
studies, an empty run store), one with ``FEDQUAD_WARMUP=0`` (the baseline: the first browser
pays for the cold server; health answers as soon as Streamlit is up) and one with the warm-up on
(health answers once the warm-up visits are done). Debian's Chromium (Playwright, 1600x1000)
opens Explore on ``digits-alpha`` (``browser_latency.first_page_run``: until the first chart is
drawn and until the page settled) at once when the server reports healthy. Prints, per round and
as medians, the s to the first chart from health and from the start command (what the
warm-up's hold on the health check costs a browser that comes early), the ratio warm-up /
baseline, and the load average before and after (the machine may be shared).

Usage: .venv/bin/python -m benchmarks.first_page [--repeat 3] [--write-docs]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Table, add_docs_flag, finish, median, positive_int, ratio
from benchmarks.browser_latency import OBSERVER, ROOT, chromium_path, first_page_run, free_port, load1, open_browser
from scripts.serving import Dashboard

READY = "warm-up: /?talk=1 ready"


def one(pw, exe: str, warm: bool) -> tuple[float, float, float]:
    """(s from health to the first chart, to settled; s from the start command to the first chart)."""
    with tempfile.TemporaryDirectory() as tmp:
        work, port = Path(tmp), free_port()
        started = time.monotonic()
        # started as scripts/start.sh starts it (scripts/serve.py), the warm-up on or off
        app = Dashboard(work / "runs", ROOT / "assets" / "recorded", port=port, env={"FEDQUAD_WARMUP": "1" if warm else "0"},
                        command=[str(ROOT / ".venv" / "bin" / "python"), "scripts/serve.py", "app/main.py",
                                 "--server.address", "127.0.0.1", "--server.port", str(port),
                                 "--server.fileWatcherType", "none", "--server.headless", "true"])
        try:
            app.wait_healthy(180, every=0.05)
            browser, ctx, page = open_browser(pw, exe, OBSERVER, 120_000)
            page.goto("about:blank")
            t0 = time.monotonic()
            first, settled = first_page_run(page, app.url, "", t0, 500.0)
            browser.close()
            if warm and READY not in app.log_text():
                raise SystemExit("first_page: the warm-up did not finish before the health check said healthy")
            return first, settled, t0 - started + first
        finally:
            app.stop(30)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--repeat", type=positive_int, default=3)
    add_docs_flag(p)
    args = p.parse_args(argv)
    from playwright.sync_api import sync_playwright

    exe = chromium_path()
    print(f"load average (1 min) before: {load1():.2f} on {os.cpu_count()} cores; browser opened at health")
    base, warm = [], []
    with sync_playwright() as pw:
        for i in range(args.repeat):
            if i % 2 == 0:  # the order alternates, so a drift of the machine's load falls on both
                w, b = one(pw, exe, True), one(pw, exe, False)
            else:
                b, w = one(pw, exe, False), one(pw, exe, True)
            warm.append(w)
            base.append(b)
            print(f"round {i + 1}: first chart after health: baseline {b[0]:.1f} s (settled {b[1]:.1f}), warm-up "
                  f"{w[0]:.1f} s (settled {w[1]:.1f}); after the start command: baseline {b[2]:.1f} s, warm-up {w[2]:.1f} s")
    print(f"load average (1 min) after: {load1():.2f}")
    table = Table("first_page", ["measured from", "without the warm-up", "with it", "ratio"],
                  title=f"Explore on digits-alpha in Chromium, opened when the server reports healthy; s to the first "
                  f"chart, median of {args.repeat} rounds (range)")

    def cell(runs: list[tuple], k: int) -> str:
        xs = [x[k] for x in runs]
        return f"{median(xs):.1f} s ({min(xs):.1f}-{max(xs):.1f})"

    for k, what in ((0, "the health check's 200"), (2, "the start command")):
        table.row(what, cell(base, k), cell(warm, k), ratio([x[k] for x in warm], [x[k] for x in base]))
    finish(table, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
