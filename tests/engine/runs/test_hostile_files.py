"""Hostile files in a run store (issue 34, items 2 and 6): a named pipe or a link to /dev/zero in
place of a run file, deep nesting, duplicate keys, impossible metrics and times. Each is named as
damage in one line; nothing hangs (every CLI call runs under a timeout) or fills memory; the other
runs stay usable."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from fedquad_core import safe_io
from fedquad_core.runs.store import RunStore

from engine_helpers import tiny_config

RUN_FILES = ("status.json", "config.json", "metrics.jsonl", "partition.json")
TIMEOUT = 60


def _good_run(store: RunStore, run_id: str) -> str:
    writer = store.create(tiny_config(method="fedavg").resolved().to_dict(), run_id)
    writer.save_partition({"counts": [[3, 0], [1, 2]], "sizes": [3, 3], "num_classes": 2, "class_names": ["a", "b"]})
    writer.append_metrics({"round": 1, "test_accuracy": 0.5, "train_loss": 1.0})
    writer.append_metrics({"round": 2, "test_accuracy": 0.6, "train_loss": 0.9})
    writer.set_status("finished", round=2, total_rounds=2)
    return run_id


def _cli(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "fedquad_core", *argv], capture_output=True, text=True,
                          timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL)


def _replace_with(path, special: str) -> None:
    path.unlink(missing_ok=True)
    if special == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("special", ["fifo", "dev-zero"])
@pytest.mark.parametrize("name", RUN_FILES)
def test_special_file_in_a_run_is_named_and_list_and_show_finish(name, special, tmp_path):
    store = RunStore(tmp_path / "runs")
    _good_run(store, "good")
    _good_run(store, "bad")
    _replace_with(store.root / "bad" / name, special)
    listing = _cli("list", "--runs-dir", str(store.root))  # a hang fails here, by the timeout
    assert listing.returncode == 0, listing.stderr
    assert "Traceback" not in listing.stderr and "MemoryError" not in listing.stderr
    assert "good" in listing.stdout and "bad" in listing.stdout
    info = store.info("bad")
    assert info.damaged and name in info.damaged and "\n" not in info.damaged
    shown = _cli("show", "bad", "--runs-dir", str(store.root))
    assert "Traceback" not in shown.stderr


@pytest.mark.parametrize("special", ["fifo", "dev-zero"])
def test_safe_reader_refuses_special_files_and_bounds_size(special, tmp_path):
    path = tmp_path / "f.json"
    _replace_with(path, special)
    with pytest.raises(safe_io.DamagedFile, match="not a regular file"):
        safe_io.read_bytes(path, 1000)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(safe_io.TooLarge):
        safe_io.read_bytes(big, 1000)
    assert safe_io.read_bytes(big, 1001) == b"x" * 1001


def test_deep_nesting_and_duplicate_keys_are_one_line(tmp_path):
    with pytest.raises(safe_io.DamagedFile, match="nested more than"):
        safe_io.parse_json("[" * 100_000, "x.json")
    with pytest.raises(safe_io.DamagedFile, match="appears twice"):
        safe_io.parse_json('{"rounds": -5, "rounds": 1}', "x.json")
    assert safe_io.parse_json('{"s": "[[[[" }', "x.json", max_depth=1) == {"s": "[[[["}
    long = safe_io.one_line("a\nb" + "x" * 10_000_000)
    assert "\n" not in long and len(long) <= safe_io.MAX_REASON


@pytest.mark.parametrize("flag,sub", [("--config", ["run", "--no-progress"]), ("--file", ["study", "run", "s"])])
@pytest.mark.parametrize("content,words", [("[" * 100_000, "nested"),
                                           ('{"rounds": -5, "rounds": 1}', "appears twice")])
def test_hostile_settings_files_are_refused_in_one_line(flag, sub, content, words, tmp_path):
    path = tmp_path / "in.json"
    path.write_text(content)
    proc = _cli(*sub, flag, str(path), "--runs-dir", str(tmp_path / "runs"))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and words in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not any((tmp_path / "runs").glob("*/config.json"))


METRICS_DAMAGE = {
    "nested": ("[" * 100_000 + "\n", "nested"),
    "reversed": ('{"round": 2, "test_accuracy": 0.5}\n{"round": 1, "test_accuracy": 0.4}\n', "out of order"),
    "duplicated": ('{"round": 1, "test_accuracy": 0.5}\n{"round": 1, "test_accuracy": 0.5}\n', "repeated"),
    "round-negative": ('{"round": -5, "test_accuracy": 0.5}\n', "impossible"),
    "round-huge": ('{"round": 1' + "0" * 308 + ', "test_accuracy": 0.5}\n', "impossible"),
    "accuracy-huge": ('{"round": 1, "test_accuracy": 1e308}\n', "not an accuracy"),
    "huge-value": ('{"round": 1, "test_accuracy": 0.5, "x": "' + "y" * 2_000_000 + '"}\n', "not a number"),
}


@pytest.mark.parametrize("kind", sorted(METRICS_DAMAGE))
def test_damaged_metrics_are_named_not_shown_and_the_store_still_lists(kind, tmp_path, capsys):
    content, words = METRICS_DAMAGE[kind]
    store = RunStore(tmp_path / "runs")
    _good_run(store, "good")
    _good_run(store, "bad")
    (store.root / "bad" / "metrics.jsonl").write_text(content)
    info = store.info("bad")
    assert info.damaged and words in info.damaged
    assert "\n" not in info.damaged and len(info.damaged) <= 400
    from fedquad_core.cli import main  # in process: none of these can hang (the file is a regular one)

    assert main(["list", "--runs-dir", str(store.root)]) == 0
    out = capsys.readouterr().out
    assert "good" in out and len(out) < 20_000  # a 2 MB value is never echoed
    for argv in (["study", "list"], ["study", "claims"]):
        assert main([*argv, "--runs-dir", str(store.root)]) == 0, argv


@pytest.mark.parametrize("value", ["NaN", "1e300", "-1"])
def test_impossible_status_times_are_damage(value, tmp_path):
    store = RunStore(tmp_path / "runs")
    _good_run(store, "bad")
    status = json.loads((store.root / "bad" / "status.json").read_text())
    text = json.dumps(status).replace(f'"created": {status["created"]}', f'"created": {value}')
    (store.root / "bad" / "status.json").write_text(text)
    assert "created" in (store.info("bad").damaged or "")


def test_absurd_client_count_in_a_stored_config_is_damage(tmp_path):
    store = RunStore(tmp_path / "runs")
    _good_run(store, "bad")
    cfg = json.loads((store.root / "bad" / "config.json").read_text())
    cfg["num_clients"] = 10 ** 30
    (store.root / "bad" / "config.json").write_text(json.dumps(cfg))
    assert "num_clients" in (store.info("bad").damaged or "")


@pytest.mark.parametrize("special", ["fifo", "dev-zero", "pickled"])
def test_snapshot_that_is_not_a_plain_array_file_is_damage(special, tmp_path):
    store = RunStore(tmp_path / "runs")
    _good_run(store, "r")
    path = store.root / "r" / "embeddings" / "round_0001.npz"
    if special == "pickled":
        np.savez(path, embeddings=np.array([object()], dtype=object), labels=np.array([1]))
    else:
        _replace_with(path, special)
    from fedquad_core.runs.files import Damaged, read_snapshot
    with pytest.raises(Damaged):
        read_snapshot(path)


def _study_file(tmp_path, **fields) -> "os.PathLike":
    folder = tmp_path / "runs" / "studies"
    folder.mkdir(parents=True)
    study = {"name": "s", "created": 1.0, "engine": "x", "base": {}, "axes": {"seed": [0]},
             "points": [{"coords": {"seed": 0}, "key": "k", "run_id": None}], **fields}
    (folder / "s.json").write_text(json.dumps(study))
    return tmp_path / "runs"


def test_a_study_of_50000_repeated_points_is_named_at_once(tmp_path):
    points = [{"coords": {"seed": 0}, "key": "k", "run_id": None}] * 50_000
    runs = _study_file(tmp_path, points=points)
    t0 = time.monotonic()
    proc = _cli("study", "list", "--runs-dir", str(runs))
    assert "repeats an earlier point" in proc.stdout + proc.stderr
    assert time.monotonic() - t0 < TIMEOUT


def test_a_huge_stored_title_is_damage_not_printed(tmp_path):
    runs = _study_file(tmp_path, title="t" * 5_000_000)
    proc = _cli("study", "list", "--runs-dir", str(runs))
    assert len(proc.stdout) + len(proc.stderr) < 5_000
    assert "characters long" in proc.stdout + proc.stderr


def test_a_snapshot_of_nan_embeddings_is_named_not_projected(tmp_path):
    from fedquad_core.runs.files import Damaged, read_snapshot
    path = tmp_path / "round_0001.npz"
    np.savez(path, embeddings=np.full((4, 3), np.nan, dtype=np.float32), labels=np.arange(4))
    with pytest.raises(Damaged, match="NaN or infinite"):
        read_snapshot(path)


def test_show_of_a_run_with_a_damaged_partition_exits_2_as_list_names_it(tmp_path):
    store = RunStore(tmp_path / "runs")
    _good_run(store, "bad")
    (store.root / "bad" / "partition.json").write_text('{"counts": "x", "num_classes": 2}')
    assert "partition.json" in (store.info("bad").damaged or "")
    shown = _cli("show", "bad", "--runs-dir", str(store.root))
    assert shown.returncode == 2 and "partition.json" in shown.stderr and "Traceback" not in shown.stderr


@pytest.mark.parametrize("arrays,words", [
    ({"embeddings": np.ones((4, 3), np.float32), "labels": np.arange(4)}, "has no indices"),
    ({"embeddings": np.ones((4, 3), np.float32), "labels": np.arange(4), "indices": np.arange(3)}, "do not fit"),
    ({"embeddings": np.ones((4, 3), np.float32), "labels": np.arange(4), "indices": np.ones(4)}, "do not fit"),
], ids=["no-indices", "short-indices", "float-indices"])
def test_a_snapshot_without_usable_indices_is_named(arrays, words, tmp_path):
    """The Embeddings page read snap["indices"] and raised KeyError for the whole page."""
    from fedquad_core.runs.files import Damaged, read_snapshot
    path = tmp_path / "round_0001.npz"
    np.savez(path, **arrays)
    with pytest.raises(Damaged, match=words):
        read_snapshot(path)


@pytest.mark.parametrize("change,words", [
    ({"num_classes": 3}, "its rows have 2 classes, but 'num_classes' says 3"),
    ({"num_classes": 0}, "'num_classes' is 0"),
    ({"sizes": [3]}, "1 sizes for 2 clients"),
    ({"class_names": ["a", "b", "c"]}, "3 class names for 2 classes"),
], ids=["classes-vs-rows", "no-classes", "sizes", "names"])
def test_a_partition_that_disagrees_with_itself_is_named(change, words, tmp_path):
    """Geometry raised ValueError for a partition whose class count disagreed with its rows."""
    store = RunStore(tmp_path / "runs")
    _good_run(store, "bad")
    part = {"counts": [[3, 0], [1, 2]], "sizes": [3, 3], "num_classes": 2, "class_names": ["a", "b"], **change}
    (store.root / "bad" / "partition.json").write_text(json.dumps(part))
    assert words in (store.info("bad").damaged or "")
