"""One door: the app reaches the engine through ``fedquad_core.api`` (the engine's public surface)
and nothing else of ``fedquad_core``. Read from the source with ``ast`` (every import, also those
inside functions; relative imports resolved): no app module imports an engine internal (a store, a
lock, ``safe_io``, the launcher, a study module), the old doors (``app.engine``,
``app.service.engine``) are gone, ``app.service`` binds its names with ordinary imports (no string
table, no ``__getattr__``), and every name of the API is one the app uses."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
SERVICE = APP / "service"
API = "fedquad_core.api"
# Engine modules an app module may import besides the API: none. A pure-data module added here
# needs its reason beside it (torch-free, no file or process of its own).
ALSO_ALLOWED: dict[str, str] = {}


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    """Every module name ``path`` imports, at any level, as written (``from a import b``: ``a`` and
    ``a.b``); relative imports made absolute."""
    name = _name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return out


def engine_imports(path: Path, name: str | None = None) -> set[str]:
    """The engine modules ``path`` imports: ``import fedquad_core.x`` and ``from fedquad_core.x
    import y`` as ``fedquad_core.x``; ``from fedquad_core import api`` as ``fedquad_core.api``; the
    old doors (``app.engine``, ``app.service.engine``) as written. ``name``: the module's name when
    ``path`` is not under the project's root."""
    name = name or _name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if _engine(a.name)}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            if base in ("fedquad_core", "app", "app.service"):
                out |= {f"{base}.{a.name}" for a in node.names if _engine(f"{base}.{a.name}")}
            elif _engine(base):
                out.add(base)
    return out


def _engine(module: str) -> bool:
    return (module.split(".")[0] == "fedquad_core" or module in ("app.engine", "app.service.engine")
            or module.startswith(("app.engine.", "app.service.engine.")))


def _allowed(module: str) -> bool:
    return module == API or module.startswith(API + ".") or module in ALSO_ALLOWED


def test_the_reader_sees_every_kind_of_import(tmp_path):
    assert "app.service" in imported(APP / "views" / "runs.py")
    assert engine_imports(APP / "projection" / "worker.py") == {API}
    planted = tmp_path / "planted.py"  # read as the module app.planted
    planted.write_text("from fedquad_core import api, safe_io\nimport fedquad_core.runs.store as s\n"
                       "def f():\n    from fedquad_core.runs.locks import take\n    from .service import engine\n")
    found = engine_imports(planted, "app.planted")
    assert found == {API, "fedquad_core.safe_io", "fedquad_core.runs.store", "fedquad_core.runs.locks",
                     "app.service.engine"}
    assert [m for m in sorted(found) if not _allowed(m)] == ["app.service.engine", "fedquad_core.runs.locks",
                                                             "fedquad_core.runs.store", "fedquad_core.safe_io"]


def test_no_app_module_imports_an_engine_internal():
    modules = sorted(APP.rglob("*.py"))
    assert len(modules) > 30  # the whole app was read
    bad = {_name(p): sorted(m for m in engine_imports(p) if not _allowed(m)) for p in modules}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"app modules reaching the engine but through {API}: {bad}"
    assert not (APP / "engine.py").exists() and not (SERVICE / "engine.py").exists()  # one door, not layers


