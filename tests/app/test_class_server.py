"""The class server as docs/classroom.md starts it (`PORT=... bash scripts/start.sh --class`): it listens
beyond loopback, prints the presenter's and the students' links before anything else, writes a new
secret at every start, and the secret is in no HTTP response a student gets. Plain
`bash scripts/start.sh` listens on loopback only. Both run under the network guard
(tests/netguard) and look up nothing and connect nowhere beyond this machine.

The tests themselves connect only to 127.0.0.0/8: a server bound to all addresses (0.0.0.0) answers
at 127.0.0.2 and one bound to 127.0.0.1 refuses it, which proves "beyond loopback" without leaving
it; the printed links (they name the machine's network address) are opened with their host made
127.0.0.1."""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from class_links import link_host
from serving import Dashboard, DashboardError, health

ROOT = Path(__file__).resolve().parents[2]
netguard = sys.modules["fedquad_netguard"]  # tests/conftest.py
LINK_ADDRESS = "127.0.0.2"


def _start(tmp_path, *args: str, warm: bool = True):
    """``start.sh`` as a lecturer runs it, its network guard recording into tmp_path/netguard
    (``warm=False``: without the warm-up visits, for a start whose only use is its secret)."""
    # the links name 127.0.0.2 (``FEDQUAD_LINK_HOST``): this machine's own address is never read
    env = {"FEDQUAD_NETGUARD_DIR": str(tmp_path / "netguard"), "FEDQUAD_LINK_HOST": LINK_ADDRESS,
           **({} if warm else {"FEDQUAD_WARMUP": "0"})}
    app = Dashboard(tmp_path / "runs", warm=False, command=["bash", "scripts/start.sh", *args], env=env,
                    log=tmp_path / f"server-{time.monotonic_ns()}.log")
    try:
        app.wait_healthy(120, every=0.5)
    except DashboardError as e:
        pytest.fail(f"the server did not report healthy: {e}")
    assert netguard.armed(app.proc.pid, tmp_path / "netguard"), "the server runs without the network guard"
    return app


def _nothing_left_the_machine(tmp_path) -> None:
    found = netguard.findings(tmp_path / "netguard")
    assert not found, "the server looked up or connected beyond loopback:\n" + "\n".join(found)


def _local(url: str) -> str:
    parts = urlsplit(url)
    return parts._replace(netloc=f"127.0.0.1:{parts.port}").geturl()


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=3):
            return True
    except OSError:
        return False


def test_class_mode_serves_the_room_with_two_links_and_a_fresh_secret(tmp_path):
    app = _start(tmp_path, "--class")
    port = app.port
    try:
        text = app.log_text()
        presenter = re.search(r"Presenter.*?(http://\S+)", text).group(1)
        students = re.search(r"Students.*?(http://\S+)", text).group(1)
        assert text.index("Presenter") < text.index("Students")  # printed before the server's own lines
        assert "You can now view" not in text or text.index("Students") < text.index("You can now view")
        secret = re.search(r"token=([A-Za-z0-9_-]+)", presenter).group(1)
        assert len(secret) >= 22 and students.startswith(f"http://{LINK_ADDRESS}:{port}/?follow=")
        # Streamlit's own banner is off (our links come once the port answers); it looked up no
        # "External URL" (the guard below records any look-up)
        assert "External URL" not in text and "You can now view" not in text, text[-2000:]
        assert _reachable("127.0.0.2", port) and _reachable("127.0.0.1", port)  # listens beyond loopback
        for url in (_local(students), f"http://127.0.0.1:{port}/", f"http://127.0.0.1:{port}/_stcore/health",
                    f"http://127.0.0.2:{port}/?token=wrong"):
            with urllib.request.urlopen(url, timeout=10) as r:
                assert secret not in r.read().decode("utf-8", "replace")
        # a websocket from a page of another site: refused, and Streamlit's origin check asks the
        # network nothing (it used to look up this machine's public address for it)
        from websockets.exceptions import InvalidHandshake
        from websockets.sync.client import connect

        with pytest.raises(InvalidHandshake):
            connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                    origin="http://elsewhere.example", open_timeout=10).close()
        time.sleep(0.5)
        assert "Rejecting WebSocket connection" in app.log_text()
        secret_file = tmp_path / "runs" / ".class" / "presenter.secret"
        assert secret_file.read_text().strip() == secret and (secret_file.stat().st_mode & 0o077) == 0
    finally:
        app.stop(20)
    _nothing_left_the_machine(tmp_path)
    app = _start(tmp_path, "--class", warm=False)  # a new start: a new secret, the old link is dead
    try:
        again = re.search(r"token=([A-Za-z0-9_-]+)", app.log_text()).group(1)
        assert again != secret
    finally:
        app.stop(20)
    _nothing_left_the_machine(tmp_path)


