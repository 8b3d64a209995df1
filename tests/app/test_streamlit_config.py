"""The repo's Streamlit settings (``.streamlit/config.toml``, read by every server started from the
repo root: scripts/start.sh, the tests' servers): no file watcher, and no full garbage collection
after every script run (with it, each following student's fragment run, once a second, cost the
class server 10 % of a core: ``benchmarks/class_followers.py``, docs/classroom.md). And the servers the
repo starts (scripts/serve.py, scripts/serving.py) turn off Streamlit's look-ups of this machine's
addresses on the network."""
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


BANNER_AND_ORIGINS = """
import sys
sys.path.insert(0, "scripts")
if sys.argv[1] == "off":
    from serve import no_outside_lookups
    no_outside_lookups()
from streamlit import config
from streamlit.web import bootstrap
from streamlit.web.server import server_util
config.set_option("server.headless", True)
bootstrap._print_url(False)  # the start-up banner of a headless server on all addresses
print("origins", server_util.is_url_from_allowed_origins("http://elsewhere.example"),
      server_util.is_url_from_allowed_origins("http://127.0.0.1:8501"))
"""


def test_the_servers_banner_and_origin_check_ask_the_network_nothing(tmp_path):
    """With ``serve.no_outside_lookups`` (every server the repo starts) Streamlit's banner and its
    websocket origin check look nothing up (the network guard, tests/netguard, records nothing) and
    an unlisted origin is refused; without it the same calls ask for this machine's public address
    (the guard refuses and records those look-ups: the reason for the switch)."""
    netguard = sys.modules["fedquad_netguard"]  # tests/conftest.py
    (tmp_path / "probe.py").write_text(BANNER_AND_ORIGINS)
    for mode in ("off", "on"):
        env = {**os.environ, "FEDQUAD_NETGUARD_DIR": str(tmp_path / mode)}
        out = subprocess.run([sys.executable, str(tmp_path / "probe.py"), mode], capture_output=True, text=True,
                             cwd=ROOT, env=env, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        assert "origins False True" in out.stdout and "External URL" not in out.stdout, out.stdout
        found = "\n".join(netguard.findings(tmp_path / mode))
        if mode == "off":
            assert not found, found
        else:
            assert "checkip.amazonaws.com" in found, found
