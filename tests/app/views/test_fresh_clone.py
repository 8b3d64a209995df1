"""A fresh clone (no runs of one's own, the recorded studies only): Live, Embeddings and Geometry
open on the recorded FedAvg-vs-FedQuad pair the Lesson uses (its study of the global model,
fmnist-skew, at its smallest α, lowest seed; same partition and seed, side by side) and say so, not on
whichever recorded run is newest; with only the older digits-alpha study shipped, on its pair."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN
from lesson_helpers import write_root, write_run

PAIR = ["skew-fedavg-0.1-s0", "skew-fedquad-0.1-s0"]


@pytest.fixture
def fresh_clone(monkeypatch, tmp_path):
    root = write_root(tmp_path / "recorded")  # digits-alpha: its pair is only the fall-back
    write_root(root, "fmnist-skew", prefix="skew")
    # a newer recorded group of another study (what the pages opened on before): not the pair
    for method in ("fedquad", "fedavg"):
        write_run(root, f"other-{method}", None, method, 0)
        status = json.loads((root / f"other-{method}" / "status.json").read_text())
        status.update(created=1764999999.0, group="g-other")
        (root / f"other-{method}" / "status.json").write_text(json.dumps(status))
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    return root


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def says_pair(at: AppTest) -> bool:
    return any("recorded pair the Lesson uses" in c.value and "α = 0.1" in c.value for c in at.caption)


def test_the_pair_is_the_lessons_study_of_the_global_model():
    from app import service
    from app.lesson import data

    assert service.PAIR_STUDIES[0] == data.ROLES["global"]


def test_without_the_lessons_study_the_digits_pair_is_shown(monkeypatch, tmp_path):
    root = write_root(tmp_path / "recorded")
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(root))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = open_page("views/live.py")
    assert list(at.multiselect(key="v_runs").value) == ["rec-fedavg-0.1-s0", "rec-fedquad-0.1-s0"]
    assert says_pair(at)


@pytest.mark.parametrize("page,key", [("views/live.py", "v_runs"), ("views/geometry.py", "g_runs")])
def test_run_pages_open_on_the_lesson_pair(fresh_clone, page, key):
    at = open_page(page)
    assert list(at.multiselect(key=key).value) == PAIR
    assert says_pair(at)


def test_embeddings_opens_on_the_pair_side_by_side(fresh_clone):
    at = open_page("views/embeddings.py")
    assert [at.selectbox(key="e_left").value, at.selectbox(key="e_right").value] == PAIR
    assert says_pair(at)


def test_own_runs_replace_the_pair(fresh_clone, tmp_path):
    write_run(tmp_path / "runs", "mine-fedavg", 0.5, "fedavg", 0)
    at = open_page("views/live.py")
    assert list(at.multiselect(key="v_runs").value) == ["mine-fedavg"]
    assert not says_pair(at)
