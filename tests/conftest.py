import os
import sys
from pathlib import Path

# scripts/serving.py (start the dashboard and wait for health) is importable as ``serving`` in every test.
_SCRIPTS = str(Path(__file__).resolve().parents[1] / "scripts")
if _SCRIPTS not in sys.path:
    sys.path.insert(0, _SCRIPTS)

# One thread per test process, no OpenMP spin-waiting (see docs/performance.md: one thread a process).
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


# ---- running on several cores (pytest-xdist; scripts/test.sh passes -n N --dist loadgroup) ----
# A module's tests stay on one worker (its module-scoped fixtures, e.g. one server for a browser
# sweep, are built once); tests marked ``@pytest.mark.xdist_group("name")`` share one worker across
# modules, in order. The longest modules start first (``tests/durations.json``: seconds per file as
# last measured; a file not in it counts as 1 s per test), so the last one to finish is short.
_DURATIONS = Path(__file__).resolve().parent / "durations.json"


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    import json

    from xdist.scheduler import LoadScopeScheduling

    try:
        seconds = json.loads(_DURATIONS.read_text())
    except (OSError, ValueError):
        seconds = {}

    class FilesAndGroups(LoadScopeScheduling):
        """Work units: a group (``xdist_group``) or else a test file; the heaviest handed out first."""

        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            if nodeid.rfind("@") > nodeid.rfind("]"):
                return "@" + nodeid.rsplit("@", 1)[1]
            return nodeid.split("::", 1)[0]

        def _weight(self, scope: str, unit: dict) -> float:
            files = {n.split("::", 1)[0] for n in unit} if scope.startswith("@") else {scope}
            known = sum(seconds.get(f, 0.0) for f in files)
            return known if known else float(len(unit))

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:
                units = sorted(self.workqueue.items(), key=lambda kv: -self._weight(*kv))
                self.workqueue.clear()
                self.workqueue.update(units)
                self._ordered = True
            super()._assign_work_unit(node)

    return FilesAndGroups(config, log)
