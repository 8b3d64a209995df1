"""What the room feels: a key press on the presenter's page to the students' redraw, in Chromium.

Starts a class server on 127.0.0.1 (``bash scripts/start.sh --class``: the recorded studies, an
empty run store), opens the presenter's secret link on the Lesson in talk and presenter mode
(``/lesson?token=...&talk=1&presenter=1&step=1``) and the students' link on the Lesson in talk mode
(``/lesson?follow=...&talk=1``), both in one headless Chromium (a context each, 1280x720, every
request to another host aborted), then presses the clicker's key (PageDown) on the presenter
``--presses`` times, one step each. One press's times, all in epoch ms of the one machine:

- start: the ``keydown`` event's own time stamp on the presenter's page (a capturing listener), so
  time the page spent busy before handling the key counts;
- **presenter**: the presenter's page shows the new step's title (``.fq-step-title`` reads "n ·");
- **student title**: the student's page shows the new step's title;
- **student redrawn**: the student's page shows it with its script run finished (no running
  indicator) and every figure of the step drawn (each ``.js-plotly-plot`` has its ``svg.main-svg``),
  for 300 ms without a change in the figures (that quiet time is not counted).

Each condition is watched in its page on every animation frame (the student's from the moment the
presenter's page shows the step: a student faster than that would be counted at that moment, an
upper bound; none was). Between presses both pages are left
to settle, plus ``--pause`` s. Prints each press, then the median, min and max of each time, and the
machine's load average before and after (the time moves with the load: report it with the numbers).
It asserts nothing.

Usage:
    PYTHONPATH=. .venv/bin/python benchmarks/presenter_to_students.py [--presses 7] [--pause 2]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Table, add_docs_flag, finish, median

ROOT = Path(__file__).resolve().parents[1]

KEY_AT = """() => { window.fqKeyAt = null; window.addEventListener('keydown',
  e => { if (window.fqKeyAt === null) window.fqKeyAt = performance.timeOrigin + e.timeStamp; }, true); }"""
STEP_OF = """() => { for (const t of document.querySelectorAll('.fq-step-title')) {
  const m = t.textContent.match(/^\\s*(\\d+) ·/); if (m) return +m[1]; } return null; }"""
SEEN = """(n) => { const step = (%s)(); if (step !== n) return false;
  return performance.timeOrigin + performance.now(); }""" % STEP_OF
# the step shown, the script run finished, every figure drawn: a signature of the figures, so that
# the caller can wait for it to stand still
DRAWN = """(n) => { const step = (%s)(); if (step !== n) return null;
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.dataset.testScriptState !== 'notRunning' || document.querySelector('[data-testid="stStatusWidget"]')) return null;
  const plots = [...document.querySelectorAll('.js-plotly-plot')];
  if (!plots.length || plots.some(g => !g.querySelector('svg.main-svg'))) return null;
  return plots.map(g => g.getBoundingClientRect().height.toFixed(0) + ':' + (g._fullData || []).length).join('|'); }""" % STEP_OF


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def redrawn(page, n: int, quiet: float = 0.3, timeout: float = 120.0) -> float:
    """Epoch ms at which the student's page first showed step ``n`` drawn in the state it then kept
    for ``quiet`` s (the figures' signature unchanged)."""
    deadline, last, since = time.monotonic() + timeout, None, None
    while time.monotonic() < deadline:
        got = page.evaluate(f"(n) => [({DRAWN})(n), performance.timeOrigin + performance.now()]", n)
        sig, at = got
        if sig is None or sig != last:
            last, since = sig, at if sig is not None else None
        elif since is not None and at - since >= quiet * 1000:
            return since
        time.sleep(0.02)
    raise SystemExit(f"presenter_to_students: the student's page did not show step {n} drawn within {timeout:.0f} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="presenter_to_students", description=__doc__.split("\n\n")[0])
    p.add_argument("--presses", type=int, default=7, help="PageDown presses, one step each (default 7: steps 1 to 8)")
    p.add_argument("--pause", type=float, default=2.0, help="s between presses once both pages settled (default 2)")
    add_docs_flag(p)
    args = p.parse_args(argv)
    from app.lesson.steps import STEPS

    if not 1 <= args.presses <= len(STEPS) - 1 or not 0 <= args.pause <= 60:
        p.exit(2, f"presenter_to_students: --presses 1-{len(STEPS) - 1}, --pause 0-60\n")
    from tests.e2e.browser_helpers import CHROMIUM_ARGS, chromium_path, new_context, wait_idle

    exe = chromium_path()
    if exe is None:
        p.exit(2, "presenter_to_students: needs Debian's chromium (`apt-get install chromium`) or CHROMIUM_PATH\n")
    from playwright.sync_api import sync_playwright

    from scripts.serving import Dashboard

    print(f"before: {load()}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="presenter-to-students-"))
    app = Dashboard(tmp / "runs", ROOT / "assets" / "recorded", warm=False, log=tmp / "server.log",
                    env={"FEDQUAD_NETGUARD_DIR": str(tmp / "netguard"),
                         "FEDQUAD_LINK_HOST": "127.0.0.1"},  # the links: this machine's address is never read
                    command=["bash", "scripts/start.sh", "--class", "--max-sessions", "5"])
    rows = []
    try:
        app.wait_healthy(150, every=0.5)
        text = app.log_text()
        secret = re.search(r"token=([A-Za-z0-9_-]+)", text).group(1)
        code = re.search(r"follow=([a-z0-9]+)", text).group(1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
            try:
                def page_at(url):
                    page = new_context(browser, viewport={"width": 1280, "height": 720}).new_page()
                    page.set_default_timeout(120_000)
                    page.goto(url)
                    page.locator(".fq-step-title").first.wait_for()
                    wait_idle(page, 120_000)
                    return page

                # the presenter's link as printed (the start page), then the Lesson from the presenter
                # bar's page menu: one session throughout (a second address would be a new session,
                # no longer the presenter's)
                presenter = new_context(browser, viewport={"width": 1280, "height": 720}).new_page()
                presenter.set_default_timeout(120_000)
                presenter.goto(f"{app.url}/?token={secret}&talk=1&presenter=1")
                presenter.locator(".st-key-fq_presenter").wait_for()
                wait_idle(presenter, 120_000)
                presenter.get_by_role("button", name="Pages").click()
                presenter.get_by_role("link", name="Lesson").click()
                presenter.locator(".fq-step-title").first.wait_for()
                wait_idle(presenter, 120_000)
                if (presenter.evaluate(STEP_OF) or 1) != 1:
                    raise SystemExit("presenter_to_students: the presenter's Lesson did not open at step 1")
                student = page_at(f"{app.url}/?follow={code}&talk=1")
                redrawn(student, 1)
                presenter.mouse.click(640, 700)  # the page has the focus, as after the lecturer's last click
                for n in range(2, args.presses + 2):
                    time.sleep(args.pause)
                    presenter.evaluate(KEY_AT)
                    presenter.keyboard.press("PageDown")
                    shown = presenter.wait_for_function(SEEN, arg=n, polling="raf", timeout=120_000).json_value()
                    title = student.wait_for_function(SEEN, arg=n, polling="raf", timeout=120_000).json_value()
                    drawn = redrawn(student, n)
                    key = presenter.evaluate("() => window.fqKeyAt")
                    row = (n, shown - key, title - key, drawn - key)
                    rows.append(row)
                    print(f"PageDown to step {n}: presenter {row[1]:6.0f} ms, student's title {row[2]:6.0f} ms, "
                          f"student's figures redrawn {row[3]:6.0f} ms", flush=True)
                    wait_idle(presenter, 120_000)
            finally:
                browser.close()
    finally:
        app.stop(20)
    print(f"after: {load()}")
    table = Table("presenter_to_students", ["PageDown -> ", "median", "min", "max", "presses"],
                  title="A key press on the presenter's Lesson (talk, presenter mode) to the students' page, Chromium "
                  "1280x720, one class server")
    for i, what in ((1, "presenter's title"), (2, "student's title"), (3, "student's figures redrawn")):
        xs = [r[i] for r in rows]
        table.row(what, f"{median(xs):.0f} ms", f"{min(xs):.0f} ms", f"{max(xs):.0f} ms", len(xs))
    finish(table, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
