"""The registered confirmatory rows (docs/verdicts.md) as the Lesson, Explore and the deck show
them: judged by ``fedquad_core.api.confirmation`` on the confirmation studies (``app.roots.
confirmed_dir``), once per state of their study files (it reads every row's runs: seconds).
Pure (no streamlit): the deck and the take-home file read it too."""
from __future__ import annotations

import threading
from pathlib import Path

from fedquad_core import api
from app.roots import confirmed_dir

_ROWS: dict[tuple, list[api.ConfirmedRow]] = {}
# One judgement at a time: a class opening a page at once (each session a thread of the one
# server) waits for the first session's answer instead of each reading every row's runs again
# (30 sessions had made a second class's Explore 3.6x slower: benchmarks/class_at_once.py).
_JUDGING = threading.Lock()

# The confirmatory rows each Lesson step teaches from (the registration's ids): the step's
# takeaway rests on the recorded studies; these say what fresh seeds, judged by rules fixed
# before their runs, make of the same claim.
STEP_ROWS: dict[int, tuple[str, ...]] = {2: ("C3",), 4: ("C1", "C2", "C9"), 6: ("C4", "C6", "C8"),
                                        7: ("C5", "C7")}


def _stamp(root: Path) -> tuple:
    """The study files' names and times, and the store folder's time (a run folder added). A
    run's status changing inside its folder is not seen: the shipped studies are finished."""
    try:
        files = sorted((root / "studies").glob("*.json"))
        return tuple((f.name, f.stat().st_mtime_ns) for f in files) + ((root.stat().st_mtime_ns,) if files else ())
    except OSError:
        return ()


def rows(root: Path | None = None) -> list[api.ConfirmedRow]:
    """Every registered row (none when ``root`` holds no confirmation study)."""
    root = Path(root or confirmed_dir())
    key = (str(root), _stamp(root))
    if not key[1]:
        return []
    with _JUDGING:
        if key not in _ROWS:
            judged = api.confirmation(root)
            _ROWS.clear()
            _ROWS[key] = judged
        return _ROWS[key]


def for_step(step: int, root: Path | None = None) -> list[api.ConfirmedRow]:
    """The rows Lesson step ``step`` teaches from, in the registration's order."""
    wanted = STEP_ROWS.get(step, ())
    return [r for r in rows(root) if r.id in wanted]


def for_dataset(dataset: str, root: Path | None = None) -> list[api.ConfirmedRow]:
    """The rows whose confirmation study trains on ``dataset`` (Explore: the study shown)."""
    return [r for r in rows(root) if r.dataset == dataset]
