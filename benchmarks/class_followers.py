"""What following students cost the lecturer's server: N browser sessions open the students' link
of a class server (``bash scripts/start.sh --class``, the recorded studies, an empty run store) on
the Lesson and stay there, following; each re-runs a small fragment about once a second
(``app/follow.py``). The class server's process CPU is read from /proc over ``--seconds``, after
``--settle`` s for the pages to load, in two modes, each on a fresh server (baseline first):

- **config**: the repo's ``.streamlit/config.toml`` (``runner.postScriptGC = false``);
- **baseline**: ``STREAMLIT_RUNNER_POST_SCRIPT_GC=true``: Streamlit's default, a full garbage
  collection after every script run, fragment runs included.

Prints the server's share of a core per mode, per student, and the ratio (same run: compare the
ratio; absolute numbers move with the machine's load). One headless Chromium
(``/usr/bin/chromium`` or CHROMIUM_PATH) holds every session. This prints; it asserts nothing.

Usage:
    .venv/bin/python -m benchmarks.class_followers [--students 6] [--seconds 30] [--settle 25] [--write-docs]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import Table, add_docs_flag, finish, ratio

ROOT = Path(__file__).resolve().parents[1]

HZ = os.sysconf("SC_CLK_TCK")


def server_cpu(pid: int) -> float:
    """CPU seconds of the class server's process (``scripts/serve.py`` under start.sh's exec)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def one(mode: str, students: int, settle: float, seconds: float) -> float:
    """The class server's share of a core while ``students`` sessions follow (``mode``: config or baseline)."""
    from playwright.sync_api import sync_playwright

    from benchmarks.browser_latency import CHROMIUM_ARGS, chromium_path
    from scripts.serving import Dashboard

    tmp = Path(tempfile.mkdtemp(prefix="class-followers-"))
    env = {"FEDQUAD_LINK_HOST": "127.0.0.1",  # the links: this machine's address is never read
           **({"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"} if mode == "baseline" else {})}
    app = Dashboard(tmp / "runs", ROOT / "assets" / "recorded", warm=False, log=tmp / "server.log", env=env,
                    command=["bash", "scripts/start.sh", "--class", "--max-sessions", str(students + 5)])
    try:
        app.wait_healthy(150, every=0.5)
        code = re.search(r"follow=([a-z0-9]+)", app.log_text()).group(1)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
            for _ in range(students):
                page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
                page.goto(f"{app.url}/lesson?follow={code}")
            time.sleep(settle)
            c0, t0 = server_cpu(app.proc.pid), time.monotonic()
            time.sleep(seconds)
            share = (server_cpu(app.proc.pid) - c0) / (time.monotonic() - t0)
            browser.close()
    finally:
        app.stop(20)
    return share


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="class_followers", description=__doc__.split("\n\n")[0])
    p.add_argument("--students", type=int, default=6, help="following sessions (default 6)")
    p.add_argument("--seconds", type=float, default=30.0, help="how long the CPU is read (default 30)")
    p.add_argument("--settle", type=float, default=25.0, help="s for the pages to load first (default 25)")
    add_docs_flag(p)
    args = p.parse_args(argv)
    if not 1 <= args.students <= 50 or not 5 <= args.seconds <= 600 or not 0 <= args.settle <= 600:
        p.exit(2, "class_followers: --students 1-50, --seconds 5-600, --settle 0-600\n")
    from benchmarks.browser_latency import chromium_path

    chromium_path()  # (exits with one line when Debian's chromium is missing)
    shares = {}
    for mode in ("baseline", "config"):
        shares[mode] = one(mode, args.students, args.settle, args.seconds)
        print(f"{mode:8s}: the server {100 * shares[mode]:.1f} % of a core with {args.students} following "
              f"({100 * shares[mode] / args.students:.1f} % a student)", flush=True)
    table = Table("class_followers", ["Streamlit setting", "the server, % of a core", "a student", "x the repo's config"],
                  title=f"{args.students} sessions following on the Lesson, the server's CPU over {args.seconds:g} s")
    for mode, name in (("baseline", "`runner.postScriptGC = true` (Streamlit's default)"),
                       ("config", "`runner.postScriptGC = false` (`.streamlit/config.toml`)")):
        table.row(name, f"{100 * shares[mode]:.1f}", f"{100 * shares[mode] / args.students:.1f}",
                  ratio([shares[mode]], [shares["config"]]))
    finish(table, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
