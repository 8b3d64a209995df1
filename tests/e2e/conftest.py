"""Fixtures for the browser end-to-end test: the dashboard started exactly like scripts/start.sh
does (own process group, killed in the finalizer together with any training run it launched),
and a headless Debian Chromium driven by Playwright's sync API.

When a browser test fails, its report carries what is needed to tell a hang from an error: the
server's Python stacks of every thread (faulthandler, on SIGUSR1) with the server log's tail, and
the page's text (an exception box, a spinner, or the page as it was)."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"streamlit exited with code {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200 and r.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.3)
    pytest.fail(f"streamlit did not answer /_stcore/health within {timeout:.0f} s:\n{log.read_text()[-3000:]}")


def _kill_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _stop_runs(runs_dir: Path) -> None:
    """Training runs are started in their own session by the launcher: stop any still active."""
    from fedquad_core.runs.store import ACTIVE, RunStore

    if not runs_dir.exists():
        return
    for info in RunStore(runs_dir).list_runs():
        pid = info.status.get("pid")
        if info.state in ACTIVE and pid:
            _kill_group(int(pid), signal.SIGTERM)


# The server runs Streamlit's own CLI in a Python that dumps every thread's stack on SIGUSR1.
SERVE = ("import faulthandler, signal, sys; faulthandler.register(signal.SIGUSR1, all_threads=True); "
         "from streamlit.web.cli import main; sys.argv[0] = 'streamlit'; main()")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item (``item.rep_call``), for the fixtures' teardown."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


def failed(request) -> bool:
    rep = getattr(request.node, "rep_call", None)
    return rep is not None and rep.failed


@pytest.fixture
def app_server(tmp_path, request):
    """Start the dashboard on a free port against an empty run store (and no recorded studies);
    yield (url, runs dir)."""
    (tmp_path / "recorded-empty").mkdir()
    yield from _serve(tmp_path, tmp_path / "recorded-empty", request)


@pytest.fixture
def explore_server(tmp_path, request):
    """The dashboard with a small synthetic recorded study ("toy-alpha": alpha 0.1, 1, IID x
    FedAvg/FedQuad x 2 seeds) beside an empty run store; yield (url, runs dir)."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "app"))
    from study_helpers import write_study

    recorded = tmp_path / "recorded"
    write_study(recorded, "toy-alpha", {"alpha": [0.1, 1.0, None], "method": ["fedavg", "fedquad"], "seed": [0, 1]},
                points=100, dim=16, rounds=10, title="Toy alpha study")
    yield from _serve(tmp_path, recorded, request)


@pytest.fixture
def lesson_server(tmp_path, request):
    """The dashboard with the Lesson's synthetic recorded studies ("digits-local" and "fmnist-skew":
    alpha 0.1, 1, IID x FedAvg/FedQuad x 2 seeds, tests/app/lesson_helpers.py) beside an empty run store."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "app"))
    from lesson_helpers import write_lesson_root

    yield from _serve(tmp_path, write_lesson_root(tmp_path / "recorded"), request)


@pytest.fixture
def clients_server(tmp_path, request):
    """The dashboard with a tiny recorded study made by the engine ("digits-local": local epochs
    1 and 10 x FedAvg/FedQuad, alpha 0.1, seed 0, 2 rounds, local models measured) beside an
    empty run store."""
    from fedquad_core.config import RunConfig
    from fedquad_core.runs.store import RunStore
    from fedquad_core.study import StudySpec, run_study

    recorded = tmp_path / "recorded"
    base = RunConfig(dataset="digits", num_clients=6, alpha=0.1, rounds=2, snapshot_every=1, snapshot_points=200,
                     local_clients=4, seed=0)
    run_study(StudySpec("digits-local", base, {"local_epochs": [1, 10], "method": ["fedavg", "fedquad"]},
                        title="Local computation (test)"), RunStore(recorded), jobs=2, quiet=True)
    yield from _serve(tmp_path, recorded, request)


def _serve(tmp_path, recorded, request=None):
    python = ROOT / ".venv" / "bin" / "python"
    if not (ROOT / ".venv" / "bin" / "streamlit").exists():
        pytest.fail(f"{ROOT / '.venv' / 'bin' / 'streamlit'} is missing: run `bash scripts/setup.sh`")
    runs = tmp_path / "runs"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "FEDQUAD_RUNS_DIR": str(runs), "FEDQUAD_RECORDED_DIR": str(recorded), "OMP_NUM_THREADS": "1",
           "OMP_WAIT_POLICY": "PASSIVE", "PYTHONUNBUFFERED": "1", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    log = tmp_path / "streamlit.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(python), "-c", SERVE, "run", "app/main.py", "--server.address", "127.0.0.1", "--server.port", str(port),
             "--server.fileWatcherType", "none", "--server.headless", "true"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_healthy(url, proc, log)
        yield url, runs
    finally:
        if request is not None and failed(request):
            dump_server(proc, log)
        _kill_group(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        _stop_runs(runs)


def dump_server(proc: subprocess.Popen, log: Path) -> None:
    """Print the failed test's server: every thread's stack (SIGUSR1), then the log's tail."""
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGUSR1)
        time.sleep(1.5)
    print(f"---- the server's log (pid {proc.pid}, exit {proc.poll()}), last 12000 characters ----")
    print(log.read_text(errors="replace")[-12000:])


@pytest.fixture
def page(request):
    """A 1400x900 page in headless Debian Chromium (fails, never skips, when chromium is missing)."""
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser test needs the playwright Python package: `.venv/bin/pip install playwright`")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
            pg = context.new_page()
            pg.set_default_timeout(60_000)
            yield pg
            if failed(request):
                dump_page(pg)
            context.close()
        finally:
            browser.close()


def dump_page(pg) -> None:
    """Print the failed test's page: its address and text as shown (an exception, a spinner, ...)."""
    try:
        text = pg.locator("body").inner_text(timeout=5_000)
    except Exception as e:  # noqa: BLE001 - only a diagnosis of a failure already reported
        text = f"(the page's text could not be read: {e})"
    print(f"---- the page at {pg.url} ----")
    print(text[-6000:])
