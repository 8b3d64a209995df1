"""A dashboard on a store where someone planted a pipe at the warm server's log and a link at the
UMAP worker's lock (issue 47): every page run used to start the warm server and hang on the pipe.
Now the page is drawn, neither helper is started, the file the link points to is unchanged, and
the dashboard's log names each planted file in one line, once."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app_helpers import MAIN
from planted import SECRET, contents, no_hang, plant, refusal, victim_folder


def test_pages_are_drawn_and_no_helper_starts_on_planted_files(monkeypatch, tmp_path_factory, capfd):
    base = tmp_path_factory.mktemp("d")
    root, outside = base / "runs", victim_folder(base)
    plant(root / ".prefork.log", "fifo", outside)
    plant(root / ".projection_worker.lock", "link", outside)
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(root))
    monkeypatch.setenv("FEDQUAD_PROJECTION_WORKER", "1")
    monkeypatch.setenv("FEDQUAD_WARM_SERVER", "1")
    at = AppTest.from_file(MAIN, default_timeout=120)
    with no_hang(150):
        at.run()
        at.run()  # a second page run: the same, and no second line
    assert not at.exception and at.title
    assert contents(outside) == {"victim.txt": SECRET}
    assert not (root / ".prefork.sock").exists() and not (root / ".projection_worker.log").exists()
    err = capfd.readouterr().err
    for what, where, kind in (("warm server", ".prefork.log", "fifo"),
                              ("UMAP projection worker", ".projection_worker.lock", "link")):
        line = f"fedquad dashboard: {what} not started: {refusal(where, kind)}"
        assert err.count(line) == 1, err[-3000:]