def test_plain_start_listens_on_loopback_only_and_is_healthy_once_warm(tmp_path):
    """scripts/serve.py visits the opening page once, plain and in talk mode, before any browser
    comes: meanwhile the health check answers 503 "warming up", and 200 only once both are done."""
    env = {"FEDQUAD_NETGUARD_DIR": str(tmp_path / "netguard")}
    app = Dashboard(tmp_path / "runs", warm=False, command=["bash", "scripts/start.sh"], env=env)
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
        assert _reachable("127.0.0.1", app.port) and not _reachable("127.0.0.2", app.port)  # loopback's 127.0.0.1 only
        assert "token=" not in log and "Traceback" not in log
        assert netguard.armed(app.proc.pid, tmp_path / "netguard")
    finally:
        app.stop(20)
    _nothing_left_the_machine(tmp_path)


def test_start_refuses_unknown_options_and_host_without_class():
    for args, words in ((["--classroom"], "unknown option"), (["--host", "127.0.0.1"], "add --class")):
        proc = subprocess.run(["bash", "scripts/start.sh", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
        assert proc.returncode == 2 and words in proc.stderr
    # the dashboard's store: not the root, a kernel folder or empty (issue 47), before any work
    for runs, words in (("/", "file system's root"), ("/proc/self", "kernel folder"), ("/dev/../sys", "kernel folder"),
                        ("", "set but empty")):
        proc = subprocess.run(["bash", "scripts/start.sh"], cwd=ROOT, capture_output=True, text=True, timeout=30,
                              env={**os.environ, "FEDQUAD_RUNS_DIR": runs})
        assert proc.returncode == 2 and words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, runs


def test_the_links_address_an_override_the_served_host_then_hostname(monkeypatch, tmp_path):
    """``FEDQUAD_LINK_HOST`` first (checked: one line on a value that is no host), then the one
    address served on, then ``hostname -I``'s first non-loopback address (a stand-in ``hostname``
    here: the machine's own is not read), then 127.0.0.1."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "hostname").write_text("#!/bin/sh\necho 127.0.1.1 10.1.2.3 fe80::1\n")
    (fake / "hostname").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    monkeypatch.delenv("FEDQUAD_LINK_HOST", raising=False)
    assert link_host("") == link_host("0.0.0.0") == "10.1.2.3"
    assert link_host("192.0.2.7") == "192.0.2.7"
    monkeypatch.setenv("FEDQUAD_LINK_HOST", "lab-pc.local")
    assert link_host("") == link_host("192.0.2.7") == "lab-pc.local"
    monkeypatch.setenv("FEDQUAD_LINK_HOST", "x/../y z")
    with pytest.raises(SystemExit, match="FEDQUAD_LINK_HOST='x/../y z' is not an address or host name"):
        link_host("")
    monkeypatch.delenv("FEDQUAD_LINK_HOST")
    (fake / "hostname").write_text("#!/bin/sh\necho 127.0.1.1\n")
    assert link_host("") == "127.0.0.1"
