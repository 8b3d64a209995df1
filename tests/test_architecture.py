"""The layout's rules, read from the source with ``ast`` (every import, at any level, also inside
functions; relative imports resolved): no import cycle within the project (nor within the engine or
the app alone), the app reaches the engine through one door module, the engine never imports the
app or Streamlit, and the dashboard's pages live in ``app/views``. The project's one import-graph
checker (it also took over tests/app/test_layout.py's rules)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("fedquad_core", "app")
DOOR = "fedquad_core.api"  # the engine's public surface: the one engine module an app module imports


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every module ``name`` imports (absolute names); ``from X import y`` counts as X.y when
    X.y is a module of the project, else as X."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = [f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known]
            if subs:
                out.update(subs)
            if len(subs) < len(node.names):
                out.add(target)
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {name: _imports(name, path, known) for name, path in mods.items()}


def _project_edges(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    return {name: {t for t in targets if t in graph and t != name} for name, targets in graph.items()}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [_one_cycle(edges, set(c)) for c in comps]


def _one_cycle(edges: dict[str, set[str]], comp: set[str]) -> list[str]:
    """A concrete path start -> ... -> start inside one component (for the failure message)."""
    start = min(comp)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v] & comp):
            if w == start:
                return paths[v] + [start]
            if w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    return sorted(comp)


def test_import_graph_sees_relative_and_function_level_imports():
    graph = _graph()
    assert "fedquad_core.config.run" in graph["fedquad_core.config.preflight"]  # relative, module level
    assert "fedquad_core.train.runner" in graph["fedquad_core.study.pool"]  # relative, module level
    assert "fedquad_core.data" in graph["fedquad_core.config.limits"]  # relative, inside a function
    assert "fedquad_core.cli.main" in graph["fedquad_core.cli"]
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(edges) == [["a", "b", "c", "a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_the_engine():
    edges = _project_edges(_graph())
    engine = {k: {t for t in v if t.startswith("fedquad_core")} for k, v in edges.items() if k.startswith("fedquad_core")}
    cycles = _cycles(engine)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_no_import_cycle_in_the_project():
    cycles = _cycles(_project_edges(_graph()))
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_app_has_no_import_cycle():
    edges = _project_edges(_graph())
    app = {k: {t for t in v if t.split(".")[0] == "app"} for k, v in edges.items() if k.split(".")[0] == "app"}
    assert len(app) > 30  # the whole app was read
    cycles = _cycles(app)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_the_engine_imports_neither_the_app_nor_streamlit():
    bad = {name: sorted(t for t in targets if t.split(".")[0] in ("app", "streamlit"))
           for name, targets in _graph().items() if name.startswith("fedquad_core")}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"engine modules importing the UI: {bad}"


def test_the_app_reaches_the_engine_through_one_door():
    graph = _graph()
    assert DOOR in graph, f"the door module {DOOR} is missing"
    bad = {name: sorted(t for t in targets if t.split(".")[0] == "fedquad_core" and t != DOOR)
           for name, targets in graph.items() if name.startswith("app")}
    bad = {k: v for k, v in bad.items() if v}
    assert not bad, f"app modules importing fedquad_core other than {DOOR}: {bad}"
    assert sum(DOOR in targets for name, targets in graph.items() if name.startswith("app")) > 10  # the app does
    assert not any(t.split(".")[0] in ("app", "streamlit", "pandas", "torch") for t in graph[DOOR])  # light, UI-free


def test_pages_live_in_views_not_pages():
    # Streamlit reads a ``pages/`` folder beside the entry file as a multipage app of its own; with
    # st.navigation, a sidebar button's click was then lost (the one-click demo started nothing).
    assert not (ROOT / "app" / "pages").exists()
    assert (ROOT / "app" / "views" / "runs.py").exists()


LOOSE_LIMIT = 8  # modules loose at a package's top (``__init__`` and ``__main__`` included)


def _loose(package: str) -> list[str]:
    return sorted(p.name for p in (ROOT / package).glob("*.py"))


def test_the_engine_keeps_few_loose_modules_at_its_top():
    """One concept, one folder: training, the run store, numerics, configuration, studies and the
    command line each live in their folder; the engine's top holds at most a few modules."""
    loose = _loose("fedquad_core")
    assert len(loose) <= LOOSE_LIMIT, f"{len(loose)} loose modules at fedquad_core's top: {loose}"
    for folder in ("train", "runs", "numerics", "config", "study", "cli", "methods", "data"):
        assert (ROOT / "fedquad_core" / folder / "__init__.py").exists(), folder


def test_the_app_keeps_few_loose_modules_at_its_top():
    loose = _loose("app")
    assert len(loose) <= LOOSE_LIMIT, f"{len(loose)} loose modules at app's top: {loose}"

