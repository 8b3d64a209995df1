"""benchmarks/demo_first_point.py: bad arguments get one line and exit code 2 before any server or
browser starts; the button it clicks is the sidebar's quick-start preset."""
import sys

import pytest

from benchmarks import demo_first_point


@pytest.mark.parametrize("argv, says", [
    (["--repeat", "0"], "--repeat and --timeout must be positive"),
    (["--timeout", "-1"], "--repeat and --timeout must be positive"),
    (["--repeat", "two"], "invalid int value"),
    (["--screenshot", "/nonexistent/shots"], "not a folder"),
    (["--app-root", "/"], "no app/main.py there"),
    (["--no-such-option"], "unrecognized arguments"),
    (["--think", "-1"], "--think must be between 0 and 600 s"),
])
def test_bad_arguments_one_line_exit_2(argv, says, capsys, monkeypatch):
    monkeypatch.setattr(demo_first_point, "one_demo", lambda *a, **k: pytest.fail("a demo was started"))
    with pytest.raises(SystemExit) as exc:
        demo_first_point.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("demo_first_point: ") and says in err


def test_clicks_the_sidebar_quick_start_preset():
    from app import presets, sidebar

    assert demo_first_point.QUICK_PRESET == sidebar.QUICK_PRESET
    assert presets.PRESETS[demo_first_point.QUICK_PRESET]["methods"]
