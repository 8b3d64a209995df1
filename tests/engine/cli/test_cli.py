"""The command line: user errors exit 2 with one line and create nothing; the commands work."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fedquad_core.cli import main

# The bad inputs of `fedquad run` are listed in tests/bad_inputs.py (tests/engine/cli/test_bad_inputs.py).


@pytest.mark.parametrize("argv", [["--method", "nope"], ["--dataset", "mnist"]])
def test_unknown_choice_is_rejected_by_argparse(argv, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "--runs-dir", str(tmp_path), *argv])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_bad_input_from_a_real_shell_has_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "fedquad_core", "run", "--alpha", "-3", "--runs-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "fedquad: error: alpha must be a number > 0 (got -3.0): change --alpha (small = strong skew), or use --iid"


def test_run_list_show_compare_and_config_file(tmp_path, capsys):
    runs = str(tmp_path / "runs")
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"dataset": "digits", "num_clients": 5, "rounds": 2, "method": "fedquad",
                               "method_params": {"m1": 0.7}, "snapshot_points": 50}))
    assert main(["run", "--runs-dir", runs, "--config", str(cfg), "--m2", "0.3", "--no-progress", "--run-id", "a"]) == 0
    # the file's FedQuad margins do not apply to FedAvg: said before anything runs
    assert main(["run", "--runs-dir", runs, "--config", str(cfg), "--method", "fedavg", "--run-id", "b"]) == 2
    assert main(["run", "--runs-dir", runs, "--clients", "5", "--rounds", "2", "--method", "fedavg", "--no-progress",
                 "--run-id", "b"]) == 0
    stored = json.loads((tmp_path / "runs" / "a" / "config.json").read_text())
    assert stored["method_params"]["m1"] == 0.7 and stored["method_params"]["m2"] == 0.3
    assert stored["num_clients"] == 5
    capsys.readouterr()
    assert main(["list", "--runs-dir", runs]) == 0
    out = capsys.readouterr().out
    assert "a " in out and "fedquad" in out and "fedavg" in out and "finished" in out
    assert main(["show", "a", "--runs-dir", runs]) == 0
    assert '"m1": 0.7' in capsys.readouterr().out
    assert main(["compare", "a", "b", "--runs-dir", runs]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["run", "method", "state", "rounds"] and len(lines) == 4
    assert main(["show", "missing", "--runs-dir", runs]) == 2
    assert main(["show", "../etc", "--runs-dir", runs]) == 2


def test_sweep_prints_methods_by_settings_with_mean_and_std(tmp_path, capsys):
    code = main(["sweep", "--runs-dir", str(tmp_path), "--methods", "fedavg,fedquad", "--alphas", "0.5,iid",
                 "--clients", "4", "--seeds", "0,1", "--rounds", "1", "--local-epochs", "1", "--snapshot-points", "50"])
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split("  ")[0].strip() == "method"
    assert "α=0.5, 4 clients" in out[0] and "IID, 4 clients" in out[0]
    rows = {line.split()[0]: line for line in out[2:]}
    assert set(rows) == {"FedAvg", "FedQuad"}
    assert rows["FedQuad"].count("±") == 2
    assert len(os.listdir(tmp_path)) >= 8


def test_sweep_rejects_unknown_method_before_running(tmp_path, capsys):
    assert main(["sweep", "--runs-dir", str(tmp_path), "--methods", "fedavg,bogus", "--rounds", "1"]) == 2
    assert "bogus" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_help_lists_every_method_parameter(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    for flag in ("--m1", "--m2", "--beta", "--mu", "--tau", "--margin", "--tuples-per-batch", "--proj-dim"):
        assert flag in out


def test_sweep_checks_every_partition_of_the_grid_before_running(tmp_path, capsys):
    # alpha 0.5 works for 50 clients; alpha 0.1 cannot give 50 clients 10 samples each
    code = main(["sweep", "--runs-dir", str(tmp_path), "--methods", "fedavg", "--alphas", "0.5,0.1", "--clients", "50",
                 "--rounds", "1"])
    assert code == 2
    assert "raise alpha" in capsys.readouterr().err
    assert not tmp_path.exists() or not any(tmp_path.iterdir())


def test_asking_for_a_gpu_without_one_is_a_user_error(tmp_path, capsys):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA GPU, so --device cuda is valid here")
    assert main(["run", "--runs-dir", str(tmp_path), "--device", "cuda", "--rounds", "1"]) == 2
    assert "no CUDA GPU is available: use --device auto or cpu" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_ctrl_c_while_the_command_line_starts_is_one_line(tmp_path):
    """A Ctrl-C while the commands import torch (seconds): one line and exit code 130, no traceback."""
    import signal
    import time

    # Ctrl-C as a terminal delivers it: the test run itself may have been started in the background,
    # where the shell leaves SIGINT ignored, and a child inherits that (the command keeps it so)
    proc = subprocess.Popen([sys.executable, "-m", "fedquad_core", "list", "--runs-dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # Inside the commands' imports: once numpy's or torch's library is mapped. A fixed sleep was not
    # enough on a loaded machine: a signal that lands between fork and exec is lost with the parent's
    # copy, and the command then runs to its end (exit 0).
    maps, deadline = Path(f"/proc/{proc.pid}/maps"), time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            if any(lib in maps.read_text() for lib in ("_multiarray_umath", "libtorch", "libc10")):
                break
        except OSError:
            pass
        time.sleep(0.01)
    assert proc.poll() is None, "the command ended before its imports could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip() == "fedquad: interrupted while starting", err


def test_a_study_whose_points_all_failed_exits_1(tmp_path, capsys, monkeypatch):
    """"0/2 points finished" used to exit 0 (every run failed on a full disk): now exit 1 and one line."""
    import fedquad_core.cli.study as cli_study
    from fedquad_core.runs.store import RunStore

    store = RunStore(tmp_path)
    points = []
    for seed in (0, 1):
        w = store.create({"method": "fedavg", "dataset": "digits", "num_clients": 6, "rounds": 1, "alpha": 0.5,
                          "seed": seed}, f"failed-{seed}")
        w.set_status("failed", error="No space left on device")
        points.append({"coords": {"seed": seed}, "key": f"{seed:016x}", "run_id": f"failed-{seed}"})
    study = {"name": "full-disk", "axes": {"seed": [0, 1]}, "points": points, "base": {}}
    monkeypatch.setattr(cli_study, "run_study", lambda *a, **k: study)
    code = main(["study", "run", "full-disk", "--runs-dir", str(tmp_path), "--grid", "seed=0,1", "--rounds", "1",
                 "--clients", "6", "--quiet"])
    out, err = capsys.readouterr()
    assert code == 1 and "0/2 points finished" in out
    assert err.strip() == "fedquad: study full-disk: none of its 2 points finished (see the runs' errors above, or `fedquad list`)"
    store.writer("failed-1").set_status("finished")
    assert main(["study", "run", "full-disk", "--runs-dir", str(tmp_path), "--grid", "seed=0,1", "--quiet"]) == 0
