"""A class in real browsers (headless Chromium): the class server started as docs/classroom.md says
(`PORT=... bash scripts/start.sh --class --max-sessions 5`), one presenter context (the secret link)
and student contexts opening the students' link, the plain address, a wrong secret and the secret
of the server's previous start.

- every student: no Launch page in the navigation, no "Collapse in one minute", no "Share my
  position", no Delete / Cancel / Build slides; ``/launch`` typed by hand shows no launch form;
  the secret is nowhere in the page;
- the presenter: the Launch page, the demo button, the students' link; moving the Lesson to step 4
  moves every following student there (Explore's sliders followed: tests/app/test_follow.py);
- the cap: with 5 places taken a sixth browser gets "The class is full", and a place freed lets
  it in on reload;
- nothing leaves the machine: the server runs under the network guard (tests/netguard) and looks
  up or connects to nothing beyond loopback; the pages ask no other host (``new_context``: a
  request elsewhere is aborted and fails the test), their icon is the one shipped with the app.

Traffic stays on 127.0.0.1 (the printed links name 127.0.0.2, ``FEDQUAD_LINK_HOST``, so this
machine's network address is never read; they are opened with their host made 127.0.0.1). Needs
Debian's chromium and fails, never skips, without it."""
from __future__ import annotations

import re
import sys
import time

import pytest

from browser_helpers import (CHROMIUM_ARGS, INSTALL_HINT, ROOT, Dashboard, DashboardError, chromium_path, dump_pages,
                             free_port, local, new_context, poll, wait_idle)

netguard = sys.modules["fedquad_netguard"]  # tests/conftest.py

WRITE_LABELS = ("Collapse in one minute", "Share my position", "Delete", "Cancel", "Build slides", "Launch",
                "Compute")


def _start(tmp_path, port: int, warmup: bool = True):
    """The class server as a lecturer starts it, its network guard recording into tmp_path/netguard;
    ``warmup=False`` skips its warm-up visits (a start whose only use is the secret it printed).
    Returns the server, the secret, the follow code and the students' link as printed."""
    env = {"FEDQUAD_NETGUARD_DIR": str(tmp_path / "netguard"), "FEDQUAD_LINK_HOST": "127.0.0.2",
           **({} if warmup else {"FEDQUAD_WARMUP": "0"})}
    app = Dashboard(tmp_path / "runs", ROOT / "assets" / "recorded", port=port, warm=False,
                    command=["bash", "scripts/start.sh", "--class", "--max-sessions", "5"],
                    log=tmp_path / f"server-{port}-{time.monotonic_ns()}.log", env=env)
    try:
        app.wait_healthy(150, every=0.5)
    except DashboardError as e:
        pytest.fail(f"the class server did not report healthy: {e}")
    assert netguard.armed(app.proc.pid, tmp_path / "netguard"), "the class server runs without the network guard"
    text = app.log_text()
    secret = re.search(r"token=([A-Za-z0-9_-]+)", text).group(1)
    code = re.search(r"follow=([a-z0-9]+)", text).group(1)
    students = re.search(r"Students.*?(http://\S+)", text).group(1)
    assert students.startswith("http://127.0.0.2:"), students  # FEDQUAD_LINK_HOST, not this machine's address
    return app, secret, code, students


def _stop(app) -> None:
    app.stop(20)


def _open(browser, url: str):
    page = new_context(browser, viewport={"width": 1280, "height": 720}).new_page()
    page.set_default_timeout(90_000)
    page.goto(url)
    page.locator("h1, .js-plotly-plot, iframe").first.wait_for(timeout=120_000)
    return page


def _open_sidebar(page) -> None:
    """Open the sidebar where it starts collapsed (talk mode), as a user does with the arrow."""
    if page.evaluate("() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
                     " return s ? s.getBoundingClientRect().width : 0; }") < 100:
        page.get_by_test_id("stExpandSidebarButton").first.click()
    page.wait_for_function("() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
                           " return !!s && s.getBoundingClientRect().width > 200; }", timeout=30_000)
    time.sleep(1.0)


def _write_controls(page) -> list[str]:
    """The write controls a page shows (its buttons and the sidebar's page links)."""
    shown = [t.strip() for t in page.locator("button, [data-testid='stSidebarNavLink']").all_inner_texts()]
    return [t for t in shown if any(w in t for w in WRITE_LABELS)]


def _step(page) -> int | None:
    """The Lesson step a page shows: its title in the Back / Next row (talk mode) or its heading."""
    for title in page.locator(".fq-step-title, [data-testid='stMain'] h2").all_inner_texts():
        m = re.match(r"\s*(\d+) ·", title)
        if m:
            return int(m.group(1))
    return None


