"""Start the dashboard's Streamlit server and warm it, so the first browser is not the one who pays
for a cold server (``bash scripts/start.sh`` runs this; arguments are ``streamlit run``'s).

A cold server pays, on its first page, for importing the app's modules, scanning the recorded
studies, building the opening study's figures (kept in ``app/studies/shared.py`` for every
session), registering the figure switcher and freezing the startup heap. Here one headless
session does that as soon as the server answers its health check: it opens the default page over
Streamlit's own websocket (as a browser does: ``/_stcore/stream``, one ``rerun_script``), once as
the dashboard looks and once in talk mode (the class's links open in talk mode), waits for each
run to finish and closes. It is a visitor like any other (a student in class mode, reading only).

The links are printed only once the port answers and the warm-up is done (Streamlit's own "You can
now view" lines, printed as its server starts, are turned off): a browser opened on them at once
finds the server, and a warm one, where it used to get "connection refused" for the seconds before
the port was bound. In class mode
``scripts/class_links.py`` leaves its banner (the two links and the QR code) in a file
(``$FEDQUAD_LINKS_FILE``), printed and removed here then; otherwise the one local address is printed.

Until the warm-up is done the server's health check (``/_stcore/health``) answers 503 "warming
up": Streamlit's page in a browser waits for that check before it opens its session, so a browser
that comes early waits for a warm server instead of competing with the warm-up for the cores, and
"healthy" means what a user expects of it, that the first page comes quickly. The warm-up gives
up after ``WARM_LIMIT`` s (the health check then answers as Streamlit's own does); an error in it
only loses the warm-up. ``FEDQUAD_WARMUP=0`` turns it off (health as soon as the links are printed);
``benchmarks/first_page.py`` measures the difference.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serving import health  # noqa: E402  (the health check the tests and benchmarks read too)

ROOT = Path(__file__).resolve().parents[1]
WARM_QUERIES = ("", "talk=1")  # the plain address, and the presenter's and students' links (talk mode)
WARM_LIMIT = 120.0  # s: a warm-up still going then no longer holds the health check back
_warm = threading.Event()


def _option(args: list[str], name: str, default: str) -> str:
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


def local_url(args: list[str]) -> str:
    """The server's address as this machine reaches it (all addresses: loopback)."""
    host = _option(args, "--server.address", "127.0.0.1")
    host = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    return f"http://{'[' + host + ']' if ':' in host else host}:{_option(args, '--server.port', '8501')}"




