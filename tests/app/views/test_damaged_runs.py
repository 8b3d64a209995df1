"""Damaged run folders in the store: the Runs page lists them as damaged with their reason, the
other pages skip them with a note, and no page raises."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from app_helpers import PAGES, open_page, page_text


@pytest.fixture
def damaged_store(monkeypatch, tmp_path, _finished_runs):
    src, ids = _finished_runs
    root = tmp_path / "runs"
    shutil.copytree(src, root, symlinks=True)
    good = root / ids[0]

    def clone(name: str):
        shutil.copytree(good, root / name)
        status = json.loads((root / name / "status.json").read_text())
        status["created"] = status["created"] + 100  # newest: the pages' default selection
        (root / name / "status.json").write_text(json.dumps(status))
        return root / name

    (clone("bad-partition") / "partition.json").write_text(json.dumps({"counts": "many"}))
    (clone("bad-status") / "status.json").write_text(json.dumps(["finished"]))
    (clone("bad-metrics") / "metrics.jsonl").write_text('{"round": 1}\n')
    (clone("bad-config") / "config.json").write_text(json.dumps("fedavg"))
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(good, elsewhere)
    os.symlink(elsewhere, root / "linked")
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(root))
    return root, ids


DAMAGED = ["bad-partition", "bad-status", "bad-metrics", "bad-config", "linked"]


def test_service_lists_damaged_runs_and_keeps_the_good_ones(damaged_store):
    from app import service

    root, ids = damaged_store
    table = service.runs_table()
    states = dict(zip(table["run_id"], table["state"]))
    assert all(states[name] == "damaged" for name in DAMAGED), states
    assert [states[r] for r in ids] == ["finished", "finished"]
    errors = dict(zip(table["run_id"], table["error"]))
    assert "'counts'" in errors["bad-partition"] and "symbolic link" in errors["linked"]
    usable, note = service.without_damaged(table)
    assert sorted(usable["run_id"]) == sorted(ids) and all(name in note for name in DAMAGED)


@pytest.mark.parametrize("page", PAGES)
def test_every_page_keeps_working_with_damaged_runs(damaged_store, page):
    at = open_page(page)
    assert not at.exception, at.exception
    text = page_text(at)
    if page == "views/runs.py":
        for name in DAMAGED:
            assert name in text
        assert "damaged" in text and "symbolic link" in text
    elif page in ("views/live.py", "views/geometry.py", "views/embeddings.py", "views/clients.py"):
        assert "Skipped 5 damaged run(s)" in text, text[:2000]


def test_runs_page_details_of_a_damaged_run_say_why(damaged_store):
    at = open_page("views/runs.py")
    at.selectbox(key="r_run").set_value("bad-status").run()
    assert not at.exception, at.exception
    assert any("status.json holds an array" in e.value for e in at.error), [e.value for e in at.error]
