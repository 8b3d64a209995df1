"""Every bad input to `fedquad run` (flags and config files, from tests/bad_inputs.py): exit code 2,
exactly one line on stderr, no traceback, and nothing written to the run store."""
import json
import subprocess
import sys

import pytest

from bad_inputs import CLI, CONFIG, STUDY, STUDY_FILE, SWEEP
from fedquad_core.cli import build_parser, main

BASE = ["--rounds", "1", "--clients", "6", "--snapshot-points", "100", "--no-progress"]
TINY = {"rounds": 1, "num_clients": 6, "snapshot_points": 100}  # under a config file's own keys


def _tree(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


def _run(argv, tmp_path, capsys, base=BASE, command="run"):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "not-a-run").mkdir()  # a stray folder in the store, not a run
    before = _tree(tmp_path)
    try:
        code = main([*command.split(), "--runs-dir", str(runs), *base, *argv])
    except SystemExit as exc:  # argparse
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    prog = " ".join(w for w in command.split() if w in ("run", "sweep", "study"))  # argparse's prog, no NAME
    assert err.startswith(("fedquad: error:", f"fedquad {command}: error:", f"fedquad {prog}: error:")), err
    assert _tree(tmp_path) == before, "a bad input wrote something"
    return err


@pytest.mark.parametrize("argv,fragment", CLI, ids=[" ".join(a)[:40] for a, _ in CLI])
def test_bad_flag(argv, fragment, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert fragment in _run(argv, tmp_path, capsys)


@pytest.mark.parametrize("content,fragment", CONFIG, ids=[str(c)[:40] for c, _ in CONFIG])
def test_bad_config_file(content, fragment, tmp_path, capsys):
    path = tmp_path / "cfg.json"
    path.write_text(content if isinstance(content, str) else json.dumps({**TINY, **content}), errors="surrogateescape")
    assert fragment in _run(["--config", str(path)], tmp_path, capsys, base=["--no-progress"])


@pytest.mark.parametrize("argv,fragment", SWEEP, ids=[" ".join(a)[:40] for a, _ in SWEEP])
def test_bad_sweep_flag(argv, fragment, tmp_path, capsys):
    base = ["--methods", "fedavg", "--rounds", "1", "--clients", "6", "--snapshot-points", "100"]
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert fragment in _run(argv, tmp_path, capsys, base=base, command="sweep")


STUDY_BASE = ["--rounds", "1", "--clients", "6", "--snapshot-points", "100", "--quiet"]


@pytest.mark.parametrize("argv,fragment", STUDY, ids=[" ".join(a)[:40] for a, _ in STUDY])
def test_bad_study_grid(argv, fragment, tmp_path, capsys):
    assert fragment in _run(argv, tmp_path, capsys, base=STUDY_BASE, command="study run bad")


@pytest.mark.parametrize("content,fragment", STUDY_FILE, ids=[str(c)[:40] for c, _ in STUDY_FILE])
def test_bad_study_file(content, fragment, tmp_path, capsys):
    path = tmp_path / "study.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    # a flag given on the command line overrides the file's own value: leave out the flags the file sets
    try:
        given = set((json.loads(content) if isinstance(content, str) else content).get("base") or {})
    except ValueError:
        given = set()
    flags = {"rounds": "--rounds", "num_clients": "--clients", "snapshot_points": "--snapshot-points"}
    skip = {flags[k] for k in given if k in flags}
    base = [a for i, a in enumerate(STUDY_BASE) if a not in skip and (i == 0 or STUDY_BASE[i - 1] not in skip)]
    assert fragment in _run(["--file", str(path)], tmp_path, capsys, base=base, command="study run bad")


def test_every_run_flag_has_a_bad_input():
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    flags = {a.option_strings[0] for a in sub.choices["run"]._actions if a.option_strings != ["-h", "--help"]}
    covered = {arg.split("=")[0] for argv, _ in CLI for arg in argv if arg.startswith("--")}
    assert flags - covered == set(), "give these flags a bad value in tests/bad_inputs.py"


@pytest.mark.parametrize("argv", [["--participation", "nan"], ["--model", "cnn"], ["--method", "nope"]])
def test_bad_input_in_a_real_process(argv, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "fedquad_core", "run", "--runs-dir", str(tmp_path), *argv],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not any(tmp_path.iterdir())


def test_stale_data_dir_variable_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FEDQUAD_DATA_DIR", str(tmp_path / "gone"))
    assert "$FEDQUAD_DATA_DIR=" in _run([], tmp_path, capsys)


def test_data_source_is_printed_and_stored(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main(["run", "--runs-dir", str(runs), *BASE, "--run-id", "r"]) == 0
    assert "fedquad: digits read from bundled with scikit-learn" in capsys.readouterr().err
    status = json.loads((runs / "r" / "status.json").read_text())
    assert status["data_source"].startswith("bundled with scikit-learn") and status["pid_start"] > 0


@pytest.mark.parametrize("make,fragment", [
    (lambda tmp: "/dev/zero", "not a regular file"),
    (lambda tmp: str(tmp), "cannot read --file"),
    (lambda tmp: str(tmp / "missing.json"), "cannot read --file"),
    (lambda tmp: (tmp / "s.json").write_text("[1]") and str(tmp / "s.json"), "must hold a JSON object"),
], ids=["dev-zero", "folder", "missing", "a-list"])
def test_unreadable_study_file(make, fragment, tmp_path, capsys):
    err = _run(["demo", "--file", make(tmp_path)], tmp_path, capsys, base=[], command="study run")
    assert fragment in err


def test_yes_large_grid_lifts_the_grid_size_bound(tmp_path, capsys):
    """1,001 points: refused for their number; with --yes-large-grid the next check speaks (here the
    rounds, so nothing trains)."""
    wide = ["--grid", "seed=" + ",".join(str(i) for i in range(1001)), "--rounds", "0"]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert "1,001 points, more than 1,000" in _run(wide, tmp_path / "a", capsys, base=STUDY_BASE[2:],
                                                  command="study run big")
    err = _run([*wide, "--yes-large-grid"], tmp_path / "b", capsys, base=STUDY_BASE[2:], command="study run big")
    assert "rounds must be an integer >= 1" in err and "points" not in err
