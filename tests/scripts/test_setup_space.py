"""scripts/setup.sh: a first install on a disk without room for the Python packages (about 7 GB:
torch and its CUDA libraries) stops in one line before any of it, saying how much is free and
needed (a CI run once failed half-way through pip with "No space left on device")."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "clone"
    (root / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "setup.sh", root / "scripts" / "setup.sh")
    for name in ("requirements.txt", "pyproject.toml"):
        shutil.copy(REPO / name, root / name)
    return root


def _fake_df(tmp_path: Path, avail_kb: int) -> dict:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "df").write_text(f"#!/bin/sh\necho Avail\necho {avail_kb}\n")
    (bin_dir / "df").chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def test_a_first_install_without_room_stops_in_one_line_before_any_work(tmp_path):
    root = _copy(tmp_path)
    out = subprocess.run(["bash", "scripts/setup.sh"], cwd=root, env=_fake_df(tmp_path, 2 * 1024 * 1024),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "2 GB free" in lines[0] and "need about 7 GB" in lines[0], out.stderr
    assert not (root / ".venv").exists()  # nothing was installed


def test_an_installed_venv_is_not_checked_again(tmp_path):
    root = _copy(tmp_path)
    (root / ".venv" / "bin").mkdir(parents=True)
    os.symlink(shutil.which("python3"), root / ".venv" / "bin" / "python")
    want = subprocess.run("cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1", shell=True, cwd=root,
                          capture_output=True, text=True).stdout.strip()
    (root / ".venv" / ".fedquad-installed").write_text(want + "\n")
    out = subprocess.run(["bash", "scripts/setup.sh"], cwd=root, env=_fake_df(tmp_path, 1024),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "GB free" not in out.stderr, out.stderr
