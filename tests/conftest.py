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
# A unit of work goes to one worker: a test file (its module-scoped fixtures, e.g. a server, are
# built once), except the files in ``SPLIT``, whose tests are split by their first parameter (the
# layout sweep: one unit a mode, both viewports in one test; each unit starts its own server). xdist's own
# ``xdist_group`` does not work with pytest 9 (xdist 3.8 renames ``item._nodeid``, which pytest 9 no
# longer reads), hence the units here. The longest units start first (``tests/durations.json``:
# seconds per unit as last measured; a unit not in it counts as 1 s a test), so the last one to
# finish is short. ``FEDQUAD_WRITE_DURATIONS=1 bash scripts/test.sh`` writes the units that run
# measured into that file (on an idle machine: the order is all it is used for).
_DURATIONS = Path(__file__).resolve().parent / "durations.json"
SPLIT = {"tests/e2e/test_talk_layout.py"}  # ids "mode": a unit a mode


def _unit(nodeid: str) -> str:
    """A test's unit of work: its file, or for a file in ``SPLIT`` "file::parameter id"."""
    file, _, rest = nodeid.partition("::")
    if file in SPLIT and "[" in rest:
        return f"{file}::{rest.split('[', 1)[1].rstrip(']')}"
    return file


_measured: dict[str, float] = {}
_timeline: list[tuple] = []


def _writing() -> bool:
    return os.environ.get("FEDQUAD_WRITE_DURATIONS") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each report carries the worker that ran it (for ``FEDQUAD_TIMELINE``)."""
    outcome = yield
    if _writing():
        outcome.get_result().user_properties.append(("worker", os.environ.get("PYTEST_XDIST_WORKER", "main")))


def pytest_runtest_logreport(report):
    if _writing():
        unit = _unit(report.nodeid)
        _measured[unit] = _measured.get(unit, 0.0) + report.duration
        worker = dict(report.user_properties).get("worker", "?")
        _timeline.append((worker, report.start, report.stop, report.when, report.nodeid))


def pytest_sessionfinish(session):
    if _measured and not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist)
        import json

        try:  # the units this run measured replace theirs; the others keep their last measure
            known = json.loads(_DURATIONS.read_text())
        except (OSError, ValueError):
            known = {}
        known.update((k, round(v, 1)) for k, v in _measured.items())
        _DURATIONS.write_text(json.dumps(dict(sorted(known.items(), key=lambda kv: -kv[1])), indent=1) + "\n")
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

    class Units(LoadScopeScheduling):
        """Units of work (``_unit``), the heaviest handed out first."""

        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

        def _weight(self, scope: str, unit: dict) -> float:
            """The unit's measured seconds, else 1 s a test."""
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

    return Units(config, log)
