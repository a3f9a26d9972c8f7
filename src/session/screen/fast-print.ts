import type { Terminal as XTerm } from '@xterm/headless';

/**
 * xterm.js prints each character through a general path: charset mapping,
 * the width provider, joining, screen-reader and hyperlink hooks, wrapping,
 * insert mode, extended attributes, then a cell write through a method. Most
 * of what a program prints is none of that: characters of width 1 that fit on
 * the line, in plain attributes. That general path was 40% of playing a large
 * cast. This writes such characters into the line's cell words directly and
 * hands the rest of the run (a wide or joining character, the wrap at the
 * right edge) to xterm.js's own print, so every field ends as xterm.js leaves
 * it: test/terminal/fast-print.test.ts holds the two to the same cells,
 * cursor and join state on random streams.
 */

/** xterm.js's cell layout (BufferLine: CELL_SIZE words per cell, the width at bit 22 of the content word). */
const CELL_SIZE = 3;
const WIDTH_SHIFT = 22;
/** BgFlags.HAS_EXTENDED: the cell carries underline style/colour or a link, kept in a side table. */
const HAS_EXTENDED = 0x10000000;
/** UnicodeService.createPropertyValue(0, 1, false): width 1, not joining. */
const WIDTH_ONE = 1 << 1;
/** Code points from here on are printable (xterm.js's NON_ASCII_PRINTABLE); below it, after ASCII, DEL and C1. */
export const NON_ASCII = 0xa0;

interface Line {
  _data: Uint32Array;
  getWidth(index: number): number;
  hasContent(index: number): boolean;
  setCellFromCodepoint(index: number, codePoint: number, width: number, attrs: Attrs): void;
}
interface Attrs {
  fg: number;
  bg: number;
}
type Print = (this: Handler, data: Uint32Array, start: number, end: number) => void;
interface Handler {
  print: Print;
  _activeBuffer: { x: number; y: number; ybase: number; lines: { get(i: number): Line | undefined } };
  _bufferService: { cols: number };
  _charsetService: { charset: unknown };
  _optionsService: { rawOptions: { screenReaderMode: boolean } };
  _coreService: { modes: { insertMode: boolean } };
  _curAttrData: Attrs;
  _unicodeService: { charProperties(codepoint: number, preceding: number): number };
  _parser: { precedingJoinState: number };
  _dirtyRowTracker: { markDirty(y: number): void };
  _getCurrentLinkId(): number;
}

function hasShape(handler: Partial<Handler> | undefined): handler is Handler {
  if (!handler || typeof handler.print !== 'function' || typeof handler._getCurrentLinkId !== 'function') return false;
  const line = handler._activeBuffer?.lines?.get(0);
  return (
    line?._data instanceof Uint32Array &&
    typeof line.getWidth === 'function' &&
    typeof handler._unicodeService?.charProperties === 'function' &&
    typeof handler._parser?.precedingJoinState === 'number' &&
    typeof handler._dirtyRowTracker?.markDirty === 'function' &&
    typeof handler._coreService?.modes === 'object' &&
    typeof handler._curAttrData?.bg === 'number' &&
    typeof handler._bufferService?.cols === 'number' &&
    typeof handler._optionsService?.rawOptions === 'object' &&
    handler._charsetService !== undefined
  );
}

const handlerOf = (term: XTerm) => (term as unknown as { _core?: { _inputHandler?: Partial<Handler> } })._core?._inputHandler;
/** Per patched handler: the print it had before, and whether the fast print is on (runPrinter reads it once per run; removeFastPrint puts the print back and turns it off). */
const patched = new WeakMap<object, { print: Print; on: boolean }>();

/** Whether the cells may be written directly: no charset, screen reader, insert mode, extended attributes or link. */
function plainAllowed(h: Handler): boolean {
  return !h._charsetService.charset && !h._optionsService.rawOptions.screenReaderMode && !h._coreService.modes.insertMode && !(h._curAttrData.bg & HAS_EXTENDED) && !h._getCurrentLinkId();
}

/**
 * Writes data[start..end) into the cursor's line while each code point is one plain cell that fits before
 * the right edge, and returns where it stopped (`start` when it wrote nothing). A control character, DEL
 * or C1 stops it too (the ground lane hands it whole writes). What xterm.js's print does at the start of a
 * run and to the cursor is done here; the end of the run is the caller's (endOfRun).
 */
