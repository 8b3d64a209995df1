"""The confirmatory registration: its file is checked, hashed per row, stamped into the
confirmation study records, and its power calculation matches textbook values."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fedquad_core.errors import UserError
from fedquad_core.study import registration as registry
from fedquad_core.study.power import seeds_needed, t_power


def test_power_matches_textbook_values():
    # Cohen's d = 1, two-sided alpha 0.05: a paired t-test with 10 pairs has power 0.803, two
    # groups of 17 have 0.807 (G*Power's exact noncentral-t values)
    assert t_power(1.0, 1.0, 10, 0.05, paired=True) == pytest.approx(0.8031, abs=5e-4)
    assert t_power(1.0, 1.0, 17, 0.05, paired=False) == pytest.approx(0.8070, abs=5e-4)
    assert seeds_needed(1.0, 1.0, 0.05) == 10
    assert seeds_needed(1.0, 1.0, 0.05, paired=False) == 17
    with pytest.raises(ValueError):
        seeds_needed(0.0, 1.0, 0.05)


def test_every_row_states_its_seed_count_from_its_own_power_calculation():
    reg = registry.load()
    level = reg.rules["alpha"] / len(reg.rows)
    for row in reg.rows:
        delta = reg.delta[row["delta"]]["value"]
        if row["delta"] == "distance_share":  # a share of the pilot's reference arm's mean
            delta *= row["reference_mean"]
        need = seeds_needed(delta, row["sd"], level, reg.rules["power"], paired=row["test"] == "paired t")
        assert row["seeds_needed"] == need, row["id"]
        assert registry.affordable(row, reg) == (reg.studies[row["study"]]["seeds"] >= need)


def test_seeds_are_fresh_and_each_delta_has_a_reason():
    reg = registry.load()
    assert reg.rules["first_seed"] >= 50  # every exploratory study used seeds below 50
    assert all(d["reason"] and d["value"] > 0 for d in reg.delta.values())
    assert all(row["shared"] for row in reg.rows)
    paired = [r for r in reg.rows if r["test"] == "paired t"]
    assert all("partition" in r["shared"] and "not the partition" not in r["shared"] for r in paired)


def test_a_changed_row_turns_exploratory_and_only_that_row(tmp_path):
    reg = registry.load()
    study = reg.rows[0]["study"]
    record = {"registration": registry.stamp(reg, study)}
    rows = reg.rows_of(study)
    assert all(registry.row_status(r, record, reg) == "confirmatory" for r in rows)
    changed = dataclasses.replace(reg, rows=tuple({**r, "sd": r["sd"] * 2} if r is rows[0] else r for r in reg.rows))
    assert registry.row_status(changed.rows_of(study)[0], record, changed) == "exploratory"
    assert all(registry.row_status(r, record, changed) == "confirmatory" for r in changed.rows_of(study)[1:])
    assert registry.row_status(rows[0], {}, reg) == "exploratory"  # a record without a stamp


@pytest.mark.parametrize("edit, says", [
    ('study = "confirm-digits-local"', "is not registered"),
    ('expect = "above"', "expect"),
    ('measure = "local_acc_all"', "measure"),
])
def test_a_broken_registration_is_one_line(tmp_path, edit, says):
    text = registry.PATH.read_text()
    key = edit.split(" = ")[0]
    broken = text.replace(edit, f'{key} = "nonsense"', 1)
    assert broken != text
    path = tmp_path / "registration.toml"
    path.write_text(broken)
    with pytest.raises(UserError, match=says):
        registry.load(Path(path))
