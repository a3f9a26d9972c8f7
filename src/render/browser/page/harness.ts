/**
 * The page Chromium renders: @xterm/xterm with its built-in DOM renderer
 * (the only one in xterm 6's core; canvas/WebGL would need addons and a GPU
 * path that is less predictable under --disable-gpu), the pinned fonts, and
 * one function, tapedeckRender(payload), that paints a screen and returns the
 * pixel size of the area to capture. Served from a private origin by
 * page.route; the page never touches the network.
 */
import { createWidthProvider, GLIBC_OVERRIDES, WIDTHS_VERSION } from '../../../session/screen/unicode-widths.js';

export const PAGE_ORIGIN = 'http://tapedeck.render';

export interface PagePayload {
  cols: number;
  rows: number;
  /** Escape sequences that paint the screen (browser/repaint.ts). */
  data: string;
  /** Characters beyond ASCII, so the fallback fonts that cover them load before painting. */
  extraChars: string;
  theme: Record<string, unknown>;
  fontFamily: string;
  fontSize: number;
  lineHeight: number;
  padding: number;
  /** The cursor's shape (DECSCUSR), drawn the same unfocused. */
  cursorStyle?: 'block' | 'underline' | 'bar';
}

export interface PageResult {
  width: number;
  height: number;
}

