/* Presenter mode's keys (app/presenter): one listener on the page's document, installed once per tab.
 * It acts only while the presenter bar is on the page (``.st-key-fq_presenter``), so leaving presenter
 * mode gives every key back to the browser.
 *   Escape, p       leave presenter mode (clicks the bar's "Exit presenter" button)
 *   PageDown, ArrowRight, ArrowDown, Space   the Lesson's Next  (the keys a clicker sends)
 *   PageUp, ArrowLeft, ArrowUp               the Lesson's Back
 * A step key on a page without Back / Next (not the Lesson) scrolls as usual. Keys typed into a text
 * field are left alone, and a focused slider keeps its arrow keys (a clicker's PageDown / PageUp still
 * step, also from plotly's axis-range box that a click at an axis end opens). Each handled key's default (scrolling the page) is prevented. ``window.fqPresenterKeys``
 * counts the steps taken (read by tests).
 */
const NEXT = new Set(["PageDown", "ArrowRight", "ArrowDown", " ", "Spacebar"]);
const BACK = new Set(["PageUp", "ArrowLeft", "ArrowUp"]);
const ARROWS = new Set(["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp"]);

function button(key) {
  return document.querySelector(`.st-key-${key} button`);
}

const TEXT_INPUTS = new Set(["text", "search", "number", "email", "password", "url", "tel", ""]);

function typing(t) {  // a field that takes typed keys (a toggle's or a checkbox's input does not)
  if (!t) return false;
  if (t.isContentEditable || /^(TEXTAREA|SELECT)$/.test(t.tagName || "")) return true;
  return t.tagName === "INPUT" && TEXT_INPUTS.has((t.getAttribute("type") || "").toLowerCase());
}

function press(btn, e) {
  e.preventDefault();
  e.stopPropagation();
  // a focused button would also take a Space as its own click: focus goes back to the page first
  if (document.activeElement && document.activeElement !== document.body) document.activeElement.blur();
  if (!btn.disabled) btn.click();
}

function onKey(e) {
  if (!document.querySelector(".st-key-fq_presenter")) return;  // presenter mode is off
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.isComposing) return;
  const t = e.target;
  // plotly's box for typing an axis range opens on a click at an axis end (a lecturer's stray click
  // on a figure): a clicker's PageDown / PageUp still step (they type nothing there; the box is left)
  const rangeBox = t && t.classList && t.classList.contains("plugin-editable");
  if (typing(t) && !(rangeBox && (e.key === "PageDown" || e.key === "PageUp"))) return;
  if (e.key === "Escape" || e.key === "p" || e.key === "P") {
    // Escape first closes an open menu (the page menu, a select): only a second one leaves
    if (e.key === "Escape" && document.querySelector('[data-testid="stPopoverBody"], [role="listbox"]')) return;
    const exit = button("fq_exit_presenter");
    if (exit) press(exit, e);
    return;
  }
  const next = NEXT.has(e.key), back = BACK.has(e.key);
  if (!next && !back) return;
  if (ARROWS.has(e.key) && t && t.closest && t.closest('[role="slider"]')) return;  // the slider's own keys
  const btn = button(next ? "l_next" : "l_back");
  if (!btn) return;  // not the Lesson: the page scrolls as usual
  press(btn, e);
  window.fqPresenterKeys = (window.fqPresenterKeys || 0) + 1;
}

export default function () {
  if (window.fqPresenterKeysOn) return;
  window.fqPresenterKeysOn = true;
  window.addEventListener("keydown", onKey, true);  // capture: before a focused widget scrolls or steps
}
