"""Presenter mode in a real headless Chromium at a projector's 1280x720, as a lecturer gives the
talk with a clicker, from one link opened once (no link is reopened):

- enter presenter mode with the sidebar's toggle (talk mode, the Lesson at step 1);
- present three steps with the keys a clicker sends (PageDown, ArrowRight, Space): each steps the
  Lesson on and none scrolls the page; PageUp steps back;
- no Plotly toolbar over a figure on hover;
- switch page from the presenter bar's page menu (to Live, and back to the Lesson) and see the
  one-minute demo offered in it;
- leave presenter mode with Escape: the page list and the sidebar's toggle are back, and the keys
  scroll the page again (nothing steps).

Traffic stays on 127.0.0.1. Needs Debian's chromium and fails, never skips, without it."""
from __future__ import annotations

import re
import time

import pytest

from browser_helpers import CHROMIUM_ARGS, INSTALL_HINT, chromium_path, dump_pages, new_context, poll, wait_idle


def _step(page) -> int | None:
    for title in page.locator(".fq-step-title").all_inner_texts():
        m = re.search(r"·\s*(\d+)\s*/\s*\d+", title)
        if m:
            return int(m.group(1))
    return None


def _wait_step(page, n: int) -> float:
    """Wait for step ``n`` on the screen; the seconds it took (printed by the test: what the room
    sees of a key press, on this machine)."""
    t0 = time.monotonic()
    poll(lambda: _step(page) == n, 60, 0.05, f"the Lesson at step {n}", state=lambda: _step(page))
    took = time.monotonic() - t0
    wait_idle(page)
    return took


def _scroll(page) -> float:
    return page.evaluate("() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
                         " return Math.max(window.scrollY, m ? m.scrollTop : 0); }")


def test_present_three_steps_with_a_clickers_keys_switch_page_and_leave(lesson_server):
    url, _ = lesson_server
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            page = new_context(browser, viewport={"width": 1280, "height": 720}).new_page()  # other hosts aborted
            page.set_default_timeout(90_000)
            page.goto(f"{url}/lesson?talk=1&step=1")  # the one link this test opens
            _wait_step(page, 1)

            # enter: the sidebar's toggle (talk mode starts with the sidebar collapsed)
            page.get_by_test_id("stExpandSidebarButton").first.click()
            page.get_by_text("Presenter mode", exact=True).click()
            page.locator(".st-key-fq_presenter").wait_for(timeout=60_000)
            wait_idle(page)
            assert not page.get_by_test_id("stSidebarNav").count(), "presenter mode still shows the page list"
            exit_box = page.get_by_role("button", name="Exit presenter").bounding_box()
            assert exit_box and exit_box["y"] >= 0 and exit_box["y"] + exit_box["height"] <= 720, exit_box

            # three steps with a clicker's keys, none of them scrolling the page
            page.mouse.click(640, 400)  # the page has the focus, as after the lecturer's last click
            for n, key in ((2, "PageDown"), (3, "ArrowRight"), (4, "Space")):
                page.keyboard.press(key)
                print(f"{key}: step {n} on the screen {_wait_step(page, n):.2f} s after the key")
                assert _scroll(page) == 0, f"{key} scrolled the page by {_scroll(page)} px"
            page.keyboard.press("PageUp")
            _wait_step(page, 3)
            assert page.evaluate("() => window.fqPresenterKeys") == 4
            page.locator(".js-plotly-plot").first.hover()  # no Plotly toolbar appears over a figure
            page.wait_for_timeout(500)
            assert not page.locator(".modebar-container").filter(visible=True).count()

            # another page from the bar's menu, then back; the demo is offered there
            page.get_by_role("button", name="Pages").click()
            assert page.get_by_text("Collapse in one minute").count()
            page.get_by_test_id("stPopoverBody").get_by_text("Live", exact=True).click()
            poll(lambda: page.evaluate("() => location.pathname").endswith("/live") and page.locator(".st-key-acc").count(),
                 90, 0.25, "the Live page", state=lambda: page.evaluate("() => location.href"))
            wait_idle(page)
            assert page.locator(".st-key-fq_presenter").count(), "presenter mode lost on a page switch"
            page.get_by_role("button", name="Pages").click()
            page.get_by_test_id("stPopoverBody").get_by_text("Lesson", exact=True).click()
            _wait_step(page, 3)

            # leave with Escape: the bar goes, the page list and the toggle come back
            page.mouse.click(640, 400)
            page.keyboard.press("Escape")
            page.locator(".st-key-fq_presenter").wait_for(state="detached", timeout=60_000)
            wait_idle(page)
            assert "presenter" not in page.evaluate("() => location.search")
            if page.evaluate("() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().width") < 100:
                page.get_by_test_id("stExpandSidebarButton").first.click()
            page.get_by_test_id("stSidebarNav").wait_for(timeout=30_000)  # the page list is back
            page.mouse.click(640, 400)
            page.keyboard.press("PageDown")
            page.wait_for_timeout(1500)
            assert _step(page) == 3, "a key stepped the Lesson after presenter mode was left"
            assert page.evaluate("() => window.fqPresenterKeys") == 4
        except Exception:
            dump_pages(browser)
            raise
        finally:
            browser.close()
