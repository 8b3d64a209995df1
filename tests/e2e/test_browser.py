"""End to end in a real headless Chromium: the Partitions heatmap follows the α slider, the
"Collapse in one minute" preset (shortened) starts from the Launch page, the Live accuracy curve
gains points while the runs train, and a figure downloads as SVG; the Clients page draws a recorded
study's measured clients and follows its round slider.

Run alone with ``.venv/bin/python -m pytest -q tests/e2e`` (about 35 s on 2 cores); needs Debian's
chromium (``apt-get install chromium``) and fails, never skips, without it."""
from __future__ import annotations

import re
import time

from fedquad_core.config.alpha import alpha_text  # the one way an α is written (Partitions)
from fedquad_core.runs.store import RunStore

from browser_helpers import poll, wait_idle

ROUNDS = 20  # ~0.5 s per round on 2 busy cores: long enough to watch the curve grow, short enough
CLIENTS = 50  # the preset's; fewer clients make rounds so short that a fast machine finishes before Live looks


def plot_data(page, scope: str = "") -> str:
    """The first plotly figure's trace data (under ``scope``) as JSON, read from the DOM."""
    return page.locator(f"{scope} .js-plotly-plot".strip()).first.evaluate("g => JSON.stringify(g.data)")


def trace_points(page, scope: str) -> int:
    """Number of x values of the first trace of the plotly figure under ``scope`` (0 when not drawn)."""
    loc = page.locator(f"{scope} .js-plotly-plot")
    if loc.count() == 0:
        return 0
    return loc.first.evaluate("g => (g._fullData && g._fullData[0] && g._fullData[0].x) ? g._fullData[0].x.length : 0")