const SCRIPT = String.raw`
let term = null;
let termKey = '';

// The same cell widths as the headless screen (session/screen/unicode-widths.ts), or emoji are squeezed into one cell.
const widths = (${createWidthProvider.toString()})((() => {
  let base = null;
  new Unicode11Addon.Unicode11Addon().activate({ unicode: { register: (p) => (base = p) } });
  return base;
})(), ${JSON.stringify(GLIBC_OVERRIDES)});

async function loadFonts(p) {
  const size = p.fontSize + 'px';
  const loads = [];
  for (const style of ['normal', 'italic']) {
    for (const weight of ['normal', 'bold']) loads.push(document.fonts.load(style + ' ' + weight + ' ' + size + ' "DejaVu Sans Mono"'));
  }
  if (p.extraChars) {
    for (const family of ['Noto Emoji', 'Noto Sans SC']) loads.push(document.fonts.load(size + ' "' + family + '"', p.extraChars));
  }
  await Promise.all(loads);
  await document.fonts.ready;
}

// Runs the render xterm has scheduled for the next animation frame now: the
// same call the frame would make (RenderDebouncer._innerRefresh: the pending
// rows, then the refresh callbacks), with the frame request cancelled. The
// selection redraw that reset() or the buffer switch queued for that frame
// (SelectionService._refresh: every row again) is settled first, so the frame
// the capture draws finds nothing left to redraw and lays the rows out once
// instead of twice. xterm is pinned (its version is in the render profile
// hash); should its internals not be what this expects, nothing happens and
// the frame renders as before.
function renderNow(t) {
  settleSelection(t);
  const debouncer = debouncerOf(t);
  if (!debouncer || (debouncer._animationFrame === undefined && debouncer._rowStart === undefined)) return;
  if (debouncer._animationFrame !== undefined) window.cancelAnimationFrame(debouncer._animationFrame);
  debouncer._innerRefresh();
}

function debouncerOf(t) {
  const debouncer = t._core && t._core._renderService && t._core._renderService._renderDebouncer;
  return debouncer && typeof debouncer._innerRefresh === 'function' ? debouncer : null;
}

// The page never selects anything, so the queued selection redraw would only
// draw every row once more, as the pending render is about to: it is dropped
// when neither the selection nor the renderer's idea of it holds anything, and
// run now otherwise.
function settleSelection(t) {
  const selection = t._core && t._core._selectionService;
  if (!selection || typeof selection._refresh !== 'function' || selection._refreshAnimationFrame === undefined) return;
  window.cancelAnimationFrame(selection._refreshAnimationFrame);
  const shown = t._core._renderService && t._core._renderService._selectionState;
  const model = selection._model;
  if (shown && model && shown.start === undefined && shown.end === undefined && model.finalSelectionStart === undefined && model.finalSelectionEnd === undefined) {
    selection._refreshAnimationFrame = undefined;
    return;
  }
  selection._refresh();
}

// term.reset() queues a redraw of the cleared screen (and of the selection) for
// the next animation frame; the write that follows is parsed in a later task,
// so a frame could draw and lay out the empty screen in between. Those frame
// requests are dropped here: the rows stay pending and the parse asks again.
function holdFrames(t) {
  const debouncer = debouncerOf(t);
  if (debouncer && debouncer._animationFrame !== undefined) {
    window.cancelAnimationFrame(debouncer._animationFrame);
    debouncer._animationFrame = undefined;
  }
  const selection = t._core && t._core._selectionService;
  if (selection && typeof selection._refresh === 'function' && selection._refreshAnimationFrame !== undefined) {
    window.cancelAnimationFrame(selection._refreshAnimationFrame);
    selection._refreshAnimationFrame = undefined;
  }
}

window.tapedeckRender = async (p) => {
  await loadFonts(p);
  const host = document.getElementById('host');
  document.body.style.background = p.theme.background;
  host.style.background = p.theme.background;
  host.style.padding = p.padding + 'px';
  const key = JSON.stringify([p.cols, p.rows, p.theme, p.fontFamily, p.fontSize, p.lineHeight]);
  if (!term || key !== termKey) {
    if (term) term.dispose();
    host.replaceChildren();
    term = new Terminal({
      cols: p.cols,
      rows: p.rows,
      scrollback: 0,
      theme: p.theme,
      fontFamily: p.fontFamily,
      fontSize: p.fontSize,
      lineHeight: p.lineHeight,
      letterSpacing: 0,
      fontWeight: 'normal',
      fontWeightBold: 'bold',
      drawBoldTextInBrightColors: true,
      minimumContrastRatio: 1,
      cursorBlink: false,
      cursorStyle: 'block',
      // xterm draws a solid cursor only when focused; the page never takes focus,
      // so the unfocused style is made the same solid block.
      cursorInactiveStyle: 'block',
      allowProposedApi: true,
      allowTransparency: false,
    });
    term.unicode.register(widths);
    term.unicode.activeVersion = '${WIDTHS_VERSION}';
    term.open(host);
    termKey = key;
  } else {
    term.reset();
    holdFrames(term);
  }
  // xterm draws no cursor until it was focused, typed into or switched buffers
  // ("cursor initialized"); a switch to the alt buffer and back is the public way.
  // The DOM renderer paints the rows on the next animation frame after the
  // write; onRender fires once it has (all rows: the repaint touches every one).
  // Subscribed in the write callback (same task as the parse, so no frame can
  // slip in between) and never to a render of what the page showed before.
  // Waiting for that frame is most of a warm render's time, so the pending
  // render is run at once instead (renderNow); the capture that follows draws
  // a new frame of the DOM as it is then.
  // Unfocused, xterm draws the inactive style: the same shape as the program's cursor.
  term.options.cursorInactiveStyle = p.cursorStyle || 'block';
  await new Promise((resolve) => {
    term.write('\x1b[?1047h\x1b[?1047l' + p.data, () => {
      const sub = term.onRender((e) => {
        if (e.end < term.rows - 1) return;
        sub.dispose();
        resolve();
      });
      renderNow(term);
    });
  });
  const rect = host.getBoundingClientRect();
  return { width: Math.ceil(rect.width), height: Math.ceil(rect.height) };
};
`;

export const PAGE_HTML = `<!doctype html>
<html><head><meta charset="utf-8">
<link rel="stylesheet" href="/xterm.css">
<link rel="stylesheet" href="/fonts/dejavu/tapedeck.css">
<link rel="stylesheet" href="/fonts/noto-emoji/400.css">
<link rel="stylesheet" href="/fonts/noto-sans-sc/400.css">
<style>
html, body { margin: 0; padding: 0; overflow: hidden; }
#host { position: absolute; left: 0; top: 0; display: inline-block; }
.xterm .xterm-viewport { overflow: hidden !important; }
.xterm .xterm-scrollable-element > .scrollbar { display: none !important; }
</style>
<script src="/xterm.js"></script>
<script src="/addon-unicode11.js"></script>
</head><body><div id="host"></div><script>${SCRIPT}</script></body></html>`;
