"""Imports at the top of a module: an import written inside a function is kept only where importing
lazily is measured to matter (``benchmarks/lazy_imports.py``: torch, the data loaders, ``cli.main``,
scipy.stats; in the app an export library, UMAP, scikit-learn, off the first page run) or must
wait (inside a ``try`` for an optional or moving dependency; numba after its cache folder is
set), and says why in a comment on its line or in the comment lines just above it. One rule, one
check, for the engine and the app. The engine's fingerprinted modules (``version.NUMERIC_SOURCES``)
are left as they are: changing their code would change the engine fingerprint."""
from __future__ import annotations

import ast
from pathlib import Path

from fedquad_core.version import _files

ROOT = Path(__file__).resolve().parents[1] / "fedquad_core"
APP = Path(__file__).resolve().parents[1] / "app"
# files other branches rewrote at the same time (the safe reader's, the CLI's input checks): their
# function-level imports went to the top at the merge of those branches, so none is pending
PENDING: dict[str, int] = {}


def _function_imports(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            lines += [sub.lineno for sub in ast.walk(node) if isinstance(sub, (ast.Import, ast.ImportFrom))]
    return sorted(set(lines))


def _explained(lines: list[str], lineno: int) -> bool:
    """A comment on the import's line (other than a bare ``noqa``), or in the lines just above it
    (going up over imports, blank lines and comments)."""
    def reason(text: str) -> bool:
        comment = text.partition("#")[2].strip()
        return bool(comment) and not comment.startswith("noqa")

    if reason(lines[lineno - 1]):
        return True
    i = lineno - 2
    while i >= 0:
        text = lines[i].strip()
        if text.startswith("#"):
            return True
        if not (text == "" or text.startswith(("import ", "from "))):
            return False
        i -= 1
    return False


def test_the_check_sees_a_function_level_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\n\n\ndef f():\n    import json\n    # measured: 2 s\n    import umap\n")
    lines = probe.read_text().splitlines()
    assert _function_imports(probe) == [5, 7]
    assert not _explained(lines, 5) and _explained(lines, 7)


def test_every_function_level_import_in_the_app_says_why():
    unexplained = []
    for path in sorted(APP.rglob("*.py")):
        lines = path.read_text().splitlines()
        unexplained += [f"{path.relative_to(APP.parent)}:{n}: {lines[n - 1].strip()}"
                        for n in _function_imports(path) if not _explained(lines, n)]
    assert not unexplained, "function-level imports without a measured reason:\n" + "\n".join(unexplained)


def test_every_function_level_import_outside_the_fingerprint_says_why():
    fingerprinted = {p.resolve() for p in _files()}
    unexplained, pending = [], {}
    for path in sorted(ROOT.rglob("*.py")):
        if path.resolve() in fingerprinted:
            continue
        rel = path.relative_to(ROOT).as_posix()
        lines = path.read_text().splitlines()
        for lineno in _function_imports(path):
            if rel in PENDING:
                pending[rel] = pending.get(rel, 0) + 1
            elif not _explained(lines, lineno):
                unexplained.append(f"{rel}:{lineno}: {lines[lineno - 1].strip()}")
    assert not unexplained, "function-level imports without a measured reason:\n" + "\n".join(unexplained)
    assert pending == PENDING  # none added there meanwhile; lower the counts as they move


def test_errors_is_a_leaf():
    tree = ast.parse((ROOT / "errors.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module != "__future__"]
