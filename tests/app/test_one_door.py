"""One door: the app reaches the engine through the package ``app.service`` only. Read from the
source with ``ast`` (every import, also those inside functions; relative imports resolved): no
module outside ``app/service`` imports ``fedquad_core`` or the old door ``app.engine``, and inside
``app/service`` only its ``engine`` module imports ``fedquad_core``."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
SERVICE = APP / "service"


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


def _engine(module: str) -> bool:
    return module.split(".")[0] == "fedquad_core" or module == "app.engine" or module.startswith("app.engine.")


def test_the_reader_sees_every_kind_of_import():
    assert "app.service" in imported(APP / "views" / "runs.py")
    assert {"app.service.engine", "app.service.engine.RunStore"} <= imported(APP / "projection" / "worker.py")


def test_no_module_outside_app_service_imports_the_engine():
    outside = [p for p in sorted(APP.rglob("*.py")) if SERVICE not in p.parents]
    assert len(outside) > 30  # the whole app was read
    bad = {_name(p): sorted(i for i in imported(p) if _engine(i)) for p in outside}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"app modules reaching the engine but through app.service: {bad}"
    assert not (APP / "engine.py").exists()  # one door, not two layers


def test_inside_app_service_only_its_engine_module_imports_fedquad_core():
    doors = sorted(_name(p) for p in SERVICE.rglob("*.py") if any(_engine(i) for i in imported(p)))
    assert doors == ["app.service.engine"]


def test_the_service_package_binds_its_names_on_first_use():
    """Importing ``app.service.engine`` (the projection worker, the figure modules) does not pull
    in the pages' service layer (Streamlit, pandas), and a name asked of ``app.service`` is there."""
    code = ("import sys; import app.service.engine, app.projection.worker; "
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
names = ["keep_projection_worker", "runs_table", "ALPHAS", "is_presenter", "check_configs", "store", "cancel",
         "method_names"]
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
