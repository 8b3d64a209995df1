"""Start the dashboard for a test, a benchmark or the screenshots, and wait until it is healthy.

The one place that starts Streamlit outside ``scripts/start.sh``: the browser tests
(tests/e2e/conftest.py), the class-server tests (which start ``scripts/start.sh --class`` itself
through ``command=``), ``scripts/screenshots.py --start`` and the browser benchmarks
(``benchmarks/browser_latency.py`` and those built on it) all use it.

    from serving import Dashboard          # with scripts/ on sys.path
    with Dashboard(runs_dir, recorded_dir) as app:
        app.wait_healthy()
        ...  # app.url, app.port, app.log, app.proc

The server runs in its own process group (killed as a whole by ``stop``), with the projection
worker off unless ``worker=True`` and the warm server for runs (``fedquad_core.prefork``) on
unless ``warm=False``; its Python dumps every thread's stack on SIGUSR1 (``dump``), so a test that
hangs can say where the server was. Errors are ``DashboardError`` (the log's tail in the message):
a test turns it into a failure, a script into its exit message."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Streamlit's own CLI in a Python that dumps every thread's stack on SIGUSR1, with no look-up of this
# machine's addresses on the network (scripts/serve.py ``no_outside_lookups``, as start.sh's server).
SERVE = ("import faulthandler, signal, sys; faulthandler.register(signal.SIGUSR1, all_threads=True); "
         f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); "
         "from serve import no_outside_lookups; no_outside_lookups(); "
         "from streamlit.web.cli import main; sys.argv[0] = 'streamlit'; main()")


class DashboardError(RuntimeError):
    """The dashboard exited or did not answer its health check in time."""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` right now (the OS's choice)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def health(url: str, timeout: float = 2.0) -> tuple[int, str]:
    """The Streamlit server at ``url``'s answer to ``/_stcore/health``: (status, body); (0, "")
    when nothing answers."""
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/_stcore/health", timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:  # (an OSError too: read its answer first)
        return e.code, e.read().decode("utf-8", "replace")
    except OSError:
        return 0, ""


def healthy(url: str, timeout: float = 2.0) -> bool:
    """Whether the Streamlit server at ``url`` answers ``/_stcore/health`` with 200."""
    return health(url, timeout)[0] == 200


def wait_healthy(url: str, proc: subprocess.Popen | None = None, log: Path | None = None, timeout: float = 120.0,
                 every: float = 0.3) -> None:
    """Poll ``url``'s health until it answers; DashboardError when ``proc`` exits first or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise DashboardError(f"streamlit exited with code {proc.returncode}:\n{_tail(log)}")
        if healthy(url):
            return
        time.sleep(every)
    raise DashboardError(f"no answer at {url}/_stcore/health within {timeout:.0f} s:\n{_tail(log)}")


def stop_group(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """SIGTERM ``proc``'s process group, SIGKILL it if still there after ``timeout`` s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=timeout)
            return
        except subprocess.TimeoutExpired:
            continue


def stop_runs(runs_dir: Path) -> None:
    """The launcher starts each training run in its own session: stop any still active in
    ``runs_dir`` (SIGTERM to its process group, by the pid in its status)."""
    from fedquad_core.runs.store import ACTIVE, RunStore  # the engine only where runs were started

    if not Path(runs_dir).exists():
        return
    for info in RunStore(runs_dir).list_runs():
        pid = info.status.get("pid")
        if info.state in ACTIVE and pid:
            try:
                os.killpg(int(pid), signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass


def _tail(log: Path | None, chars: int = 3000) -> str:
    if log is None or not Path(log).exists():
        return "(no log)"
    return Path(log).read_text(errors="replace")[-chars:]


class Dashboard:
    """The dashboard (``app/main.py`` of ``app_root``) on ``port`` (default: a free one) against the run
    store ``runs`` and the recorded root ``recorded`` (None: the app's default, assets/recorded),
    started at once; its output goes to ``log`` (default ``runs``'s parent / streamlit-<port>.log).

    ``command`` replaces the ``streamlit run`` command line (e.g. ``["bash", "scripts/start.sh",
    "--class"]``, which reads ``PORT`` from the environment); ``env`` adds to the environment."""

    def __init__(self, runs: Path, recorded: Path | None = None, *, app_root: Path = ROOT, port: int | None = None,
                 host: str = "127.0.0.1", log: Path | None = None, worker: bool = False, warm: bool = True,
                 env: dict | None = None, command: list[str] | None = None, python: str | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.runs = Path(runs)
        self.log = Path(log) if log else self.runs.parent / f"streamlit-{self.port}.log"
        full = {**os.environ, "FEDQUAD_RUNS_DIR": str(self.runs), "OMP_NUM_THREADS": "1", "OMP_WAIT_POLICY": "PASSIVE",
                "PYTHONUNBUFFERED": "1", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "PORT": str(self.port)}
        full["PYTHONPATH"] = os.pathsep.join([str(app_root)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))
        if recorded is not None:
            full["FEDQUAD_RECORDED_DIR"] = str(recorded)
        if worker:
            full.pop("FEDQUAD_PROJECTION_WORKER", None)
        else:
            full["FEDQUAD_PROJECTION_WORKER"] = "0"
        if not warm:
            full["FEDQUAD_WARM_SERVER"] = "0"
        full.update(env or {})
        self.stacks = command is None  # the default command's server prints its stacks on SIGUSR1
        if command is None:
            command = [python or sys.executable, "-c", SERVE, "run", "app/main.py", "--server.address", host,
                       "--server.port", str(self.port), "--server.fileWatcherType", "none", "--server.headless", "true"]
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.started = time.monotonic()
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(command, cwd=app_root, env=full, stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)

    def wait_healthy(self, timeout: float = 120.0, every: float = 0.3) -> "Dashboard":
        try:
            wait_healthy(self.url, self.proc, self.log, timeout, every)
        except DashboardError:
            self.stop()
            raise
        return self

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def dump(self) -> None:
        """Print every thread's stack of the server (SIGUSR1; only with the default command), then its log's tail."""
        if self.stacks and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, signal.SIGUSR1)
            except ProcessLookupError:
                pass
            time.sleep(1.5)
        print(f"---- the server's log (pid {self.proc.pid}, exit {self.proc.poll()}), last 12000 characters ----")
        print(self.log_text()[-12000:])

    def stop(self, timeout: float = 10.0) -> None:
        stop_group(self.proc, timeout)

    def __enter__(self) -> "Dashboard":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
