"""The confirmatory rows' rules (``study.confirm``): equal samples interpolated by hand, the strict
"supported", δ sensitivity, and the whole table on a tiny confirmation recording."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fedquad_core.study import confirm as cf
from fedquad_core.study import confirm_text as ct
from fedquad_core.study.stats import paired

REPO = Path(__file__).resolve().parents[3]


def _rows(samples_per_round: float, values: list[float]) -> list[dict]:
    return [{"round": i + 1, "samples_total": samples_per_round * (i + 1), "test_accuracy": v}
            for i, v in enumerate(values)]


def test_equal_samples_interpolates_in_samples_and_never_extrapolates():
    fedquad = _rows(200, [0.1, 0.3, 0.5, 0.7])       # samples 200, 400, 600, 800
    # FedAvg's totals 300 and 500: halfway between rounds 1-2 and 2-3 -> 0.2 and 0.4, mean 0.3
    assert cf.at_samples(fedquad, "final_acc", [300, 500]) == pytest.approx(0.3)
    assert cf.at_samples(fedquad, "final_acc", [800]) == pytest.approx(0.7)  # a total hit exactly
    assert cf.at_samples(fedquad, "final_acc", [900]) is None  # beyond its last round: not extrapolated
    assert cf.at_samples(fedquad, "final_acc", [100]) is None  # before its first row
    assert cf.run_value(_rows(100, [0.0] * 5 + [1.0] * 10), "final_acc") == pytest.approx(1.0)  # last 10 rounds


def test_reference_totals_are_the_reference_runs_last_window():
    fedavg = _rows(100, [0.5] * 12)
    assert cf.reference_totals(fedavg, "final_acc") == [300.0 + 100 * i for i in range(10)]


def _diff(a, b):
    return paired(a, b)


@pytest.mark.parametrize("others, changing, expect, want", [
    ([], False, "above", cf.SUPPORTED),
    ([], True, "above", cf.INCONCLUSIVE),                         # an arm still changing: never supported
    ([_diff([1, 2, 3], [1.5, 2.5, 3.6])], False, "above", cf.INCONCLUSIVE),  # another comparison goes against it
    ([], False, "below", cf.NOT_SUPPORTED),
])
def test_strict_supported(others, changing, expect, want):
    up = _diff([2.0, 3.0, 4.1, 5.0], [1.0, 2.0, 3.0, 4.0])  # +1.025, tight
    assert cf.strict_verdict(up, others, 0.5, expect, 0.001, 0.9, changing) == want


def test_supported_needs_the_holm_p_and_delta():
    up = _diff([2.0, 3.0, 4.1, 5.0], [1.0, 2.0, 3.0, 4.0])
    assert cf.strict_verdict(up, [], 0.5, "above", 0.06, 0.9, False) == cf.INCONCLUSIVE  # Holm p above .05
    assert cf.strict_verdict(up, [], 2.0, "above", 0.001, 0.9, False) == cf.INCONCLUSIVE  # estimate under δ
    assert cf.strict_verdict(up, [], 2.0, "above", 0.001, 0.01, False) == ct.NEGLIGIBLE  # only by equivalence


def test_holm_counts_rows_not_yet_in_as_p_one(monkeypatch):
    """Holm's family is the registration's rows: one tested row among eight still to come is
    adjusted as the first of nine (p x 9), never as a family of one."""
    test = paired([1.0, 1.2, 1.1, 1.3, 1.25], [0.0, 0.1, 0.05, 0.2, 0.1])

    def fake(row, reg, studies, shared=None):
        if row["id"] == "C4":
            return cf.ConfirmRow(row, "confirmatory", 0.01, cf.Comparison("equal samples", test, 5, 5), seeds=56)
        status = cf.RECORDING if row["study"] == "confirm-digits-collapse" else cf.NOT_RECORDED
        return cf.ConfirmRow(row, status, seeds=27, verdict="recording: 3 of 27 seeds in; no verdict before all are")

    monkeypatch.setattr(cf, "_check_row", fake)
    rows = {x.row["id"]: x for x in cf.check_confirmatory("/nonexistent")}
    assert rows["C4"].p_holm == pytest.approx(min(1.0, 9 * test.p)) and rows["C4"].p_holm > test.p
    assert rows["C1"].verdict.startswith("recording: 3 of 27") and rows["C1"].p_holm is None


def _env(tmp_path) -> dict:
    """A bare environment, the network guard kept (tests/conftest.py puts it on PYTHONPATH)."""
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": os.pathsep.join([str(REPO), os.environ["PYTHONPATH"]]),
            "FEDQUAD_NETGUARD_DIR": os.environ["FEDQUAD_NETGUARD_DIR"], "OMP_NUM_THREADS": "1", "HOME": str(tmp_path)}


def test_the_table_on_a_tiny_confirmation_recording(tmp_path):
    scratch = tmp_path / "confirm"
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "confirm_studies.py"), "--quick", "--scratch",
                           str(scratch), "--only", "confirm-digits-local"], capture_output=True, text=True,
                          timeout=900, cwd=REPO, env=_env(tmp_path))
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = {x.row["id"]: x for x in cf.check_confirmatory(scratch)}
    assert rows["C1"].status == cf.NOT_RECORDED and rows["C1"].verdict == cf.NOT_RECORDED
    c4 = rows["C4"]
    assert c4.status == "confirmatory" and c4.seeds == 2
    assert c4.verdict == "not confirmed: needs 56 seeds"  # 2 seeds of the 56 its power calculation asks
    assert [c.name for c in c4.others] == ["equal rounds"] and c4.others[0].test is not None
    table = ct.confirm_markdown(list(rows.values()))
    assert "| C4 |" in table and "not confirmed: needs 56 seeds" in table and table.count("\n") == len(rows) + 1
    # while a run is still going, the study shows no number and no verdict
    import json
    point = json.loads((scratch / "studies" / "confirm-digits-local.json").read_text())["points"][-1]
    status_path = scratch / point["run_id"] / "status.json"
    saved = status_path.read_text()
    waiting = {k: v for k, v in json.loads(saved).items() if k not in ("pid", "pid_start")}
    status_path.write_text(json.dumps({**waiting, "state": "queued"}))  # waiting for a worker
    during = {x.row["id"]: x for x in cf.check_confirmatory(scratch)}
    for row_id in ("C4", "C5", "C6"):
        assert during[row_id].status == cf.RECORDING and during[row_id].primary is None
        assert during[row_id].verdict == "recording: 1 of 2 seeds in; no verdict before all are"
    assert "recording: 1 of 2 seeds in" in ct.confirm_markdown(list(during.values()))
    status_path.write_text(saved)
    # a study recorded under another registration of its rows is refused, not resumed
    import json
    path = scratch / "studies" / "confirm-digits-local.json"
    record = json.loads(path.read_text())
    record["registration"]["rows"]["C4"] = "0" * 64
    path.write_text(json.dumps(record))
    again = subprocess.run([sys.executable, str(REPO / "scripts" / "confirm_studies.py"), "--quick", "--scratch",
                            str(scratch), "--only", "confirm-digits-local"], capture_output=True, text=True,
                           timeout=300, cwd=REPO, env=_env(tmp_path))
    assert again.returncode == 2 and "another registration" in again.stderr
    assert {x.row["id"]: x for x in cf.check_confirmatory(scratch)}["C4"].status == "exploratory"


def test_each_rows_line_is_its_verdict_and_its_primary_comparisons_numbers():
    """``api.confirmation`` on the shipped confirmation studies: every registered row, its verdict
    the table's, its numbers the table's primary comparison (the same difference and interval),
    and "inside ±δ" only on a negligible row; a root holding no confirmation study gives none."""
    from fedquad_core import api
    root = REPO / "assets" / "confirmed"
    table = {x.row["id"]: x for x in cf.check_confirmatory(root)}
    rows = api.confirmation(root)
    assert [r.id for r in rows] == list(table)
    for r in rows:
        x = table[r.id]
        assert r.verdict == x.verdict and r.claim == x.row["claim"]
        assert r.short == f"{r.id} ({ct.row_tag(r.claim)}): {ct.verdict_words(r.verdict)}"
        if x.primary is None or x.primary.test is None:
            assert r.numbers == "" and r.sentence == x.verdict  # no number before every seed is in
            continue
        scale, unit, spec = ct._scaled(x.row["measure"])
        assert x.primary.test.text(spec, scale, unit) in r.numbers and f"at {x.primary.name}" in r.numbers
        assert ("inside ±" in r.numbers) == (x.judged == ct.NEGLIGIBLE)
        assert all(q in r.numbers for q in ct.row_qualifiers(x))
    # FedQuad's seed 1000 diverged in round 3 on Fashion-MNIST: every comparison of its rows names it
    for rid in ("C7", "C8", "C9"):
        x = table[rid]
        for c in (x.primary, *x.others):
            assert c.left_out == ["FedQuad, seed=1000 diverged in round 3"], (rid, c.name, c.left_out)
        assert x.primary.test.pairs == 9
        assert "left out: FedQuad, seed=1000 diverged in round 3" in next(r for r in rows if r.id == rid).numbers
    assert api.confirmation(REPO / "assets" / "recorded") == []
    assert ct.row_tag("FedQuad separates the classes more (inter-class distance, digits)") == "inter-class distance, digits"
    assert ct.row_tag("no parenthesis") == "no parenthesis"
    assert ct.verdict_words("negligible") == "no difference that matters"
    assert ct.verdict_words("not confirmed: needs 401 seeds") == "not confirmed: needs 401 seeds"
