"""The methods' names, display labels and citations, read without importing torch: each method
class says them itself (``name``, ``label``, ``citation`` in its own file in ``methods/``), and
this module reads them from the source with ``ast``, in the order of the registry
(``methods/__init__.py``'s ``METHODS``). So a new method is its file plus one line in the
registry; nothing else names it (``tests/engine/vocab/test_method_words.py`` adds a toy method and
finds it in the command line, the Launch form's list and the parametrised tests' list).

A class that does not say one of the three inherits it from its base class (read the same way:
``FedAvg`` is ``LocalObjective``'s). Reading the source is why this is torch-free: ``methods/``
imports torch, and the dashboard's first page names and cites the methods before any torch import."""
from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

METHODS_DIR = Path(__file__).resolve().parents[1] / "methods"
WORDS = ("name", "label", "citation")


@dataclass(frozen=True)
class MethodWords:
    name: str
    label: str
    citation: str


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _imported(tree: ast.Module) -> dict[str, str]:
    """Class name -> the module file it comes from, for ``from .x import Y`` (relative, one level)."""
    return {alias.asname or alias.name: node.module for node in tree.body if isinstance(node, ast.ImportFrom)
            and node.level == 1 and node.module for alias in node.names}


def _class_words(module: str, cls: str, depth: int = 0) -> dict[str, str]:
    tree = _tree(METHODS_DIR / f"{module}.py")
    node = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls), None)
    if node is None or depth > 10:
        raise LookupError(f"methods/{module}.py has no class {cls}")
    out: dict[str, str] = {}
    for stmt in node.body:
        target = (stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else
                  stmt.target if isinstance(stmt, ast.AnnAssign) else None)
        if (isinstance(target, ast.Name) and target.id in WORDS and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)):
            out[target.id] = stmt.value.value
    imports = _imported(tree)
    for base in node.bases:
        if len(out) == len(WORDS):
            break
        if isinstance(base, ast.Name):
            where = imports.get(base.id, module if any(isinstance(n, ast.ClassDef) and n.name == base.id
                                                       for n in tree.body) else None)
            if where is not None:
                out = {**_class_words(where, base.id, depth + 1), **out}
    return out


def _registry_order(tree: ast.Module) -> list[str]:
    """The class names of ``METHODS = {cls.name: cls for cls in (A, B, ...)}``, in order."""
    for node in tree.body:
        target = (node.targets[0] if isinstance(node, ast.Assign) else
                  node.target if isinstance(node, ast.AnnAssign) else None)
        if isinstance(target, ast.Name) and target.id == "METHODS" and isinstance(node.value, ast.DictComp):
            seq = node.value.generators[0].iter
            if isinstance(seq, (ast.Tuple, ast.List)):
                return [e.id for e in seq.elts if isinstance(e, ast.Name)]
    raise LookupError("methods/__init__.py: no METHODS = {cls.name: cls for cls in (...)} to read")


@functools.lru_cache(maxsize=1)
def method_words() -> dict[str, MethodWords]:
    """Every registered method's name, label and citation, in the registry's order."""
    tree = _tree(METHODS_DIR / "__init__.py")
    imports = _imported(tree)
    out: dict[str, MethodWords] = {}
    for cls in _registry_order(tree):
        words = _class_words(imports[cls], cls)
        missing = [w for w in WORDS if w not in words]
        if missing:
            raise LookupError(f"method class {cls} (methods/{imports[cls]}.py) does not say its {', '.join(missing)}")
        out[words["name"]] = MethodWords(words["name"], words["label"], words["citation"])
    return out


def labels() -> dict[str, str]:
    return {n: w.label for n, w in method_words().items()}


def citations() -> dict[str, str]:
    return {n: w.citation for n, w in method_words().items()}


def method_label(name: str) -> str:
    """The method's display name; an unknown name as it is."""
    w = method_words().get(name)
    return w.label if w is not None else str(name)