def visit(url: str, query: str, timeout: float = 120.0) -> bool:
    """One page run of ``url/?query`` over Streamlit's websocket, until the script finished (after
    any rerun it asked for)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from websockets.sync.client import connect

    with connect(url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"], origin=url,
                 max_size=None, open_timeout=timeout) as ws:
        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_script_hash = ""
        ws.send(msg.SerializeToString())
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            fwd = ForwardMsg()
            fwd.ParseFromString(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            # a run that ends early for a rerun (the page syncs its settings to the URL) is followed
            # by the rerun: wait for the run that finishes (a fragment's runs do not count)
            if fwd.WhichOneof("type") == "script_finished" and fwd.script_finished in (
                    ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR):
                return True
    return False


def hold_health_until_warm() -> None:
    """Streamlit's health check answers 503 "warming up" until ``_warm`` is set (or ``WARM_LIMIT``
    s have passed): its own answer otherwise."""
    from streamlit.runtime.runtime import Runtime

    own = Runtime.is_ready_for_browser_connection.fget
    started = time.monotonic()

    async def ready(self) -> tuple[bool, str]:
        ok, message = await own(self)
        if ok and not _warm.is_set() and time.monotonic() - started < WARM_LIMIT:
            return False, "warming up"
        return ok, message

    Runtime.is_ready_for_browser_connection = property(ready)


def _up(url: str) -> bool:
    """Whether Streamlit answers at all (its health check says "warming up" while we warm it)."""
    code, body = health(url)
    return code == 200 or (code == 503 and "warming up" in body)


LINKS_ENV = "FEDQUAD_LINKS_FILE"
_printed = threading.Lock()
_links_done = threading.Event()


def wait_up(url: str, up=None, limit: float = 300.0) -> bool:
    """Wait until the server answers (``up(url)``, by default its health check answering at all)."""
    up = up or _up
    deadline = time.monotonic() + limit
    while not up(url):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def print_links(url: str, out=None) -> None:
    """Print the links, once: the class banner of ``$FEDQUAD_LINKS_FILE`` (removed once printed: it
    names the presenter's secret link), else ``url``."""
    out = out or sys.stderr
    with _printed:
        if _links_done.is_set():
            return
        _links_done.set()
        banner = os.environ.get(LINKS_ENV)
        text = None
        if banner:
            try:
                text = Path(banner).read_text(encoding="utf-8")
                Path(banner).unlink()
            except OSError as e:
                print(f"  (the class links in {banner} could not be read: {e})", file=out)
        print(text.rstrip("\n") if text else f"  FedQuad Lab is up: {url}", file=out, flush=True)


def announce(url: str, up=None, out=None) -> bool:
    """Wait until the server answers, then print the links (False: it never answered)."""
    if not wait_up(url, up):
        return False
    print_links(url, out)
    return True


def start_up(url: str, warm_up: bool = True) -> None:
    """Once the server answers: (``warm_up``) visit the opening page once per query (errors only
    lose the warm-up), then print the links, so a browser opened on them gets a warm first page
    (after ``WARM_LIMIT`` s they are printed anyway); the health check answers 200 from then on."""
    if not wait_up(url):
        _warm.set()
        return
    try:
        if not warm_up:
            return
        print("  FedQuad Lab answers; warming up its first page (the links follow)", file=sys.stderr, flush=True)
        timer = threading.Timer(WARM_LIMIT, print_links, args=(url,))
        timer.daemon = True
        timer.start()
        for query in WARM_QUERIES:
            t0 = time.monotonic()
            try:
                if visit(url, query):
                    print(f"  warm-up: /?{query} ready in {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)
            except Exception as e:  # noqa: BLE001 - a warm-up: the first browser then pays, as before
                print(f"warm-up of /?{query} skipped: {e}", file=sys.stderr)
                return
    finally:
        print_links(url)
        _warm.set()


def no_outside_lookups() -> None:
    """Streamlit never asks the network about this machine: its start-up banner (headless, on all
    addresses) and its websocket origin check (for an origin it does not list) ask an outside web
    service for the machine's public address (``net_util.get_external_ip``: an HTTP request to a
    public host) and the route to a public address for the local one (``get_internal_ip``). Both
    answer "unknown" here: the banner then names only the addresses it was given, and a
    cross-origin websocket is refused unless it comes from 127.0.0.1, localhost or
    ``browser.serverAddress`` (the address the class's links name; start.sh sets it). Same-origin
    pages, the only ones this app serves, are not affected."""
    from streamlit import net_util

    net_util.get_external_ip = lambda: None
    net_util.get_internal_ip = lambda: None


def main(argv: list[str]) -> None:
    no_outside_lookups()
    warm_up = os.environ.get("FEDQUAD_WARMUP", "1").strip().lower() not in ("0", "false", "no", "off")
    hold_health_until_warm()  # (without the warm-up: until the links are printed)
    threading.Thread(target=start_up, args=(local_url(argv), warm_up), name="fedquad-warmup", daemon=True).start()
    from streamlit.web.cli import main as streamlit_main

    if not any(a.startswith("--logger.hideWelcomeMessage") for a in argv):
        argv = [*argv, "--logger.hideWelcomeMessage", "true"]  # its lines come before the port answers
    sys.argv = ["streamlit", "run", *argv]
    streamlit_main()


if __name__ == "__main__":
    main(sys.argv[1:])
