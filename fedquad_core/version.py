"""What a run's numbers depend on: the engine fingerprint (the code) and the run key (the code
plus the settings). A finished run whose status holds the same key is reused, never trained
twice (``fedquad study run``, ``fedquad sweep``); recorded runs carry the fingerprint of the
engine that made them.

The fingerprint hashes the syntax trees (``ast.dump``, docstrings dropped) of the modules that
change a run's numbers, so comments, docstrings and formatting do not count. It depends on the
code's content only, not on where it lives: file paths are not hashed (each module's digest is
taken alone and the sorted digests are hashed), an import is read by the names it imports and
the last part of its module's name (``from ..losses import x`` and ``from ..numerics.losses
import x`` are one import), and a module with nothing but a docstring counts as none. Moving a
module into a folder therefore keeps the fingerprint, and recorded runs stay valid."""
from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from .config import RunConfig

PACKAGE = Path(__file__).resolve().parent
NUMERIC_SOURCES = ("methods", "data", "numerics", "models.py", "config/run.py", "train/client.py", "train/rounds.py",
                   "train/runner.py", "train/local_metrics.py")
BOOKKEEPING = ("name", "workers", "client_exec", "device", "data_dir", "download")


def _files() -> list[Path]:
    """The modules that change a run's numbers (``NUMERIC_SOURCES``: files, and folders read whole)."""
    out: list[Path] = []
    for name in NUMERIC_SOURCES:
        path = PACKAGE / name
        out += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return out


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _located_nowhere(tree: ast.AST) -> ast.AST:
    """Imports read by what they import, not by where it lives: ``from ..a.b import c`` becomes
    ``from b import c`` (level and leading packages dropped), so moving a module leaves its
    importers' digests unchanged."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            node.module = node.module.rpartition(".")[2] if node.module else None
            node.level = 0
    return tree


def module_digest(source: str) -> str | None:
    """The digest of one module's code (docstrings dropped, imports read by name), or None for a
    module with no code."""
    tree = _located_nowhere(_without_docstrings(ast.parse(source)))
    if all(isinstance(stmt, ast.Pass) for stmt in tree.body):
        return None
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """A 12-hex-digit hash of the code that changes a run's numbers (of its content: not of the
    files' paths or order)."""
    digests = sorted(d for d in (module_digest(path.read_text()) for path in _files()) if d is not None)
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()[:12]


def key_settings(cfg) -> dict[str, Any]:
    """The settings that decide a run's numbers: method and dataset defaults written out,
    bookkeeping fields dropped, numbers of float fields as floats (1 and 1.0 are one run)."""
    from .data import get_source  # lazy: about 1.4 s of torch (benchmarks/lazy_imports.py); the dashboard imports this module

    d = cfg.resolved().to_dict()
    for f in dataclasses.fields(RunConfig):
        value = d.get(f.name)
        if "float" in str(f.type) and isinstance(value, int) and not isinstance(value, bool):
            d[f.name] = float(value)
    fields = {f.name: f for f in dataclasses.fields(cfg.params())}
    d["method_params"] = {k: (v if fields[k].metadata.get("integer") or isinstance(v, bool) else float(v))
                          for k, v in d["method_params"].items()}
    d["model"] = cfg.model_name
    if d.get("augment") is None:
        d["augment"] = bool(get_source(cfg.dataset).augment_default)
    for name in BOOKKEEPING:
        d.pop(name, None)
    return d


def run_key(cfg) -> str:
    """A 16-hex-digit hash of ``key_settings(cfg)`` and the engine fingerprint."""
    text = json.dumps({"settings": key_settings(cfg), "engine": engine_fingerprint()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_identity(cfg) -> dict[str, str]:
    """The fields every run writes into its status.json when it starts."""
    return {"engine": engine_fingerprint(), "key": run_key(cfg)}
