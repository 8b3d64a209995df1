"""What a run's numbers depend on: the engine fingerprint (the code) and the run key (the code
plus the settings). A finished run whose status holds the same key is reused, never trained
twice (``fedquad study run``, ``fedquad sweep``); recorded runs carry the fingerprint of the
engine that made them.

The fingerprint hashes the syntax trees (``ast.dump``, docstrings dropped) of the modules that
change a run's numbers, so comments, docstrings and formatting do not count."""
from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent
NUMERIC_SOURCES = ("methods", "data", "models.py", "losses.py", "client.py", "rounds.py", "partition.py",
                   "sampling.py", "aggregation.py", "geometry.py", "config.py", "runner.py",
                   "local_metrics.py")
BOOKKEEPING = ("name", "workers", "client_exec", "device", "data_dir", "download")


def _files() -> list[Path]:
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


@functools.lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    """A 12-hex-digit hash of the code that changes a run's numbers."""
    h = hashlib.sha256()
    for path in _files():
        h.update(str(path.relative_to(PACKAGE)).encode() + b"\0")
        h.update(ast.dump(_without_docstrings(ast.parse(path.read_text()))).encode() + b"\0")
    return h.hexdigest()[:12]


def key_settings(cfg) -> dict[str, Any]:
    """The settings that decide a run's numbers: method and dataset defaults written out,
    bookkeeping fields dropped, numbers of float fields as floats (1 and 1.0 are one run)."""
    from .config import RunConfig
    from .data import get_source

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