function writePlain(h: Handler, data: Uint32Array, start: number, end: number): number {
  const attrs = h._curAttrData;
  const buffer = h._activeBuffer;
  const x = buffer.x;
  const line = buffer.lines.get(buffer.ybase + buffer.y)!;
  const cells = line._data;
  const { fg, bg } = attrs;
  const unicode = h._unicodeService;
  let preceding = h._parser.precedingJoinState;
  // The characters that fit before the right edge, while each is one plain cell; nothing else is touched until one is written.
  const stop = Math.min(end, start + h._bufferService.cols - x);
  let pos = start;
  let at = x * CELL_SIZE;
  while (pos < stop) {
    const code = data[pos];
    if (code - 0x20 >>> 0 < 0x5f) preceding = WIDTH_ONE; // printable ASCII
    else if (code < NON_ASCII) break; // a control, DEL or C1: not printed
    else {
      const info = unicode.charProperties(code, preceding);
      if ((info & 7) !== WIDTH_ONE) break;
      preceding = info;
    }
    cells[at] = code | (1 << WIDTH_SHIFT);
    cells[at + 1] = fg;
    cells[at + 2] = bg;
    at += CELL_SIZE;
    pos++;
  }
  if (pos === start) return start; // a wide or joining character first, or the cursor at the right edge
  h._dirtyRowTracker.markDirty(buffer.y); // the row only: the fast path never leaves it
  // As xterm.js: writing over the right half of a wide character blanks its left half.
  if (x && line.getWidth(x - 1) === 2) line.setCellFromCodepoint(x - 1, 0, 1, attrs);
  buffer.x = x + (pos - start);
  h._parser.precedingJoinState = preceding;
  return pos;
}

/** As xterm.js at the end of a run: one that ended on the left half of a wide character's old cells blanks the right half. */
function endOfRun(h: Handler): void {
  const buffer = h._activeBuffer;
  const line = buffer.lines.get(buffer.ybase + buffer.y)!;
  if (buffer.x < h._bufferService.cols && line.getWidth(buffer.x) === 0 && !line.hasContent(buffer.x)) line.setCellFromCodepoint(buffer.x, 0, 1, h._curAttrData);
}

/** Installs the fast path in front of the terminal's print (which may itself be wrapped); left alone if xterm.js's shape is not the expected one. */
export function fastPrint(term: XTerm): void {
  const handler = handlerOf(term);
  if (!hasShape(handler) || patched.has(handler)) return;
  // The ASCII shortcut below assumes the active width provider's packing.
  if (handler._unicodeService.charProperties(0x41, 0) !== WIDTH_ONE) return;
  const print = handler.print;
  patched.set(handler, { print, on: true });
  handler.print = function (data: Uint32Array, start: number, end: number): void {
    const pos = start < end && plainAllowed(this) ? writePlain(this, data, start, end) : start;
    if (pos < end || pos === start) print.call(this, data, pos, end); // the wrap, or a character that is not one plain cell
    else endOfRun(this);
  };
}

/** What xterm.js's parser prints in its ground state (ASCII after the controls, then everything from NON_ASCII). */
export const isPrintable = (c: number) => (c >= 0x20 && c < 0x7f) || c >= NON_ASCII;

/**
 * For the ground lane, which has a whole write: prints the run of printable code points that starts at
 * `start` (data[start] is printable) and returns where it ends. Plain cells are written as the run is
 * read, so the run is not scanned twice; the rest goes through the terminal's print. Undefined when the
 * fast print is not installed; after removeFastPrint it only finds the run and hands it to the print.
 */
export type RunPrinter = (data: Uint32Array, start: number, length: number) => number;
export function runPrinter(term: XTerm): RunPrinter | undefined {
  const handler = handlerOf(term);
  const fast = handler && patched.get(handler);
  if (!fast) return undefined;
  const h = handler as Handler;
  return (data, start, length) => {
    const pos = fast.on && plainAllowed(h) ? writePlain(h, data, start, length) : start;
    let end = pos;
    while (end < length && isPrintable(data[end])) end++;
    if (pos < end) h.print(data, pos, end); // the rest of the run: the fast print again, then xterm.js's
    else endOfRun(h);
    return end;
  };
}

/** Puts back the print fastPrint replaced: the reference side of the test that holds the two alike. */
export function removeFastPrint(term: XTerm): boolean {
  const handler = handlerOf(term);
  const fast = handler && patched.get(handler);
  if (!handler || !fast?.on) return false;
  handler.print = fast.print;
  fast.on = false;
  return true;
}
