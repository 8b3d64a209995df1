"""The Live page in a real headless Chromium while a run trains: every refresh redraws each of the
four charts in place (the same plotly element, Plotly.react), none is ever replaced or blank, also
through the re-run that stops the refreshing when the run ends; and after it ended each keeps its
height through closing and opening the sidebar and turning presenter mode on and off (plotly's
responsive relayout once set all of them to 0 px).

A sampler in the page (every 50 ms) notes for each chart which DOM element draws it (its
``.js-plotly-plot``, in the page or in a frame under the chart's key; ``app.livechart`` draws it in
the page) and how far it is drawn (1 no SVG, 2 axes, 3 traces with points). With ``st.plotly_chart`` each new point mounted a new element, blank until drawn:
this test then sees a new element per refresh. No timing is asserted; the waits are only upper
bounds. Run alone with ``.venv/bin/python -m pytest -q tests/e2e/test_live_refresh_browser.py``."""
from __future__ import annotations

import json
import time

from browser_helpers import wait_idle
from fedquad_core.config import RunConfig
from fedquad_core.runs.launcher import launch
from fedquad_core.runs.store import ACTIVE, RunStore

KEYS = ("acc", "ratio", "rank", "loss", "ratio_l2")
NEW_POINTS = 3  # refreshes with a new point to watch before the run is stopped

SAMPLER = """(() => {
  if (window !== window.top || window.__live) return;
  const KEYS = %s;
  const L = window.__live = {samples: 0, charts: {}};
  for (const k of KEYS) L.charts[k] = {best: 0, nodes: 0, drops: [], points: 0};
  const seen = new WeakMap();
  const level = (gd) => {
    if (!gd || !gd.querySelector('svg.main-svg') || !gd.querySelector('.cartesianlayer .xtick')) return 1;
    return gd.querySelector('.scatterlayer .trace path.point, .scatterlayer .trace path.js-line[d]') ? 3 : 2;
  };
  setInterval(() => {
    L.samples += 1;
    for (const k of KEYS) {
      const c = L.charts[k], box = document.querySelector('.st-key-' + k);
      let gd = box && box.querySelector('.js-plotly-plot');
      const frame = box && box.querySelector('iframe');
      if (!gd && frame) {
        try { gd = frame.contentDocument.querySelector('.js-plotly-plot'); } catch (e) { gd = null; }
      }
      const lv = box ? level(gd) : 0;
      if (c.best && lv < c.best) c.drops.push([L.samples, c.best, lv]);
      c.best = Math.max(c.best, lv);
      if (gd && lv >= 2 && !seen.has(gd)) { seen.set(gd, true); c.nodes += 1; }
      const data = gd && gd._fullData;
      if (data && data[0] && data[0].x) c.points = data[0].x.length;
    }
  }, 50);
})();""" % json.dumps(list(KEYS))


HEIGHTS = """(keys) => Object.fromEntries(keys.map((k) => {
  const gd = document.querySelector('.st-key-' + k + ' .js-plotly-plot');
  return [k, gd && gd._fullLayout ? [Math.round(gd.getBoundingClientRect().height), gd._fullLayout.height] : null];
}))"""


def sidebar_width(page) -> float:
    return page.evaluate("() => { const s = document.querySelector('[data-testid=\"stSidebar\"]');"
                         " return s ? s.getBoundingClientRect().width : 0; }")


def whole(page, when: str) -> None:
    """Each chart as tall as its figure, after ``when`` (and the relayouts it set off)."""
    page.wait_for_timeout(1500)
    heights = page.evaluate(HEIGHTS, list(KEYS))
    for k, hw in heights.items():
        assert hw and hw[0] >= 300 and abs(hw[0] - hw[1]) <= 2, f"{when}: chart {k} is {hw} (box px, figure px): {heights}"


def live(page) -> dict:
    return page.evaluate("() => window.__live ? JSON.parse(JSON.stringify(window.__live)) : null")


def wait(page, what: str, cond, timeout: float = 150.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        state = live(page)
        if state and cond(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}; the sampler saw {state}")
        page.wait_for_timeout(250)


def test_live_charts_update_in_place_while_a_run_trains_and_when_it_ends(app_server, page):
    url, runs = app_server
    cfg = RunConfig(dataset="digits", model="mlp", num_clients=50, alpha=0.1, min_size=5, local_epochs=1,
                    rounds=300, lr=0.1, snapshot_every=2, snapshot_points=200, seed=0, method="fedavg")
    run_id = launch(cfg, runs, extra={"group": "g-e2e-live"})  # long: stopped once enough refreshes were seen
    store = RunStore(runs)
    page.add_init_script(SAMPLER)
    page.goto(f"{url}/live")
    first = wait(page, "every chart drawn with a point",
                 lambda s: all(s["charts"][k]["best"] == 3 for k in KEYS))["charts"]["acc"]["points"]
    state = wait(page, f"{NEW_POINTS} more accuracy points",
                 lambda s: s["charts"]["acc"]["points"] >= first + NEW_POINTS)
    assert store.read_status(run_id)["state"] in ACTIVE, "the run ended before the refreshes were watched"

    store.request_cancel(run_id)  # the run ends: the page re-runs once without its progress bar
    deadline = time.monotonic() + 120
    while store.read_status(run_id)["state"] in ACTIVE and time.monotonic() < deadline:
        time.sleep(0.5)
    assert store.read_status(run_id)["state"] not in ACTIVE
    page.locator('[data-testid="stProgress"]').wait_for(state="detached", timeout=60_000)
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000)
    page.wait_for_timeout(3000)  # past the last re-run, and one more second of sampling
    state = live(page)

    for k in KEYS:
        c = state["charts"][k]
        assert c["nodes"] == 1, f"chart {k}: drawn by {c['nodes']} elements (replaced, not updated in place): {state}"
        assert not c["drops"], f"chart {k} went blank or lost its traces (sample, from level, to level): {c['drops']}"
    assert state["charts"]["acc"]["points"] >= first + NEW_POINTS

    # the demo is over: the lecturer closes and opens the sidebar, and turns presenter mode on and off
    whole(page, "the run's end")
    page.get_by_test_id("stSidebar").hover()  # its collapse button shows on hover
    page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().width < 100")
    whole(page, "closing the sidebar")
    page.get_by_test_id("stExpandSidebarButton").first.click()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stSidebar\"]').getBoundingClientRect().width > 200")
    whole(page, "opening the sidebar")
    page.get_by_text("Presenter mode", exact=True).click()
    page.locator(".st-key-fq_presenter").wait_for(timeout=60_000)
    wait_idle(page)
    whole(page, "turning presenter mode on")
    page.get_by_role("button", name="Exit presenter").click()
    page.locator(".st-key-fq_presenter").wait_for(state="detached", timeout=60_000)
    wait_idle(page)
    whole(page, "leaving presenter mode")
