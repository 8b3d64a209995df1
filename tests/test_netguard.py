"""The test suite's network guard (tests/netguard/sitecustomize.py, armed by tests/conftest.py): a
Python process the tests start refuses a look-up of an outside name and a connection or datagram
outside loopback, records it with the process and the address, and the test run fails on it; Unix
sockets, 127.0.0.0/8, localhost and multiprocessing's children keep working.

The refusals here are deliberate: each process records into this test's own folder, never the
run's. A refused look-up is never made: the guard is an audit hook, which Python calls before the
look-up or the send, and its exception ends the call there."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
netguard = sys.modules["fedquad_netguard"]  # tests/conftest.py

LOOK_UP = """
import os, socket, sys
print(os.getpid(), "fedquad_netguard" in sys.modules)
try:
    socket.getaddrinfo("example.com", 80)
except PermissionError as e:
    print(type(e).__name__, e)
else:
    print("looked up")
"""

LOCAL_ONLY = """
import multiprocessing, socket

def outside():
    try:
        socket.getaddrinfo("example.org", 443)
        return "looked up"
    except PermissionError as e:
        return type(e).__name__

def refused(f):
    try:
        f()
        return "sent"
    except PermissionError:
        return "refused"

if __name__ == "__main__":
    listener = socket.create_server(("127.0.0.1", 0))
    with socket.create_connection(("localhost", listener.getsockname()[1]), timeout=5):  # a name of loopback
        pass
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.sendto(b"x", ("127.0.0.2", 9))  # anywhere in 127.0.0.0/8
    a, b = socket.socketpair()  # a Unix socket
    a.sendall(b"ok")
    print("local", b.recv(2).decode())
    print("tcp", refused(lambda: socket.socket().connect(("192.0.2.1", 80))))
    print("udp", refused(lambda: udp.sendto(b"x", ("192.0.2.1", 9))))
    print("mapped", refused(lambda: socket.socket(socket.AF_INET6).connect(("::ffff:192.0.2.1", 80, 0, 0))))
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        print("child", pool.apply(outside))
"""


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """``code`` as a script (a spawned child imports its ``__main__``) recording into tmp_path/guard."""
    (tmp_path / "probe.py").write_text(code)
    env = {**os.environ, "FEDQUAD_NETGUARD_DIR": str(tmp_path / "guard")}  # (PYTHONPATH: the guard, tests/conftest.py)
    return subprocess.run([sys.executable, str(tmp_path / "probe.py")], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=120)


def test_an_outside_look_up_is_refused_and_reported_naming_the_process_and_the_name(tmp_path):
    out = _run(LOOK_UP, tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    first, second = out.stdout.splitlines()
    pid, armed = first.split()
    assert armed == "True" and second.startswith("Refused netguard: socket.getaddrinfo to 'example.com' refused")
    found = netguard.findings(tmp_path / "guard")
    assert len(found) == 1 and found[0].startswith(f"pid {pid} ({tmp_path / 'probe.py'}) socket.getaddrinfo 'example.com'"), found


def test_loopback_unix_sockets_and_multiprocessing_work_and_nothing_else_does(tmp_path):
    out = _run(LOCAL_ONLY, tmp_path)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["local", "ok", "tcp", "refused", "udp", "refused", "mapped", "refused",
                                  "child", "Refused"], out.stdout
    found = "\n".join(netguard.findings(tmp_path / "guard"))
    for address in ("('192.0.2.1', 80)", "('192.0.2.1', 9)", "('::ffff:192.0.2.1', 80, 0, 0)", "'example.org'"):
        assert address in found, found
    assert "127.0.0.2" not in found and "localhost" not in found


def test_the_test_process_itself_is_guarded(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDQUAD_NETGUARD_DIR", str(tmp_path / "guard"))  # (read at each refusal)
    with pytest.raises(PermissionError, match="netguard"):
        socket.getaddrinfo("example.net", 80)
    assert [line for line in netguard.findings(tmp_path / "guard") if "'example.net'" in line]


def test_a_run_with_a_refusal_fails_and_names_it(tmp_path):
    """A pytest run whose test looks up an outside name (and catches the error) still fails."""
    (tmp_path / "test_outside.py").write_text("import socket\n\ndef test_it():\n    try:\n"
                                              "        socket.getaddrinfo('example.com', 80)\n"
                                              "    except OSError:\n        pass\n")
    env = {**os.environ, "FEDQUAD_NETGUARD_DIR": str(tmp_path / "guard"),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), os.environ["PYTHONPATH"]])}
    env.pop("PYTEST_XDIST_WORKER", None)
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest",
                          "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path / "test_outside.py")],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert out.returncode == 1, out.stdout[-3000:]
    assert "1 passed" in out.stdout and "network guard" in out.stdout, out.stdout[-3000:]
    assert "socket.getaddrinfo 'example.com' during test_outside.py::test_it" in out.stdout, out.stdout[-3000:]
