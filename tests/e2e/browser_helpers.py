"""What the browser tests share (tests/e2e): Debian's Chromium, a browser context that reaches only
127.0.0.0/8 (``new_context``), the dashboard started through scripts/serving.py (``serve``: a fixture
body yielding (url, runs dir), stopping the server and any run it launched at the end), and what a
failed test prints (the server's stacks and log, the page)."""
from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts"))

from serving import Dashboard, DashboardError, free_port, stop_runs  # noqa: E402,F401 - free_port: for the tests

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
INSTALL_HINT = ("the browser test needs Debian's chromium: `apt-get install chromium` "
                "(scripts/setup.sh installs it), or set CHROMIUM_PATH")


def chromium_path() -> str | None:
    for cand in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium"),
                 shutil.which("chromium-browser")):
        if cand and os.access(cand, os.X_OK):
            return cand
    return None


OUTSIDE: list[str] = []  # requests a page made to another host, aborted (tests/e2e/conftest.py fails the test)


def is_local_url(url: str) -> bool:
    """Whether a page's request stays on this machine's loopback: 127.0.0.0/8, or no host at all
    (data:, blob:, about:)."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome-error"):
        return True
    return (parts.hostname or "").startswith("127.")


def _outside(route) -> None:
    OUTSIDE.append(route.request.url)
    route.abort("blockedbyclient")


def _outside_socket(ws) -> None:
    OUTSIDE.append(ws.url)
    ws.close()


def new_context(browser, **options):
    """``browser.new_context(**options)`` that aborts, and records in ``OUTSIDE``, every request and
    websocket its pages make to a host outside 127.0.0.0/8: every browser test makes its contexts
    here, so a page that asks another host (a web font, a CDN, an icon) fails its test (nothing is
    sent: the request stops in the browser)."""
    context = browser.new_context(**options)
    context.route(lambda url: not is_local_url(url), _outside)
    context.route_web_socket(lambda url: not is_local_url(url), _outside_socket)
    return context


def local(url: str) -> str:
    """A link as printed (a class server's links name ``$FEDQUAD_LINK_HOST``, else the machine's
    network address) with its host made 127.0.0.1: the tests open pages on 127.0.0.1 only."""
    parts = urlsplit(url)
    return parts._replace(netloc=f"127.0.0.1:{parts.port}" if parts.port else "127.0.0.1").geturl()


def failed(request) -> bool:
    rep = getattr(request.node, "rep_call", None)
    return rep is not None and rep.failed


def serve(tmp_path, recorded, request=None, timeout: float = 90.0, warm: bool = True):
    """The dashboard on a free port against ``tmp_path``/runs and the recorded root ``recorded``;
    yields (url, runs dir). A failed test (``request``) gets the server's stacks and log printed.
    ``warm=False``: no warm server for launched runs (a test that launches nothing need not pay
    its 4-5 s of CPU importing the engine)."""
    runs = tmp_path / "runs"
    app = Dashboard(runs, recorded, log=tmp_path / "streamlit.log", warm=warm)
    try:
        try:
            app.wait_healthy(timeout)
        except DashboardError as e:
            pytest.fail(str(e))
        yield app.url, runs
    finally:
        if request is not None and failed(request):
            app.dump()
        app.stop()
        stop_runs(runs)


def dump_page(pg) -> None:
    """Print the failed test's page: its address and text as shown (an exception, a spinner, ...)."""
    try:
        text = pg.locator("body").inner_text(timeout=5_000)
    except Exception as e:  # noqa: BLE001 - only a diagnosis of a failure already reported
        text = f"(the page's text could not be read: {e})"
    print(f"---- the page at {pg.url} ----")
    print(text[-6000:])


def dump_pages(browser) -> None:
    """Print every open page of ``browser`` (``dump_page``): for a test body that is failing now.
    (Inside the test body ``failed(request)`` is always False: its report does not exist yet.)"""
    for context in browser.contexts:
        for pg in context.pages:
            dump_page(pg)


def wait_idle(page, timeout_ms: int = 60_000) -> None:
    """Wait until Streamlit finished the current script run: the app says it is not running and
    shows no 'Running...' status widget (which appears only after a delay, so it alone misses a
    run that has just begun)."""
    page.wait_for_function("() => document.querySelector('[data-testid=\"stApp\"]')?.dataset.testScriptState"
                           " === 'notRunning' && !document.querySelector('[data-testid=\"stStatusWidget\"]')",
                           timeout=timeout_ms)


def poll(fn, timeout: float, every: float = 1.0, what="", state=None):
    """``fn()`` until it is truthy; else fail after ``timeout`` s naming ``what`` (and, when given,
    ``state()`` as it was then)."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}"
                                 + (f"; then: {state()}" if state else ""))
        time.sleep(every)
