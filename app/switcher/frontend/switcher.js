/* The switcher: every figure of a page section for the slider position and its neighbours, drawn
 * once and switched here in the browser, so a slider move needs no server round trip.
 *
 * It speaks Streamlit's component protocol (v1) by hand: "streamlit:componentReady" once,
 * "streamlit:render" in (the args below), "streamlit:setComponentValue" and
 * "streamlit:setFrameHeight" out. Args (from app/switcher/__init__.py):
 *   rev        a hash of the payload: a render with the same rev is ignored (Streamlit re-posts
 *              the args on every re-run of the page)
 *   layout     sig (changes when the study or the page's shape changes: everything is rebuilt),
 *              axes [{key, label, options}], sections [{heading, rows: [[slot, ...], ...]}]
 *   value      {axis: option} the server's position; seq: the last move of ours it has applied
 *   figures    {fid: plotly JSON string}; positions {posKey: {notice, panels: {slot: {fid, caption}}}}
 *              (kept across renders of one layout: a payload built around another position adds to them)
 *   talk, bare (no Plotly toolbar), near (whether the neighbours are in the payload already)
 * A move sends {pos, seq}; once a layout is drawn it asks for the neighbours with {pos, seq, near}.
 */
(() => {
  "use strict";
  // (not plotly's "responsive": it relayouts every figure, the hidden ones too, at each resize of the
  // window (a sidebar opened, a projector's width); here a slot's shown figure follows its width
  // (``fit``), and a hidden one takes the width when it is shown)
  const CONFIG = {displaylogo: false, responsive: false, modeBarButtonsToRemove: ["lasso2d", "select2d"]};
  const KEEP = 40;  // drawn figures kept per slot (the oldest hidden ones are purged)
  const root = document.getElementById("root");
  // known / specs: every position and figure received for this layout (a later payload, built
  // around another position, need not repeat them)
  const S = {rev: null, sig: null, args: null, pos: {}, seq: 0, applied: 0, slots: {}, inputs: {}, asked: null,
             queue: [], notice: null, height: 0, known: {}, specs: {}};

  const post = (type, data) => window.parent.postMessage(Object.assign({isStreamlitMessage: true, type}, data), "*");
  const posKey = (pos) => S.args.layout.axes.map((a) => `${a.key}=${pos[a.key]}`).join("|");
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  function sendValue(extra) {
    post("streamlit:setComponentValue", {value: Object.assign({pos: Object.assign({}, S.pos), seq: S.seq}, extra || {}),
                                         dataType: "json"});
  }

  const resized = new ResizeObserver((entries) => {
    for (const e of entries) { const box = S.slots[e.target.parentNode.dataset.slot]; if (box) fit(box); }
  });

  function fit(box) {
    // the slot's shown figure redrawn to the slot's width when that changed (on a resize of the
    // slot, and when a figure drawn hidden is shown)
    const w = box.host.clientWidth;
    for (const d of box.figs.values()) {
      if (!d.classList.contains("hidden") && Math.abs(d._width - w) > 1) { Plotly.Plots.resize(d); d._width = w; }
    }
  }

  function build(layout) {
    resized.disconnect();
    for (const box of Object.values(S.slots)) for (const div of box.figs.values()) Plotly.purge(div);
    root.replaceChildren();
    S.slots = {}; S.inputs = {}; S.queue = []; S.known = {}; S.specs = {};
    if (layout.axes.length) {
      const bar = el("div", "fq-axes");
      for (const axis of layout.axes) bar.appendChild(slider(axis));
      root.appendChild(bar);
    }
    S.notice = root.appendChild(el("div", "fq-notice"));
    for (const section of layout.sections) {
      if (section.heading) root.appendChild(el("h3", "fq-heading", section.heading));
      if (section.key && section.key.length) {  // one colour key for the section's figures (no legend each)
        const key = root.appendChild(el("div", "fq-key"));
        for (const [name, color] of section.key) {
          const item = key.appendChild(el("span", "fq-key-item"));
          item.appendChild(el("span", "fq-swatch")).style.background = color;
          item.appendChild(document.createTextNode(name));
        }
      }
      // a grid of equal slots (``columns`` set) where columns may wrap (talk mode): one grid, so its
      // figures flow on (three a row become two, two, two, one, not two, one, two, one)
      const rows = layout.min_width && section.columns ? [section.rows.flat()] : section.rows;
      for (const row of rows) {
        const r = root.appendChild(el("div", "fq-row"));
        r.style.gridTemplateColumns = columns(section.columns || row.length, layout.min_width);
        for (const slot of row) {
          const box = {el: r.appendChild(el("div", "fq-slot")), figs: new Map()};
          box.host = box.el.appendChild(el("div", "fq-host"));
          box.host.style.position = "relative";
          box.caption = box.el.appendChild(el("div", "fq-caption"));
          box.el.dataset.slot = slot;
          S.slots[slot] = box;
          resized.observe(box.host);
        }
      }
    }
  }

  function columns(n, minWidth) {
    // n equal columns; in talk mode none narrower than the figures are laid out for (min_width px):
    // where n do not fit, as many as fit a row and the rest wrap (a row's empty tracks are kept, so a
    // short last row keeps the others' column width). The 0.5 px keeps rounding from dropping one.
    if (!minWidth) return `repeat(${n}, minmax(0, 1fr))`;
    return `repeat(auto-fill, minmax(min(100%, max(${minWidth}px, calc((100% - ${n - 1}rem) / ${n} - 0.5px))), 1fr))`;
  }

  function slider(axis) {
    const wrap = el("div", "fq-axis");
    const label = wrap.appendChild(el("label"));
    label.append(`${axis.label}: `);
    const now = label.appendChild(el("span", "fq-now"));
    const input = wrap.appendChild(el("input"));
    Object.assign(input, {type: "range", min: 0, max: axis.options.length - 1, step: 1});
    input.setAttribute("aria-label", axis.label);
    const ticks = wrap.appendChild(el("div", "fq-ticks"));
    axis.options.forEach((opt, i) => {
      const t = ticks.appendChild(el("span", "", opt));
      t.addEventListener("click", () => { input.value = i; move(axis, i); });
    });
    input.addEventListener("input", () => move(axis, Number(input.value)));
    S.inputs[axis.key] = {input, now, ticks, axis};
    return wrap;
  }

  function syncSliders() {
    for (const {input, now, ticks, axis} of Object.values(S.inputs)) {
      const i = Math.max(0, axis.options.indexOf(S.pos[axis.key]));
      input.value = i;
      input.setAttribute("aria-valuetext", axis.options[i]);
      now.textContent = axis.options[i];
      [...ticks.children].forEach((t, j) => t.classList.toggle("on", j === i));
    }
  }

  function move(axis, i) {
    if (S.pos[axis.key] === axis.options[i]) return;
    S.pos[axis.key] = axis.options[i];
    S.seq += 1;
    syncSliders();
    show();
    sendValue();  // the server follows: the link, the download menus, the neighbours of the new position
  }

  function figure(box, fid) {
    let div = box.figs.get(fid);
    if (div) return div;
    const spec = S.specs[fid];
    if (!spec) return null;
    const f = JSON.parse(spec);
    div = box.host.appendChild(el("div", "fq-fig hidden"));
    div.dataset.fid = fid;
    Plotly.newPlot(div, f.data, f.layout || {}, Object.assign({}, CONFIG, f.config || {}));
    div._width = box.host.clientWidth;
    box.figs.set(fid, div);
    if (box.figs.size > KEEP) {
      for (const [old, d] of box.figs) {
        if (box.figs.size <= KEEP) break;
        if (d.classList.contains("hidden")) { Plotly.purge(d); d.remove(); box.figs.delete(old); }
      }
    }
    return div;
  }

  function show() {
    // The position's figures; one not drawn yet is drawn here, the next ones a task each (a slot
    // waiting for its figure is "loading"), so the first figure is on screen at once, not after
    // every figure of the position (a fresh page draws ten); the hidden ones for the neighbours
    // come after (``schedule``).
    clearTimeout(S.more);
    const at = S.known[posKey(S.pos)];
    S.notice.textContent = at ? (at.notice || "") : "";
    let drew = false, waiting = false;
    for (const [slot, box] of Object.entries(S.slots)) {
      if (!at) { box.el.classList.add("loading"); continue; }  // not here yet: the server sends it
      const p = at.panels[slot];
      box.el.style.display = p ? "" : "none";
      if (!p) { box.el.classList.remove("loading"); continue; }
      let div = p.fid ? (box.figs.get(p.fid) || null) : null;
      if (p.fid && !div && !drew && S.specs[p.fid]) { div = figure(box, p.fid); drew = true; }
      if (p.fid && !div && S.specs[p.fid]) {  // drawn in a moment
        waiting = true;
        box.el.classList.add("loading");
        continue;
      }
      box.el.classList.remove("loading");
      for (const d of box.figs.values()) if (d !== div && !d.classList.contains("hidden")) d.classList.add("hidden");
      if (div && div.classList.contains("hidden")) {
        div.classList.remove("hidden");
        fit(box);  // (drawn hidden at another width, maybe)
      }
      box.caption.textContent = p.caption || "";
      box.caption.classList.toggle("fq-empty", !p.fid);
    }
    if (waiting) { S.more = setTimeout(show, 16); return; }  // (16 ms: the browser paints in between)
    schedule();
  }

  function distance(key) {
    // grid steps from the current position to the one of ``key`` ("alpha=0.1|m1=0.2")
    const parts = Object.fromEntries(key.split("|").filter(Boolean).map((kv) => kv.split("=")));
    return S.args.layout.axes.reduce((d, a) => d + Math.abs(a.options.indexOf(parts[a.key]) - a.options.indexOf(S.pos[a.key])), 0);
  }

  function schedule() {
    // Draw the other positions' figures hidden, nearest first, one at a time between events, so
    // the next moves only swap which one is visible.
    S.queue = [];
    const here = posKey(S.pos);
    const keys = Object.keys(S.known).filter((k) => k !== here).sort((a, b) => distance(a) - distance(b));
    for (const key of keys) {
      for (const [slot, p] of Object.entries(S.known[key].panels)) {
        if (p.fid && S.slots[slot] && !S.slots[slot].figs.has(p.fid)) S.queue.push([slot, p.fid]);
      }
    }
    if (S.queue.length) setTimeout(drain, 30);
  }

  // The user doing something in the page around us (opening the study list, another widget):
  // the figures drawn ahead wait a moment, so the answer to that is drawn without competing.
  let pausedUntil = 0;
  try {
    for (const type of ["pointerdown", "keydown"]) {
      window.parent.document.addEventListener(type, () => { pausedUntil = performance.now() + 2500; }, true);
    }
  } catch (e) { /* another origin: no pause */ }

  function drain() {
    // paused while the user acts around us, and while the tab is in the background (no one looks)
    if (performance.now() < pausedUntil || document.hidden) { setTimeout(drain, 250); return; }
    const next = S.queue.shift();
    if (!next) return;
    const box = S.slots[next[0]];
    if (box && !box.figs.has(next[1])) figure(box, next[1]);
    if (S.queue.length) setTimeout(drain, 0);
  }

  // What each payload cost here (ms since the frame started): read by benchmarks/browser_latency.py.
  const timings = window.fqTimings = [];
  window.fqState = S;  // read by tests and benchmarks: the position, seq and what the server applied

  function onRender(args) {
    S.applied = args.seq || 0;  // the newest move of ours the server has applied
    if (args.rev === S.rev) return;
    const t = {received: performance.now(), figures: Object.keys(args.figures).length};
    S.rev = args.rev;
    S.args = args;
    document.body.classList.toggle("talk", !!args.talk);
    document.body.classList.toggle("bare", !!args.bare);  // talk / presenter mode: no Plotly toolbar
    if (args.layout.sig !== S.sig) {
      S.sig = args.layout.sig;
      build(args.layout);
      S.asked = null;
      t.built = performance.now();
    }
    Object.assign(S.known, args.positions);
    Object.assign(S.specs, args.figures);
    if ((args.seq || 0) >= S.seq) {  // no newer move of ours in flight: the server's position holds
      S.seq = args.seq || 0;
      S.pos = Object.assign({}, args.value);
    }
    syncSliders();
    show();
    t.shown = performance.now();
    timings.push(t);
    if (timings.length > 20) timings.shift();
    if (!args.near && S.asked !== S.sig) {
      S.asked = S.sig;
      askNear(S.sig, 0);  // now the neighbours, while the user looks
    }
  }

  function askNear(sig, attempt) {
    // A request sent while the page's own run is still going can be dropped by Streamlit: ask
    // again (a new value, so it counts as a change) until a payload says the neighbours are in.
    if (S.sig !== sig || S.args.near || attempt > 6) return;
    sendValue({near: true, attempt});
    setTimeout(() => askNear(sig, attempt + 1), 800 * (attempt + 1));
  }

  new ResizeObserver(() => {
    const h = Math.ceil(root.getBoundingClientRect().height) + 4;
    if (h !== S.height) { S.height = h; post("streamlit:setFrameHeight", {height: h}); }
  }).observe(root);
  window.addEventListener("message", (ev) => {
    if (ev.data && ev.data.type === "streamlit:render") onRender(ev.data.args);
  });
  post("streamlit:componentReady", {apiVersion: 1});
})();
