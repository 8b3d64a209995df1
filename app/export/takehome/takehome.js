/* The take-home file's page: the Lesson's steps (Back / Next, the arrow keys) and Explore's sliders
 * over the recorded positions, drawn here from the figures stored in the file (#fq-data, written
 * by app/export/takehome/page.py). No request of any kind: the figures are decoded in the browser
 * (DecompressionStream), and drawn on demand (the step shown, the slider position and its
 * neighbours), not all at once. The state is in the URL fragment
 * (#view=explore&step=4&study=digits-alpha&alpha=0.1): the back button and a reload keep it. No
 * storage, no top-level navigation (it works inside a course page's iframe).
 *
 * window.fqTakehome (read by tests and benchmarks/takehome.py): firstFigure (ms after navigation
 * start when the first figure was drawn), moves [{ms}] (a slider move to its last redraw).
 */
(() => {
  "use strict";
  const started = performance.now();
  const D = JSON.parse(document.getElementById("fq-data").textContent);
  const CONFIG = {displaylogo: false, responsive: false, modeBarButtonsToRemove: ["lasso2d", "select2d"]};
  const KEEP = 12;   // drawn figures kept per Explore slot (the oldest hidden ones are purged)
  const NEAR = 1;    // Explore draws the positions this many grid steps away ahead, hidden
  const perf = window.fqTakehome = {started, parsed: performance.now(), firstFigure: null, printReady: false, resized: 0, moves: [], drawn: 0, errors: []};
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // ---- figures: decoded once (a promise each), drawn where asked ------------------------------
  const decoded = new Map();
  async function inflate(b64) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }
  function spec(fid) {
    if (!decoded.has(fid)) {
      const entry = D.figures[fid];
      decoded.set(fid, entry.j !== undefined ? Promise.resolve(JSON.parse(entry.j))
                                              : inflate(entry.z).then((t) => JSON.parse(t)));
    }
    return decoded.get(fid);
  }
  function typed(v) {
    // plotly 6 writes numeric arrays as {dtype, bdata}: back to a plain array (for the HTML table)
    if (!v || typeof v !== "object" || v.bdata === undefined) return v;
    const kinds = {f8: Float64Array, f4: Float32Array, i1: Int8Array, u1: Uint8Array, i2: Int16Array, u2: Uint16Array,
                   i4: Int32Array, u4: Uint32Array};
    const raw = Uint8Array.from(atob(v.bdata), (c) => c.charCodeAt(0));
    return Array.from(new kinds[v.dtype](raw.buffer));
  }
  function drawTable(div, fig) {
    // a table figure (the claims table): the same header and cells as an HTML table
    const t = fig.data[0];
    const table = el("table");
    const head = table.appendChild(el("thead")).appendChild(el("tr"));
    for (const h of typed(t.header.values) || []) head.appendChild(el("th", "", String(h).replace(/<[^>]+>/g, "")));
    const cols = (typed(t.cells.values) || []).map(typed);
    const body = table.appendChild(el("tbody"));
    const n = Math.max(0, ...cols.map((c) => c.length));
    for (let i = 0; i < n; i++) {
      const tr = body.appendChild(el("tr"));
      for (const c of cols) tr.appendChild(el("td", "", String(c[i] ?? "").replace(/<br>/g, " ").replace(/<[^>]+>/g, "")));
    }
    const title = fig.layout && fig.layout.title && (fig.layout.title.text || fig.layout.title);
    if (typeof title === "string" && title) div.appendChild(el("div", "fq-caption", title.replace(/<[^>]+>/g, "")));
    div.appendChild(el("div", "fq-table")).appendChild(table);
  }
  function draw(div, fig) {
    if (fig.data.length && fig.data.every((t) => t.type === "table")) drawTable(div, fig);
    else Plotly.newPlot(div, fig.data, fig.layout || {}, Object.assign({}, CONFIG, fig.config || {}));
    div._width = div.parentNode ? div.parentNode.clientWidth : 0;
    perf.drawn += 1;
    if (perf.firstFigure === null) perf.firstFigure = performance.now();
  }
  const fitted = new ResizeObserver((entries) => {
    for (const e of entries) for (const d of e.target.children) fit(d, e.target.clientWidth);
  });
  function purge(d) {
    // (a resize plotly has scheduled for this figure would otherwise run on the purged one)
    clearTimeout(d._redrawTimer);
    if (d.classList.contains("js-plotly-plot")) Plotly.purge(d);
  }
  function fit(d, w) {
    if (d.classList.contains("js-plotly-plot") && d._fullLayout && !d.classList.contains("hidden") && Math.abs((d._width || 0) - w) > 1) {
      d._width = w;
      perf.resized += 1;
      Plotly.Plots.resize(d);
    }
  }

  // ---- the URL fragment -----------------------------------------------------------------------
  const S = {view: "lesson", step: 1, study: D.studies.length ? D.studies[0].id : null, pos: {}, resp: null};
  function readHash() {
    const q = new URLSearchParams(location.hash.slice(1));
    const n = D.lesson.length;
    const st = D.studies.find((s) => s.id === q.get("study"));
    if (st) S.study = st.id;
    S.view = (q.get("view") === "explore" || (!q.has("view") && st)) && D.studies.length ? "explore" : "lesson";
    S.step = q.has("step") ? Math.min(n, Math.max(1, parseInt(q.get("step"), 10) || 1)) : 1;
    const study = current();
    S.pos = study ? Object.assign({}, study.default) : {};
    S.resp = study ? (study.resp_axes.includes(q.get("resp")) ? q.get("resp") : study.resp) : null;
    if (study) for (const a of study.axes) if (a.options.includes(q.get(a.key))) S.pos[a.key] = q.get(a.key);
  }
  function hash() {
    const q = new URLSearchParams({view: S.view, step: String(S.step)});
    if (S.study) q.set("study", S.study);
    if (current() && current().resp_axes.length > 1) q.set("resp", S.resp);
    for (const [k, v] of Object.entries(S.pos)) q.set(k, v);
    return "#" + q.toString();
  }
  function remember(push) {
    const h = hash();
    if (h === location.hash) return;
    if (push) history.pushState(null, "", h); else history.replaceState(null, "", h);
  }
  const current = () => D.studies.find((s) => s.id === S.study) || null;

  // ---- the lesson -----------------------------------------------------------------------------
  function md(text) {
    // the Lesson's sentences are Markdown: **bold**, *italic*, `code` (escaped first: no HTML from the data)
    const esc = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    return esc.replace(/`([^`]+)`/g, "<code>$1</code>").replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
              .replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
  }
  const built = new Map();
  function stepNode(i) {
    if (built.has(i)) return built.get(i);
    const s = D.lesson[i - 1];
    const node = el("article", "step");
    node.dataset.step = String(i);
    node.appendChild(el("h2", "", s.title));
    if (s.takeaway && !s.problem) node.appendChild(el("p", "takeaway", s.takeaway));  // the step's one sentence, on top
    if ((s.confirmed || []).length && !s.problem)  // what the registered rows make of it on fresh seeds
      node.appendChild(el("p", "confirmed", "Confirmed on fresh seeds? " + s.confirmed.join(" · ")));
    if (s.lead && !s.problem) node.appendChild(el("p", "lead", s.lead));
    if (s.problem) node.appendChild(el("div", "problem", s.problem));
    for (const n of s.notices || []) node.appendChild(el("div", "problem", n));
    const controls = s.margins ? node.appendChild(el("div", "fq-axes noprint")) : null;
    const text = node.appendChild(el("div", "sentences"));
    const say = (sentences) => {
      text.replaceChildren();
      for (const sentence of sentences) text.appendChild(el("p")).innerHTML = md(sentence);
    };
    say(s.sentences);
    if ((s.confirmed_numbers || []).length) {  // each registered row's takeaway and numbers
      const list = node.appendChild(el("div", "sentences"));
      list.appendChild(el("p", "", D.confirmed_head));
      const ul = list.appendChild(el("ul"));
      for (const line of s.confirmed_numbers) ul.appendChild(el("li")).innerHTML = md(line);
    }
    const figs = node.appendChild(el("div", "figs"));
    const numbered = (f, det) => {
      det.hidden = !f.numbers;
      if (!f.numbers) return;
      det.firstChild.textContent = `The numbers (${f.rows} row${f.rows === 1 ? "" : "s"}${f.shown < f.rows ? `, the first ${f.shown} shown` : ""})`;
      det.lastChild.innerHTML = f.numbers;  // HTML written by page.py from the figure's data (escaped there)
    };
    node._figs = s.figures.map((f) => {
      const box = figs.appendChild(el("div", "figbox"));
      const host = box.appendChild(el("div", "fq-host"));
      const div = host.appendChild(el("div", "fq-fig"));
      if (f.caption) box.appendChild(el("div", "fq-caption", f.caption));
      const det = box.appendChild(el("details"));
      det.append(el("summary"), el("div"));
      numbered(f, det);
      fitted.observe(host);
      return {fid: f.fid, div, det, done: false};
    });
    if (controls) margins(node, s.margins, controls, say, numbered);
    if (s.footer) node.appendChild(el("footer", "", s.footer));
    $("steps").appendChild(node);
    built.set(i, node);
    return node;
  }
  function margins(node, m, controls, say, numbered) {
    // step 5: the margins m1 and m2 as the Lesson page's sliders have them (every 0.5 here): the
    // step's sentences, figures and numbers at each pair, swapped in
    const now = {m1: m.default[0], m2: m.default[1]};
    for (const [i, key] of [[0, "m1"], [1, "m2"]]) {
      const wrap = controls.appendChild(el("div", "fq-axis"));
      const label = wrap.appendChild(el("label"));
      label.append(`${key} (margin of term ${i + 1}): `);
      const shown = label.appendChild(el("span", "fq-now", now[key]));
      const input = label.appendChild(el("input"));
      Object.assign(input, {type: "range", min: 0, max: m.values.length - 1, step: 1, value: m.values.indexOf(now[key])});
      input.dataset.margin = key;
      input.setAttribute("aria-label", key);
      input.addEventListener("input", () => {
        now[key] = shown.textContent = m.values[Number(input.value)];
        const at = m.at[`${now.m1}|${now.m2}`];
        if (!at) return;
        say(at.sentences);
        node._figs.forEach((f, j) => {
          const g = at.figures[j];
          if (!g || g.fid === f.fid) return;
          f.fid = g.fid;
          numbered(g, f.det);
          spec(g.fid).then((fig) => {
            if (f.fid !== g.fid) return;  // moved on meanwhile
            if (f.div._fullLayout) Plotly.react(f.div, fig.data, fig.layout || {}, Object.assign({}, CONFIG, fig.config || {}));
            else if (f.done) draw(f.div, fig);
          }).catch(fail);
        });
      });
    }
  }
  async function drawStep(node) {
    for (const f of node._figs) {
      if (f.done) continue;
      f.done = true;
      const fig = await spec(f.fid);
      if (fig.data.length && fig.data.every((t) => t.type === "table")) f.div.closest(".figbox").classList.add("table");
      draw(f.div, fig);
    }
  }
  function showStep() {
    const n = D.lesson.length;
    for (const node of built.values()) node.hidden = true;
    const node = stepNode(S.step);
    node.hidden = false;
    $("back").disabled = $("back2").disabled = S.step <= 1;
    $("next").disabled = $("next2").disabled = S.step >= n;
    $("stepof").textContent = `Step ${S.step} of ${n}: ${D.lesson[S.step - 1].title.replace(/^\d+ · /, "")}`;
    $("bar").style.width = `${(100 * S.step) / n}%`;
    drawStep(node).then(() => { for (const d of node.querySelectorAll(".js-plotly-plot")) fit(d, d.parentNode.clientWidth); })
      .catch(fail);
  }
  function go(delta) {
    const next = Math.min(D.lesson.length, Math.max(1, S.step + delta));
    if (next === S.step) return;
    S.step = next;
    showStep();
    remember(true);
  }

  // ---- Explore ----------------------------------------------------------------------------------
  const X = {id: null, slots: {}, inputs: {}, queue: []};
  // a position's key: the axis the response plots run along, then Explore's own key
  const posKey = (study, pos) => `${S.resp || ""}|` + study.axes.map((a) => `${a.key}=${pos[a.key]}`).join("|");
  function buildStudy(study) {
    fitted.disconnect();
    for (const box of Object.values(X.slots)) for (const d of box.figs.values()) purge(d);
    for (const node of built.values()) for (const h of node.querySelectorAll(".fq-host")) fitted.observe(h);
    const root = $("explore-root");
    root.replaceChildren();
    X.id = study.id; X.slots = {}; X.inputs = {}; X.queue = [];
    $("study-desc").textContent = study.description || "";
    if (study.axes.length) {
      const bar = root.appendChild(el("div", "fq-axes"));
      for (const axis of study.axes) bar.appendChild(slider(study, axis));
    }
    X.resp = {};
    if (study.resp_axes.length > 1) {  // Explore's "Response plots against"
      const row = root.appendChild(el("div", "fq-resp", "Response plots against "));
      for (const key of study.resp_axes) {
        const b = row.appendChild(el("button", "", key));
        b.type = "button";
        b.addEventListener("click", () => {
          if (S.resp === key) return;
          S.resp = key;
          syncSliders();
          showPosition(performance.now());
          remember(true);
        });
        X.resp[key] = b;
      }
    }
    X.notice = root.appendChild(el("div", "fq-notice"));
    for (const section of study.sections) {
      if (section.heading) root.appendChild(el("h3", "fq-heading", section.heading));
      if (section.key && section.key.length) {
        const key = root.appendChild(el("div", "fq-key"));
        for (const [name, color] of section.key) {
          const item = key.appendChild(el("span", "fq-key-item"));
          item.appendChild(el("span", "fq-swatch")).style.background = color;
          item.appendChild(document.createTextNode(name));
        }
      }
      for (const row of section.rows) {
        const r = root.appendChild(el("div", "fq-row"));
        r.style.gridTemplateColumns = `repeat(${section.columns || row.length}, minmax(0, 1fr))`;
        for (const slot of row) {
          const box = {el: r.appendChild(el("div", "fq-slot")), figs: new Map()};
          box.host = box.el.appendChild(el("div", "fq-host"));
          box.caption = box.el.appendChild(el("div", "fq-caption"));
          box.el.dataset.slot = slot;
          X.slots[slot] = box;
          fitted.observe(box.host);
        }
      }
    }
  }
  function slider(study, axis) {
    const wrap = el("div", "fq-axis");
    const label = wrap.appendChild(el("label"));
    label.append(`${axis.label}: `);
    const now = label.appendChild(el("span", "fq-now"));
    const input = label.appendChild(el("input"));
    Object.assign(input, {type: "range", min: 0, max: axis.options.length - 1, step: 1});
    input.dataset.axis = axis.key;
    input.setAttribute("aria-label", axis.label);
    const ticks = wrap.appendChild(el("div", "fq-ticks"));
    axis.options.forEach((opt, i) => {
      ticks.appendChild(el("span", "", opt)).addEventListener("click", () => { input.value = i; move(axis, i, true); });
    });
    input.addEventListener("input", (ev) => move(axis, Number(input.value), false, ev.timeStamp));
    input.addEventListener("change", () => remember(true));
    X.inputs[axis.key] = {input, now, ticks, axis};
    return wrap;
  }
  function syncSliders() {
    for (const [key, b] of Object.entries(X.resp || {})) b.setAttribute("aria-pressed", String(key === S.resp));
    for (const {input, now, ticks, axis} of Object.values(X.inputs)) {
      const i = Math.max(0, axis.options.indexOf(S.pos[axis.key]));
      input.value = i;
      input.setAttribute("aria-valuetext", axis.options[i]);
      now.textContent = axis.options[i];
      [...ticks.children].forEach((t, j) => t.classList.toggle("on", j === i));
    }
  }
  function move(axis, i, push, since) {
    // ``since``: when the input event was made (its timeStamp): a move is timed from there to the
    // frame after its last figure is swapped in or drawn
    if (S.pos[axis.key] === axis.options[i]) return;
    S.pos[axis.key] = axis.options[i];
    syncSliders();
    showPosition(since === undefined ? performance.now() : since);
    remember(push);
  }
  function figureIn(box, fid) {
    // the slot's drawn figure ``fid`` (a promise: decoded and drawn hidden when not drawn yet)
    const have = box.figs.get(fid);
    if (have) return Promise.resolve(have);
    const div = box.host.appendChild(el("div", "fq-fig hidden"));
    box.figs.set(fid, div);
    return spec(fid).then((fig) => {
      draw(div, fig);
      // drawn hidden (laid out at the slot's width), then parked out of the layout until shown:
      // a hundred hidden figures laid out with the page made every move's next frame slower
      if (div.classList.contains("hidden")) div.classList.add("parked");
      if (box.figs.size > KEEP) {
        for (const [old, d] of box.figs) {
          if (box.figs.size <= KEEP) break;
          if (d.classList.contains("hidden") && d !== div) { purge(d); d.remove(); box.figs.delete(old); }
        }
      }
      return div;
    });
  }
  function showPosition(t0) {
    const begun = performance.now();
    const study = current();
    const at = study.positions[posKey(study, S.pos)];
    X.notice.textContent = at ? at.notice || "" : "This position was not recorded.";
    const waits = [];
    // every slot's width read once, before anything changes (reading it between the changes would
    // lay the page out again for each slot)
    const widths = {};
    for (const [slot, box] of Object.entries(X.slots)) widths[slot] = box.host.clientWidth;
    for (const [slot, box] of Object.entries(X.slots)) {
      const p = at && at.panels[slot];
      const display = p ? "" : "none";
      if (box.el.style.display !== display) box.el.style.display = display;
      if (!p) continue;
      if (box.caption.textContent !== (p.caption || "")) box.caption.textContent = p.caption || "";
      const fid = p.fid;
      let sync = true;
      const swap = (div) => {
        const still = study.positions[posKey(study, S.pos)];
        if (!still || !still.panels[slot] || still.panels[slot].fid !== fid) return;  // moved on meanwhile
        for (const d of box.figs.values()) if (d !== div && !d.classList.contains("hidden")) d.classList.add("hidden", "parked");
        if (div) { div.classList.remove("hidden", "parked"); fit(div, sync && widths[slot] ? widths[slot] : box.host.clientWidth); }
        box.el.classList.remove("loading");
      };
      if (!fid) { swap(null); continue; }
      const have = box.figs.get(fid);
      if (have && have.classList.contains("js-plotly-plot") || have && have.childNodes.length) { swap(have); continue; }
      sync = false;
      box.el.classList.add("loading");
      waits.push(figureIn(box, fid).then(swap));
    }
    const swapped = performance.now() - begun;
    const done = () => requestAnimationFrame(() => {
      if (t0 !== undefined) {
        perf.moves.push({ms: performance.now() - t0, drew: waits.length, swap: swapped, queued: begun - t0, resized: perf.resized});
        if (perf.moves.length > 50) perf.moves.shift();
      }
      ahead(study);
    });
    if (waits.length) Promise.all(waits).then(done).catch(fail); else done();
  }
  function ahead(study) {
    // the positions NEAR steps away along one axis, drawn hidden one at a time between events
    X.queue = [];
    for (const a of study.axes) {
      const i = a.options.indexOf(S.pos[a.key]);
      for (let d = 1; d <= NEAR; d++) {
        for (const j of [i - d, i + d]) {
          if (j < 0 || j >= a.options.length) continue;
          const at = study.positions[posKey(study, Object.assign({}, S.pos, {[a.key]: a.options[j]}))];
          if (!at) continue;
          for (const [slot, p] of Object.entries(at.panels)) if (p.fid && X.slots[slot] && !X.slots[slot].figs.has(p.fid)) X.queue.push([slot, p.fid]);
        }
      }
    }
    clearTimeout(X.timer);
    if (X.queue.length) X.timer = setTimeout(drain, 30);
  }
  perf.pending = () => X.queue.length;  // figures still to draw ahead (benchmarks wait for 0)
  function drain() {
    if (document.hidden) { X.timer = setTimeout(drain, 250); return; }
    const next = X.queue.shift();
    if (!next) return;
    const box = X.slots[next[0]];
    const p = box && !box.figs.has(next[1]) ? figureIn(box, next[1]) : Promise.resolve();
    p.then(() => { if (X.queue.length) X.timer = setTimeout(drain, 0); }).catch(fail);
  }
  function showExplore() {
    const study = current();
    if (!study) return;
    if (X.id !== study.id) buildStudy(study);
    $("study").value = study.id;
    syncSliders();
    showPosition();
  }

  // ---- the whole page -----------------------------------------------------------------------------
  function fail(e) { perf.errors.push(String(e)); console.error(e); }
  function render() {
    $("lesson").hidden = S.view !== "lesson";
    $("explore").hidden = S.view !== "explore";
    for (const b of document.querySelectorAll("nav#tabs [data-view]")) b.setAttribute("aria-pressed", String(b.dataset.view === S.view));
    if (S.view === "lesson") showStep(); else showExplore();
  }
  for (const b of document.querySelectorAll("nav#tabs [data-view]")) {
    if (b.dataset.view === "explore" && !D.studies.length) b.hidden = true;
    b.addEventListener("click", () => { S.view = b.dataset.view; render(); remember(true); });
  }
  const titled = (s) => (s.title.toLowerCase().includes(s.dataset.toLowerCase()) ? s.title : `${s.title} (${s.dataset})`);
  for (const s of D.studies) $("study").appendChild(el("option", "", titled(s))).value = s.id;
  $("study").addEventListener("change", () => {
    S.study = $("study").value;
    S.pos = Object.assign({}, current().default);
    S.resp = current().resp;
    render();
    remember(true);
  });
  $("back").addEventListener("click", () => go(-1));
  $("next").addEventListener("click", () => go(1));
  // (the same under the step: a long step on a phone need not be scrolled back up)
  $("back2").addEventListener("click", () => { go(-1); $("lesson").scrollIntoView(); });
  $("next2").addEventListener("click", () => { go(1); $("lesson").scrollIntoView(); });
  document.addEventListener("keydown", (ev) => {
    if (S.view !== "lesson" || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.target.closest && ev.target.closest("input, select, textarea")) return;
    if (ev.key === "ArrowRight") { go(1); ev.preventDefault(); }
    if (ev.key === "ArrowLeft") { go(-1); ev.preventDefault(); }
  });
  window.addEventListener("popstate", () => { readHash(); render(); });
  window.addEventListener("hashchange", () => { readHash(); render(); });

  // print: every step, each on its own page, its figures drawn at the printed width
  const PRINT_WIDTH = 1000, PRINT_HEIGHT = 250;  // an A4 landscape page's width; the step's sentences fit above
  function preparePrint() {
    document.body.classList.add("printing");
    for (let i = 1; i <= D.lesson.length; i++) stepNode(i).hidden = false;
    for (const node of built.values()) {
      const figs = node._figs || [];
      const w = Math.floor((PRINT_WIDTH - 32 * (Math.min(3, figs.length) - 1)) / Math.max(1, Math.min(3, figs.length)));
      for (const f of figs) {
        const ready = printable.get(f.fid);
        if (!ready) continue;
        if (f.done) purge(f.div);
        f.div.replaceChildren();
        f.done = true;
        const fig = ready;
        if (fig.data.every((t) => t.type === "table")) { f.div.closest(".figbox").classList.add("table"); drawTable(f.div, fig); continue; }
        draw(f.div, {data: fig.data, layout: Object.assign({}, fig.layout, {width: w, height: PRINT_HEIGHT}), config: fig.config});
      }
    }
  }
  function afterPrint() {
    // the printed figures go; each step draws its own again at the screen's width when shown
    document.body.classList.remove("printing");
    for (const node of built.values()) {
      for (const f of node._figs || []) {
        if (!f.done) continue;
        purge(f.div);
        f.div.replaceChildren();
        f.done = false;
      }
    }
    render();
  }
  const printable = new Map();  // the lesson's figures decoded (print draws them at once, no await)
  function decodeLesson() {
    const all = D.lesson.flatMap((s) => s.figures.map((f) => f.fid));
    return Promise.all(all.map((fid) => spec(fid).then((fig) => printable.set(fid, fig)))).then(() => { perf.printReady = true; });
  }
  window.addEventListener("beforeprint", preparePrint);
  window.addEventListener("afterprint", afterPrint);
  $("print").addEventListener("click", () => decodeLesson().then(() => window.print()).catch(fail));

  readHash();
  render();
  remember(false);
  // the lesson's figures decoded soon after the first screen (a few hundred kB): the browser's own
  // print (Ctrl+P) then draws every step at once, with nothing to wait for
  setTimeout(() => decodeLesson().catch(fail), 1000);
})();
