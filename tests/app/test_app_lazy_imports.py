"""Imports at the top of the app's modules: an import written inside a function is kept only where
importing lazily is measured to matter (an export library, UMAP, scikit-learn, off the first page
run) or must wait (inside a ``try`` for an optional or moving dependency; numba after its cache
folder is set), and says why in a comment on its line or in the comment lines just above it (the
same rule as the engine's, ``tests/engine/test_lazy_imports.py``)."""
from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"


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
