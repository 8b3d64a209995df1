"""Lesson, "Use my runs" right after the one-minute demo (two finished runs at one α): one warning
and ONE button that computes the missing α in the background (with a time estimate), no command
line; the button starts the study over α = 0.1, 1, IID with the demo's settings."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from app import presets
from app_helpers import MAIN
from lesson_helpers import write_root, write_run


@pytest.fixture
def after_demo(monkeypatch, tmp_path):
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(write_root(tmp_path / "recorded")))
    runs = tmp_path / "runs"
    cfg = presets.PRESETS["Collapse in one minute"]["config"]
    for method in ("fedavg", "fedquad"):
        write_run(runs, f"demo-{method}", 0.1, method, 0)
        (runs / f"demo-{method}" / "config.json").write_text(json.dumps({**cfg, "method": method, "method_params": {}}))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(runs))
    return runs


def test_use_my_runs_after_the_demo_offers_one_button(after_demo, monkeypatch):
    from app import service

    started = []
    monkeypatch.setattr(service, "launch_study", lambda name, spec=None, **kw: started.append((name, spec)) or 1)
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.run()
    at.switch_page("views/lesson.py")
    at.run()
    at.toggle(key="l_mine").set_value(True).run()
    assert not at.exception, at.exception
    warnings = [w.value for w in at.warning]
    assert len(warnings) == 1 and "python -m" not in warnings[0] and "`" not in warnings[0], warnings
    buttons = [b for b in at.button if b.key == "l_demo_compute"]
    assert len(buttons) == 1 and "Compute the missing 4 runs (about" in buttons[0].label, [b.label for b in at.button]
    buttons[0].click().run()
    assert not at.exception, at.exception
    assert len(started) == 1
    name, spec = started[0]
    assert name == "collapse-demo" and spec["axes"]["alpha"] == [0.1, 1.0, None]
    assert spec["axes"]["method"] == ["fedavg", "fedquad"] and spec["base"]["num_clients"] == 50
