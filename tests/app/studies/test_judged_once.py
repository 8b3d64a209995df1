"""The confirmation rows and the claims table are judged once per state of their studies, also
when a class asks at once: each session is a thread of the one server, and 30 sessions each
reading every row's runs again had made a second class's Explore 3.6x slower
(``benchmarks/class_at_once.py``). Here six threads ask together; the judgement runs once."""
from __future__ import annotations

import threading
import time

from app.lesson import data as lesson_data
from app.studies import confirmed
from fedquad_core import api


def _together(fn, n: int = 6) -> None:
    start = threading.Barrier(n)

    def ask():
        start.wait()
        fn()
    threads = [threading.Thread(target=ask) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def test_a_class_asking_the_confirmation_at_once_judges_it_once(tmp_path, monkeypatch):
    (tmp_path / "studies").mkdir()
    (tmp_path / "studies" / "confirm-x.json").write_text("{}")
    calls = []

    def slow(root):
        calls.append(root)
        time.sleep(0.2)  # the real one reads every row's runs: seconds
        return ["row"]
    monkeypatch.setattr(api, "confirmation", slow)
    monkeypatch.setattr(confirmed, "_ROWS", {})
    _together(lambda: confirmed.rows(tmp_path))
    assert len(calls) == 1 and confirmed.rows(tmp_path) == ["row"] and len(calls) == 1


def test_a_class_asking_the_claims_at_once_checks_them_once(tmp_path, monkeypatch):
    (tmp_path / "studies").mkdir()
    calls = []

    def slow(root):
        calls.append(root)
        time.sleep(0.2)
        return "table"
    monkeypatch.setattr(api, "claims", slow)
    monkeypatch.setattr(lesson_data, "_CLAIMS", {})
    data = lesson_data.LessonData(tmp_path, {"name": "x", "points": []}, "recorded")
    _together(lambda: lesson_data.claims_of(data))
    assert len(calls) == 1 and lesson_data.claims_of(data) == "table" and len(calls) == 1
