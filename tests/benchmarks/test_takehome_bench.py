"""benchmarks/takehome.py: bad arguments get one line and exit code 2 before any export or browser."""
import sys

import pytest

from benchmarks import takehome


@pytest.mark.parametrize("argv, says", [
    (["--repeat", "0"], "--repeat must be positive"),
    (["--file", "/nonexistent/x.html"], "no such file"),
    (["--recorded", "/nonexistent"], "no studies/ folder"),
])
def test_bad_arguments_one_line_exit_2(argv, says, capsys, monkeypatch):
    monkeypatch.setattr(takehome, "export", lambda *a, **k: pytest.fail("an export was started"))
    with pytest.raises(SystemExit) as exc:
        takehome.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("takehome: ") and says in err, err
