"""Print the seams a newcomer sees first: the engine's door, long modules and long functions.

Counts the names of the engine's door (``fedquad_core.api.__all__``, and the
names of each namespace it holds: ``api.stats``, ``api.words``) and of the
app's (``app.service.__all__``), read with ``ast``; and, with ``ast`` too, the
modules over 400 lines and the functions over 30 lines (listing those over 50)
in ``fedquad_core/`` and ``app/``.

    python scripts/seams_report.py            # counts and lists
    python scripts/seams_report.py --quiet    # counts only

A function's length is ``end_lineno - lineno + 1`` of its ``def`` (decorators
not counted); nested functions are counted on their own as well.
"""
from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = ("fedquad_core", "app")
MODULE_LINES = 400
FUNCTION_LINES = 30
LONG_FUNCTION_LINES = 50


def _files(root: Path = ROOT):
    for tree in TREES:
        yield from sorted((root / tree).rglob("*.py"))


def long_modules(root: Path = ROOT, limit: int = MODULE_LINES) -> list[tuple[str, int]]:
    """(path, lines) of every module over ``limit`` lines, longest first."""
    out = []
    for f in _files(root):
        n = len(f.read_text(encoding="utf-8").splitlines())
        if n > limit:
            out.append((str(f.relative_to(root)), n))
    return sorted(out, key=lambda x: -x[1])


def _all_of(path: Path) -> list[str]:
    """The names of the module's ``__all__`` (a literal list or tuple), [] without one."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    return []


def door_names(root: Path = ROOT) -> dict[str, list[str]]:
    """The names of the engine's door, by where a newcomer reads them: ``api`` (the ``__all__`` of
    ``fedquad_core/api.py``), one entry per namespace it binds with ``from .x import y as NAME``
    (``api.stats``: that module's ``__all__``), and ``app.service`` (the app's own door)."""
    api = root / "fedquad_core" / "api.py"
    out = {"api": _all_of(api)}
    for node in ast.parse(api.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            for a in node.names:
                if a.asname in out["api"]:
                    parts = ["fedquad_core", *(node.module or "").split("."), a.name]
                    module = root.joinpath(*[p for p in parts if p]).with_suffix(".py")
                    if module.is_file():
                        out[f"api.{a.asname}"] = _all_of(module)
    out["app.service"] = _all_of(root / "app" / "service" / "__init__.py")
    return out


def function_lengths(root: Path = ROOT) -> list[tuple[str, int]]:
    """('path:qualified.name', lines) of every function and method."""
    out = []
    for f in _files(root):
        try:
            tree = ast.parse(f.read_text(encoding="utf-8"), filename=str(f))
        except SyntaxError as e:
            print(f"skipped {f}: {e.msg}", file=sys.stderr)
            continue
        rel = str(f.relative_to(root))

        def walk(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = f"{prefix}{child.name}"
                    out.append((f"{rel}:{name}", child.end_lineno - child.lineno + 1))
                    walk(child, name + ".")
                elif isinstance(child, ast.ClassDef):
                    walk(child, f"{prefix}{child.name}.")
                else:
                    walk(child, prefix)

        walk(tree, "")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quiet", action="store_true", help="counts only")
    args = ap.parse_args(argv)
    door = door_names()
    engine = {k: v for k, v in door.items() if k.startswith("api")}
    print(f"names in the engine's door: {sum(map(len, engine.values()))} "
          f"({', '.join(f'{k} {len(v)}' for k, v in engine.items())}); in app.service: {len(door['app.service'])}")
    mods = long_modules()
    funcs = function_lengths()
    over = sorted([x for x in funcs if x[1] > FUNCTION_LINES], key=lambda x: -x[1])
    very = [x for x in over if x[1] > LONG_FUNCTION_LINES]
    print(f"modules over {MODULE_LINES} lines: {len(mods)}")
    if not args.quiet:
        for p, n in mods:
            print(f"  {n:5d}  {p}")
    print(f"functions over {FUNCTION_LINES} lines: {len(over)} (of {len(funcs)})")
    print(f"functions over {LONG_FUNCTION_LINES} lines: {len(very)}")
    if not args.quiet:
        for p, n in very:
            print(f"  {n:5d}  {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
