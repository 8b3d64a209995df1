"""Every benchmark runs on the shared harness and owns a marked table in docs/performance.md
(issue 44: the numbers in the docs are written by the benchmark, not copied by hand).

Read with ``ast``, not run: a benchmark takes minutes to hours. A script passes when it imports
``benchmarks.harness``, takes ``--write-docs`` and writes through the harness (``finish`` or
``write_docs``), touches no ``sys.path``, defines none of the harness's own helpers again, and
names its tables with literal names, each of which has its ``<!-- bench:NAME -->`` section in
docs/performance.md. Every section is written by its benchmark (the harness's "Written by" line):
the last 13 copied by hand were run again with ``--write-docs`` on 2026-12-06."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from benchmarks import harness

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
DOCS = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
NOT_BENCHMARKS = {
    "__init__.py": "the package",
    "harness.py": "the harness itself",
    # the reproduction record: accuracies beside the papers', kept in benchmarks/reproduction.json and
    # written into benchmarks/REPRODUCTION.md by reproduction_report.py (tests/benchmarks/test_reproduce_report.py)
    "reproduce.py": "writes benchmarks/reproduction.json and REPRODUCTION.md",
    "reproduction_report.py": "writes benchmarks/REPRODUCTION.md from reproduction.json",
}
SHARED = {"fmt", "ratio", "median", "best", "timed", "write_docs", "machine"}  # the harness's; never again
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if p.name not in NOT_BENCHMARKS)


def _tree(name: str) -> ast.Module:
    return ast.parse((BENCH / name).read_text(encoding="utf-8"), name)


def _called(tree: ast.Module) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            names.add(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
    return names


def table_names(tree: ast.Module) -> list[str]:
    """The first argument of every ``Table(...)`` / ``harness.Table(...)`` call (a literal, or the
    call is reported as an f-string name the docs cannot hold)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (getattr(node.func, "id", None) == "Table"
                                           or getattr(node.func, "attr", None) == "Table"):
            arg = node.args[0] if node.args else None
            out.append(arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else "<not a literal>")
    return out


def sections() -> dict[str, str]:
    return dict(re.findall(r"<!-- bench:([a-z0-9_]+) -->(.*?)<!-- /bench:\1 -->", DOCS, re.S))


def test_there_are_benchmarks_to_check():
    assert len(SCRIPTS) >= 15, SCRIPTS


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_benchmark_runs_on_the_harness(name):
    text = (BENCH / name).read_text(encoding="utf-8")
    tree = _tree(name)
    assert "sys.path" not in text, f"{name}: run it as `python -m benchmarks.{name[:-3]}`, no sys.path"
    imports_harness = any(
        (isinstance(n, ast.ImportFrom) and (n.module == "benchmarks.harness"
                                            or (n.module == "benchmarks" and any(a.name == "harness" for a in n.names))))
        for n in ast.walk(tree))
    assert imports_harness, f"{name}: does not import benchmarks.harness"
    called = _called(tree)
    assert "add_docs_flag" in called, f"{name}: no --write-docs (harness.add_docs_flag)"
    assert called & {"finish", "write_docs"}, f"{name}: its table is never written (harness.finish / write_docs)"
    own = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} & SHARED
    assert not own, f"{name}: defines the harness's {sorted(own)} again"


@pytest.mark.parametrize("name", SCRIPTS)
def test_each_table_has_its_marked_section(name):
    names = table_names(_tree(name))
    assert names, f"{name}: builds no harness.Table"
    assert "<not a literal>" not in names, f"{name}: a table's name must be a literal (it is the docs marker)"
    found = sections()
    missing = [n for n in names if n not in found]
    assert not missing, f"docs/performance.md has no <!-- bench:NAME --> section for {missing} ({name})"
    for n in names:
        assert DOCS.count(f"<!-- bench:{n} -->") == 1 and DOCS.count(f"<!-- /bench:{n} -->") == 1, n


def test_every_section_is_written_by_its_benchmark():
    found = sections()
    owners = {n for s in SCRIPTS for n in table_names(_tree(s))}
    assert set(found) <= owners, f"sections no benchmark writes: {sorted(set(found) - owners)}"
    unwritten = [n for n, body in found.items()
                 if not re.search(rf"Written by `[^`]*python -m benchmarks\.\w+[^`]*` on \d{{4}}-\d\d-\d\d", body)]
    assert unwritten == [], f"sections not written by their benchmark (run it with --write-docs): {unwritten}"


def test_a_missing_marker_or_a_bypass_is_caught(tmp_path):
    """The checks above can fail: a script that prints its own way, and a table with no section."""
    bad = ast.parse("import sys\nsys.path.insert(0, '.')\ndef fmt(x):\n    return x\nTable('nowhere_bench', ['a'])\n")
    assert table_names(bad) == ["nowhere_bench"] and "nowhere_bench" not in sections()
    assert {n.name for n in bad.body if isinstance(n, ast.FunctionDef)} & SHARED == {"fmt"}
    assert not _called(bad) & {"finish", "write_docs"}
