"""scripts/serve.py prints the dashboard's links only once its port answers (a browser opened on
links printed earlier got "connection refused"): unit-checked on ``announce`` (the class banner
left by scripts/class_links.py --defer is printed then, and removed: it names the secret link),
and on a real start, where the port is tried the moment the line appears. Streamlit's own
"You can now view" lines, printed before the port is bound, are off. Traffic stays on 127.0.0.1."""
from __future__ import annotations

import io
import socket
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import serve  # noqa: E402
from serving import Dashboard, free_port  # noqa: E402


class _Out(io.StringIO):
    """Notes how many times the server had been asked when the text was written."""

    def __init__(self, asked: list):
        super().__init__()
        self.asked, self.at = asked, None

    def write(self, s):
        if self.at is None and s.strip():
            self.at = len(self.asked)
        return super().write(s)


def test_the_links_wait_for_the_port_and_the_class_banner_is_printed_once(tmp_path, monkeypatch):
    asked = []

    def up(url):
        asked.append(url)
        return len(asked) >= 3

    monkeypatch.setattr(serve, "_links_done", serve.threading.Event())  # (printed once per process)
    banner = tmp_path / "links.txt"
    banner.write_text("FedQuad Lab - class server\n  Presenter ...: http://10.0.0.1:8501/?token=x\n")
    monkeypatch.setenv(serve.LINKS_ENV, str(banner))
    out = _Out(asked)
    assert serve.announce("http://127.0.0.1:1", up=up, out=out)
    assert out.at == 3, f"printed after {out.at} answers of the port, not after it first answered"
    assert "Presenter" in out.getvalue() and "token=x" in out.getvalue()
    assert not banner.exists()  # the secret link is on the terminal only

    monkeypatch.delenv(serve.LINKS_ENV)
    monkeypatch.setattr(serve, "_links_done", serve.threading.Event())
    asked.clear()
    out = _Out(asked)
    assert serve.announce("http://127.0.0.1:1", up=up, out=out)
    assert out.at == 3 and "FedQuad Lab is up: http://127.0.0.1:1" in out.getvalue()


def test_a_real_start_prints_its_link_when_the_port_answers_and_the_first_page_is_warm(tmp_path):
    """With the warm-up (as start.sh runs it): the link comes once the port answers and the opening
    page has been built once, so the health check a browser's page waits for answers at once."""
    from serving import health

    (tmp_path / "recorded").mkdir()
    port = free_port()
    app = Dashboard(tmp_path / "runs", tmp_path / "recorded", port=port, warm=False,
                    command=[sys.executable, "scripts/serve.py", "app/main.py", "--server.address", "127.0.0.1",
                             "--server.port", str(port), "--server.fileWatcherType", "none", "--server.headless", "true"])
    try:
        deadline = time.monotonic() + 120
        while "FedQuad Lab is up" not in app.log_text():
            assert app.proc.poll() is None, app.log_text()
            assert time.monotonic() < deadline, f"no link printed in 120 s: {app.log_text()}"
            time.sleep(0.02)
        printed = time.monotonic()
        with socket.create_connection(("127.0.0.1", app.port), timeout=2):  # refused before: the bug
            pass
        while health(app.url)[0] != 200:
            assert time.monotonic() - printed < 3, f"not healthy 3 s after the link: {health(app.url)}"
            time.sleep(0.05)
        text = app.log_text()
        assert f"FedQuad Lab is up: http://127.0.0.1:{app.port}" in text and "You can now view" not in text
        assert text.index("warm-up: /?talk=1 ready") < text.index("FedQuad Lab is up")
    finally:
        app.stop()
