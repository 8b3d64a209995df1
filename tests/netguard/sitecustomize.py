"""The test suite's network guard: in every Python process the tests start, refuse and record any
name look-up of a host that is not this machine's loopback, and any connection or datagram to an
address outside 127.0.0.0/8 and ::1.

tests/conftest.py puts this folder first on ``PYTHONPATH`` and names a folder in
``FEDQUAD_NETGUARD_DIR``: Python imports ``sitecustomize`` at start-up, so every child process
(servers started by scripts/start.sh and scripts/serve.py, training and study workers, the
projection worker) installs the guard before its own code runs; the test process installs it
through ``install()``. Without ``FEDQUAD_NETGUARD_DIR`` this file does nothing.

The guard is an audit hook (``sys.addaudithook``) on ``socket.getaddrinfo``, ``socket.gethostbyname``
(and its relatives), ``socket.connect``, ``socket.sendto`` and ``socket.sendmsg``: Python calls it
before the look-up or the send, so a refused one never leaves the process; the caller gets a
``PermissionError`` (an ``OSError``, as for a network that is down). Each refusal is one JSON line in
``$FEDQUAD_NETGUARD_DIR/<pid>.jsonl`` (the process, its command line, the test running then, the
address and where in the code); the test run fails at its end if any was written
(tests/conftest.py, ``findings``). Allowed: Unix sockets (and any other non-IP family), 127.0.0.0/8,
::1, ``localhost``, and the unspecified addresses 0.0.0.0 and :: (a server binding all addresses
looks them up)."""
from __future__ import annotations

import os
import sys

ENV = "FEDQUAD_NETGUARD_DIR"
_LOCAL_NAMES = {"", "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
_NAMED = {"socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex", "socket.gethostbyaddr"}
_SENT = {"socket.connect", "socket.sendto", "socket.sendmsg"}
_installed = False


class Refused(PermissionError):
    """A look-up or a connection outside loopback, refused by the test suite's network guard."""


def is_local(host) -> bool:
    """Whether ``host`` (a name or an address, str or bytes; None: the local host) is loopback."""
    if host is None:
        return True
    if isinstance(host, (bytes, bytearray)):
        host = bytes(host).decode("ascii", "replace")
    host = str(host).strip().strip("[]").split("%", 1)[0].rstrip(".").lower()
    if host in _LOCAL_NAMES or host.endswith(".localhost"):
        return True
    import ipaddress

    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


def _record(folder: str, event: str, address) -> None:
    import json
    import traceback

    frames = traceback.extract_stack()[:-2]  # the caller's frames, not the guard's
    while len(frames) > 1 and frames[-1].filename.endswith(os.sep + "socket.py"):
        frames.pop()  # (and not the socket module's: the line that asked)
    frames = frames[-6:]
    entry = {"pid": os.getpid(), "argv": sys.argv, "test": os.environ.get("PYTEST_CURRENT_TEST", ""),
             "event": event, "address": repr(address),
             "where": [f"{f.filename}:{f.lineno} {f.name}" for f in frames]}
    try:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{os.getpid()}.jsonl"), "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")
    except OSError:
        pass  # the refusal still stands


def _hook(event: str, args) -> None:
    if not event.startswith("socket."):  # (every audit event comes here: the common case first)
        return
    if event in _NAMED:
        target = args[0]
        if is_local(target):
            return
    elif event in _SENT:
        sock, target = args[0], args[1]
        import socket

        if target is None or getattr(sock, "family", None) not in (socket.AF_INET, socket.AF_INET6):
            return  # a Unix socket (or another non-IP family), or a send on a connected socket
        if isinstance(target, tuple) and target and is_local(target[0]):
            return
    else:
        return
    folder = os.environ.get(ENV)
    if folder:
        _record(folder, event, target)
    raise Refused(f"netguard: {event} to {target!r} refused: the tests reach only 127.0.0.0/8 (tests/netguard)")


def install() -> bool:
    """Install the guard in this process (once); False when ``FEDQUAD_NETGUARD_DIR`` is not set."""
    global _installed
    if not os.environ.get(ENV):
        return False
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    return True


def armed(pid: int, folder) -> bool:
    """Whether process ``pid`` started with this guard on its ``PYTHONPATH`` and recording into
    ``folder`` (its environment at start, ``/proc/<pid>/environ``: Linux)."""
    try:
        raw = open(f"/proc/{pid}/environ", "rb").read().decode("utf-8", "replace")
    except OSError:
        return False
    env = dict(item.split("=", 1) for item in raw.split("\0") if "=" in item)
    here = os.path.dirname(os.path.abspath(__file__))
    return here in env.get("PYTHONPATH", "").split(os.pathsep) and env.get(ENV) == str(folder)


def findings(folder) -> list[str]:
    """One line per refusal recorded in ``folder``: the process, the test and the address."""
    import json
    from pathlib import Path

    lines = []
    for path in sorted(Path(folder).glob("*.jsonl")) if folder and Path(folder).is_dir() else []:
        for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                e = json.loads(raw)
            except ValueError:
                lines.append(f"{path.name}: {raw[:200]}")
                continue
            lines.append(f"pid {e['pid']} ({' '.join(map(str, e['argv']))[:160]}) {e['event']} {e['address']}"
                         + (f" during {e['test']}" if e["test"] else "")
                         + (f" at {e['where'][-1]}" if e["where"] else ""))
    return lines


sys.modules.setdefault("fedquad_netguard", sys.modules[__name__])
install()
