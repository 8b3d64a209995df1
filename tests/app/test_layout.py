"""The dashboard's layout rules, read from the source (every import, also those inside functions):
no import cycle among the app's modules, and ``app.service.engine`` the only app module that
imports ``fedquad_core`` (``test_one_door.py``: nothing outside ``app/service`` reaches the engine
but through ``app.service``)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"
DOOR = "app.service.engine"


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in APP.rglob("*.py")}


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a import b`` counts as ``a.b`` when that is a module)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in MODULES}
    return out


def graph() -> dict[str, set[str]]:
    return {m: {i for i in imports(p) if i in MODULES and i != m} for m, p in MODULES.items()}


def cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a path a -> ... -> a, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str):
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_the_cycle_finder_finds_a_planted_cycle():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


def test_the_app_has_no_import_cycle():
    assert len(MODULES) > 30  # the whole app was read
    assert cycle(graph()) is None, " -> ".join(cycle(graph()))


def test_only_the_door_imports_the_engine():
    doors = sorted(m for m, p in MODULES.items() if any(i.split(".")[0] == "fedquad_core" for i in imports(p)))
    assert doors == [DOOR]


def test_pages_live_in_views_not_pages():
    # Streamlit reads a ``pages/`` folder beside the entry file as a multipage app of its own; with
    # st.navigation, a sidebar button's click was then lost (the one-click demo started nothing).
    assert not (APP / "pages").exists()
    assert (APP / "views" / "runs.py").exists()
