"""The class's poll in real browsers (headless Chromium): the class server started as
docs/classroom.md says (as tests/e2e/test_class_browser.py does), one presenter page on the Lesson's
step 4 in talk mode and one following student page, both 1280x720.

The presenter clicks "Ask the class": the student's page shows the question without a reload (the
follow fragment's re-run); the student picks an answer; the presenter's live count says 1; the
presenter reveals; the student's page shows the tally with its own answer marked, and no radio.
The student's page never offers Ask, Reveal or Clear. Prints how long the room waited (the
presenter's click to the student's redraw). Needs Debian's chromium and fails, never skips,
without it."""
from __future__ import annotations

import time

import pytest

from browser_helpers import CHROMIUM_ARGS, INSTALL_HINT, chromium_path, dump_pages, free_port, poll, wait_idle
from test_class_browser import _open, _start, _step, _stop

from app.lesson.questions import QUESTIONS


def test_a_presenter_asks_a_student_answers_the_tally_is_revealed(tmp_path):
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc, secret, _, _ = _start(tmp_path, port)
    base = f"http://127.0.0.1:{port}"
    assert 4 in QUESTIONS  # step 4 has a question to pose
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
            try:
                presenter = _open(browser, f"{base}/lesson?token={secret}&talk=1&step=4")
                presenter.locator(".fq-step-title").first.wait_for(timeout=120_000)
                assert _step(presenter) == 4
                student = _open(browser, f"{base}/?talk=1")
                poll(lambda: _step(student) == 4, 90, 0.5, "the student to follow to step 4", lambda: _step(student))
                assert student.get_by_text("Following the lecturer").count()
                wait_idle(presenter)
                presenter.screenshot(path=tmp_path / "poll-presenter-before.png")
                clicked = time.monotonic()
                presenter.get_by_role("button", name="Ask the class").click()
                poll(lambda: student.get_by_text("Predict").count() > 0, 60, 0.25, "the question on the student's page")
                print(f"Ask on the presenter's page to the question on the student's: {time.monotonic() - clicked:.1f} s")
                for name in ("Ask the class", "Reveal", "Clear"):
                    assert not student.get_by_role("button", name=name).count(), name
                wait_idle(student)
                student.screenshot(path=tmp_path / "poll-student-open.png")  # kept with the test's tmp folder
                student.locator("[data-testid='stRadio'] [role='radiogroup'] label").first.click()
                poll(lambda: student.get_by_text("Counted").count() > 0, 60, 0.25, "the student's answer counted")
                poll(lambda: presenter.get_by_text("1 answer").count() > 0, 30, 0.25, "the presenter's live count")

                wait_idle(presenter)
                clicked = time.monotonic()
                presenter.get_by_role("button", name="Reveal").click()
                poll(lambda: student.get_by_text("← yours").count() > 0, 60, 0.25, "the tally on the student's page")
                print(f"Reveal on the presenter's page to the tally on the student's: {time.monotonic() - clicked:.1f} s")
                # the answer form leaves with the same redraw (its old element can outlive the tally by a
                # moment on a loaded machine)
                poll(lambda: student.locator("[data-testid='stRadio']").count() == 0, 30, 0.25,
                     "the answer form to leave the student's page", lambda: student.locator("[data-testid='stRadio']").count())
                assert presenter.get_by_text("1 (100%)").count()
                assert student.locator(".js-plotly-plot").count(), "the step's figures beside the tally"
                wait_idle(presenter)
                presenter.screenshot(path=tmp_path / "poll-presenter-revealed.png")
                print(f"screenshots: {tmp_path}")
            except BaseException:
                dump_pages(browser)
                raise
            finally:
                browser.close()
    except BaseException:
        proc.dump()
        raise
    finally:
        _stop(proc)
