"""benchmarks/harness.py: the docs' measured tables are written by the benchmark, into their own
marked section and nowhere else; timings count their repeats; a ratio needs a baseline."""
import pytest

from benchmarks import harness


def _table(*cells):
    t = harness.Table("toy_bench", ["case", "time"], title="A toy")
    for c in cells:
        t.row(*c)
    return t


def test_write_docs_appends_then_replaces_only_its_section(tmp_path):
    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\nhand-written text | kept\n\n## Measured results\n\n### other\n\nold numbers 1.23 s\n")
    harness.write_docs(_table(("a", "1.0 ms")), command="python -m benchmarks.toy_bench", path=doc)
    first = doc.read_text()
    assert first.startswith("# Performance\n\nhand-written text | kept\n") and "old numbers 1.23 s" in first
    assert "| a | 1.0 ms |" in first and "python -m benchmarks.toy_bench" in first and "A toy." in first
    harness.write_docs(_table(("a", "2.0 ms"), ("b", "3.0 ms")), command="python -m benchmarks.toy_bench", path=doc)
    second = doc.read_text()
    assert "| a | 1.0 ms |" not in second and "| a | 2.0 ms |" in second and "| b | 3.0 ms |" in second
    assert second.count("<!-- bench:toy_bench -->") == 1 and second.count("### `benchmarks/toy_bench.py`") == 1
    assert second.split("<!-- bench:toy_bench -->")[0] == first.split("<!-- bench:toy_bench -->")[0]


def test_timed_ratio_fmt():
    calls = []
    times = harness.timed(lambda: calls.append(1), repeat=4, warmup=2)
    assert len(times) == 4 and len(calls) == 6 and all(t >= 0 for t in times)
    assert harness.ratio([3.0, 3.0], [2.0, 2.0]) == "1.50x"
    assert harness.ratio([3.0], []) == "n/a" and harness.ratio([3.0], [0.0]) == "n/a"
    assert harness.ratio([1.0, 9.0], [1.0, 3.0], of=max) == "3.00x"
    assert harness.fmt([0.010, 0.030, 0.020], unit="ms") == "median 20.0 ms, max 30.0 ms (n=3)"
    assert harness.fmt([]) == "n/a"
    with pytest.raises(ValueError):
        harness.timed(lambda: None, repeat=0)


def test_a_row_must_fill_the_columns_and_pipes_are_escaped():
    t = _table(("x|y", "1 s"))
    assert "| x\\|y | 1 s |" in t.markdown()
    with pytest.raises(ValueError):
        t.row("only one")


def test_finish_prints_and_writes_only_with_write_docs(tmp_path, monkeypatch, capsys):
    import argparse

    doc = tmp_path / "performance.md"
    doc.write_text("# Performance\n\n<!-- bench:toy_bench -->\nMeasured before the harness: `--write-docs`\n"
                   "<!-- /bench:toy_bench -->\n")
    monkeypatch.setattr("sys.argv", ["/x/benchmarks/toy_bench.py", "--repeat", "2", "--write-docs"])
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    assert harness.invoked() == "OMP_NUM_THREADS=1 python -m benchmarks.toy_bench --repeat 2 --write-docs"
    harness.finish(_table(("a", "1.0 ms")), argparse.Namespace(write_docs=False), path=doc)
    assert "| a | 1.0 ms |" not in doc.read_text() and "a     1.0 ms" in capsys.readouterr().out
    harness.finish(_table(("a", "1.0 ms")), argparse.Namespace(write_docs=True), path=doc)
    text = doc.read_text()
    assert "| a | 1.0 ms |" in text
    assert "Written by `OMP_NUM_THREADS=1 python -m benchmarks.toy_bench --repeat 2 --write-docs`" in text


def test_a_count_is_refused_where_it_enters(capsys):
    """``--repeat 0`` (or a word) stops a benchmark before any work, as one argparse line."""
    from benchmarks import partition_speed

    assert harness.positive_int("3") == 3
    for bad, said in (("0", "must be a positive integer, not 0"), ("-2", "not -2"), ("two", "not 'two'")):
        with pytest.raises(SystemExit) as e:
            partition_speed.main(["--repeat", bad])
        assert e.value.code == 2 and said in capsys.readouterr().err
