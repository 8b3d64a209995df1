"""Damaged entries in the run store (a symlinked folder, files of the wrong shape, unreadable or
missing files): listed as damaged with their reason, one line for show/compare, the rest usable."""
from __future__ import annotations

import json
import os

import pytest

from fedquad_core.cli import main
from fedquad_core.runs.store import DamagedRun, RunStore, StoreError

from engine_helpers import tiny_config


def _good_run(store: RunStore, run_id: str) -> str:
    writer = store.create(tiny_config(method="fedavg").resolved().to_dict(), run_id)
    writer.save_partition({"counts": [[3, 0], [1, 2]], "sizes": [3, 3], "num_classes": 2, "class_names": ["a", "b"]})
    writer.append_metrics({"round": 1, "test_accuracy": 0.5, "train_loss": 1.0, "ratio": float("nan")})
    writer.set_status("finished", round=1, total_rounds=1)
    return run_id


def _write(path, data) -> None:
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def _edit(path, **change) -> None:
    _write(path, {**json.loads(path.read_text()), **change})


# each damage: (what to do to a good run folder, words the reason must contain)
DAMAGES = {
    "config-list": (lambda p: _write(p / "config.json", [1, 2]), "config.json holds an array, not an object"),
    "config-type": (lambda p: _write(p / "config.json", {"method": "fedavg", "dataset": "digits", "alpha": "x"}),
                    "'alpha' is 'x'"),
    "config-not-json": (lambda p: _write(p / "config.json", "{nope"), "config.json is not valid JSON"),
    "status-string": (lambda p: _write(p / "status.json", '"finished"'), "status.json holds a string"),
    "status-state": (lambda p: _write(p / "status.json", {"state": "exploded"}), "unknown state 'exploded'"),
    "status-missing": (lambda p: (p / "status.json").unlink(), "status.json is missing"),
    "metrics-list-row": (lambda p: _write(p / "metrics.jsonl", "[1, 2]\n"), "line 1 holds an array"),
    "metrics-no-key": (lambda p: _write(p / "metrics.jsonl", '{"round": 1}\n'), "has no 'test_accuracy'"),
    "metrics-text-value": (lambda p: _write(p / "metrics.jsonl", '{"round": 1, "test_accuracy": "high"}\n'),
                           "'test_accuracy' is 'high'"),
    "partition-shape": (lambda p: _write(p / "partition.json", {"counts": [[1, 2], [3]], "num_classes": 2}),
                        "clients x classes"),
    "partition-list": (lambda p: _write(p / "partition.json", [[1, 2]]), "partition.json holds an array"),
    "config-unreadable": (lambda p: ((p / "config.json").unlink(), (p / "config.json").mkdir()),
                          "cannot read config.json"),
    "status-not-utf8": (lambda p: (p / "status.json").write_bytes(b"\xff\xfe{}"), "not UTF-8"),
    # values read from the store go through the checks of values typed (config/stored.py)
    "config-unknown-method": (lambda p: _edit(p / "config.json", method="sgd"), "unknown method 'sgd'"),
    "config-unknown-dataset": (lambda p: _edit(p / "config.json", dataset="mnist"), "unknown dataset 'mnist'"),
    "config-unknown-model": (lambda p: _edit(p / "config.json", model="vgg"), "unknown model 'vgg'"),
    "config-nan-alpha": (lambda p: _edit(p / "config.json", alpha=float("nan")), "alpha is nan"),
    "config-negative-alpha": (lambda p: _edit(p / "config.json", alpha=-1.0), "alpha must be a number > 0"),
    "config-huge-lr": (lambda p: _edit(p / "config.json", lr=HUGE), "lr is 99999"),
    "config-huge-alpha": (lambda p: _edit(p / "config.json", alpha=HUGE), "'alpha' is 99999"),
    "config-huge-participation": (lambda p: _edit(p / "config.json", participation=HUGE), "participation is 99999"),
    "config-huge-m1": (lambda p: _edit(p / "config.json", method="fedquad", method_params={"m1": HUGE}),
                       "method parameter m1 is 99999"),
    "config-zero-rounds": (lambda p: _edit(p / "config.json", rounds=0), "'rounds' is 0"),
    "status-round-1e30": (lambda p: _edit(p / "status.json", round=10**30), "not a round from 0 to"),
    "status-pid-huge": (lambda p: _edit(p / "status.json", pid=HUGE), "not a process id"),
    "metrics-huge-int": (lambda p: _write(p / "metrics.jsonl", '{"round": 1, "test_accuracy": 0.5, "train_loss": '
                                          + str(HUGE) + '}\n'), "'train_loss' is 99999"),
    "metrics-link-loop": (lambda p: ((p / "metrics.jsonl").unlink(), os.symlink("m2", p / "metrics.jsonl"),
                                     os.symlink("metrics.jsonl", p / "m2")), "a loop of symbolic links"),
}
HUGE = int("9" * 400)  # an integer no float holds: math.isfinite(HUGE) raises OverflowError


