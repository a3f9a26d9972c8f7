import type { IBufferLine } from '@xterm/headless';

/**
 * A buffer line's text, as `translateToString(true, 0, cols)` gives it, read
 * straight from the line's cell words. xterm.js builds the string one cell at
 * a time (a string per cell, then `+=`): on a 1000x1000 screen one read of the
 * visible lines took 0.3 s and most of a replay plan's garbage collection,
 * and every wait polls the screen this way. Here the code units go into one
 * reused array and become a string in one call. The same characters in the
 * same order: a cell's code point (as UTF-16), or its combined string, or a
 * space for an empty cell, stepping by the cell's width, up to the last cell
 * with content. Without the internals (another xterm.js), the public call.
 */
interface RawLine {
  _data?: Uint32Array;
  _combined?: Record<number, string>;
  length?: number;
}

const CELL_SIZE = 3;
const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED = 0x200000;
const HAS_CONTENT = 0x3fffff;
const WIDTH_SHIFT = 22;
/** Arguments per String.fromCharCode call (engines cap how many a call takes). */
const CALL_UNITS = 8192;

let units = new Uint16Array(1024);

export function lineText(view: IBufferLine | undefined, cols: number): string {
  if (!view) return '';
  const line = (view as unknown as { _line?: RawLine })._line;
  const data = line?._data;
  const combined = line?._combined;
  const length = line?.length;
  if (!(data instanceof Uint32Array) || typeof length !== 'number' || typeof combined !== 'object' || data.length < length * CELL_SIZE) {
    return view.translateToString(true, 0, cols);
  }
  let end = Math.min(cols, length);
  let trimmed = 0;
  for (let i = length - 1; i >= 0; i--) {
    const content = data[i * CELL_SIZE];
    if (content & HAS_CONTENT) {
      trimmed = i + (content >> WIDTH_SHIFT);
      break;
    }
  }
  end = Math.min(end, trimmed);
  let n = 0;
  for (let col = 0; col < end; ) {
    const content = data[col * CELL_SIZE];
    if (n + 2 > units.length) grow(n + 2);
    if (content & IS_COMBINED) {
      const chars = combined[col] ?? '';
      if (n + chars.length > units.length) grow(n + chars.length);
      for (let k = 0; k < chars.length; k++) units[n++] = chars.charCodeAt(k);
    } else {
      let cp = content & CODEPOINT_MASK;
      if (cp === 0) units[n++] = 0x20;
      else if (cp > 0xffff) {
        cp -= 0x10000;
        units[n++] = (cp >> 10) + 0xd800;
        units[n++] = (cp % 0x400) + 0xdc00;
      } else units[n++] = cp;
    }
    col += content >> WIDTH_SHIFT || 1;
  }
  if (n <= CALL_UNITS) return String.fromCharCode.apply(null, units.subarray(0, n) as unknown as number[]);
  let text = '';
  for (let i = 0; i < n; i += CALL_UNITS) text += String.fromCharCode.apply(null, units.subarray(i, Math.min(n, i + CALL_UNITS)) as unknown as number[]);
  return text;
}

function grow(atLeast: number): void {
  const next = new Uint16Array(Math.max(atLeast, units.length * 2));
  next.set(units);
  units = next;
}