def go(page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"] a', has_text=title).click()
    page.locator("h1", has_text=title).wait_for()
    wait_idle(page)


def wait_value(page, key: str, value) -> None:
    """Wait until the input of widget ``key`` shows ``value``."""
    page.wait_for_function(
        f"() => document.querySelector('.st-key-{key} input').value === '{value}'", timeout=30_000)


def set_number(page, key: str, value: int) -> None:
    box = page.locator(f".st-key-{key} input")
    box.fill(str(value))
    box.press("Enter")
    wait_value(page, key, value)
    wait_idle(page)


def href(page) -> str:
    """The page's address now (``page.url`` is only refreshed by events, which a loop of plain
    reads and sleeps never lets Playwright take in: Streamlit changes the query string in place)."""
    return page.evaluate("() => location.href")


def switcher_state(page) -> str:
    """The switcher's position, its last move's seq and the last seq the server applied, and the link."""
    frames = [f for f in page.frames if f != page.main_frame]
    try:
        s = frames[0].evaluate("() => JSON.stringify({pos: fqState.pos, seq: fqState.seq, applied: fqState.applied})")
    except Exception as e:  # noqa: BLE001 - only said in a failure message
        s = f"(not readable: {e})"
    return f"switcher {s}, link {href(page)}"


def test_dashboard_in_browser(app_server, page, tmp_path):
    url, runs = app_server
    t0 = time.monotonic()

    # ---- Partitions: the α slider redraws the heatmap --------------------------------------------
    page.goto(url)
    page.locator("h1", has_text="Partitions").wait_for(timeout=90_000)
    page.locator(".st-key-heat_main .js-plotly-plot").wait_for(timeout=90_000)
    wait_idle(page, 90_000)
    summary = page.locator("p", has_text=re.compile(r"of \d+ clients have < 3 classes")).first
    before_text, before_data = summary.inner_text(), plot_data(page)
    assert alpha_text(0.3, "label") in before_text, before_text
    slider = page.locator('.st-key-p_alpha input[type="range"]')
    slider.focus()
    slider.press("ArrowRight")  # 0.3 -> 0.5
    page.locator("p", has_text=alpha_text(0.5, "label")).first.wait_for(timeout=60_000)
    wait_idle(page)
    poll(lambda: plot_data(page) != before_data, 30, 0.5, "the heatmap to change after moving the α slider")
    title = page.locator(".js-plotly-plot").first.evaluate("g => g.layout.title.text")
    assert alpha_text(0.5, "label") in title, title  # the figure's title follows too
    page.locator("p", has_text=alpha_text(0.3, "label")).wait_for(state="detached", timeout=60_000)

    # ---- Launch: the preset, shortened, started -----------------------------------------------------
    go(page, "Launch")
    page.locator(".st-key-l_preset [role='combobox']").click()
    page.get_by_role("option", name="Collapse in one minute").click()
    page.get_by_text("FedAvg vs FedQuad on sklearn digits").wait_for(timeout=30_000)
    # The note is drawn above the form, so it shows while the form below is still the last run's:
    # wait for the preset's value itself (reading at once failed on a slow machine: '20').
    wait_value(page, "l_rounds", 30)  # the preset filled the form
    wait_idle(page)
    set_number(page, "l_rounds", ROUNDS)
    if CLIENTS != 50:
        set_number(page, "l_num_clients", CLIENTS)
    page.locator(".st-key-l_start button").click()
    page.get_by_text(re.compile(r"Started 2 run\(s\) in group")).wait_for(timeout=60_000)
    assert runs.exists() and len([p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]) == 2

    # ---- Live: the accuracy curve gains points ---------------------------------------------------
    go(page, "Live")
    acc = ".st-key-acc"
    first = poll(lambda: trace_points(page, acc), 150, 1.0, "the first accuracy point on the Live page")
    assert first < ROUNDS, f"runs already finished before the second look ({first} points)"
    second = poll(lambda: (n := trace_points(page, acc)) > first and n, 150, 1.0,
                  f"the accuracy curve to grow beyond {first} points")
    assert second > first
    print(f"accuracy points seen on the Live page: {first}, then {second}")

    # Wait for the end (the page stops refreshing: it re-runs once when the runs finish). The
    # Download menus sit outside the refreshing charts, so they are only redrawn by that re-run.
    store = RunStore(runs)
    poll(lambda: all(i.state == "finished" for i in store.list_runs()), 150, 1.0, "both runs to finish")
    page.locator('[data-testid="stDataFrame"]').wait_for()
    poll(lambda: trace_points(page, acc) >= ROUNDS, 60, 1.0, f"{ROUNDS} accuracy points")
    wait_idle(page)
    time.sleep(2)
    wait_idle(page)

    # ---- Download: the accuracy figure as SVG, from the Download menu under the chart ----------------
    menu = page.locator(".st-key-dl_acc button").first
    menu.wait_for(timeout=30_000)
    assert "Download" in menu.inner_text()
    menu.click()
    button = page.locator(".st-key-dl_acc-svg button")
    button.wait_for(timeout=30_000)
    assert page.locator(".st-key-dl_ratio-svg button").count() == 0 or \
        not page.locator(".st-key-dl_ratio-svg button").is_visible()  # only this figure's menu opened
    with page.expect_download(timeout=90_000) as info:
        button.click()
    download = info.value
    assert download.suggested_filename.endswith(".svg"), download.suggested_filename
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    text = path.read_text(errors="replace")
    assert text.lstrip().startswith(("<svg", "<?xml")), text[:200]
    assert "svg" in text and "Test accuracy" in text, text[:500]

    assert time.monotonic() - t0 < 240, f"the browser test took {time.monotonic() - t0:.0f} s"


def test_lesson_in_browser(lesson_server, page, tmp_path):
    """Lesson: ?step=1, Next through all eight steps (the URL follows), Back twice; two figures
    added to "My deck" and the deck downloaded as a 2-page PDF."""
    url, _ = lesson_server
    page.goto(f"{url}/lesson?step=1")
    page.locator("h2", has_text="1 ·").wait_for(timeout=90_000)
    wait_idle(page, 90_000)
    for i in range(2, 9):
        page.locator(".st-key-l_next button").first.click()
        page.locator("h2", has_text=f"{i} ·").wait_for(timeout=60_000)
        wait_idle(page)
        assert f"step={i}" in href(page), href(page)
        page.locator(".js-plotly-plot").first.wait_for(timeout=60_000)  # plotly draws after the script ends
    page.locator(".st-key-l_back button").first.click()
    page.locator("h2", has_text="7 ·").wait_for(timeout=60_000)
    wait_idle(page)
    page.locator(".st-key-l_back button").first.click()
    page.locator("h2", has_text="6 ·").wait_for(timeout=60_000)
    wait_idle(page)
    assert "step=6" in href(page)

    for key in ("deck-dl_l6_0", "deck-dl_l6_1"):
        page.locator(f".st-key-{key} button").first.click()
        wait_idle(page)
    page.get_by_text("My deck (2 figures)").wait_for(timeout=90_000)  # (a loaded CI machine: 30 s was once too short)
    page.locator(".st-key-deck_export_build button").first.click()
    button = page.locator(".st-key-deck_export_dl_pdf button").first
    button.wait_for(timeout=120_000)
    with page.expect_download(timeout=60_000) as info:
        button.click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    from pypdf import PdfReader

    reader = PdfReader(path)
    assert path.name == "my-deck.pdf" and len(reader.pages) == 2
    assert "FedQuad" in reader.pages[1].extract_text()


def test_explore_in_browser(explore_server, page, tmp_path):
    """A fresh clone with recorded studies opens on Explore; the alpha slider (the figure
    switcher's, in its frame) swaps the curves to the stored runs of the new position in the
    browser, the server follows (the link, the download picker); one figure downloads (HTML)."""
    url, _ = explore_server
    t0 = time.monotonic()
    page.goto(url)
    page.locator("h1", has_text="Explore").wait_for(timeout=90_000)
    frame = page.frame_locator('[data-testid="stCustomComponentV1"]')
    acc = frame.locator('[data-slot="acc"] .fq-fig:not(.hidden)')
    acc.first.locator("svg.main-svg").first.wait_for(timeout=90_000)
    wait_idle(page, 90_000)
    data = lambda: acc.first.evaluate("g => JSON.stringify(g.data)")  # noqa: E731
    before = data()
    slider = frame.locator('input[type="range"]').first
    slider.focus()
    slider.press("ArrowRight")  # 0.1 -> 1
    title = lambda: acc.first.evaluate("g => (g.layout && g.layout.title && g.layout.title.text) || ''")  # noqa: E731
    poll(lambda: "α = 1" in title(), 30, 0.5, "the curves' title to follow the slider",
         lambda: switcher_state(page))
    poll(lambda: data() != before, 30, 0.5, "the accuracy curves to change after the alpha move")
    poll(lambda: "x_alpha=1" in href(page), 30, 0.5, "the link to carry the slider position", lambda: switcher_state(page))
    wait_idle(page)
    menu = page.locator(".st-key-dl_x_pos button").first
    menu.click()
    button = page.locator(".st-key-dl_x_pos-html button")
    button.wait_for(timeout=30_000)
    wait_idle(page)  # (a click on a menu a script run is redrawing was lost once under load)
    with page.expect_download(timeout=90_000) as info:
        button.click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    assert path.suffix == ".html" and "plotly" in path.read_text(errors="replace")[:200_000]
    assert "alpha = 1" in path.name or "α = 1" in path.name, path.name  # the figure at the new position
    assert time.monotonic() - t0 < 60, f"the Explore browser test took {time.monotonic() - t0:.0f} s"


def test_explore_fast_moves_end_where_the_user_stopped(explore_server, page):
    """Two key presses before the server has answered the first: the browser stays on the second
    position (a late answer for the first does not pull it back), the server and the link follow,
    and the link, opened again, shows that position."""
    url, _ = explore_server
    page.goto(url)
    frame = page.frame_locator('[data-testid="stCustomComponentV1"]')
    acc = frame.locator('[data-slot="acc"] .fq-fig:not(.hidden)')
    acc.first.locator("svg.main-svg").first.wait_for(timeout=90_000)
    wait_idle(page, 90_000)
    slider = frame.locator('input[type="range"]').first
    slider.focus()
    slider.press("ArrowRight")
    slider.press("ArrowRight")  # 0.1 -> 1 -> IID
    title = lambda: acc.first.evaluate("g => (g.layout && g.layout.title && g.layout.title.text) || ''")  # noqa: E731
    poll(lambda: "α = IID" in title(), 30, 0.2, "the curves to show the second position")
    poll(lambda: "x_alpha=IID" in href(page), 30, 0.5, "the link to follow", lambda: switcher_state(page))
    wait_idle(page)
    time.sleep(1.0)  # any late answer has arrived by now
    assert "α = IID" in title() and slider.evaluate("e => e.value") == "2"
    page.goto(href(page))
    acc.first.locator("svg.main-svg").first.wait_for(timeout=90_000)
    poll(lambda: "α = IID" in title(), 30, 0.5, "the link to open on the position it carries")


def test_clients_in_browser(clients_server, page):
    """On recorded data only, the Clients page draws the measured clients of FedAvg and FedQuad at
    10 local epochs, their update cosines, one client's embeddings; the round slider redraws them."""
    url, _ = clients_server
    page.goto(f"{url}/clients")
    page.locator("h1", has_text="Clients").wait_for(timeout=90_000)
    pop = ".st-key-c_pop_fedavg"
    page.locator(f"{pop} .js-plotly-plot").wait_for(timeout=90_000)
    wait_idle(page, 90_000)
    assert page.get_by_text("local_epochs 10").count(), "the page says which runs it shows"
    for key in ("c_pop_fedquad", "c_cos_fedavg", "c_cos_fedquad", "c_emb_fedavg_local", "c_hist"):
        assert page.locator(f".st-key-{key} .js-plotly-plot").count() == 1, key
    assert trace_points(page, pop) == 4  # the four measured clients
    before = plot_data(page, pop)
    slider = page.locator('.st-key-c_round input[type="range"]')
    slider.focus()
    slider.press("ArrowLeft")  # round 2 -> 1
    poll(lambda: "c_round=1" in href(page), 30, 0.5, "the link to carry the round")
    wait_idle(page)
    poll(lambda: plot_data(page, pop) != before, 30, 0.5, "the population to follow the round slider")