@pytest.fixture
def damaged_store(store):
    _good_run(store, "good-1")
    for name, (damage, _) in DAMAGES.items():
        damage(store.root / _good_run(store, name))
    elsewhere = store.root.parent / "elsewhere"
    elsewhere.mkdir()
    _good_run(RunStore(elsewhere), "target")
    os.symlink(elsewhere / "target", store.root / "linked")
    _good_run(store, "good-2")
    return store


def test_info_reports_each_damage_with_its_reason_and_the_good_runs_normally(damaged_store):
    infos = {i.run_id: i for i in damaged_store.list_runs()}
    assert set(infos) == set(DAMAGES) | {"good-1", "good-2", "linked"}
    for name, (_, words) in DAMAGES.items():
        assert infos[name].state == "damaged", name
        assert words in infos[name].damaged, (name, infos[name].damaged)
    assert "symbolic link" in infos["linked"].damaged
    assert infos["good-1"].state == infos["good-2"].state == "finished" and infos["good-1"].damaged is None


@pytest.mark.parametrize("name", sorted(DAMAGES) + ["linked"])
def test_readers_raise_one_line_for_a_damaged_run(damaged_store, name):
    s = damaged_store
    errors = []
    for read in (s.read_config, s.read_status, s.read_metrics, s.read_partition):
        try:
            read(name)
        except DamagedRun as e:
            errors.append(str(e))
    assert errors, f"no reader noticed the damage of {name}"
    assert all(e.startswith(f"run {name} is damaged: ") and "\n" not in e for e in errors), errors


def test_cli_list_marks_damaged_entries_and_show_compare_exit_2(damaged_store, capsys):
    root = str(damaged_store.root)
    assert main(["list", "--runs-dir", root]) == 0
    out = capsys.readouterr().out
    for name in list(DAMAGES) + ["linked"]:
        assert f"damaged {name}: " in out
    assert out.count("finished") == 2
    for argv in (["show", "status-string"], ["show", "linked"], ["show", "config-huge-lr"],
                 ["show", "metrics-huge-int"], ["show", "metrics-link-loop"]):
        assert main(argv + ["--runs-dir", root]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "is damaged" in err, err
    assert main(["show", "good-2", "--runs-dir", root]) == 0


def test_compare_names_a_damaged_run_and_shows_the_others(damaged_store, capsys):
    """One damaged run costs only its own row: the others are compared, it is named, exit 1."""
    root = str(damaged_store.root)
    capsys.readouterr()
    assert main(["compare", "good-1", "metrics-no-key", "config-huge-lr", "good-2", "--runs-dir", root]) == 1
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()[2:]] == ["good-1", "metrics-no-key", "config-huge-lr", "good-2"]
    assert out.count("finished") == 2 and out.count("damaged") == 2
    lines = err.splitlines()
    assert len(lines) == 2 and all(line.startswith("damaged ") for line in lines) and "Traceback" not in err, err


