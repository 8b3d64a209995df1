import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import pytest

# scripts/serving.py (start the dashboard and wait for health) is importable as ``serving`` in every test.
_SCRIPTS = str(Path(__file__).resolve().parents[1] / "scripts")
if _SCRIPTS not in sys.path:
    sys.path.insert(0, _SCRIPTS)

# One thread per test process, no OpenMP spin-waiting (see docs/performance.md: one thread a process).
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# The network guard (tests/netguard/sitecustomize.py): this process and every Python process the tests
# start refuse and record any look-up or connection outside loopback; the run fails if one was
# recorded (``pytest_sessionfinish``). xdist's workers inherit the folder this process names.
_NETGUARD = Path(__file__).resolve().parent / "netguard"
_NETGUARD_OWN = "FEDQUAD_NETGUARD_DIR" not in os.environ  # a folder made here: removed at the end if empty
if _NETGUARD_OWN:
    os.environ["FEDQUAD_NETGUARD_DIR"] = tempfile.mkdtemp(prefix="fedquad-netguard-")
if str(_NETGUARD) not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_NETGUARD), os.environ.get("PYTHONPATH")]))
netguard = sys.modules.get("fedquad_netguard")
if netguard is None:
    _spec = importlib.util.spec_from_file_location("fedquad_netguard", _NETGUARD / "sitecustomize.py")
    netguard = sys.modules["fedquad_netguard"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(netguard)
netguard.install()



@pytest.fixture(autouse=True)
def _keep_main_module():
    """Streamlit's AppTest leaves the script it ran (app/main.py) as ``sys.modules["__main__"]``,
    and a process spawned later from this one (a study's pool, parallel clients: multiprocessing's
    "spawn" imports the parent's ``__main__`` first) then imported the dashboard and started a UMAP
    worker and a warm server on the default store (./runs), 4-5 s of CPU each time (measured:
    16 warm servers in one run of the suite). Each test ends with the process's own ``__main__``."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


class Recording(NamedTuple):
    root: Path     # the recorded root (studies, compacted runs, UMAP layouts)
    scratch: Path  # the full run store it trained into
    stdout: str    # what the script printed


@pytest.fixture(scope="session")
def quick_recording(tmp_path_factory) -> Recording:
    """``scripts/record_studies.py --quick``: every recorded study, tiny (one seed, two rounds, 200
    points a snapshot), made once per test process for the tests that read it (its test and the
    Lesson's: one unit of work, ``JOINED``). About 40 s and 60 s of CPU on two idle cores.
    ``$FEDQUAD_QUICK_RECORDED`` names a recording already made (its scratch store beside it)."""
    given = os.environ.get("FEDQUAD_QUICK_RECORDED")
    if given and (Path(given) / "studies" / "digits-local.json").is_file():
        return Recording(Path(given), Path(given).parent / "scratch", "")
    folder = tmp_path_factory.mktemp("quick")
    out, scratch = folder / "recorded", folder / "scratch"
    repo = Path(__file__).resolve().parents[1]
    proc = subprocess.run([sys.executable, str(repo / "scripts" / "record_studies.py"), "--quick", "--out", str(out),
                           "--scratch", str(scratch), "--points", "200"], capture_output=True, text=True,
                          timeout=1800, cwd=repo, env={**os.environ, "OMP_NUM_THREADS": "1",
                                                       "PYTHONPATH": os.pathsep.join([str(repo), os.environ["PYTHONPATH"]])})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return Recording(out, scratch, proc.stdout)


# ---- running on several cores (pytest-xdist; scripts/test.sh passes -n N --dist loadgroup) ----
# A unit of work goes to one worker: a test file (its module-scoped fixtures, e.g. a server, are
# built once), except the files in ``JOINED`` (several files sharing a costly session fixture: one
# unit) and in ``SPLIT``, whose tests are split by their first parameter (the layout sweep: one
# unit a mode, both viewports in one test; each unit starts its own server). xdist's own
# ``xdist_group`` does not work with pytest 9 (xdist 3.8 renames ``item._nodeid``, which pytest 9 no
# longer reads), hence the units here. The longest units start first (``tests/durations.json``:
# seconds per unit as last measured; a unit not in it counts as 1 s a test), so the last one to
# finish is short. ``FEDQUAD_WRITE_DURATIONS=1 bash scripts/test.sh`` writes the units that run
# measured into that file (on an idle machine: the order is all it is used for).
_DURATIONS = Path(__file__).resolve().parent / "durations.json"
SPLIT = {"tests/e2e/test_talk_layout.py"}  # ids "mode": a unit a mode
# files that share a session fixture too costly to make twice: one unit, so one worker makes it once
JOINED = {"tests/scripts/test_record_studies.py": "quick recording",  # ``quick_recording``
          "tests/app/views/test_lesson_recorded.py": "quick recording"}


def _unit(nodeid: str) -> str:
    """A test's unit of work: its file, for a file in ``SPLIT`` "file::parameter id", for a file in
    ``JOINED`` the name of the unit it shares."""
    file, _, rest = nodeid.partition("::")
    if file in SPLIT and "[" in rest:
        return f"{file}::{rest.split('[', 1)[1].rstrip(']')}"
    return JOINED.get(file, file)


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


def _netguard_verdict(session):
    """The network guard's verdict (in the controller, or a run without xdist): every refused
    look-up or connection of any process of the run, named, fails the run."""
    if hasattr(session.config, "workerinput"):
        return
    folder = os.environ["FEDQUAD_NETGUARD_DIR"]
    found = netguard.findings(folder)
    if found:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        say = reporter.write_line if reporter else print
        if reporter:
            reporter.ensure_newline()
            reporter.write_sep("=", "network guard: a look-up or connection outside loopback", red=True)
        for line in found:
            say(line)
        say(f"(recorded in {folder}; tests/netguard/sitecustomize.py)")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    elif _NETGUARD_OWN:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


@pytest.hookimpl(trylast=True)  # after the session's fixtures are torn down (their processes too)
def pytest_sessionfinish(session):
    _netguard_verdict(session)
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