def test_no_app_module_builds_a_store_of_its_own():
    """One run reader: the app reads runs through ``api.run_view`` (damage named and skipped in one
    place) and reaches a store through ``api.run_view(root).store`` / ``api.study_view(root)``; no module builds a
    ``RunStore`` or ``StudyStore`` with its own ``except`` clauses around it."""
    built = []
    for path in sorted(APP.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name in ("RunStore", "StudyStore", "RunView", "StudyView"):
                    built.append(f"{_name(path)}:{node.lineno}")
    assert built == []


def test_the_service_package_binds_its_names_with_ordinary_imports():
    """No string table, no PEP 562 ``__getattr__``: a static tool follows ``service.X`` to its
    definition, and every name of ``__all__`` is bound when the package is imported."""
    tree = ast.parse((SERVICE / "__init__.py").read_text())
    functions = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert functions == [], functions
    assert "importlib" not in imported(SERVICE / "__init__.py")


def test_every_name_a_page_asks_of_service_is_bound():
    """``service.X`` in an app module is a name of ``app.service.__all__`` or one of its submodules:
    with ordinary imports a missing name is found here, not when a page first draws."""
    from app import service
    submodules = {p.stem for p in SERVICE.glob("*.py") if p.stem != "__init__"}
    missing = []
    for path in sorted(APP.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module == "app"
                   for a in n.names if a.name == "service"}
        missing += [f"{_name(path)}:{n.lineno}: service.{n.attr}" for n in ast.walk(tree)
                    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases
                    and n.attr not in service.__all__ and n.attr not in submodules]
    assert missing == []


def _api_names_used_by_the_app() -> set[str]:
    used: set[str] = set()
    for path in APP.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        aliases = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == API:
                used |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module == "fedquad_core":
                aliases |= {a.asname or a.name for a in node.names if a.name == "api"}
        used |= {n.attr for n in ast.walk(tree)
                 if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases}
    return used


NAMESPACES = ("stats", "words")  # API names that are namespaces of their own (study/arithmetic.py, vocab/wording.py)


def _namespace_names_used_by_the_app(app: Path = APP) -> dict[str, set[str]]:
    """Per namespace, the names the app asks of it: ``stats.X`` after ``from fedquad_core.api import
    stats`` (any alias), and ``api.stats.X`` where ``api`` is ``fedquad_core.api`` (any alias)."""
    used: dict[str, set[str]] = {ns: set() for ns in NAMESPACES}
    for path in app.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        apis, spaces = set(), {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "fedquad_core":
                apis |= {a.asname or a.name for a in node.names if a.name == "api"}
            elif isinstance(node, ast.ImportFrom) and node.module == API:
                spaces |= {a.asname or a.name: a.name for a in node.names if a.name in NAMESPACES}
        for n in ast.walk(tree):
            if not isinstance(n, ast.Attribute):
                continue
            if isinstance(n.value, ast.Name) and n.value.id in spaces:
                used[spaces[n.value.id]].add(n.attr)
            elif (isinstance(n.value, ast.Attribute) and n.value.attr in NAMESPACES
                  and isinstance(n.value.value, ast.Name) and n.value.value.id in apis):
                used[n.value.attr].add(n.attr)
    return used


def test_the_reader_sees_a_namespace_asked_either_way(tmp_path):
    (tmp_path / "a.py").write_text("from fedquad_core import api as engine\nx = engine.stats.compare\n")
    (tmp_path / "b.py").write_text("from fedquad_core.api import words as w\ny = w.p_words\nz = engine.words.takeaway\n")
    assert _namespace_names_used_by_the_app(tmp_path) == {"stats": {"compare"}, "words": {"p_words"}}


def test_every_name_of_each_namespace_is_one_the_app_uses():
    """The study's arithmetic and its words are two namespaces of the API (``api.stats``,
    ``api.words``), each with its own ``__all__``: held to the same rule as the API's names."""
    import types

    import fedquad_core.api as api
    assert sorted(n for n in api.__all__ if isinstance(getattr(api, n), types.ModuleType)) == sorted(NAMESPACES)
    used = _namespace_names_used_by_the_app()
    for ns in NAMESPACES:
        names = getattr(api, ns).__all__
        assert sorted(set(names) - used[ns]) == [], ns
        assert sorted(used[ns] - set(names)) == [], ns
        assert len(names) == len(set(names)), ns


def test_every_function_of_the_door_is_typed_and_documented():
    """A newcomer reads the door: each function of the API and of its namespaces has a docstring
    and an annotation on every parameter and on its return; each class a docstring."""
    import inspect
    import types

    import fedquad_core.api as api
    members = [(n, getattr(api, n)) for n in api.__all__]
    members += [(f"{ns}.{n}", getattr(getattr(api, ns), n)) for ns in NAMESPACES for n in getattr(api, ns).__all__]
    bad = []
    for name, obj in members:
        if isinstance(obj, types.ModuleType):
            if not (obj.__doc__ or "").strip():
                bad.append(f"{name}: no docstring")
        elif inspect.isclass(obj):
            if not (obj.__doc__ or "").strip():
                bad.append(f"{name}: no docstring")
        elif callable(obj):
            sig = inspect.signature(obj)
            untyped = [p.name for p in sig.parameters.values() if p.annotation is inspect.Parameter.empty]
            if not (obj.__doc__ or "").strip() or untyped or sig.return_annotation is inspect.Signature.empty:
                bad.append(f"{name}: docstring {bool((obj.__doc__ or '').strip())}, untyped {untyped}, "
                           f"return {'typed' if sig.return_annotation is not inspect.Signature.empty else 'untyped'}")
    assert bad == []


def test_every_name_of_the_api_is_one_the_app_uses():
    """The door holds what the app uses and no more: a name the app stops using leaves ``__all__``;
    a name the app asks for is in it."""
    import fedquad_core.api as api
    used = _api_names_used_by_the_app()
    assert sorted(set(api.__all__) - used) == []
    assert sorted(n for n in used if n not in api.__all__) == []
    assert len(api.__all__) == len(set(api.__all__))


def test_the_api_and_the_projection_worker_import_light():
    """Importing the engine's API and the projection worker pulls in neither torch nor the pages'
    layer (Streamlit, pandas); ``from app import service`` binds every name of its ``__all__``."""
    code = ("import sys; import fedquad_core.api, app.projection.worker; "
            "print(sorted(m for m in ('streamlit', 'pandas', 'torch') if m in sys.modules)); "
            "from app import service; print(service.runs_dir is __import__('app.roots').roots.runs_dir, "
            "[n for n in service.__all__ if not hasattr(service, n)])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "[]", out.stdout + out.stderr
    assert lines[-1] == "True []", out.stdout + out.stderr


def test_sessions_asking_the_cold_package_at_once_all_get_their_names():
    """Streamlit runs each session's script in its own thread: a class opening a cold server at
    once asks ``app.service`` for names together while the first ask is still binding them (0.65 s
    of imports). Every thread gets its name; none sees the package half bound (it did: the second
    session of a cold server got "module 'app.service' has no attribute 'keep_projection_worker'")."""
    code = """
import threading
from app import service
names = ["keep_projection_worker", "runs_table", "dataset_labels", "is_presenter", "check_configs", "store_for", "cancel",
         "methods"]
gate, got = threading.Barrier(len(names)), {}
def ask(name):
    gate.wait()
    try:
        got[name] = getattr(service, name) is not None
    except AttributeError as e:
        got[name] = str(e)
threads = [threading.Thread(target=ask, args=(n,)) for n in names]
for t in threads: t.start()
for t in threads: t.join()
print(sorted(n for n, ok in got.items() if ok is not True), got)
"""
    for _ in range(3):  # each a fresh interpreter, the package cold
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                             env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.startswith("[] "), out.stdout