def test_a_queued_run_whose_config_cannot_be_used_fails_in_one_line(store, capsys):
    """`fedquad run --run-id` of a queued run with an unknown data set (the launcher's path): one
    line, exit 2, and the run is failed with the reason, never left "queued" for ever."""
    cfg = tiny_config().resolved().to_dict()
    store.create({**cfg, "dataset": "mnist"}, "queued-bad")
    assert main(["run", "--runs-dir", str(store.root), "--run-id", "queued-bad", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "run queued-bad cannot start" in err and "unknown dataset 'mnist'" in err, err
    status = json.loads((store.root / "queued-bad" / "status.json").read_text())
    assert status["state"] == "failed" and "unknown dataset 'mnist'" in status["error"]


def test_delete_removes_a_damaged_entry_and_only_the_link_of_a_symlink(damaged_store):
    damaged_store.delete("status-string")
    damaged_store.delete("linked")
    assert "status-string" not in damaged_store.run_ids() and "linked" not in damaged_store.run_ids()
    assert (damaged_store.root.parent / "elsewhere" / "target" / "config.json").is_file()


def test_a_half_created_run_is_never_listed_as_damaged(store):
    """create() fills the folder aside and renames it in: no moment with config but no status."""
    writer = store.create(tiny_config().resolved().to_dict(), "fresh")
    assert store.info("fresh").state == "queued"
    assert [p.name for p in store.root.iterdir()] == ["fresh"]  # no temp folder left behind
    assert writer.path == store.path("fresh")
    with pytest.raises(FileExistsError):
        store.create(tiny_config().resolved().to_dict(), "fresh")


def test_cancel_of_an_ended_run_says_its_state_and_exits_2(store, capsys):
    _good_run(store, "done")
    with pytest.raises(StoreError, match=r"run done has already ended \(finished\)"):
        store.request_cancel("done")
    assert not (store.root / "done" / "cancel").exists()
    assert main(["cancel", "done", "--runs-dir", str(store.root)]) == 2
    assert capsys.readouterr().err.strip() == "fedquad: error: run done has already ended (finished)"


def test_cancel_of_a_queued_run_without_process_cancels_it(store, capsys):
    store.create(tiny_config().resolved().to_dict(), "waiting")
    assert main(["cancel", "waiting", "--runs-dir", str(store.root)]) == 0
    assert store.read_status("waiting")["state"] == "cancelled"


def test_a_metrics_file_damaged_after_it_was_listed_is_noticed(store):
    """info() remembers the check of a metrics file until the file changes, and no longer."""
    _good_run(store, "later")
    assert store.info("later").damaged is None
    with open(store.root / "later" / "metrics.jsonl", "a") as f:
        f.write('"not a row"\n')
    assert "line 2 holds a string" in store.info("later").damaged


def test_a_run_folder_this_user_cannot_enter_is_named_not_left_out(store, capsys, monkeypatch):
    """A folder without read or search permission (simulated: the tests run as root, who may enter
    any folder) used to be silently left out of `list`; it is listed as damaged with the reason."""
    _good_run(store, "good")
    _good_run(store, "locked")
    locked = str(store.root / "locked") + os.sep
    real_lstat, real_open = os.lstat, os.open

    def deny(real):
        def call(path, *args, **kwargs):
            if str(path).startswith(locked):
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *args, **kwargs)
        return call

    monkeypatch.setattr(os, "lstat", deny(real_lstat))
    monkeypatch.setattr(os, "open", deny(real_open))
    assert "locked" in store.run_ids()
    assert "Permission denied" in (store.info("locked").damaged or "")
    assert main(["list", "--runs-dir", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert "damaged locked: " in out and "Permission denied" in out and out.count("finished") == 1
