"""The door's two namespaces (``api.stats``, ``api.words``) where they are more than the engine's
own functions: one run read at another's samples (the equal-samples rule for one pair, worked by
hand), a ``Verdict``'s states as its own, the measures' names in one register."""
from __future__ import annotations

import pytest

from fedquad_core.api import Verdict, stats, words
from fedquad_core.vocab import metrics


def _rows(per_round: float, rounds: int = 20) -> list[dict]:
    # accuracy grows with the samples processed: accuracy = samples / 100,000
    return [{"round": r, "samples_total": per_round * r, "test_accuracy": per_round * r / 100_000}
            for r in range(1, rounds + 1)]


def test_one_run_is_read_where_it_had_processed_the_reference_runs_samples():
    ours, reference = _rows(2000), _rows(1000)
    # the reference's last 10 rounds (11..20) processed 11,000 .. 20,000 samples: ours read there
    # (rounds 5.5 .. 10 of ours) is 0.11 .. 0.20, their mean 0.155
    assert stats.at_reference_samples(ours, reference, "final_acc") == pytest.approx(0.155)
    assert stats.run_value(reference, "final_acc") == pytest.approx(0.155)  # the same at equal samples
    assert stats.at_reference_samples(reference, ours, "final_acc") is None  # never got that far


def test_a_verdicts_states_are_its_own():
    assert stats.compare([1.0], [2.0]).state == Verdict.ONE_SEED
    assert stats.compare([], [1.0, 2.0]).state == Verdict.NO_DATA
    assert stats.compare([1.0, 1.2, 0.9], [1.1, 0.95, 1.05]).state == Verdict.NOISE
    assert stats.compare({0: 1.0, 1: 1.1, 2: 1.05}, {0: 1.0, 1: 1.1, 2: 1.05}, 0.5).state == Verdict.NEGLIGIBLE
    assert stats.compare([1.0, 1.1, 1.05], [5.0, 5.1, 5.05]).state == Verdict.SEPARATED


def test_the_measures_names_in_one_register():
    assert words.metric_names("axis") == metrics.axis_titles() and words.metric_names("words") == metrics.words()
    assert words.metric_names("chart") == metrics.chart_titles() and words.metric_names("title") == metrics.titles()
    with pytest.raises(ValueError, match="no register 'colour'"):
        words.metric_names("colour")
