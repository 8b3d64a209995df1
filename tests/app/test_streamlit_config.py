"""The repo's Streamlit settings (``.streamlit/config.toml``, read by every server started from the
repo root: scripts/start.sh, the tests' servers): no file watcher, and no full garbage collection
after every script run (with it, each following student's fragment run, once a second, cost the
class server 10 % of a core: ``benchmarks/class_followers.py``, docs/classroom.md)."""
from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_config_turns_off_the_collection_after_each_run_and_the_file_watcher():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False
    assert config["server"]["fileWatcherType"] == "none"


def test_streamlit_reads_it_from_the_repo_root():
    code = ("from streamlit import config; config.get_config_options(force_reparse=True); "
            "print(config.get_option('runner.postScriptGC'))")
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-1000:]
    assert out.stdout.strip().splitlines()[-1] == "False"
