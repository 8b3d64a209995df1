"""The browser tests' own guard (``browser_helpers.new_context``, every browser test's contexts): a
page's request to a host outside 127.0.0.0/8 is aborted in the browser, so nothing is sent, and
recorded, which fails the test (tests/e2e/conftest.py). Needs Debian's chromium and fails, never
skips, without it."""
from __future__ import annotations

import pytest

from browser_helpers import CHROMIUM_ARGS, INSTALL_HINT, OUTSIDE, chromium_path, is_local_url, local, new_context, poll


def test_loopback_is_local_and_a_link_is_made_local():
    assert is_local_url("http://127.0.0.1:8501/") and is_local_url("http://127.0.0.2/x") and is_local_url("data:,x")
    assert not is_local_url("https://fonts.gstatic.com/s/i/x.svg") and not is_local_url("http://localhost.example/")
    assert local("http://192.0.2.7:8501/?follow=abc&talk=1") == "http://127.0.0.1:8501/?follow=abc&talk=1"


def test_a_request_to_another_host_is_aborted_and_recorded():
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            page = new_context(browser).new_page()
            page.set_content('<img src="http://example.com/pixel.png">'
                             '<link rel="stylesheet" href="https://fonts.example/icons.css">')
            poll(lambda: len(OUTSIDE) >= 2, 20, 0.2, "the page's two requests to be stopped")
            page.wait_for_function("() => document.images[0].complete")
            assert page.evaluate("() => document.images[0].naturalWidth") == 0  # nothing came back
        finally:
            browser.close()
    asked, OUTSIDE[:] = sorted(OUTSIDE), []  # (this test's requests are the expected ones)
    assert asked == ["http://example.com/pixel.png", "https://fonts.example/icons.css"], asked
