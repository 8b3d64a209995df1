"""No program from a planted path (issue 47): figure export drives the system's Chromium, the
user's ``BROWSER_PATH``, or a downloaded Chrome only in a folder no one else can write (the rule
of numba's cache, ``unsafe_program``). choreographer's own finder takes a "chrome" from
``$XDG_DATA_HOME/choreographer/deps`` before anything else and unchecked; these tests plant one
there, in a folder everyone can write, and prove it never runs (its marker file never appears)
while a PNG is still exported."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.export import files as export
from fedquad_core.api import unsafe_program

ROOT = Path(__file__).resolve().parents[3]


def _plant(folder: Path, marker: Path) -> Path:
    """An executable "chrome" at ``folder`` that leaves ``marker`` behind if anyone runs it."""
    folder.mkdir(parents=True, exist_ok=True)
    chrome = folder / "chrome"
    chrome.write_text(f"#!/bin/sh\necho ran >> {marker}\nexit 1\n")
    chrome.chmod(0o755)
    return chrome


PROBE = """
import json, sys
from choreographer.browsers.chromium import Chromium
from app.export import files
from app.figures import charts
import numpy as np
out = {"theirs": Chromium.find_browser(skip_local=False), "ours": files.browser_path(),
       "downloaded": files.downloaded_browser()}
if out["ours"]:
    fig = charts.partition_heatmap(np.arange(12).reshape(3, 4), title="planted")
    out["png"] = files.figure_bytes(fig, "png")[:8].hex()
print(json.dumps(out))
"""


def test_a_chrome_planted_in_a_world_writable_xdg_data_home_never_runs(tmp_path):
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    xdg.chmod(0o777)  # anyone on the machine can plant a program here
    marker = tmp_path / "planted-chrome-ran"
    chrome = _plant(xdg / "choreographer" / "deps" / "chrome-linux64", marker)
    for folder in (xdg / "choreographer", xdg / "choreographer" / "deps", chrome.parent):
        folder.chmod(0o777)
    env = {k: v for k, v in os.environ.items() if k != "BROWSER_PATH"}
    env.update(XDG_DATA_HOME=str(xdg), PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=180, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    # the control: choreographer's own search would have taken the planted program
    assert out["theirs"] == str(chrome) and out["downloaded"] == str(chrome)
    assert out["ours"] != str(chrome)
    if out["ours"] is None and os.environ.get("FEDQUAD_ALLOW_NO_BROWSER") != "1":
        pytest.fail("no system Chromium: install chromium (scripts/setup.sh does)", pytrace=False)
    if out["ours"]:
        assert bytes.fromhex(out["png"]) == b"\x89PNG\r\n\x1a\n"  # exported with the system's browser
    assert not marker.exists(), "the planted chrome ran"


@pytest.fixture
def only_download(monkeypatch, tmp_path):
    """No system browser and nothing on PATH: only a downloaded Chrome at a path the test picks."""
    monkeypatch.delenv("BROWSER_PATH", raising=False)
    monkeypatch.setattr(export, "SYSTEM_BROWSERS", ())
    monkeypatch.setattr(export, "BROWSER_NAMES", ())
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    home.chmod(0o700)
    chrome = _plant(home / "choreographer" / "deps" / "chrome-linux64", tmp_path / "ran")
    for folder in (home / "choreographer", home / "choreographer" / "deps", chrome.parent):
        folder.chmod(0o700)
    monkeypatch.setattr(export, "downloaded_browser", lambda: str(chrome))
    return home, chrome


def test_a_download_in_a_private_folder_is_used(only_download):
    _, chrome = only_download
    assert export.browser_path() == str(chrome)


@pytest.mark.parametrize("where", ["deps", "home", "file"])
def test_a_download_others_can_change_is_not_used(only_download, where):
    home, chrome = only_download
    {"deps": chrome.parent.parent, "home": home, "file": chrome}[where].chmod(0o777 if where != "file" else 0o775)
    assert unsafe_program(chrome) is not None
    assert export.browser_path() is None  # export is then off, and says why (no browser found)


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_download_owned_by_another_user_is_not_used(only_download):
    _, chrome = only_download
    os.chown(chrome, 12345, 12345)
    assert "another user" in unsafe_program(chrome) and export.browser_path() is None


def test_a_link_to_a_planted_program_is_judged_by_its_target(only_download, tmp_path):
    _, chrome = only_download
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    planted = _plant(shared, tmp_path / "ran2")
    chrome.unlink()
    chrome.symlink_to(planted)
    assert export.browser_path() is None
