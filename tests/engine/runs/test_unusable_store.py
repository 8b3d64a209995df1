"""A run store that cannot be used (issue 34, item 5): a loop of links, a path over the system's
limit, a kernel folder, a read-only disk, a full disk. Each is one line and exit 2 before any
work; a run that fills the disk ends 'failed' with one line, its metrics and snapshots agreeing."""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys

import pytest

from fedquad_core.cli import main
from fedquad_core.runs.store import RunStore, RunWriter

WRITE = [["run", "--rounds", "1", "--no-progress"], ["study", "run", "s", "--grid", "seed=0,1"],
         ["cancel", "r"], ["delete", "r"]]


def _one_line_exit_2(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("argv", WRITE, ids=[a[0] + ("-" + a[1] if a[0] == "study" else "") for a in WRITE])
def test_a_loop_of_links_is_one_line(argv, tmp_path, capsys):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    assert "symbolic links" in _one_line_exit_2([*argv[:2 if argv[0] == "study" else 1], "--runs-dir",
                                                  str(tmp_path / "a"), *argv[2 if argv[0] == "study" else 1:]], capsys)


@pytest.mark.parametrize("path", ["/proc/1", "/proc/1/runs", "/sys/kernel"])
def test_a_kernel_folder_is_refused_for_writing(path, capsys):
    assert "system folder" in _one_line_exit_2(["run", "--runs-dir", path, "--rounds", "1"], capsys)


def test_a_path_over_the_limit_is_one_line(tmp_path, capsys):
    long = str(tmp_path / ("x" * 200) / ("y" * 4100))
    assert "too long" in _one_line_exit_2(["run", "--runs-dir", long, "--rounds", "1"], capsys)
    assert "too long" in _one_line_exit_2(["list", "--runs-dir", long], capsys)


def test_a_read_only_disk_is_refused_before_work(tmp_path, capsys, monkeypatch):
    real = os.statvfs

    class ReadOnly:
        def __init__(self, path):
            self._s = real(path)
            self.f_flag = self._s.f_flag | os.ST_RDONLY

    monkeypatch.setattr(os, "statvfs", ReadOnly)
    assert "read-only disk" in _one_line_exit_2(["run", "--runs-dir", str(tmp_path / "runs"), "--rounds", "1"], capsys)
    assert not (tmp_path / "runs").exists()


def test_a_full_disk_in_the_middle_of_a_command_is_one_line(tmp_path, capsys, monkeypatch):
    def full(self, row):
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path / "metrics.jsonl"))

    monkeypatch.setattr(RunWriter, "append_metrics", full)
    assert main(["run", "--runs-dir", str(tmp_path / "runs"), "--rounds", "2", "--clients", "4",
                 "--snapshot-points", "100", "--no-progress", "--run-id", "r"]) == 2
    err = capsys.readouterr().err.strip()  # the data source's line, then the error's one line
    assert "Traceback" not in err and err.splitlines()[-1].startswith("fedquad: error: no space left on the run store's disk")
    status = RunStore(tmp_path / "runs").read_status("r")
    assert status["state"] == "failed" and "\n" not in status["error"]
    assert status["error"].startswith("no space left on the run store's disk")


def _mount_tiny(path) -> bool:
    path.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(path)], capture_output=True)
    return proc.returncode == 0


@pytest.mark.skipif(os.getuid() != 0, reason="mounting a tiny disk needs root (CI runs as root)")
def test_a_really_full_disk_keeps_metrics_and_snapshots_consistent(tmp_path):
    disk = tmp_path / "disk"
    if not _mount_tiny(disk):
        pytest.skip("this machine does not allow mounting a tmpfs")
    try:
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        proc = subprocess.run([sys.executable, "-m", "fedquad_core", "run", "--runs-dir", str(disk / "runs"),
                               "--rounds", "3", "--clients", "4", "--snapshot-points", "200", "--no-progress",
                               "--run-id", "r"], capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith("fedquad: error: no space left")
        store = RunStore(disk / "runs")
        status = store.read_status("r")
        assert status["state"] == "failed" and "\n" not in status["error"]
        last = status["round"]
        rows = store.read_metrics("r")
        assert [r["round"] for r in rows] == list(range(1, last + 1))
        assert all(r <= last for r in store.snapshot_rounds("r")), (store.snapshot_rounds("r"), last)
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
