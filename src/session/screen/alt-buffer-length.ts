import type { Terminal as XTerm } from '@xterm/headless';

/**
 * xterm.js 6 shrinks a buffer's line list only when the buffer holds lines.
 * The alternate buffer is empty while the normal one is active, so after the
 * window's rows shrink it keeps room for the old row count; entered later, it
 * scrolls lines into a scrollback it should not have (ybase above 0), and a
 * resize after that can throw (`tapedeck snapshot` of a 7-event cast that
 * shrinks, enters the alternate screen, scrolls and grows again was
 * "internal error: Cannot read properties of undefined"). The list is given
 * its right length as the alternate buffer is entered, while it is still empty.
 */
interface LineList {
  length: number;
  maxLength: number;
}
interface AltBuffer {
  lines: LineList;
  _rows: number;
}
interface BufferSet {
  _alt?: AltBuffer;
  activateAltBuffer(fillAttr?: unknown): void;
}

export function fixAltBufferLength(term: XTerm): void {
  const buffers = (term as unknown as { _core?: { _bufferService?: { buffers?: Partial<BufferSet> } } })._core?._bufferService?.buffers;
  if (typeof buffers?.activateAltBuffer !== 'function' || typeof buffers._alt?.lines?.maxLength !== 'number' || typeof buffers._alt._rows !== 'number') return;
  const activate = buffers.activateAltBuffer;
  buffers.activateAltBuffer = function (this: BufferSet, fillAttr?: unknown): void {
    const alt = this._alt;
    // No scrollback in the alternate buffer: room for its rows, no more (xterm.js's own length for it).
    if (alt && alt.lines.length === 0 && alt.lines.maxLength !== alt._rows) alt.lines.maxLength = alt._rows;
    activate.call(this, fillAttr);
  };
}
