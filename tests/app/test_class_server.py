"""The class server as docs/classroom.md starts it (`PORT=... bash scripts/start.sh --class`): it listens
on a non-loopback address, prints the presenter's and the students' links before anything else,
writes a new secret at every start, and the secret is in no HTTP response a student gets. Plain
`bash scripts/start.sh` listens on loopback only. Traffic goes to 127.0.0.1 and this machine's own
address only."""
from __future__ import annotations

import re
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from serving import Dashboard, DashboardError, health

ROOT = Path(__file__).resolve().parents[2]
LAN = next((a for a in subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
            if "." in a and not a.startswith("127.")), None)


def _start(tmp_path, *args: str):
    app = Dashboard(tmp_path / "runs", warm=False, command=["bash", "scripts/start.sh", *args])
    try:
        app.wait_healthy(120, every=0.5)
    except DashboardError as e:
        pytest.fail(f"the server did not report healthy: {e}")
    return app, app.port, app.log


def _stop(app) -> None:
    app.stop(20)


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=3):
            return True
    except OSError:
        return False


@pytest.mark.skipif(LAN is None, reason="this machine has no non-loopback IPv4 address")
def test_class_mode_serves_the_room_with_two_links_and_a_fresh_secret(tmp_path):
    proc, port, log = _start(tmp_path, "--class")
    try:
        text = log.read_text()
        presenter = re.search(r"Presenter.*?(http://\S+)", text).group(1)
        students = re.search(r"Students.*?(http://\S+)", text).group(1)
        assert text.index("Presenter") < text.index("Students")  # printed before the server's own lines
        assert "You can now view" not in text or text.index("Students") < text.index("You can now view")
        secret = re.search(r"token=([A-Za-z0-9_-]+)", presenter).group(1)
        assert len(secret) >= 22 and students.startswith(f"http://{LAN}:{port}/?follow=")
        assert _reachable(LAN, port) and _reachable("127.0.0.1", port)  # listens beyond loopback
        for url in (students, f"http://{LAN}:{port}/", f"http://{LAN}:{port}/_stcore/health",
                    f"http://{LAN}:{port}/?token=wrong"):
            with urllib.request.urlopen(url, timeout=10) as r:
                assert secret not in r.read().decode("utf-8", "replace")
        secret_file = tmp_path / "runs" / ".class" / "presenter.secret"
        assert secret_file.read_text().strip() == secret and (secret_file.stat().st_mode & 0o077) == 0
    finally:
        _stop(proc)
    proc, port, log = _start(tmp_path, "--class")  # a new start: a new secret, the old link is dead
    try:
        again = re.search(r"token=([A-Za-z0-9_-]+)", log.read_text()).group(1)
        assert again != secret
    finally:
        _stop(proc)


@pytest.mark.skipif(LAN is None, reason="this machine has no non-loopback IPv4 address")
def test_plain_start_listens_on_loopback_only_and_is_healthy_once_warm(tmp_path):
    """scripts/serve.py visits the opening page once, plain and in talk mode, before any browser
    comes: meanwhile the health check answers 503 "warming up", and 200 only once both are done."""
    app = Dashboard(tmp_path / "runs", warm=False, command=["bash", "scripts/start.sh"])
    try:
        seen, deadline = [], time.monotonic() + 180
        while time.monotonic() < deadline:
            code, text = health(app.url, timeout=5)
            if not seen or seen[-1] != (code, text):
                seen.append((code, text))
            if code == 200:
                break
            assert app.proc.poll() is None, app.log_text()[-2000:]
            time.sleep(0.05)
        log = app.log_text()  # read the moment health said 200
        assert seen[-1][0] == 200, seen
        assert (503, "warming up") in seen, seen
        assert "warm-up: /? ready" in log and "warm-up: /?talk=1 ready" in log, log[-2000:]
        assert _reachable("127.0.0.1", app.port) and not _reachable(LAN, app.port)
        assert "token=" not in log and "Traceback" not in log
    finally:
        _stop(app)


def test_start_refuses_unknown_options_and_host_without_class():
    for args, words in ((["--classroom"], "unknown option"), (["--host", "127.0.0.1"], "add --class")):
        proc = subprocess.run(["bash", "scripts/start.sh", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
        assert proc.returncode == 2 and words in proc.stderr
