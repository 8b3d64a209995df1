"""Follow the lecturer, the store side (``app.service.follow_store``, the app's, not the engine's):
the presenter's position file (``<root>/follow/<code>.json``) round-trips, its seq goes up on every
write, and a bad code, a damaged, foreign or special file (a pipe, /dev/zero) reads as None (or is
refused for writing) instead of raising, hanging or naming another path."""
from __future__ import annotations

import ast
import json
import os
import time
from pathlib import Path

import pytest

from app.service import follow_store as follow


def test_a_position_round_trips_and_its_seq_goes_up(tmp_path):
    code = follow.new_code()
    assert follow.is_code(code)
    assert follow.read_position(tmp_path, code) is None  # nothing shared yet
    pos = {"page": "views/lesson.py", "state": {"step": 3}}
    assert follow.write_position(tmp_path, code, pos) == 1
    got = follow.read_position(tmp_path, code)
    assert got["seq"] == 1 and got["position"] == pos and got["written"] > 0
    follow.write_position(tmp_path, code, {"page": "views/explore.py", "state": {"x_alpha": "IID"}})
    got = follow.read_position(tmp_path, code)
    assert got["seq"] == 2 and got["position"]["state"] == {"x_alpha": "IID"}
    assert sorted(p.name for p in (tmp_path / "follow").iterdir()) == [f"{code}.json"]  # no temp file left


def test_codes_are_random_and_distinct():
    codes = {follow.new_code() for _ in range(200)}
    assert len(codes) == 200


@pytest.mark.parametrize("bad", ["", "ab", "../../etc/passwd", "ABCDEFGH", "abc/defg", "abcdefgh.json",
                                 "a" * 17, None, 12345678, "abcdefg\n"])
def test_a_bad_code_names_no_path(tmp_path, bad):
    assert not follow.is_code(bad)
    assert follow.read_position(tmp_path, bad) is None
    with pytest.raises(follow.BadCode):
        follow.write_position(tmp_path, bad, {"page": "x"})
    assert not (tmp_path / "follow").exists()


@pytest.mark.parametrize("content", [b"", b"{not json", b"\xff\xfe\x00", b"[1, 2]", b'{"seq": 1}',
                                     b'{"seq": "1", "written": 1.0, "position": {}}',
                                     b'{"seq": true, "written": 1.0, "position": {}}',
                                     b'{"seq": 0, "written": 1.0, "position": {}}',
                                     b'{"seq": 2, "written": 1.0, "position": []}',
                                     b'{"seq": 2, "written": 1.0, "position": {"page": "' + b"x" * 70_000 + b'"}}'])
def test_a_damaged_file_reads_as_none_and_a_write_starts_over(tmp_path, content):
    code = "abcdefgh"
    (tmp_path / "follow").mkdir()
    (tmp_path / "follow" / f"{code}.json").write_bytes(content)
    assert follow.read_position(tmp_path, code) is None
    assert follow.write_position(tmp_path, code, {"page": "views/lesson.py"}) == 1
    assert follow.read_position(tmp_path, code)["position"] == {"page": "views/lesson.py"}


def test_a_folder_in_the_files_place_reads_as_none(tmp_path):
    (tmp_path / "follow" / "abcdefgh.json").mkdir(parents=True)
    assert follow.read_position(tmp_path, "abcdefgh") is None


def test_the_write_is_atomic_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    code = "abcdefgh"
    follow.write_position(tmp_path, code, {"page": "views/lesson.py", "state": {"step": 2}})

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        follow.write_position(tmp_path, code, {"page": "views/lesson.py", "state": {"step": 3}})
    monkeypatch.undo()
    got = follow.read_position(tmp_path, code)
    assert got["seq"] == 1 and got["position"]["state"] == {"step": 2}
    assert [p.name for p in (tmp_path / "follow").iterdir()] == [f"{code}.json"]
    assert json.loads((tmp_path / "follow" / f"{code}.json").read_text())["seq"] == 1


@pytest.mark.parametrize("special", ["fifo", "dev-zero"])
def test_a_special_follow_file_reads_as_no_position_at_once(special, tmp_path):
    code = follow.new_code()
    path = follow.path_of(tmp_path, code)
    path.parent.mkdir(parents=True)
    if special == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    t0 = time.monotonic()
    assert follow.read_position(tmp_path, code) is None
    assert time.monotonic() - t0 < 5


def test_the_engine_keeps_only_the_folder_name():
    """The engine reserves the ``follow`` folder in its store (never a run id) and knows nothing
    else of it: no engine module is, or imports, the follow store."""
    from fedquad_core.runs.store import FOLLOW_FOLDER, RESERVED

    assert follow.FOLDER == FOLLOW_FOLDER == "follow" and FOLLOW_FOLDER in RESERVED
    engine = Path(__file__).resolve().parents[3] / "fedquad_core"
    assert not (engine / "runs" / "follow.py").exists()
    for path in engine.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] + [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else [])
            assert not any("follow" in n.split(".") for n in names), f"{path} imports {names}"