def test_a_class_in_browsers_presenter_students_and_the_cap(tmp_path):
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc, old_secret, _, _ = _start(tmp_path, port, warmup=False)  # a previous start: its secret must be dead now
    _stop(proc)
    proc, secret, code, students_link = _start(tmp_path, port)
    assert secret != old_secret
    base = f"http://127.0.0.1:{port}"
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
            try:
                presenter = _open(browser, f"{base}/?token={secret}&talk=1")
                assert "token=" not in presenter.url  # taken out of the address at once
                _open_sidebar(presenter)
                poll(lambda: presenter.get_by_text("Collapse in one minute").count() > 0, 30, 0.5, "the demo button in the presenter's sidebar")
                assert presenter.locator("[data-testid='stSidebarNavLink']", has_text="Launch").count()
                assert presenter.get_by_text(f"follow={code}").count()  # the students' link, on the presenter's page
                icon = presenter.evaluate("() => document.querySelector('link[rel~=\"icon\"]')?.href || ''")
                assert icon.startswith("data:image/svg+xml"), icon[:80]  # the app's own icon, fetched from nowhere

                students = {how: _open(browser, url) for how, url in (
                    ("students' link", local(students_link)), ("plain address", f"{base}/"),
                    ("wrong secret", f"{base}/?token={'x' * 32}"), ("old secret", f"{base}/?token={old_secret}"))}
                for how, page in students.items():
                    _open_sidebar(page)
                    assert not _write_controls(page), (how, _write_controls(page))
                    assert secret not in page.content() and "token=" not in page.url, how
                    assert page.get_by_text("Following the lecturer").count(), how

                # the presenter moves to the Lesson's step 4: every student follows
                # (within the presenter's session: a reload is a new session, which needs the presenter's link again)
                presenter.locator("[data-testid='stSidebarNavLink']", has_text="Lesson").first.click()
                presenter.locator(".fq-step-title").first.wait_for(timeout=120_000)
                while (_step(presenter) or 0) < 4:
                    wait_idle(presenter)  # a lecturer clicks Next on a page that has finished drawing
                    before, clicked = _step(presenter) or 0, time.monotonic()
                    presenter.get_by_role("button", name="Next →").click()
                    # one click, waited for: under the full suite's load a click has taken more than
                    # 20 s to move the step (a second click then moved it twice: none was lost)
                    poll(lambda: (_step(presenter) or 0) > before, 120, 0.5, f"the presenter's step {before + 1}",
                         lambda: _step(presenter))
                    took = time.monotonic() - clicked
                    if took > 5:
                        print(f"the presenter's Next at step {before} took {took:.0f} s to move the step")
                assert _step(presenter) == 4
                wait_idle(presenter)
                for how, page in students.items():
                    poll(lambda: _step(page) == 4, 60, 0.5, f"the student ({how}) to follow to step 4", lambda: _step(page))
                presenter.get_by_role("button", name="Next →").click()
                for how, page in students.items():
                    poll(lambda: _step(page) == 5, 60, 0.5, f"the student ({how}) to follow to step 5", lambda: _step(page))

                # a student who types the Launch page's address gets no launch form
                launch = students["plain address"]
                launch.goto(f"{base}/launch")
                launch.locator("h1, .js-plotly-plot, iframe").first.wait_for(timeout=120_000)
                time.sleep(2.0)
                assert not launch.get_by_role("button", name="Start", exact=True).count() and not _write_controls(launch)

                # the cap: five places (the presenter and four students) are taken
                full = _open(browser, f"{base}/")
                poll(lambda: full.get_by_text("The class is full").count() > 0, 30, 0.5, "the sixth browser's 'The class is full'")
                assert not _write_controls(full)
                students["wrong secret"].context.close()  # a place is freed
                time.sleep(2.0)
                full.reload()
                full.locator("h1, .js-plotly-plot, iframe").first.wait_for(timeout=120_000)
                poll(lambda: not full.get_by_text("The class is full").count(), 30, 0.5, "the freed place to let the browser in")
            except BaseException:
                dump_pages(browser)
                raise
            finally:
                browser.close()
    except BaseException:
        proc.dump()  # the server's log (its stacks: only the default command prints them)
        raise
    finally:
        _stop(proc)
    found = netguard.findings(tmp_path / "netguard")
    assert not found, "the class server looked up or connected beyond loopback:\n" + "\n".join(found)
