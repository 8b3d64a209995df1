"""The lesson's steps as data: the sentences state numbers computed from the data shown (change the
data, the sentences follow), missing runs give a message instead of an exception."""
from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from app.lesson import steps as lesson
from app.lesson import text as lesson_text
from app.figures import study as sf
from app.lesson.data import LessonData, alpha_label, load, read_studies, study_from_runs
from lesson_helpers import write_root


@pytest.fixture(scope="module")
def two_roots(tmp_path_factory):
    base = tmp_path_factory.mktemp("steps")
    return write_root(base / "a"), write_root(base / "b", acc_scale=0.7)


def data_of(root) -> LessonData:
    return LessonData(root, read_studies(root)[0])


@pytest.mark.parametrize("i", range(1, 8))
def test_every_step_builds(two_roots, i):
    c = lesson.build_step(i, data_of(two_roots[0]))
    assert c.problem is None, c.problem
    assert "nan" not in " ".join(c.sentences + [c.footer])
    assert 2 <= len(c.sentences) <= 4 and 1 <= len(c.figures) <= 3
    assert c.footer


def test_accuracy_sentences_follow_the_data(two_roots):
    a, b = (lesson.build_step(2, data_of(r)) for r in two_roots)
    assert a.sentences != b.sentences
    d = data_of(two_roots[1])
    finals = [d.final(r, "test_accuracy") for r in d.runs(alpha=None, method="fedavg")]
    assert f"{np.mean(finals):.1%} ± {np.std(finals, ddof=1):.1%}" in b.sentences[0]


def test_skew_sentences_by_hand():
    iid = np.full((4, 10), 5)
    skew = np.zeros((4, 10), int)
    skew[0, :2] = 7      # 2 classes
    skew[1, :1] = 9      # 1 class
    skew[2, :5] = 3      # 5 classes
    skew[3, :4] = 1      # 4 classes
    s = lesson_text.skew_sentences(iid, skew, 0.1)
    assert "holds 10.0 classes on average, with α=0.1 only 3.0" in s[0]
    assert "2 of 4 clients hold fewer than 3 classes (IID: 0)" in s[1]
    skew[1, :3] = 9
    assert "1 of 4 clients holds fewer than 3 classes" in lesson_text.skew_sentences(iid, skew, 0.1)[1]


def test_price_sentences_by_hand():
    s = lesson_text.price_sentences({"fedavg": (100, 2.0), "fedquad": (150, 5.0)}, 3, 10, ["IID"], ["α=0.1", "IID"], 0.1)
    assert "1.50× the samples and 2.50× the time" in s[0] and "3 of 10 clients hold" in s[1]
    assert "overlap at IID" in s[2] and "every α" not in s[2]
    s = lesson_text.price_sentences({"fedavg": (100, 2.0), "fedquad": (150, 5.0)}, 3, 10, ["α=0.1", "IID"],
                                    ["α=0.1", "IID"], 0.1)
    assert "overlap at every α shown" in s[2]
    s = lesson_text.price_sentences({"fedavg": (100, 2.0), "fedquad": (150, 5.0)}, 3, 10, [], ["IID"], 0.1, n_seeds=1)
    assert "only one seed" in s[2]
    s = lesson_text.price_sentences({"fedavg": (100, 2.0), "fedquad": (100, 2.0)}, 0, 10, [], ["IID"], 0.1)
    assert "do not overlap" in s[2]


def test_step_seven_states_the_overlap_it_computes(two_roots):
    d = data_of(two_roots[0])
    c = lesson.build_step(7, d)
    overlap = [alpha_label(a) for a in sf.band_overlaps(lesson.response(d, "final_acc"), "alpha", "final_acc")]
    assert overlap == ["IID"]  # the fixture gives both methods the same accuracy at IID only
    assert (f"overlap at {', '.join(overlap)}" in c.sentences[2]) if overlap else ("do not overlap" in c.sentences[2])


def test_missing_run_gives_a_message(tmp_path):
    root = write_root(tmp_path / "r", alphas=(1.0, None))
    shutil.rmtree(root / "rec-fedquad-1.0-s0")
    d = data_of(root)
    c = lesson.build_step(6, d)  # needs FedQuad at the skew alpha (1.0 here), seed 0
    assert c.problem and "method=fedquad" in c.problem and not c.figures


def test_load_says_what_to_run(monkeypatch, tmp_path):
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "none"))
    assert load(False)[0] is None and "record_studies.py" in load(False)[1]
    assert load(True)[0] is None and "fedavg" in load(True)[1].lower()


def test_my_runs_without_a_study(tmp_path):
    root = write_root(tmp_path / "runs", alphas=(0.3, None))
    shutil.rmtree(root / "studies")
    study = study_from_runs(root)
    assert study["axes"] == {"alpha": [0.3, None], "method": ["fedavg", "fedquad"], "seed": [0, 1]}
    c = lesson.build_step(3, LessonData(root, study, "my"))
    assert c.problem is None and "α=0.3" in c.sentences[1]


def test_verdicts_follow_the_numbers():
    assert lesson_text.collapse_sentences(0.2, 0.6, 0.1, 30, 30)[1].endswith("that is collapse.")
    assert lesson_text.collapse_sentences(0.5, 0.55, 0.1, 30, 30)[1].endswith("a mild effect in this data.")
    assert lesson_text.collapse_sentences(0.5, 0.45, 0.1, 30, 30)[1].endswith("no collapse in this data.")
    assert "costs 20.0 points" in lesson_text.accuracy_sentences([0.9, 0.9], [0.7, 0.7], 0.1, 30)[1]
    assert "costs FedAvg no accuracy" in lesson_text.accuracy_sentences([0.7], [0.8], 0.1, 30)[1]


def test_animation_frames_keep_one_scale_however_much_the_layouts_differ():
    """Chained Procrustes fits a scale < 1 between unrelated layouts; the frames are rescaled to
    one spread so the last frame is not a dot in the corner of the first frame's range."""
    import numpy as np

    from app.lesson.figures import unit_spread
    from app.projection.maths import procrustes_align

    rng = np.random.default_rng(0)
    prev = unit_spread(rng.normal(size=(200, 2)))
    for _ in range(10):
        raw = procrustes_align(rng.normal(size=(200, 2)), prev)  # unrelated layouts: scale well below 1
        assert np.sqrt((raw ** 2).sum(axis=1).mean()) < 0.5
        prev = unit_spread(raw)
        assert abs(np.sqrt(((prev - prev.mean(axis=0)) ** 2).sum(axis=1).mean()) - 1) < 1e-5
