"""The one seed-noise decision (``study.table.compare``: Welch's test, ``study.stats``), runs at
matched accuracy and the claims table's verdicts, on small synthetic stores whose numbers are
chosen by hand."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fedquad_core.study import paper_claims as cl
from fedquad_core.study.matched import matched_accuracy
from fedquad_core.study.table import NO_DATA, NOISE, ONE_SEED, SEPARATED, compare, compare_summary
from fedquad_core.runs.store import RunStore

REPO = Path(__file__).resolve().parents[3]


def test_compare_by_hand():
    v = compare([1.0, 2.0, 3.0], [5.0, 6.0, 7.0])  # 2 ± 1 vs 6 ± 1
    assert v.state == SEPARATED and v.direction == -1 and v.mean_a == 2.0 and v.std_a == 1.0 and v.n_b == 3
    assert compare([5.0, 6.0, 7.0], [1.0, 2.0, 3.0]).direction == 1
    assert compare([1.0, 2.0, 3.0], [3.0, 4.0, 5.0]).state == NOISE
    assert compare([1.0, 2.0, 3.0], [3.0, 4.0, 5.0]).direction == 0
    # the ± 1 std bands miss each other, but with 3 seeds the 95 % interval of the difference
    # contains 0: by hand, diff -2.1, se = sqrt(1/3 + 1/3), df 4, t(0.975, 4) = 2.7764
    v = compare([1.0, 2.0, 3.0], [3.1, 4.1, 5.1])
    assert v.bands and v.state == NOISE and v.direction == 0
    assert v.test.diff == pytest.approx(-2.1) and v.test.df == pytest.approx(4.0)
    assert v.test.low == pytest.approx(-2.1 - 2.7764 * (2 / 3) ** 0.5, abs=1e-3)
    assert v.test.high == pytest.approx(-2.1 + 2.7764 * (2 / 3) ** 0.5, abs=1e-3)
    assert v.test.p == pytest.approx(0.0619, abs=5e-4)  # t = 2.572 on 4 df
    assert v.test.g == pytest.approx(0.8 * -2.1)  # pooled std 1, J = 1 - 3 / (4 * 6 - 9)
    assert "inconclusive with 3 seeds" in v.why() and "95 % CI -4.37 to 0.17" in v.why()
    assert compare([1.0], [5.0, 6.0]).state == ONE_SEED and compare([1.0], [5.0]).direction == 0
    assert compare([], [1.0, 2.0]).state == NO_DATA
    assert compare([1.0, None, float("nan"), 1.2], [3.0, 3.2]).n_a == 2  # missing values left out
    assert compare_summary(0.5, 0.0, 1, 0.9, 0.0, 1).state == ONE_SEED  # one seed's std 0 is no band
    assert compare([1.0, 2.0], [1.5, 1.6]).text(".1f") == ("1.5 ± 0.7", "1.6 ± 0.1")


@pytest.mark.parametrize("v, expect, verdict", [
    (compare([1, 2, 3], [5, 6, 7]), "below", cl.SUPPORTED),
    (compare([1, 2, 3], [5, 6, 7]), "above", cl.NOT_SUPPORTED),
    (compare([1, 2, 3], [2, 3, 4]), "above", cl.INCONCLUSIVE),
    (compare([1, 2, 3], [2, 3, 4]), "not below", cl.INCONCLUSIVE),
    (compare([5, 6, 7], [1, 2, 3]), "not below", cl.SUPPORTED),
    (compare([1, 2, 3], [5, 6, 7]), "not below", cl.NOT_SUPPORTED),
    (compare([1], [5, 6, 7]), "below", cl.ONE),
    (compare([], [5, 6, 7]), "below", cl.NOT_RUN),
])
def test_claim_verdicts(v, expect, verdict):
    assert cl.claim_verdict(v, expect) == verdict


def test_lowest_of_all():
    below, noise, above = compare([1, 2, 3], [5, 6, 7]), compare([1, 2, 3], [1.5, 2.5, 3.5]), compare([5, 6, 7], [1, 2, 3])
    assert cl.lowest_verdict([below, below]) == cl.SUPPORTED
    assert cl.lowest_verdict([below, noise]) == cl.INCONCLUSIVE
    assert cl.lowest_verdict([below, noise, above]) == cl.NOT_SUPPORTED  # p 0.0039 x 3 (Holm within the row)
    assert cl.lowest_verdict([]) == cl.NOT_RUN
    # one method below it with p = 0.03 alone refutes nothing once the row's 3 comparisons are counted
    weak = compare([5, 6], [1, 2])  # 2 seeds a side: p = 0.030
    assert weak.test.p == pytest.approx(0.0299, abs=1e-3)
    assert cl.lowest_verdict([weak]) == cl.NOT_SUPPORTED and cl.lowest_verdict([below, noise, weak]) == cl.INCONCLUSIVE


# ---- a synthetic store --------------------------------------------------------------------------
def _run(root: Path, run_id: str, curve: list[tuple[float, float]], extra: dict | None = None, state="finished"):
    """``curve``: (test accuracy, effective rank) per round, every round a snapshot."""
    folder = root / run_id
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"dataset": "digits"}))
    (folder / "status.json").write_text(json.dumps({"state": state, "key": run_id, "engine": "test"}))
    rows = [{"round": i + 1, "test_accuracy": acc, "effective_rank": rank, "ratio": 1.0 / rank, **(extra or {})}
            for i, (acc, rank) in enumerate(curve)]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _study(root: Path, name: str, points: list[tuple[dict, str]], axes: dict, base: dict | None = None):
    (root / "studies").mkdir(exist_ok=True)
    (root / "studies" / f"{name}.json").write_text(json.dumps(
        {"name": name, "axes": axes, "base": base or {}, "points": [{"coords": c, "run_id": r, "key": r} for c, r in points]}))


def skew_root(root: Path, fedquad_rank_gap: float, tail: int = 0) -> Path:
    """fmnist-skew: FedAvg learns slower and uses fewer directions under skew (at every accuracy);
    FedQuad's rank at skew is FedAvg's plus ``fedquad_rank_gap``; ``tail`` more rounds at the last
    values (flat: at a plateau on every measure)."""
    points = []
    for alpha in (0.1, None):
        for method in ("fedavg", "fedquad"):
            for seed in (0, 1, 2):
                jitter = 0.05 * seed
                if alpha is None:
                    curve = [(0.5, 6.0 + jitter), (0.8, 9.0 + jitter), (0.9, 9.5 + jitter)]
                else:
                    gap = fedquad_rank_gap if method == "fedquad" else 0.0
                    curve = [(0.3, 3.0 + jitter), (0.6, 5.0 + jitter + gap), (0.81, 6.0 + jitter + gap)]
                rid = f"{method}-{alpha}-{seed}"
                _run(root, rid, curve + [curve[-1]] * tail)
                points.append(({"alpha": alpha, "method": method, "seed": seed}, rid))
    _study(root, "fmnist-skew", points, {"alpha": [0.1, None], "method": ["fedavg", "fedquad"], "seed": [0, 1, 2]})
    return root


def test_matched_accuracy_by_hand(tmp_path):
    root = skew_root(tmp_path, 0.0)
    study = json.loads((root / "studies" / "fmnist-skew.json").read_text())
    m = matched_accuracy(RunStore(root), study)
    assert m.threshold == pytest.approx(0.81) and "lowest final accuracy" in m.how  # floor(81.0 %)
    iid = [r for r in m.rows if r["coords"]["alpha"] is None]
    skew = [r for r in m.rows if r["coords"]["alpha"] == 0.1]
    assert {r["round"] for r in iid} == {3} and {r["round"] for r in skew} == {3}  # 0.8 < 0.81 at round 2
    m = matched_accuracy(RunStore(root), study, threshold=0.6)
    assert {r["round"] for r in m.rows if r["coords"]["alpha"] is None} == {2}
    assert {r["effective_rank"] for r in m.rows if r["coords"]["alpha"] is None} == {9.0, 9.05, 9.1}
    m = matched_accuracy(RunStore(root), study, threshold=0.95)
    assert all(r["round"] is None for r in m.rows)
    g = next(g for g in m.groups() if g["method"] == "fedavg")
    assert g["reached"] == 0 and g["total"] == 3 and g["effective_rank_n"] == 0


def test_matched_accuracy_skips_unfinished_and_damaged(tmp_path):
    _run(tmp_path, "ok", [(0.5, 2.0), (0.7, 3.0)])
    _run(tmp_path, "failed", [(0.1, 1.0)], state="failed")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "status.json").write_text("{not json")
    study = {"points": [{"coords": {"seed": 0}, "run_id": r} for r in ("ok", "failed", "broken", None)]}
    m = matched_accuracy(RunStore(tmp_path), study)
    assert [r["run_id"] for r in m.rows] == ["ok"] and m.threshold == pytest.approx(0.7)


def _verdict(results, text):
    return next(r for r in results if r.text == text).verdict


def test_claims_follow_the_bands(tmp_path):
    mitigated = text = "FedQuad mitigates collapse in the global model"
    collapse = "Under label skew, the aggregated global embedding space collapses"
    res = cl.check_claims(skew_root(tmp_path / "a", 4.0, tail=20))  # at the lowest level still over δ = 0.5
    assert _verdict(res, collapse) == cl.SUPPORTED and _verdict(res, mitigated) == cl.SUPPORTED
    assert _verdict(res, "(the same, at the final round, accuracy not matched)") == cl.SUPPORTED
    # three rounds cannot show the arms flat: a row on the last rounds is never supported then
    short = next(r for r in cl.check_claims(skew_root(tmp_path / "short", 4.0))
                 if r.text == "(the same, at the final round, accuracy not matched)")
    assert short.verdict == cl.INCONCLUSIVE and "still changing on its own measure" in short.robustness
    res = cl.check_claims(skew_root(tmp_path / "b", 0.05))
    assert _verdict(res, mitigated) == cl.NEGLIGIBLE  # the same seeds, 0.05 apart at most: inside ±0.5
    res = cl.check_claims(skew_root(tmp_path / "b2", 2.0))  # 0.34 apart at the lowest level, 1.3-2.0 above
    row = next(r for r in res if r.text == mitigated)  # negligible at one level, supported at two: no verdict
    assert row.verdict == cl.INCONCLUSIVE and "negligible" in row.matched and "the levels disagree" in row.matched
    res = cl.check_claims(skew_root(tmp_path / "c", -4.0))
    assert _verdict(res, text) == cl.NOT_SUPPORTED
    row = next(r for r in res if r.text == collapse)
    assert "at matched accuracy (" in row.measure and "interpolated" in row.measure and "3 seeds" in row.numbers
    assert row.matched.count("%: ") == 3 and "not resolved" not in row.matched
    assert _verdict(res, "FedQuad is ahead of MOON in the paper's regime") == cl.NOT_RUN  # no fmnist-regime
    assert all(r.verdict == cl.NOT_RUN for r in res if r.text.startswith("Paper's result"))
    table = cl.claims_markdown(res)
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| #")]
    assert len(rows) == len(res) and "**supported**" in table
    assert all(line.count(" | ") == len(cl.COLUMNS) - 1 for line in rows)
    assert "Holm's correction runs over the" in table and "`fmnist-skew`: FedAvg, α=0.1: runs too short to tell" in table


def test_low_participation_claim_runs_when_a_study_has_it(tmp_path):
    points = []
    for method, accs in (("fedavg", (0.5, 0.52)), ("fedquad", (0.7, 0.72))):
        for seed, acc in enumerate(accs):
            _run(tmp_path, f"{method}{seed}", [(acc, 5.0)] * 24)  # flat: both arms at a plateau
            points.append(({"method": method, "seed": seed}, f"{method}{seed}"))
    _study(tmp_path, "tiny-part", points, {"method": ["fedavg", "fedquad"], "seed": [0, 1]}, {"participation": 0.05})
    assert _verdict(cl.check_claims(tmp_path), cl.PARTICIPATION_CLAIM) == cl.SUPPORTED


def test_cli_claims_and_matched(tmp_path):
    root = skew_root(tmp_path, 2.0)
    run = lambda *a: subprocess.run([sys.executable, "-m", "fedquad_core", "study", *a, "--runs-dir", str(root)],  # noqa: E731
                                    capture_output=True, text=True, cwd=REPO)
    out = run("claims")
    assert out.returncode == 0 and out.stdout.startswith("**Exploratory.**") and "\n| # | Claim" in out.stdout
    assert "**supported**" in out.stdout
    out = run("show", "fmnist-skew", "--matched-accuracy", "60")
    assert out.returncode == 0 and "test accuracy 60% (given)" in out.stdout
    bad = run("show", "fmnist-skew", "--matched-accuracy", "150")
    assert bad.returncode == 2 and "at most 1" in bad.stderr and "Traceback" not in bad.stderr
    missing = subprocess.run([sys.executable, "-m", "fedquad_core", "study", "claims", "--runs-dir",
                              str(tmp_path / "typo")], capture_output=True, text=True, cwd=REPO)
    assert missing.returncode == 2 and missing.stdout == "" and "no run store at" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1 and not (tmp_path / "typo").exists()


def test_less_trained_is_not_read_as_collapsed(tmp_path):
    """Rank follows accuracy alone (rank = 10 x accuracy), skew only trains slower: the final round
    shows a gap beyond noise, matched accuracy shows none. (IID's first snapshot is below the skewed
    runs' best accuracy, so there is a range of accuracy both cross between snapshots.)"""
    points = []
    for alpha, curve in ((0.1, [(0.3, 3.0), (0.6, 6.0), (0.81, 8.1)]),
                         (None, [(0.5, 5.0), (0.81, 8.1), (0.9, 9.0), (0.95, 9.5)])):
        for method in ("fedavg", "fedquad"):
            for seed in (0, 1, 2):
                rid = f"{method}-{alpha}-{seed}"
                tail = [curve[-1]] * 20  # flat: every arm at its plateau
                _run(tmp_path, rid, [(a + 0.001 * seed, r + 0.05 * seed) for a, r in curve + tail])
                points.append(({"alpha": alpha, "method": method, "seed": seed}, rid))
    _study(tmp_path, "fmnist-skew", points, {"alpha": [0.1, None], "method": ["fedavg", "fedquad"], "seed": [0, 1, 2]})
    res = cl.check_claims(tmp_path)
    # the last rounds show a gap beyond noise, but at matched accuracy there is none that matters:
    # less trained is not collapsed, so the row is not "supported", and says why
    row = next(r for r in res if r.text == "(the same, at the final round, accuracy not matched)")
    assert row.verdict == cl.INCONCLUSIVE and "the test before Holm's correction gives supported" in row.robustness
    assert "the comparison at matched accuracy has its estimate against the claim" in row.robustness
    # at matched accuracy the ranks are the same, seed by seed: shown equal within ±0.5
    assert _verdict(res, "Under label skew, the aggregated global embedding space collapses") == cl.NEGLIGIBLE


# ---- the statistics, by hand ---------------------------------------------------------------------
from fedquad_core.study import stats  # noqa: E402


def test_holm_by_hand():
    # sorted 0.01, 0.03, 0.04 of m = 3: x3 = 0.03, x2 = 0.06, x1 = 0.04 -> monotone 0.06
    adjusted = stats.holm([0.01, 0.04, None, 0.03])
    assert adjusted[2] is None
    assert [adjusted[i] for i in (0, 1, 3)] == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([0.5, 0.9]) == [1.0, 1.0]
    assert stats.holm([]) == []


def test_welch_edge_cases():
    assert stats.welch(1.0, 0.5, 1, 2.0, 0.5, 3) is None  # one seed: no spread to judge by
    exact = stats.welch(1.0, 0.0, 3, 2.0, 0.0, 3)  # no spread on either side: the difference is exact
    assert exact.low == exact.high == -1.0 and exact.p == 0.0 and exact.excludes_zero and exact.g is None
    same = stats.welch(1.0, 0.0, 3, 1.0, 0.0, 3)
    assert same.p == 1.0 and not same.excludes_zero


def test_first_crossing_interpolates_and_names_what_it_cannot():
    acc, val = [0.3, 0.6, 0.81], [3.0, 6.0, 8.1]
    assert stats.first_crossing(acc, val, 0.45) == pytest.approx(4.5)  # halfway between the first two
    assert stats.first_crossing(acc, val, 0.6) == pytest.approx(6.0)  # a snapshot at the level
    assert stats.first_crossing(acc, val, 0.9) is None  # never reached
    assert stats.first_crossing(acc, val, 0.2) is None  # reached before the first snapshot
    assert stats.first_crossing([0.3, 0.7, 0.5, 0.9], [1.0, 2.0, 9.0, 4.0], 0.6) == pytest.approx(1.75)  # first rise


def test_accuracy_levels_span_what_every_run_crosses():
    curves = [([0.3, 0.6, 0.81], [0, 0, 0]), ([0.5, 0.81, 0.95], [0, 0, 0])]
    levels = cl.accuracy_levels(curves)
    assert len(levels) == 3 and 0.5 < levels[0] < levels[1] < levels[2] < 0.81
    assert cl.accuracy_levels([([0.9], [0]), ([0.3, 0.8], [0, 0])]) == []  # no common range


def test_matched_levels_name_the_runs_they_cannot_resolve(tmp_path):
    root = skew_root(tmp_path, 2.0)
    study = json.loads((root / "studies" / "fmnist-skew.json").read_text())
    r = cl._Runs(RunStore(root), study)
    m = cl.matched_comparison(r, {"method": "fedavg", "alpha": 0.1}, {"method": "fedavg", "alpha": None},
                              "effective_rank", levels=[0.45, 0.85], label=cl._label)
    assert m.unresolved[0] and all("IID" in name for name in m.unresolved[0])  # IID starts at 0.5: before its first snapshot
    assert len(m.unresolved[1]) == 3 and all("α=0.1" in name for name in m.unresolved[1])  # skew never reaches 0.85
    assert "not resolved: " in m.text(cl._judge("below"))


def test_robustness_and_holm_can_turn_a_verdict(tmp_path):
    """Three seeds per side, FedAvg 0.50, 0.52, 0.54 and FedQuad 0.55, 0.59, 0.60: the same seeds,
    so a paired test of the differences 0.05, 0.07, 0.06 (one tested row: Holm changes nothing);
    the ± 2 std bands meet: supported, not robust, and the row says which check disagrees."""
    points = []
    for method, accs in (("fedavg", (0.50, 0.52, 0.54)), ("fedquad", (0.55, 0.59, 0.60))):
        for seed, acc in enumerate(accs):
            _run(tmp_path, f"{method}{seed}", [(acc, 5.0)] * 24)
            points.append(({"method": method, "seed": seed}, f"{method}{seed}"))
    _study(tmp_path, "fmnist-paper", points, {"method": ["fedavg", "fedquad"], "seed": [0, 1, 2]})
    res = cl.check_claims(tmp_path)
    row = next(r for r in res if r.text.startswith("FedQuad is ahead of FedAvg in the paper's regime"))
    # by hand: mean difference 0.06, sd 0.01, se 0.01 / sqrt(3), t = 10.39 on 2 df: p = 0.0091
    assert row.p == pytest.approx(0.00913, abs=5e-5) and row.study == "fmnist-paper"
    assert row.test == "paired t, 3 seeds" and row.difference.startswith("+6.0 %, 95 % CI 3.5 to 8.5 %")
    assert row.verdict == cl.SUPPORTED and row.p_holm == pytest.approx(row.p)
    assert row.robustness == "not robust: ± 2 std bands give inconclusive"
    assert "`fmnist-paper`: FedAvg: slope of the last 20 rounds +0.00 points per 10 rounds" in cl.claims_markdown(res)
    assert "plateau (the interval inside ±1 point per 10 rounds)" in cl.claims_markdown(res)


def _climbing_root(root: Path, per_round: float, swing: float = 0.0) -> Path:
    """fmnist-paper, FedAvg about 0.40 and FedQuad about 0.70 (3 seeds, 24 rounds), every run moving
    by ``per_round`` a round, seed 1 swinging by ``swing`` round to round."""
    points = []
    for method, base in (("fedavg", 0.40), ("fedquad", 0.70)):
        for seed in range(3):
            start = base + 0.02 * seed
            curve = [(start - 0.03 + per_round * i + (swing * (-1) ** i if seed == 1 else 0.0), 5.0) for i in range(24)]
            _run(root, f"{method}{seed}", curve)
            points.append(({"method": method, "seed": seed}, f"{method}{seed}"))
    _study(root, "fmnist-paper", points, {"method": ["fedavg", "fedquad"], "seed": [0, 1, 2]})
    return root


def test_a_study_still_climbing_is_not_supported(tmp_path):
    """The same clear difference (0.40-0.44 against 0.70-0.74, supported on a flat curve) read from
    runs that still gain 0.3 points a round: a comparison of the last rounds of arms still changing
    on the row's own measure is never "supported" (docs/verdicts.md); the row says why with each
    arm's slope, and the table marks it "still changing"."""
    res = cl.check_claims(_climbing_root(tmp_path, 0.003))
    row = next(r for r in res if r.text.startswith("FedQuad is ahead of FedAvg in the paper's regime"))
    assert row.verdict == cl.INCONCLUSIVE
    assert row.robustness == (
        "not robust: the test before Holm's correction gives supported; ± 2 std bands give supported; the final "
        "round alone gives supported; still changing on its own measure (FedQuad: slope +3.00 points per 10 rounds, "
        "95 % CI +3.00 to +3.00 (band ±1 point); FedAvg: slope +3.00 points per 10 rounds, 95 % CI +3.00 to +3.00 "
        "(band ±1 point))")
    assert "still changing (climbing" in row.plateau
    assert "| **inconclusive** (still changing) |" in cl.claims_markdown(res)


def test_the_plateau_rule_is_two_sided(tmp_path):
    """Issue 33: "gains under 1 point over the last 10 rounds" passed any fall. A study whose FedAvg
    loses 0.3 points a round, or swings by 5 points round to round on one seed, is still changing;
    a flat one is at its plateau."""
    from fedquad_core.study import plateau

    falling = cl.study_plateau(cl.StudyRuns(RunStore(root := _climbing_root(tmp_path / "f", -0.003)),
                                            json.loads((root / "studies" / "fmnist-paper.json").read_text())))
    assert falling[0] is False and "still changing (falling" in falling[1]
    swinging = cl.study_plateau(cl.StudyRuns(RunStore(root := _climbing_root(tmp_path / "s", 0.0, swing=0.05)),
                                             json.loads((root / "studies" / "fmnist-paper.json").read_text())))
    assert swinging[0] is False and "not shown flat" in swinging[1]
    flat = plateau.plateau([[0.8] * 24, [0.81] * 24, [0.79 + 0.0001 * (i % 2) for i in range(24)]])
    assert flat.reached and abs(flat.mean) < 1e-4
    assert not plateau.plateau([[0.8 - 0.003 * i for i in range(24)]] * 2).reached  # falling: 3 points per 10 rounds
    assert plateau.plateau([[0.8] * 12]) is None  # shorter than the window: cannot tell


def _methods_root(root: Path, intra: dict[str, tuple[float, float, float]]) -> Path:
    """fmnist-methods at α 0.3, three seeds a method, each run's intra-class distance flat over 14 rounds."""
    points = []
    for method, values in intra.items():
        for seed, value in enumerate(values):
            _run(root, f"{method}{seed}", [(0.6, 5.0)] * 14, extra={"intra_l2": value})
            points.append(({"alpha": 0.3, "method": method, "seed": seed}, f"{method}{seed}"))
    _study(root, "fmnist-methods", points, {"alpha": [0.3], "method": list(intra), "seed": [0, 1, 2]})
    return root


def test_runs_that_did_not_finish_are_named_not_dropped(tmp_path):
    """A MOON seed that diverged (its loss NaN in round 9) is left out of the numbers, and rows 10
    and 15 name it with its round; a study whose runs all finished names none."""
    root = _methods_root(tmp_path / "a", {"fedavg": (0.30, 0.33, 0.36), "moon": (0.40, 0.41, 0.42),
                                          "fedquad": (0.20, 0.21, 0.22)})
    status = root / "moon1" / "status.json"
    status.write_text(json.dumps({"state": "diverged", "diverged_round": 9, "key": "moon1", "engine": "test"}))
    rows = {r.text: r for r in cl.check_claims(root)}
    lowest, moon = rows["FedQuad has the lowest intra-class variance of all methods"], rows["FedQuad is ahead of MOON under skew"]
    assert lowest.numbers.endswith("; left out, not finished: MOON, seed=1 diverged in round 9")
    assert "(2 seeds); left out, not finished: MOON, seed=1 diverged in round 9" in moon.numbers
    status.write_text(json.dumps({"state": "cancelled", "key": "moon1", "engine": "test"}))
    assert "MOON, seed=1 cancelled" in {r.text: r for r in cl.check_claims(root)}[moon.text].numbers
    clean = _methods_root(tmp_path / "b", {"fedavg": (0.30, 0.33, 0.36), "fedquad": (0.20, 0.21, 0.22)})
    assert not any("left out" in r.numbers for r in cl.check_claims(clean))


def test_lowest_of_all_refuted_by_one_method_below_it(tmp_path):
    """'FedQuad has the lowest intra-class variance': SupConFL clearly below it (0.24 against 0.32)
    refutes it, with SupConFL's test as the row's p (not the p of a comparison that is within noise,
    which Holm's correction would have turned into inconclusive); FedQuad clearly below every other
    supports it, with the weakest comparison's p."""
    text = "FedQuad has the lowest intra-class variance of all methods"
    res = cl.check_claims(_methods_root(tmp_path / "a", {"fedavg": (0.30, 0.33, 0.36), "supcon": (0.23, 0.24, 0.25),
                                                         "fedquad": (0.31, 0.33, 0.32)}))
    row = next(r for r in res if r.text == text)
    # paired differences 0.08, 0.09, 0.07: p = 0.0052 by hand (t = 13.86, 2 df), times 2 within the row (Holm
    # over the 2 comparisons); one tested row: the family changes nothing
    assert row.verdict == cl.NOT_SUPPORTED and row.p == pytest.approx(2 * 0.00517, abs=2e-4)
    assert row.p_holm == pytest.approx(row.p) and "Holm within the row" in row.measure
    assert "a method below it, SupConFL" in row.numbers and row.difference.startswith("+0.08")
    res = cl.check_claims(_methods_root(tmp_path / "b", {"fedavg": (0.40, 0.41, 0.42), "supcon": (0.35, 0.36, 0.37),
                                                         "fedquad": (0.20, 0.22, 0.21)}))
    row = next(r for r in res if r.text == text)
    assert row.verdict == cl.SUPPORTED and "SupConFL" in row.numbers
    # every comparison must hold: the weaker of the two (against SupConFL, differences -0.15, -0.14, -0.16) decides
    assert row.p == pytest.approx(compare({0: 0.20, 1: 0.22, 2: 0.21}, {0: 0.35, 1: 0.36, 2: 0.37}).test.p)
