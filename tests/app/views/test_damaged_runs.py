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
    huge = int("9" * 400)  # no float holds it: OverflowError tracebacks on Live and Geometry before

    def edit(path, **change):
        path.write_text(json.dumps({**json.loads(path.read_text()), **change}))

    edit(clone("huge-lr") / "config.json", lr=huge)
    edit(clone("unknown-data") / "config.json", dataset="mnist")
    edit(clone("round-1e30") / "status.json", round=10**30)
    rows = (clone("huge-metric") / "metrics.jsonl").read_text().splitlines()
    rows[0] = json.dumps({**json.loads(rows[0]), "train_loss": huge})
    (root / "huge-metric" / "metrics.jsonl").write_text("\n".join(rows) + "\n")
    part = json.loads((good / "partition.json").read_text())
    edit(clone("classes-vs-rows") / "partition.json", num_classes=part["num_classes"] + 1)
    (clone("metrics-loop") / "metrics.jsonl").unlink()
    os.symlink("m2", root / "metrics-loop" / "metrics.jsonl")
    os.symlink("metrics.jsonl", root / "metrics-loop" / "m2")
    studies = root / "studies"
    studies.mkdir(exist_ok=True)
    point = {"key": "0" * 16, "run_id": ids[0]}
    for name, study in {"no-points": {"axes": {"seed": [0]}, "points": []},
                        "alpha-dict": {"axes": {"alpha": [{"a": 1}]}, "points": [{**point, "coords": {"alpha": {"a": 1}}}]},
                        "coords-list": {"axes": {"seed": [0]}, "points": [{**point, "coords": {"seed": [0, 1]}}]}}.items():
        (studies / f"{name}.json").write_text(json.dumps({"name": name, "engine": "x", "created": 0, "base": {}, **study}))
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(good, elsewhere)
    os.symlink(elsewhere, root / "linked")
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(root))
    return root, ids


DAMAGED = ["bad-partition", "bad-status", "bad-metrics", "bad-config", "linked", "huge-lr", "unknown-data", "round-1e30",
           "huge-metric", "classes-vs-rows", "metrics-loop"]
DAMAGED_STUDIES = ["no-points", "alpha-dict", "coords-list"]


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
        assert f"Skipped {len(DAMAGED)} damaged run(s)" in text, text[:2000]
    if page in ("views/explore.py", "views/clients.py"):
        shown = text.replace("\\", "")  # markdown-escaped notes (app/plain.py)
        assert all(name in shown for name in DAMAGED_STUDIES), text[:3000]


def test_runs_page_details_of_a_damaged_run_say_why(damaged_store):
    at = open_page("views/runs.py")
    at.selectbox(key="r_run").set_value("bad-status").run()
    assert not at.exception, at.exception
    # shown as text: the line is markdown-escaped (app/plain.py), so its backslashes are not shown
    assert any("status.json holds an array" in e.value.replace("\\", "") for e in at.error), [e.value for e in at.error]


def test_a_run_name_is_shown_as_text_not_markdown(damaged_store):
    """A run's name is whatever its author typed: on the Runs page it shows as typed, never as
    bold text, a link or a coloured directive."""
    import re

    from app.plain import md_text

    root, ids = damaged_store
    name = "**bold** [link](http://example.invalid) :red[red] `code` <b>x</b>"
    path = root / ids[0] / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "name": name}))
    at = open_page("views/runs.py")
    at.selectbox(key="r_run").set_value(ids[0]).run()
    assert not at.exception, at.exception
    shown = [h.value for h in at.subheader if h.value.replace("\\", "") == name]
    assert shown == [md_text(name)], [h.value for h in at.subheader]
    assert not re.search(r"(?<!\\)[*\[\]():`<>]", shown[0]), shown  # every markdown character escaped
