"""The lesson's steps as data: the sentences state numbers computed from the data shown (change the
data, the sentences follow), missing runs give a message instead of an exception."""
from __future__ import annotations

import math
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from app.lesson import steps as lesson
from app.lesson.data import LessonData, load, read_studies, study_from_runs
from lesson_helpers import write_lesson_root, write_root


@pytest.fixture(scope="module")
def two_roots(tmp_path_factory):
    base = tmp_path_factory.mktemp("steps")
    return write_lesson_root(base / "a"), write_lesson_root(base / "b", acc_scale=0.7)


def data_of(root) -> LessonData:
    studies = {s["name"]: s for s in read_studies(root)}
    return LessonData(root, studies["digits-local"], "recorded", studies=studies)


@pytest.mark.parametrize("i", range(1, len(lesson.STEPS) + 1))
def test_every_step_builds(two_roots, i):
    c = lesson.build_step(i, data_of(two_roots[0]))
    assert c.problem is None, c.problem
    assert "nan" not in " ".join(c.sentences + [c.footer]).split()
    assert 2 <= len(c.sentences) <= 4 and 1 <= len(c.figures) <= 3
    assert c.footer


def test_sentences_follow_the_data(two_roots):
    a, b = (lesson.build_step(4, data_of(r)) for r in two_roots)
    assert a.sentences != b.sentences
    # each run's value as the claims table takes it: the mean of its last 3 snapshots (issue 33: the lesson
    # printed final-round values where the table printed last-k means for the same quantity)
    d = data_of(two_roots[1]).role("global")
    ranks = [np.mean([x["effective_rank"] for x in d.metrics(r) if x.get("effective_rank") is not None][-3:])
             for r in d.runs(alpha=0.1, method="fedavg")]
    assert f"{np.mean(ranks):.2f} ± {np.std(ranks, ddof=1):.2f} at α=0.1" in b.sentences[0]
    d = data_of(two_roots[0]).role("local")
    own = [np.mean([x["local_acc_own"] for x in d.metrics(r) if x.get("local_acc_own") is not None][-3:])
           for r in d.runs(alpha=0.1, method="fedavg", local_epochs=5)]
    assert f"{100 * np.mean(own):.1f} ± {100 * np.std(own, ddof=1):.1f} %" in lesson.build_step(2, data_of(two_roots[0])).sentences[1]


def test_matched_levels_lie_in_the_range_every_compared_run_crosses(two_roots):
    d = data_of(two_roots[1]).role("global")
    curves = []
    for a in (d.skew_alpha(), d.iid_alpha()):
        for r in d.runs(alpha=a, method="fedavg"):
            curves.append([x["test_accuracy"] for x in d.metrics(r) if x.get("effective_rank") is not None])
    lo, hi = max(c[0] for c in curves), min(max(c) for c in curves)
    c = lesson.build_step(4, data_of(two_roots[1]))
    shown = [float(x) / 100 for x in re.findall(r"(\d+\.\d)%", c.footer.split("matched accuracy levels")[1])]
    assert len(shown) == 3 and all(lo - 1e-3 <= x <= hi + 1e-3 for x in shown), (lo, hi, shown)
    assert all(f"at {100 * x:.1f}%" in c.sentences[1] for x in shown)


def test_step_seven_states_the_verdicts_it_computes(two_roots):
    c = lesson.build_step(7, data_of(two_roots[0]))
    # the fixture gives both methods the same accuracy at IID only, seed by seed: shown equal within ±1 point
    assert "IID: " in c.sentences[2] and c.sentences[2].split("IID: ")[1].count("negligible: inside ±1 point") == 1
    # α=0.1 is a comparison the claims table makes (row 12): its verdict, not a second one; α=1 is not in the table
    before = c.sentences[2].split("IID: ")[0]
    assert before.count("beyond seed noise") == 1 and "the claims table, row 12" in before.split("α=1: ")[0]


def test_missing_run_gives_a_message(tmp_path):
    root = write_lesson_root(tmp_path / "r")
    shutil.rmtree(root / "skew-fedquad-0.1-s0")
    c = lesson.build_step(7, data_of(root))  # the price: needs FedQuad at the skew alpha, seed 0
    assert c.problem and "method=fedquad" in c.problem and not c.figures


def test_missing_recorded_study_names_it(tmp_path):
    root = write_lesson_root(tmp_path / "r")
    (root / "studies" / "digits-local.json").unlink()
    studies = {s["name"]: s for s in read_studies(root)}
    d = LessonData(root, studies["fmnist-skew"], "recorded", studies=studies)
    c = lesson.build_step(2, d)
    assert c.problem and "digits-local" in c.problem and "record_studies.py" in c.problem
    assert lesson.build_step(4, d).problem is None


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
    d = LessonData(root, study, "my")
    c = lesson.build_step(4, d)
    assert c.problem is None and "α=0.3" in c.sentences[0]
    c = lesson.build_step(2, d)
    assert c.problem and "no local-model metrics" in c.problem
    c = lesson.build_step(6, d)  # without local metrics: the global side only
    assert c.problem is None and not c.sentences[0].startswith("Locally")


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


@pytest.mark.parametrize("full, short", [
    ("robust", "robust"),
    ("not robust: the test before Holm's correction gives supported; the final round alone gives supported",
     "no: before Holm, final round"),
    ("not robust: ± 2 std bands give inconclusive; its study is still climbing (+1.2 points over its last 10 rounds)",
     "no: ± 2 std, not at a plateau"),
    ("not robust: a reason with no short name", "no: a reason with no short name"),
])
def test_the_deck_names_why_a_row_is_not_robust(full, short):
    """Step 8's compact table names every disagreeing check (a bare 'no:' hid the plateau's)."""
    assert lesson._short_robustness(full) == short
