"""Damaged entries under <root>/studies (docs/reliability.md): `study list` names each damaged
file with its reason and goes on with the others; `show` and `run` refuse it in one line (exit 2),
never "no study" for a file that is there and never a traceback; a stray file whose name is not a
study name is ignored. Nothing is written or deleted."""
from __future__ import annotations

import json

import pytest

from fedquad_core.cli import main
from fedquad_core.runs.store import RunStore
from fedquad_core.study.store import StudyStore, finished_runs


def _study(name: str, **change) -> dict:
    study = {"name": name, "title": f"{name} title", "axes": {"seed": [0, 1]}, "base": {"method": "fedavg"},
             "engine": "x", "created": 0,
             "points": [{"coords": {"seed": s}, "key": f"{s:016x}", "run_id": None} for s in (0, 1)]}
    study.update(change)
    return study


def _point(**change) -> list:
    return [{"coords": {"seed": 0}, "key": "0" * 16, "run_id": None, **change}]


# name -> (what to put at studies/<name>.json, words of the reason)
DAMAGES = {
    "no-points": (json.dumps({k: v for k, v in _study("no-points").items() if k != "points"}), "has no 'points'"),
    "run-id-list": (json.dumps(_study("run-id-list", points=_point(run_id=["a"]))), "'run_id' is an array"),
    "coords-list": (json.dumps(_study("coords-list", points=_point(coords=[0]))), "'coords' is an array"),
    "not-utf8": (b'{"name": "\xff"}', "not UTF-8"),
    "brace": ("{", "not valid JSON"),
    "title-number": (json.dumps(_study("title-number", title=5)), "'title' is 5, not a string"),
    "axes-list": (json.dumps(_study("axes-list", axes=["seed"])), "'axes' is an array"),
    "x": (None, "is a folder"),  # a directory named x.json
    # what took `study show` and the Explore page down (IndexError, TypeError): now named as damage
    "empty-points": (json.dumps(_study("empty-points", points=[])), "holds no points"),
    "alpha-dict": (json.dumps(_study("alpha-dict", axes={"alpha": [{"a": 1}]},
                                     points=[{"coords": {"alpha": {"a": 1}}, "key": "0" * 16, "run_id": None}])),
                   "axis 'alpha' holds {'a': 1}"),
    "alpha-negative": (json.dumps(_study("alpha-negative", axes={"alpha": [-1.0]},
                                         points=[{"coords": {"alpha": -1.0}, "key": "0" * 16, "run_id": None}])),
                       "not an alpha above 0"),
    "empty-axis": (json.dumps(_study("empty-axis", axes={"seed": []})), "axis 'seed' has no values"),
    "coords-value-list": (json.dumps(_study("coords-value-list", points=_point(coords={"seed": [0, 1]}))),
                          "point 1's 'seed' is [0, 1]"),
    "huge-seed": ('{"name": "huge-seed", "axes": {"seed": [1]}, "points": [{"coords": {"seed": ' + "9" * 400
                  + '}, "key": "0000000000000000", "run_id": null}]}', "not a finite number"),
}


def _tree(path):
    return sorted((str(p.relative_to(path)), p.is_dir() or p.stat().st_size) for p in path.rglob("*"))


@pytest.fixture
def root(tmp_path):
    studies = StudyStore(tmp_path / "runs")
    studies.write(_study("good-a"))
    studies.write(_study("good-b"))
    for name, (content, _) in DAMAGES.items():
        path = studies.folder / f"{name}.json"
        if content is None:
            path.mkdir()
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    (studies.folder / "bad name.json").write_text("{}")  # a stray file: not a study name
    (studies.folder / ".hidden.json").write_text("{")
    return studies.root


def test_study_list_names_each_damaged_file_and_goes_on(root, capsys):
    before = _tree(root)
    assert main(["study", "list", "--runs-dir", str(root)]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and err == ""
    rows = {line.split()[0]: line for line in out.splitlines()[2:] if not line.startswith("damaged ")}
    assert {"good-a", "good-b"} <= set(rows) and "bad" not in rows and ".hidden" not in rows
    for name, (_, reason) in DAMAGES.items():
        assert "damaged" in rows[name], rows[name]
        line = next(l for l in out.splitlines() if l.startswith(f"damaged {name}:"))
        assert reason in line, line
    assert _tree(root) == before  # nothing written or deleted


@pytest.mark.parametrize("name", list(DAMAGES))
@pytest.mark.parametrize("command", ["show", "run"])
def test_show_and_run_refuse_a_damaged_study_in_one_line(root, capsys, name, command):
    before = _tree(root)
    extra = ["--grid", "seed=0,1", "--rounds", "1", "--clients", "6", "--quiet"] if command == "run" else []
    assert main(["study", command, name, "--runs-dir", str(root), *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"study {name} is damaged" in err and DAMAGES[name][1] in err and "no study" not in err, err
    assert _tree(root) == before


def test_resume_of_a_damaged_study_is_refused_in_one_line(root, capsys):
    assert main(["study", "run", "brace", "--runs-dir", str(root)]) == 2
    assert "study brace is damaged" in capsys.readouterr().err


def test_the_apis_reader_of_studies_names_each_damaged_file_once_and_reads_the_others(root):
    """``api.study_view(root).studies()``, the dashboard's one reader of every study: the good ones read, each
    damaged one named in one line with its reason, the stray files ignored, nothing written."""
    from fedquad_core import api
    before = _tree(root)
    studies, damaged = api.study_view(root).studies()
    assert sorted(studies) == ["good-a", "good-b"] and studies["good-a"]["title"] == "good-a title"
    assert len(damaged) == len(DAMAGES)
    for name, (_, reason) in DAMAGES.items():
        line = next(l for l in damaged if l.startswith(f"study {name} "))
        assert reason in line and "\n" not in line, line
    assert _tree(root) == before


def test_a_damaged_status_is_no_finished_run(tmp_path):
    store = RunStore(tmp_path)
    for run_id, status in (("bytes", b"\xff"), ("listed", b"[1]"), ("key-list", b'{"state": "finished", "key": [1]}')):
        (tmp_path / run_id).mkdir()
        (tmp_path / run_id / "status.json").write_bytes(status)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "status.json").mkdir()
    assert finished_runs(store) == {}
