/* One plotly figure, updated in place (app/livechart): each new figure from the server is drawn
 * into the same element with Plotly.react (no new element, no blank frame; only what changed is
 * redrawn). Streamlit calls the default export on mount and again with each new ``data``:
 *   spec    the figure as plotly JSON
 *   rev     a hash of spec: a figure already drawn is not drawn again
 *   view    what the figure shows; the user's zoom and pan are kept across figures of one view
 *   plotly  where plotly.js is, relative to the page, in the order tried (Streamlit's chart chunk,
 *           then plotly.min.js): loaded once per tab, shared by every chart
 */
const CONFIG = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ["lasso2d", "select2d"]};

async function loadOne(url) {
  const href = new URL(url, document.baseURI).href;
  if (!href.endsWith(".min.js")) {  // Streamlit's chart chunk: an ES module that sets window.Plotly
    await import(href);
    return;
  }
  await new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = href;
    script.charset = "utf-8";
    script.onload = resolve;
    script.onerror = () => reject(new Error(`plotly.js did not load from ${href}`));
    document.head.appendChild(script);
  });
}

function loadPlotly(urls) {
  if (window.Plotly) return Promise.resolve(window.Plotly);  // Streamlit's, once a page has shown a chart
  if (!window.fqPlotlyLoading) {
    window.fqPlotlyLoading = (async () => {
      for (const url of urls) {
        try {
          await loadOne(url);
        } catch (e) {
          console.warn(e);
        }
        if (window.Plotly) return window.Plotly;
      }
      window.fqPlotlyLoading = null;  // the next figure tries again
      throw new Error("plotly.js could not be loaded");
    })();
  }
  return window.fqPlotlyLoading;
}

async function draw(gd, data, f) {
  if (gd.fqWant !== data.rev || gd.dataset.rev === data.rev) return;  // a newer figure came, or no change
  const Plotly = await loadPlotly(data.plotly);
  if (gd.fqWant !== data.rev) return;
  const layout = Object.assign({}, f.layout || {}, {uirevision: data.view || "live"});
  // The chart's own height, held by the element: plotly's ``responsive`` resize (a window or sidebar
  // change) re-lays the figure out with autosize, reading the element's height from its style; an
  // element without one has only plotly's own content for a height, which that relayout sets to
  // 100 % of the element, and all four Live charts collapsed to 0 px once a sidebar opened.
  if (layout.height) gd.style.height = `${layout.height}px`;
  await Plotly.react(gd, f.data || [], layout, Object.assign({}, CONFIG, f.config || {}));
  gd.style.minHeight = "";
  gd.dataset.rev = data.rev;
  gd.fqRenders = (gd.fqRenders || 0) + 1;  // read by tests and benchmarks
}

export default function (component) {
  const {data, parentElement} = component;
  let gd = parentElement.querySelector(":scope > .fq-live-chart");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "fq-live-chart";
    parentElement.appendChild(gd);
  }
  // Streamlit dims an element it is about to replace (0.5 s into a slow re-run, then 1 s to fade in
  // again); this chart is never replaced, only redrawn, so it stays as it is meanwhile.
  const box = parentElement.closest('[data-testid="stElementContainer"]');
  if (box) {
    box.style.setProperty("opacity", "1", "important");
    box.style.setProperty("transition", "none", "important");
  }
  if (data && data.spec) {
    const f = JSON.parse(data.spec);
    const height = (f.layout || {}).height;
    if (height && !gd.dataset.rev) gd.style.minHeight = `${height}px`;  // the chart's room while plotly.js loads
    gd.fqWant = data.rev;
    gd.fqQueue = (gd.fqQueue || Promise.resolve()).then(() => draw(gd, data, f)).catch((e) => console.error(e));
  }
  // called before the next figure and when the chart leaves the page: free plotly's hold on it then only
  return () => setTimeout(() => { if (!gd.isConnected && window.Plotly) window.Plotly.purge(gd); }, 0);
}
