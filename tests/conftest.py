import os
import sys
from pathlib import Path

import pytest

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
# modules, in order. The longest units start first (``tests/durations.json``: seconds per file, and
# per group as "@name", as last measured by scripts/test_durations.py; a unit not in it counts as
# 1 s per test), so the last one to finish is short. ``FEDQUAD_WRITE_DURATIONS=1 bash scripts/test.sh``
# writes that file anew from the run (on an idle machine: the order is all it is used for).
_DURATIONS = Path(__file__).resolve().parent / "durations.json"


def _unit(nodeid: str) -> str:
    """A test's work unit: "@group" for a test marked ``xdist_group`` (xdist appends "@group" to
    its id), else its file."""
    if nodeid.rfind("@") > nodeid.rfind("]"):
        return "@" + nodeid.rsplit("@", 1)[1]
    return nodeid.split("::", 1)[0]


_measured: dict[str, float] = {}
_timeline: list[tuple] = []


def _writing() -> bool:
    return os.environ.get("FEDQUAD_WRITE_DURATIONS") == "1"



@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each report carries its unit (the worker's id has the "@group" the controller's lacks) and worker."""
    outcome = yield
    if _writing():
        outcome.get_result().user_properties += [("unit", _unit(item.nodeid)),
                                                 ("worker", os.environ.get("PYTEST_XDIST_WORKER", "main"))]


def pytest_runtest_logreport(report):
    if _writing():
        props = dict(report.user_properties)
        unit = props.get("unit", _unit(report.nodeid))
        _measured[unit] = _measured.get(unit, 0.0) + report.duration
        _timeline.append((props.get("worker", "?"), report.start, report.stop, report.when, report.nodeid))


def pytest_sessionfinish(session):
    if _measured and not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist)
        import json

        ordered = dict(sorted(((k, round(v, 1)) for k, v in _measured.items()), key=lambda kv: -kv[1]))
        _DURATIONS.write_text(json.dumps(ordered, indent=1) + "\n")
        if os.environ.get("FEDQUAD_TIMELINE"):  # every phase of every test: worker, start, stop (epoch s)
            Path(os.environ["FEDQUAD_TIMELINE"]).write_text(json.dumps(sorted(_timeline, key=lambda t: t[1])))


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
            return _unit(nodeid)

        def _weight(self, scope: str, unit: dict) -> float:
            """The unit's measured seconds (a group's own, under "@name"), else 1 s a test."""
            return float(seconds.get(scope) or len(unit))

        def _reschedule(self, node) -> None:
            """A new unit only when the worker is down to its last test (which it cannot start
            before it knows the next): xdist's own rule tops a worker up at two, so a short
            unit queued behind a long one waits there while the other worker runs dry."""
            if node.shutting_down:
                return
            if not self.workqueue:
                node.shutdown()
                return
            if self._pending_of(self.assigned_work[node]) > 1:
                return
            self._assign_work_unit(node)

        def _assign_work_unit(self, node) -> None:
            if not self._ordered:
                units = sorted(self.workqueue.items(), key=lambda kv: -self._weight(*kv))
                self.workqueue.clear()
                self.workqueue.update(units)
                self._ordered = True
            super()._assign_work_unit(node)

    return FilesAndGroups(config, log)
