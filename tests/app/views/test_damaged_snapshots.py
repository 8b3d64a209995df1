"""Damaged snapshot and UMAP files (docs/reliability.md): random bytes or a pickled object array
in a snapshot ``.npz`` or a ``umap_round_*.npy`` (never unpickled), and a stray
``embeddings/round_abc.npz``. Embeddings, Geometry and Lesson steps 4 and 6 show the other rounds and
runs with a one-line notice naming the damaged file, never an exception box; nothing is written."""
from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, open_page, page_text
from lesson_helpers import ROUNDS, write_lesson_root


def _pickled_object_array() -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    return buf.getvalue()


def _pickled_npz() -> bytes:
    buf = io.BytesIO()
    np.savez(buf, embeddings=np.array([object()] * 3, dtype=object), labels=np.arange(3))
    return buf.getvalue()


def _damage(root):
    """Every run's last snapshot and its UMAP layout damaged (alternating kinds), a stray name in each."""
    runs = sorted(p for p in root.iterdir() if (p / "embeddings").is_dir())
    for i, run in enumerate(runs):
        emb = run / "embeddings"
        (emb / f"round_{ROUNDS:04d}.npz").write_bytes(np.random.default_rng(i).bytes(300) if i % 2 else _pickled_npz())
        (emb / f"umap_round_{ROUNDS:04d}.npy").write_bytes(_pickled_object_array() if i % 2 else b"\x93NUMPY garbage")
        (emb / "round_abc.npz").write_bytes(b"stray")
    return [r.name for r in runs]


def _tree(path):
    return sorted((str(p.relative_to(path)), p.stat().st_mtime_ns) for p in path.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def _roots(tmp_path_factory):
    base = tmp_path_factory.mktemp("damaged-snapshots")
    recorded = write_lesson_root(base / "recorded")
    _damage(recorded)
    mine = base / "runs"
    shutil.copytree(recorded, mine)
    shutil.rmtree(mine / "studies")
    return recorded, mine


@pytest.fixture
def roots(monkeypatch, _roots):
    recorded, mine = _roots
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(recorded))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(mine))
    before = _tree(recorded), _tree(mine)
    yield recorded, mine
    assert _tree(recorded) == before[0], "a page wrote into the read-only recorded root"
    # in the user's own runs a UMAP page may ask for a readable round's layout (its normal job), but
    # no file that was there, damaged ones included, is changed or deleted; the UMAP worker's own
    # bookkeeping (``.umap_round_NNNN.pending`` / ``.log``) is left out: a worker an earlier step
    # started may finish, and remove or rewrite them, while this step runs
    def data(tree):
        return {(name, t) for name, t in tree if not Path(name).name.startswith(".umap_")}

    assert data(before[1]) <= data(_tree(mine)), "a page changed or deleted a file"


def test_the_store_ignores_stray_names_and_names_each_damaged_file(roots):
    from fedquad_core.runs.store import DamagedRun, RunStore

    recorded, _ = roots
    store = RunStore(recorded)
    run_id = store.run_ids()[0]
    assert store.snapshot_rounds(run_id) == [1, 2, 4]  # round_abc.npz is not a snapshot
    assert store.snapshot_rounds(run_id, readable=True) == [1, 2]
    notes = store.snapshot_damage(run_id)
    assert len(notes) == 2 and "round_0004.npz" in notes[0] and "umap_round_0004.npy" in notes[1], notes
    with pytest.raises(DamagedRun, match="round_0004.npz cannot be read"):
        store.read_snapshot(run_id, 4)
    with pytest.raises(DamagedRun, match="umap_round_0004.npy"):
        store.read_layout(run_id, 4)


@pytest.mark.parametrize("page", ["views/embeddings.py", "views/geometry.py"])
def test_pages_show_the_other_rounds_and_a_notice(roots, page):
    at = open_page(page)
    assert not at.exception, at.exception
    text = page_text(at)
    assert "Damaged, left out" in text and "round_0004.npz" in text, text[:1500]
    assert len([w for w in at.warning if "Damaged, left out" in w.value]) == 1  # one line, not one per file


def test_embeddings_in_umap_mode_fall_back_without_an_exception(roots):
    at = open_page("views/embeddings.py")
    at.segmented_control(key="e_proj").set_value("UMAP").run()
    assert not at.exception, at.exception
    assert at.segmented_control(key="e_proj").value == "UMAP"
    assert len([w for w in at.warning if "Damaged, left out" in w.value]) == 1  # the damaged round named, once
    assert at.get("plotly_chart"), "no picture of the other rounds"


@pytest.mark.parametrize("step", [4])  # the step that draws snapshots (spectra); step 6 draws response plots only
def test_lesson_steps_with_damaged_snapshots(roots, step):
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.switch_page("views/lesson.py")
    at.query_params["step"] = str(step)
    at.run()
    assert not at.exception, at.exception
    assert at.header[0].value.startswith(f"{step} ·")
    notices = [w.value for w in at.warning]
    assert any("round_0004.npz" in n for n in notices), notices


def test_explore_names_damaged_study_files_and_shows_the_others(recorded_root, tmp_path):
    studies = tmp_path / "runs" / "studies"
    studies.mkdir(parents=True)
    (studies / "broken.json").write_text("{")
    (studies / "folder.json").mkdir()
    (studies / "no-points.json").write_text('{"axes": {"seed": [0]}}')
    (studies / "bad name.json").write_text("{")  # not a study name: ignored
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.switch_page("views/explore.py").run()
    assert not at.exception, at.exception
    # markdown-escaped (app/plain.py): a reason quotes the file; every damaged study is named
    notes = [w.value.replace("\\", "") for w in at.warning if w.value.startswith("Damaged studies, left out")]
    assert len(notes) == 1 and "study broken is damaged" in notes[0] and "and 1 more (no-points)" in notes[0], notes
    assert "bad name" not in notes[0]
    assert at.title[0].value == "Explore" and at.selectbox  # the recorded studies are still there


def test_snapshots_that_lie_about_their_size_cost_only_themselves(monkeypatch, tmp_path):
    """A 500-byte snapshot whose header claims a 364 TiB array took the Embeddings page down for
    every user ("Unable to allocate 364 TiB"), and a half-megabyte one that unpacks to 512 MB passed
    as undamaged (issue 47): both are named, and the page shows the other rounds."""
    from planted import bomb, liar

    recorded = write_lesson_root(tmp_path / "recorded")
    runs = sorted(p for p in recorded.iterdir() if (p / "embeddings").is_dir())
    for i, run in enumerate(runs):
        (run / "embeddings" / f"round_{ROUNDS:04d}.npz").write_bytes(liar() if i % 2 == 0 else bomb())
        (run / "embeddings" / f"umap_round_{ROUNDS:04d}.npy").unlink(missing_ok=True)
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(recorded))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = open_page("views/embeddings.py")
    assert not at.exception, at.exception
    text = page_text(at)
    assert "Damaged, left out" in text and f"round_{ROUNDS:04d}.npz cannot be read" in text, text[:1500]
    assert "allocate" not in text and "MemoryError" not in text
