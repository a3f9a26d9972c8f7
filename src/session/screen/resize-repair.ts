import type { Terminal as XTerm } from '@xterm/headless';

/**
 * After a resize every row of the screen must be a line of the buffer (the
 * buffer holds at least ybase + rows lines). xterm.js 6 can break that when
 * it reflows wide characters with no scrollback to spare: a 7-event cast that
 * narrows to one column and widens again left 9 lines for 10 rows, and the
 * next write to the last row threw (`tapedeck export --format svg`, which
 * plays with no scrollback, was "internal error: Cannot read properties of
 * undefined"). The missing rows are put back at the bottom as blank lines
 * while the buffer has room, then by showing lines from above (as xterm.js
 * does when rows grow), the cursor staying on its line.
 */
interface RawBuffer {
  lines: { length: number; maxLength: number; get(i: number): object | undefined; push(line: object): void };
  ybase: number;
  ydisp: number;
  y: number;
  getNullCell(): unknown;
}

function repair(buffer: RawBuffer, rows: number, cols: number): void {
  const { lines } = buffer;
  const first = lines.get(0);
  if (!first) return; // an empty (inactive alternate) buffer is filled when it is entered
  const BufferLine = first.constructor as new (cols: number, fill: unknown) => object;
  while (lines.length < buffer.ybase + rows && lines.length < lines.maxLength) lines.push(new BufferLine(cols, buffer.getNullCell()));
  while (lines.length < buffer.ybase + rows && buffer.ybase > 0) {
    buffer.ybase--;
    buffer.ydisp = Math.min(buffer.ydisp, buffer.ybase);
    buffer.y = Math.min(buffer.y + 1, rows - 1);
  }
}

/** Resizes the terminal, then puts back any screen row xterm.js's reflow left without a line. */
export function resizeWhole(term: XTerm, rows: number, cols: number): void {
  term.resize(cols, rows);
  const buffers = (term as unknown as { _core?: { buffers?: { normal?: RawBuffer; alt?: RawBuffer } } })._core?.buffers;
  for (const buffer of [buffers?.normal, buffers?.alt]) {
    if (buffer && typeof buffer.lines?.get === 'function' && typeof buffer.getNullCell === 'function') repair(buffer, term.rows, term.cols);
  }
}
