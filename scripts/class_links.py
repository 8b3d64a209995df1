"""Prepare a class server (``bash scripts/start.sh --class``): a fresh presenter secret (192 bits,
``secrets.token_urlsafe``) in a file only this user can read (``<runs>/.class/presenter.secret``,
mode 0600, replaced at every start: an old link stops working), the class's follow code, and the
two links, with the students' QR code.

Prints the links and QR code on stderr (the terminal), or with ``--defer`` writes them to
``links.txt`` beside the secret (mode 0600) for ``scripts/serve.py`` to print once the port answers
(a browser opened on links printed before would be refused); on stdout four shell-quoted words for
start.sh: the secret file, the follow code, the address the links name and that links file ("-"
without ``--defer``). Never logs the secret anywhere else."""
from __future__ import annotations

import argparse
import io
import os
import re
import secrets
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.roots import runs_dir  # noqa: E402  (pure: no streamlit)
from app.service.follow_store import new_code  # noqa: E402  (the app's follow codes; no streamlit)
from fedquad_core.runs.store import atomic_write_text  # noqa: E402


def lan_address() -> str | None:
    """This machine's first non-loopback IPv4 address (``hostname -I``: no packet is sent)."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    return next((a for a in out if "." in a and not a.startswith("127.")), None)


LINK_HOST = "FEDQUAD_LINK_HOST"  # the address (or name) the links give, where hostname -I's first is not the room's
_HOST_CHARS = re.compile(r"[A-Za-z0-9.:\-\[\]]{1,253}")


def link_host(serve_host: str) -> str:
    """The address the links name: ``$FEDQUAD_LINK_HOST`` when set, else the one address served
    on (``--host``), else this machine's first network address (``hostname -I``), else 127.0.0.1.
    ``SystemExit`` with one line on a value that cannot be a host."""
    given = os.environ.get(LINK_HOST, "").strip()
    if given:
        if not _HOST_CHARS.fullmatch(given):
            raise SystemExit(f"class_links: {LINK_HOST}={given!r} is not an address or host name")
        return given
    if serve_host not in ("", "0.0.0.0", "::"):
        return serve_host
    return lan_address() or "127.0.0.1"


def write_secret(folder: Path) -> tuple[Path, str]:
    """A new secret in ``folder/presenter.secret`` (the folder 0700; the file written atomically by
    the run store's writer, whose temp files are 0600), and the secret."""
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    path, secret = folder / "presenter.secret", secrets.token_urlsafe(24)
    atomic_write_text(path, secret)
    return path, secret


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="", help="the address to serve on (default: all, links name the LAN address)")
    p.add_argument("--port", type=int, default=8501)
    p.add_argument("--defer", action="store_true", help="write the links and QR code to a file, not on stderr")
    args = p.parse_args(argv)
    shown = link_host(args.host)
    secret_file, secret = write_secret(runs_dir() / ".class")
    code = new_code()
    base = f"http://{shown}:{args.port}/"
    presenter = f"{base}?token={secret}&talk=1"
    students = f"{base}?follow={code}&talk=1"
    err = io.StringIO() if args.defer else sys.stderr
    print("FedQuad Lab - class server", file=err)
    print(f"  Presenter (keep it to yourself; new at every start): {presenter}", file=err)
    print(f"  Students (project it, or the QR code below):          {students}", file=err)
    if shown.startswith("127."):
        print("  (no network address found: only this machine can open these links; pass --host ADDR)", file=err)
    try:
        import segno

        segno.make(students, error="m").terminal(out=err, compact=True)
    except ImportError:
        pass
    links = "-"
    if args.defer:
        links = str((secret_file.parent / "links.txt").resolve())
        atomic_write_text(Path(links), err.getvalue())  # (its temp file is 0600, renamed in place)
    print(" ".join(shlex.quote(w) for w in (str(secret_file.resolve()), code, shown, links)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
