"""Fixtures for the browser end-to-end test: the dashboard started by scripts/serving.py
(own process group, killed in the finalizer together with any training run it launched),
and a headless Debian Chromium driven by Playwright's sync API.

When a browser test fails, its report carries what is needed to tell a hang from an error: the
server's Python stacks of every thread (faulthandler, on SIGUSR1) with the server log's tail, and
the page's text (an exception box, a spinner, or the page as it was)."""
from __future__ import annotations

import sys

import pytest

from browser_helpers import (CHROMIUM_ARGS, INSTALL_HINT, OUTSIDE, ROOT, chromium_path, dump_page, failed,
                             new_context, serve)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test item (``item.rep_call``), for the fixtures' teardown."""
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


@pytest.fixture(autouse=True)
def _only_loopback():
    """A browser test fails when a page of it asked a host outside 127.0.0.0/8 (the request was
    aborted in the browser: ``browser_helpers.new_context``)."""
    OUTSIDE.clear()
    yield
    asked, OUTSIDE[:] = list(OUTSIDE), []
    assert not asked, f"the pages asked {len(asked)} request(s) of another host: " + ", ".join(sorted(set(asked))[:10])


@pytest.fixture
def app_server(tmp_path, request):
    """Start the dashboard on a free port against an empty run store (and no recorded studies);
    yield (url, runs dir)."""
    (tmp_path / "recorded-empty").mkdir()
    yield from serve(tmp_path, tmp_path / "recorded-empty", request)


@pytest.fixture
def explore_server(tmp_path, request):
    """The dashboard with a small synthetic recorded study ("toy-alpha": alpha 0.1, 1, IID x
    FedAvg/FedQuad x 2 seeds) beside an empty run store; yield (url, runs dir)."""
    sys.path.insert(0, str(ROOT / "tests" / "app"))
    from study_helpers import write_study

    recorded = tmp_path / "recorded"
    write_study(recorded, "toy-alpha", {"alpha": [0.1, 1.0, None], "method": ["fedavg", "fedquad"], "seed": [0, 1]},
                points=100, dim=16, rounds=10, title="Toy alpha study")
    yield from serve(tmp_path, recorded, request, warm=False)


@pytest.fixture
def lesson_server(tmp_path, request):
    """The dashboard with the Lesson's synthetic recorded studies ("digits-local" and "fmnist-skew":
    alpha 0.1, 1, IID x FedAvg/FedQuad x 2 seeds, tests/app/lesson_helpers.py) beside an empty run store."""
    sys.path.insert(0, str(ROOT / "tests" / "app"))
    from lesson_helpers import write_lesson_root

    yield from serve(tmp_path, write_lesson_root(tmp_path / "recorded"), request, warm=False)


@pytest.fixture
def clients_server(tmp_path, request):
    """The dashboard with a tiny recorded study made by the engine ("digits-local": local epochs
    1 and 10 x FedAvg/FedQuad, alpha 0.1, seed 0, 2 rounds, local models measured) beside an
    empty run store."""
    from fedquad_core.config import RunConfig
    from fedquad_core.runs.store import RunStore
    from fedquad_core.study import StudySpec, run_study

    recorded = tmp_path / "recorded"
    base = RunConfig(dataset="digits", num_clients=6, alpha=0.1, rounds=2, snapshot_every=1, snapshot_points=200,
                     local_clients=4, seed=0)
    run_study(StudySpec("digits-local", base, {"local_epochs": [1, 10], "method": ["fedavg", "fedquad"]},
                        title="Local computation (test)"), RunStore(recorded), jobs=2, quiet=True)
    yield from serve(tmp_path, recorded, request, warm=False)


@pytest.fixture
def page(request):
    """A 1400x900 page in headless Debian Chromium (fails, never skips, when chromium is missing)."""
    exe = chromium_path()
    if exe is None:
        pytest.fail(INSTALL_HINT)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser test needs the playwright Python package: `.venv/bin/pip install playwright`")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        try:
            context = new_context(browser, viewport={"width": 1400, "height": 900}, accept_downloads=True)
            pg = context.new_page()
            pg.set_default_timeout(60_000)
            yield pg
            if failed(request):
                dump_page(pg)
            context.close()
        finally:
            browser.close()
