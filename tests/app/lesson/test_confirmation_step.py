"""What fresh seeds make of the Lesson's claims (``app.lesson.confirmation``): step 9 shows every
registered row with its verdict, steps 2, 4, 6 and 7 carry the rows of their claims under the
takeaway, the deck and its notes carry them too, and nothing is said when no confirmation study
is in or while one records."""
from __future__ import annotations

import dataclasses

import pytest

from app.export import slides
from app.lesson import confirmation, steps as lesson
from app.lesson.data import load
from app.studies import confirmed
from fedquad_core import api


@pytest.fixture(scope="module")
def data():
    d, problem = load(False)
    assert d is not None, problem
    return d


def test_step_nine_lists_every_registered_row_with_its_verdict(data):
    rows = api.confirmation(confirmed.confirmed_dir())
    assert len(rows) == 9
    s = lesson.build_step(9, data, talk=True)
    assert s.problem is None and s.title == "9 · Confirmed on fresh seeds?"
    summary = next(f for f in s.figures if f.name == "registered_summary")
    assert list(summary.data["rows"]) == [r.id for r in rows]
    assert list(summary.data["verdict"]) == [r.words for r in rows]
    full = next(f for f in s.figures if f.name == "registered_rows")
    assert full.screen_only and list(full.data["verdict"]) == [r.verdict for r in rows]
    assert [line.split(":")[0] for line in s.confirmed_numbers] == [r.id for r in rows]
    # the takeaway counts every row once, in the verdicts' own words
    counts = [int(part.split()[0]) for part in s.takeaway.split(": ", 1)[1].rstrip(".").split(", ")]
    assert sum(counts) == len(rows) and len(s.takeaway.split()) <= api.words.MAX_WORDS
    # the deck: the summary on its page, each row's numbers in the notes
    pages = slides.paginate([slides.from_step(s)])
    assert all(line in pages[0].notes for line in s.confirmed_numbers)


def test_steps_teaching_a_registered_claim_carry_its_rows(data):
    by_id = {r.id: r for r in confirmed.rows()}
    for i in range(1, len(lesson.STEPS) + 1):
        s = lesson.build_step(i, data, talk=False)
        want = confirmed.STEP_ROWS.get(i, ())
        assert s.confirmed == [by_id[k].short for k in want], i
        if not want:
            continue
        assert [line.split(":")[0] for line in s.confirmed_numbers] == list(want)
        page = slides.paginate([slides.from_step(s)])[0]
        footer = " ".join(page.footer)
        assert "Fresh seeds:" in footer and all(f"{k}: {by_id[k].words}" in footer for k in want), (i, footer)
        assert all(line in page.notes for line in s.confirmed_numbers)


def test_no_confirmation_study_no_confirmation_words(data, tmp_path, monkeypatch):
    monkeypatch.setenv("FEDQUAD_CONFIRMED_DIR", str(tmp_path))
    s = lesson.build_step(9, data)
    assert s.problem and "No confirmation study" in s.problem
    assert lesson.build_step(4, data).confirmed == [] and lesson.build_step(4, data).confirmed_numbers == []


def test_a_study_still_recording_shows_no_number(data, monkeypatch):
    real = confirmed.rows()
    recording = "recording: 3 of 10 seeds in; no verdict before all are"
    fake = [dataclasses.replace(r, verdict=recording, sentence=recording, numbers="") if r.study == "confirm-fmnist-skew"
            else r for r in real]
    monkeypatch.setattr(confirmed, "rows", lambda root=None: fake)
    s = lesson.build_step(9, data)
    assert "3 still to record" in s.takeaway
    c7 = next(line for line in s.confirmed_numbers if line.startswith("C7:"))
    assert c7 == f"C7: {recording}" and not any(ch.isdigit() for ch in c7.replace("C7", "").replace("3 of 10", ""))
    assert confirmation.takeaway(fake) == s.takeaway
